"""``hippo-kb.toml``: what a folder's editor says about its files, over what the files say of themselves.

One table per file name or glob, relative to the manifest's folder; the last table that matches a file
wins, key by key. ``kb ingest --publisher``/``--updated`` still win over the manifest.

    ["formulary.pdf"]
    title = "County antimicrobial formulary"
    updated = 2026-01-31

    ["protocols/*.docx"]
    publisher = "County hospital"
    url = "https://example.org/protocols"
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.ingest.document import IngestError

if TYPE_CHECKING:
    from hippo_tui.ingest.reading import Overrides

NAME = "hippo-kb.toml"
KEYS = ("title", "publisher", "updated", "url")
_MAX_BYTES = 1024 * 1024  # a manifest is a page of settings, not a data file
_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_\-\"']+)\s*=")


@dataclass
class Manifest:
    folder: Path
    entries: list[tuple[str, dict[str, object]]] = field(default_factory=list)  # (glob, settings)

    def settings_for(self, path: Path) -> dict[str, object]:
        try:
            relative = path.relative_to(self.folder).as_posix()
        except ValueError:
            return {}
        out: dict[str, object] = {}
        for pattern, values in self.entries:
            if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(path.name, pattern):
                out.update(values)
        return out


def _check(path: Path, text: str, data: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    entries = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        m = _KEY_LINE.match(line)
        if m and m.group(1).strip("\"'") not in KEYS:
            raise IngestError(
                path, f"unknown key {m.group(1)!r} (a file's keys are {', '.join(KEYS)})", line=line_no
            )
    for pattern, values in data.items():
        if not isinstance(values, dict):
            raise IngestError(path, f'{pattern!r} is not a table: write ["{pattern}"] and its keys under it')
        for key, value in values.items():
            ok = isinstance(value, date) or (isinstance(value, str) and (key != "updated" or _is_date(value)))
            if not ok or (isinstance(value, date) and key != "updated"):
                raise IngestError(
                    path,
                    f"[{pattern!r}] {key} = {value!r} is not a {'date' if key == 'updated' else 'string'}",
                )
        entries.append((pattern, values))
    return entries


def _is_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def load(folder: Path) -> Manifest | None:
    """The manifest of ``folder``, None when it has none; a bad one is an IngestError naming its line."""
    path = folder / NAME
    if not path.is_file():
        return None
    raw = path.read_bytes()[: _MAX_BYTES + 1]
    if len(raw) > _MAX_BYTES:
        raise IngestError(path, "over 1 MB: not a manifest")
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise IngestError(path, f"not valid TOML ({e})") from None
    return Manifest(folder, _check(path, text, data))


def apply(manifests: list[Manifest], path: Path, overrides: Overrides) -> Overrides:
    """``overrides`` with what the manifests say of ``path`` filled in where the
    command line left it unset."""
    found: dict[str, object] = {}
    for manifest in manifests:
        found.update(manifest.settings_for(path))
    if isinstance(found.get("updated"), str):
        found["updated"] = date.fromisoformat(str(found["updated"]))
    given = {k: v for k, v in found.items() if getattr(overrides, k, None) is None}
    return replace(overrides, **given) if given else overrides  # type: ignore[arg-type]
