"""StreamGuard and the safety policy: what may reach the screen while the model is still writing.

The guard stands between the model and the screen. Each delta is sanitised (``safe_text``), checked
against the policy's rules, and released only up to the first character that could still belong to a
rule match, a citation marker or an escape sequence. Everything after that point is held.

Linear time: a delta costs work proportional to its length plus the held tail, which is bounded by
the longest rule, the longest marker and the longest escape sequence. The whole text is never
re-scanned. Rules therefore must have a bounded maximum match length; the policy rejects any other.

How the adaptive hold knows what "could still match": for every rule we derive, from its parse tree, a
second regex that matches every prefix of a possible match (an over-approximation is sound: it can only
hold more). Searching it, anchored at the end, over the held tail gives the earliest position where a
match may be under way; everything before it can never be part of a match and is released.
"""

from __future__ import annotations

import re
import secrets
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from re import _constants as C  # type: ignore[attr-defined]  # the stdlib parser's opcodes (no stubs)
from re import _parser  # type: ignore[attr-defined]
from typing import Any, Literal

from hippo_tui.safe_text import SPECIAL, EscapeScanner
from hippo_tui.verification.markers import partial_marker_start

MAX_RULE_LEN = 256  # a rule that can match more than this is rejected: the guard would hold it all


_special = SPECIAL.search


class PolicyError(ValueError):
    """A safety policy that cannot be used (bad TOML, bad regex, unbounded pattern …)."""


def new_canary() -> str:
    """A random token for the system prompt; seeing it in the output means the prompt leaked."""
    return f"HIPPO-CANARY-{secrets.token_hex(8)}"


# ---------------------------------------------------------------------------------------------------
# Rules: a regex with a bounded match length, re-emitted from its parse tree.

_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_CATEGORIES = {
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
}


def _ch(code: int) -> str:
    return f"\\U{code:08x}"


def _group_open(av: Any) -> str:
    """The opening of a non-capturing group carrying a SUBPATTERN's inline flags: ``(?i:``, ``(?-i:``, ``(?:``."""
    _group, add, delete, _sub = av
    on, off = _flags(add), _flags(delete)
    return f"(?{on}-{off}:" if off else f"(?{on}:" if on else "(?:"


def _flags(flags: int) -> str:
    return "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)


