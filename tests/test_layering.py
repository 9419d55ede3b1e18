"""The engine must run headless: nothing outside hippo_tui/ui/ may import Textual."""

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "hippo_tui"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_textual_outside_ui():
    offenders = [
        str(p.relative_to(PKG.parent))
        for p in PKG.rglob("*.py")
        if "ui" not in p.relative_to(PKG).parts[:1] and "textual" in _imports(p)
    ]
    assert offenders == []


def test_layering_check_sees_textual_imports(tmp_path):
    # The check above must be able to fail: it finds `from textual.app import App`.
    f = tmp_path / "m.py"
    f.write_text("from textual.app import App\nimport textual.widgets\n")
    assert "textual" in _imports(f)


def _ui_modules() -> list[Path]:
    return sorted((PKG / "ui").rglob("*.py"))


def _from_imports(path: Path) -> set[str]:
    """Every module named in a ``from … import`` (absolute), in full."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and n.level == 0}


def test_the_ui_parses_nothing_of_the_model_output():
    # The marker rule and the safety guard are the engine's: the UI shows what the events carry.
    offenders = {
        str(p.relative_to(PKG.parent)): sorted(m & {"hippo_tui.citations", "hippo_tui.guard"})
        for p in _ui_modules()
        if (m := _from_imports(p) | _plain_imports(p)) & {"hippo_tui.citations", "hippo_tui.guard"}
    }
    assert offenders == {}


def test_the_answer_session_runs_without_textual():
    assert "textual" not in _imports(PKG / "ui" / "session.py")


def _plain_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
