"""The real app in tmux as a thin client of a real `hippo-tui serve` subprocess: a verified answer, at the
narrowest and the usual size, with the engine in another process."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from hippo_tui.server.tokens import add_token
from tests.support.serve import Serve
from tests.test_tmux_e2e import EXE, QUESTION, Terminal

pytest.importorskip("fastapi")
pytestmark = [
    pytest.mark.tmux,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.mark.parametrize(("width", "height"), [(40, 20), (80, 24)])
def test_the_app_gets_a_verified_answer_from_the_server(tmp_path: Path, width: int, height: int):
    tokens = tmp_path / "tokens.json"
    token = add_token(tokens, "ana", "clinician")
    (tmp_path / "server").mkdir()
    socket = f"hippo-test-{uuid.uuid4().hex[:8]}"
    with Serve(tmp_path / "server", tokens=tokens, tokens_per_second=400) as s:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
        env.update(HIPPO_HOME=str(tmp_path / "client"), HIPPO_SERVER=s.url, HIPPO_TOKEN=token,
                   TERM="xterm-256color")  # fmt: skip
        cmd = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "app"]
        subprocess.run([*cmd, "-x", str(width), "-y", str(height), str(EXE)], env=env, check=True)
        try:
            term = Terminal("app", socket)
            term.wait_for(lambda t: "Ask a question" in t, "the first frame")
            term.type(QUESTION)
            term.keys("Enter")
            screen = term.wait_for(lambda t: "verified" in t and "✓" in t, "a verified answer", timeout=60)
            assert "Error" not in screen and "nitrofurantoin" in screen.lower()
        finally:
            subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)
    assert not (tmp_path / "client" / "hippo.db").exists()  # the client kept no store of its own