class _Emitter:
    """Regex source for a parsed pattern (``full``) and for any prefix of its matches (``prefix``).

    Supported: literals, classes, ``.``, groups, alternation, bounded repeats, ``\\b`` and ``\\B``.
    Anchors, lookarounds and back-references depend on text the guard may not have; they are rejected.
    """

    def __init__(self, name: str, dotall: bool) -> None:
        self.name = name
        self.dotall = dotall
        self.uses_boundary = False

    def fail(self, what: str) -> PolicyError:
        return PolicyError(f"safety rule {self.name!r}: {what} is not supported in a streaming rule")

    def full(self, items: Any) -> str:
        return "".join(self.item(op, av) for op, av in items)

    def item(self, op: Any, av: Any) -> str:
        if op is C.LITERAL:
            return _ch(av)
        if op is C.NOT_LITERAL:
            return f"[^{_ch(av)}]"
        if op is C.ANY:
            return r"[\s\S]" if self.dotall else "."
        if op is C.IN:
            return self.charset(av)
        if op is C.SUBPATTERN:
            return _group_open(av) + self.full(av[3]) + ")"
        if op is C.BRANCH:
            return "(?:" + "|".join(self.full(alt) for alt in av[1]) + ")"
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            lo, hi, sub = av
            lazy = "?" if op is C.MIN_REPEAT else ""
            return f"(?:{self.full(sub)}){{{lo},{hi}}}{lazy}"
        if op is C.AT:
            if av is C.AT_BOUNDARY:
                self.uses_boundary = True
                return r"\b"
            if av is C.AT_NON_BOUNDARY:
                self.uses_boundary = True
                return r"\B"
            raise self.fail("an anchor (^, $, \\A, \\Z)")
        if op in (C.ASSERT, C.ASSERT_NOT):
            raise self.fail("a lookaround")
        if op in (C.GROUPREF, C.GROUPREF_EXISTS):
            raise self.fail("a back-reference")
        raise self.fail(f"the construct {op}")

    def charset(self, items: Any) -> str:
        parts: list[str] = []
        for op, av in items:
            if op is C.NEGATE:
                parts.insert(0, "^")
            elif op is C.LITERAL:
                parts.append(_ch(av))
            elif op is C.RANGE:
                parts.append(f"{_ch(av[0])}-{_ch(av[1])}")
            elif op is C.CATEGORY and av in _CATEGORIES:
                parts.append(_CATEGORIES[av])
            else:
                raise self.fail(f"the class item {op}")
        return "[" + "".join(parts) + "]"

    def first(self, items: Any) -> list[str] | None:
        """Regex sources for the characters a match can start with (``None``: any character)."""
        out: list[str] = []
        for op, av in items:
            if op in (C.LITERAL, C.NOT_LITERAL, C.IN):
                return [*out, self.item(op, av)]
            if op is C.AT:
                continue  # zero-width: the first character comes after it
            if op is C.SUBPATTERN:
                _group, add, delete, sub = av
                inner = self.first(sub)
                if inner is None:
                    return None
                on, off = _flags(add), _flags(delete)
                head = f"(?{on}-{off}:" if off else f"(?{on}:" if on else "(?:"
                out += [head + "|".join(inner) + ")"]
                if sub.getwidth()[0] > 0:
                    return out
                continue
            if op is C.BRANCH:
                for alt in av[1]:
                    inner = self.first(alt)
                    if inner is None:
                        return None
                    out += inner
                if all(alt.getwidth()[0] > 0 for alt in av[1]):
                    return out
                continue  # an alternative can be empty: what follows can start the match too
            if op in (C.MAX_REPEAT, C.MIN_REPEAT):
                lo, _hi, sub = av
                inner = self.first(sub)
                if inner is None:
                    return None
                out += inner
                if lo > 0:
                    return out
                continue
            return None  # "." or anything else: no restriction
        return out

    def prefix(self, items: Any) -> str:
        """Matches every prefix (empty and full included) of what ``items`` matches."""
        items = list(items)
        if not items:
            return ""
        head, rest = items[0], items[1:]
        return f"(?:{self.item(*head)}{self.prefix(rest)}|{self.item_prefix(*head)})"

    def item_prefix(self, op: Any, av: Any) -> str:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
            return f"(?:{self.item(op, av)})?"
        if op is C.SUBPATTERN:
            return _group_open(av) + self.prefix(av[3]) + ")"
        if op is C.BRANCH:
            return "(?:" + "|".join(self.prefix(alt) for alt in av[1]) + ")"
        if op in (C.MAX_REPEAT, C.MIN_REPEAT):
            _lo, hi, sub = av
            if hi == 0:
                return ""
            return f"(?:{self.full(sub)}){{0,{hi - 1}}}{self.prefix(sub)}"
        if op is C.AT:
            return ""  # zero-width: a prefix may stop before it (never requires its verdict at the end)
        return self.item(op, av)  # raises for the unsupported constructs


@dataclass(frozen=True)
class SafetyRule:
    """A named pattern whose matches must never reach the screen."""

    name: str
    pattern: re.Pattern[str]
    max_len: int

    @classmethod
    def from_pattern(cls, name: str, pattern: str | re.Pattern[str], flags: int = 0) -> SafetyRule:
        """Compile and check a rule; raises PolicyError (bad regex, unbounded, matches empty text)."""
        if not isinstance(name, str) or not name.strip():
            raise PolicyError("a safety rule needs a non-empty name")
        try:
            compiled = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, flags)
        except re.error as e:
            raise PolicyError(f"safety rule {name!r}: bad regex: {e}") from None
        _lo, hi = _width(name, compiled)
        rule = cls(name, compiled, hi)
        _compiled_sources(rule)  # reject unsupported constructs now, with the rule's name
        return rule


