"""Citation markers, sentence splitting and claims_by_source. The marker regex lives here and only here.

The model cites a source by writing its id in square brackets after the sentence it supports. Real
output is messier than ``[uuid]``: upper case, padding spaces, ``[id1, id2]`` lists, markers before or
after the full stop, and look-alikes (``[1]``, ``arr[0]``, links, code) that are not markers.
"""

from __future__ import annotations

import re
import sys
import uuid
from bisect import bisect_right
from collections.abc import Iterator, Mapping

from hippo_tui import compiled_patterns
from hippo_tui.safe_text import run_end

# A canonical marker: a lowercase UUID in square brackets.
MARKER = re.compile(r"\[([0-9a-f-]{36})\]")

_HEX = "[0-9a-fA-F]"
_UUID_GROUPS = (8, 4, 4, 4, 12)
_ID = "-".join(f"{_HEX}{{{n}}}" for n in _UUID_GROUPS)
MAX_IDS_PER_MARKER = 8
# What models really write: any case, up to two padding spaces, up to eight ids separated by commas.
# Not followed by "(" — "[id](url)" is a Markdown link, not a citation.
LENIENT_MARKER = re.compile(
    rf"\[ {{0,2}}({_ID}(?: {{0,2}}, {{0,2}}{_ID}){{0,{MAX_IDS_PER_MARKER - 1}}}) {{0,2}}\](?!\()"
)
_ID_IN_MARKER = re.compile(_ID)


def _id_prefix() -> str:
    # Any prefix of the 8-4-4-4-12 shape, as alternatives: "", "1a", "1a2b3c4d", "1a2b3c4d-", "…-12ab" …
    alts = []
    done = ""
    for n in _UUID_GROUPS:
        alts.append(f"{done}{_HEX}{{0,{n}}}")
        done += f"{_HEX}{{{n}}}-"
    return "(?:" + "|".join(alts) + ")"


# The tail of a text that could still become a marker: "[" then a prefix of the lenient form.
_PARTIAL_MARKER = re.compile(
    rf"\[ {{0,2}}(?:{_ID} {{0,2}}, {{0,2}}){{0,{MAX_IDS_PER_MARKER - 1}}}(?:{_id_prefix()}|{_ID} {{1,2}}|{_ID} {{0,2}}, {{0,2}})"
)
MAX_MARKER_LEN = 2 + MAX_IDS_PER_MARKER * (36 + 5) + 2


def canonical_id(value: str) -> str:
    """A source id in canonical form (lowercase, hyphenated UUID). Raises ValueError when it is not a UUID."""
    return str(uuid.UUID(value.strip()))


def partial_marker_start(text: str) -> int | None:
    """Where a trailing, not yet complete marker starts in ``text`` (``None`` when the tail cannot become one)."""
    i = text.rfind("[", max(0, len(text) - MAX_MARKER_LEN))
    if i < 0 or _PARTIAL_MARKER.fullmatch(text, i) is None:
        return None
    return i


