"""Where the bundled demo knowledge base lives inside the installed package."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

# The package is installed as plain files (wheel or editable), so the resource is a real path.
DEMO_KB: Path = Path(str(files("hippo_tui") / "data" / "kb" / "demo.jsonl"))
