"""Making untrusted model and knowledge-base text inert for a terminal.

One scanner decides, left to right, what is text and what is an escape or control sequence. The
whole-string ``sanitize`` and the streaming ``EscapeScanner`` share it, so feeding a text in any
pieces gives exactly ``sanitize(text)``: a sequence whose end is not yet known is held, never emitted
in parts. Sequences are capped in length so a stream can never make the scanner hold unboundedly.
"""

from __future__ import annotations

import re

# Every character that starts something we remove: C0 controls except \t and \n, DEL, C1 controls
# (U+0080–U+009F, including the 8-bit CSI U+009B), bidi embeddings/overrides/isolates and marks,
# zero-width characters, invisible operators, and Unicode tag characters (invisible text that can
# smuggle instructions: U+E0000–U+E007F).
_SPECIAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f]"
)

SPECIAL = _SPECIAL  # public: callers on a hot path test a piece with SPECIAL.search before scanning it
ESC = "\x1b"
CSI_MAX = 64  # parameter + intermediate bytes of one CSI sequence
STRING_MAX = 1024  # payload of one OSC/DCS/APC/PM/SOS string (OSC 8 links, OSC 52 clipboard writes)

# CSI body: parameter (0x30–0x3F) and intermediate (0x20–0x2F) bytes; the final byte is 0x40–0x7E.
_CSI_BODY = re.compile(f"[\x20-\x3f]{{0,{CSI_MAX}}}")
# String payload runs until BEL, ST (ESC \ or U+009C), CAN, SUB or any other ESC (which aborts it).
_STRING_BODY = re.compile(f"[^\x07\x18\x1a\x1b\x9c]{{0,{STRING_MAX}}}")
_NF_BODY = re.compile(f"[\x20-\x2f]{{0,{CSI_MAX}}}")

# OSC, DCS, APC, PM, SOS after ESC; and ESC k, the screen/tmux window-title set (ESC k title ESC \\).
_STRING_INTRO_ESC = frozenset("]P_^Xk")
_STRING_INTRO_C1 = frozenset("\x9d\x90\x9f\x9e\x98")
_STRING_END = frozenset("\x07\x9c\x18\x1a")


def run_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where the run that ``pattern`` matches at ``pos`` ends (``pos`` when it matches nothing there)."""
    m = pattern.match(text, pos)
    return m.end() if m is not None else pos


def _is_final(c: str) -> bool:
    return "\x40" <= c <= "\x7e"


def _sequence_end(text: str, i: int, final: bool) -> int | None:
    """End (exclusive) of the escape or control sequence that starts at ``text[i]``.

    ``None`` means its end is not decided by the text so far (only when ``final`` is false): the
    caller must hold ``text[i:]`` until more arrives. With ``final`` true, an unfinished sequence
    runs to the end of the text.
    """
    n = len(text)
    c = text[i]
    if c == ESC:
        if i + 1 == n:
            return n if final else None
        d = text[i + 1]
        if d == "[":
            return _csi_end(text, i + 2, final)
        if d in _STRING_INTRO_ESC:
            return _string_end(text, i + 2, final)
        if "\x20" <= d <= "\x2f":  # nF: ESC, intermediates, one final byte (e.g. ESC ( B)
            j = run_end(_NF_BODY, text, i + 1)
            if j == n:
                return n if final else None
            return j + 1 if "\x30" <= text[j] <= "\x7e" else j
        if "\x30" <= d <= "\x7e":  # two-character sequences: ESC 7, ESC c, ESC \ …
            return i + 2
        return i + 1  # a lone ESC before anything else: drop just the ESC
    if c == "\x9b":
        return _csi_end(text, i + 1, final)
    if c in _STRING_INTRO_C1:
        return _string_end(text, i + 1, final)
    return i + 1  # any other control, bidi or zero-width character


def _csi_end(text: str, j: int, final: bool) -> int | None:
    k = run_end(_CSI_BODY, text, j)
    if k == len(text):
        return k if final else None
    return k + 1 if _is_final(text[k]) else k  # a malformed byte ends the sequence (it stays text)


def _string_end(text: str, j: int, final: bool) -> int | None:
    n = len(text)
    k = run_end(_STRING_BODY, text, j)
    if k == n:
        return n if final else None
    c = text[k]
    if c in _STRING_END:
        return k + 1
    if c == ESC:
        if k + 1 == n:
            return n if final else None
        return k + 2 if text[k + 1] == "\\" else k  # ESC \ is ST; another ESC starts a new sequence
    return k  # payload longer than STRING_MAX: remove what was scanned, the rest is plain text


def scan(text: str, final: bool = True) -> tuple[str, int]:
    """Sanitise ``text``: returns (clean text, characters of ``text`` consumed).

    When ``final`` is false, a trailing sequence whose end is not yet known is left unconsumed.
    """
    out: list[str] = []
    pos = 0
    n = len(text)
    search = _SPECIAL.search
    while True:
        m = search(text, pos)
        if m is None:
            out.append(text[pos:])
            return "".join(out), n
        i = m.start()
        out.append(text[pos:i])
        end = _sequence_end(text, i, final)
        if end is None:
            return "".join(out), i
        pos = end


def sanitize(text: str) -> str:
    """The whole text made inert: no control characters (but \\n, \\t), escape sequences, bidi or zero-width."""
    if _SPECIAL.search(text) is None:
        return text
    return scan(text, final=True)[0]


def has_special(text: str) -> bool:
    """Whether ``text`` contains anything ``sanitize`` would remove (a fast check)."""
    return _SPECIAL.search(text) is not None


class EscapeScanner:
    """Streaming ``sanitize``: holds an escape sequence split across pieces until its end is known.

    ``feed(a) + feed(b) + … + finish() == sanitize(a + b + …)`` for any split. ``pending`` is how many raw
    characters are held (at most one capped sequence).
    """

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending = ""

    @property
    def pending(self) -> int:
        return len(self._pending)

    def feed(self, raw: str) -> str:
        if not self._pending and _SPECIAL.search(raw) is None:
            return raw  # the common case: plain text passes straight through
        text = self._pending + raw
        clean, used = scan(text, final=False)
        self._pending = text[used:]
        return clean

    def finish(self) -> str:
        clean = scan(self._pending, final=True)[0]
        self._pending = ""
        return clean


# Rich's own tag syntax: a "[" followed by a letter, "#", "/" or "@" up to the next "]".
_MARKUP_TAG = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape_markup(text: str) -> str:
    """Escape ``text`` for insertion into Rich markup (same rules as ``rich.markup.escape``)."""
    text = _MARKUP_TAG.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        text += "\\"
    return text


def safe_markup(text: str) -> str:
    """Untrusted text ready for Rich markup: sanitised, then escaped."""
    return escape_markup(sanitize(text))


def clip(text: str, limit: int | None = None, *, flat: bool = False) -> str:
    """Untrusted text made inert (``sanitize``) and, when longer than ``limit``, cut to it with an ellipsis.

    ``flat`` collapses every run of whitespace (newlines included) to one space first: one line of a table,
    a status line or a message. The one truncate-and-sanitise helper: everything else calls this.
    """
    text = sanitize(text)
    if flat:
        text = " ".join(text.split())
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + "…"


_LINE_BREAKS = str.maketrans(
    {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def one_line(text: str) -> str:
    """A name (a file name, a title) made inert and kept on one printed line: line breaks and tabs shown as
    ``\\n``, ``\\t``, so a name cannot forge a line of the output it is printed in."""
    return sanitize(text).translate(_LINE_BREAKS)
