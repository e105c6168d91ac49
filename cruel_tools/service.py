"""``cruel serve``: the HTTP service for daily-puzzle sites, a thin layer over the library.

Every answer is made by a library call (:mod:`cruel_tools.verify`, :mod:`cruel_tools.puzzles`,
:mod:`cruel_tools.leaderboard`); this module only reads requests, bounds them, and maps results
and errors to HTTP. Every error, of ours or of a client's, is one ``cruel-error/1`` object.
See ``docs/service.md``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import math
import os
import time
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson
from fastapi import FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import analysis
from .api import ErrorResponse, Health, HealthProblem
from .attempts import AttemptRequest, AttemptStarted, parse_attempt
from .constants import (
    CHECK_INTERVAL,
    DB_TIMEOUT,
    DEFAULT_DB,
    KEY_BURST,
    KEY_RATE,
    MAX_BODY,
    PLAYER_BURST,
    PLAYER_RATE,
)
from .dates import BadDate, parse_date
from .engine import engine_line, engine_name
from .errors import CruelError
from .grading import Tier
from .guard import QuietClientFailures, die_with_parent
from .integrity import StoreWatch
from .keys import MODERATE_ROLES, SUBMIT_ROLES, ApiKey, KeyStore, RateLimit, TokenBuckets
from .leaderboard import MAX_PAGE, Leaderboard, Order
from .log import GameLog, Limits, LogFormatError, load
from .moderation import AuditLog, Moderation, ModerationRequest, ModerationResult, NoSuchSubmission
from .names import PlayerNameError, enforce
from .puzzles import (
    DailyPuzzles,
    PastDays,
    PublicPuzzle,
    Puzzle,
    PuzzleSet,
    PuzzleSolution,
    day_is_open,
    entry_log,
    is_open,
    public,
    published_solution,
    solution_from,
    solution_is_public,
)
from .records import record_from_store
from .render import ReplayDocument, replay_json
from .stats import Record
from .store import ServerWatch, StoreBusy, StoreError, database_errors
from .stores import open_stores
from .submissions import Submission, SubmissionResult, judge, parse_submission
from .verify import VerifyReport, report_json, verify

#: The most days ``GET /v1/puzzles/past`` lists at once.
MAX_PAST_DAYS: Final = 31

#: ``POST /v1/analyze``: most positions one solve may expand (the ``max_states`` query parameter,
#: at most this), and all the solves of one request together (docs/service.md): about 4 s of
#: one core at worst. Positions, not seconds, so that an answer is the same on every machine.
ANALYZE_MAX_STATES: Final = analysis.MAX_STATES
ANALYZE_TOTAL_STATES: Final = 4 * analysis.MAX_STATES

#: HTTP status of each way a body can fail to be read (cruel_tools.log error codes).
_BODY_STATUS: Final = {"not-json": 400, "too-large": 413}

# Path parameters are named ``id``, as the routes are documented: /v1/puzzles/{id}.
PuzzleId = Annotated[str, PathParam(max_length=200, description="A puzzle id.")]


class ApiError(Exception):
    """A request we refuse, answered as an :class:`ErrorResponse`.

    Not a :class:`~cruel_tools.errors.CruelError`: it is an HTTP answer, raised and caught
    inside this module, for any status (503 busy and 500 internal errors too); the library's
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


class UnknownZone(CruelError):
    """A time zone that is not an IANA name known on this machine (``cruel serve --tz``)."""

    code = "unknown-zone"


def time_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``UTC``, ``Europe/Paris``); :class:`UnknownZone` if there is
    none by that name."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # ValueError: "../x", "/etc/x", ""
        raise UnknownZone(
            f"unknown time zone {name!r} (use an IANA name, like UTC or Europe/Paris)"
        ) from None


def _now(zone: ZoneInfo) -> dt.datetime:
    """The time now in ``zone`` (a test sets the clock here)."""
    return dt.datetime.now(zone)


#: Default rate limits of submissions (``cruel serve --rate-key/--burst-key``, ``--rate-player/
#: --burst-player``): a key's buckets are its site's, a player's are shared by every key.
KEY_LIMIT: Final = RateLimit(rate=KEY_RATE, burst=KEY_BURST)
PLAYER_LIMIT: Final = RateLimit(rate=PLAYER_RATE, burst=PLAYER_BURST)
#: The bucket of keyless submissions, all of them, on an ``--open`` server.
OPEN_BUCKET: Final = "open"

#: Where ``cruel serve --workers N`` passes its settings to the worker processes.
ENV_SETTINGS: Final = "CRUEL_SERVE_SETTINGS"
APP_FACTORY: Final = "cruel_tools.service:app_from_env"


