"""The FastAPI app of ``cruel serve``: :func:`create_app` opens the puzzles and the stores and
includes one router per area of the API (docs/service.md)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib.metadata import version
from typing import Final

from fastapi import FastAPI

from ..game.engine import engine_line, engine_name
from ..memory import given
from ..puzzles import PuzzleSet
from ..site.attempts import Sweeper
from ..site.database import StoreError
from ..site.keys import TokenBuckets
from ..site.publishing import GenerationLock, PublishedDays, Publisher, Stream, read_secret
from ..site.stores import Stores, open_stores
from . import (
    attempts,
    boards,
    errors,
    health,
    hints,
    moderation,
    pages,
    players,
    puzzles,
    rules,
    submissions,
)
from . import log_tools as logs
from . import metrics as metrics_area
from .config import ENV_SETTINGS, Settings, time_zone
from .connections import QuietClientFailures, die_with_parent
from .context import Context
from .costly import CostlyGate
from .embedding import EmbedOrigins
from .help_guard import HelpGuard
from .metrics import Metrics, MetricsMiddleware
from .openapi import ERRORS, customize
from .replaying import replay_gate

__all__ = ["APP_FACTORY", "create_app", "app_from_env"]

#: What ``cruel serve --workers N`` tells uvicorn to call in each worker process.
APP_FACTORY: Final = "cruel_tools.service:app_from_env"


#: The routers, in this order: a path is matched by the first route that takes it
#: (/v1/puzzles/past before /v1/puzzles/{id}), and the OpenAPI document lists the paths so.
_AREAS: Final = (
    health,
    pages,
    metrics_area,
    logs,
    hints,
    puzzles,
    submissions,
    attempts,
    boards,
    moderation,
    players,
    rules,
)


def create_app(settings: Settings | None = None, stores: Stores | None = None) -> FastAPI:
    """The service: puzzles read once from ``settings.puzzles``, leaderboards in ``stores``
    (by default :func:`~cruel_tools.site.stores.open_stores` of ``settings.db``; the app closes
    them when it stops, whoever opened them).

    Raises :class:`~cruel_tools.puzzles.PuzzleSetError` or
    :class:`~cruel_tools.site.database.StoreError` when either cannot be used, and
    :class:`~cruel_tools.service.config.UnknownZone` for an unknown ``settings.tz``.

    A dated puzzle exists for clients only from the start of its date in ``settings.tz``:
    before, every route about it answers exactly as for an id that does not exist.
    """
    settings = settings or Settings()
    time_zone(settings.tz)  # refused here, at start, not on the first request
    # Decided once, at start (CRUEL_ENGINE=native without the core is refused here): health
    # says which engine runs, so an operator sees a slow install (issue #22).
    engine, engine_words = engine_name(), engine_line()
    # A site (a secret) whose lookup fell to the demo set serves none of it: its days are
    # published into the database (issue #34).
    site_only = settings.demo and not settings.demo_cycle
    puzzle_set = PuzzleSet([]) if site_only else PuzzleSet.load(settings.puzzles)
    if settings.demo_cycle and puzzle_set.dates:  # the demo set's dates, served as a cycle
        settings.demo_dates = (puzzle_set.dates[0], puzzle_set.dates[-1])
    if stores is None:
        # The one command that makes a site's database (the others refuse one not there).
        stores = open_stores(settings.db, settings.db_timeout, settings.check_interval, create=True)
    try:
        stores.watch.check_at_start()  # a damaged file is refused before anything is served
    except StoreError:
        stores.close()
        raise
    stores.attempts.policy = settings.policy  # the stated timeout, speed floor and bounds
    # Abandoned attempts' steps deleted past --keep-steps (issue #33), in every process.
    sweeper = Sweeper(stores.attempts, settings.wall_clock, settings.sweep_interval)
    publisher = _publisher(settings, puzzle_set, stores)
    key_buckets, player_buckets = (
        TokenBuckets(limit, settings.clock) if limit else None
        for limit in (settings.key_limit, settings.player_limit)
    )
    ctx = Context(settings, puzzle_set, stores, key_buckets, player_buckets)
    watch = stores.watch
    gate = CostlyGate(settings)  # analyses: rate limits, a cap, their own process
    gate.hints()  # hints: the analyses' rate limits; places and processes of their own
    replays = replay_gate(settings)  # replays: a rate limit, a cap, their own processes
    stores.players.max_tokens = settings.max_tokens

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        watch.start()
        publisher.start()
        sweeper.start()
        yield
        sweeper.stop()
        publisher.stop()
        gate.close()
        replays.close()
        watch.stop()
        stores.close()

    app = _bare_app(lifespan)
    errors.install(app, watch, pages.not_found_page)
    if settings.embed_origins:  # CORS for other sites' pages (--embed-origin); else none at all
        app.add_middleware(EmbedOrigins, origins=settings.embed_origins)
    app.add_middleware(QuietClientFailures)  # a client's own failure is no traceback
    _measured(app, engine, publisher)
    app.state.publisher = publisher  # cruel serve's start-up line says what it will publish
    # What the routers' dependencies read (.deps): one app's state, never a module's.
    app.state.context = ctx
    app.state.engine = (engine, engine_words)
    app.state.analyses, app.state.replays = gate, replays
    app.state.player_limits = players.PlayerLimits(settings)
    # The help guard's canonical deals are computed here, once: a request's check is a lookup.
    # Every route that helps towards a win (analyze; hints, issue #27) checks with this one.
    app.state.guard = guard = HelpGuard(ctx)
    publisher.on_new = guard.embargo.add  # a day published ahead gets no help until it closes
    for area in _AREAS:
        app.include_router(area.router)
    return app


def _bare_app(lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]]) -> FastAPI:
    """The app without its routes: its OpenAPI document's head and common answers."""
    app = FastAPI(
        title="cruel-tools",
        version=version("cruel-tools"),
        summary="Verify Cruel game logs, serve daily puzzles, keep leaderboards.",
        openapi_url="/v1/openapi.json",
        docs_url=None,  # /v1/docs is ours: Swagger UI served from this origin
        redoc_url=None,
        redirect_slashes=False,  # a redirect has no JSON body; a wrong path is a plain 404
        lifespan=lifespan,
        responses=ERRORS,
    )
    app.openapi = customize(app)  # type: ignore[method-assign]
    return app


