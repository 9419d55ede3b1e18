"""The engine must run headless: nothing outside hippo_tui/ui/ may import Textual."""

import ast
from pathlib import Path

from hippo_tui.cli import COMMANDS

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
        str(p.relative_to(PKG.parent)): sorted(m & {"hippo_tui.verification.markers", "hippo_tui.guard"})
        for p in _ui_modules()
        if (m := _from_imports(p) | _plain_imports(p)) & {"hippo_tui.verification.markers", "hippo_tui.guard"}
    }
    assert offenders == {}


def test_the_answer_session_runs_without_textual():
    assert "textual" not in _imports(PKG / "ui" / "session.py")


def _plain_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_graph() -> dict[str, set[str]]:
    """Module → the package's modules it imports, lazy (function-level) imports included: an import
    deferred to run time still ties the two modules together."""
    modules = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
                edges.update(subs or ({node.module} & modules.keys()))
        graph[name] = edges - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_between_cli_and_commands():
    graph = _package_graph()
    assert "hippo_tui.commands._common" in graph["hippo_tui.cli"]  # it sees the edges
    # The command modules cli imports by their names (only the one a command line names): edges too.
    graph["hippo_tui.cli"] |= {f"hippo_tui.commands.{name}" for name in COMMANDS.values()}
    assert {"hippo_tui.commands.ask", "hippo_tui.commands.kb"} <= graph["hippo_tui.cli"]
    cli_side = {m for m in graph if m == "hippo_tui.cli" or m.startswith("hippo_tui.commands")}
    assert [sorted(c) for c in _cycles(graph) if c & cli_side] == []
    assert not any("hippo_tui.cli" in graph[m] for m in graph if m.startswith("hippo_tui.commands"))


def test_cycle_check_finds_a_lazy_import_back():
    # The check above must be able to fail: cli → commands.kb and a function-level import back.
    graph = {"cli": {"kb"}, "kb": {"common", "cli"}, "common": set(), "audit": {"common"}}
    assert _cycles(graph) == [{"cli", "kb"}]
