"""The panels: help, audit, event inspector, system prompt editor, model/endpoint switcher."""

from hippo_tui.ui.screens.audit import AuditScreen
from hippo_tui.ui.screens.endpoint import EndpointScreen, validate_endpoint
from hippo_tui.ui.screens.help import HelpScreen
from hippo_tui.ui.screens.inspector import InspectorScreen
from hippo_tui.ui.screens.prompt_editor import PromptEditorScreen

__all__ = [
    "AuditScreen",
    "EndpointScreen",
    "HelpScreen",
    "InspectorScreen",
    "PromptEditorScreen",
    "validate_endpoint",
]
