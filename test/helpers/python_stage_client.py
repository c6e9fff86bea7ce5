"""A staging company's client in Python, as the README shows it: requests with files= and data=.

Usage: python3 python_stage_client.py <base_url> <api_key> <style> <image> [<image>…]
Prints {"status": <http status>, "body": <parsed JSON>} for POST /api/v1/stage, then the same for /api/v1/enhance
with the first image.
"""
import json
import sys

import requests


def main() -> None:
    base_url, api_key, style, *paths = sys.argv[1:]
    headers = {"Authorization": f"Bearer {api_key}"}
    handles = [open(path, "rb") for path in paths]
    try:
        files = [("image", (path.rsplit("/", 1)[-1], handle, "image/jpeg")) for path, handle in zip(paths, handles)]
        staged = requests.post(f"{base_url}/api/v1/stage", headers=headers, files=files, data={"style": style, "room_type": "bedroom"}, timeout=60)
        handles[0].seek(0)
        enhanced = requests.post(f"{base_url}/api/v1/enhance", headers=headers, files={"image": handles[0]}, timeout=60)
    finally:
        for handle in handles:
            handle.close()
    print(json.dumps({"stage": {"status": staged.status_code, "body": staged.json()}, "enhance": {"status": enhanced.status_code, "body": enhanced.json()}}))


if __name__ == "__main__":
    main()
