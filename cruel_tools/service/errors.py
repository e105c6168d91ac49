"""Every error the service answers, translated once: a ``cruel-error/1`` object, never a
traceback. The library's errors (a body that is not the document, a busy or failing database,
a rate limit, a ban, a missing submission) each have one handler here; routes raise them, or
:class:`ApiError` for what only HTTP says."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Final

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..api import ErrorResponse
from ..game.log import LogFormatError
from ..site.database import ServerWatch, StoreBusy, database_errors
from ..site.integrity import StoreWatch
from ..site.keys import RateLimited
from ..site.moderation import NoSuchSubmission, NotInQueue
from ..site.submissions import PlayerBanned
from .clients import DUPLICATE_HEADER, DuplicateHeader
from .connections import RateLimitedLog

__all__ = [
    "ApiError",
    "POOL_LOG",
    "STORE_LOG_INTERVAL",
    "json_response",
    "error_response",
    "read_body",
    "unauthorized",
    "install",
]

#: Seconds between two log lines about the store's errors (a failed request, the pool's failed
#: reconnection): the lines between are counted in the next. Issue #24: a PostgreSQL outage of
#: 20 s wrote 68 lines for 36 failed requests.
STORE_LOG_INTERVAL: Final = 10.0

#: HTTP status of each way a body can fail to be read (cruel_tools.game.log error codes).
_BODY_STATUS: Final = {"not-json": 400, "duplicate-key": 400, "too-large": 413}


class ApiError(Exception):
    """A request we refuse, answered as an :class:`ErrorResponse`.

    Not a :class:`~cruel_tools.errors.CruelError`: it is an HTTP answer, raised and caught
    inside the service, for any status (503 busy and 500 internal errors too); the library's
    errors on bad input that it answers are CruelErrors already.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        location: str | None = None,
        path: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.body = ErrorResponse(
            status=status,
            code=code,
            message=message,
            location=location,
            path=path,
        )
        self.headers = headers or {}


def json_response(model: BaseModel, status: int = 200) -> Response:
    return Response(
        orjson.dumps(model.model_dump(mode="json")), status, media_type="application/json"
    )


def error_response(exc: ApiError) -> Response:
    response = json_response(exc.body, exc.body.status)
    response.headers.update(exc.headers)
    return response