@dataclass
class Settings:
    """What ``cruel serve`` is told to serve."""

    puzzles: Path = Path("puzzles")
    #: The store: an SQLite file's path, or a ``postgresql://user@host:port/dbname`` URL.
    db: Path | str = Path(DEFAULT_DB)
    max_body: int = MAX_BODY
    max_moves: int = Limits().max_moves
    #: Seconds a submission waits for a database locked by another process (then 503).
    db_timeout: float = DB_TIMEOUT
    #: Seconds between two integrity checks of the database file (docs/service.md, Integrity).
    check_interval: float = CHECK_INTERVAL
    #: The server's date (puzzles up to it are open, solutions of earlier ones public); None:
    #: the date now in ``tz``.
    fixed_today: dt.date | None = None
    #: The IANA time zone whose dates open puzzles (a puzzle opens at the start of its date).
    tz: str = "UTC"
    #: Take submissions without an API key (demos): ``cruel serve --open``.
    open: bool = False
    #: Submissions each key may send (its token bucket); None: no limit.
    key_limit: RateLimit | None = KEY_LIMIT
    #: Submissions each player name may get, from all keys together; None: no limit.
    player_limit: RateLimit | None = PLAYER_LIMIT
    #: Seconds, for the rate limits' buckets (a test sets its own clock here; not sent to workers).
    clock: Callable[[], float] = field(default=time.monotonic, repr=False, compare=False)
    #: The server's time of attempts' starts and submissions' arrivals (a test sets its own).
    wall_clock: Callable[[], dt.datetime] = field(
        default=lambda: dt.datetime.now(dt.UTC), repr=False, compare=False
    )

    def today(self) -> dt.date:
        return self.fixed_today or _now(time_zone(self.tz)).date()

    @property
    def limits(self) -> Limits:
        return Limits(max_bytes=self.max_body, max_moves=self.max_moves)

    def to_env(self) -> str:
        return orjson.dumps(
            {
                "puzzles": str(self.puzzles),
                "db": str(self.db),
                "max_body": self.max_body,
                "max_moves": self.max_moves,
                "db_timeout": self.db_timeout,
                "check_interval": self.check_interval,
                "fixed_today": self.fixed_today.isoformat() if self.fixed_today else None,
                "tz": self.tz,
                "open": self.open,
                "key_limit": _limit_doc(self.key_limit),
                "player_limit": _limit_doc(self.player_limit),
            }
        ).decode()

    @classmethod
    def from_env(cls, text: str) -> Settings:
        doc = orjson.loads(text)
        day = doc.pop("fixed_today")
        key_limit, player_limit = doc.pop("key_limit"), doc.pop("player_limit")
        return cls(
            **{**doc, "puzzles": Path(doc["puzzles"])},
            fixed_today=parse_date(day) if day else None,
            key_limit=RateLimit(**key_limit) if key_limit else None,
            player_limit=RateLimit(**player_limit) if player_limit else None,
        )


def _limit_doc(limit: RateLimit | None) -> dict[str, float] | None:
    return {"rate": limit.rate, "burst": limit.burst} if limit else None


def app_from_env() -> FastAPI:
    """The app of one ``cruel serve --workers N`` process, from the settings its parent set."""
    die_with_parent()  # a worker never outlives its supervisor (issue #13)
    return create_app(Settings.from_env(os.environ[ENV_SETTINGS]))


def _json(model: BaseModel, status: int = 200) -> Response:
    return Response(
        orjson.dumps(model.model_dump(mode="json")), status, media_type="application/json"
    )


def _error_response(exc: ApiError) -> Response:
    response = _json(exc.body, exc.body.status)
    response.headers.update(exc.headers)
    return response


def _format_error(exc: LogFormatError) -> ApiError:
    """A body that is not the document it should be: 400 not JSON, 413 too big, 422 otherwise."""
    status = _BODY_STATUS.get(exc.code, 422)
    return ApiError(status, exc.code, exc.message, "body", exc.path or "/")


async def _read_body(request: Request, limit: int) -> bytes:
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


def _body_doc(name: str) -> dict[str, Any]:
    """OpenAPI for a body read by our own parser (so the route declares no body parameter)."""
    ref = {"$ref": f"#/components/schemas/{name}-Input"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


#: Request bodies documented in the OpenAPI document, by the name used in _body_doc.
_BODIES: Final[dict[str, type[BaseModel]]] = {
    "GameLog": GameLog,
    "Submission": Submission,
    "AttemptRequest": AttemptRequest,
}
_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        400: "Malformed JSON",
        404: "Not found, or not open yet (puzzle-not-open)",
        413: "Body over the size limit",
        422: "Not the expected document (the path names the field)",
        503: "The database stayed locked too long (busy: retry), cannot be used "
        "(store-unavailable), or its disk is full (disk-full)",
    }.items()
}
#: The answers only a write (a route that needs a key) gives.
_WRITE_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        401: "No API key (missing-key), not one (bad-key), or a revoked one (revoked-key); with "
        "WWW-Authenticate: Bearer",
        403: "A key whose role may not do this (wrong-role), or a banned player (player-banned)",
        429: "Too many submissions from this key or for this player (rate-limited); with "
        "Retry-After, in whole seconds",
    }.items()
}
#: The security scheme of a write, in the OpenAPI document.
_BEARER: Final = "apiKey"


def _openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = build()
        components = doc.setdefault("components", {}).setdefault("schemas", {})
        for name, model in _BODIES.items():
            schema = model.model_json_schema(ref_template="#/components/schemas/{model}-Input")
            for sub, body in schema.pop("$defs", {}).items():
                components[f"{sub}-Input"] = body
            components[f"{name}-Input"] = schema
        # A "$id" would make every "$ref" inside its component resolve against the id's URL.
        for body in components.values():
            body.pop("$id", None)
        doc["components"]["securitySchemes"] = {
            _BEARER: {
                "type": "http",
                "scheme": "bearer",
                "description": "An API key made by `cruel keys add` (docs/service.md).",
            }
        }
        app.openapi_schema = doc
        return doc

    return openapi


