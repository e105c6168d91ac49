"""The FastAPI app of ``cruel serve``: :func:`create_app` opens the puzzles and the stores and
includes one router per area of the API (docs/service.md)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from typing import Final

from fastapi import FastAPI

from ..engine import engine_line, engine_name
from ..guard import QuietClientFailures, die_with_parent
from ..keys import TokenBuckets
from ..puzzles import PuzzleSet
from ..store import StoreError
from ..stores import Stores, open_stores
from . import (
    attempts,
    boards,
    errors,
    health,
    logs,
    moderation,
    pages,
    players,
    puzzles,
    submissions,
)
from .config import ENV_SETTINGS, Settings, time_zone
from .context import Context
from .costly import CostlyGate
from .help_guard import HelpGuard
from .metrics import Metrics, MetricsMiddleware
from .metrics import router as metrics_router
from .openapi import ERRORS, customize

__all__ = ["APP_FACTORY", "create_app", "app_from_env"]

#: What ``cruel serve --workers N`` tells uvicorn to call in each worker process.
APP_FACTORY: Final = "cruel_tools.service:app_from_env"


def create_app(settings: Settings | None = None, stores: Stores | None = None) -> FastAPI:
    """The service: puzzles read once from ``settings.puzzles``, leaderboards in ``stores``
    (by default :func:`~cruel_tools.stores.open_stores` of ``settings.db``; the app closes
    them when it stops, whoever opened them).

    Raises :class:`~cruel_tools.puzzles.PuzzleSetError` or
    :class:`~cruel_tools.store.StoreError` when either cannot be used, and
    :class:`~cruel_tools.service.config.UnknownZone` for an unknown ``settings.tz``.

    A dated puzzle exists for clients only from the start of its date in ``settings.tz``:
    before, every route about it answers exactly as for an id that does not exist.
    """
    settings = settings or Settings()
    time_zone(settings.tz)  # refused here, at start, not on the first request
    # Decided once, at start (CRUEL_ENGINE=native without the core is refused here): health
    # says which engine runs, so an operator sees a slow install (issue #22).
    engine, engine_words = engine_name(), engine_line()
    puzzle_set = PuzzleSet.load(settings.puzzles)
    if settings.demo and puzzle_set.dates:  # the demo set's dates, served as a cycle
        settings.demo_dates = (puzzle_set.dates[0], puzzle_set.dates[-1])
    if stores is None:
        stores = open_stores(settings.db, settings.db_timeout, settings.check_interval)
    try:
        stores.watch.check_at_start()  # a damaged file is refused before anything is served
    except StoreError:
        stores.close()
        raise
    stores.attempts.policy = settings.policy  # the stated timeout and speed floor
    key_buckets, player_buckets = (
        TokenBuckets(limit, settings.clock) if limit else None
        for limit in (settings.key_limit, settings.player_limit)
    )
    ctx = Context(settings, puzzle_set, stores, key_buckets, player_buckets)
    watch = stores.watch
    gate = CostlyGate(settings)  # analyses: rate limits, a cap, their own process

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        watch.start()
        yield
        gate.close()
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
        responses=ERRORS,
    )
    app.openapi = customize(app)  # type: ignore[method-assign]
    errors.install(app, watch)
    app.add_middleware(QuietClientFailures)  # a client's own failure is no traceback
    # Outermost: every request is counted and timed, whatever answers it (docs/service.md, Metrics).
    metrics = Metrics(engine)
    app.state.metrics = metrics
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    # In this order: a path is matched by the first route that takes it (/v1/puzzles/past
    # before /v1/puzzles/{id}), and the OpenAPI document lists the paths so.
    app.include_router(health.router(ctx, engine, engine_words))
    app.include_router(pages.router())
    app.include_router(metrics_router(ctx, metrics))
    # The help guard's canonical deals are computed here, once: a request's check is a lookup.
    # Every router that helps towards a win (analyze; hints, issue #27) is given this one.
    guard = HelpGuard(ctx)
    app.include_router(logs.router(ctx, guard, gate))
    app.include_router(puzzles.router(ctx))
    app.include_router(submissions.router(ctx))
    app.include_router(attempts.router(ctx))
    app.include_router(boards.router(ctx))
    app.include_router(moderation.router(ctx))
    app.include_router(players.router(ctx))
    return app


def app_from_env() -> FastAPI:
    """The app of one ``cruel serve --workers N`` process, from the settings its parent set."""
    die_with_parent()  # a worker never outlives its supervisor (issue #13)
    return create_app(Settings.from_env(os.environ[ENV_SETTINGS]))
