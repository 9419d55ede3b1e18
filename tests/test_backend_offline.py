"""The offline backend: the extractive answerer, the lexical judge, and the in-process OpenAI server."""

from __future__ import annotations

import asyncio
import json

import httpx
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hippo_tui.backends import extractive
from hippo_tui.backends.chat import TextDelta, TurnEnd, stream_turn
from hippo_tui.backends.offline import tokens
from hippo_tui.backends.offline_transport import OfflineTransport
from hippo_tui.prompts import SEARCH_TOOL, grounding_user_message, system_message, tool_result
from hippo_tui.verification import offline_judge
from hippo_tui.verification.llm_judge import STEPS, reply_schema, response_format
from hippo_tui.verification.markers import cited_ids

A = "11111111-1111-4111-8111-111111111111"
B = "22222222-2222-4222-8222-222222222222"
C = "33333333-3333-4333-8333-333333333333"


class Src:
    def __init__(self, id: str, title: str, excerpt: str) -> None:
        self.id, self.title, self.excerpt = id, title, excerpt


AMLO = Src(
    A, "Hypertension drugs", "Amlodipine is commonly started at 5 mg once daily. It can cause ankle swelling."
)
OTITIS = Src(B, "Otitis media", "Give amoxicillin for 5 days when antibiotics are needed for otitis media.")


def messages(question: str, *sources: Src, extra: list[dict] | None = None) -> list[dict]:
    return [
        {"role": "system", "content": system_message("prompt", "CANARY", list(sources))},
        {"role": "user", "content": question},
        *(extra or []),
    ]


def client(tps: float = 0) -> openai.AsyncOpenAI:
    http = httpx.AsyncClient(transport=OfflineTransport(tokens_per_second=tps))
    return openai.AsyncOpenAI(
        base_url="http://offline.invalid/v1", api_key="x", max_retries=0, http_client=http
    )


def test_answers_from_the_best_sentence_and_cites_it():
    reply = extractive.answer(
        messages("What dose of amlodipine is started?", AMLO, OTITIS), tools=["search_kb"]
    )
    assert reply.search is None
    text = extractive.render(reply)
    assert text.startswith("Amlodipine is commonly started at 5 mg once daily.") and cited_ids(text) == [A]


def test_an_uncovered_part_makes_it_search_once_then_say_so():
    q = "What dose of amlodipine is started and what is the treatment for gout?"
    first = extractive.answer(messages(q, AMLO), tools=["search_kb"])
    assert first.search == "treatment gout" and {sid for _, sid in first.sentences} == {A}
    called = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search_kb", "arguments": '{"query": "treatment gout"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": tool_result("treatment gout", [])},
    ]
    second = extractive.answer(messages(q, AMLO, extra=called), tools=["search_kb"])
    assert second.search is None
    assert "does not cover" in extractive.render(second) and cited_ids(extractive.render(second)) == [A]
    # Without the tool on offer it never calls it.
    assert extractive.answer(messages(q, AMLO), tools=[]).search is None


def test_sources_from_tool_results_are_used():
    q = "How long is amoxicillin given for otitis media?"
    extra = [{"role": "tool", "tool_call_id": "c", "content": tool_result("otitis", [OTITIS])}]
    text = extractive.render(extractive.answer(messages(q, AMLO, extra=extra), tools=["search_kb"]))
    assert cited_ids(text) == [B]


def test_nothing_at_all():
    text = extractive.render(extractive.answer(messages("", AMLO), tools=[]))
    assert "could not find" in text


@pytest.mark.parametrize(
    ("claim", "grounded"),
    [
        ("Amlodipine is usually started at 5 mg once daily.", True),  # paraphrase
        ("Amlodipine is commonly started at 10 mg once daily.", False),  # a dose the excerpt does not give
        ("Amlodipine is not commonly started at 5 mg once daily.", False),  # negation mismatch
        ("Metformin reduces glucose.", False),  # no overlap
        ("Amlodipine can cause ankle swelling.", True),
    ],
)
def test_lexical_judge(claim, grounded):
    assert offline_judge.supports(claim, AMLO.excerpt) is grounded


AGES = "An ACE inhibitor is first-line for adults under 55. A calcium-channel blocker is first-line at 55 or over."


@pytest.mark.parametrize(
    ("claim", "grounded"),
    [
        ("A calcium-channel blocker is first-line for adults over 55.", True),
        ("A calcium-channel blocker is first-line for adults under 55.", False),
    ],
)
def test_lexical_judge_minds_the_direction(claim, grounded):
    assert offline_judge.supports(claim, AGES) is grounded


def test_answerer_minds_the_direction():
    src = Src(A, "Hypertension", AGES)
    for q, want in (
        ("first-line for adults over 55?", "calcium"),
        ("first-line for adults under 55?", "ACE"),
    ):
        reply = extractive.answer(messages(q, src), tools=[])
        assert reply.sentences[0][0].startswith(("A " + want, "An " + want)), reply


def test_judge_answers_per_source_in_the_grounding_shape():
    verdicts = offline_judge.judge(
        [
            {
                "source_id": A,
                "excerpt": AMLO.excerpt,
                "claims": ["Amlodipine is started at 5 mg."],
            },
            {
                "source_id": C,
                "excerpt": AMLO.excerpt,
                "claims": ["wrong thing entirely", "Amlodipine is started at 5 mg."],
            },
            {"source_id": B, "excerpt": OTITIS.excerpt, "claims": ["Give amoxicillin for 10 days."]},
        ]
    )
    assert verdicts["checks"][0] == {"source_id": A, "grounded": True}
    assert verdicts["checks"][1] == {"source_id": C, "grounded": False}  # every claim must stand
    assert verdicts["checks"][2] == {"source_id": B, "grounded": False}