#: Media types of the web front end's files, by suffix: a file of another kind is not served.
_MEDIA: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}


def _web_files() -> dict[str, tuple[bytes, str]]:
    """The package's web folder (``cruel.js``, the pages, their scripts and styles), by name."""
    folder = files("cruel_tools") / "web"
    found: dict[str, tuple[bytes, str]] = {}
    for item in folder.iterdir():
        media = _MEDIA.get(Path(item.name).suffix)
        if media is not None and item.is_file():
            found[item.name] = (item.read_bytes(), media)
    return found


#: The files ``GET /static/{name}`` serves, by name: their bytes (read from the installed package
#: when the service module loads) and media type. A name not listed is a 404, so no request can
#: name a path.
STATIC: Final[dict[str, tuple[bytes, str]]] = _web_files()

#: The pages of the web front end (docs/web.md): route, and the file of :data:`STATIC` it answers.
#: Each page reads what it shows from the API, so one file serves every puzzle id.
PAGES: Final = {
    "/": "index.html",
    "/play/{id}": "play.html",
    "/replay": "replay.html",
    "/leaderboard/{id}": "leaderboard.html",
}

#: What the pages may load: nothing from another origin, no inline script, no framing. The
#: browser enforces it, so a page cannot leak a player's moves elsewhere even if a script tried.
_PAGE_POLICY: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
# /v1/docs: Swagger UI starts from an inline script; still nothing from another origin.
_DOCS_POLICY: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'"
)
#: The files of Swagger UI that ``/v1/docs`` loads, from the swagger-ui-bundle package.
_SWAGGER: Final = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
}


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _file_response(request: Request, body: bytes, media_type: str, policy: str | None) -> Response:
    """A file, revalidated on every use (``no-cache`` with an ETag: a 304 costs no body), so
    that a page and its scripts always come from the same release of the package."""
    tag = _etag(body)
    headers = {
        "Cache-Control": "no-cache",
        "ETag": tag,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    if policy is not None:
        headers["Content-Security-Policy"] = policy
    if request.headers.get("if-none-match") == tag:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


@functools.cache
def _swagger_file(name: str) -> bytes:
    # Read on first use, a megabyte no other route needs. The package has no type hints.
    import swagger_ui_bundle  # type: ignore[import-untyped]

    return bytes((swagger_ui_bundle.swagger_ui_path / name).read_bytes())


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service: puzzles read once from ``settings.puzzles``, leaderboards in ``settings.db``.

    Raises :class:`~cruel_tools.puzzles.PuzzleSetError` or
    :class:`~cruel_tools.store.StoreError` when either cannot be used, and
    :class:`UnknownZone` for an unknown ``settings.tz``.

    A dated puzzle exists for clients only from the start of its date in ``settings.tz``:
    before, every route about it answers exactly as for an id that does not exist.
    """
    settings = settings or Settings()
    time_zone(settings.tz)  # refused here, at start, not on the first request
    # Decided once, at start (CRUEL_ENGINE=native without the core is refused here): health
    # says which engine runs, so an operator sees a slow install (issue #22).
    engine, engine_words = engine_name(), engine_line()
    puzzles = PuzzleSet.load(settings.puzzles)
    stores = open_stores(settings.db, settings.db_timeout, settings.check_interval)
    boards, keys, attempts, moderation = (
        stores.boards,
        stores.keys,
        stores.attempts,
        stores.moderation,
    )
    watch = stores.watch
    try:
        watch.check_at_start()  # a damaged file is refused before anything is served from it
    except StoreError:
        stores.close()
        raise
    limits = settings.limits
    key_buckets, player_buckets = (
        TokenBuckets(limit, settings.clock) if limit else None
        for limit in (settings.key_limit, settings.player_limit)
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        watch.start()
        yield
        watch.stop()
        stores.close()

    app = FastAPI(
        title="cruel-tools",
        version=version("cruel-tools"),
        summary="Verify Cruel game logs, serve daily puzzles, keep leaderboards.",
        openapi_url="/v1/openapi.json",
        docs_url=None,  # /v1/docs is ours: Swagger UI served from this origin
        redoc_url=None,
        redirect_slashes=False,  # a redirect has no JSON body; a wrong path is a plain 404
        lifespan=lifespan,
        responses=_ERRORS,
    )
    app.openapi = _openapi(app)  # type: ignore[method-assign]
    _handle_errors(app)
    _handle_store_errors(app, watch)
    app.add_middleware(QuietClientFailures)  # a client's own failure is no traceback

    def puzzle_or_404(puzzle_id: str) -> Puzzle:
        """The puzzle, if it exists and is open; otherwise one 404 for both, whose words do not
        say which (no way to learn that a future puzzle exists, or its id)."""
        puzzle = puzzles.get(puzzle_id)
        if puzzle is None or not is_open(puzzle, settings.today()):
            raise ApiError(404, NOT_OPEN, _not_open(puzzle_id), "path", "id")
        return puzzle

    async def submitter(request: Request) -> Hashable:
        """Who sends this write: the id of a valid key whose role may submit (or, on an open
        server, :data:`OPEN_BUCKET` for no key); otherwise 401 or 403."""
        found = await _bearer_key(keys, request)
        if found is None:
            if settings.open:
                return OPEN_BUCKET
            raise _unauthorized(
                "missing-key", "submissions need an API key: Authorization: Bearer <key>"
            )
        if found.role not in SUBMIT_ROLES:
            raise ApiError(
                403,
                "wrong-role",
                f"an {found.role} key may not submit (only a site key may)",
                "header",
                "authorization",
            )
        return found.id

    @app.get("/v1/health", response_model=Health, responses={503: {"model": Health}})
    async def health() -> Response:
        """Liveness and what is being served; 503, with ``status`` and ``problem``, when the
        database cannot be used (docs/service.md, Integrity)."""
        try:
            count: int | None = await run_in_threadpool(boards.count, ServerWatch.HEALTH_TIMEOUT)
        except database_errors() as exc:
            watch.on_error(exc)
            count = None
        else:
            if isinstance(watch, ServerWatch):
                watch.succeeded()  # the server answers again
        problem = watch.problem()
        status = "ok" if problem is None else "unavailable"
        body = Health(
            status=status,
            version=version("cruel-tools"),
            engine=engine,
            engine_line=engine_words,
            today=settings.today(),
            puzzles=len(puzzles),
            submissions=count,
            problem=None if problem is None else HealthProblem(**dataclasses.asdict(problem)),
        )
        return _json(body, 200 if problem is None else 503)

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str, request: Request) -> Response:
        """A file of the package's web folder (``cruel.js``, the rules engine as an ES module,
        and the pages' scripts and styles; docs/web.md): only the names listed in
        :data:`STATIC`, read once, never a path."""
        found = STATIC.get(name)
        if found is None:
            raise ApiError(404, "not-found", f"no static file {name!r}")
        return _file_response(request, *found, policy=None)

    @app.get("/static/swagger/{name}", include_in_schema=False)
    async def swagger_file(name: str, request: Request) -> Response:
        """Swagger UI for ``/v1/docs``, served here: the docs load nothing from elsewhere."""
        media_type = _SWAGGER.get(name)
        if media_type is None:
            raise ApiError(404, "not-found", f"no static file {name!r}")
        return _file_response(request, _swagger_file(name), media_type, policy=None)

    @app.get("/v1/docs", include_in_schema=False)
    async def api_docs(request: Request) -> Response:
        """The API's reference (Swagger UI over /v1/openapi.json)."""
        page = get_swagger_ui_html(
            openapi_url="/v1/openapi.json",
            title="cruel-tools API",
            swagger_js_url="/static/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/swagger/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )
        return _file_response(request, bytes(page.body), "text/html; charset=utf-8", _DOCS_POLICY)

    def page_route(path: str, name: str) -> None:
        async def page(request: Request) -> Response:
            found = STATIC.get(name)
            if found is None:  # a package built without its pages
                raise ApiError(404, "not-found", f"no page {path}")
            return _file_response(request, *found, policy=_PAGE_POLICY)

        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)

    for path, name in PAGES.items():
        page_route(path, name)

    @app.post("/v1/verify", response_model=VerifyReport, openapi_extra=_body_doc("GameLog"))
    async def verify_log(request: Request) -> Response:
        """Verify a ``cruel-log/1`` game log: the report ``cruel verify --json`` prints.

        An illegal game is a report (200, ``valid`` false); a body that is not a log is an error.
        """
        body = await _read_body(request, settings.max_body)
        # Parsing and replaying run here, on the event loop: the limits bound them (a few ms for
        # the largest log), and a trip to a worker thread would cost more than most take.
        try:
            game_log = load(body, limits)
        except LogFormatError as exc:
            raise _format_error(exc) from None
        return Response(report_json(verify(game_log)), media_type="application/json")

    @app.post("/v1/replay", response_model=ReplayDocument, openapi_extra=_body_doc("GameLog"))
    async def replay_log(request: Request) -> Response:
        """Replay a ``cruel-log/1`` game log: what ``cruel replay --json`` prints for it, each
        step in words with the position after it, and the first illegal step, if any (the web
        replay shows these words, so that they are the CLI's)."""
        body = await _read_body(request, settings.max_body)
        try:
            game_log = load(body, limits)
        except LogFormatError as exc:
            raise _format_error(exc) from None
        # A position per step: for the longest log allowed, too long for the event loop.
        doc = await run_in_threadpool(replay_json, game_log)
        return Response(orjson.dumps(doc), media_type="application/json")

    @app.post("/v1/analyze", response_model=analysis.Analysis, openapi_extra=_body_doc("GameLog"))
    async def analyze_log(
        request: Request,
        max_states: Annotated[
            int,
            Query(
                ge=1,
                le=ANALYZE_MAX_STATES,
                description="Most positions each solve may expand; the request's solves expand "
                f"at most {ANALYZE_TOTAL_STATES} in all.",
            ),
        ] = ANALYZE_MAX_STATES,
    ) -> Response:
        """Analyse a ``cruel-log/1`` game log: what ``cruel analyze --json`` prints for it (never
        ``--deep``), within a budget of positions per request. A log that is not a legal game is
        a 422 with the verifier's error code and path (``wrong-rank``, ``bad-deal``, ...)."""
        body = await _read_body(request, settings.max_body)
        try:
            game_log = load(body, limits)
        except LogFormatError as exc:
            raise _format_error(exc) from None
        # Solves: CPU work bounded by the budget, on a worker thread, never on the event loop.
        try:
            result = await run_in_threadpool(
                functools.partial(
                    analysis.analyze,
                    game_log,
                    max_states=max_states,
                    total_states=ANALYZE_TOTAL_STATES,
                )
            )
        except analysis.AnalysisRefused as exc:
            error = exc.report.error
            code, message = (error.code, error.message) if error else (exc.code, str(exc))
            raise ApiError(422, code, message, "body", error.path if error else "/") from None
        return _json(result)

    @app.get("/v1/puzzles/daily/{date}", response_model=DailyPuzzles)
    async def daily(
        date: Annotated[
            str,
            PathParam(
                description="YYYY-MM-DD, or today (server time).",
                # Documents what _parse_day accepts (it checks, so that the error is bad-date).
                json_schema_extra={"anyOf": [{"format": "date"}, {"const": "today"}]},
            ),
        ],
        tier: Annotated[Tier | None, Query(description="Only this tier's puzzle.")] = None,
    ) -> Response:
        """One day's puzzles, without their solutions: none before the day begins (404
        ``puzzle-not-open``, whether or not it has puzzles)."""
        today = settings.today()
        day = _parse_day(date, lambda: today)
        if not day_is_open(day, today):
            raise ApiError(
                404, NOT_OPEN, f"the puzzles of {day.isoformat()} are not open yet", "path", "date"
            )
        found = puzzles.on(day, tier)
        if not found:
            which = f"{tier} puzzle" if tier else "puzzles"
            raise ApiError(404, "no-puzzles", f"no {which} for {day.isoformat()}", "path", "date")
        return _json(DailyPuzzles(date=day, puzzles=[public(p) for p in found]))

    @app.get("/v1/puzzles/past", response_model=PastDays)
    async def past(
        before: Annotated[
            str,
            Query(
                description="YYYY-MM-DD, or today (server time): list days before it.",
                json_schema_extra={"anyOf": [{"format": "date"}, {"const": "today"}]},
            ),
        ] = "today",
        limit: Annotated[int, Query(ge=1, le=MAX_PAST_DAYS, description="Days at most.")] = 7,
    ) -> Response:
        """The latest days with puzzles before a date, latest first, each with its puzzles
        (without solutions): what the front page lists as past days. Only open days are listed,
        so a ``before`` in the future lists no day that is not open yet; an empty list is an
        answer, not an error."""
        today = settings.today()
        day = _parse_day(before, lambda: today, "query", "before")
        if day > today:  # no day after today is open: list from today on down
            day = today + dt.timedelta(days=1)
        days = [
            DailyPuzzles(date=d, puzzles=[public(p) for p in puzzles.on(d)])
            for d in puzzles.days_before(day, limit)
        ]
        return _json(PastDays(before=day, days=days))

    @app.get("/v1/puzzles/{id}", response_model=PublicPuzzle)
    async def get_puzzle(id: PuzzleId) -> Response:
        """One puzzle, without its solution."""
        return _json(public(puzzle_or_404(id)))

    @app.get(
        "/v1/puzzles/{id}/solution",
        response_model=PuzzleSolution,
        responses={403: {"model": ErrorResponse, "description": "Not public yet"}},
    )
    async def get_solution(id: PuzzleId) -> Response:
        """The par solution, as a game log: only once the puzzle's date is past (server time)."""
        puzzle = puzzle_or_404(id)
        if not solution_is_public(puzzle, settings.today()):
            public_from = solution_from(puzzle)
            when = f"published on {public_from}" if public_from else "never published (no date)"
            raise ApiError(
                403,
                "solution-not-public",
                f"the solution of {puzzle.id} is {when}",
                "path",
                "id",
            )
        return _json(published_solution(puzzle))

    @app.get(
        "/v1/puzzles/{id}/submissions/{submission_id}/log",
        response_model=GameLog,
        responses={403: {"model": ErrorResponse, "description": "The puzzle is still open"}},
    )
    async def entry_game(
        id: PuzzleId,
        submission_id: Annotated[int, PathParam(ge=1, le=2**62, description="From an entry.")],
    ) -> Response:
        """A leaderboard entry's game, as a ``cruel-log/1`` log (the player in ``meta``): only
        once the puzzle is closed (its solution public), so that no one can copy a win while
        the puzzle still takes entries. A hidden entry is not found."""
        puzzle = puzzle_or_404(id)
        if not solution_is_public(puzzle, settings.today()):
            raise ApiError(
                403,
                "puzzle-not-closed",
                f"the games of {puzzle.id} are shown once it closes ({solution_from(puzzle)})",
                "path",
                "id",
            )
        found = await run_in_threadpool(boards.entry_moves, puzzle.id, submission_id)
        if found is None:
            raise ApiError(
                404,
                "unknown-submission",
                f"{puzzle.id} has no listed entry {submission_id}",
                "path",
                "submission_id",
            )
        player, moves = found
        return Response(
            orjson.dumps(entry_log(puzzle, moves, player)), media_type="application/json"
        )

    @app.post(
        "/v1/puzzles/{id}/submissions",
        response_model=SubmissionResult,
        status_code=201,
        responses={
            200: {"model": SubmissionResult, "description": "Rejected, or a duplicate"},
            **_WRITE_ERRORS,
        },
        openapi_extra={**_body_doc("Submission"), "security": [{_BEARER: []}]},
    )
    async def submit(id: PuzzleId, request: Request) -> Response:
        """Verify a player's log against the puzzle; a legal win goes on the leaderboard.

        Needs a site's API key (``Authorization: Bearer <key>``), unless the server is open.
        201: a new entry. 200: a verdict without a new entry (rejected, or already there).
        """
        arrived_at = settings.wall_clock()  # a server-timed attempt ends here
        sender = await submitter(request)
        _throttle(key_buckets, sender, "from this key", "header", "authorization")
        puzzle = puzzle_or_404(id)
        body = await _read_body(request, settings.max_body)
        try:
            submission = parse_submission(body, limits)
        except LogFormatError as exc:
            raise _format_error(exc) from None
        await _refuse_banned(moderation, submission.player)
        _throttle(player_buckets, submission.player, "for this player", "body", "/player")
        judgement = judge(puzzle, submission, settings.today())
        if submission.attempt is not None:
            claim = attempts.use(
                submission.attempt, puzzle.id, submission.player, sender, arrived_at
            )
            judgement = dataclasses.replace(judgement, attempt=claim)
        # Verifying runs on the event loop (the limits bound it); the database's work runs in a
        # worker thread, so that no write, and no wait for another process, holds up the loop.
        try:
            result = await run_in_threadpool(boards.store, judgement, arrived_at)
        except StoreBusy as exc:
            raise ApiError(503, "busy", str(exc)) from None
        created = result.accepted and not result.duplicate
        return _json(result, 201 if created else 200)

    @app.get("/v1/puzzles/{id}/leaderboard", response_model=Leaderboard)
    async def leaderboard(
        id: PuzzleId,
        limit: Annotated[int, Query(ge=0, le=MAX_PAGE, description="Entries per page.")] = 100,
        offset: Annotated[int, Query(ge=0, le=10**9, description="Entries to skip.")] = 0,
        best_per_player: Annotated[
            bool, Query(description="Rank only each player's best entry.")
        ] = False,
        by: Annotated[
            Order,
            Query(
                description="actions: fewest actions (card moves + redeals), then fewest "
                "redeals. time: only server-timed entries, fastest first (then fewest actions, "
                "redeals); equal times share a rank."
            ),
        ] = "actions",
    ) -> Response:
        """Accepted wins, fewest actions (card moves + redeals) first, then fewest redeals; equal
        scores share a rank (1, 1, 3, ...), listed earliest first. ``by=time``: server-timed
        wins, fastest first."""
        puzzle = puzzle_or_404(id)
        page = await run_in_threadpool(
            boards.leaderboard, puzzle.id, limit, offset, best_per_player, by
        )
        return _json(page)

    @app.post(
        "/v1/puzzles/{id}/attempts",
        response_model=AttemptStarted,
        status_code=201,
        responses=_WRITE_ERRORS,
        openapi_extra={**_body_doc("AttemptRequest"), "security": [{_BEARER: []}]},
    )
    async def start_attempt(id: PuzzleId, request: Request) -> Response:
        """Start a server-timed attempt of a player on an open puzzle: a submission naming its
        id is timed by the server, from now to its arrival. Keys, roles, rate limits (the
        submissions' buckets) and the embargo are those of submissions."""
        now = settings.wall_clock()
        sender = await submitter(request)
        _throttle(key_buckets, sender, "from this key", "header", "authorization")
        puzzle = puzzle_or_404(id)
        body = await _read_body(request, settings.max_body)
        try:
            asked = parse_attempt(body)
        except LogFormatError as exc:
            raise _format_error(exc) from None
        _throttle(player_buckets, asked.player, "for this player", "body", "/player")
        try:  # in a worker thread: a database held by another process is waited for there
            started = await run_in_threadpool(attempts.start, puzzle.id, asked.player, sender, now)
        except StoreBusy as exc:
            raise ApiError(503, "busy", str(exc)) from None
        return _json(started, 201)

    @app.get(
        "/v1/players/{name}",
        response_model=Record,
        responses={
            404: {"model": ErrorResponse, "description": "No such player (unknown-player)"},
            422: {"model": ErrorResponse, "description": "Not a player name (bad-player-name)"},
        },
    )
    async def player_record(
        name: Annotated[str, PathParam(description="A player name, as submitted.")],
    ) -> Response:
        """A player's record (the statistics panel of ``cruel stats``) from the store: their
        listed wins, and their server-timed attempts that won nothing (docs/service.md)."""
        try:
            player = enforce(name)  # the name as submissions store it
        except PlayerNameError as exc:
            raise ApiError(422, exc.code, str(exc), "path", "name") from None
        found = await run_in_threadpool(boards.player_games, player)
        if found is None:
            raise ApiError(
                404,
                "unknown-player",
                f"no player {player!r} has an entry or an attempt",
                "path",
                "name",
            )
        zone, today = time_zone(settings.tz), settings.today()
        return _json(record_from_store(player, found, puzzles.get, zone, today))

    _moderation_routes(app, keys, moderation)
    return app


#: The one answer for a puzzle that does not exist and one not open yet (and a day not begun).
NOT_OPEN: Final = "puzzle-not-open"


def _unauthorized(code: str, message: str) -> ApiError:
    """A 401: no usable key (RFC 6750's challenge in ``WWW-Authenticate``)."""
    return ApiError(401, code, message, "header", "authorization", {"WWW-Authenticate": "Bearer"})


def _throttle(
    buckets: TokenBuckets | None, key: Hashable, what: str, location: str, path: str
) -> None:
    """Take a token from ``key``'s bucket, or refuse the request: 429, with ``Retry-After``
    the whole seconds (at least 1) until the bucket has a token again."""
    if buckets is None:
        return
    wait = buckets.take(key)
    if wait > 0:
        seconds = max(1, math.ceil(wait - 1e-9))
        raise ApiError(
            429,
            "rate-limited",
            f"too many submissions {what}; retry in {seconds} s",
            location,
            path,
            {"Retry-After": str(seconds)},
        )


def _not_open(puzzle_id: str) -> str:
    return f"puzzle {puzzle_id!r} does not exist or is not open yet"


def _parse_day(
    text: str, today: Callable[[], dt.date], location: str = "path", name: str = "date"
) -> dt.date:
    """``today`` or a day as :func:`cruel_tools.dates.parse_date` reads it (and words its error,
    as the command line does)."""
    if text == "today":
        return today()
    try:
        return parse_date(text)
    except BadDate as exc:
        raise ApiError(422, exc.code, str(exc), location, name) from None


def _handle_errors(app: FastAPI) -> None:
    """Every error answers a ``cruel-error/1`` object, never a traceback."""

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> Response:
        return _error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, exc: RequestValidationError) -> Response:
        err = exc.errors()[0]
        where, *rest = err["loc"] or ("query",)
        name = ".".join(str(p) for p in rest)
        message = f"{name}: {err['msg']}" if name else str(err["msg"])
        return _error_response(ApiError(422, "bad-parameter", message, str(where), name))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        codes = {404: "not-found", 405: "method-not-allowed"}
        code = codes.get(exc.status_code, "http-error")
        message = f"{request.method} {request.url.path}: {exc.detail}"
        response = _error_response(ApiError(exc.status_code, code, message))
        response.headers.update(exc.headers or {})
        return response

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        message = f"cruel-tools failed on this request ({type(exc).__name__}); please report it"
        return _error_response(ApiError(500, "internal-error", message))


