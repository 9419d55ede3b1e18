"""Re-ingesting a document: unchanged passages keep their ids, revised ones are retired and superseded, removed
ones retired, an unchanged file is skipped; one run is one transaction; a version-1 database upgrades."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hippo_tui.ingest.document import IngestError
from hippo_tui.ingest.reading import Overrides, collect, folders_of
from hippo_tui.ingest.run import ingest_paths
from hippo_tui.ingest.versions import DocumentReport
from hippo_tui.store import SCHEMA_VERSION, Store, documents
from hippo_tui.store.schema import MIGRATIONS
from tests.support.backends import BACKENDS, open_backend, write_marker

DOCS = Path(__file__).parent / "data" / "docs"
FIRST = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
SECOND = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
OLD_DOSE = "Nitrofurantoin 100 mg modified-release twice daily for 3 days"
NEW_DOSE = "Nitrofurantoin 100 mg modified-release twice daily for 5 days"


@pytest.fixture(params=BACKENDS)
async def empty(request: pytest.FixtureRequest, tmp_path: Path):
    async with open_backend(request, tmp_path, seed=None) as store:
        yield store


@pytest.fixture
def protocol(tmp_path: Path) -> Path:
    folder = tmp_path / "guidance"
    folder.mkdir()
    return Path(shutil.copy(DOCS / "cystitis-protocol.md", folder / "cystitis-protocol.md"))


async def ingest(
    store: Store, *paths: Path, when: datetime = FIRST, dry_run: bool = False
) -> list[DocumentReport]:
    return await ingest_paths(store, collect(list(paths)), overrides=Overrides(), when=when, dry_run=dry_run)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def resolved(path: Path) -> str:
    return str(path.resolve())


def replace_from(path: Path, marker: str, new: str) -> None:
    """Everything from ``marker`` to the end of the file becomes ``new``."""
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.index(marker)] + new, encoding="utf-8")


async def rows(store: Store) -> dict[tuple[str, str], tuple[object, ...]]:
    """Every row of sources, documents and document_versions, by table and key."""
    out: dict[tuple[str, str], tuple[object, ...]] = {}
    for table, key in (("sources", "id"), ("documents", "key"), ("document_versions", "id")):
        for row in await (await store.db.execute(f"SELECT {key}, * FROM {table}")).fetchall():
            out[(table, str(row[0]))] = tuple(row[1:])
    return out


async def active_ids(store: Store) -> dict[str, str]:
    """excerpt -> id of every active source."""
    return {s.excerpt: s.id for s in await store.list_sources(status="active")}


async def test_first_ingest_stores_passages_with_provenance(empty: Store, protocol: Path) -> None:
    (report,) = await ingest(empty, protocol)
    assert (report.status, report.added, report.unchanged) == ("new", 6, 0)
    hit = (await empty.search("nitrofurantoin eGFR first choice", k=1))[0]
    assert hit.title == "Uncomplicated cystitis in adults › Treatment › First line"
    assert hit.provenance is not None and hit.provenance.section == "first-line"
    src = await empty.get(hit.id)
    assert src is not None and src.provenance is not None
    assert src.provenance.document == resolved(protocol)
    assert src.provenance.version == report.version and src.provenance.ingested == "2026-11-02T09:00:00+00:00"
    assert src.publisher == "Riverside Clinic antimicrobial group" and str(src.updated) == "2026-09-14"


async def test_unchanged_file_is_skipped_and_keeps_every_id(empty: Store, protocol: Path) -> None:
    await ingest(empty, protocol)
    before = await active_ids(empty)
    changes = await write_marker(empty)
    (report,) = await ingest(empty, protocol, when=SECOND)
    assert (report.status, report.unchanged, report.added) == ("skipped", 6, 0)
    assert await write_marker(empty) == changes  # not a row written
    assert await active_ids(empty) == before


async def test_revised_section_retires_its_passage_with_a_successor(empty: Store, protocol: Path) -> None:
    await ingest(empty, protocol)
    before = await active_ids(empty)
    edit(protocol, "twice daily for 3 days is the first choice", "twice daily for 5 days is the first choice")
    (report,) = await ingest(empty, protocol, when=SECOND)
    assert report.counts() == {"added": 0, "unchanged": 5, "revised": 1, "removed": 0}
    after = await active_ids(empty)
    (old_excerpt,) = [e for e in before if e.startswith(OLD_DOSE)]
    (new_excerpt,) = [e for e in after if e.startswith(NEW_DOSE)]
    old = await empty.get(before[old_excerpt])
    assert old is not None and old.status == "retired"
    assert old.superseded_by == after[new_excerpt] != old.id
    assert (
        old.retired_reason
        == "revised in Uncomplicated cystitis in adults (cystitis-protocol.md) on 2026-12-01"
    )
    # Every other passage kept its id: a citation made before the revision still resolves.
    assert {e: i for e, i in after.items() if e != new_excerpt} == {
        e: i for e, i in before.items() if e != old_excerpt
    }
    new = await empty.get(after[new_excerpt])
    assert new is not None and new.provenance is not None and new.provenance.version == report.version
    hits = await empty.search("nitrofurantoin first choice days", k=10)
    assert new.id in {h.id for h in hits} and old.id not in {h.id for h in hits}  # retired: out of search


async def test_removed_passage_and_added_section(empty: Store, protocol: Path) -> None:
    await ingest(empty, protocol)
    before = await active_ids(empty)
    follow_up = "## Follow-up\n\nNo routine follow-up is needed. Offer a review if symptoms recur.\n"
    replace_from(protocol, "## Safety netting", follow_up)
    (report,) = await ingest(empty, protocol, when=SECOND)
    # The gone section and the new one have different anchors: removed and added, not a revision.
    assert report.counts() == {"added": 1, "unchanged": 5, "revised": 0, "removed": 1}
    (gone,) = [i for e, i in before.items() if e.startswith("Advise the patient to return")]
    src = await empty.get(gone)
    assert src is not None and src.status == "retired" and src.superseded_by is None
    assert (
        src.retired_reason
        == "removed from Uncomplicated cystitis in adults (cystitis-protocol.md) on 2026-12-01"
    )


async def test_wording_that_comes_back_gets_its_old_id_back(empty: Store, protocol: Path) -> None:
    await ingest(empty, protocol)
    before = await active_ids(empty)
    edit(protocol, "for 3 days is the first choice", "for 5 days is the first choice")
    await ingest(empty, protocol, when=SECOND)
    edit(protocol, "for 5 days is the first choice", "for 3 days is the first choice")
    (report,) = await ingest(empty, protocol, when=SECOND)
    assert report.revised == 1
    assert await active_ids(empty) == before  # the 3-day wording is active again under its first id
    (old_id,) = [i for e, i in before.items() if e.startswith(OLD_DOSE)]
    restored = await empty.get(old_id)
    assert restored is not None and restored.retired_reason is None and restored.superseded_by is None


async def test_revision_writes_only_that_documents_rows(empty: Store, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(5):
        (folder / f"doc{i}.md").write_text(
            f"# Doc {i}\n\n## Dose\n\nGive {i + 1} mg daily. Review in a week.\n"
        )
    await ingest(empty, folder)
    edit(folder / "doc3.md", "Give 4 mg", "Give 6 mg")
    before = await rows(empty)
    reports = sorted(await ingest(empty, folder, when=SECOND), key=lambda r: r.key)
    assert [r.status for r in reports] == ["skipped", "skipped", "skipped", "revised", "skipped"]
    after = await rows(empty)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    # One new passage, one retired, the document's row and its new version row; no row of another document.
    key = resolved(folder / "doc3.md")
    assert len(changed) == 4 and all(key in str(after[k]) for k in changed)


async def test_dry_run_writes_nothing(empty: Store, protocol: Path) -> None:
    (report,) = await ingest(empty, protocol, dry_run=True)
    assert report.added == 6
    assert await empty.count(status=None) == 0 and await empty.list_documents() == []


async def test_one_bad_file_imports_nothing(empty: Store, protocol: Path) -> None:
    (protocol.parent / "scan.pdf").write_bytes(b"%PDF-1.4\nnot a pdf")
    with pytest.raises(IngestError, match=r"scan\.pdf: not a readable PDF"):
        await ingest(empty, protocol.parent)
    assert await empty.count(status=None) == 0 and await empty.list_documents() == []
    (report,) = await ingest(empty, protocol)  # and the store is usable after the rollback
    assert report.added == 6


async def test_an_error_while_writing_rolls_the_whole_run_back(
    empty: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "two"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.md").write_text(f"# {name}\n\nText of {name}. More text of {name}.\n")
    real = documents._write_plans

    async def fail_after_writing(db, plans, when):  # type: ignore[no-untyped-def]
        await real(db, plans, when)  # every row of both documents is written, then the disk fails
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(documents, "_write_plans", fail_after_writing)
    with pytest.raises(Exception, match="disk I/O error"):
        await ingest(empty, folder)
    assert await empty.count(status=None) == 0 and await empty.list_documents() == []


async def test_docs_lists_versions(empty: Store, protocol: Path) -> None:
    await ingest(empty, protocol)
    edit(protocol, "for 3 days is the first choice", "for 5 days is the first choice")
    await ingest(empty, protocol, when=SECOND)
    (doc,) = await empty.list_documents()
    assert (doc.title, doc.format, doc.active, doc.retired) == (
        "Uncomplicated cystitis in adults",
        "markdown",
        6,
        1,
    )
    assert [(v["ingested"][:10], v["revised"], v["added"]) for v in doc.versions] == [
        ("2026-12-01", 1, 0),
        ("2026-11-02", 0, 6),
    ]


async def test_a_version_1_database_upgrades_and_keeps_its_sources(tmp_path: Path, protocol: Path) -> None:
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    for sql in MIGRATIONS[0]:
        con.execute(sql)
    con.execute("INSERT INTO meta VALUES ('kb_name', 'clinic')")
    con.execute(
        "INSERT INTO sources (id, title, excerpt) VALUES "
        "('11111111-1111-4111-8111-111111111111', 'Old note', 'Amoxicillin 500 mg three times daily.')"
    )
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    async with Store.open(path, seed=None) as store:
        assert store.kb_name == "clinic"
        assert (await (await store.db.execute("PRAGMA user_version")).fetchone())[0] == SCHEMA_VERSION
        (hit,) = await store.search("amoxicillin")
        assert hit.title == "Old note" and hit.provenance is None
        await ingest(store, protocol)
        assert await store.count() == 7
        # Retiring still takes a source out of the search index through the rebuilt trigger.
        await store.retire(hit.id, "withdrawn")
        assert await store.search("amoxicillin") == []
        assert await store.integrity_check() == "ok"


async def prune(
    store: Store, folder: Path, *, when: datetime = SECOND, dry_run: bool = False, on: bool = True
):
    paths = collect([folder], allow_empty=True)
    return await ingest_paths(
        store,
        paths,
        overrides=Overrides(),
        when=when,
        dry_run=dry_run,
        folders=folders_of([folder]),
        prune=on,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Three documents in a folder and one in a sub-folder."""
    out = tmp_path / "clinic"
    shutil.copytree(DOCS, out / "guidance")
    shutil.copy(DOCS / "formulary-note.txt", out / "formulary-note.txt")
    return out


