"""A PDF's text layer as a reader sees the printed page: ligatures spelled out, line-break hyphens rejoined,
drop caps rejoined, running headers and footers dropped.

pypdf returns what the content stream draws: the "ﬁ" glyph as U+FB01 with a space after it ("Ciproﬂ
oxacin"), a word broken at the line's end as "treat-" and "ment", and the same header line on every page.
Whether "treat-ment" was one word is decided by the document's own vocabulary: joined when the joined word
occurs elsewhere in the document, kept ("beta-blocker", "follow-up") otherwise.
"""

from __future__ import annotations

import re
from collections import Counter

_LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
# A ligature glyph, and the space pypdf puts after it when the next letter continues the word.
_LIGATURE = re.compile(r"(\w*)([\ufb00-\ufb06])( (?=[a-z]))?")
# English words that end in "ff" (the one ligature a word can end with): "staﬀ and" keeps its space.
_FF_WORDS = frozenset(
    "off staff stiff cliff cuff stuff tariff sheriff plaintiff cutoff handoff takeoff layoff tradeoff diff "
    "bluff sniff scruff puff buff gruff huff whiff chaff riff scoff spoof".split()
)
_WORD = re.compile(r"[A-Za-z]+")
_COMPOUND = re.compile(r"\b[A-Za-z]+-[A-Za-z]+\b")
_SPACED_HYPHEN = re.compile(r"\b([A-Za-z]+)- ([a-z]+)\b")
_HYPHEN_BREAK = re.compile(r"([A-Za-z]+)-\n([a-z]+)")
_DROP_CAP = re.compile(r"^([A-Z]) ([a-z]{2,})\b")
_DIGITS = re.compile(r"\d+")


def ligatures(text: str) -> str:
    """Ligature glyphs spelled out, and the space pypdf inserted after one inside a word removed."""
    if not _LIGATURE.search(text):
        return text

    def spell(m: re.Match[str]) -> str:
        head, glyph, space = m.group(1), _LIGATURES[m.group(2)], m.group(3)
        keep = space and glyph == "ff" and (head + glyph).lower() in _FF_WORDS
        return head + glyph + (" " if keep else "")

    return _LIGATURE.sub(spell, text)


# A word split after its ligature letters where the glyph was already decomposed ("suffi cient").
_SPLIT_LIGATURE = re.compile(r"\b([A-Za-z]*(?:ffi|ffl|fi|fl|ff)) ([a-z]+)\b")


def rejoin_split_ligatures(text: str, words: Counter[str]) -> str:
    """ "suffi cient" -> "sufficient" when the document spells "sufficient" whole elsewhere."""

    def join(m: re.Match[str]) -> str:
        joined = m.group(1) + m.group(2)
        return joined if words[joined.lower()] > 0 else m.group(0)

    return _SPLIT_LIGATURE.sub(join, text)


def vocabulary(pages: list[str]) -> Counter[str]:
    """The document's words and hyphenated compounds (lower case, "pre-eclampsia") with how often each
    occurs: what rejoining trusts."""
    found = (w.lower() for page in pages for pattern in (_WORD, _COMPOUND) for w in pattern.findall(page))
    return Counter(found)


def rejoin_spaced_hyphens(text: str, words: Counter[str]) -> str:
    """ "pre- eclampsia" -> "pre-eclampsia", "informa- tion" -> "information": a line-break hyphen the
    text layer left with a space after it, joined as the document writes the word elsewhere; "low- and
    middle-income" (a hyphen that stands for "low-income") is kept."""

    def join(m: re.Match[str]) -> str:
        head, tail = m.group(1), m.group(2)
        if words[f"{head}-{tail}".lower()] > 0:
            return f"{head}-{tail}"
        return head + tail if words[(head + tail).lower()] > 0 else m.group(0)

    return _SPACED_HYPHEN.sub(join, text)


def rejoin_hyphens(text: str, words: Counter[str]) -> str:
    """ "treat-\\nment" -> "treatment" when the document spells "treatment" elsewhere; else "beta-blocker"."""

    def join(m: re.Match[str]) -> str:
        joined = m.group(1) + m.group(2)
        return joined if words[joined.lower()] > 0 else f"{m.group(1)}-{m.group(2)}"

    return _HYPHEN_BREAK.sub(join, text)


def drop_cap(paragraph: str, words: Counter[str]) -> str:
    """ "P rophylaxis is …" -> "Prophylaxis is …" when the joined word is one of the document's words."""
    m = _DROP_CAP.match(paragraph)
    if m is None or (m.group(1) in ("A", "I") and words[m.group(2).lower()] > 0):
        return paragraph
    joined = m.group(1) + m.group(2)
    return joined + paragraph[m.end() :] if words[joined.lower()] > 0 else paragraph


_RUNNING_CHARS = 100  # a header or footer is one short line; a repeated long line is text


def _shape(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split())).lower()


def running_lines(pages: list[str], edge: int = 2) -> set[str]:
    """The shapes (digits as #) of lines among the first or last ``edge`` of most pages: headers, footers,
    page numbers. Only for documents of 4 pages or more (fewer cannot tell a header from a repeat)."""
    if len(pages) < 4:
        return set()
    seen: Counter[str] = Counter()
    for page in pages:
        lines = [line for line in page.splitlines() if line.strip()]
        seen.update({_shape(line) for line in lines[:edge] + lines[-edge:] if len(line) <= _RUNNING_CHARS})
    return {shape for shape, n in seen.items() if n >= max(3, len(pages) // 2)}


def drop_running(page: str, running: set[str], edge: int = 2) -> str:
    """``page`` without the running lines at its top and bottom edges."""
    if not running:
        return page
    lines = page.splitlines()
    idx = [i for i, line in enumerate(lines) if line.strip()]
    edges = set(idx[:edge] + idx[-edge:])
    return "\n".join(line for i, line in enumerate(lines) if i not in edges or _shape(line) not in running)


# A table cell's number: "34.2", "(015)", "20-25", "< 20", "12%", "2009/10", "–" (an empty cell).
_CELL = re.compile(r"^(?:[(\[]?[<>≤≥±~]?\d[\d.,:/%\-–x×]*[)\]]?%?|[–—-])$")


def is_row(line: str) -> bool:
    """A line that reads as a table row: at least two numbers, and numbers make half its words or more
    ("Lease payments 34.2 39.2 42.5 47.8"), where a sentence with a dose in it has fewer."""
    words = line.split()
    cells = sum(1 for w in words if _CELL.match(w))
    return cells >= 2 and 2 * cells >= len(words)


def rows_and_text(block: str) -> list[tuple[str, bool]]:
    """A block of lines as (text, is a row): two or more row lines in a row stay one line each, as the
    table printed them; the other lines are joined into text (the layer breaks lines where the layout
    did)."""
    lines = [line for line in block.split("\n") if line.strip()]
    rowlike = [is_row(line) for line in lines]
    out: list[tuple[str, bool]] = []
    text: list[str] = []
    for i, line in enumerate(lines):
        neighbour = (i > 0 and rowlike[i - 1]) or (i + 1 < len(lines) and rowlike[i + 1])
        if rowlike[i] and neighbour:
            if text:
                out.append((" ".join(text), False))
                text = []
            out.append((line, True))
        else:
            text.append(line)
    if text:
        out.append((" ".join(text), False))
    return out
