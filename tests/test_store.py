"""The knowledge-base half of the store: opening, search, one-query lookup, import/export, retire."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippo_tui.models import Source
from hippo_tui.store import (
    DEMO_KB,
    SCHEMA_VERSION,
    KBImportError,
    Store,
    StoreError,
    UnknownSource,
    fts_match,
    terms,
)
from tests.support.backends import BACKENDS, is_postgres, open_backend, sqlite_only, statements

CYSTITIS = "8920c0a1-c079-4734-86fe-6c9b0259cc70"
CYSTITIS_OLD = "e8562efb-5edc-44da-840a-c7806e0be0ae"  # retired, superseded by CYSTITIS
WARFARIN_INR = "4e08dba4-7af1-4cf8-8352-7c7d474db877"
MISSING = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(params=BACKENDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    # Whatever a test wrote, the rows and the search index must still agree afterwards (open_backend checks).
    async with open_backend(request, tmp_path) as s:
        yield s


def _source(i: int, **kw: object) -> Source:
    data: dict[str, object] = {
        "id": f"00000000-0000-4000-8000-{i:012d}",
        "title": f"Synthetic source {i}",
        "excerpt": f"Zebrafish note number {i}. It is a test.",
    }
    data.update(kw)
    return Source.model_validate(data)


def _write_jsonl(path: Path, rows: list[dict[str, object] | str]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8"
    )
    return path


# --- opening ---------------------------------------------------------------------------------------------


async def test_first_open_builds_from_the_bundled_kb(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "hippo.db"
    async with await Store.open(path) as s:
        assert path.is_file()
        assert s.kb_name == "demo"
        assert await s.count() == 70
        assert await s.count("retired") == 10
        assert await s.count(None) == 80
        cur = await s.db.execute("PRAGMA user_version")
        assert (await cur.fetchone())[0] == SCHEMA_VERSION
        cur = await s.db.execute("PRAGMA journal_mode")
        assert (await cur.fetchone())[0] == "wal"
        cur = await s.db.execute("PRAGMA foreign_keys")
        assert (await cur.fetchone())[0] == 1


async def test_reopening_keeps_data_and_ignores_the_seed(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    async with await Store.open(path) as s:
        await s.retire(CYSTITIS, "test")
    other = _write_jsonl(tmp_path / "other.jsonl", [_source(1).model_dump(mode="json")])
    async with await Store.open(path, seed=other, kb_name="other") as s:
        assert s.kb_name == "demo"
        assert await s.count(None) == 80
        assert (await s.get(CYSTITIS)).status == "retired"


async def test_no_seed_and_named_kb(tmp_path: Path) -> None:
    async with await Store.open(tmp_path / "a.db", seed=None) as s:
        assert s.kb_name == "empty"
        assert await s.count(None) == 0
        assert await s.search("anything") == []
    async with await Store.open(tmp_path / "b.db", kb_name="ward-7") as s:
        assert s.kb_name == "ward-7"


async def test_memory_database(tmp_path: Path) -> None:
    async with await Store.open(":memory:") as s:
        assert await s.count() == 70


async def test_a_bad_seed_leaves_no_half_built_database(tmp_path: Path) -> None:
    bad = _write_jsonl(tmp_path / "bad.jsonl", [_source(1).model_dump(mode="json"), "{oops"])
    path = tmp_path / "hippo.db"
    with pytest.raises(KBImportError):
        await Store.open(path, seed=bad)
    async with await Store.open(path) as s:  # a later start builds it properly
        assert await s.count() == 70


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    (await Store.open(path, seed=None)).db  # noqa: B018
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(StoreError, match="newer hippo-tui"):
        await Store.open(path)


def test_demo_kb_is_the_packaged_file() -> None:
    assert DEMO_KB.name == "demo.jsonl"
    assert DEMO_KB.parent.parts[-3:] == ("hippo_tui", "data", "kb")


# --- search ----------------------------------------------------------------------------------------------

DEMO_QUESTIONS = [
    (
        "What is the first-line treatment for uncomplicated cystitis in adults?",
        "Uncomplicated cystitis in non-pregnant women",
    ),
    ("What INR should I aim for in a patient on warfarin for atrial fibrillation?", "Warfarin: INR targets"),
    ("How much paracetamol can I give a 3 year old?", "Paracetamol dosing in children"),
    ("ibuprofen dose for a 2 year old child", "Ibuprofen dosing in children"),
    ("Can I give ibuprofen to someone taking warfarin?", "Interaction: warfarin and NSAIDs"),
    ("Is it safe to take simvastatin with clarithromycin?", "Interaction: statins and clarithromycin"),
    ("tramadol with sertraline: serotonin syndrome risk?", "Interaction: SSRIs and tramadol"),
    (
        "When should I start a DOAC and what dose of apixaban in AF?",
        "DOACs: apixaban dosing in atrial fibrillation",
    ),
    (
        "What blood pressure confirms hypertension on ambulatory monitoring?",
        "Hypertension: confirming the diagnosis",
    ),
    ("Which drug first for high blood pressure in a 60 year old?", "Hypertension: choosing the first drug"),
    ("metformin dose and kidney function eGFR", "Type 2 diabetes: starting metformin"),
    ("adrenaline dose in anaphylaxis for a child", "Anaphylaxis: adrenaline doses"),
    ("What are the red flags for sepsis?", "Sepsis in adults: red flags"),
    ("how long is prednisolone given for a COPD exacerbation", "COPD: treating an exacerbation"),
    ("Does a child with acute otitis media need antibiotics?", "Acute otitis media in children"),
    ("antibiotic choice for cellulitis with penicillin allergy", "Cellulitis in adults"),
    ("When is a flu vaccine offered to pregnant women?", "Influenza vaccination: who is eligible"),
    ("Who needs tetanus immunoglobulin for a wound?", "Tetanus: vaccination and wound management"),
    ("How do I treat a gout flare with colchicine?", "Gout: treating a flare"),
    ("levothyroxine starting dose in hypothyroidism", "Hypothyroidism: starting levothyroxine"),
]


@pytest.mark.parametrize(("question", "title"), DEMO_QUESTIONS, ids=[q[:40] for q, _ in DEMO_QUESTIONS])
async def test_demo_questions_find_the_expected_source(store: Store, question: str, title: str) -> None:
    hits = await store.search(question, k=3)
    assert title in [h.title for h in hits], [h.title for h in hits]


async def test_hits_are_ranked_with_highlighted_snippets(store: Store) -> None:
    hits = await store.search("warfarin INR target", k=5)
    assert hits[0].id == WARFARIN_INR
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert "«warfarin»" in hits[0].snippet.lower()
    assert hits[0].excerpt.startswith("For most indications")
    assert hits[0].publisher and hits[0].updated is not None


async def test_search_returns_active_sources_only(store: Store) -> None:
    # Words only the retired source uses.
    hits = await store.search("subcutaneous adrenaline 15 minutes", k=20)
    assert "e4f2e3e7-7a9e-4103-8647-d28ed98810b8" not in {h.id for h in hits}
    await store.retire(CYSTITIS, "replaced")
    hits = await store.search("uncomplicated cystitis in non-pregnant women", k=70)
    assert CYSTITIS not in {h.id for h in hits}
    assert CYSTITIS_OLD not in {h.id for h in hits}


async def test_a_slip_in_a_word_the_index_lacks_finds_the_word_it_is_a_slip_of(store: Store) -> None:
    # The demo KB's smoking card names varenicline; "varenicilne" (two letters swapped) is in no source.
    hits = await store.search("varenicilne", k=3)
    assert hits and "varenicline" in hits[0].snippet.lower()
    await store.upsert(
        [_source(1, title="Giant cell arteritis", excerpt="Arteritis of the temporal artery needs steroids.")]
    )
    # A letter changed is not a slip: "arthritis" is another word, and the index knows "arteritis".
    assert all("arteritis" not in h.title.lower() for h in await store.search("arthritis", k=5))


async def test_search_goes_on_once_the_word_count_cache_is_full(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A long-running app fills the cache of word counts (each slip looks up hundreds of words); the search
    # that empties it must still answer, with what it found before.
    monkeypatch.setattr("hippo_tui.store.sources.DOC_COUNT_CACHE", 1)
    monkeypatch.setattr("hippo_tui.store.pg.search.DOC_COUNT_CACHE", 1)
    await store.search("varenicilne", k=3)  # its words and their slips fill the cache past its bound
    # One word cached, one not: the search that empties the cache.
    hits = await store.search("varenicilne cystitis", k=10)
    assert CYSTITIS in [h.id for h in hits]
    assert any("varenicline" in h.snippet.lower() for h in hits)


@pytest.mark.parametrize(
    "query",
    ['"', '"unbalanced', "a*", "-", "cystitis:", "title:cystitis", "(", "())", "NOT", "AND OR NEAR", "^x",
     "col : * - ( ) \"", "NEAR(a b)", "'", "\x00", "🙂", "", "   ", "_", "[8920c0a1-c079]", "ÇA-İ"],
)  # fmt: skip
async def test_fts_syntax_in_a_query_never_raises(store: Store, query: str) -> None:
    assert isinstance(await store.search(query), list)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=80))
async def test_any_text_is_a_safe_query(store: Store, query: str) -> None:
    hits = await store.search(query, k=3)
    assert len(hits) <= 3


def test_query_terms_drop_stop_words_and_quote_each_word() -> None:
    assert terms("What is the first-line treatment for cystitis?") == [
        "first",
        "line",
        "treatment",
        "cystitis",
    ]
    assert terms("what is it") == ["what", "is", "it"]  # nothing but stop-words: keep them
    # Folded, as the index holds it; a word and a letter after it are a phrase too ("plan c", here "near x").
    assert fts_match('cystitis "NEAR" x*') == '"cystit" OR "near" OR "x" OR "near x"'
    assert fts_match("?!") is None


# --- lookup ----------------------------------------------------------------------------------------------


async def test_get_many_reports_every_asked_id(store: Store) -> None:
    asked = [CYSTITIS, CYSTITIS_OLD, MISSING, CYSTITIS, "not-a-uuid", CYSTITIS.upper()]
    out = await store.get_many(asked)
    assert list(out) == [CYSTITIS, CYSTITIS_OLD, MISSING, "not-a-uuid", CYSTITIS.upper()]
    assert out[CYSTITIS].status == "active" and out[CYSTITIS].source.title.startswith("Uncomplicated")
    assert out[CYSTITIS_OLD].status == "retired" and out[CYSTITIS_OLD].source.superseded_by == CYSTITIS
    assert out[MISSING].status == "missing" and out[MISSING].source is None
    assert out["not-a-uuid"].status == "missing"
    assert out[CYSTITIS.upper()].status == "active"
    assert await store.get_many([]) == {}


async def test_get_many_is_one_query_for_any_number_of_ids(store: Store) -> None:
    ids = [f"00000000-0000-4000-8000-{i:012d}" for i in range(5000)] + [CYSTITIS]  # beyond 999 variables
    async with statements(store) as sent:
        out = await store.get_many(ids)
    assert len(out) == 5001 and out[CYSTITIS].status == "active"
    assert len([s for s in sent if s.lstrip().upper().startswith("SELECT")]) == 1


async def test_get(store: Store) -> None:
    assert (await store.get(CYSTITIS)).id == CYSTITIS
    assert await store.get(MISSING) is None
    assert await store.get("garbage") is None


# --- writing ---------------------------------------------------------------------------------------------


async def test_upsert_replaces_by_id_and_reindexes(store: Store) -> None:
    assert await store.upsert([_source(1)]) == 1
    assert [h.id for h in await store.search("zebrafish")] == [_source(1).id]
    await store.upsert([_source(1, excerpt="Okapi note. Nothing else.")])
    assert await store.search("zebrafish") == []
    assert [h.id for h in await store.search("okapi")] == [_source(1).id]
    assert await store.count() == 71


async def _segments(store: Store) -> int:
    cur = await store.db.execute("SELECT count(DISTINCT segid) FROM sources_fts_idx")
    return int((await cur.fetchone())[0])


async def test_merging_the_index_segments_changes_no_answer(store: Store) -> None:
    sqlite_only(store, "FTS5's segments")
    for i in range(3):  # each write adds a segment of its own
        await store.upsert([_source(i, excerpt=f"Cystitis note {i}.")])
    assert await _segments(store) > 1
    asked = ["cystitis treatment", "zebrafish", "warfarin inr", "varenicilne", "first line hypertension"]
    before = [[(h.id, h.score, h.snippet) for h in await store.search(q, k=10)] for q in asked]
    await store.compact_index()
    assert await _segments(store) == 1
    assert [[(h.id, h.score, h.snippet) for h in await store.search(q, k=10)] for q in asked] == before


async def test_a_bulk_import_merges_the_index_and_its_sources_are_found(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sqlite_only(store, "FTS5's segments")
    monkeypatch.setattr("hippo_tui.store.core.COMPACT_ROWS", 3)
    await store.upsert([_source(1)])
    assert await _segments(store) > 1
    rows: list[dict[str, object] | str] = [_source(10 + i).model_dump(mode="json") for i in range(3)]
    await store.import_jsonl(_write_jsonl(tmp_path / "kb.jsonl", rows))
    assert await _segments(store) == 1
    found = {h.id for h in await store.search("zebrafish", k=10)}
    assert {_source(i).id for i in (1, 10, 11, 12)} <= found


async def test_a_small_write_leaves_the_index_segments_as_they_are(store: Store, tmp_path: Path) -> None:
    sqlite_only(store, "FTS5's segments")
    await store.upsert([_source(1)])
    segments = await _segments(store)
    await store.import_jsonl(_write_jsonl(tmp_path / "kb.jsonl", [_source(2).model_dump(mode="json")]))
    assert await _segments(store) == segments + 1
    assert [h.id for h in await store.search("zebrafish note 2")][:1] == [_source(2).id]


async def test_import_validates_then_upserts_everything(store: Store, tmp_path: Path) -> None:
    rows: list[dict[str, object] | str] = [_source(i).model_dump(mode="json") for i in range(5000)]
    rows.insert(10, "")  # blank lines are allowed
    seen: list[tuple[int, int]] = []
    n = await store.import_jsonl(
        _write_jsonl(tmp_path / "kb.jsonl", rows), progress=lambda d, t: seen.append((d, t))
    )
    assert n == 5000
    assert await store.count() == 5070
    assert seen[0] == (0, 5000) and seen[-1] == (5000, 5000)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


@pytest.mark.parametrize(
    ("bad", "line", "field", "text"),
    [
        ("{not json", 3, None, "not valid JSON"),
        ('{"id": "nope", "title": "t", "excerpt": "e"}', 3, "id", "UUID"),
        ('{"id": "00000000-0000-4000-8000-000000000009", "title": "", "excerpt": "e"}', 3, "title", "at least 1"),
        ('{"id": "00000000-0000-4000-8000-000000000009", "title": "t"}', 3, "excerpt", "required"),
        ('{"id": "00000000-0000-4000-8000-000000000009", "title": "t", "excerpt": "e", "colour": 1}', 3, "colour", "unknown field"),
        ('{"id": "00000000-0000-4000-8000-000000000009", "title": "t", "excerpt": "e", "status": "old"}', 3, "status", "active"),
        ('{"id": "00000000-0000-4000-8000-000000000009", "title": "t", "excerpt": "e", "updated": "May"}', 3, "updated", "date"),
    ],
)  # fmt: skip
async def test_a_bad_line_imports_nothing(
    store: Store, tmp_path: Path, bad: str, line: int, field: str | None, text: str
) -> None:
    path = _write_jsonl(
        tmp_path / "kb.jsonl", [_source(1).model_dump(mode="json"), _source(2).model_dump(mode="json"), bad]
    )
    with pytest.raises(KBImportError) as info:
        await store.import_jsonl(path)
    err = info.value
    assert (err.line, err.field) == (line, field)
    assert str(path) in str(err) and f"line {line}" in str(err) and text in str(err)
    assert "Nothing was imported" in str(err)
    assert await store.count(None) == 80


async def test_a_successor_that_points_nowhere_imports_nothing(store: Store, tmp_path: Path) -> None:
    # A retired source sends its reader to its successor: it must name a real source.
    ghost = "00000000-0000-4000-8000-0000000000ff"
    retired = _source(2).model_dump(mode="json") | {
        "status": "retired",
        "retired_reason": "old",
        "superseded_by": ghost,
    }
    path = _write_jsonl(tmp_path / "kb.jsonl", [_source(1).model_dump(mode="json"), "", retired])
    with pytest.raises(KBImportError) as info:
        await store.import_jsonl(path)
    assert (info.value.line, info.value.field) == (3, "superseded_by") and ghost in str(info.value)
    assert await store.count(None) == 80
    itself = retired | {"superseded_by": retired["id"]}
    with pytest.raises(
        KBImportError, match="line 1, field 'superseded_by': a source cannot supersede itself"
    ):
        await store.import_jsonl(_write_jsonl(tmp_path / "self.jsonl", [itself]))


async def test_an_id_twice_in_one_file_imports_nothing(store: Store, tmp_path: Path) -> None:
    # Upsert by id would keep the second and drop the first silently.
    first = _source(1).model_dump(mode="json")
    twin = first | {"id": first["id"].upper(), "title": "another source"}
    path = _write_jsonl(tmp_path / "kb.jsonl", [first, _source(2).model_dump(mode="json"), twin])
    with pytest.raises(KBImportError, match="line 3, field 'id': the same id as line 1"):
        await store.import_jsonl(path)
    assert await store.count(None) == 80


async def test_a_successor_in_the_file_or_the_store_is_accepted(store: Store, tmp_path: Path) -> None:
    stored = (await store.list_sources(status="active", limit=1))[0].id
    rows = [
        _source(1).model_dump(mode="json"),
        _source(2).model_dump(mode="json") | {"status": "retired", "superseded_by": _source(1).id},
        _source(3).model_dump(mode="json") | {"status": "retired", "superseded_by": stored},
    ]
    assert await store.import_jsonl(_write_jsonl(tmp_path / "kb.jsonl", rows)) == 3
    assert (await store.get(_source(3).id)).superseded_by == stored


async def test_import_of_invalid_utf8_and_missing_file(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "kb.jsonl"
    path.write_bytes(json.dumps(_source(1).model_dump(mode="json")).encode() + b"\n\xff\xfe\n")
    with pytest.raises(KBImportError, match="line 2: not valid UTF-8"):
        await store.import_jsonl(path)
    with pytest.raises(StoreError, match="cannot read"):
        await store.import_jsonl(tmp_path / "absent.jsonl")
    assert await store.count(None) == 80


async def test_export_round_trips_through_import(store: Store, tmp_path: Path) -> None:
    out = io.StringIO()
    assert await store.export_jsonl(out) == 80
    path = tmp_path / "export.jsonl"
    path.write_text(out.getvalue(), encoding="utf-8")
    async with await Store.open(tmp_path / "copy.db", seed=None) as copy:
        assert await copy.import_jsonl(path) == 80
        assert await copy.list_sources() == await store.list_sources()
    exported = [json.loads(line) for line in out.getvalue().splitlines()]
    bundled = [json.loads(line) for line in DEMO_KB.read_text(encoding="utf-8").splitlines()]
    assert exported == bundled


async def test_list_sources(store: Store) -> None:
    retired = await store.list_sources(status="retired")
    assert len(retired) == 10 and all(s.status == "retired" for s in retired)
    titles = [s.title for s in await store.list_sources()]
    assert titles == sorted(titles) and len(titles) == 80
    assert len(await store.list_sources(status="active", limit=3)) == 3


async def test_retire(store: Store) -> None:
    src = await store.retire(WARFARIN_INR, "  revised target  ", superseded_by=CYSTITIS.upper())
    assert (src.status, src.retired_reason, src.superseded_by) == ("retired", "revised target", CYSTITIS)
    assert await store.get(WARFARIN_INR) == src
    assert (await store.get_many([WARFARIN_INR]))[WARFARIN_INR].status == "retired"


@pytest.mark.parametrize(
    ("id", "successor", "error"),
    [
        (MISSING, None, UnknownSource),
        (WARFARIN_INR, MISSING, UnknownSource),
        (WARFARIN_INR, WARFARIN_INR, UnknownSource),
        (WARFARIN_INR, CYSTITIS_OLD, UnknownSource),  # a retired successor
    ],
)
async def test_retire_refuses_bad_ids(
    store: Store, id: str, successor: str | None, error: type[Exception]
) -> None:
    with pytest.raises(error):
        await store.retire(id, "why", superseded_by=successor)
    assert (await store.get(WARFARIN_INR)).status == "active"


async def test_retire_needs_a_reason(store: Store) -> None:
    with pytest.raises(ValueError, match="reason"):
        await store.retire(WARFARIN_INR, " ")


async def test_retiring_again_keeps_the_successor(store: Store) -> None:
    await store.retire(WARFARIN_INR, "first", superseded_by=CYSTITIS)
    again = await store.retire(WARFARIN_INR, "second")
    assert (again.retired_reason, again.superseded_by) == ("second", CYSTITIS)
    assert await store.get(WARFARIN_INR) == again


async def test_kb_stats(store: Store) -> None:
    stats = await store.kb_stats()
    assert stats["name"] == "demo"
    assert (stats["sources"], stats["active"], stats["retired"], stats["answers"]) == (80, 70, 10, 0)
    assert stats["path"] == str(store.path)


# --- bounded ranking on large knowledge bases ------------------------------------------------------------


async def test_small_kbs_rank_on_every_word(store: Store) -> None:
    sqlite_only(store, "the FTS5 expression")
    # The index holds folded words (wording.fold): "adults" is "adult" there.
    assert await store._bounded_match(["nitrofurantoin", "adult", "zebr"]) == (
        '"nitrofurantoin" OR "adult"',
        None,
    )


async def test_past_the_budget_only_the_rarest_words_are_ranked(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_tui.store.budget as budget

    # Pretend the demo KB is large: a budget of 12 rows makes "adult" and "day" common.
    monkeypatch.setattr(budget, "RANK_BUDGET", 12)
    counts = await store._doc_frequencies(["warfarin", "nitrofurantoin", "adult", "day"])
    # PostgreSQL stops counting past the budget (the cost of a count grows with the rows).
    assert counts["warfarin"] < counts["nitrofurantoin"] <= 12 < counts["adult"]
    assert counts["day"] > 12 and (is_postgres(store) or counts["adult"] < counts["day"])
    if not is_postgres(store):  # the FTS5 expression; PostgreSQL's choice shows in the search below
        # The rare words find the candidates; those that hold a common word too are ranked on it as well (the
        # rare words, written RARE_WEIGHT times, weigh that many times as much).
        rare = '"warfarin" OR "nitrofurantoin"'
        assert await store._bounded_match(["adult", "nitrofurantoin", "day", "warfarin"]) == (
            rare,
            f"({' OR '.join([rare] * budget.RARE_WEIGHT)}) AND (\"adult\" OR \"day\")",
        )
        # Every word common: the rarest one is still ranked, so the question finds something.
        thrice = " OR ".join(['"adult"'] * budget.RARE_WEIGHT)
        assert await store._bounded_match(["day", "adult"]) == ('"adult"', f'({thrice}) AND ("day")')
    assert len(await store.search("adults days", k=3)) == 3
    hits = await store.search("nitrofurantoin for adults, how many days?", k=3)
    assert len(hits) == 3
    assert all("nitrofurantoin" in h.excerpt.lower() for h in hits)  # only rows with a rare word qualify


async def test_past_the_budget_a_common_word_still_decides_between_the_rare_words_passages(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_tui.store.budget as budget

    named_twice = "Zolmiprofen is taken with food. Zolmiprofen may cause heartburn."
    dose = "The adult dose of zolmiprofen is 20 mg."
    await store.upsert(
        [_source(1, title="Zolmiprofen", excerpt=named_twice), _source(2, title="Zolmiprofen", excerpt=dose)]
    )
    # Pretend the knowledge base is large: "dose" (in the demo's passages too) is then a common word. It no
    # longer finds candidates, but it still ranks those "zolmiprofen" finds: the passage that gives the dose
    # comes first, not the one that names the drug twice.
    monkeypatch.setattr(budget, "RANK_BUDGET", 3)
    hits = await store.search("zolmiprofen dose", k=5)
    assert [h.excerpt for h in hits] == [dose, named_twice]


async def test_past_the_budget_a_list_of_the_common_words_does_not_outrank_the_card(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_tui.store.budget as budget

    card = (
        "Zolmiprofen 20 mg by mouth for vestibular migraine in a child over 12. "
        "Repeat zolmiprofen after 2 hours if the vestibular migraine returns."
    )
    entries = ["Asthma in a child", "Burns", "Eczema", "Croup, first line", "Gout", "Hives", "Impetigo"]
    entries += ["Jaundice", "Keloid", "Lice", "Mumps", "Nits", "Otitis", "Pertussis", "Quinsy", "Rubella"]
    contents = " ".join(f"{e} {page}." for page, e in enumerate([*entries, "Vestibular migraine: zolmiprofen"], 2))
    await store.upsert(
        [_source(1, title="Vestibular migraine", excerpt=card), _source(2, title="Contents", excerpt=contents)]
    )
    # Pretend the knowledge base is large: "child", "first", "line", "day", "week" are then common words. A
    # book's contents page names most of them once each, and the drug and condition once; ranked on the common
    # words at full weight it came first, and the answerer quoted it.
    monkeypatch.setattr(budget, "RANK_BUDGET", 4)
    hits = await store.search("zolmiprofen for a child with vestibular migraine: first line, how many days", k=5)
    assert [h.title for h in hits][:2] == ["Vestibular migraine", "Contents"]


def test_past_the_budget_the_commoner_words_that_rank_are_bounded_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hippo_tui.store.budget as budget

    dfs = {"zolmiprofen": 2, "dose": 30, "child": 40, "adult": 60, "zebra": 0}
    assert budget.ranked_words(dfs, rows=100) == (["zolmiprofen", "dose", "child", "adult"], [])
    monkeypatch.setattr(budget, "RANK_BUDGET", 3)
    # A word in more than half the rows weighs nothing in bm25, so it is not worth a pass over its rows.
    assert budget.ranked_words(dfs, rows=100) == (["zolmiprofen"], ["dose", "child"])
    monkeypatch.setattr(budget, "COMMON_BUDGET", 50)
    assert budget.ranked_words(dfs, rows=100) == (["zolmiprofen"], ["dose"])


async def test_word_counts_follow_writes(store: Store) -> None:
    assert (await store._doc_frequencies(["zebrafish"]))["zebrafish"] == 0
    await store.upsert([_source(1)])
    assert (await store._doc_frequencies(["zebrafish"]))["zebrafish"] == 1
    await store.retire(_source(1).id, "gone")
    assert (await store._doc_frequencies(["zebrafish"]))["zebrafish"] == 0


async def test_a_word_the_tokenizer_would_change_is_counted_too(store: Store) -> None:
    # Plain lower-case ASCII words are looked up in the index's vocabulary; any other by matching it.
    sqlite_only(store, "FTS5's vocabulary")
    await store.upsert([_source(1, excerpt="Zolmiprofen: see the αλφα table.")])
    counts = await store._doc_frequencies(["zolmiprofen", "αλφα", "zebrafish"])
    assert counts == {"zolmiprofen": 1, "αλφα": 1, "zebrafish": 0}


async def _counted(store: Store) -> tuple[int, int, int]:
    """(active, retired, all) sources, counted row by row."""
    cur = await store.db.execute(
        "SELECT coalesce(sum(status = 'active'), 0), coalesce(sum(status = 'retired'), 0), count(*) FROM sources"
    )
    return tuple(await cur.fetchone())  # type: ignore[return-value]


async def test_the_counts_of_sources_follow_every_kind_of_write(store: Store, tmp_path: Path) -> None:
    # The active ones are read from the search index's own record (it holds them only), which must agree with
    # the sources after every kind of write: it is also what a word is weighed against (budget.ranked_words).
    sqlite_only(store, "the search index's own record")

    async def counts() -> tuple[int, int, int]:
        return await store.count(), await store.count("retired"), await store.count(None)

    assert await counts() == await _counted(store)
    await store.upsert([_source(1), _source(2)])
    assert await counts() == await _counted(store)
    await store.retire(_source(1).id, "gone")
    assert await counts() == await _counted(store)
    assert await store._active_rows() == await store.count()
    async with Store.open(tmp_path / "empty.db", seed=None) as empty:
        assert (await empty.count(), await empty.count(None), await empty._active_rows()) == (0, 0, 0)


async def test_a_new_migration_upgrades_an_existing_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_tui.store.core as core

    path = tmp_path / "hippo.db"
    async with await Store.open(path) as s:
        answer_id = await s.begin_answer(question="kept?", model="m", backend="b")
    v2 = [
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)",
        "INSERT INTO notes (text) VALUES ('v2')",
    ]
    monkeypatch.setattr(core, "MIGRATIONS", [*core.MIGRATIONS, v2])
    monkeypatch.setattr(core, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    async with await Store.open(path) as s:
        assert (await (await s.db.execute("PRAGMA user_version")).fetchone())[0] == SCHEMA_VERSION + 1
        assert (await (await s.db.execute("SELECT text FROM notes")).fetchone())[0] == "v2"
        assert (await s.get_answer(answer_id)).question == "kept?"
        assert await s.count() == 70
    async with await Store.open(path) as s:  # applied once only
        assert (await (await s.db.execute("SELECT count(*) FROM notes")).fetchone())[0] == 1


async def test_two_first_starts_at_once_build_it_once(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    a, b = await asyncio.gather(Store.open(path), Store.open(path))
    try:
        assert await a.count() == await b.count() == 70
        assert a.kb_name == b.kb_name == "demo"
        assert await a.integrity_check() == "ok"
    finally:
        await a.close()
        await b.close()


async def test_open_works_with_await_and_with_async_with(tmp_path: Path) -> None:
    async with Store.open(tmp_path / "hippo.db") as s:
        assert await s.count() == 70
    with pytest.raises(StoreError, match="closed"):
        await s.count()
    async with await Store.open(tmp_path / "hippo.db") as s:
        assert s.kb_name == "demo"


async def test_a_v3_database_gains_coverage_and_keeps_its_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_tui.store.core as core
    from hippo_tui.events import Coverage
    from hippo_tui.store.schema import MIGRATIONS

    path = tmp_path / "hippo.db"
    with monkeypatch.context() as m:  # a database as the release before coverage wrote it
        m.setattr(core, "MIGRATIONS", MIGRATIONS[:3])
        m.setattr(core, "SCHEMA_VERSION", 3)
        async with await Store.open(path) as s:
            old = await s.begin_answer(question="before the upgrade", model="m", backend="b")
            await s.db.execute(
                "UPDATE answers SET final_text = 'A.', outcome = 'complete' WHERE id = ?", (old,)
            )
            assert (await (await s.db.execute("PRAGMA user_version")).fetchone())[0] == 3
    async with await Store.open(path) as s:
        assert (await (await s.db.execute("PRAGMA user_version")).fetchone())[0] == SCHEMA_VERSION
        before = await s.get_answer(old)
        assert (before.question, before.final_text, before.coverage) == ("before the upgrade", "A.", None)
        new = await s.begin_answer(question="after", model="m", backend="b")
        cov = Coverage(statements=1, backed=0, unbacked=[(0, 2)])
        await s.finish_answer(
            new, raw_text="r", final_text="B.", outcome="complete", timings={}, coverage=cov
        )
        assert (await s.get_answer(new)).coverage == cov
        assert [g.backed_share for g in (await s.audit_stats()).groups] == [0.0]
        assert await s.count() == 70
