"""Compiled patterns kept as data: restored as the very pattern ``re.compile`` makes, or compiled again."""

from __future__ import annotations

import marshal
import re

import pytest

from hippo_tui import compiled_patterns

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
