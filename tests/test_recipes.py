"""The README's server recipes, each exercised against a real HTTP server on 127.0.0.1 that answers the way
that server does (the refusals are the servers' own wording). What a developer should expect is what is tested.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from hippo_tui.cli import EXIT_MODEL, EXIT_OK, EXIT_STORE, EXIT_USAGE, EXIT_WITHDRAWN, build_parser
from hippo_tui.config import Settings, load_settings
from hippo_tui.engine import Engine
from hippo_tui.events import EndEvent, ResetEvent, ThinkingEvent
from tests.support import scenarios as sc
from tests.support.asking import ask_once

AMLO = "ee87c1e3-93ad-4efd-9e45-ec867fe8da7f"  # Hypertension: choosing the first drug (demo KB)
ANSWER = f"Amlodipine is commonly started at 5 mg once daily. [{AMLO}]"

# How each server refuses a request that offers tools when it cannot take them.
TOOLS_REFUSED = {
    "ollama, a model without tool support": sc.error(
        400, "registry.ollama.ai/library/gemma:2b does not support tools"
    ),
    "vLLM without --enable-auto-tool-choice": sc.error(
        400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    ),
    "llama.cpp without --jinja": sc.error(500, "tools param requires --jinja flag"),
}


@pytest.fixture
async def engine(hippo_home, store, scripted_server):
    settings = Settings(base_url=scripted_server.url, model="m", home=hippo_home)
    engine = await Engine.create(settings, store=store)
    yield engine
    await engine.close()


async def collect(engine: Engine, question: str) -> list:
    return await ask_once(engine, question)


def chat_requests(server) -> list[dict]:
    return [r["body"] for r in server.requests() if "response_format" not in r["body"]]


async def test_openai_tools_and_structured_output(engine, scripted_server):
    scripted_server.play(
        {
            "chat": [sc.stream(sc.tool_chunks("amlodipine", before="Checking")), sc.answer(ANSWER)],
            "grounding": [sc.grounding({AMLO: True})],
        }
    )
    events = await collect(engine, "amlodipine dose")
    assert [e.reason for e in events if isinstance(e, ResetEvent)] == ["tool_call"]
    end = events[-1]
    assert isinstance(end, EndEvent) and [c.grounding for c in end.citations] == ["grounded"]
    grounding = [r["body"] for r in scripted_server.requests() if "response_format" in r["body"]]
    assert [g["response_format"]["type"] for g in grounding] == ["json_schema"]


@pytest.mark.parametrize("server", list(TOOLS_REFUSED))
async def test_servers_refusing_tools_answer_without_them(engine, scripted_server, server):
    scripted_server.play(
        {"chat": [TOOLS_REFUSED[server], sc.answer(ANSWER)], "grounding": [sc.grounding({AMLO: True})]}
    )
    events = await collect(engine, "amlodipine dose")
    end = events[-1]
    assert isinstance(end, EndEvent) and end.outcome == "complete"
    assert end.text.endswith("once daily. [1]") and end.citations[0].grounding == "grounded"
    said = [e.text for e in events if isinstance(e, ThinkingEvent)]
    assert any("takes no tools" in s for s in said)  # the inspector and status say why
    first, second = chat_requests(scripted_server)
    assert "tools" in first and "tools" not in second
    # The next question does not offer tools again to a server that refused them.
    scripted_server.play({"chat": [sc.answer(ANSWER)], "grounding": [sc.grounding({AMLO: True})]})
    assert isinstance((await collect(engine, "again"))[-1], EndEvent)
    assert all("tools" not in body for body in chat_requests(scripted_server))


async def test_a_refusal_that_is_not_about_tools_is_an_error(engine, scripted_server):
    scripted_server.play({"chat": [sc.error(400, "context length exceeded")]})
    events = await collect(engine, "amlodipine dose")
    assert events[-1].type == "error" and len(chat_requests(scripted_server)) == 1


async def test_llama_cpp_without_json_schema_and_a_failing_fallback_keeps_citations(engine, scripted_server):
    refusal = sc.error(400, "response_format: json_schema is not supported")
    scripted_server.play(
        {"chat": [sc.answer(ANSWER)], "grounding": [refusal, sc.error(500, "grammar failed")]}
    )
    end = (await collect(engine, "amlodipine dose"))[-1]
    assert isinstance(end, EndEvent)
    assert [(c.number, c.grounding) for c in end.citations] == [(1, "unchecked")]  # still shown
    assert end.verification.note


async def test_switching_endpoint_offers_tools_again(engine, scripted_server):
    scripted_server.play({"chat": [TOOLS_REFUSED["llama.cpp without --jinja"], sc.answer(ANSWER)]})
    await collect(engine, "amlodipine dose")
    await engine.reconfigure(base_url=scripted_server.url, model="another")
    scripted_server.play({"chat": [sc.answer(ANSWER)], "grounding": [sc.grounding({AMLO: True})]})
    await collect(engine, "amlodipine dose")
    assert "tools" in chat_requests(scripted_server)[0]


# -- the README's other claims, checked against the code ------------------------------------------------------

README = Path(__file__).resolve().parents[1] / "README.md"


def _options(parser: argparse.ArgumentParser) -> set[str]:
    out: set[str] = set()
    for action in parser._actions:
        out |= set(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                out |= _options(child)
    return out


def test_every_hippo_tui_flag_in_the_readme_exists():
    text = README.read_text(encoding="utf-8")
    # Commands that start with hippo-tui and the tables; other tools' flags (vllm, llama-server) are not ours.
    lines = [ln for ln in text.splitlines() if ln.lstrip().startswith(("hippo-tui", "|"))]
    named = {f for ln in lines for f in re.findall(r"(?<![\w-])--[a-z][a-z-]*", ln)}
    assert {"--base-url", "--model", "--config", "--json"} <= named  # the check reads what it should
    assert named - _options(build_parser()) == set()


def test_every_environment_variable_in_the_readme_changes_a_setting(tmp_path):
    text = README.read_text(encoding="utf-8")
    names = set(re.findall(r"\b(?:HIPPO|OPENAI)_[A-Z_]+\b", text))
    cfg = tmp_path / "config.toml"
    cfg.write_text("retrieval_k = 9\n")
    samples = {
        "HIPPO_BACKEND": "openai",
        "HIPPO_CONFIG": str(cfg),
        "HIPPO_HOME": str(tmp_path),
        "HIPPO_MAX_TOKENS": "300",
    }
    assert {"HIPPO_BASE_URL", "HIPPO_CONFIG", "OPENAI_API_KEY"} <= names
    default = load_settings({}, env={})
    for name in sorted(names):
        assert load_settings({}, env={name: samples.get(name, "x")}) != default, name


def test_every_file_the_readme_links_to_exists():
    text = README.read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)", text) if "://" not in t]
    assert targets, "the README links its screenshots and example files"
    missing = [t for t in targets if not (README.parent / t).exists()]
    assert missing == []


def test_the_readme_exit_codes_are_the_commands_own():
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = dict(re.findall(r"\b(\d) \(([a-z][^)]*)\)", text.split("`ask` exits with", 1)[1][:400]))
    assert said == {
        str(EXIT_OK): "answered",
        str(EXIT_WITHDRAWN): "withdrawn or cancelled",
        str(EXIT_USAGE): "usage or configuration error",
        str(EXIT_MODEL): "model or server error",
        str(EXIT_STORE): "knowledge base or audit database error",
    }


def test_the_readme_verify_exit_codes_are_the_commands_own():
    from hippo_tui.commands.verify import EXIT_FLAGGED, EXIT_NOT_ALL_CHECKED

    text = " ".join(README.read_text(encoding="utf-8").split())
    said = text.split("`verify` exits with", 1)[1][:400]
    for code, words in (
        (EXIT_OK, "when every citation passed both checks"),
        (EXIT_FLAGGED, "when a citation was flagged (missing or retired) or ungrounded"),
        (EXIT_NOT_ALL_CHECKED, "when nothing failed but not everything could be checked"),
        (EXIT_USAGE, "on usage errors"),
        (EXIT_STORE, "on knowledge base or audit database errors"),
    ):
        assert f"{code} {words}" in said, (code, words)