async def test_prune_retires_the_passages_of_a_deleted_file(empty: Store, folder: Path) -> None:
    await ingest(empty, folder)
    gone = folder / "guidance" / "cystitis-protocol.md"
    ids = [
        s.id
        for s in await empty.list_sources(status="active")
        if s.provenance and s.provenance.document == resolved(gone)
    ]
    assert len(ids) == 6
    gone.unlink()

    kept = await prune(empty, folder, on=False)  # without --prune: reported, nothing retired
    assert [(r.key, r.status, r.unchanged) for r in kept if r.status != "skipped"] == [
        (resolved(gone), "missing", 6)
    ]
    dry = await prune(empty, folder, dry_run=True)
    assert [(r.status, r.removed) for r in dry if r.key == resolved(gone)] == [("removed", 6)]
    assert len(await empty.list_sources(status="active")) == 15  # neither wrote anything

    reports = await prune(empty, folder)
    assert [(r.key, r.status, r.removed) for r in reports if r.status != "skipped"] == [
        (resolved(gone), "removed", 6)
    ]
    for lookup in (await empty.get_many(ids)).values():
        assert (
            lookup.status == "retired" and lookup.source is not None and lookup.source.superseded_by is None
        )
        assert (
            lookup.source.retired_reason
            == "removed from Uncomplicated cystitis in adults (cystitis-protocol.md) on 2026-12-01"
        )
    assert len(await empty.list_sources(status="active")) == 9
    (doc,) = [d for d in await empty.list_documents() if d.key == resolved(gone)]
    assert (doc.active, doc.retired, doc.versions[0]["removed"]) == (0, 6, 6)
    assert [r.status for r in await prune(empty, folder)] == ["skipped"] * 3  # reported once, not every run


