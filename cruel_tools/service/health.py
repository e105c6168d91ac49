"""``GET /v1/health``: liveness, what is served, and what is wrong with the store."""

from __future__ import annotations

import dataclasses
from importlib.metadata import version
from typing import Annotated, cast

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..api import Health, HealthProblem, Publishing
from ..site.database import ServerWatch, database_errors
from ..site.publishing import Publisher
from .deps import Ctx, publisher
from .errors import json_response

__all__ = ["router", "engine", "health"]


router = APIRouter(prefix="/v1")


async def engine(request: Request) -> tuple[str, str]:
    """Which engine runs, and in words: decided once, at start (health says so, issue #22)."""
    return cast(tuple[str, str], request.app.state.engine)


@router.get("/health", response_model=Health, responses={503: {"model": Health}})
async def health(
    ctx: Ctx,
    running: Annotated[tuple[str, str], Depends(engine)],
    ahead: Annotated[Publisher | None, Depends(publisher)],
) -> Response:
    """Liveness and what is being served; 503, with ``status`` and ``problem``, when the
    database cannot be used (docs/service.md, Integrity); ``degraded`` (200), with
    ``reasons``, when today's puzzles or days ahead are missing (Publishing ahead)."""
    watch = ctx.stores.watch
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
    publishing, reasons = _publishing(ahead)
    status = "unavailable" if problem is not None else "degraded" if reasons else "ok"
    body = Health(
        status=status,
        version=version("cruel-tools"),
        engine=running[0],
        engine_line=running[1],
        today=ctx.settings.today(),
        puzzles=len(ctx.puzzles),
        submissions=count,
        problem=None if problem is None else HealthProblem(**dataclasses.asdict(problem)),
        reasons=reasons,
        publishing=publishing,
    )
    return json_response(body, 200 if problem is None else 503)


def _publishing(publisher: Publisher | None) -> tuple[Publishing | None, list[str]]:
    """What health says of the days published ahead, and why it is degraded (if it is)."""
    if publisher is None:
        return None, []
    now = publisher.status()
    publishing = Publishing(
        stream=now.stream,
        ahead=now.ahead,
        days_ready=now.days_ready,
        today_ready=now.today_ready,
        generating=now.generating,
        last_seconds=None if now.last_seconds is None else round(now.last_seconds, 3),
    )
    return publishing, now.reasons()
