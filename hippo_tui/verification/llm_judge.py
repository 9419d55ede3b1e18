"""Check two's request to the judge: a reply schema built for each answer, three ``response_format`` steps,
and a lenient reader of whatever comes back.

The schema is an object with one required boolean property per confirmed source id and no other property.
A grammar-constrained server (llama.cpp, vLLM, OpenAI's strict mode) can then only write a complete verdict
set with every id exactly once. A verdict list with ``source_id`` as an enum and ``minItems = maxItems = n``
would still let a grammar write one id twice and another never: ``uniqueItems`` is not something grammar
engines enforce.

Steps, in order (the first complete reply wins; the whole run is under the caller's time limit):

1. ``json_schema`` (strict), the schema only in ``response_format``;
2. ``json_object`` carrying ``schema`` (llama.cpp and llama-cpp-python turn it into a grammar), the schema
   also spelled out in the prompt for servers that accept the key and ignore it;
3. plain ``json_object``, the schema in the prompt only (servers that refuse the extra key).

What moves on to the next step: HTTP 400 or 422 (the server refuses the request as written, and the
format is all that differs from the answer requests it takes); HTTP 500 or 501 whose message is about the
format (llama-cpp-python answers 500 "Input should be 'text' or 'json_object'" to ``json_schema``); a reply
that is not JSON, or that lacks a verdict for some source (a model echoing its input). Anything else (auth,
a missing model, rate limits, other server errors, no connection) stops: the next step would meet the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hippo_tui.backends.errors import is_status, server_message, status_code, wants_max_completion_tokens
from hippo_tui.backends.local_client import ChatClient, request_timeout
from hippo_tui.models import GroundingRecord, GroundingStep, GroundingTry
from hippo_tui.prompts import GROUNDING_SYSTEM, grounding_user_message
from hippo_tui.verification.markers import canonical_id

STEPS: tuple[GroundingStep, ...] = ("json_schema", "json_object+schema", "json_object")

# A verdict is a few tokens, but a UUID key is 20 to 25 on common tokenizers: room for the id, the value and
# the punctuation, plus the braces (and a list shape's extra keys, if the model writes one).
_TOKENS_BASE, _TOKENS_PER_SOURCE = 64, 48
_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|schema|grammar|structured", re.I)
_FENCE = re.compile(r"^\s*```[a-z]*\s*\n?(.*?)\n?\s*```\s*$", re.S | re.I)
_ID_KEYS = ("source_id", "id", "source")
_VERDICT_KEYS = ("grounded", "supported")


class GroundingUnavailable(Exception):
    """Check two gave no usable answer; the message says why (shown in the summary note)."""


def reply_schema(ids: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of a complete reply for these source ids: ``{"<id>": true|false, ...}``."""
    return {
        "type": "object",
        "properties": {sid: {"type": "boolean"} for sid in ids},
        "required": list(ids),
        "additionalProperties": False,
    }


def max_tokens(n_sources: int) -> int:
    return _TOKENS_BASE + _TOKENS_PER_SOURCE * n_sources


def response_format(step: GroundingStep, schema: Mapping[str, Any]) -> dict[str, Any]:
    if step == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "grounding", "strict": True, "schema": schema}}
    if step == "json_object+schema":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_object"}


def moves_on(e: Any) -> bool:
    """Whether a refusal of one step is worth the next step (see the module's docstring)."""
    if e.status_code in (400, 422):
        return True
    return e.status_code in (500, 501) and bool(_FORMAT_WORDS.search(server_message(e)))


def _verdict(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, Mapping):  # {"<id>": {"grounded": true}}
        return next((v for k in _VERDICT_KEYS if (v := _verdict(value.get(k))) is not None), None)
    return None


def _pairs(data: Any, depth: int = 0) -> Iterator[tuple[Any, Any]]:
    """Every (id, verdict) the reply offers, in whichever of the shapes a model writes."""
    if depth > 2:
        return
    if isinstance(data, list):  # [{"source_id": …, "grounded": …}, …]
        for item in data:
            if isinstance(item, Mapping):
                yield next((item[k] for k in _ID_KEYS if k in item), None), item
        return
    if isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(value, list):  # the verdict list under any key: "checks", "verdicts", …
                yield from _pairs(value, depth + 1)
            elif isinstance(value, Mapping) and not _is_id(key):  # {"verdicts": {"<id>": true}}
                yield from _pairs(value, depth + 1)
            else:
                yield key, value  # {"<id>": true}


def _is_id(value: Any) -> bool:
    try:
        canonical_id(str(value))
    except ValueError:
        return False
    return True


