"""A loopback push service and a browser's subscription keys, for the Web Push tests (issue
26): the push service records what it is sent; the browser decrypts it (RFC 8291)."""

from __future__ import annotations

import base64
import http.server
import json
import os
import threading

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class PushService:
    """A loopback push service: records each POST, answers with the next queued status."""

    def __init__(self):
        self.received: list[dict] = []
        self.statuses: list[int] = []
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {name.lower(): value for name, value in self.headers.items()}
                service.received.append({"path": self.path, "headers": headers,
                                         "body": body})
                self.send_response(service.statuses.pop(0) if service.statuses else 201)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Browser:
    """A subscription's keys, as a browser makes them (RFC 8291 §3)."""

    def __init__(self, endpoint: str):
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        public = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": endpoint,
                             "keys": {"p256dh": _b64(public), "auth": _b64(self.auth)}}

    def decrypt(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.private_key,
                                           auth_secret=self.auth, version="aes128gcm"))
