"""The routes of `hippo-tui serve`, over one engine: health (no token), conversations, answers as
server-sent events, the audit record and the knowledge base. JSON in and out; errors as
``{"error": {"kind", "message"}}`` (``errors``)."""

from __future__ import annotations

from fastapi import FastAPI, Request

from hippo_tui import __version__
from hippo_tui.engine.local import Engine
from hippo_tui.server import errors, routes_answers, routes_ingest, routes_kb
from hippo_tui.server.auth import Gate
from hippo_tui.server.limits import BodyLimit, Limits
from hippo_tui.server.state import ServerState, state
from hippo_tui.server.tokens import TokenCheck


def create_app(engine: Engine, *, tokens: TokenCheck | None, limits: Limits | None = None) -> FastAPI:
    limits = limits or Limits()
    app = FastAPI(title="hippo-tui", version=__version__, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.hippo = ServerState(engine=engine, gate=Gate(tokens), limits=limits)
    errors.install(app)
    app.add_middleware(BodyLimit, max_body=limits.max_body, max_upload=limits.max_upload)

    @app.get("/v1/health")
    async def health(request: Request) -> dict[str, object]:
        info = await state(request).engine.info()
        return {
            "status": "ok",
            "version": __version__,
            "kb": {"name": info.kb_name, "size": info.kb_size},
            "backend": info.backend,
            "model": info.model,
        }

    @app.get("/v1/info")
    async def info(request: Request) -> dict[str, object]:
        """What a thin client shows in its status line, and the prompt a conversation starts with."""
        s = state(request)
        s.user(request)
        return {**(await s.engine.info()).model_dump(), "default_system_prompt": s.engine.default_system_prompt}

    app.include_router(routes_answers.router)
    app.include_router(routes_kb.router)
    app.include_router(routes_ingest.router)
    return app
