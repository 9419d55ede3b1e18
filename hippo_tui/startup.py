"""A command's start-up in its own process, made cheaper while its modules load.

Loading the modules is most of a short command's time (an offline ``ask`` before its first text, ``kb
search``, the app's first frame). Meanwhile the garbage collector is held off and what loaded is frozen
afterwards (``heap.frozen_after``), and the regular expressions the modules compile are made from their
states kept in the cache folder (``compiled_patterns.remembered``), and pydantic looks for no plugins
(``without_pydantic_plugins``). Only when the entry point runs this process's own command line: a test or an
embedder that calls it keeps its process's collector, ``re`` and pydantic as they were.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
from collections.abc import Iterator
from typing import Any

_own_process = False
# Where pydantic finds its plugins (packages declaring a ``pydantic`` entry point), once per process.
PYDANTIC_PLUGINS = "pydantic.plugin._loader"


def own_process() -> None:
    """Said by the entry point when it runs the command line of this process."""
    global _own_process
    _own_process = True
    without_pydantic_plugins()


def without_pydantic_plugins() -> None:
    """Pydantic looks for plugins when it builds its first validator: that imports ``importlib.metadata`` and
    reads every installed package's metadata, 35 ms of CPU, a tenth of an offline ``ask`` before its first
    text. A plugin observes validation in a service of its author's; the models here are the app's own, so this
    process looks for none. Anything else asked of pydantic's loader is the loader's own, imported then."""
    if PYDANTIC_PLUGINS in sys.modules:
        return
    loader = types.ModuleType(PYDANTIC_PLUGINS)

    def get_plugins() -> tuple[()]:
        return ()

    def real(name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (``__path__``): not here
            raise AttributeError(name)
        if sys.modules.get(PYDANTIC_PLUGINS) is loader:
            del sys.modules[PYDANTIC_PLUGINS]
        return getattr(importlib.import_module(PYDANTIC_PLUGINS), name)

    loader.get_plugins = get_plugins  # type: ignore[attr-defined]
    loader.__getattr__ = real  # type: ignore[method-assign]
    sys.modules[PYDANTIC_PLUGINS] = loader


@contextlib.contextmanager
def loading(command: str) -> Iterator[None]:
    """While ``command``'s modules load (imported inside this block)."""
    if not _own_process:
        yield
        return
    from hippo_tui import compiled_patterns, heap

    with heap.frozen_after(), compiled_patterns.remembered(f"loading-{command}"):
        yield