def _handle_store_errors(app: FastAPI, watch: StoreWatch | ServerWatch) -> None:
    """A database error is 503 with its code (``disk-full``, ``store-unavailable``, ``busy``),
    never a 500 with a traceback; all but a full disk and a lock start a check of the file
    (SQLite); PostgreSQL's lost connection or failed server is ``store-unavailable``."""

    async def store_error(request: Request, exc: Exception) -> Response:
        code, message = watch.on_error(exc)
        return _error_response(ApiError(503, code, message, headers={"Retry-After": "10"}))

    for kind in database_errors():
        app.add_exception_handler(kind, store_error)


# --- moderation (docs/service.md, Moderation) ----------------------------------------------------

#: Bound on a moderation request's body (``{"reason": ...}``).
MAX_MODERATION_BODY: Final = 16 * 1024

#: What a moderation route answers besides 200 and the common errors.
_ADMIN_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        401: "No API key (missing-key), not one (bad-key), or a revoked one (revoked-key); with "
        "WWW-Authenticate: Bearer",
        403: "A key whose role may not moderate (wrong-role: a site key)",
        404: "No such submission (no-such-submission), or it was deleted",
        503: "The database stayed locked too long (retry)",
    }.items()
}


def _moderation_body_doc() -> dict[str, Any]:
    """OpenAPI of a moderation request's optional body, and its security."""
    schema = ModerationRequest.model_json_schema()
    schema.pop("$id", None)
    content = {"application/json": {"schema": schema}}
    return {"requestBody": {"required": False, "content": content}, "security": [{_BEARER: []}]}


