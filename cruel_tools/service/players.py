"""The routes of players' own tokens (docs/service.md, Players and tokens): claim a name, link a
second device, export and delete one's data; and the moderator's revocation of a lost token.
Each reads and bounds the request; the work is :class:`cruel_tools.site.players.Players`'."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from typing import Annotated, Any, Final, cast

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from ..api import ErrorResponse
from ..constants import LINK_GUESS_HOURS
from ..site.keys import RateLimit, TokenBuckets
from ..site.players import (
    VOIDED,
    LinkCode,
    PlayerData,
    PlayerDeleted,
    PlayerRefused,
    PlayerToken,
    TokenInfo,
    TokensRevoked,
    TooManyTokens,
    parse_claim,
    parse_link,
)
from ..site.registry import CONFUSABLE
from .clients import client_address
from .config import Settings
from .deps import AdminKey, Ctx, params_first
from .errors import ApiError, json_response, read_body
from .moderation import PlayerPath, path_player, read_reason
from .openapi import ADMIN_ERRORS, BEARER, PLAYER, WRITE_ERRORS, body_doc

__all__ = [
    "claim_limit",
    "guess_limit",
    "LINK_LIMIT",
    "EXPORT_LIMIT",
    "MAX_PLAYER_BODY",
    "PlayerLimits",
    "player_limits",
    "Limits",
    "player_name",
    "PlayerName",
    "own_token",
    "OwnToken",
    "router",
    "claim",
    "link_code",
    "redeem",
    "export",
    "delete",
    "revoke",
]


def claim_limit(per_day: int) -> RateLimit:
    """Claims from one client address (``cruel serve --claims-per-day``): ``per_day`` at once,
    then they come back at ``per_day`` a day (issue #33: the bucket of 10 at once then one every
    6 minutes let one address claim 250 names a day)."""
    return RateLimit(rate=per_day / 86_400, burst=per_day)


#: Link codes tried from one client address: 10 at once, then one a minute (each try also
#: costs a scrypt); of them, wrong ones are limited further (:func:`guess_limit`) and count
#: against the player's code (:data:`~cruel_tools.site.players.MAX_TRIES`, from all addresses).
LINK_LIMIT: Final = RateLimit(rate=1 / 60, burst=10)
#: Bound on a claim's or a link request's body.
MAX_PLAYER_BODY: Final = 4 * 1024
#: Exports of one player's data: 5 at once, then one a minute (each reads all the player's rows:
#: issue #33 measured 132,000 steps; the token's own bucket would allow 10 a second).
EXPORT_LIMIT: Final = RateLimit(rate=1 / 60, burst=5)
_STATUS: Final = {
    "name-taken": 409,
    CONFUSABLE: 409,
    "name-needs-moderator": 409,
    "bad-link-code": 403,
    VOIDED: 403,
    TooManyTokens.code: 409,
}

#: The answers of a claim besides 201 and the common errors.
_CLAIM_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    409: {
        "model": ErrorResponse,
        "description": "The name is taken (name-taken), looks like another player's "
        "(player-name-confusable), or has games from before tokens (name-needs-moderator)",
    },
    429: {
        "model": ErrorResponse,
        "description": "Too many claims or link codes from this address (rate-limited)",
    },
}


def _limit(buckets: TokenBuckets, key: Hashable, what: str, whose: str = "this address") -> None:
    """Take a token from ``key``'s bucket, or 429 ``rate-limited`` with ``Retry-After``."""
    wait = buckets.take(key)
    if wait > 0:
        seconds = max(1, math.ceil(wait - 1e-9))
        message = f"too many {what} from {whose}; retry in {seconds} s"
        raise ApiError(429, "rate-limited", message, headers={"Retry-After": str(seconds)})


