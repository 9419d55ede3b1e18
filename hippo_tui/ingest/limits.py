"""The limits a hostile document meets when it is parsed: memory, time, and bytes after decompression.

``kb ingest`` parses each file in a worker process (``sandbox``) under these limits, so a bomb ends as one
failed file with a plain reason, never a traceback or a killed run. Defaults suit a long national guideline
(a 20 MiB PDF parses in well under 1 GB and a minute on a laptop); the settings ``ingest_memory_mb``,
``ingest_seconds`` and ``ingest_unpacked_mb`` change them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 2048  # the worker's address space (RLIMIT_AS): the parse, its libraries and the text
    seconds: float = 60.0  # wall time per file
    unpacked_mb: int = 200  # a .docx's parts after decompression (a zip bomb is refused before it inflates)


# What the parsers of this process check (set once by the worker that runs them).
current = Limits()
