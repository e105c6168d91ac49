"""The documents of the HTTP service that no library module owns: errors and health.

Kept apart from :mod:`cruel_tools.service` so that ``cruel schema`` (and every other command)
does not import the web stack.
"""

from __future__ import annotations

import datetime as dt
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from .formats import document_config

__all__ = [
    "ERROR_FORMAT",
    "HEALTH_FORMAT",
    "ErrorResponse",
    "Health",
    "HealthProblem",
    "Publishing",
]

ERROR_FORMAT: Final = "cruel-error/1"
HEALTH_FORMAT: Final = "cruel-health/1"


class ErrorResponse(BaseModel):
    """What every failed request answers."""

    model_config = document_config("Cruel error v1", "error")

    format: Literal["cruel-error/1"] = ERROR_FORMAT
    status: int = Field(description="The HTTP status, repeated.")
    code: str = Field(description="Stable error code (docs/service.md).")
    message: str = Field(description="One line for people.")
    location: Literal["body", "path", "query", "header"] | None = Field(
        None, description="The part of the request at fault."
    )
    path: str | None = Field(
        None,
        description="In the body: a JSON pointer (e.g. /log/moves/3); in the path or query: the "
        "parameter's name.",
    )


class HealthProblem(BaseModel):
    """What keeps the service from storing entries (``GET /v1/health``, docs/service.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: Literal["store-unavailable", "disk-full"] = Field(
        description="store-unavailable: the database file was deleted, replaced or found damaged "
        "(until a restart); disk-full: a write was refused for a full disk in the last minute."
    )
    message: str = Field(description="One line for people.")


class Publishing(BaseModel):
    """Days published ahead (``GET /v1/health``; docs/service.md, Publishing ahead)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stream: Literal["secret", "public", "none"] = Field(
        description="What the server publishes ahead from: its secret's stream (--secret-file), "
        "the public stream (--open, a local demo), or nothing (no secret)."
    )
    ahead: int = Field(description="Days after today it keeps published (--ahead).")
    days_ready: int = Field(description="Consecutive days after today with puzzles, at most ahead.")
    today_ready: bool = Field(description="Today has puzzles.")
    generating: bool = Field(description="This server process is making a day now.")
    last_seconds: float | None = Field(
        description="Seconds the last day made by this server process took; null: none made."
    )


class Health(BaseModel):
    """``GET /v1/health``: 200 when all is well, 503 (same document) when it is not."""

    model_config = document_config("Cruel service health v1", "health")

    format: Literal["cruel-health/1"] = HEALTH_FORMAT
    status: Literal["ok", "degraded", "unavailable"] = Field(
        "ok",
        description="ok; degraded (answered 200) when reasons says what is missing (today's "
        "puzzles, days ahead); or unavailable when problem says what is wrong (answered 503).",
    )
    version: str
    engine: Literal["native", "python"] = Field(
        description="The engine that plays the rules: native (the compiled core) or python "
        "(the reference engine, slower: engine_line says why)."
    )
    engine_line: str = Field(
        description="What cruel --version says about it: 'engine: native', or 'engine: python "
        "(...)' with the reason (CRUEL_ENGINE=python, or no compiled core: ...)."
    )
    today: dt.date = Field(description="The server's date: solutions of earlier days are public.")
    puzzles: int = Field(description="Puzzles being served.")
    submissions: int | None = Field(
        description="Accepted entries over all leaderboards; null when the database cannot be read."
    )
    problem: HealthProblem | None = Field(
        None, description="What is wrong with the database, when status is not ok."
    )
    reasons: list[str] = Field(
        default_factory=list, description="Why status is degraded, one line each; empty: it is not."
    )
    publishing: Publishing | None = Field(
        None, description="Days published ahead; null from a server that does not say."
    )
