"""Faults the store must survive or report clearly: a lock held elsewhere, a file that is not ours,
a read-only folder, and a process killed (SIGKILL) in the middle of writing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippo_tui.store import Store, StoreCorrupt, StoreError, StoreLocked, StoreReadOnly

# --- a database locked by another process ----------------------------------------------------------------


async def test_a_held_write_lock_waits_then_says_so(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    (await Store.open(path, seed=None)).db  # noqa: B018  (build it)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # what another hippo-tui mid-import looks like
    try:
        async with await Store.open(path, busy_timeout=0.3) as store:
            assert await store.count() == 0  # WAL: reading still works while another writes
            started = time.monotonic()
            with pytest.raises(StoreLocked) as info:
                await store.begin_answer(question="q", model="m", backend="b")
            assert time.monotonic() - started >= 0.25  # it waited before giving up
            assert str(path) in str(info.value) and "locked by another process" in str(info.value)
            holder.execute("COMMIT")
            # Once the other side lets go, the same store works again.
            assert await store.begin_answer(question="q", model="m", backend="b") == 1
    finally:
        holder.close()


# --- a file that is not ours -----------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"hello, I am a text file\n" * 10, b"\x00" * 4096, b"SQLite"])
async def test_a_non_sqlite_file_is_reported_and_never_touched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "hippo.db"
    path.write_bytes(content)
    with pytest.raises(StoreCorrupt) as info:
        await Store.open(path)
    assert str(path) in str(info.value) and "left untouched" in str(info.value)
    assert path.read_bytes() == content
    assert sorted(os.listdir(tmp_path)) == ["hippo.db"]  # no -wal / -shm either


async def test_another_programs_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE invoices (n INTEGER)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StoreCorrupt, match="another program"):
        await Store.open(path)
    assert path.read_bytes() == before


async def test_a_damaged_database_is_reported_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    async with await Store.open(path) as s:
        page = (await (await s.db.execute("PRAGMA page_size")).fetchone())[0]
    size = path.stat().st_size
    with path.open("r+b") as f:  # keep the header, wreck every page after the first
        f.seek(page)
        f.write(os.urandom(size - page))
    damaged = path.read_bytes()
    with pytest.raises(StoreCorrupt) as info:
        async with await Store.open(path) as s:
            await s.search("warfarin")
            await s.count(None)
    assert str(path) in str(info.value)
    assert path.read_bytes() == damaged


async def test_a_folder_at_the_path(tmp_path: Path) -> None:
    (tmp_path / "hippo.db").mkdir()
    with pytest.raises(StoreError, match="is a folder"):
        await Store.open(tmp_path / "hippo.db")


# --- a read-only folder ----------------------------------------------------------------------------------


def _make_read_only(path: Path) -> None:
    """chmod is enough for a normal user; root ignores it, so there use the immutable attribute."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
        return
    try:
        result = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    except FileNotFoundError:
        result = None
    if result is None or result.returncode != 0:
        pytest.skip("running as root without chattr +i: cannot make a path read-only here")


def _make_writable(path: Path) -> None:
    if os.geteuid() == 0:
        with contextlib.suppress(FileNotFoundError):
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
    path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "ro"
    folder.mkdir()
    yield folder
    _make_writable(folder)


async def test_a_read_only_folder_without_a_database(read_only_folder: Path) -> None:
    _make_read_only(read_only_folder)
    for path in (read_only_folder / "hippo.db", read_only_folder / "sub" / "hippo.db"):
        with pytest.raises(StoreReadOnly) as info:
            await Store.open(path)
        assert str(path) in str(info.value) and "HIPPO_HOME" in str(info.value)


async def test_a_read_only_folder_with_a_database(read_only_folder: Path) -> None:
    path = read_only_folder / "hippo.db"
    async with await Store.open(path):
        pass
    _make_read_only(read_only_folder)
    with pytest.raises(StoreReadOnly) as info:
        async with await Store.open(path) as s:
            await s.begin_answer(question="q", model="m", backend="b")
    assert str(path) in str(info.value)


