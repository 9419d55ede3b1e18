"""Install anywhere: a wheel installed into a fresh venv outside the repo answers from the bundled demo KB.

The fresh venv gets the wheel with --no-deps; its dependencies come from the test environment through a
.pth line (no network in tests). The editable install of the repo is not visible there, so the package,
its demo KB and its data files all come from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import hippo_tui

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False, **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("install")
    # setuptools reuses build/ between builds and keeps files the source no longer has: start from none.
    shutil.rmtree(ROOT / "build", ignore_errors=True)
    build = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(work),
            str(ROOT),
        ]
    )
    assert build.returncode == 0, build.stderr
    wheel = next(work.glob("hippo_tui-*.whl"))
    venv = work / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(venv)]).returncode == 0
    py = venv / "bin" / "python"
    inst = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(wheel)])
    assert inst.returncode == 0, inst.stderr
    site = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    # Dependencies from this environment, appended after the venv's own site-packages.
    Path(site, "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "OPENAI_"))}
    env["HIPPO_HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(home / "config")  # no user config file leaks in
    return env


def test_package_comes_from_the_wheel(installed, tmp_path):
    out = _run(
        [str(installed / "bin" / "python"), "-c", "import hippo_tui; print(hippo_tui.__file__)"], cwd=tmp_path
    )
    assert str(installed) in out.stdout, out.stdout + out.stderr


def test_the_wheel_holds_the_product_not_its_test_scaffolding(installed):
    wheel = next(installed.parent.glob("hippo_tui-*.whl"))
    with zipfile.ZipFile(wheel) as whl:
        sources = {name: whl.read(name).decode("utf-8") for name in whl.namelist() if name.endswith(".py")}
    assert "hippo_tui/ui/app.py" in sources  # the check below reads the real modules
    assert [name for name, text in sources.items() if "textual.pilot" in text] == []
    names = {Path(name).stem for name in sources}
    assert not names & {"scripted", "recorded", "screenshots"}


def test_ask_json_from_another_folder(installed, tmp_path):
    exe = installed / "bin" / "hippo-tui"
    res = _run(
        [str(exe), "ask", "How long should uncomplicated cystitis in women be treated?", "--json"],
        cwd=tmp_path,
        env=_env(tmp_path / "home"),
    )
    assert res.returncode == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    types = [e["type"] for e in events]
    assert types[0] == "start" and "sources" in types and "text" in types
    end = events[-1]
    assert end["type"] == "end" and end["outcome"] == "complete" and end["audit_id"] == events[0]["audit_id"]
    assert end["citations"], "the offline answer cites the demo KB"
    assert "[1]" in end["text"]
    assert (tmp_path / "home" / "hippo.db").is_file()


def test_version_and_help_on_every_subcommand(installed, tmp_path):
    exe = str(installed / "bin" / "hippo-tui")
    ver = _run([exe, "--version"], cwd=tmp_path)
    assert ver.returncode == 0 and ver.stdout.strip() == f"hippo-tui {hippo_tui.__version__}"
    for sub in ([], ["ask"], ["kb"], ["audit"]):
        res = _run([exe, *sub, "--help"], cwd=tmp_path, env=_env(tmp_path / "h"))
        assert res.returncode == 0, (sub, res.stderr)
        assert "usage: hippo-tui" in res.stdout
    # Every nested command (kb import, audit show, …), found from the wheel's own parser, in one process.
    script = (
        "import argparse, contextlib, io\n"
        "from hippo_tui.cli import build_parser, main\n"
        "def walk(p, path):\n"
        "    for a in p._actions:\n"
        "        if isinstance(a, argparse._SubParsersAction):\n"
        "            for name, child in a.choices.items():\n"
        "                yield [*path, name]\n"
        "                yield from walk(child, [*path, name])\n"
        "for cmd in walk(build_parser(), []):\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        try:\n"
        "            main([*cmd, '--help'])\n"
        "        except SystemExit as e:\n"
        "            code = e.code\n"
        "    print(' '.join(cmd), code, out.getvalue().startswith('usage: hippo-tui ' + ' '.join(cmd)))\n"
    )
    res = _run([str(installed / "bin" / "python"), "-c", script], cwd=tmp_path, env=_env(tmp_path / "h"))
    assert res.returncode == 0, res.stderr
    rows = [line.rsplit(" ", 2) for line in res.stdout.splitlines()]
    assert {"kb import", "kb search", "audit show", "audit export"} <= {r[0] for r in rows}
    assert all(code == "0" and ok == "True" for _, code, ok in rows), res.stdout
