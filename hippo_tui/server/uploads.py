"""Files uploaded to `POST /v1/kb/ingest`: their names made safe, and where they are kept on the server.

An upload is kept under the data folder's ``uploads/<store>/`` at its (sanitised) relative name, and ingested from
there by the very pipeline of `kb ingest`: the document's key is that path, so uploading the same name again
revises the document (versions, retired passages) as re-ingesting a changed file does. A file that fails, or
a run that writes nothing (a dry run, ``strict`` with a failure), leaves the folder as it was.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_PARTS = 8  # folders deep, file name included
MAX_PART_CHARS = 200


class BadName(ValueError):
    """An uploaded file's name that cannot be kept as given; the message says why (with the name inert)."""


def _inert(name: str) -> str:
    return "".join(c if c.isprintable() else "\ufffd" for c in name)[:120]


def safe_name(raw: str | None) -> PurePosixPath:
    """A relative path made of the upload's own name parts, or BadName. Never a way out of the folder:
    no absolute paths, no "..", no control or format characters, no hidden parts (kb ingest skips those)."""
    if not raw:
        raise BadName("a file was sent without a name")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in raw):
        raise BadName(f"{_inert(raw)}: the name has control characters")
    name = unicodedata.normalize("NFC", raw).replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise BadName(f"{_inert(raw)}: the name is an absolute path; send a name relative to the folder")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts:
        raise BadName(f"{_inert(raw)}: the name has no file name in it")
    for part in parts:
        if part == "..":
            raise BadName(f"{_inert(raw)}: the name leads out of the folder ('..')")
        if part.startswith("."):
            raise BadName(f"{_inert(raw)}: a hidden name ('{_inert(part)}') is not ingested")
        if len(part) > MAX_PART_CHARS or part.strip() != part:
            raise BadName(f"{_inert(raw)}: a part of the name is over {MAX_PART_CHARS} characters or padded")
    if len(parts) > MAX_PARTS:
        raise BadName(f"{_inert(raw)}: the name is over {MAX_PARTS} folders deep")
    return PurePosixPath(*parts)


@dataclass
class Kept:
    """One upload written at ``path``; ``previous`` holds the file it replaced until the run is over."""

    name: PurePosixPath
    path: Path
    previous: Path | None


def keep(folder: Path, name: PurePosixPath, data: Iterable[bytes]) -> Kept:
    """Write one upload at ``folder/name`` (blocking), moving aside any file already there."""
    path = folder.joinpath(*name.parts)
    if not path.parent.resolve().is_relative_to(folder.resolve()):
        raise BadName(f"{name}: the name leads out of the folder")  # a link inside the folder points out
    path.parent.mkdir(parents=True, exist_ok=True)
    previous = None
    if path.is_symlink() or path.exists():
        if not path.is_file() or path.is_symlink():
            raise BadName(f"{name}: the name is taken by a folder or link on the server")
        previous = path.with_name(f".{path.name}.previous")
        os.replace(path, previous)
    kept = Kept(name, path, previous)
    try:
        with open(path, "xb") as f:
            for chunk in data:
                f.write(chunk)
    except BaseException:
        settle([kept], set())  # a half-written file is not left behind
        raise
    return kept


def settle(kept: list[Kept], accepted: set[Path]) -> None:
    """After the run: uploads in ``accepted`` stay (the files they replaced go); the others are taken back
    out, and a file they replaced is put back."""
    for k in kept:
        if k.path in accepted:
            if k.previous is not None:
                k.previous.unlink(missing_ok=True)
            continue
        k.path.unlink(missing_ok=True)
        if k.previous is not None:
            os.replace(k.previous, k.path)