async def _refuse_banned(moderation: Moderation, player: str) -> None:
    """403 ``player-banned`` for a banned player's submission (before it is verified)."""
    if await run_in_threadpool(moderation.is_banned, player):
        message = f"player {player!r} is banned from the leaderboards"
        raise ApiError(403, "player-banned", message, "body", "/player")


async def _bearer_key(keys: KeyStore, request: Request) -> ApiKey | None:
    """The valid key in the request's ``Authorization: Bearer`` header, None when there is no
    such header; 401 for a header that is not a bearer key, an unknown key or a revoked one.
    The one reading of keys: each route then says which roles it takes."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, key = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise _unauthorized("bad-key", "the Authorization header is not 'Bearer <key>'")
    found = await run_in_threadpool(keys.find, key.strip())
    if found is None:
        raise _unauthorized("bad-key", "not an API key of this service")
    if found.revoked_at is not None:
        when = found.revoked_at.isoformat(timespec="seconds")
        raise _unauthorized("revoked-key", f"this API key (id {found.id}) was revoked at {when}")
    return found


async def _admin(keys: KeyStore, request: Request) -> ApiKey:
    """The valid admin key this request is sent with; otherwise 401 or 403 (never ``--open``)."""
    found = await _bearer_key(keys, request)
    if found is None:
        raise _unauthorized(
            "missing-key", "moderation needs an admin API key: Authorization: Bearer <key>"
        )
    if found.role not in MODERATE_ROLES:
        raise ApiError(
            403,
            "wrong-role",
            f"a {found.role} key may not moderate (only an admin key may)",
            "header",
            "authorization",
        )
    return found


async def _reason(request: Request) -> str | None:
    """The reason of a moderation request: its body is empty or ``{"reason": ...}``."""
    body = await _read_body(request, MAX_MODERATION_BODY)
    if not body.strip():
        return None
    try:
        return ModerationRequest.model_validate_json(body).reason
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        kind = err["type"]
        if kind == "json_invalid":
            message = f"not JSON: {err['ctx']['error']}"
            raise ApiError(400, "not-json", message, "body", "/") from None
        where = "/" + "/".join(str(p) for p in err["loc"])
        if kind == "model_type":
            message = 'a moderation request is a JSON object: {"reason": "..."}'
        elif kind == "extra_forbidden":
            message = f"unknown key {where[1:]!r} (a moderation request has only reason)"
        else:
            message = f"{where[1:]}: {err['msg']}"
        raise ApiError(422, "schema", message, "body", where) from None


def _submission_id(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise ApiError(
            404, "no-such-submission", f"no submission has the id {text!r}", "path", "id"
        )
    return int(text)


def _player(text: str) -> str:
    try:
        return enforce(text)
    except PlayerNameError as exc:
        raise ApiError(422, "bad-player-name", str(exc), "path", "name") from None


# Path parameters of the moderation routes (module level: FastAPI resolves them by name).
SubmissionId = Annotated[
    str, PathParam(description="A submission's id.", json_schema_extra={"pattern": "^[0-9]+$"})
]
PlayerPath = Annotated[str, PathParam(description="A player's name (URL-encoded).")]


def _moderation_routes(app: FastAPI, keys: KeyStore, moderation: Moderation) -> None:
    """The routes of ``/v1/admin``: each needs an admin key, checked first."""

    async def act(
        request: Request,
        do: Callable[[Any, ApiKey, str | None], ModerationResult],
        target: Callable[[], int | str],
    ) -> Response:
        """Check the key, then the target, then the body; then act, in a worker thread (a
        wait for the database does not hold up the event loop)."""
        key = await _admin(keys, request)
        what = target()
        reason = await _reason(request)
        try:
            result = await run_in_threadpool(do, what, key, reason)
        except NoSuchSubmission as exc:
            raise ApiError(404, exc.code, str(exc), "path", "id") from None
        except StoreBusy as exc:
            raise ApiError(503, "busy", str(exc)) from None
        return _json(result)

    def route(path: str, method: str = "POST") -> Callable[[Any], Any]:
        return app.api_route(
            path,
            methods=[method],
            response_model=ModerationResult,
            responses=_ADMIN_ERRORS,
            openapi_extra=_moderation_body_doc(),
        )

    @route("/v1/admin/submissions/{id}/hide")
    async def hide(id: SubmissionId, request: Request) -> Response:
        """Hide a submission: it is kept, and listed on no leaderboard."""
        return await act(request, moderation.hide, lambda: _submission_id(id))

    @route("/v1/admin/submissions/{id}/unhide")
    async def unhide(id: SubmissionId, request: Request) -> Response:
        """List a hidden submission again (unless its player is banned)."""
        return await act(request, moderation.unhide, lambda: _submission_id(id))

    @route("/v1/admin/submissions/{id}", "DELETE")
    async def delete(id: SubmissionId, request: Request) -> Response:
        """Delete a submission for good; the audit log keeps all it was."""
        return await act(request, moderation.delete, lambda: _submission_id(id))

    @route("/v1/admin/players/{name}/ban")
    async def ban(name: PlayerPath, request: Request) -> Response:
        """Ban a player: their entries leave every leaderboard, their submissions are 403."""
        return await act(request, moderation.ban, lambda: _player(name))

    @route("/v1/admin/players/{name}/unban")
    async def unban(name: PlayerPath, request: Request) -> Response:
        """Lift a ban: the player's entries (those not hidden) are listed again."""
        return await act(request, moderation.unban, lambda: _player(name))

    @app.get(
        "/v1/admin/audit",
        response_model=AuditLog,
        responses={s: _ADMIN_ERRORS[s] for s in (401, 403, 503)},
        openapi_extra={"security": [{_BEARER: []}]},
    )
    async def audit(
        request: Request,
        limit: Annotated[int, Query(ge=0, le=MAX_PAGE, description="Acts per page.")] = 100,
        offset: Annotated[int, Query(ge=0, le=10**9, description="Acts to skip.")] = 0,
    ) -> Response:
        """The audit log of moderation, newest act first."""
        await _admin(keys, request)
        try:
            return _json(await run_in_threadpool(moderation.audit, limit, offset))
        except StoreBusy as exc:
            raise ApiError(503, "busy", str(exc)) from None