def _then(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest  # Starlette reads a plain iterator in its thread pool, off the loop


def guess_limit(guesses: int) -> RateLimit:
    """Wrong link codes from one client address: ``guesses`` at once, then as many again every
    :data:`~cruel_tools.constants.LINK_GUESS_HOURS` hours."""
    return RateLimit(rate=guesses / (LINK_GUESS_HOURS * 3600), burst=guesses)


def _refused(exc: PlayerRefused | TooManyTokens, where: tuple[str, str]) -> ApiError:
    return ApiError(_STATUS.get(exc.code, 409), exc.code, str(exc), *where)


class PlayerLimits:
    """One app's rate limits of the players' routes, per client address, token or player: in
    memory, per process, like every rate limit (addresses are kept only here)."""

    def __init__(self, settings: Settings) -> None:
        self.claims = TokenBuckets(claim_limit(settings.claims_per_day), settings.clock)
        self.links = TokenBuckets(LINK_LIMIT, settings.clock)
        self.guesses = TokenBuckets(guess_limit(settings.link_guesses), settings.clock)
        self.exports = TokenBuckets(EXPORT_LIMIT, settings.clock)


async def player_limits(request: Request) -> PlayerLimits:
    """The app's :class:`PlayerLimits` (made by :func:`~.app.create_app`)."""
    return cast(PlayerLimits, request.app.state.player_limits)


Limits = Annotated[PlayerLimits, Depends(player_limits)]


async def player_name(name: PlayerPath) -> str:
    """The player named in the route's path, enforced (422 ``bad-player-name``), before any
    credential is read."""
    return path_player(name)


PlayerName = Annotated[str, Depends(player_name)]


async def own_token(request: Request, ctx: Ctx, player: PlayerName) -> TokenInfo:
    """The valid token of the path's player this request is sent with
    (:meth:`~.context.Context.own_token`): a player's own routes take no site key."""
    return await ctx.own_token(request, player)


OwnToken = Annotated[TokenInfo, Depends(own_token)]

#: ``POST /v1/players``, ``POST /v1/players/{name}/link-codes``, ``POST
#: /v1/players/{name}/tokens``, ``GET /v1/players/{name}/data``, ``DELETE /v1/players/{name}``
#: and ``DELETE /v1/admin/players/{name}/tokens``.
router = APIRouter(prefix="/v1", dependencies=[Depends(params_first)])
_TOKEN_SECURITY: Final[dict[str, Any]] = {"security": [{PLAYER: []}]}


@router.post(
    "/players",
    response_model=PlayerToken,
    status_code=201,
    responses=_CLAIM_ERRORS,
    openapi_extra=body_doc("PlayerClaim"),
)
async def claim(request: Request, ctx: Ctx, limits: Limits) -> Response:
    """Claim a player name: the first to ask gets it, and its first token (shown once).
    Every later write under the name needs one of its tokens."""
    _limit(limits.claims, client_address(request, ctx.settings), "claims")
    asked = parse_claim(await read_body(request, MAX_PLAYER_BODY))
    try:
        made = await run_in_threadpool(ctx.stores.players.claim, asked.player)
    except PlayerRefused as exc:
        raise _refused(exc, ("body", "/player")) from None
    return json_response(made, 201)


@router.post(
    "/players/{name}/link-codes",
    response_model=LinkCode,
    status_code=201,
    responses=WRITE_ERRORS,
    openapi_extra=_TOKEN_SECURITY,
)
async def link_code(ctx: Ctx, token: OwnToken, player: PlayerName, limits: Limits) -> Response:
    """A one-time code (8 characters, valid 10 minutes) that gives another device of the
    player a token of its own. A new code voids the player's earlier ones."""
    # Each code costs a scrypt (~40 ms): a token makes them at the pace of link tries.
    _limit(limits.links, ("token", token.id), "link codes", "this token")
    try:
        made = await run_in_threadpool(ctx.stores.players.link_code, player)
    except TooManyTokens as exc:
        raise _refused(exc, ("path", "name")) from None
    return json_response(made, 201)


@router.post(
    "/players/{name}/tokens",
    response_model=PlayerToken,
    status_code=201,
    responses={403: WRITE_ERRORS[403], 429: _CLAIM_ERRORS[429]},
    openapi_extra=body_doc("LinkRequest"),
)
async def redeem(request: Request, ctx: Ctx, player: PlayerName, limits: Limits) -> Response:
    """A new token of the player for a link code of theirs (used once). Wrong codes are
    limited per client address (``--link-guesses``); 100 from all addresses void the
    player's live code, and its right code then answers ``link-code-voided``."""
    address = client_address(request, ctx.settings)
    _limit(limits.links, address, "link codes")
    asked = parse_link(await read_body(request, MAX_PLAYER_BODY))
    # Taken before the try and given back unless the code was wrong: wrong guesses are what
    # an address is counted for (issue #33, finding 9), and racing tries cannot overdraw.
    _limit(limits.guesses, address, "wrong link codes")
    wrong = False
    try:
        made = await run_in_threadpool(ctx.stores.players.redeem, player, asked.code)
    except (PlayerRefused, TooManyTokens) as exc:
        wrong = exc.code == "bad-link-code"
        raise _refused(exc, ("body", "/code")) from None
    finally:
        if not wrong:  # a right code, a voided one, or a store that failed: no guess
            limits.guesses.give_back(address)
    return json_response(made, 201)


@router.get(
    "/players/{name}/data",
    response_model=PlayerData,
    responses=WRITE_ERRORS,
    openapi_extra=_TOKEN_SECURITY,
)
async def export(ctx: Ctx, token: OwnToken, player: PlayerName, limits: Limits) -> Response:
    """Everything the service holds about the player: names, entries with their logs and
    times, attempts, tokens' dates, link codes' dates, moderators' acts on them. Streamed:
    the server holds a batch of rows at a time, whatever the player's history."""
    _limit(limits.exports, ("player", player), "exports", "this player")
    parts = ctx.stores.players.export_parts(player)
    # The head is read before the answer starts, so that a database that cannot answer is
    # a plain error (503), not a 200 cut short.
    head = await run_in_threadpool(next, parts)
    return StreamingResponse(_then(head, parts), media_type="application/json")


@router.delete(
    "/players/{name}",
    response_model=PlayerDeleted,
    responses=WRITE_ERRORS,
    openapi_extra=_TOKEN_SECURITY,
)
async def delete(ctx: Ctx, token: OwnToken, player: PlayerName) -> Response:
    """Delete the player: entries (off every board), attempts, tokens, link codes and the
    name. The moderation audit log and a ban are kept."""
    return json_response(await run_in_threadpool(ctx.stores.players.delete, player))


@router.delete(
    "/admin/players/{name}/tokens",
    response_model=TokensRevoked,
    responses=ADMIN_ERRORS,
    openapi_extra={"security": [{BEARER: []}]},
)
async def revoke(request: Request, ctx: Ctx, key: AdminKey, player: PlayerName) -> Response:
    """A moderator's act for a lost token: revoke every token of the player and make a link
    code (valid 24 hours) to hand to them privately; for a name with games from before
    tokens, claim it for its player so. Audited (revoke-tokens)."""
    reason = await read_reason(request)
    try:
        done = await run_in_threadpool(ctx.stores.players.revoke, player, key, reason)
    except PlayerRefused as exc:
        raise _refused(exc, ("path", "name")) from None
    return json_response(done)
