"""What the app keeps of the settings in step with the engine: the endpoint after a switch, and the system
prompt saved from the editor (in the data folder; it applies at startup unless the settings name one)."""

from __future__ import annotations

from pathlib import Path

from hippo_tui.config import Settings

PROMPT_FILE = "system_prompt.md"
ENDPOINT_FIELDS = ("backend", "base_url", "model")


def prompt_file(settings: Settings) -> Path:
    return settings.data_dir() / PROMPT_FILE


def saved_prompt(settings: Settings) -> str | None:
    """The prompt saved from the editor, when the settings do not name one (raises OSError if unreadable)."""
    path = prompt_file(settings)
    if settings.system_prompt is None and path.is_file():
        return path.read_text(encoding="utf-8")
    return None


def save_prompt(settings: Settings, text: str, default: str) -> str:
    """Keep an edited prompt for the next start (the default is kept as no file); where it went, in words.
    Raises OSError when it could not be written."""
    path = prompt_file(settings)
    if text == default:
        path.unlink(missing_ok=True)
        return "the default is restored"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return f"saved to {path}"


def mirror_endpoint(settings: Settings, values: dict[str, str | None]) -> None:
    """Mirror what the engine now uses after a switch; an empty key field means "keep the current key"."""
    try:
        for key in ENDPOINT_FIELDS:
            if key in values:
                setattr(settings, key, values[key])
        if values.get("api_key"):
            settings.api_key = values["api_key"]
    except ValueError:
        pass  # the engine validated the same values; a settings check that disagrees changes nothing
