"""`hippo-tui ask`: placeholder until its issue lands (registers the sub-command so --help lists it)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ask", parents=[common], help="(not built yet)")
    p.set_defaults(func=lambda args: (print("hippo-tui ask: not built yet"), 2)[1])
