"""``GET /v1/health``: liveness, what is served, and what is wrong with the store."""

from __future__ import annotations

import dataclasses
from importlib.metadata import version

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..api import Health, HealthProblem, Publishing
from ..site.database import ServerWatch, database_errors
from ..site.publishing import Publisher
from .context import Context
from .errors import json_response

__all__ = ["router"]


def router(
    ctx: Context, engine: str, engine_words: str, publisher: Publisher | None = None
) -> APIRouter:
    """Health; ``engine`` and ``engine_words``: which engine runs, decided at start;
    ``publisher``: the days published ahead (docs/service.md, Publishing ahead)."""
    router = APIRouter()
    watch = ctx.stores.watch

    @router.get("/v1/health", response_model=Health, responses={503: {"model": Health}})
    async def health() -> Response:
        """Liveness and what is being served; 503, with ``status`` and ``problem``, when the
        database cannot be used (docs/service.md, Integrity); ``degraded`` (200), with
        ``reasons``, when today's puzzles or days ahead are missing (Publishing ahead)."""
        try:
            count: int | None = await run_in_threadpool(
                ctx.stores.boards.count, ServerWatch.HEALTH_TIMEOUT
            )
        except database_errors() as exc:
            watch.on_error(exc)
            count = None
        else:
            if isinstance(watch, ServerWatch):
                watch.succeeded()  # the server answers again
        problem = watch.problem()
        publishing, reasons = None, []
        if publisher is not None:
            now = publisher.status()
            publishing = Publishing(
                stream=now.stream,
                ahead=now.ahead,
                days_ready=now.days_ready,
                today_ready=now.today_ready,
                generating=now.generating,
                last_seconds=None if now.last_seconds is None else round(now.last_seconds, 3),
            )
            reasons = now.reasons()
        status = "unavailable" if problem is not None else "degraded" if reasons else "ok"
        body = Health(
            status=status,
            version=version("cruel-tools"),
            engine=engine,
            engine_line=engine_words,
            today=ctx.settings.today(),
            puzzles=len(ctx.puzzles),
            submissions=count,
            problem=None if problem is None else HealthProblem(**dataclasses.asdict(problem)),
            reasons=reasons,
            publishing=publishing,
        )
        return json_response(body, 200 if problem is None else 503)

    return router