def unauthorized(code: str, message: str) -> ApiError:
    """A 401: no usable key (RFC 6750's challenge in ``WWW-Authenticate``)."""
    return ApiError(401, code, message, "header", "authorization", {"WWW-Authenticate": "Bearer"})


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused (413) as soon as it is known to be over ``limit`` bytes:
    from its Content-Length before reading anything, or while reading a body sent in chunks."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "bad-request", "Content-Length is not a number", "header")
        if int(declared) > limit:
            raise ApiError(
                413,
                "too-large",
                f"body is {int(declared)} bytes, over the limit of {limit}",
                "body",
                "/",
            )
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(
                413, "too-large", f"body is over the limit of {limit} bytes", "body", "/"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _translation(exc: Exception) -> ApiError | None:
    """The answer to a library error that says what is wrong with the request, or None."""
    if isinstance(exc, LogFormatError):  # 400 not JSON, 413 too big, 422 not the document
        status = _BODY_STATUS.get(exc.code, 422)
        return ApiError(status, exc.code, exc.message, "body", exc.path or "/")
    if isinstance(exc, DuplicateHeader):  # two Authorization headers: neither counts
        return ApiError(400, DUPLICATE_HEADER, str(exc), "header", exc.name.lower())
    if isinstance(exc, StoreBusy):
        return ApiError(503, "busy", str(exc))
    if isinstance(exc, RateLimited):
        where = ("body", exc.path) if exc.path else ("header", "authorization")
        return ApiError(429, "rate-limited", str(exc), *where, {"Retry-After": str(exc.seconds)})
    if isinstance(exc, PlayerBanned):
        return ApiError(403, exc.code, str(exc), "body", "/player")
    if isinstance(exc, NoSuchSubmission | NotInQueue):
        return ApiError(404, exc.code, str(exc), "path", "id")
    return None


def install(
    app: FastAPI,
    watch: StoreWatch | ServerWatch,
    not_found: Callable[[Request], Response | None] | None = None,
) -> None:
    """Every error answers a ``cruel-error/1`` object. A database error is 503 with its code
    (``disk-full``, ``store-unavailable``, ``busy``), never a 500 with a traceback; all but a
    full disk and a lock start a check of the file (SQLite); PostgreSQL's lost connection or
    failed server is ``store-unavailable``. A 404 answers ``not_found(request)`` where that is
    a response (the pages' HTML 404, :func:`.pages.not_found_page`: passed in, as errors sit
    below pages)."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return error_response(exc)

    async def library_error(request: Request, exc: Exception) -> Response:
        found = _translation(exc)
        assert found is not None, f"no translation of {type(exc).__name__}"
        return error_response(found)

    library: tuple[type[Exception], ...] = (
        LogFormatError,
        StoreBusy,
        RateLimited,
        PlayerBanned,
        NoSuchSubmission,
        NotInQueue,
        DuplicateHeader,
    )
    for kind in library:
        app.add_exception_handler(kind, library_error)

    # One line per interval for the whole app, whatever the error: an outage fails every
    # request, and the operator needs to know it goes on, not each request (their access log
    # has those). On app.state so that a test can give it a clock.
    app.state.store_log = RateLimitedLog(logging.getLogger("uvicorn.error"), STORE_LOG_INTERVAL)
    _quiet_pool()

    async def store_error(request: Request, exc: Exception) -> Response:
        code, message = watch.on_error(exc)
        request.app.state.store_log.warning(f"store error, answered 503 {code}: {message}")
        metrics = getattr(request.app.state, "metrics", None)  # service/metrics.py
        if metrics is not None:
            metrics.store_error(code)
        return error_response(ApiError(503, code, message, headers={"Retry-After": "10"}))

    for engine_error in database_errors():
        app.add_exception_handler(engine_error, store_error)

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, exc: RequestValidationError) -> Response:
        err = exc.errors()[0]
        where, *rest = err["loc"] or ("query",)
        name = ".".join(str(p) for p in rest)
        message = f"{name}: {err['msg']}" if name else str(err["msg"])
        return error_response(ApiError(422, "bad-parameter", message, str(where), name))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and not_found is not None:  # a page path: the HTML 404 page
            page = not_found(request)
            if page is not None:
                return page
        codes = {404: "not-found", 405: "method-not-allowed"}
        code = codes.get(exc.status_code, "http-error")
        message = f"{request.method} {request.url.path}: {exc.detail}"
        response = error_response(ApiError(exc.status_code, code, message))
        response.headers.update(exc.headers or {})
        return response

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        message = f"cruel-tools failed on this request ({type(exc).__name__}); please report it"
        return error_response(ApiError(500, "internal-error", message))


#: psycopg's pool: every failed attempt to reconnect is a warning of several lines, twice per
#: attempt, attempts a few seconds apart while the server is down (issue #24).
POOL_LOG: Final = RateLimitedLog(logging.getLogger("psycopg.pool"), STORE_LOG_INTERVAL)


class _PoolFilter(logging.Filter):
    """On psycopg's pool logger: its warnings share :data:`POOL_LOG`'s interval, each on one
    line (the server's message may run over several)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        suffix = POOL_LOG.allow()
        if suffix is None:
            return False
        text = " ".join(record.getMessage().split())
        record.msg, record.args = f"{text}{suffix}", ()
        return True


@functools.cache
def _quiet_pool() -> None:
    """Install :class:`_PoolFilter` once per process (every app of a process shares it)."""
    logging.getLogger("psycopg.pool").addFilter(_PoolFilter())
