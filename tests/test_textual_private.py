"""The UI's uses of Textual private names, each run against a real app, and a guard that they stay in
hippo_tui/ui/textual_private.py.

A Textual upgrade that renames or removes one of them fails here, naming the function and what Textual
no longer has, instead of an answer silently drawn wrong.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import re
from collections.abc import Iterator
from functools import cache
from importlib.metadata import version
from pathlib import Path

import pytest
import textual
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.canvas import Canvas, Rectangle
from textual.color import Color
from textual.geometry import Offset
from textual.style import Style
from textual.widget import Widget
from textual.widgets import Markdown, RadioButton, RadioSet
from textual.widgets.markdown import MarkdownBlock

import hippo_tui.ui
from hippo_tui.ui import textual_private as tp
from hippo_tui.ui.widgets.safe import markdown_parser

DOC = "A *paragraph* of text.\n\n- one\n- two\n\n| Drug | Dose |\n| --- | --- |\n| Trimethoprim | 200 mg |\n"


@contextlib.contextmanager
def textual_has(function: str) -> Iterator[None]:
    """Say which function of textual_private a Textual upgrade broke, and what Textual no longer has."""
    try:
        yield
    except (AttributeError, ImportError, TypeError) as e:
        pytest.fail(
            f"textual_private.{function} no longer works with Textual {version('textual')} "
            f"(checked against {tp.TEXTUAL_CHECKED}): {type(e).__name__}: {e}"
        )


class Host(App[None]):
    BINDINGS = [Binding("f1", "help", "Help", id="help")]  # noqa: RUF012 (Textual's declaration)

    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self.widgets = widgets

    def compose(self) -> ComposeResult:
        yield from self.widgets


def _blocks(document: Markdown) -> list[MarkdownBlock]:
    return [c for c in document.children if isinstance(c, MarkdownBlock)]


def test_checked_against_the_installed_textual():
    assert version("textual") == tp.TEXTUAL_CHECKED, (
        f"Textual is now {version('textual')}: run these tests, check each function of "
        f"hippo_tui/ui/textual_private.py against it, then set TEXTUAL_CHECKED"
    )


def test_the_markdown_block_classes_are_textuals_own():
    with textual_has("MarkdownParagraph and the other block classes"):
        by_token = {
            "paragraph_open": tp.MarkdownParagraph,
            "blockquote_open": tp.MarkdownBlockQuote,
            "bullet_list_open": tp.MarkdownBulletList,
            "ordered_list_open": tp.MarkdownOrderedList,
            "list_item_ordered_open": tp.MarkdownOrderedListItem,
            "table_open": tp.MarkdownTable,
        }
        assert {k: Markdown.BLOCKS[k] for k in by_token} == by_token
        assert issubclass(tp.MarkdownOrderedListItem, tp.MarkdownListItem)
        assert issubclass(tp.MarkdownBullet, Widget)
    with pytest.raises(AttributeError):
        tp.MarkdownNoSuchBlock  # noqa: B018 (the module's lazy names are only the listed ones)


async def test_app_keymap_is_the_keymap_textual_binds():
    app = Host()
    async with app.run_test() as pilot:
        app.set_keymap({"help": "f2, ?"})
        await pilot.pause()
        with textual_has("app_keymap"):
            assert tp.app_keymap(app) == {"help": "f2,question_mark"}


async def test_highlight_radio_button_moves_what_enter_presses():
    radio = RadioSet(RadioButton("a", value=True), RadioButton("b"), RadioButton("c"))
    app = Host(radio)
    async with app.run_test() as pilot:
        with textual_has("highlight_radio_button"):
            tp.highlight_radio_button(radio, 2)
        radio.action_toggle_button()
        await pilot.pause()
        assert radio.pressed_index == 2
        assert radio.children[2].has_class("-selected")


def test_resolve_widths_shares_the_width_as_textuals_grid():
    with textual_has("resolve_widths"):
        widths = tp.resolve_widths([10.0, 30.0], 41, 1, [3, 3])
    assert [w for _, w in widths] == [10, 30] and widths[1][0] == 11  # a gutter between them
    with textual_has("resolve_widths"):
        shrunk = tp.resolve_widths([30.0, 30.0], 21, 1, [5, 15])
    assert [w for _, w in shrunk] == [5, 15]  # shrunk no narrower than the minimums


def test_canvas_strips_are_the_canvas_lines():
    canvas = Canvas(5, 3)
    with textual_has("canvas_strips"):
        strips = tp.canvas_strips(
            canvas, [Rectangle(Offset(0, 0), 5, 3, Color.parse("red"))], Style().rich_style
        )
    assert [s.text for s in strips] == ["┌───┐", "│   │", "└───┘"]


async def test_layout_generation_counts_children_and_relayouts():
    document = Markdown("One.\n")
    app = Host(document)
    async with app.run_test() as pilot:
        await pilot.pause()
        with textual_has("layout_generation"):
            before = tp.layout_generation(document)
            await document.append("\n\nTwo.\n")
            await pilot.pause()
            assert tp.layout_generation(document) != before


async def test_forgetting_measures_lets_a_block_grow_in_place():
    document = Markdown("Short.\n")
    app = Host(document)
    async with app.run_test(size=(20, 20)) as pilot:
        await pilot.pause()
        (paragraph,) = _blocks(document)
        with textual_has("forget_box_models / forget_arrangement"):
            paragraph.set_content(tp.block_content(paragraph) + " and a good deal longer than that")
            tp.forget_box_models(paragraph)
            tp.forget_arrangement(document)
        document.refresh(layout=True)
        await pilot.pause()
        assert paragraph.size.height > 1


async def test_set_unrendered_source_changes_the_text_not_the_blocks():
    document = Markdown("One.\n")
    app = Host(document)
    async with app.run_test() as pilot:
        await pilot.pause()
        blocks = _blocks(document)
        with textual_has("set_unrendered_source"):
            tp.set_unrendered_source(document, "Two.\n")
        assert document.source == "Two.\n" and _blocks(document) == blocks


async def test_parsed_blocks_carry_their_document_tokens_text_and_cells():
    document = Markdown("")
    app = Host(document)
    async with app.run_test():
        tokens = markdown_parser().parse(DOC)
        with textual_has("parse_blocks"):
            paragraph, bullets, table = tp.parse_blocks(document, tokens)
        assert (type(paragraph), type(bullets), type(table)) == (
            tp.MarkdownParagraph,
            tp.MarkdownBulletList,
            tp.MarkdownTable,
        )
        assert not paragraph.is_attached  # built, not mounted
        with textual_has("block_document / block_token / inline_token / block_content"):
            assert tp.block_document(paragraph) is document
            assert tp.block_token(paragraph).type == "paragraph_open"
            inline = tp.inline_token(paragraph)
            assert inline is not None and inline.content == "A *paragraph* of text."
            assert tp.block_content(paragraph).plain == "A paragraph of text."
        with textual_has("child_blocks"):
            items = tp.child_blocks(bullets)
        assert [type(i).__name__ for i in items] == ["MarkdownUnorderedListItem"] * 2
        with textual_has("table_cells"):
            headers, rows = tp.table_cells(table)
        assert [h.plain for h in headers] == ["Drug", "Dose"]
        assert [[c.plain for c in row] for row in rows] == [["Trimethoprim", "200 mg"]]


async def test_setting_a_blocks_tokens_and_text_without_drawing_it():
    document = Markdown("One.\n\nTwo.\n")
    app = Host(document)
    async with app.run_test() as pilot:
        await pilot.pause()
        first, second = _blocks(document)
        drawn = first.render()
        with textual_has("set_block_token / set_inline_token / keep_block_content"):
            tp.set_block_token(first, tp.block_token(second))
            token = tp.inline_token(second)
            assert token is not None
            tp.set_inline_token(first, token)
            tp.keep_block_content(first, tp.block_content(second))
            assert tp.block_token(first) is tp.block_token(second)
            assert tp.inline_token(first) is token
            assert tp.block_content(first).plain == "Two."
        assert first.render() is drawn  # recorded, not drawn


class _PlainStyled(tp.MarkdownParagraph):
    """A paragraph styled for no inline kind."""


tp.route_component_classes(_PlainStyled, lambda _self, every: every - {"em", "strong", "s", "code_inline"})


class _Offered(tp.MarkdownParagraph):
    """A paragraph that records the longer versions Textual offers it, and lets Textual take them."""

    offered: list[str] = []  # noqa: RUF012 (one test's record)

    async def take(self, block: MarkdownBlock) -> bool:
        self.offered.append(tp.block_content(block).plain)
        return False


tp.route_block_updates(_Offered, _Offered.take)


def _with_paragraphs(kind: type[MarkdownBlock], text: str) -> Markdown:
    """A Markdown document that builds its paragraphs as ``kind``."""
    document = Markdown(text)
    document.BLOCKS = {**Markdown.BLOCKS, "paragraph_open": kind}
    return document


async def test_routed_component_classes_style_only_the_kinds_kept():
    plain, routed = (
        Markdown("*em* and **strong**.\n"),
        _with_paragraphs(_PlainStyled, "*em* and **strong**.\n"),
    )
    app = Host(plain, routed)
    async with app.run_test() as pilot:
        await pilot.pause()
        with textual_has("route_component_classes / styled_component_classes"):
            assert {"em", "strong"} <= tp.styled_component_classes(_blocks(plain)[0])
            (ours,) = _blocks(routed)
            assert isinstance(ours, _PlainStyled)
            assert tp.styled_component_classes(ours) == frozenset()


async def test_routed_block_updates_are_offered_then_taken_by_textual():
    routed = _with_paragraphs(_Offered, "")
    app = Host(routed)
    async with app.run_test() as pilot:
        await routed.append("Streamed")
        await routed.append(" on.")
        await pilot.pause()
        with textual_has("route_block_updates"):
            assert _Offered.offered == ["Streamed on."]
        (paragraph,) = _blocks(routed)
        assert tp.block_content(paragraph).plain == "Streamed on."  # Textual's own update ran


def test_every_function_is_exercised_here():
    source = Path(__file__).read_text()
    missing = [name for name in tp.__all__ if f"tp.{name}" not in source]
    assert not missing, f"textual_private names without a test here: {missing}"


# --- The guard: no other UI module uses a Textual private name. ---

UI = Path(hippo_tui.ui.__file__).parent
ALLOWED = UI / "textual_private.py"


@cache
def textual_private_attributes() -> frozenset[str]:
    """Every underscored attribute or method name Textual's own source defines or reads."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        names.update(re.findall(r"(?:\.|\bdef )(_[A-Za-z]\w*)", path.read_text(encoding="utf-8")))
    return frozenset(n for n in names if not n.endswith("__"))


