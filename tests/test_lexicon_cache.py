"""The lexicon kept between processes: read back exactly as built, and never trusted when stale or damaged."""

from __future__ import annotations

import marshal
import os
import re
import sys
from importlib import resources
from pathlib import Path
from types import SimpleNamespace

import pytest

from hippo_tui import cache_files
from hippo_tui.verification import lexicon_cache
from hippo_tui.verification.lexicon import Lexicon, built, lexicon


class Builds:
    """A builder that counts its calls (a lexicon read from the cache is not built)."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.calls = 0

    def __call__(self) -> Lexicon:
        self.calls += 1
        return self.lexicon


@pytest.fixture(scope="module")
def reference() -> Lexicon:
    return built()


def only_file(folder: Path) -> Path:
    (path,) = folder.glob("lexicon-*.bin")
    return path


def test_a_lexicon_read_back_equals_the_one_built(tmp_path, reference):
    build = Builds(reference)
    first = lexicon_cache.load_or_build(build, tmp_path)
    second = lexicon_cache.load_or_build(build, tmp_path)
    assert build.calls == 1  # the second came from the file
    assert first == second == reference  # every table, and every pattern's matcher code (Pattern equality)
    assert second.replace is not reference.replace


def test_the_lexicon_a_process_uses_is_the_built_one(reference):
    assert lexicon() == reference


@pytest.mark.parametrize(
    "damage",
    [
        lambda blob: blob[: len(blob) // 2],  # a write cut short
        lambda blob: blob[:-1] + bytes([blob[-1] ^ 1]),  # one bit changed
        lambda blob: b"",
    ],
)
def test_a_damaged_file_is_ignored_and_written_again(tmp_path, reference, damage):
    lexicon_cache.load_or_build(Builds(reference), tmp_path)
    path = only_file(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    build = Builds(reference)
    assert lexicon_cache.load_or_build(build, tmp_path) == reference
    assert build.calls == 1
    assert lexicon_cache.load_or_build(build, tmp_path) == reference
    assert build.calls == 1  # the file was written again, whole


def test_a_sound_file_of_another_shape_is_ignored(tmp_path, reference):
    import hashlib

    path = lexicon_cache.cache_file(tmp_path)
    assert path is not None
    payload = marshal.dumps({"plain": {"replacements": {}}, "patterns": {}})
    path.write_bytes(hashlib.sha256(payload).digest() + payload)
    build = Builds(reference)
    assert lexicon_cache.load_or_build(build, tmp_path) == reference
    assert build.calls == 1


def test_a_folder_that_cannot_be_written_only_means_building_again(tmp_path, reference):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    build = Builds(reference)
    assert lexicon_cache.load_or_build(build, blocked / "cache") == reference
    assert lexicon_cache.load_or_build(build, blocked / "cache") == reference
    assert build.calls == 2
    assert list(tmp_path.iterdir()) == [blocked]


def test_an_edited_lexicon_is_kept_under_another_name(tmp_path, monkeypatch):
    package = tmp_path / "package"
    real = resources.files("hippo_tui")
    for name in lexicon_cache._SOURCES:
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_bytes(real.joinpath(name).read_bytes())
    monkeypatch.setattr(lexicon_cache, "resources", SimpleNamespace(files=lambda _name: package))
    before = lexicon_cache.cache_file(tmp_path)
    with (package / "data/lexicon.toml").open("a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    after = lexicon_cache.cache_file(tmp_path)
    assert before is not None and after is not None and before != after
    (package / "verification/lexicon.py").write_text("# another builder\n", encoding="utf-8")
    assert lexicon_cache.cache_file(tmp_path) not in (before, after)


def test_no_cache_without_the_sources_to_key_it_by(tmp_path, monkeypatch, reference):
    monkeypatch.setattr(lexicon_cache, "resources", SimpleNamespace(files=lambda _name: tmp_path / "none"))
    build = Builds(reference)
    assert lexicon_cache.load_or_build(build, tmp_path / "cache") == reference
    assert build.calls == 1 and not (tmp_path / "cache").exists()


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG cache folder is the Linux convention")
def test_the_cache_lives_in_the_user_cache_folder(no_user_folders):
    assert cache_files.cache_dir().is_relative_to(no_user_folders / "cache")


WORDS = "running ischaemic anaemia oedema sulphate prescriptions absorption thrombolysis seizures children".split()


def _lexicon_words() -> list[str]:
    text = resources.files("hippo_tui.data").joinpath("lexicon.toml").read_text(encoding="utf-8")
    return sorted({w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2})


def test_the_c_stemmer_stems_as_snowballs_pure_python_one():
    # PyStemmer (installed with the project) is Snowball's English stemmer built in C: every index and
    # the thesaurus's stored stems were folded by the pure-Python one, so one differing stem would lose a word.
    from snowballstemmer.english_stemmer import EnglishStemmer

    from hippo_tui.verification import lexicon as module

    assert type(module._STEMMER).__module__ == "Stemmer"
    words = [*WORDS, *_lexicon_words()]
    assert len(words) > 1000
    pure = EnglishStemmer()
    assert [module._STEMMER.stemWord(w) for w in words] == [pure.stemWord(w) for w in words]


def test_without_pystemmer_the_english_stemmer_is_loaded_alone(monkeypatch):
    import snowballstemmer

    from hippo_tui.verification import lexicon as module

    monkeypatch.setitem(sys.modules, "Stemmer", None)  # as if PyStemmer had no wheel here
    stemmer = module._english_stemmer()
    packaged = snowballstemmer.stemmer("english")
    assert type(stemmer).__module__ == f"{module._ALONE}.english_stemmer"  # not the whole package's import
    assert [stemmer.stemWord(w) for w in WORDS] == [packaged.stemWord(w) for w in WORDS]


def test_another_stemmer_build_is_kept_under_another_name(tmp_path, monkeypatch):
    # The stemmer's code is known by its file's size and time, not read whole (PyStemmer's is megabytes).
    stemmer = tmp_path / "stemmer.so"
    stemmer.write_bytes(b"one build")
    monkeypatch.setattr(lexicon_cache, "STEMMER_FILE", str(stemmer))
    first = lexicon_cache.cache_file(tmp_path)
    assert first is not None and lexicon_cache.cache_file(tmp_path) == first
    stemmer.write_bytes(b"another build")
    resized = lexicon_cache.cache_file(tmp_path)
    stemmer.write_bytes(b"another built")  # the same size, written later
    os.utime(stemmer, ns=(stemmer.stat().st_atime_ns, stemmer.stat().st_mtime_ns + 1_000_000))
    rewritten = lexicon_cache.cache_file(tmp_path)
    assert len({first, resized, rewritten}) == 3
    monkeypatch.setattr(lexicon_cache, "STEMMER_FILE", None)  # no file to know it by: nothing is kept
    assert lexicon_cache.cache_file(tmp_path) is None