def _width(name: str, compiled: re.Pattern[str]) -> tuple[int, int]:
    lo, hi = _parser.parse(compiled.pattern, compiled.flags).getwidth()
    if hi >= C.MAXREPEAT:
        raise PolicyError(
            f"safety rule {name!r}: pattern {compiled.pattern!r} has no maximum match length "
            "(use a bounded repeat such as {0,64} instead of * or +)"
        )
    if hi > MAX_RULE_LEN:
        raise PolicyError(
            f"safety rule {name!r}: pattern can match {hi} characters; the limit is {MAX_RULE_LEN}"
        )
    if lo == 0:
        raise PolicyError(f"safety rule {name!r}: pattern can match empty text")
    return lo, hi


@dataclass(frozen=True)
class _Sources:
    full: str  # the rule itself
    prefix: str  # any prefix of one of its matches
    first: str | None  # the characters a match can start with (None: any)
    boundary: bool  # uses \b or \B, so a match at the end of the text waits for one more character


def _compiled_sources(rule: SafetyRule) -> _Sources:
    flags = rule.pattern.flags
    tree = _parser.parse(rule.pattern.pattern, flags)
    em = _Emitter(rule.name, dotall=bool(flags & re.DOTALL))
    full, prefix, first = em.full(tree), em.prefix(tree), em.first(tree)
    first_src = None if not first else "|".join(first)
    on = _flags(flags & ~re.DOTALL)  # DOTALL is already spelt out in each "."
    if on:
        full, prefix = f"(?{on}:{full})", f"(?{on}:{prefix})"
        first_src = None if first_src is None else f"(?{on}:{first_src})"
    if rule.max_len < tree.getwidth()[1]:
        raise PolicyError(f"safety rule {rule.name!r}: max_len {rule.max_len} is below the pattern's reach")
    return _Sources(full, prefix, first_src, em.uses_boundary)


DEFAULT_RULES: tuple[tuple[str, str, int], ...] = (
    ("us-ssn", r"\b\d{3}-\d{2}-\d{4}\b", 0),
    ("mrn", r"MRN[:#\s]{0,4}\d{5,10}", re.IGNORECASE),
    ("openai-api-key", r"sk-[A-Za-z0-9_-]{20,64}", 0),
    ("aws-access-key", r"AKIA[0-9A-Z]{16}", 0),
    ("github-token", r"ghp_[A-Za-z0-9]{36}", 0),
)

_TOML_KEYS = {"name", "pattern", "ignore_case"}


