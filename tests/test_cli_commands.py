"""A command line naming its command is parsed by a parser holding that command alone: the same either way."""

from __future__ import annotations

import argparse
import contextlib
import io
from typing import Any

import pytest

from hippo_tui.cli import COMMANDS, build_parser

LINES = [
    ["ask", "--json", "What dose of amlodipine?"],
    ["ask", "--model", "m", "--base-url", "http://x/v1", "q"],
    ["ask"],
    ["ask", "--help"],
    ["ask", "--bogus", "q"],
    ["verify", "answer.md", "--json"],
    ["kb", "search", "amlodipine", "--json", "-k", "3"],
    ["kb", "list", "--limit", "5"],
    ["kb"],
    ["kb", "--help"],
    ["kb", "nothing-such"],
    ["audit", "list"],
    ["eval", "--help"],
    ["serve", "--help"],
    ["token", "add", "ann", "--role", "clinician", "--tokens", "t.json"],
    ["token", "list", "--tokens", "t.json"],
    ["db", "migrate"],
]


def parsed(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[Any, ...]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            args = vars(parser.parse_args(argv))
            code = None
        except SystemExit as e:
            args, code = {}, e.code
    named = {k: getattr(v, "__qualname__", v) for k, v in args.items()}  # the handler by name
    return named, code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", LINES, ids=" ".join)
def test_one_command_parses_as_with_every_command(argv):
    assert parsed(build_parser(argv[0]), argv) == parsed(build_parser(), argv)


def test_every_command_is_known_by_name():
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(COMMANDS) == set(commands.choices)
