"""A reply written out as a model would: its sentences with ``[id]`` markers."""

from __future__ import annotations

from dataclasses import dataclass

from hippo_tui.backends.extractive.sources import _HEADING_WORD


@dataclass
class Reply:
    """One model turn: sentences with the id each cites (None: an uncited statement), then maybe a tool call."""

    sentences: list[tuple[str, str | None]]
    search: str | None = None


def render(reply: Reply) -> str:
    """The reply's text with ``[id]`` markers, as a model would write it."""
    pieces = []
    for i, (sentence, sid) in enumerate(reply.sentences):
        s = sentence.rstrip()
        following = reply.sentences[i + 1][1] if i + 1 < len(reply.sentences) else None
        if (s.endswith(":") or _HEADING_WORD.match(s)) and sid and following == sid:
            # A lead-in ("Treat as an outpatient if:") or a heading ("Colchicine") is one statement with its
            # first item.
            pieces.append(s if s.endswith(":") else f"{s}:")
            continue
        # A line of a list or table ends without a full stop (or with a bracket, or a colon); written out in
        # a row it needs one, or it runs into the next and its claim (and so its check) takes in the next
        # one's words.
        if s and s[-1] not in ".!?":
            s = s.rstrip(":;,") + "."
        pieces.append(f"{s} [{sid}]" if sid else s)
    return " ".join(pieces)