class SafetyPolicy:
    """Named rules compiled into one match regex and one prefix regex (each searched once per delta)."""

    def __init__(self, rules: tuple[SafetyRule, ...] | list[SafetyRule]) -> None:
        rules = tuple(rules)
        if not rules:
            raise PolicyError("a safety policy needs at least one rule")
        names = [r.name for r in rules]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise PolicyError(f"safety rule names must be unique: {', '.join(dupes)}")
        self.rules = rules
        self._sources = [_compiled_sources(r) for r in rules]  # every rule is read (and checked) now
        self.max_len = max(r.max_len for r in rules)
        self._boundary = tuple(src.boundary for src in self._sources)

    # The matchers are compiled at their first use: the engine's own policy is only the base that each
    # answer adds its canary to, and is never searched itself.
    @cached_property
    def _match(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?P<r{i}>{src.full})" for i, src in enumerate(self._sources)))

    @cached_property
    def _each(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(src.full) for src in self._sources)

    @cached_property
    def _prefix(self) -> re.Pattern[str]:
        firsts = [src.first for src in self._sources]
        # A lookahead on the characters a match can start with fails fast at every other position,
        # so the costly prefix alternation runs only where a match could begin.
        gate = "" if None in firsts else "(?=" + "|".join(f"(?:{f})" for f in firsts) + ")"
        return re.compile(gate + "(?:" + "|".join(src.prefix for src in self._sources) + r")\Z")

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Any rule, one pass (a match may still be unsettled: see ``find``)."""
        return self._match.search(text, pos)

    def __repr__(self) -> str:
        return f"SafetyPolicy({[r.name for r in self.rules]!r})"

    @classmethod
    def default(cls, canary: str | None = None) -> SafetyPolicy:
        """Patient identifiers (US SSN, MRN), API-key shapes, and the system-prompt canary when given."""
        rules = [SafetyRule.from_pattern(n, p, f) for n, p, f in DEFAULT_RULES]
        if canary:
            rules.append(SafetyRule.from_pattern("system-prompt-canary", re.escape(canary)))
        return cls(rules)

    @classmethod
    def from_toml(cls, path: Path, canary: str | None = None) -> SafetyPolicy:
        """The defaults plus the ``[[rule]]`` tables of a TOML file (name, pattern, ignore_case)."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise PolicyError(f"cannot read safety policy {path}: {e.strerror or e}") from None
        except tomllib.TOMLDecodeError as e:
            raise PolicyError(f"safety policy {path} is not valid TOML: {e}") from None
        unknown = set(data) - {"rule"}
        if unknown:
            raise PolicyError(
                f"safety policy {path}: unknown top-level key(s) {sorted(unknown)}; use [[rule]]"
            )
        entries = data.get("rule", [])
        if not isinstance(entries, list):
            raise PolicyError(f"safety policy {path}: 'rule' must be an array of tables ([[rule]])")
        extra = []
        for i, entry in enumerate(entries, 1):
            if not isinstance(entry, dict):
                raise PolicyError(f"safety policy {path}: rule #{i} is not a table")
            name = entry.get("name")
            label = repr(name) if name else f"#{i}"
            bad = set(entry) - _TOML_KEYS
            if bad:
                raise PolicyError(f"safety rule {label}: unknown key(s) {sorted(bad)}")
            if not isinstance(name, str) or not isinstance(entry.get("pattern"), str):
                raise PolicyError(f"safety rule {label}: needs a string 'name' and a string 'pattern'")
            ignore_case = entry.get("ignore_case", False)
            if not isinstance(ignore_case, bool):
                raise PolicyError(f"safety rule {label}: 'ignore_case' must be true or false")
            extra.append(SafetyRule.from_pattern(name, entry["pattern"], re.IGNORECASE if ignore_case else 0))
        return cls.default(canary).with_rules(*extra)

    def with_rules(self, *rules: SafetyRule) -> SafetyPolicy:
        return SafetyPolicy((*self.rules, *rules))

    def with_canary(self, canary: str) -> SafetyPolicy:
        """This policy plus the rule for one answer's system-prompt canary (the rest is not read again)."""
        return self.with_rules(SafetyRule.from_pattern("system-prompt-canary", re.escape(canary)))

    def find(self, text: str, pos: int, final: bool) -> tuple[str | None, int | None]:
        """(name of a rule with a settled match in ``text[pos:]``, start of the earliest unsettled match).

        A match of a rule with ``\\b`` that touches the end of ``text`` is not settled until the next
        character (or the end of the stream) shows whether the boundary holds.
        """
        m = self._match.search(text, pos)
        if m is None:
            return None, None
        assert m.lastgroup is not None  # every alternative is a named group, r0 … rN
        i = int(m.lastgroup[1:])
        if final or m.end() < len(text) or not self._boundary[i]:
            return self.rules[i].name, None
        # Rare: look at each rule on its own for a settled match, remembering unsettled starts.
        earliest: int | None = None
        for i, rx in enumerate(self._each):
            start = pos
            while (m := rx.search(text, start)) is not None:
                if m.end() < len(text) or not self._boundary[i]:
                    return self.rules[i].name, None
                earliest = m.start() if earliest is None else min(earliest, m.start())
                start = m.start() + 1
        return None, earliest

    def hold_from(self, text: str, pos: int, endpos: int) -> int:
        """Earliest index in [pos, endpos) from which ``text`` could still be the start of a match
        (``endpos`` when there is none)."""
        m = self._prefix.search(text, max(pos, len(text) - self.max_len + 1))
        return endpos if m is None or m.start() > endpos else m.start()


# ---------------------------------------------------------------------------------------------------
# The guard.


