import pytest
from rich.text import Text

from hippo_tui.safe_text import STRING_MAX, EscapeScanner, escape_markup, has_special, safe_markup, sanitize


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("plain text\twith tab\nand newline", "plain text\twith tab\nand newline"),
        ("bell\x07 nul\x00 cr\r del\x7f bs\x08", "bell nul cr del bs"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[38;5;196;1mbold\x1b[m", "bold"),
        ("\x1b[2J\x1b[Hcleared", "cleared"),
        ("\x9b31mC1 CSI\x9b0m", "C1 CSI"),
        ("\x1b]0;pwned title\x07after", "after"),
        ("\x1b]2;title\x1b\\after", "after"),
        ("\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", "click"),
        ("\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07paste", "paste"),
        ("\x1bP+q544e\x1b\\dcs", "dcs"),
        ("\x1b_apc payload\x1b\\apc", "apc"),
        ("\x1b^pm\x1b\\pm", "pm"),
        ("\x1bXsos\x1b\\sos", "sos"),
        ("\x9d0;t\x9cC1 OSC", "C1 OSC"),
        ("\x1bcreset \x1b7save \x1b(Bcharset", "reset save charset"),
        ("c1 \x85next \x84ind", "c1 next ind"),
        ("left\u202eevil\u202cright", "leftevilright"),
        ("\u2066iso\u2069 \u202aemb\u202b", "iso emb"),
        ("zero\u200bwidth\u200c\u200d\u2060\ufeff", "zerowidth"),
        ("tags\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065 hidden", "tags hidden"),
        ("unfinished \x1b]8;;https://x", "unfinished "),
        ("csi abort \x1b[31\nnext", "csi abort \nnext"),
        ("osc aborted by \x1b]0;t\x1b[1mcsi", "osc aborted by csi"),
        ("lone esc at end \x1b", "lone esc at end "),
    ],
)
def test_sanitize(raw, clean):
    assert sanitize(raw) == clean
    assert not has_special(sanitize(raw))


def test_unicode_text_survives():
    text = "Ärzte · 日本語 · emoji 🩺 · “quotes” — dash"
    assert sanitize(text) == text


def test_overlong_string_payload_is_capped():
    text = "\x1b]52;c;" + "A" * (STRING_MAX + 10) + "\x07tail"
    clean = sanitize(text)
    assert "\x1b" not in clean and "\x07" not in clean and clean.endswith("tail")


@pytest.mark.parametrize(
    "raw",
    [
        "a\x1b[31mb\x1b[0mc",
        "x\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\y",
        "\x9b2Jz\x9d0;t\x9cq",
        "p\x1b]0;title\x1b",
        "\u202edone\x1b",
    ],
)
def test_scanner_equals_sanitize_for_every_split(raw):
    for size in range(1, len(raw) + 1):
        scanner = EscapeScanner()
        pieces = [scanner.feed(raw[i : i + size]) for i in range(0, len(raw), size)]
        pieces.append(scanner.finish())
        assert "".join(pieces) == sanitize(raw)
        assert all(not has_special(p) for p in pieces)


def test_scanner_holds_an_unfinished_sequence():
    scanner = EscapeScanner()
    assert scanner.feed("ok \x1b]8;;https://ev") == "ok "
    assert scanner.pending == len("\x1b]8;;https://ev")
    assert scanner.feed("il/\x1b\\link") == "link"
    assert scanner.pending == 0


@pytest.mark.parametrize(
    "text",
    [
        "[bold]not bold[/bold]",
        "[red]x",
        "a [1] b",
        "back\\",
        "\\[bold]",
        "[link=https://x]y[/link]",
        "[@click]z",
    ],
)
def test_escape_markup_round_trips_through_rich(text):
    # As it is used: put between tags, the text comes back verbatim and the tags still apply.
    rendered = Text.from_markup(f"[italic]{escape_markup(text)}[/italic]")
    assert rendered.plain == text
    assert [span.style for span in rendered.spans] == ["italic"]


def test_safe_markup_sanitises_then_escapes():
    assert Text.from_markup(safe_markup("\x1b[31m[bold]x\u202e")).plain == "[bold]x"


def test_screen_and_tmux_title_set_is_removed_whole():
    # ESC k … ESC \ renames a screen/tmux window: the title must not leak as text, nor reach the terminal.
    assert sanitize("a\x1bkpwned\x1b\\b") == "ab"
    assert sanitize("a\x1bkpwned\x07b") == "ab"


def test_clip_sanitises_then_cuts_with_an_ellipsis():
    from hippo_tui.safe_text import clip

    assert clip("\x1b[31mred\x1b[0m text") == "red text"
    assert clip("a  b\n\nc", flat=True) == "a b c"
    assert clip("abcdef", 4) == "abc…" and len(clip("x" * 100, 10)) == 10
    assert clip("abc", 3) == "abc" and clip("ab cd", 4) == "ab…"  # no space before the ellipsis
