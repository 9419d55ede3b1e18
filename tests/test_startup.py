"""A command's start-up in its own process: the collector held off and the patterns kept while its modules
load (hippo_tui.startup); a caller's process (a test, an embedder) keeps its collector and ``re`` as they were."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippo_tui import startup
from hippo_tui.cli import main

COMPILE = re.compile


@pytest.fixture
def own_process() -> Iterator[None]:
    """As the entry point says when it runs this process's command line; the test process's collector back
    afterwards (frozen objects would outlive the test)."""
    startup.own_process()
    yield
    startup._own_process = False
    gc.unfreeze()
    gc.enable()


def test_a_callers_process_is_left_as_it_was():
    frozen = gc.get_freeze_count()
    with startup.loading("ask"):
        assert gc.isenabled() and re.compile is COMPILE
    assert gc.get_freeze_count() == frozen


def test_only_the_command_line_of_the_process_is_its_own(monkeypatch):
    monkeypatch.setattr(startup, "_own_process", False)
    with pytest.raises(SystemExit):
        main(["--version"])  # a caller's arguments
    assert not startup._own_process
    monkeypatch.setattr(sys, "argv", ["hippo-tui", "--version"])
    with pytest.raises(SystemExit):
        main()  # the process's own, as the installed command runs it
    assert startup._own_process


def test_in_its_own_process_pydantic_looks_for_no_plugins(monkeypatch):
    monkeypatch.delitem(sys.modules, startup.PYDANTIC_PLUGINS, raising=False)
    startup.without_pydantic_plugins()
    loader = sys.modules[startup.PYDANTIC_PLUGINS]
    assert tuple(loader.get_plugins()) == ()
    assert loader.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"  # anything else asked is the real loader's


def test_in_its_own_process_a_command_loads_with_the_collector_off_then_frozen(own_process, no_user_folders):
    frozen = gc.get_freeze_count()
    with startup.loading("ask"):
        assert not gc.isenabled()
        assert re.compile is not COMPILE  # patterns made from the cache folder's states
        loaded = [re.compile(r"(?P<dose>\d+)\s*mg")]
    assert gc.isenabled() and re.compile is COMPILE
    assert gc.get_freeze_count() > frozen  # what loaded is never walked again
    assert loaded == [COMPILE(r"(?P<dose>\d+)\s*mg")]
    assert list((no_user_folders / "cache").rglob("patterns-loading-ask-*.bin"))


def ask(home: Path, question: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(home)
    proc = subprocess.run([sys.executable, "-m", "hippo_tui", "ask", question], capture_output=True, text=True,
                          env=env, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return re.sub(r"\(\d+\.\d s\)", "(… s)", proc.stdout)  # how long checking took is not the answer


def test_an_answer_is_the_same_whether_the_patterns_were_kept_or_compiled(hippo_home, no_user_folders):
    question = "What is the first-line drug for hypertension?"
    first = ask(hippo_home, question)  # builds the database and compiles the patterns, then keeps them
    (kept,) = (no_user_folders / "cache").rglob("patterns-loading-ask-*.bin")
    written = kept.stat().st_mtime_ns
    assert ask(hippo_home, question) == first  # made from the kept states
    assert kept.stat().st_mtime_ns == written  # nothing new to keep
    assert "Verification:" in first
