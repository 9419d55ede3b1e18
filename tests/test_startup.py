"""A command's start-up in its own process: the collector held off while its modules load (hippo_tui.startup);
a caller's process (a test, an embedder) keeps its collector as it was."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator

import pytest

from hippo_tui import startup
from hippo_tui.cli import main


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
        assert gc.isenabled()
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


def test_in_its_own_process_a_command_loads_with_the_collector_off_then_frozen(own_process):
    frozen = gc.get_freeze_count()
    with startup.loading("ask"):
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen  # what loaded is never walked again

