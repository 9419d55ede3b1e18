"""Model backends. Every one is an OpenAI-shaped chat client, so the engine has a single code path:

- ``openai``: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio), through the
  ``openai`` SDK;
- ``offline``: the embedded extractive answerer, a server in this process (``offline.OfflineServer``);
- ``replay``: a recorded cassette played back through a transport.

The in-process two use ``local_client``, which speaks the same wire without loading the SDK (over a second
of an offline ``ask``); the offline one is called directly, so an offline run loads no HTTP client either.
Any of them can be recorded (``settings.record``) by wrapping its transport (the offline one's is
``offline_transport.OfflineTransport``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_tui.backends.cassette import Cassette, CassetteError
from hippo_tui.backends.local_client import ChatClient, LocalClient
from hippo_tui.backends.offline import LABEL as OFFLINE_LABEL
from hippo_tui.backends.offline import MODEL as OFFLINE_MODEL
from hippo_tui.backends.offline import OfflineServer
from hippo_tui.config import Settings

if TYPE_CHECKING:  # imported when a backend talks over HTTP: an offline run never does
    import httpx

    from hippo_tui.backends.cassette_transports import RecordingTransport

__all__ = ["Backend", "CassetteError", "open_backend"]

# What the client is told when no key is needed (local servers, in-process backends); the SDK requires one.
NO_KEY = "not-needed"
LOCAL_URL = "http://hippo.invalid/v1"  # never resolved: in-process transports answer it
TIMEOUT = (60.0, 10.0)  # seconds: a request, and connecting (httpx.Timeout)


@dataclass
class Backend:
    name: str  # "offline" | "openai" | "replay"
    label: str  # shown in the UI and in --json
    model: str
    base_url: str
    client: ChatClient
    recorder: RecordingTransport | None = None

    async def aclose(self) -> None:
        await self.client.close()  # closes the http client, and with it the transport (and recorder)


def open_backend(settings: Settings) -> Backend:
    """Build the configured backend. Raises CassetteError for a replay file that cannot be used."""
    name = settings.resolved_backend()
    if name == "offline" and settings.record is None:
        server = OfflineServer(tokens_per_second=settings.offline_tokens_per_second)
        client = LocalClient(base_url=LOCAL_URL, api_key=NO_KEY, server=server)
        return Backend(name, OFFLINE_LABEL, OFFLINE_MODEL, LOCAL_URL, client)
    import httpx

    from hippo_tui.backends.cassette_transports import RecordingTransport, ReplayTransport
    from hippo_tui.backends.offline_transport import OfflineTransport

    transport: httpx.AsyncBaseTransport | None
    if name == "offline":
        transport = OfflineTransport(tokens_per_second=settings.offline_tokens_per_second)
        label, model, base_url, key = OFFLINE_LABEL, OFFLINE_MODEL, LOCAL_URL, NO_KEY
    elif name == "replay":
        if settings.replay is None:
            raise CassetteError("the replay backend needs a cassette: --replay FILE")
        cassette = Cassette.load(settings.replay)
        transport = ReplayTransport(cassette, speed=settings.replay_speed, name=Path(settings.replay).name)
        label = "replay"
        model = str(cassette.meta.get("model") or "replay")
        base_url, key = LOCAL_URL, NO_KEY
    else:
        base_url = settings.base_url or "https://api.openai.com/v1"
        transport = None
        label, model, key = "openai-compatible", settings.model or "gpt-4o-mini", settings.api_key or NO_KEY
    recorder = None
    if settings.record is not None:
        inner = transport or httpx.AsyncHTTPTransport()
        recorder = RecordingTransport(
            inner,
            Path(settings.record),
            meta={"backend": name, "label": label, "model": model, "base_url": base_url},
        )
        transport = recorder
    return Backend(name, label, model, base_url, _client(name, base_url, key, transport), recorder=recorder)


def _client(name: str, base_url: str, key: str, transport: httpx.AsyncBaseTransport | None) -> ChatClient:
    import httpx

    timeout = httpx.Timeout(TIMEOUT[0], connect=TIMEOUT[1])
    http = httpx.AsyncClient(transport=transport, timeout=timeout) if transport else None
    if name != "openai" and http is not None:
        return LocalClient(base_url=base_url, api_key=key, http=http)
    import openai  # only for a real server: see the module's docstring

    return openai.AsyncOpenAI(
        base_url=base_url, api_key=key, max_retries=0, timeout=timeout, http_client=http
    )