# ---------------------------------------------------------------------------------------------------
# Code: nothing inside inline code or a fence is a marker or a sentence boundary.

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_BACKTICKS = re.compile(r"`+")


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks and inline code spans, in order, not overlapping."""
    return [(a, b) for a, b, _fence in _code_spans(text)]


def _code_spans(text: str) -> list[tuple[int, int, bool]]:
    # (start, end, is a fenced block)
    spans: list[tuple[int, int, bool]] = []
    pos = 0
    n = len(text)
    while pos < n:
        fence = _FENCE_OPEN.search(text, pos)
        stop = fence.start() if fence else n
        inline: list[tuple[int, int]] = []
        _inline_ranges(text, pos, stop, inline)
        spans += [(a, b, False) for a, b in inline]
        if fence is None:
            break
        run = fence.group(1)
        close = re.compile(rf"^ {{0,3}}{re.escape(run[0])}{{{len(run)},}}[ \t]*$", re.MULTILINE)
        line_end = text.find("\n", fence.end())
        if line_end < 0:
            spans.append((fence.start(), n, True))
            break
        m = close.search(text, line_end + 1)
        end = m.end() if m else n
        spans.append((fence.start(), end, True))
        pos = end
    return spans


def _inline_ranges(text: str, start: int, stop: int, out: list[tuple[int, int]]) -> None:
    # CommonMark: a run of n backticks opens a span closed by the next run of exactly n backticks;
    # an unmatched run is literal. A blank line ends the paragraph, and any span with it.
    pos = start
    unmatched: dict[int, int] = {}  # run width -> paragraph end already searched in vain (keeps it linear)
    limit = -1
    while True:
        m = _BACKTICKS.search(text, pos, stop)
        if m is None:
            return
        width = m.end() - m.start()
        if limit < m.end():  # the paragraph end found before still lies ahead otherwise
            para_end = text.find("\n\n", m.end(), stop)
            limit = stop if para_end < 0 else para_end
        if unmatched.get(width) == limit:
            pos = m.end()
            continue
        j = m.end()
        while True:
            c = _BACKTICKS.search(text, j, limit)
            if c is None or c.end() - c.start() == width:
                break
            j = c.end()
        if c is None:
            unmatched[width] = limit
            pos = m.end()
            continue
        out.append((m.start(), c.end()))
        pos = c.end()


def _outside(ranges: list[tuple[int, int]], start: int) -> bool:
    k = bisect_right(ranges, (start, _LEN_MAX)) - 1  # the last range starting at or before ``start``
    return k < 0 or start >= ranges[k][1]


_LEN_MAX = sys.maxsize


def _markers(text: str, ranges: list[tuple[int, int]] | None = None) -> Iterator[re.Match[str]]:
    if "[" not in text:
        return
    if ranges is None:
        ranges = code_ranges(text)
    for m in LENIENT_MARKER.finditer(text):
        if not ranges or _outside(ranges, m.start()):
            yield m


def marker_ids(m: re.Match[str]) -> list[str]:
    """The canonical ids of one marker match, in order, without repeats."""
    ids: list[str] = []
    for raw in _ID_IN_MARKER.findall(m.group(1)):
        cid = raw.lower()
        if cid not in ids:
            ids.append(cid)
    return ids


def cited_ids(text: str) -> list[str]:
    """Distinct canonical source ids cited in ``text``, in order of first appearance (code excluded)."""
    seen: dict[str, None] = {}
    for m in _markers(text):
        for cid in marker_ids(m):
            seen.setdefault(cid, None)
    return list(seen)


_WS_BEFORE = re.compile(r"[ \t]+\Z")
_OPEN_PAREN = re.compile(r"[ \t]*\([ \t]*\Z")  # "(" (and the space around it) right before a group
_CLOSE_PAREN = re.compile(r"[ \t]*\)")
_GROUP_GAP = re.compile(r"[ \t]*[,;]?[ \t]*\Z")  # between markers of one group: "[a], [b]", "[a] [b]"


def _marker_groups(text: str) -> Iterator[list[re.Match[str]]]:
    # Markers written side by side ("[a][b]", "[a], [b]", "[a]; [b]") form one group.
    group: list[re.Match[str]] = []
    for m in _markers(text):
        if group and _GROUP_GAP.match(text[group[-1].end() : m.start()]) is None:
            yield group
            group = []
        group.append(m)
    if group:
        yield group


def finalize_markers(text: str, numbers: Mapping[str, int]) -> str:
    """Markers to ``[n]`` for ids in ``numbers``; every other marker removed with the whitespace before it.

    When a removal leaves a group of markers incomplete, what stays is written as adjacent numbers (no
    dangling ", "), and a group wholly removed from parentheses takes them too: "daily ([id])." reads
    "daily." rather than "daily ().".
    """
    out: list[str] = []
    pos = 0
    for group in _marker_groups(text):
        kept = [[f"[{numbers[cid]}]" for cid in marker_ids(m) if cid in numbers] for m in group]
        piece = text[pos : group[0].start()]
        pos = group[-1].end()
        if all(kept):  # nothing removed: each marker in place, separators kept
            out.append(piece)
            for i, (m, each) in enumerate(zip(group, kept, strict=True)):
                if i:
                    out.append(text[group[i - 1].end() : m.start()])
                out.append("".join(each))
            continue
        nums = "".join(n for each in kept for n in each)
        opened = _OPEN_PAREN.search(piece)
        closed = _CLOSE_PAREN.match(text, pos)
        if not nums and opened and closed:
            piece, pos = piece[: opened.start()], closed.end()
        out.append(piece if nums else _WS_BEFORE.sub("", piece))
        out.append(nums)
    out.append(text[pos:])
    return "".join(out)


# A final text's numbered marker, as finalize_markers writes it (and as an export or a copy keeps it).
NUMBERED_MARKER = re.compile(r"\[(\d{1,3})\]")


def ids_for_numbers(text: str, ids: Mapping[int, str]) -> tuple[str, list[int]]:
    """The way back from ``finalize_markers``: every ``[n]`` whose number ``ids`` knows becomes ``[id]``
    (code excluded). Also returns the numbers met that ``ids`` does not know, in order, once each."""
    ranges = code_ranges(text)
    unknown: list[int] = []

    def back(m: re.Match[str]) -> str:
        if ranges and not _outside(ranges, m.start()):
            return m.group(0)
        n = int(m.group(1))
        if n in ids:
            return f"[{ids[n]}]"
        if n not in unknown:
            unknown.append(n)
        return m.group(0)

    return NUMBERED_MARKER.sub(back, text), unknown


def source_ids_in(text: str) -> list[str]:
    """Every source id written anywhere in ``text``, marker or not (a source list's line), canonical."""
    return [raw.lower() for raw in _ID_IN_MARKER.findall(text)]


def strip_markers(text: str) -> str:
    """``text`` with every marker removed (with the whitespace before it)."""
    return finalize_markers(text, {})


# ---------------------------------------------------------------------------------------------------
# Sentences.

ABBREVIATIONS = frozenset(
    "e.g i.e dr mr mrs ms prof st vs approx ca cf al fig figs no nos ref refs incl resp max "
    "b.i.d t.i.d q.i.d q.d q.h p.o p.r.n h.s a.c p.c i.v i.m s.c u.s".split()
)
_TERMINATOR = re.compile(r"[.!?…]+")
_CLOSERS = re.compile(r"[\"'”’»)\]]*")
_TRAILING_MARKERS = re.compile(rf"(?:\s{{0,8}}{LENIENT_MARKER.pattern})*")  # bounded gap: linear
_LIST_PREFIX = re.compile(r"^\s*(?:#{1,6}\s+|>\s*)*(?:[-*+•▪◦‣●»]\s+|\d{1,3}[.)]\s+)?")
# A bullet between spaces starts a list item where a document's lines were run together ("… together • Do not
# use …", as PDFs often come out): the item is its own sentence, as it is on the page. "»" between spaces is
# such a bullet (South African guidelines use it), never a closing quote, which follows its word.
_INLINE_BULLET = re.compile(r"(?<=\s)[•▪◦‣●»](?=\s)")
_NEWLINE = re.compile(r"\n")
_WS = re.compile(r"\s+")


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.")


# Dosing and time abbreviations often end a sentence ("Take 500 mg t.i.d. Review at 48 hours."):
# before a capital they are a boundary. "e.g.", "i.e.", "Dr.", "vs." … never are.
# Dosing abbreviations and units of time end a sentence when a capital follows ("over 15 min. Then give …").
_MAY_END = frozenset(
    "b.i.d t.i.d q.i.d q.d q.h p.o p.r.n h.s a.c p.c i.v i.m s.c a.m p.m min mins hr hrs".split()
)
NOT_ABBREVIATION, ABBREVIATION, MAY_END = 0, 1, 2
_UNIT_BEFORE = frozenset("/0123456789°")  # "mmol/L.", "2 L.", "38 °C." are units, not initials
# Words a single capital letter commonly follows as a name, not an initial: "hepatitis B.", "vitamin D."
_LETTER_NAMES = frozenset(
    "hepatitis vitamin vitamins type group influenza factor class grade stage phase category strep "
    "streptococcus step level zone table figure appendix section part schedule plan option".split()
)
_LAST_WORD = re.compile(r"[A-Za-z]+\Z")
_DOTTED = re.compile(r"(?:[a-z]\.)+[a-z]")


def _abbreviation(text: str, dot: int) -> int:
    """Whether the word before ``text[dot]`` (a ".") is an abbreviation, and if so, whether it may
    still end a sentence (``MAY_END``: when a capital follows)."""
    i, floor = dot, max(0, dot - 12)  # abbreviations are short: a bounded look back keeps this linear
    while i > floor and text[i - 1] in _WORD_CHARS:
        i -= 1
    if i > 0 and text[i - 1] in _WORD_CHARS:
        return NOT_ABBREVIATION  # a longer word
    word = text[i:dot].strip(".").lower()
    if not word:
        return NOT_ABBREVIATION
    if word in _MAY_END:
        return MAY_END
    if word in ABBREVIATIONS:
        return ABBREVIATION
    if len(word) == 1 and text[dot - 1].isupper():
        # An initial ("J. Smith", "by A. B. Smith"), unless a unit ("mmol/L.", "2 L.", "38 °C.") or a
        # letter that names something ("hepatitis B.", "vitamin D.", "type A.").
        # Only the few characters before the letter matter: a bounded window keeps this linear.
        before = text[max(0, i - 32) : i].rstrip(" ")
        if before and before[-1] in _UNIT_BEFORE:
            return NOT_ABBREVIATION
        named = _LAST_WORD.search(before, max(0, len(before) - 16))
        if named and named.group().lower() in _LETTER_NAMES:
            return NOT_ABBREVIATION
        return ABBREVIATION
    if _DOTTED.fullmatch(word):  # other dotted forms: "a.m", "u.s"
        return ABBREVIATION
    return NOT_ABBREVIATION


_WORD_AT = re.compile(r"[A-Za-z]{1,24}")


def _mixed_case(text: str, k: int) -> bool:
    """Whether the word at ``text[k]`` (lower case first) has a capital in it: "eGFR", "pH", "mRNA"."""
    w = _WORD_AT.match(text, k)
    return w is not None and not w.group().islower()


def mask_code(text: str, ranges: list[tuple[int, int]], fill: str = "x") -> str:
    """``text`` with the ``ranges`` (``code_ranges``) replaced by ``fill``, same length: offsets still hold.

    The splitter fills with a letter, so code's dots and newlines are never boundaries; coverage with
    spaces, so code's words are not prose and its ``[1]`` no citation."""
    if not ranges:
        return text
    parts: list[str] = []
    pos = 0
    for a, b in ranges:
        parts.append(text[pos:a])
        parts.append(fill * (b - a))
        pos = b
    parts.append(text[pos:])
    return "".join(parts)


# In a final text, ``[n]`` markers after a full stop stay with the sentence before, as ``[id]`` markers do,
# but only on the same line; a line of markers alone stays with the line before. A source list's
# "[1] Title" lines are lines of their own.
_TRAILING_NUMBERED = re.compile(rf"(?:[ \t]{{0,8}}[,;]?[ \t]{{0,8}}{NUMBERED_MARKER.pattern})*")
_LINE_OF_NUMBERED = re.compile(
    rf"(?:\s{{0,8}}[,;]?[ \t]{{0,8}}{NUMBERED_MARKER.pattern})*(?=[ \t]*(?:\n|\Z))"
)


_PAREN_OR_LINE = re.compile(r"[()\n]")


def _sentence_spans(
    text: str,
    code: list[tuple[int, int, bool]],
    trailing: re.Pattern[str] = _TRAILING_MARKERS,
    line_trailing: re.Pattern[str] = _TRAILING_MARKERS,
) -> list[tuple[int, int]]:
    masked = mask_code(text, [(a, b) for a, b, _ in code])
    n = len(text)
    cuts: set[int] = set()
    for a, b, fence in code:
        if fence:
            cuts.update((a, b))  # a fenced block stands alone
    depth, scanned = 0, 0  # open "(" on the current line, counted up to ``scanned``
    for m in _TERMINATOR.finditer(masked):
        abbr = _abbreviation(masked, m.start()) if m.group() == "." else NOT_ABBREVIATION
        if abbr == ABBREVIATION:
            continue
        j = run_end(trailing, masked, run_end(_CLOSERS, masked, m.end()))
        if j < n and not masked[j].isspace():
            continue  # "2.5", "e.g.," or a dot inside a word
        for c in _PAREN_OR_LINE.findall(masked, scanned, j):  # only the characters that move the depth
            if c == "(":
                depth += 1
            elif c == ")":
                depth = max(0, depth - 1)
            else:
                depth = 0
        scanned = j
        if depth:
            continue  # inside parentheses: "(max. 4 g a day. See the label)" is one aside
        nxt = _WS.match(masked, j)
        k = nxt.end() if nxt else j
        if k < n and masked[k].islower() and m.group().strip(".…") == "" and not _mixed_case(masked, k):
            # "approx. twice", "and so on… then": a sentence does not start in lower case, unless
            # with a term that is written so ("… 150 micromol/L. eGFR is …", "pH", "mRNA").
            continue
        if abbr == MAY_END and not (k < n and masked[k].isupper()):
            continue  # "t.i.d. for 5 days", "t.i.d. (with food)": the sentence goes on
        cuts.add(j)
    for nl in _NEWLINE.finditer(masked):
        cuts.add(run_end(line_trailing, masked, nl.start()))
    cuts.update(b.start() for b in _INLINE_BULLET.finditer(masked))
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in sorted(cuts):
        if cut > start:
            spans.append((start, cut))
            start = cut
    if start < n:
        spans.append((start, n))
    return spans


def _clean(text: str) -> str:
    return _LIST_PREFIX.sub("", text.strip(), count=1).strip()


def _cleaned_span(text: str, a: int, b: int) -> tuple[int, int] | None:
    # The offsets of ``_clean(text[a:b])`` within ``text`` (None when nothing is left).
    piece = text[a:b]
    body = piece.lstrip()
    start = a + len(piece) - len(body)
    start += _LIST_PREFIX.match(body.rstrip()).end()  # type: ignore[union-attr]  # always matches
    rest = text[start:b]
    core = rest.strip()
    if not core:
        return None
    start += len(rest) - len(rest.lstrip())
    return start, start + len(core)


def sentence_spans(text: str, *, numbered: bool = False) -> list[tuple[int, int]]:
    """The ``[start, end)`` offsets of the pieces ``split_sentences`` returns (``text[a:b]`` is each one).

    ``numbered``: ``text`` is a final text, whose ``[n]`` markers (not ``[id]`` ones) stay with the sentence
    they follow.
    """
    code = _code_spans(text)
    if numbered:
        pieces = _sentence_spans(text, code, _TRAILING_NUMBERED, _LINE_OF_NUMBERED)
    else:
        pieces = _sentence_spans(text, code)
    return [span for a, b in pieces if (span := _cleaned_span(text, a, b)) is not None]


def split_sentences(text: str) -> list[str]:
    """Sentences (and list items, lines, code blocks) of ``text``, stripped, markers kept in place.

    A marker that follows a full stop (``… daily. [id]``) stays with the sentence before it. Decimals,
    common clinical abbreviations (``e.g.``, ``b.i.d.``, ``approx.``, ``Dr.``) and initials do not end a
    sentence; line breaks do.
    """
    return [text[a:b] for a, b in sentence_spans(text)]


def claims_by_source(answer: str) -> dict[str, list[str]]:
    """For every cited source id (canonical), the sentences citing it: markers removed, whitespace
    collapsed, de-duplicated, in order."""
    code = _code_spans(answer)
    markers = list(_markers(answer, [(a, b) for a, b, _ in code]))
    claims: dict[str, list[str]] = {}
    if not markers:
        return claims
    spans = _sentence_spans(answer, code)
    k = 0
    previous = ""  # the last piece with words: marker-only pieces (after a code block …) cite it
    for a, b in spans:
        ids: list[str] = []
        while k < len(markers) and markers[k].start() < b:
            for cid in marker_ids(markers[k]):
                if cid not in ids:
                    ids.append(cid)
            k += 1
        claim = _WS.sub(" ", _clean(strip_markers(answer[a:b]))).strip() if ids else ""
        if not ids:
            previous = answer[a:b] if answer[a:b].strip() else previous
            continue
        if not claim:
            claim = _WS.sub(" ", _clean(strip_markers(previous))).strip()
            if not claim:
                continue  # markers before any words at all: nothing they could support
        else:
            previous = answer[a:b]
        for cid in ids:
            bucket = claims.setdefault(cid, [])
            if claim not in bucket:
                bucket.append(claim)
    return claims


# ---------------------------------------------------------------------------------------------------
# Streaming display.

# Kept compiled per install (compiled_patterns): it is most of the cost of importing this module.
(_STREAM_TOKEN,) = compiled_patterns.kept("markers", [(rf"`+|~{{3,}}|\n|{LENIENT_MARKER.pattern}", 0)])


class PendingMarkers:
    """Shows complete markers in released text as pending numbers (``[·1]``) while the answer streams.

    Chunks come from the guard, so they never hold a partial marker. Inline-code and fence state is
    tracked across chunks (a backtick run at the end of a chunk is interpreted once the next chunk shows
    where it ends), so markers inside code are left alone. Each chunk is scanned once: linear time.
    """

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self._inline = 0  # width of the open inline-code run, 0 when none
        self._fence = ""  # the opening fence run while inside a fenced block
        self._line_start = True  # only up to three spaces since the last newline
        self._indent = 0
        self._blank_line = True  # the current line is still empty (for paragraph ends)
        self._run = ""  # a backtick/tilde run at the end of the last chunk, not yet interpreted
        self._run_line_start = False

    def feed(self, chunk: str) -> str:
        out: list[str] = []
        pos = 0
        if self._run:
            c = self._run[0]
            j = len(chunk) - len(chunk.lstrip(c))
            self._run += chunk[:j]
            out.append(chunk[:j])
            pos = j
            if pos == len(chunk):
                return "".join(out)
            self._apply_run(self._run, self._run_line_start)
            self._run = ""
        for m in _STREAM_TOKEN.finditer(chunk, pos):
            between = chunk[pos : m.start()]
            self._text(between)
            out.append(between)
            tok = m.group()
            pos = m.end()
            if tok == "\n":
                out.append(tok)
                if self._blank_line:
                    self._inline = 0  # a blank line ends the paragraph and any open inline code
                self._line_start, self._indent, self._blank_line = True, 0, True
            elif tok[0] in "`~":
                out.append(tok)
                if pos == len(chunk):
                    self._run, self._run_line_start = tok, self._line_start
                else:
                    self._apply_run(tok, self._line_start)
            else:
                out.append(tok if self._inline or self._fence else self._pending(m))
                self._line_start = self._blank_line = False
        rest = chunk[pos:]
        self._text(rest)
        out.append(rest)
        return "".join(out)

    def _text(self, s: str) -> None:
        if not s:
            return
        stripped = s.lstrip(" ")
        if self._line_start:
            self._indent += len(s) - len(stripped)
            if stripped or self._indent > 3:
                self._line_start = False
        if stripped:
            self._blank_line = False

    def _apply_run(self, run: str, at_line_start: bool) -> None:
        c, width = run[0], len(run)
        if self._fence:
            if at_line_start and c == self._fence[0] and width >= len(self._fence):
                self._fence = ""
        elif self._inline:
            if c == "`" and width == self._inline:
                self._inline = 0
        elif at_line_start and width >= 3:
            self._fence = run
        elif c == "`":
            self._inline = width
        self._line_start = self._blank_line = False

    def _pending(self, m: re.Match[str]) -> str:
        parts = []
        for cid in marker_ids(m):
            n = self.numbers.setdefault(cid, len(self.numbers) + 1)
            parts.append(f"[·{n}]")
        return "".join(parts)
