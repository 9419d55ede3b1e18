"""Writing the conversation to a file in the data folder (Markdown or JSON), never over an earlier one."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from hippo_tui.export import Turn, to_json, to_markdown


def export_path(folder: Path, suffix: str, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    path = folder / f"conversation-{stamp}.{suffix}"
    n = 1
    while path.exists():  # two exports in the same second must not overwrite each other
        n += 1
        path = folder / f"conversation-{stamp}-{n}.{suffix}"
    return path


def write_export(turns: list[Turn], folder: Path, *, as_json: bool) -> Path:
    """The file written (raises OSError when it could not be)."""
    path = export_path(folder, "json" if as_json else "md")
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(to_json(turns) if as_json else to_markdown(turns), encoding="utf-8")
    return path
