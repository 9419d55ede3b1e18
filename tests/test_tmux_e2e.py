"""The real app in a real terminal (tmux), as a clinician meets it: offline backend, demo KB, keyboard only.

These tests start `hippo-tui` in a detached tmux session, type into it with send-keys and read the screen with
capture-pane. They poll the pane (the app runs in another process: there is no pilot to await).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

EXE = Path(sys.executable).with_name("hippo-tui")
QUESTION = "How long should uncomplicated cystitis in women be treated?"


class Terminal:
    def __init__(self, name: str, socket: str) -> None:
        self.name, self.socket = name, socket

    def tmux(self, *args: str) -> str:
        res = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False)
        return res.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")


@pytest.fixture
def start(tmp_path) -> Iterator[Callable[..., Terminal]]:
    socket = f"hippo-test-{uuid.uuid4().hex[:8]}"
    started: list[Terminal] = []

    def _start(width: int, height: int, tokens_per_second: float = 400) -> Terminal:
        cfg = tmp_path / "config.toml"
        cfg.write_text(f"offline_tokens_per_second = {tokens_per_second}\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
        env.update(HIPPO_HOME=str(tmp_path / "home"), HIPPO_CONFIG=str(cfg), TERM="xterm-256color")
        name = f"app{len(started)}"
        cmd = ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", name]
        subprocess.run([*cmd, "-x", str(width), "-y", str(height), str(EXE)], env=env, check=True)
        term = Terminal(name, socket)
        started.append(term)
        # The first frame, not "Ready": keys typed while the engine opens must not be lost.
        term.wait_for(lambda s: "Ask a question" in s, "the first frame")
        return term

    yield _start
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)


@pytest.mark.parametrize(("width", "height"), [(40, 20), (80, 24)])
def test_ask_and_see_verified_citations(start, width, height):
    term = start(width, height)
    term.type(QUESTION)
    term.keys("Enter")
    # The sidebar's marks follow the answer's by a frame: the end is the screen with no pending marker left.
    screen = term.wait_for(
        lambda s: "verified" in s and "Ask a question" in s and "[·" not in s,
        "the verified end, no [·n] left",
    )
    lines = screen.splitlines()
    assert len(lines) == height and all(len(line) <= width for line in lines)
    assert "nitrofurantoin" in screen.lower()  # the answer text
    assert "[1]" in screen  # a numbered, verified citation
    assert "-4" not in screen or "[" not in screen.split("-4")[0][-37:]  # no raw UUID marker
    assert "✓" in screen  # the status says so with a mark, not colour alone
    if width < 80:  # the sidebar is an overlay: open it to see the sources
        term.keys("C-b")
        screen = term.wait_for(lambda s: "Sources" in s and "✓ verified" in s, "the sources overlay")
    assert "cystitis" in screen.lower()


def test_escape_cancels_and_restores_the_question(start):
    term = start(80, 24, tokens_per_second=3)
    term.type(QUESTION)
    term.keys("Enter")
    term.wait_for(lambda s: "esc" in s.lower() and "Writing" in s, "the answer to start streaming")
    term.keys("Escape")
    screen = term.wait_for(lambda s: "Cancelled" in s, "the cancellation")
    assert QUESTION[:30] in screen.splitlines()[-2]  # the question is back in the prompt, ready to edit


def test_sidebar_toggle_at_40_columns(start):
    term = start(40, 20)
    term.keys("C-b")
    shown = term.wait_for(lambda s: "No sources yet" in s, "the sidebar overlay")
    assert "Ask a question" in shown  # the overlay leaves the prompt visible
    term.keys("C-b")
    term.wait_for(lambda s: "No sources yet" not in s, "the overlay to close")
