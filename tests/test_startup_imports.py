"""Small commands start fast because they import only what they use: checked on sys.modules, never by timing.

Each command runs in a fresh interpreter (what a user starts), then the probe lists the packages it loaded.
The speed itself is measured in bench/bench_startup.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_tui import __version__

# The last line a probe prints: the modules in sys.modules.
# (A None entry is an import blocked on purpose, such as httpx's command-line tool: not loaded.)
LIST_MODULES = "import json, sys; print(json.dumps(sorted(k for k, v in sys.modules.items() if v is not None)))\n"
# Runs the real entry point with the given arguments, then lists what it loaded.
PROBE = (
    """
import sys
from hippo_tui.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
"""
    + LIST_MODULES
)

HEAVY = {"openai", "httpx", "textual", "pydantic", "aiosqlite"}
# Standard-library packages a parser does not need (the event loop alone is a fifth of a bare start;
# dataclasses brings inspect, ast and tokenize).
NOT_FOR_THE_PARSER = {"asyncio", "ssl", "concurrent", "dataclasses", "inspect"}


def loaded(home: Path, *argv: str, code: str = PROBE) -> tuple[set[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    *output, modules = proc.stdout.splitlines()
    names = json.loads(modules)
    # Every module loaded, and each one's top-level package ("pydantic" for pydantic.main).
    return set(names) | {m.split(".")[0] for m in names}, "\n".join(output)


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["ask", "--help"],
        ["verify", "--help"],
        ["kb", "--help"],
        ["eval", "--help"],
        ["audit", "--help"],
    ],
)
def test_version_and_help_import_none_of_the_heavy_packages(hippo_home, argv):
    modules, output = loaded(hippo_home, *argv)
    assert "hippo_tui" in modules and output  # the probe ran the command
    assert modules & HEAVY == set()
    assert modules & NOT_FOR_THE_PARSER == set()


def test_a_command_imports_no_other_commands_module(hippo_home):
    modules, output = loaded(hippo_home, "kb", "list", "--limit", "1")
    assert output  # the command ran
    commands = {m.rsplit(".", 1)[1] for m in modules if m.startswith("hippo_tui.commands.")}
    assert "kb" in commands and commands & {"ask", "audit", "db", "eval", "serve", "verify"} == set()


def test_version_prints_the_version(hippo_home):
    _, output = loaded(hippo_home, "--version")
    assert output == f"hippo-tui {__version__}"


def test_kb_search_imports_neither_the_model_client_nor_textual(hippo_home):
    modules, output = loaded(hippo_home, "kb", "search", "amlodipine dose")
    assert "Hypertension" in output  # a real search ran on the demo KB
    assert "aiosqlite" in modules  # what it needs: the store
    assert modules & {"openai", "httpx", "textual"} == set()
    # Nor the parts of the store a search never uses: ingesting documents.
    assert not {m for m in modules if m.startswith("hippo_tui.ingest")}


def test_kb_search_on_a_built_database_loads_no_pydantic_model(hippo_home):
    loaded(hippo_home, "kb", "stats")  # the first command builds the database from the demo KB (validated)
    modules, output = loaded(hippo_home, "kb", "search", "amlodipine dose")
    assert "1. Hypertension" in output
    # The results are printed from the ranked rows: no record model, no pydantic, no audit record.
    assert "pydantic" not in modules
    assert {"hippo_tui.models", "hippo_tui.events", "hippo_tui.audit_stats"} & modules == set()
    # --json prints each result as the record (SearchHit) would dump it.
    modules, output = loaded(hippo_home, "kb", "search", "amlodipine dose", "--json", "-k", "1")
    assert json.loads(output)["title"] == "Hypertension: choosing the first drug"
    assert "hippo_tui.models" in modules


def test_kb_list_on_a_built_database_loads_no_pydantic_model(hippo_home):
    loaded(hippo_home, "kb", "stats")  # the first command builds the database from the demo KB (validated)
    modules, output = loaded(hippo_home, "kb", "list", "--limit", "3")
    assert len(output.splitlines()) == 3 and " active " in output  # three sources were listed
    # Each line is printed from the row (id, status, title): no record model, no pydantic.
    assert "pydantic" not in modules and "hippo_tui.models" not in modules
    modules, output = loaded(hippo_home, "kb", "list", "--limit", "1", "--json")  # dumps the record
    assert json.loads(output)["status"] == "active" and "hippo_tui.models" in modules


def test_an_offline_ask_answers_without_the_sdk_or_an_http_client(hippo_home):
    # The in-process backends speak the chat wire themselves; the SDK is a second of CPU, for real servers.
    # The offline server is called in the process: httpx (a tenth of an ask before its first text) is not loaded.
    modules, output = loaded(hippo_home, "ask", "What is the first-line drug for hypertension?")
    assert "Verification:" in output  # a real answer ran, and was checked
    assert modules & {"openai", "httpx", "rich", "pygments"} == set()
    assert "hippo_tui.audit_stats" not in modules  # the audit's statistics: only where they are asked for
    # Nor are the checks imported before the answer's text is out: see test_offline_in_process.


def test_in_its_own_process_an_ask_reads_no_installed_packages_metadata(hippo_home):
    # Pydantic would, to look for plugins, when it builds the first validator: a tenth of an offline ask.
    own = "import sys\nfrom hippo_tui.cli import main\nsys.argv[1:] = ['ask', 'What is the first-line drug for hypertension?']\n"
    modules, output = loaded(hippo_home, code=own + "main()\n" + LIST_MODULES)
    assert "Verification:" in output  # a real answer ran, and was checked
    assert "pydantic" in modules and "importlib.metadata" not in modules


def test_the_ask_commands_modules_and_the_engine_load_no_citation_check(tmp_path):
    # What an offline `ask` loads before its text: its command's modules, the engine, the store and the
    # answerer. The checks, both judges, the veto and the coverage count run once the answer has ended, and
    # are imported there.
    code = "import hippo_tui.commands.ask_run, hippo_tui.engine.local\n" + LIST_MODULES
    modules, _ = loaded(tmp_path, code=code)
    assert {"hippo_tui.config", "hippo_tui.store", "hippo_tui.backends.extractive"} <= modules
    checks = {"checks", "offline_judge", "llm_judge", "veto", "elements", "reading", "coverage"}
    assert modules & {f"hippo_tui.verification.{m}" for m in checks} == set()


def test_a_bad_config_file_is_a_usage_error_where_the_command_loads_the_settings(hippo_home, tmp_path):
    # The entry point does not load the settings to catch their error: the command loads them with its own
    # modules, and a ConfigError from there still exits as a usage error, without a traceback.
    bad = tmp_path / "config.toml"
    bad.write_text("modle = 'x'\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(hippo_home)
    proc = subprocess.run([sys.executable, "-m", "hippo_tui", "kb", "list", "--config", str(bad)],
                          capture_output=True, text=True, env=env, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.startswith("hippo-tui: ") and "modle" in proc.stderr


def test_audit_list_imports_neither_the_model_client_nor_textual(hippo_home):
    modules, _ = loaded(hippo_home, "audit", "list")
    assert "aiosqlite" in modules
    assert modules & {"openai", "httpx", "textual"} == set()


def test_the_app_reaches_its_first_frame_without_the_model_client(hippo_home):
    # The app module and the entry point bring Textual; the engine (openai, httpx, the store) is imported
    # in the background after the first frame.
    modules, _ = loaded(hippo_home, code="import hippo_tui.cli, hippo_tui.ui.app\n" + LIST_MODULES)
    assert "textual" in modules
    assert modules & {"openai", "httpx", "aiosqlite"} == set()


# The real entry point with no command, headless: when the app starts opening its engine (after the first
# frame, by design) the probe reports what was loaded.
FIRST_FRAME_PROBE = """
import json, os, sys
from textual.app import App
from hippo_tui.ui import app as ui