@cache
def textual_bases_source(cls: type) -> str:
    """The source of the Textual classes ``cls`` inherits from."""
    return "\n".join(class_source(base) for base in cls.__mro__ if base.__module__.split(".")[0] == "textual")


@cache
def class_source(cls: type) -> str:
    """``cls``'s source, read once: the UI's classes share their Textual bases (Widget, DOMNode, …), and
    ``inspect.getsource`` parses the base's whole module each time it is asked."""
    return inspect.getsource(cls)


def _private_textual_module(module: str | None) -> bool:
    parts = (module or "").split(".")
    return parts[0] == "textual" and any(p.startswith("_") for p in parts)


def _own_receiver(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the name belongs to the enclosing class."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _class_uses(cls_node: ast.ClassDef, cls: type | None) -> Iterator[tuple[int, str]]:
    """Underscored names a class defines or reads on itself that are names of its Textual bases."""
    bases = textual_bases_source(cls) if cls is not None else ""
    if not bases:
        return
    for node in ast.walk(cls_node):
        name = None
        if isinstance(node, ast.Attribute) and _own_receiver(node.value):
            name = node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node in cls_node.body:
            name = node.name
        if name and _private(name) and re.search(rf"\b{re.escape(name)}\b", bases):
            yield node.lineno, name


def textual_private_uses(source: str, module: object = None) -> list[tuple[int, str]]:
    """(line, name) of each Textual private name ``source`` uses: an underscored Textual module, an
    underscored Textual attribute read on another object, or one its Textual subclasses define or read."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "textual":
            private = [a.name for a in node.names if _private(a.name)]
            if _private_textual_module(node.module) or private:
                found.append((node.lineno, f"{node.module}: {', '.join(private) or '*'}"))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _private_textual_module(a.name)]
        elif isinstance(node, ast.Attribute) and not _own_receiver(node.value):
            if _private(node.attr) and node.attr in textual_private_attributes():
                found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ClassDef):
            found += _class_uses(node, getattr(module, node.name, None))
    return sorted(set(found))


def _ui_modules() -> list[Path]:
    return sorted(p for p in UI.rglob("*.py") if p != ALLOWED)


@pytest.mark.parametrize("path", _ui_modules(), ids=lambda p: str(p.relative_to(UI)))
def test_no_ui_module_but_textual_private_uses_a_textual_private_name(path: Path):
    name = ".".join(path.relative_to(UI.parent.parent).with_suffix("").parts)
    module = importlib.import_module(name.removesuffix(".__init__"))
    uses = textual_private_uses(path.read_text(encoding="utf-8"), module)
    assert not uses, f"{path.name} uses Textual private names (move them to textual_private.py): {uses}"


def test_the_guard_finds_each_kind_of_use():
    class Box(Widget):
        pass

    module = type("M", (), {"Box": Box})
    source = (
        "from textual.widgets._markdown import MarkdownParagraph\n"
        "import textual._resolve\n"
        "from textual.widgets import _markdown\n"
        "def keys(app):\n    return app._keymap\n"
        "class Box:\n"
        "    def _get_component_classes(self): ...\n"
        "    def draw(self):\n        self._layout_required = True\n        self._ours = 1\n"
        "class Own:\n    def f(self):\n        return self._keymap\n"
    )
    names = [name for _, name in textual_private_uses(source, module)]
    assert names == [
        "textual.widgets._markdown: *",
        "textual._resolve",
        "textual.widgets: _markdown",
        "_keymap",
        "_get_component_classes",
        "_layout_required",
    ]
