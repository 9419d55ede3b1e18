"""Every error the server answers with: ``{"error": {"kind", "message"}}`` and the right status, for its own
refusals, for bodies that fail validation, and for routes or methods that do not exist. A message never
carries a token, a key or a stored hash."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

_KIND_OF_STATUS = {400: "invalid", 401: "unauthorized", 403: "forbidden", 404: "not_found", 405: "method",
                   409: "conflict", 413: "too_large", 422: "invalid", 429: "rate_limit"}  # fmt: skip


class ApiError(Exception):
    def __init__(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.headers = status, kind, message, headers or {}


def error_response(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"kind": kind, "message": message}}, status_code=status, headers=headers)


def _validation_message(e: RequestValidationError) -> str:
    first = e.errors()[0] if e.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    return f"{where}: {first.get('msg', 'invalid')}"


def install(app: FastAPI) -> None:
    async def api_error(request: Request, e: Exception) -> JSONResponse:
        assert isinstance(e, ApiError)
        return error_response(e.status, e.kind, e.message, e.headers)

    async def invalid(request: Request, e: Exception) -> JSONResponse:
        assert isinstance(e, RequestValidationError)
        return error_response(422, "invalid", _validation_message(e))

    async def http_error(request: Request, e: Exception) -> JSONResponse:
        assert isinstance(e, HTTPException)
        kind = _KIND_OF_STATUS.get(e.status_code, "http")
        return error_response(e.status_code, kind, str(e.detail), dict(e.headers or {}))

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)