class StreamGuard:
    """Releases model output only when it is safe: sanitised, no rule match, no partial marker.

    ``feed(delta)`` returns the text safe to show now; ``finish()`` the rest at end of stream. When a rule
    matches, ``tripped`` names it and both return "" from then on (the caller retracts what is out).
    ``mode="fixed"`` is the article's behaviour (always hold a fixed tail of at least the longest rule);
    ``"adaptive"`` holds only what could still become a match, a marker or an escape sequence.
    """

    def __init__(
        self,
        policy: SafetyPolicy | None = None,
        *,
        mode: Literal["adaptive", "fixed"] = "adaptive",
        hold: int = 32,
    ) -> None:
        if mode not in ("adaptive", "fixed"):
            raise ValueError(f"mode must be 'adaptive' or 'fixed', not {mode!r}")
        self.policy = policy or SafetyPolicy.default()
        self.mode = mode
        # A fixed tail shorter than the longest rule could let the start of a match out.
        self.hold = max(hold, self.policy.max_len - 1)
        self.tripped: str | None = None
        self._esc = EscapeScanner()
        self._buf = ""  # sanitised, not yet released
        self._ctx = ""  # the last released character (for \b at the start of a match)
        self._raw: list[str] = []
        self._released: list[str] = []
        self._finished = False

    @property
    def held(self) -> int:
        """Characters currently held back (sanitised tail plus any unfinished escape sequence)."""
        return len(self._buf) + self._esc.pending

    @property
    def held_text(self) -> str:
        """The sanitised text held back now (an unfinished escape sequence is not text yet)."""
        return self._buf

    @property
    def raw(self) -> str:
        """Every character fed, unsanitised (for the audit record)."""
        if len(self._raw) > 1:
            self._raw[:] = ["".join(self._raw)]
        return self._raw[0] if self._raw else ""

    @property
    def released(self) -> str:
        if len(self._released) > 1:
            self._released[:] = ["".join(self._released)]
        return self._released[0] if self._released else ""

    def feed(self, delta: str) -> str:
        self._raw.append(delta)
        if self.tripped is not None or self._finished:
            return ""
        # Plain text (the common case) skips the escape scanner.
        clean = self._esc.feed(delta) if self._esc.pending or _special(delta) else delta
        if not clean:
            return ""
        return self._release(self._buf + clean, len(clean), final=False)

    def finish(self) -> str:
        if self.tripped is not None or self._finished:
            return ""
        self._finished = True
        tail = self._esc.finish()
        return self._release(self._buf + tail, len(tail), final=True)

    def _release(self, buf: str, new: int, final: bool) -> str:
        ctx = self._ctx
        text = ctx + buf
        base = len(ctx)
        # A match not seen before ends in the new text or was unsettled at the old end: either way it
        # starts within max_len of the old end, so the search never re-reads more than that.
        start = max(base, len(text) - new - self.policy.max_len)
        rule = unsettled = None
        if self.policy.search(text, start) is not None:
            rule, unsettled = self.policy.find(text, start, final)
        if rule is not None:
            self.tripped = rule
            self._buf = buf
            return ""
        n = len(buf)
        if final:
            cut = partial_marker_start(buf)  # can never complete now: dropped from display
            out = buf if cut is None else buf[:cut]
            self._buf = ""
        else:
            end = n if self.mode == "adaptive" else max(0, n - self.hold)
            if unsettled is not None:
                end = min(end, unsettled - base)
            marker = end and "[" in buf
            if marker:
                # A trailing partial marker, or a complete one the cut would split: held whole.
                cut = partial_marker_start(buf[:end])
                if cut is not None:
                    end = cut
            if end and self.mode == "adaptive":
                # Only text before the marker hold needs the (costlier) possible-match search.
                hold = self.policy.hold_from(text, base, base + end) - base
                if hold < end:
                    end = hold
                    if marker and (cut := partial_marker_start(buf[:end])) is not None:
                        end = cut  # never split a marker, whatever a rule's prefix spans
            out, self._buf = buf[:end], buf[end:]
        if out:
            self._released.append(out)
            self._ctx = out[-1]
        return out