def _measured(app: FastAPI, engine: str, publisher: Publisher) -> None:
    """The app's metrics (``app.state.metrics``), counted by the outermost middleware: every
    request is counted and timed, whatever answers it (docs/service.md, Metrics)."""
    metrics = Metrics(engine)
    app.state.metrics = metrics
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    publisher.on_days_ready, publisher.on_generated = (
        metrics.set_days_ready,
        metrics.observe_generation,
    )
    metrics.set_days_ready(publisher.status().days_ready)


def _publisher(settings: Settings, puzzle_set: PuzzleSet, stores: Stores) -> Publisher:
    """The days published ahead into ``puzzle_set`` (docs/service.md, Publishing ahead), in the
    stores' database (PostgreSQL: their pool), from the secret's stream, the public one
    (``--open`` without a secret) or none. Days published from another stream are refused
    (``secret-mismatch``); an unreadable or weak secret too (the command line says it first)."""
    database = stores.shared or stores.boards.database
    try:
        secret = None if settings.secret_file is None else read_secret(settings.secret_file)
        stream: Stream = "secret" if secret else "public" if settings.open else "none"
        # The packaged demo set is served as a cycle of its own dates: no day to make.
        if settings.demo_cycle:
            stream = "none"
        store = PublishedDays(database)
        lock = None if stream == "none" else GenerationLock(database.target)
        publisher = Publisher(
            store,
            puzzle_set,
            settings.today,
            0 if settings.demo_cycle else settings.ahead,
            secret,
            stream,
            lock,
            poll=settings.publish_poll,
            budget=given(settings.publish_memory, "--publish-memory").grading(),
        )
        publisher.check_stream()
        publisher.refresh()  # the days published so far are served from the first request
    except BaseException:
        stores.close()
        raise
    return publisher


def app_from_env() -> FastAPI:
    """The app of one ``cruel serve --workers N`` process, from the settings its parent set."""
    die_with_parent()  # a worker never outlives its supervisor (issue #13)
    return create_app(Settings.from_env(os.environ[ENV_SETTINGS]))
