"""Run the scriptable SSE server (``sse_server.py``) in a subprocess and drive it from a test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

SCRIPT = Path(__file__).with_name("sse_server.py")


class ScriptedServer:
    """``with ScriptedServer() as s: s.play({...}); ... s.url``. One process, any number of scenarios."""

    def __init__(self, scenario: dict[str, Any] | None = None) -> None:
        self._initial = scenario or {}
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self) -> ScriptedServer:
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"the scripted server did not start: {line!r}")
        self.port = int(line.split()[1])
        self.play(self._initial)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The base URL a client is given (OpenAI style, with /v1)."""
        return f"{self.root}/v1"

    def play(self, scenario: dict[str, Any]) -> None:
        """Replace the scenario (and forget the requests received so far)."""
        r = httpx.post(f"{self.root}/_scenario", content=json.dumps(scenario), timeout=5)
        r.raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        return httpx.get(f"{self.root}/_requests", timeout=5).json()
