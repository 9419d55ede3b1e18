"""hippo-tui: a terminal medical assistant whose citations can be checked."""

import sys

__version__ = "0.1.0"

# httpx's package imports its command-line tool, and with it rich, pygments and click (about 100 ms of an
# offline `ask`), and falls back to a stub when that import fails. hippo-tui never runs httpx's tool.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
