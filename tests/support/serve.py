"""A real `hippo-tui serve` in a subprocess on a free loopback port, and an SSE reader for its streams.

Real uvicorn, not an in-process ASGI transport: that one buffers a streamed response, so neither
heartbeats nor a disconnect mid-answer could be seen.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

STARTUP = 60.0  # seconds a busy machine may take to import and bind


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Serve:
    def __init__(
        self, home: Path, *args: str, tokens: Path | None = None, tokens_per_second: float = 0
    ) -> None:
        self.home = home
        self.args = list(args)
        self.tokens = tokens
        self.tokens_per_second = tokens_per_second
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.log = home / f"serve-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Serve:
        config = self.home / "config.toml"
        config.write_text(f"offline_tokens_per_second = {self.tokens_per_second}\n")
        cmd = [sys.executable, "-m", "hippo_tui", "serve", "--port", str(self.port), "--config", str(config)]
        if self.tokens is not None:
            cmd += ["--tokens", str(self.tokens)]
        env = {**os.environ, "HIPPO_HOME": str(self.home)}
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen([*cmd, *self.args], env=env, stdout=log, stderr=log, text=True)
        self._wait_healthy()
        return self

    def _wait_healthy(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited with {self.proc.returncode}: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/v1/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.05)  # the server process is starting; nothing else to wait on
        raise RuntimeError(f"serve did not answer on {self.url}: {self.log.read_text()}")

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def __enter__(self) -> Serve:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sse_frames(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Frames of a text/event-stream as dicts: ``id``, ``data`` (raw), ``event`` (parsed), or ``comment``."""
    current: dict[str, Any] = {}
    for line in lines:
        if line == "":
            if current:
                if "data" in current:
                    current["event"] = json.loads(current["data"])
                yield current
                current = {}
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "":
            current["comment"] = value
        else:
            current[field] = value
