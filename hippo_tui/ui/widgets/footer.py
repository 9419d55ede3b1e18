"""The key footer: Textual's, without the widgets each recompose leaves behind."""

from __future__ import annotations

from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's footer recomposes whenever the bindings change (twice or more per answer) and binds each
    new key to its ``compact``; the old keys' bindings are dropped only when ``compact`` is set again
    (Textual 8.2.8, pinned), so a session kept every key it ever showed: about 40 widgets per answer."""

    async def recompose(self) -> None:
        await super().recompose()
        # Setting the value (to itself) is when Textual drops the watchers of closed widgets.
        self.mutate_reactive(Footer.compact)
