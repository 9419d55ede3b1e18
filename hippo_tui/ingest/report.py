"""What one ingest run did, as the JSON object `kb ingest --json` prints and `POST /v1/kb/ingest` answers
with; and the bundled demo's sources a first ingest into the demo knowledge base replaces."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from hippo_tui.safe_text import one_line

if TYPE_CHECKING:
    from hippo_tui.ingest.finding import Found
    from hippo_tui.ingest.run import Outcome
    from hippo_tui.ingest.versions import DocumentReport
    from hippo_tui.store import Store


def totals(reports: list[DocumentReport]) -> dict[str, int]:
    keys = ("added", "unchanged", "revised", "removed")
    ingested = [r for r in reports if r.status != "missing"]  # a missing document's passages were not read
    return {k: sum(r.counts()[k] for r in ingested) for k in keys}


def report_json(outcome: Outcome, found: Found, *, dry_run: bool, demo_retired: int, kb_name: str) -> dict[str, Any]:
    docs = [{"document": one_line(r.key), "title": one_line(r.title), "format": r.format, "version": r.version,
             "status": r.status, **r.counts()} for r in outcome.reports]  # fmt: skip
    failed = [{"document": one_line(f.key), "reason": one_line(f.reason)} for f in outcome.failures]
    return {"dry_run": dry_run, "kb": one_line(kb_name), "documents": docs, "totals": totals(outcome.reports),
            "demo_retired": demo_retired, "failed": failed, "written": outcome.written,
            "warnings": [one_line(w) for w in found.warnings + outcome.warnings],
            "not_read_formats": dict(found.unknown)}  # fmt: skip


async def demo_to_replace(store: Store, today: date) -> list[tuple[str, str]]:
    """The bundled demo's sources, when this is the first ingest into the demo KB: the clinic's documents
    replace them (retired, so an old answer citing one is flagged, not left pointing at nothing)."""
    if store.kb_name != "demo" or await store.list_documents():
        return []
    import asyncio  # not at the top: registering the sub-command must not load the event loop

    from hippo_tui.store import DEMO_KB
    from hippo_tui.store.sources import parse_jsonl

    demo_ids = {s.id for s in await asyncio.to_thread(parse_jsonl, DEMO_KB)}
    reason = f"the demo knowledge base was replaced by ingested documents on {today.isoformat()}"
    active = await store.list_sources(status="active")
    return [(s.id, reason) for s in active if s.id in demo_ids and s.provenance is None]
