"""The service's OpenAPI document: bodies read by our own parsers, the answers of each kind of
route, and the bearer security of writes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from fastapi import FastAPI
from pydantic import BaseModel

from ..api import ErrorResponse
from ..game.log import GameLog
from ..site.attempts import AttemptRequest, StepsRequest
from ..site.judging import Submission
from ..site.moderation import ModerationRequest
from ..site.players import LinkRequest, PlayerClaim

__all__ = [
    "body_doc",
    "ERRORS",
    "WRITE_ERRORS",
    "ADMIN_ERRORS",
    "BEARER",
    "PLAYER",
    "moderation_body_doc",
    "customize",
]


def body_doc(name: str) -> dict[str, Any]:
    """OpenAPI for a body read by our own parser (so the route declares no body parameter)."""
    ref = {"$ref": f"#/components/schemas/{name}-Input"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


#: Request bodies documented in the OpenAPI document, by the name used in _body_doc.
_BODIES: Final[dict[str, type[BaseModel]]] = {
    "GameLog": GameLog,
    "Submission": Submission,
    "AttemptRequest": AttemptRequest,
    "StepsRequest": StepsRequest,
    "PlayerClaim": PlayerClaim,
    "LinkRequest": LinkRequest,
}
ERRORS: Final[dict[int | str, dict[str, Any]]] = {
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
WRITE_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
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
BEARER: Final = "apiKey"
#: The security scheme of a player's own routes: ``Authorization: Player <token>``.
PLAYER: Final = "playerToken"


def customize(app: FastAPI) -> Callable[[], dict[str, Any]]:
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
            BEARER: {
                "type": "http",
                "scheme": "bearer",
                "description": "An API key made by `cruel keys add` (docs/service.md).",
            },
            PLAYER: {
                "type": "http",
                "scheme": "Player",
                "description": "A player's own token, from POST /v1/players or a link code "
                "(docs/service.md, Players and tokens).",
            },
        }
        app.openapi_schema = doc
        return doc

    return openapi


#: What a moderation route answers besides 200 and the common errors.
ADMIN_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    s: {"model": ErrorResponse, "description": d}
    for s, d in {
        401: "No API key (missing-key), not one (bad-key), or a revoked one (revoked-key); with "
        "WWW-Authenticate: Bearer",
        403: "A key whose role may not moderate (wrong-role: a site key)",
        404: "No such submission (no-such-submission), or it was deleted",
        503: "The database stayed locked too long (retry)",
    }.items()
}


def moderation_body_doc() -> dict[str, Any]:
    """OpenAPI of a moderation request's optional body, and its security."""
    schema = ModerationRequest.model_json_schema()
    schema.pop("$id", None)
    content = {"application/json": {"schema": schema}}
    return {"requestBody": {"required": False, "content": content}, "security": [{BEARER: []}]}
