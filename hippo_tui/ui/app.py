"""Placeholder until the app issue lands."""

from hippo_tui.config import Settings


def run_app(settings: Settings) -> int:
    print("hippo-tui: the app is not built yet")
    return 2
