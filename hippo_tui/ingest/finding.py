"""Finding the documents under the paths given: only the folders' own regular files, each once.

A folder is walked without following links out of it: a symbolic link is read only when it points at a
file inside one of the folders named (that file is then read once, under its own path); a link elsewhere,
a dangling link and a link loop are reported and skipped. Pipes, sockets and devices are skipped without
being opened (a FIFO would block the run forever). Hidden entries (``.git``, ``.obsidian``) are not walked.
A folder that cannot be listed is a warning, and files of formats ingest does not read are counted by
extension: nothing is left out without a word.
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hippo_tui.ingest import manifest
from hippo_tui.ingest.document import IngestError
from hippo_tui.ingest.manifest import Manifest
from hippo_tui.ingest.reading import FORMATS


@dataclass
class Found:
    paths: list[Path] = field(default_factory=list)  # resolved, in walk order, each once
    unknown: Counter[str] = field(default_factory=Counter)  # extension -> files not read
    warnings: list[str] = field(default_factory=list)  # "path: why it was skipped"
    manifests: list[Manifest] = field(default_factory=list)  # the folders' hippo-kb.toml, outermost first

    def add(self, path: Path) -> None:
        if path not in self._seen:
            self._seen.add(path)
            self.paths.append(path)

    def __post_init__(self) -> None:
        self._seen: set[Path] = set()


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _extension(path: Path) -> str:
    return path.suffix.lower() or "(no extension)"


def _link(entry: os.DirEntry[str], roots: list[Path], found: Found) -> None:
    """A symbolic link met in a walk: read its target only if it is a file inside the named folders."""
    try:
        target = Path(entry.path).resolve(strict=True)
        mode = target.stat().st_mode
    except (OSError, RuntimeError):  # RuntimeError: a loop, on Python < 3.13
        why = (
            "a link that leads nowhere"
            if os.path.lexists(entry.path) and not _loops(entry.path)
            else "a link loop"
        )
        found.warnings.append(f"{entry.path}: {why}; skipped")
        return
    if not _inside(target, roots):
        found.warnings.append(f"{entry.path}: links outside the folders named; not followed")
    elif stat.S_ISREG(mode) and _extension(target) in FORMATS:
        found.add(target)
    elif stat.S_ISREG(mode):
        found.unknown[_extension(target)] += 1
    # a link to a folder inside the named ones: that folder is walked under its own path


def _loops(path: str) -> bool:
    try:
        os.stat(path)
    except OSError as e:
        return e.errno == 40  # ELOOP
    return False


def _entry(entry: os.DirEntry[str], roots: list[Path], found: Found, subdirs: list[str]) -> None:
    if entry.name.startswith("."):
        return
    if entry.name == manifest.NAME and entry.is_file(follow_symlinks=False):
        loaded = manifest.load(Path(entry.path).parent.resolve())
        found.manifests.extend([loaded] if loaded else [])
        return
    if entry.is_symlink():
        _link(entry, roots, found)
    elif entry.is_dir(follow_symlinks=False):
        subdirs.append(entry.path)
    elif entry.is_file(follow_symlinks=False):
        if _extension(Path(entry.name)) in FORMATS:
            found.add(Path(entry.path).resolve())
        else:
            found.unknown[_extension(Path(entry.name))] += 1
    else:
        found.warnings.append(f"{entry.path}: not a regular file (a pipe, socket or device); not read")


def _walk(folder: Path, roots: list[Path], found: Found) -> None:
    """Depth first in name order, a folder's files before its subfolders (as ``os.walk`` yields them)."""
    stack = [str(folder)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            found.warnings.append(
                f"{current}: cannot list the folder ({e.strerror or e}); its files were not read"
            )
            continue
        subdirs: list[str] = []
        for entry in entries:
            _entry(entry, roots, found, subdirs)
        stack.extend(reversed(subdirs))


def _named_file(path: Path, found: Found) -> None:
    if _extension(path) not in FORMATS:
        known = ", ".join(sorted(FORMATS))
        raise IngestError(path, f"not a format ingest reads (it reads {known})")
    try:
        mode = path.stat().st_mode
    except (OSError, RuntimeError):
        raise IngestError(path, "a link that leads nowhere or loops") from None
    if not stat.S_ISREG(mode):
        raise IngestError(path, "not a regular file (a pipe, socket or device); not read")
    found.add(path.resolve())


def find(paths: Iterable[Path], *, allow_empty: bool = False) -> Found:
    """Every document under ``paths`` (folders recursively), each once, in order; finding none is an error
    unless ``allow_empty`` (``--prune`` of a folder whose documents were all deleted)."""
    paths = [p.expanduser() for p in paths]
    roots = [p.resolve() for p in paths if p.is_dir()]
    found = Found()
    for path in paths:
        if path.is_dir():
            _walk(path.resolve(), roots, found)
        elif path.exists() or path.is_symlink():
            _named_file(path, found)
        else:
            raise IngestError(path, "no such file or folder")
    if not found.paths and not allow_empty:
        raise IngestError(
            ", ".join(str(p) for p in paths), "no documents found (.md, .html, .txt, .pdf, .docx)"
        )
    return found