async def test_a_deleted_file_that_comes_back_gets_its_ids_back(empty: Store, folder: Path) -> None:
    await ingest(empty, folder)
    path = folder / "formulary-note.txt"
    before = await active_ids(empty)
    path.unlink()
    await prune(empty, folder)
    shutil.copy(DOCS / "formulary-note.txt", path)
    (back,) = [r for r in await prune(empty, folder, when=SECOND) if r.key == resolved(path)]
    assert (back.status, back.added) == ("new", 3)  # read again, though its hash was stored before
    assert await active_ids(empty) == before  # a citation of it resolves again


async def test_prune_only_looks_under_the_folders_given(empty: Store, folder: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("# Elsewhere\n\nOne sentence here. Another one there.\n", encoding="utf-8")
    sibling = folder / "guidance-old" / "old.md"  # its path starts like the folder's, but is not under it
    sibling.parent.mkdir()
    sibling.write_text("# Old\n\nAn older sentence. And another.\n", encoding="utf-8")
    await ingest(empty, folder, elsewhere)
    elsewhere.unlink()
    sibling.unlink()
    for path in (folder / "guidance").iterdir():
        path.unlink()
    reports = await prune(empty, folder / "guidance")  # a folder left empty is no error with --prune
    assert sorted((Path(r.key).name, r.status) for r in reports) == [
        ("cystitis-protocol.md", "removed"), ("formulary-note.txt", "removed"), ("penicillin-allergy.html", "removed")
    ]  # fmt: skip
    assert {s.provenance.document for s in await empty.list_sources(status="active") if s.provenance} == {
        resolved(folder / "formulary-note.txt"),
        resolved(elsewhere),  # not under the folder given: kept, though its file is gone
        resolved(sibling),
    }
    with pytest.raises(IngestError, match="no documents found"):
        collect([folder / "guidance"])  # without --prune, an empty folder is still an error
