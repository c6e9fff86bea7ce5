"""Roomstage from Python with requests: the spec's typical flow, end to end.

    pip install requests
    python3 clients/python/roomstage_example.py http://localhost:3000 kitchen.jpg hall.jpg

It signs up a staging company (a throwaway e-mail), creates an API key, stages the photos with one multipart upload,
enhances the first photo to 4K, stages the first photo again as an asynchronous job and waits for it, signs up an
agent who previews and redeems the claim code, and prints the balance. Each step prints one JSON line. In your own
code you already have a key: keep only `stage`, `stage_async` + `wait_for_job`, `enhance` and `credits`.

Errors are JSON bodies {"error", "code", "message"}: branch on `code` (see /docs). Retries of stage/enhance are safe
with an Idempotency-Key header: the same key returns the first response again, charged once.
"""
import json
import secrets
import sys
import time

import requests

TIMEOUT = 60


class RoomstageError(Exception):
    def __init__(self, status, body):
        super().__init__(f"{status or 'job failed'} {body.get('code')}: {body.get('message')}")
        self.status, self.code, self.body = status, body.get("code"), body


class JobFailed(RoomstageError):
    """An asynchronous job that failed: `code` and `body` are its error; its credits were refunded."""

    def __init__(self, job_id, error):
        super().__init__(None, error)
        self.job_id = job_id


def call(method, url, credential=None, **kwargs):
    headers = kwargs.pop("headers", {})
    if credential:
        headers["Authorization"] = f"Bearer {credential}"
    response = requests.request(method, url, headers=headers, timeout=TIMEOUT, **kwargs)
    if not response.ok:
        raise RoomstageError(response.status_code, response.json())
    return response.json()


def signup(base_url, email, password):
    return call("POST", f"{base_url}/api/v1/auth/signup", json={"email": email, "password": password})["token"]


def create_key(base_url, token, name="Default"):
    return call("POST", f"{base_url}/api/v1/keys", token, json={"name": name})["key"]


def stage(base_url, api_key, photo_paths, style="modern", room_type="living_room", idempotency_key=None):
    """One credit per photo; the `image` file field repeats for several photos (up to 10)."""
    handles = [open(path, "rb") for path in photo_paths]
    try:
        files = [("image", (path.rsplit("/", 1)[-1], handle)) for path, handle in zip(photo_paths, handles)]
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return call("POST", f"{base_url}/api/v1/stage", api_key, files=files, data={"style": style, "room_type": room_type}, headers=headers)
    finally:
        for handle in handles:
            handle.close()


def stage_async(base_url, api_key, photo_paths, style="modern", room_type="living_room", idempotency_key=None):
    """Like `stage`, but answered at once with 202 {job_id, status, status_url}; charged the same, refunded if it fails."""
    handles = [open(path, "rb") for path in photo_paths]
    try:
        files = [("image", (path.rsplit("/", 1)[-1], handle)) for path, handle in zip(photo_paths, handles)]
        headers = {"Prefer": "respond-async"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        return call("POST", f"{base_url}/api/v1/stage", api_key, files=files, data={"style": style, "room_type": room_type}, headers=headers)
    finally:
        for handle in handles:
            handle.close()


def wait_for_job(api_key, job, timeout=300):
    """Polls the job's status_url until it finishes: the synchronous call's body, or JobFailed with the job's error."""
    deadline, delay = time.monotonic() + timeout, 0.2
    while True:
        state = call("GET", job["status_url"], api_key)
        if state["status"] == "succeeded":
            return state["result"]
        if state["status"] == "failed":
            raise JobFailed(job["job_id"], state["error"])
        if time.monotonic() > deadline:
            raise TimeoutError(f"job {job['job_id']} still {state['status']} after {timeout} s")
        time.sleep(delay)
        delay = min(delay * 2, 5)


def enhance(base_url, api_key, photo_path):
    with open(photo_path, "rb") as handle:
        return call("POST", f"{base_url}/api/v1/enhance", api_key, files={"image": handle})


def preview(base_url, token, code):
    return call("POST", f"{base_url}/api/v1/claim/preview", token, json={"code": code})


def redeem(base_url, token, code):
    return call("POST", f"{base_url}/api/v1/claim", token, json={"code": code})


def credits(base_url, api_key):
    return call("GET", f"{base_url}/api/v1/credits", api_key)


def main():
    base_url, *photos = sys.argv[1:]
    password = secrets.token_urlsafe(16)
    company = signup(base_url, f"company-{secrets.token_hex(4)}@example.test", password)
    api_key = create_key(base_url, company)
    steps = {"stage": stage(base_url, api_key, photos, style="farmhouse", room_type="bedroom")}
    steps["enhance"] = enhance(base_url, api_key, photos[0])
    job = stage_async(base_url, api_key, photos[:1], style="scandinavian")
    steps["stage_async"] = {"job": job, "result": wait_for_job(api_key, job)}
    agent = signup(base_url, f"agent-{secrets.token_hex(4)}@example.test", password)
    code = steps["stage"]["claim_code"]
    steps["preview"] = preview(base_url, agent, code)
    steps["redeem"] = redeem(base_url, agent, code)
    try:
        redeem(base_url, agent, code)
    except RoomstageError as error:
        steps["redeem_again"] = {"status": error.status, "code": error.code}
    steps["credits"] = credits(base_url, api_key)
    for step, body in steps.items():
        print(json.dumps({"step": step, "body": body}))


if __name__ == "__main__":
    main()
