"""The main screen's widgets."""

from hippo_tui.ui.widgets.answer import AnswerPane
from hippo_tui.ui.widgets.prompt import PromptInput
from hippo_tui.ui.widgets.sources import SourcesPanel
from hippo_tui.ui.widgets.status import StatusBar

__all__ = ["AnswerPane", "PromptInput", "SourcesPanel", "StatusBar"]