def parse_verdicts(data: Any, wanted: set[str]) -> dict[str, bool]:
    """Verdicts for the ``wanted`` ids; unknown ids and unreadable values are ignored, and an id given
    contradictory verdicts has none."""
    verdicts: dict[str, bool] = {}
    conflicting: set[str] = set()
    for raw_id, raw_value in _pairs(data):
        if not isinstance(raw_id, str) or not _is_id(raw_id):
            continue
        sid, value = canonical_id(raw_id), _verdict(raw_value)
        if sid not in wanted or value is None:
            continue  # a verdict for a source we did not ask about means nothing
        if sid in verdicts and verdicts[sid] != value:
            conflicting.add(sid)
        verdicts.setdefault(sid, value)
    return {k: v for k, v in verdicts.items() if k not in conflicting}


def read_reply(content: str, wanted: set[str]) -> tuple[dict[str, bool], str]:
    """The verdicts in one reply, and what to say of it in the record."""
    fenced = _FENCE.match(content)
    try:
        data = json.loads(fenced.group(1) if fenced else content)
    except json.JSONDecodeError:
        return {}, "not JSON"
    verdicts = parse_verdicts(data, wanted)
    if len(verdicts) == len(wanted):
        return verdicts, "answered"
    if not verdicts:
        return verdicts, "no verdicts (JSON of another shape)"
    return verdicts, f"incomplete: {len(verdicts)} of {len(wanted)} verdicts"


@dataclass
class GroundingRun:
    """What check two has got so far. Read after a timeout too: the most complete reply so far counts."""

    wanted: list[str]
    tries: list[GroundingTry] = field(default_factory=list)
    verdicts: dict[str, bool] = field(default_factory=dict)
    step: GroundingStep | None = None
    raw: str | None = None
    pending: GroundingStep | None = None  # the step whose request is in flight

    def failed(self, outcome: str) -> None:
        """The request in flight will never answer (timed out, no connection): say so in the record."""
        if self.pending is not None:
            self.tries.append(GroundingTry(step=self.pending, outcome=outcome))
            self.pending = None

    def record(self) -> GroundingRecord:
        return GroundingRecord(step=self.step, raw=self.raw, tries=list(self.tries))

    def take(self, step: GroundingStep, content: str) -> bool:
        """Keep ``content``'s verdicts if they are the most complete so far; True when they are complete."""
        verdicts, outcome = read_reply(content, set(self.wanted))
        self.tries.append(GroundingTry(step=step, outcome=outcome, raw=content))
        if len(verdicts) > len(self.verdicts):
            self.verdicts, self.step, self.raw = verdicts, step, content
        return len(self.verdicts) == len(self.wanted)


async def _request(
    client: ChatClient,
    model: str,
    items: list[dict[str, Any]],
    step: GroundingStep,
    schema: Any,
    limit_name: str,
    seconds: float | None,
) -> str:
    in_prompt = schema if step != "json_schema" else None
    # The client's own read timeout (60 s) must not cut a longer --grounding-timeout short.
    timeout = request_timeout(client, seconds)
    completion = await client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": GROUNDING_SYSTEM},
            {"role": "user", "content": grounding_user_message(items, schema=in_prompt)},
        ],
        response_format=response_format(step, schema),
        temperature=0,
        **timeout,
        **{limit_name: max_tokens(len(items))},
    )
    message = completion.choices[0].message if completion.choices else None
    return (message.content if message is not None else None) or ""


async def ask_judge(
    client: ChatClient,
    model: str,
    items: list[dict[str, Any]],
    run: GroundingRun,
    seconds: float | None = None,
) -> None:
    """Run the steps until one gives a complete reply; ``run`` holds the verdicts and the record.

    ``seconds`` is the whole check's limit, used as each request's HTTP timeout.
    Raises the server's error when a step is refused for a reason the next step cannot fix (or the last
    step is refused), and ``GroundingUnavailable`` when no reply had a single usable verdict.
    """
    schema = reply_schema(run.wanted)
    limit_name, i = "max_tokens", 0
    while i < len(STEPS):
        step = STEPS[i]
        run.pending = step
        try:
            content = await _request(client, model, items, step, schema, limit_name, seconds)
        except Exception as e:
            if not is_status(e):
                raise
            run.pending = None
            if limit_name == "max_tokens" and wants_max_completion_tokens(e):
                limit_name = "max_completion_tokens"  # the same step again, with the name it asks for
                continue
            run.tries.append(
                GroundingTry(step=step, outcome=f"HTTP {status_code(e)}: {server_message(e)[:300]}")
            )
            if not moves_on(e) or i == len(STEPS) - 1:
                if run.verdicts:
                    return  # an earlier step's partial reply still stands
                raise
            i += 1
            continue
        run.pending = None
        if run.take(step, content):
            return
        i += 1
    if not run.verdicts:
        raise GroundingUnavailable("the grounding reply was not the JSON asked for")
