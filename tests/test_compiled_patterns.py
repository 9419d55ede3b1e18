"""Compiled patterns kept as data: restored as the very pattern ``re.compile`` makes, or compiled again."""

from __future__ import annotations

import marshal
import re
from pathlib import Path

import pytest

from hippo_tui import cache_files, compiled_patterns

SET = [(r"\b(?P<p>ace inhibitors?|arb)(?:e?s)?\b", 0), (r"^(\d+)\s*(mg|ml)$", re.IGNORECASE | re.MULTILINE)]


@pytest.mark.parametrize(
    ("text", "flags"),
    [
        (r"\b(?P<p>ace inhibitors?|arb)(?:e?s)?\b", 0),
        (r"^(\d+(?:\.\d+)?)\s*(mg|ml)$", re.IGNORECASE | re.MULTILINE),
        (r"(?!)", 0),
    ],
)
def test_a_pattern_kept_as_data_is_the_same_pattern(text, flags):
    pattern = re.compile(text, flags)
    kept = marshal.loads(marshal.dumps(compiled_patterns.state(pattern)))
    restored = compiled_patterns.restore(kept)
    assert restored == pattern and restored.groupindex == pattern.groupindex
    assert kept[2] is not None  # kept with its matcher code, not only its text


def test_a_pattern_whose_code_is_refused_is_compiled_from_its_text():
    pattern = re.compile(r"\b(?P<p>ckd|aki)\b")
    text, flags, made = compiled_patterns.state(pattern)
    broken = (*made[:2], [0xFFFF] * len(made[2]), *made[3:])
    assert compiled_patterns.restore((text, flags, broken)) == pattern
    assert compiled_patterns.restore((text, flags, None)) == pattern


def test_a_set_of_patterns_is_compiled_once_and_read_back(tmp_path, monkeypatch):
    first = compiled_patterns.kept("demo", SET, tmp_path)
    assert first == [re.compile(text, flags) for text, flags in SET]
    (path,) = tmp_path.glob("patterns-demo-*.bin")

    def no_compiling(*args: object) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr(compiled_patterns.re, "compile", no_compiling)
    assert compiled_patterns.kept("demo", SET, tmp_path) == first
    monkeypatch.undo()
    path.write_bytes(path.read_bytes()[:-3])  # damaged: compiled again, and kept again
    assert compiled_patterns.kept("demo", SET, tmp_path) == first
    assert compiled_patterns.kept("demo", SET[:1], tmp_path) == first[:1]  # another set, another file
    assert len(list(tmp_path.glob("patterns-demo-*.bin"))) == 2


def test_patterns_are_compiled_when_nothing_can_be_kept(tmp_path):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    assert compiled_patterns.kept("demo", SET, blocked) == [re.compile(t, f) for t, f in SET]



# Patterns a module might compile as it loads: named groups, flags given and flags written inline.
LOADED = [(r"(?P<dose>\d+(?:\.\d+)?)\s*(?P<unit>mg|ml)\b", 0), (r"^\s*[-*•]\s+", re.MULTILINE),
          (r"(?i)\bnot\s+covered\b", 0), (r"\bnot\s+covered\b", re.IGNORECASE)]  # fmt: skip
COMPILE = re.compile


def load(texts: list[tuple[str, int]], folder: Path) -> list[re.Pattern[str]]:
    """What a module loading inside ``remembered`` gets from ``re.compile``."""
    with compiled_patterns.remembered("demo", folder):
        return [re.compile(text, flags) for text, flags in texts]


def no_compiling(*args: object) -> None:
    raise AssertionError("compiled again")


def test_patterns_made_while_loading_are_kept_and_read_back(tmp_path, monkeypatch):
    first = load(LOADED, tmp_path)
    assert first == [COMPILE(text, flags) for text, flags in LOADED]
    assert re.compile is COMPILE  # itself again
    monkeypatch.setattr(re, "compile", no_compiling)
    second = load(LOADED, tmp_path)  # from the file: nothing compiled
    assert second == first and [p.groupindex for p in second] == [p.groupindex for p in first]
    assert second[0].match("250 mg")["unit"] == "mg"
    assert second[3].search("NOT COVERED") and not second[1].flags & re.IGNORECASE


def test_an_edited_pattern_is_compiled_and_the_file_rewritten(tmp_path, monkeypatch):
    load(LOADED, tmp_path)
    edited = [*LOADED[:-1], (r"\bnot\s+(?:covered|found)\b", re.IGNORECASE)]
    assert load(edited, tmp_path)[-1].search("NOT FOUND here")
    monkeypatch.setattr(re, "compile", no_compiling)
    assert load(edited, tmp_path)[-1] == COMPILE(*edited[-1])  # the edit was kept in its place
    assert len(list(tmp_path.glob("patterns-demo-*.bin"))) == 1  # rewritten, not a file per edit


def test_a_damaged_or_foreign_file_only_means_compiling(tmp_path):
    load(LOADED, tmp_path)
    (path,) = tmp_path.glob("patterns-demo-*.bin")
    path.write_bytes(path.read_bytes()[:-5])
    assert load(LOADED, tmp_path) == [COMPILE(t, f) for t, f in LOADED]
    cache_files.write(path, {"states": [["x", 0, ("y", 0, None)], [1, 2]]})  # sound, of another shape
    assert load(LOADED, tmp_path) == [COMPILE(t, f) for t, f in LOADED]


def test_what_is_not_a_text_pattern_goes_to_re_as_it_is(tmp_path, capsys):
    with compiled_patterns.remembered("demo", tmp_path):
        made = COMPILE(r"\d+")
        assert re.compile(made) is made
        assert re.compile(rb"\d+") == COMPILE(rb"\d+")
        with pytest.raises(re.error):
            re.compile(r"(unclosed")
        re.compile(r"a+", re.DEBUG)  # printed as it compiles, each time
    with compiled_patterns.remembered("demo", tmp_path):
        re.compile(r"a+", re.DEBUG)
    assert capsys.readouterr().out.count("MAX_REPEAT") == 2


def test_re_compile_is_itself_again_after_an_error(tmp_path):
    with pytest.raises(RuntimeError), compiled_patterns.remembered("demo", tmp_path):
        raise RuntimeError("a module failed to load")
    assert re.compile is COMPILE