def test_tokens_split_markers_into_pieces_and_keep_the_text():
    text = f"Started at 5 mg. [{A}] Then more."
    toks = tokens(text)
    assert "".join(toks) == text
    assert "[" in toks and f"[{A}]" not in toks  # a marker arrives in pieces, as from a real model


async def test_streams_through_the_openai_client_with_a_tool_call():
    q = "What dose of amlodipine is started and what is the treatment for gout?"
    items = [
        i
        async for i in stream_turn(
            client(), model="offline", messages=messages(q, AMLO), tools=[SEARCH_TOOL], base_url="x"
        )
    ]
    text = "".join(i.text for i in items if isinstance(i, TextDelta))
    end = items[-1]
    assert isinstance(end, TurnEnd) and end.finish_reason == "tool_calls"
    assert cited_ids(text) == [A]
    assert [(c.name, json.loads(c.arguments)) for c in end.tool_calls] == [
        ("search_kb", {"query": "treatment gout"})
    ]


@pytest.mark.parametrize("step", STEPS)
async def test_answers_grounding_requests_in_the_shape_the_schema_asks(step: str):
    items = [
        {"source_id": A, "excerpt": AMLO.excerpt, "claims": ["Amlodipine is started at 5 mg once daily."]}
    ]
    # The schema names a second id the data does not hold: a grammar-bound server must still answer it.
    wanted = [A, B] if step != "json_object" else [A]
    reply = await client().chat.completions.create(
        model="offline",
        messages=[{"role": "user", "content": grounding_user_message(items)}],
        response_format=response_format(step, reply_schema(wanted)),  # type: ignore[arg-type]
    )
    verdicts = json.loads(reply.choices[0].message.content or "")
    assert verdicts == ({A: True, B: False} if step != "json_object" else {A: True})


async def test_lists_its_model():
    c = client()
    models = await c.models.list()
    assert [m.id for m in models.data] == ["offline"]


async def test_paces_tokens_per_second():
    loop = asyncio.get_running_loop()
    msgs = messages("What dose of amlodipine is started?", AMLO)
    t0 = loop.time()
    async for _ in stream_turn(client(200.0), model="offline", messages=msgs, tools=None, base_url="x"):
        pass
    n = len(OfflineTransport.turn_chunks(msgs, []))
    assert loop.time() - t0 >= 0.9 * n / 200.0  # one frame per 5 ms at least


async def test_unknown_routes_and_bad_requests_are_http_errors():
    c = client()
    with pytest.raises(openai.BadRequestError):
        await c.chat.completions.create(model="offline", messages=[{"role": "user", "content": "q"}])
    with pytest.raises(openai.NotFoundError):
        await c.embeddings.create(model="offline", input="x")


async def test_a_bug_in_the_offline_model_is_a_server_error_that_says_so(monkeypatch):
    def broken(*args, **kwargs):
        raise TypeError("bad part")

    monkeypatch.setattr(extractive, "answer", broken)
    with pytest.raises(openai.InternalServerError, match="the offline model failed: TypeError: bad part"):
        await (
            client()
            .with_options(max_retries=0)
            .chat.completions.create(
                model="offline", messages=[{"role": "user", "content": "q"}], stream=True
            )
        )


def test_a_follow_up_question_inherits_the_subject_of_the_one_before():
    src = Src(A, "Hypertension drugs", "Amlodipine is commonly started at 5 mg once daily. Diet matters too.")
    msgs = messages("and how often is it taken?", src, OTITIS)
    msgs[1:1] = [
        {"role": "user", "content": "What dose of amlodipine?"},
        {"role": "assistant", "content": "…"},
    ]
    reply = extractive.answer(msgs, tools=["search_kb"])
    assert reply.search is None and {sid for _, sid in reply.sentences} == {A}
    assert extractive.parts_of("and how often is it taken?", ["What dose of amlodipine?"])[0].subject


@settings(max_examples=150, deadline=None)
@given(
    question=st.lists(
        st.sampled_from(list("abc -?,.;'\n0123456789"))
        | st.sampled_from(
            ["amlodipine", "dose", " and what", " it", " over", " under", "first-line", "[", " uti"]
        ),
        max_size=30,
    ).map("".join),
    earlier=st.lists(st.sampled_from(["What dose of amlodipine?", "", "it?", "and how long?"]), max_size=3),
)
def test_the_answerer_never_fails_and_cites_only_sources_it_was_given(question, earlier):
    history = [
        m for q in earlier for m in ({"role": "user", "content": q}, {"role": "assistant", "content": "x"})
    ]
    msgs = messages(question, AMLO, OTITIS)
    msgs[1:1] = history
    for tools in ([], ["search_kb"]):
        reply = extractive.answer(msgs, tools=tools)
        assert reply.sentences or reply.search
        assert {sid for _, sid in reply.sentences} <= {A, B, None}


@pytest.mark.parametrize("asked", ["non-pregnant", "non pregnant"])
def test_not_being_pregnant_is_no_subject_a_source_must_name(asked):
    # Guidance is for women who are not pregnant unless it says otherwise: a definitions page that happens to
    # say "non-pregnant" is not the better answer to a treatment question than the treatment card.
    guide = Src(A, "Antibiotic guide › Definitions",
                "Uncomplicated cystitis means a bladder infection in a non-pregnant woman with a normal urinary tract.")
    card = Src(B, "Cystitis in women › Treatment",
               "Nitrofurantoin 100 mg twice daily for 5 days is the first line antibiotic.")  # fmt: skip
    reply = extractive.answer(messages(f"first line antibiotic for cystitis in a {asked} woman", guide, card))
    assert extractive.render(reply) == "Nitrofurantoin 100 mg twice daily for 5 days is the first line antibiotic. [" + B + "]"
