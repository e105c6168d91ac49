"""The routes of ``/v1/admin`` (docs/service.md, Moderation): hide, unhide and delete
submissions, ban and unban players, read the audit log, and the review queue of flagged wins
(list, clear, reject); each with an admin key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from pydantic import ValidationError

from ..game.log import refuse_duplicates
from ..site.keys import ApiKey
from ..site.leaderboard import MAX_PAGE
from ..site.moderation import AuditLog, ModerationRequest, ModerationResult, Review, ReviewQueue
from ..site.names import PlayerNameError, enforce
from .deps import AdminKey, Ctx, admin_key, params_first
from .errors import ApiError, json_response, read_body
from .openapi import ADMIN_ERRORS, BEARER, moderation_body_doc

__all__ = [
    "MAX_MODERATION_BODY",
    "SubmissionId",
    "PlayerPath",
    "read_reason",
    "path_player",
    "router",
    "act",
    "hide",
    "unhide",
    "delete",
    "ban",
    "unban",
    "clear",
    "reject",
    "queue",
    "audit",
]

#: Bound on a moderation request's body (``{"reason": ...}``).
MAX_MODERATION_BODY: Final = 16 * 1024


async def read_reason(request: Request) -> str | None:
    """The reason of a moderation request: its body is empty or ``{"reason": ...}`` (every
    moderator's act, the revocation of a player's tokens too)."""
    body = await read_body(request, MAX_MODERATION_BODY)
    if not body.strip():
        return None
    refuse_duplicates(body)  # {"reason": "a", "reason": "b"}: 400 duplicate-key
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


def path_player(text: str) -> str:
    """The player named in a route's path, enforced (422 ``bad-player-name``)."""
    try:
        return enforce(text)
    except PlayerNameError as exc:
        raise ApiError(422, "bad-player-name", str(exc), "path", "name") from None


# Path parameters of the moderation routes (module level: FastAPI resolves them by name).
SubmissionId = Annotated[
    str, PathParam(description="A submission's id.", json_schema_extra={"pattern": "^[0-9]+$"})
]
PlayerPath = Annotated[str, PathParam(description="A player's name (URL-encoded).")]


#: The routes of ``/v1/admin``: each needs an admin key, checked first (after the parameters).
router = APIRouter(prefix="/v1/admin", dependencies=[Depends(params_first), Depends(admin_key)])


async def act(
    request: Request,
    key: ApiKey,
    do: Callable[[Any, ApiKey, str | None], ModerationResult],
    target: Callable[[], int | str],
) -> Response:
    """With the key checked (the router's dependency), check the target, then the body; then
    act, in a worker thread (a wait for the database does not hold up the event loop)."""
    what = target()
    reason = await read_reason(request)
    return json_response(await run_in_threadpool(do, what, key, reason))


def _route(path: str, method: str = "POST") -> Callable[[Any], Any]:
    return router.api_route(
        path,
        methods=[method],
        response_model=ModerationResult,
        responses=ADMIN_ERRORS,
        openapi_extra=moderation_body_doc(),
    )


@_route("/submissions/{id}/hide")
async def hide(id: SubmissionId, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """Hide a submission: it is kept, and listed on no leaderboard."""
    return await act(request, key, ctx.stores.moderation.hide, lambda: _submission_id(id))


@_route("/submissions/{id}/unhide")
async def unhide(id: SubmissionId, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """List a hidden submission again (unless its player is banned)."""
    return await act(request, key, ctx.stores.moderation.unhide, lambda: _submission_id(id))


@_route("/submissions/{id}", "DELETE")
async def delete(id: SubmissionId, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """Delete a submission for good; the audit log keeps all it was."""
    return await act(request, key, ctx.stores.moderation.delete, lambda: _submission_id(id))


@_route("/players/{name}/ban")
async def ban(name: PlayerPath, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """Ban a player: their entries leave every leaderboard, their submissions are 403."""
    return await act(request, key, ctx.stores.moderation.ban, lambda: path_player(name))


@_route("/players/{name}/unban")
async def unban(name: PlayerPath, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """Lift a ban: the player's entries (those not hidden) are listed again."""
    return await act(request, key, ctx.stores.moderation.unban, lambda: path_player(name))


@_route("/queue/{id}/clear")
async def clear(id: SubmissionId, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """Clear a flagged entry of the review queue: it is listed on its board."""
    return await act(request, key, ctx.stores.moderation.clear, lambda: _submission_id(id))


@_route("/queue/{id}/reject")
async def reject(id: SubmissionId, request: Request, ctx: Ctx, key: AdminKey) -> Response:
    """Reject a flagged entry: it stays hidden for good (kept as the evidence)."""
    return await act(request, key, ctx.stores.moderation.reject, lambda: _submission_id(id))


@router.get(
    "/queue",
    response_model=ReviewQueue,
    responses={s: ADMIN_ERRORS[s] for s in (401, 403, 503)},
    openapi_extra={"security": [{BEARER: []}]},
)
async def queue(
    ctx: Ctx,
    status: Annotated[Review, Query(description="Which entries.")] = "pending",
    limit: Annotated[int, Query(ge=0, le=MAX_PAGE, description="Entries per page.")] = 100,
    offset: Annotated[int, Query(ge=0, le=10**9, description="Entries to skip.")] = 0,
) -> Response:
    """The review queue: wins flagged for a moderator (a live attempt's timing no person
    plays, or a submitted log at par or better), hidden until cleared; oldest first."""
    found = await run_in_threadpool(ctx.stores.moderation.queue, status, limit, offset)
    return json_response(found)


@router.get(
    "/audit",
    response_model=AuditLog,
    responses={s: ADMIN_ERRORS[s] for s in (401, 403, 503)},
    openapi_extra={"security": [{BEARER: []}]},
)
async def audit(
    ctx: Ctx,
    limit: Annotated[int, Query(ge=0, le=MAX_PAGE, description="Acts per page.")] = 100,
    offset: Annotated[int, Query(ge=0, le=10**9, description="Acts to skip.")] = 0,
) -> Response:
    """The audit log of moderation, newest act first."""
    return json_response(await run_in_threadpool(ctx.stores.moderation.audit, limit, offset))
