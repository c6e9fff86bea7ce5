"""Roomstage from Python with requests: the spec's typical flow, end to end.

    pip install requests
    python3 clients/python/roomstage_example.py http://localhost:3000 kitchen.jpg hall.jpg

It signs up a staging company (a throwaway e-mail), creates an API key, stages the photos with one multipart upload,
enhances the first photo to 4K, signs up an agent who previews and redeems the claim code, and prints the balance.
Each step prints one JSON line. In your own code you already have a key: keep only `stage`, `enhance` and `credits`.

Errors are JSON bodies {"error", "code", "message"}: branch on `code` (see /docs). Retries of stage/enhance are safe
with an Idempotency-Key header: the same key returns the first response again, charged once.
"""
import json
import secrets
import sys

import requests

TIMEOUT = 60


class RoomstageError(Exception):
    def __init__(self, status, body):
        super().__init__(f"{status} {body.get('code')}: {body.get('message')}")
        self.status, self.code, self.body = status, body.get("code"), body


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