# --- kill -9 in the middle of writing --------------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from hippo_tui.models import CitationAttempt, ResetRecord
    from hippo_tui.store import Store

    async def main(path):
        store = await Store.open(Path(path))
        n = 0
        while True:
            a = await store.begin_answer(question=f"question {n}", model="m", backend="b")
            await store.record_reset(a, ResetRecord(reason="tool_call", withdrawn="x" * 500, withdrawn_chars=500))
            await store.record_citations(a, [
                CitationAttempt(source_id="8920c0a1-c079-4734-86fe-6c9b0259cc70", claims=["c" * 200] * 5,
                                check_one="confirmed", check_two="grounded", shown=True, number=i)
                for i in range(20)
            ])
            await store.finish_answer(a, raw_text="r" * 5000, final_text="f" * 4000, outcome="complete",
                                      timings={"total": 1.0})
            print(a, flush=True)
            n += 1

    asyncio.run(main(sys.argv[1]))
    """
)

_IMPORTER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from hippo_tui.store import Store

    async def main(path, kb):
        store = await Store.open(Path(path))
        print("open", flush=True)
        await store.import_jsonl(Path(kb), progress=lambda done, total: print(done, flush=True))
        print("finished", flush=True)

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


def _run_until(args: list[str], lines_wanted: int) -> list[str]:
    """Start a writer, read its progress lines, SIGKILL it while it is still writing."""
    proc = subprocess.Popen([sys.executable, "-c", *args], stdout=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        while len(lines) < lines_wanted:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    return lines


async def test_kill_9_while_recording_answers_loses_at_most_the_one_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    finished = [int(x) for x in _run_until([_WRITER, str(path)], lines_wanted=15)]
    assert len(finished) == 15
    async with await Store.open(path) as store:
        assert await store.integrity_check() == "ok"
        answers = await store.list_answers(limit=None)
        by_id = {a.id: a for a in answers}
        for answer_id in finished:  # everything reported done is there, whole
            a = by_id[answer_id]
            assert a.outcome == "complete" and len(a.citations) == 20 and len(a.resets) == 1
            assert a.raw_text == "r" * 5000
        incomplete = [a for a in answers if a.outcome != "complete"]
        assert len(incomplete) <= 1
        assert all(a.outcome == "in_flight" for a in incomplete)
        assert await store.count() == 70


async def test_kill_9_during_an_import_leaves_all_or_nothing(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    kb = tmp_path / "big.jsonl"
    with kb.open("w") as f:
        for i in range(40_000):
            row = {
                "id": f"00000000-0000-4000-8000-{i:012d}",
                "title": f"t {i}",
                "excerpt": f"Synthetic {i}. Words.",
            }
            f.write(json.dumps(row) + "\n")
    lines = _run_until([_IMPORTER, str(path), str(kb)], lines_wanted=3)  # open, 0, first chunk written
    assert lines[0] == "open" and "finished" not in lines
    async with await Store.open(path) as store:
        assert await store.integrity_check() == "ok"
        assert await store.count(None) == 80  # the half-done import rolled back as a whole


async def test_a_write_cancelled_while_waiting_for_the_lock_leaves_nothing_open(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    async with await Store.open(path, seed=None, busy_timeout=2.0) as store:
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            waiting = asyncio.create_task(store.begin_answer(question="cancelled", model="m", backend="b"))
            await asyncio.sleep(0.2)  # let it reach the lock wait
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
        finally:
            holder.execute("COMMIT")
            holder.close()
        # Its BEGIN got the lock after all, and is undone without waiting for our next write.
        await asyncio.gather(*store._pending)
        other = sqlite3.connect(path, isolation_level=None, timeout=0)
        other.execute("BEGIN IMMEDIATE")  # not locked out
        other.execute("ROLLBACK")
        other.close()
        answer_id = await store.begin_answer(question="next", model="m", backend="b")
        assert [a.question for a in await store.list_answers()] == ["next"]
        assert (await store.get_answer(answer_id)).outcome == "in_flight"
    # Committed for real: another connection sees it.
    async with await Store.open(path) as again:
        assert [a.question for a in await again.list_answers()] == ["next"]


async def test_a_read_only_database_file(tmp_path: Path) -> None:
    path = tmp_path / "hippo.db"
    async with Store.open(path):
        pass
    _make_read_only(path)
    try:
        with pytest.raises(StoreReadOnly) as info:
            async with Store.open(path) as s:
                assert await s.count() == 70  # reading still works
                await s.begin_answer(question="q", model="m", backend="b")
        assert str(path) in str(info.value)
    finally:
        _make_writable(path)