async def opening_the_engine(settings):
    print(json.dumps({"modules": sorted(k for k, v in sys.modules.items() if v is not None), "settings": type(settings).__name__}), flush=True)
    os._exit(0)

ui.open_local_engine = opening_the_engine
ui.HippoApp.run = lambda self, *a, **k: App.run(self, headless=True, size=(80, 24))
from hippo_tui.cli import main
main([])
"""


def first_frame(home: Path) -> tuple[set[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(home)
    proc = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    return set(report["modules"]), report["settings"]


def test_the_first_frame_loads_no_panel_and_no_model_client(hippo_home):
    # The real app up to the moment it opens its engine: the panels (help, audit, dashboard, inspector,
    # model switcher, prompt editor) load when first opened, the model client and the store with the engine.
    modules, _ = first_frame(hippo_home)
    assert "hippo_tui.ui.widgets.answer" in modules  # the probe ran the app's main screen
    assert (
        "hippo_tui.ui.widgets.turn" not in modules and "markdown_it" not in modules
    )  # with the first answer
    assert {m for m in modules if m.startswith("hippo_tui.ui.screens.")} == set()
    assert {m.split(".")[0] for m in modules} & {"openai", "httpx", "aiosqlite"} == set()
    assert not {
        m for m in modules if m.startswith(("hippo_tui.engine.", "hippo_tui.store", "hippo_tui.backends"))
    }


def test_the_first_frame_loads_no_pydantic_model(hippo_home):
    # The settings are plain checks; the UI reads events by their type tag, so the event and record models
    # (pydantic, a fifth of a second to import) load with the engine, in its thread, after the first frame.
    modules, settings = first_frame(hippo_home)
    assert settings == "Settings"  # the probe saw the app open its engine with the loaded settings
    assert "pydantic" not in {m.split(".")[0] for m in modules}
    assert {"hippo_tui.events", "hippo_tui.models", "hippo_tui.export", "hippo_tui.ui.event_batches"} & modules == set()


def test_typing_against_the_engine_protocol_does_not_load_the_model_client(tmp_path):
    # A front end imports the protocol at the top; the local engine (and openai) come only when used.
    modules, _ = loaded(
        tmp_path, code="import hippo_tui.engine.protocol\nimport hippo_tui.engine\n" + LIST_MODULES
    )
    assert not modules & {"openai", "httpx", "textual"}
