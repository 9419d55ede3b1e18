"""A scriptable OpenAI-compatible HTTP server (stdlib only), run as a subprocess on 127.0.0.1.

    python tests/support/sse_server.py [SCENARIO.json]   → prints "PORT <n>" on its first stdout line

It speaks real HTTP/1.1 with chunked transfer encoding, so clients meet real sockets, real SSE framing and
real connection failures. What it answers is a *scenario* (JSON), replaceable at run time with
``POST /_scenario``; ``GET /_requests`` returns every request received since (method, path, headers, body).

Scenario::

    {"chat": [RESPONSE, ...], "grounding": [RESPONSE, ...], "models": ["m1", ...]}

Chat-completion requests with a ``response_format`` take the next ``grounding`` response, the others the
next ``chat`` response; the last one repeats when a queue runs out. A scenario may give grounding responses
per ``response_format`` step instead, as a server that treats them differently would: keys
``"grounding:json_schema"``, ``"grounding:json_object+schema"`` (``json_object`` carrying ``schema``) and
``"grounding:json_object"`` take precedence over ``"grounding"``. A RESPONSE is::

    {"status": 200,              # default 200
     "headers": {"Retry-After": "1"},
     "wait": 0.0,                # seconds before answering at all
     "json": {...},              # a JSON body (an error, a non-streamed completion) ...
     "body": "raw text",         # ... or a raw body (e.g. not JSON) ...
     "chunks": [CHUNK, ...],     # ... or an SSE stream: each CHUNK a JSON object or a raw data string
     "delay": 0.0,               # seconds between chunks
     "done": true,               # send "data: [DONE]" at the end
     "cut": false,               # drop the connection mid-stream instead of ending it cleanly
     "hang": false,              # after the chunks, keep the connection open until the client leaves
     "fill": {"<id>": false},    # a completion filling the request's schema exactly, as a grammar-constrained
                                 # server does: every property, true unless named here
     "echo": true}               # a completion echoing the request's <data> JSON (a model of the wrong shape)
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class State:
    def __init__(self, scenario: dict[str, Any]) -> None:
        self.lock = threading.Lock()
        self.load(scenario)

    def load(self, scenario: dict[str, Any]) -> None:
        with self.lock:
            self.scenario = scenario
            self.next: dict[str, int] = {}
            self.requests: list[dict[str, Any]] = []

    def take(self, kind: str) -> dict[str, Any] | None:
        with self.lock:
            queue = self.scenario.get(kind) or []
            if not queue:
                return None
            i = min(self.next.get(kind, 0), len(queue) - 1)
            self.next[kind] = self.next.get(kind, 0) + 1
            return queue[i]


STATE = State({})


def grounding_step(response_format: dict[str, Any]) -> str:
    if response_format.get("type") == "json_schema":
        return "json_schema"
    return "json_object+schema" if "schema" in response_format else "json_object"


def request_schema(response_format: dict[str, Any]) -> dict[str, Any] | None:
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("schema")
    return response_format.get("schema")


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
    }


def generated(resp: dict[str, Any], body: dict[str, Any]) -> dict[str, Any] | None:
    """The ``fill`` and ``echo`` responses, made from the request (``wait`` and the rest kept); None for a
    scripted one."""
    rest = {k: v for k, v in resp.items() if k not in ("fill", "echo")}
    if "fill" in resp:
        schema = request_schema(body.get("response_format") or {})
        if not schema:
            return {"status": 500, "json": {"error": {"message": "scenario: fill needs a schema"}}}
        names = schema.get("properties") or {}
        return {**rest, "json": completion(json.dumps({k: resp["fill"].get(k, True) for k in names}))}
    if resp.get("echo"):
        user = [m for m in body.get("messages") or [] if m.get("role") == "user"]
        found = re.search(r"<data>\n(.*)\n</data>", str(user[-1].get("content")) if user else "", re.S)
        return {**rest, "json": completion(found.group(1) if found else "{}")}
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
        pass

    def _body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(data).encode()
        self._send_raw(status, payload, "application/json", headers)

    def _send_raw(
        self, status: int, payload: bytes, ctype: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_GET(self) -> None:
        if self.path == "/_requests":
            with STATE.lock:
                self._send_json(200, STATE.requests)
            return
        if self.path.rstrip("/").endswith("/models"):
            models = STATE.scenario.get("models") or ["scripted"]
            self._send_json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in models]})
            return
        self._send_json(404, {"error": {"message": f"no route GET {self.path}"}})

    def do_POST(self) -> None:
        raw = self._body()
        if self.path == "/_scenario":
            STATE.load(json.loads(raw))
            self._send_json(200, {"ok": True})
            return
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        with STATE.lock:
            STATE.requests.append(
                {"method": "POST", "path": self.path, "headers": dict(self.headers.items()), "body": body}
            )
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route POST {self.path}"}})
            return
        kind = "grounding" if isinstance(body, dict) and body.get("response_format") else "chat"
        if kind == "grounding":
            step = f"grounding:{grounding_step(body['response_format'])}"
            kind = step if step in STATE.scenario else kind
        resp = STATE.take(kind)
        if resp is not None and isinstance(body, dict):
            resp = generated(resp, body) or resp
        if resp is None:
            self._send_json(500, {"error": {"message": f"the scenario has no {kind} response"}})
            return
        self._answer(resp)

    def _answer(self, resp: dict[str, Any]) -> None:
        if resp.get("wait"):
            time.sleep(float(resp["wait"]))
        status = int(resp.get("status", 200))
        headers = resp.get("headers") or {}
        if "json" in resp:
            self._send_json(status, resp["json"], headers)
            return
        if "body" in resp:
            self._send_raw(status, str(resp["body"]).encode(), "application/json", headers)
            return
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        delay = float(resp.get("delay", 0))
        try:
            for c in resp.get("chunks") or []:
                data = c if isinstance(c, str) else json.dumps(c)
                self._chunk(f"data: {data}\n\n".encode())
                if delay:
                    time.sleep(delay)
            if resp.get("cut"):
                # Half a chunk, then the socket closes: the client sees an incomplete chunked body.
                self.wfile.write(b'40\r\ndata: {"choi')
                self.wfile.flush()
                self.close_connection = True
                return
            if resp.get("hang"):
                while True:  # until the client goes away (the write fails)
                    time.sleep(0.05)
                    self._chunk(b": keep-alive\n\n")
            if resp.get("done", True):
                self._chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        STATE.load(json.loads(Path(argv[1]).read_text()))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv)
