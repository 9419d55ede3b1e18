"""Cache files save work only: what is read back is what was written, or nothing."""

from __future__ import annotations

from hippo_tui import cache_files

DATA = {"words": ["ckd", "aki"], "sizes": (1, 2.5), "seen": frozenset({"x"})}


def test_what_is_written_is_read_back(tmp_path):
    cache_files.write(tmp_path / "sub" / "one.bin", DATA)
    assert cache_files.read(tmp_path / "sub" / "one.bin") == DATA
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["one.bin"]  # nothing left beside it


def test_a_missing_or_damaged_file_reads_as_nothing(tmp_path):
    path = tmp_path / "one.bin"
    assert cache_files.read(path) is None
    cache_files.write(path, DATA)
    blob = path.read_bytes()
    for damaged in (blob[:-1], blob[:10], b"", blob[:-1] + bytes([blob[-1] ^ 1])):
        path.write_bytes(damaged)
        assert cache_files.read(path) is None


def test_data_marshal_cannot_keep_is_not_kept(tmp_path):
    cache_files.write(tmp_path / "one.bin", {"a": object()})
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_folder_is_no_error(tmp_path):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    cache_files.write(blocked / "one.bin", DATA)
    assert cache_files.read(blocked / "one.bin") is None
