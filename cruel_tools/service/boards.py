"""The routes that read the leaderboards: a puzzle's board, and a player's record."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ..api import ErrorResponse
from ..game.stats import Record
from ..site.leaderboard import MAX_PAGE, Leaderboard, Order
from ..site.names import PlayerNameError, enforce
from ..site.records import record_from_store
from .config import time_zone
from .deps import Ctx
from .errors import ApiError, json_response
from .params import PuzzleId

__all__ = ["router", "leaderboard", "player_record"]


#: ``GET /v1/puzzles/{id}/leaderboard`` and ``GET /v1/players/{name}``.
router = APIRouter(prefix="/v1")


@router.get("/puzzles/{id}/leaderboard", response_model=Leaderboard)
async def leaderboard(
    ctx: Ctx,
    id: PuzzleId,
    limit: Annotated[int, Query(ge=0, le=MAX_PAGE, description="Entries per page.")] = 100,
    offset: Annotated[int, Query(ge=0, le=10**9, description="Entries to skip.")] = 0,
    best_per_player: Annotated[
        bool,
        Query(
            description="Rank only each player's best entry (the default); false: every "
            "entry, several of one player's among them."
        ),
    ] = True,
    by: Annotated[
        Order,
        Query(
            description="actions: fewest actions (card moves + redeals), then fewest "
            "redeals. time: only server-timed entries, fastest first (then fewest actions, "
            "redeals); equal times share a rank."
        ),
    ] = "actions",
    ranked: Annotated[
        bool,
        Query(
            description="true: the ranked entries (live attempts, a site key's logs). "
            "false: the unranked ones (logs nothing timed: a player's token, --open), "
            "fewest actions first, rank null; best_per_player and by do not apply."
        ),
    ] = True,
) -> Response:
    """Accepted wins, each player's best by default (``best_per_player=false``: every
    entry), fewest actions (card moves + redeals) first, then fewest redeals; equal scores
    share a rank (1, 1, 3, ...), listed earliest first. ``by=time``: server-timed wins,
    fastest first. ``ranked=false``: the entries stored unranked, listed apart."""
    puzzle = ctx.puzzle_or_404(id)
    if not ranked:
        unranked = await run_in_threadpool(ctx.stores.boards.unranked, puzzle.id, limit, offset)
        return json_response(unranked)
    page = await run_in_threadpool(
        ctx.stores.boards.leaderboard, puzzle.id, limit, offset, best_per_player, by
    )
    return json_response(page)


@router.get(
    "/players/{name}",
    response_model=Record,
    responses={
        404: {"model": ErrorResponse, "description": "No such player (unknown-player)"},
        422: {"model": ErrorResponse, "description": "Not a player name (bad-player-name)"},
    },
)
async def player_record(
    ctx: Ctx,
    name: Annotated[str, PathParam(description="A player name, as submitted.")],
) -> Response:
    """A player's record (the statistics panel of ``cruel stats``) from the store: their
    listed wins, and their server-timed attempts that won nothing (docs/service.md); with
    their rating from play once enough live attempts have rated it (Ratings)."""
    try:
        player = enforce(name)  # the name as submissions store it
    except PlayerNameError as exc:
        raise ApiError(422, exc.code, str(exc), "path", "name") from None
    found = await run_in_threadpool(ctx.stores.boards.player_games, player)
    if found is None:
        raise ApiError(
            404,
            "unknown-player",
            f"no player {player!r} has an entry or an attempt",
            "path",
            "name",
        )
    zone, today = time_zone(ctx.settings.tz), ctx.settings.today()
    record = record_from_store(player, found, ctx.puzzles.get, zone, today)
    rating = await run_in_threadpool(ctx.stores.ratings.shown, "player", player)
    return json_response(record.model_copy(update={"rating": rating}))
