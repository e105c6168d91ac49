"""Server-timed attempts: the time of a win measured by the server, not written by the client.

A site starts an attempt for a player on a puzzle (``POST /v1/puzzles/{id}/attempts``): the
server stores an unguessable id with the puzzle, the player, the API key and its own clock's
time. A submission that names the attempt is timed from that start to its own arrival; the time
in the log's ``meta`` is never read. An attempt times at most one accepted entry. See
``docs/service.md`` (Server-timed attempts).
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel, Field, ValidationError

from .documents import document_config
from .log import LogFormatError
from .schema import Store
from .store import Connection
from .submissions import PlayerName, player_name_error
from .traversal import ErrorInfo

__all__ = [
    "ATTEMPT_FORMAT",
    "STARTED_FORMAT",
    "REJECTED",
    "MAX_ID",
    "AttemptRequest",
    "AttemptStarted",
    "parse_attempt",
    "new_attempt_id",
    "AttemptUse",
    "Attempts",
]

ATTEMPT_FORMAT: Final = "cruel-attempt/1"
STARTED_FORMAT: Final = "cruel-attempt-started/1"
#: The rejection code of a submission whose attempt is unknown, someone else's, or used.
REJECTED: Final = "bad-attempt"
#: Longest attempt id a submission may name (new ones are 22 characters): the limit of the
#: ``attempt`` of a submission (:data:`cruel_tools.submissions.AttemptId`).
MAX_ID: Final = 64


class AttemptRequest(BaseModel):
    """The body of ``POST /v1/puzzles/{id}/attempts``: who starts an attempt."""

    model_config = document_config("Cruel attempt v1", "attempt")

    format: Literal["cruel-attempt/1"] = Field(
        ATTEMPT_FORMAT, description="Optional: the format and version of this document."
    )
    player: PlayerName


class AttemptStarted(BaseModel):
    """An attempt the server has started: name its id in the submission of the game."""

    model_config = document_config("Cruel attempt started v1", "attempt-started")

    format: Literal["cruel-attempt-started/1"] = STARTED_FORMAT
    attempt: str = Field(description="The attempt's id: unguessable, for the submission.")
    puzzle: str
    player: str
    started_at: dt.datetime = Field(description="The server's time at the start (UTC).")


def parse_attempt(data: bytes) -> AttemptRequest:
    """Read an attempt request; raise :class:`LogFormatError` as a submission's head does (a
    refused name is ``bad-player-name`` at ``/player``)."""
    try:
        return AttemptRequest.model_validate_json(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        kind, key = err["type"], str(err["loc"][0]) if err["loc"] else ""
        if kind == "json_invalid":
            raise LogFormatError("not-json", "", f"not JSON: {err['ctx']['error']}") from None
        if not key:
            raise LogFormatError("schema", "/", "an attempt is a JSON object") from None
        if key == "player" and kind != "missing":
            raise player_name_error(kind, str(err["msg"])) from None
        if kind == "missing":
            message = f"required key {key!r} is missing"
        elif kind == "extra_forbidden":
            message = f"unknown key {key!r} (an attempt has player and optional format)"
        else:
            message = str(err["msg"])
        raise LogFormatError("schema", f"/{key}", message) from None


def new_attempt_id() -> str:
    """16 random bytes, url-safe (22 characters): not to be guessed."""
    return secrets.token_urlsafe(16)


def _key_text(sender: Hashable) -> str:
    """How an attempt records who started it: the API key's id, or the open bucket's name."""
    return str(sender)


@dataclass(frozen=True)
class AttemptUse:
    """A submission's claim on an attempt, settled in the leaderboard's write transaction
    (:meth:`cruel_tools.leaderboard.Leaderboards.store`)."""

    attempt: str
    puzzle: str
    player: str
    sender: str
    arrived_at: dt.datetime

    def check(self, db: Connection) -> ErrorInfo | int:
        """The entry's elapsed milliseconds, from the attempt's start to the submission's
        arrival; or why the attempt may not time it (a ``bad-attempt`` rejection)."""
        row = db.execute(
            "SELECT puzzle, player, sender, started_at, submission_id FROM attempts WHERE id = ?",
            (self.attempt,),
        ).fetchone()
        if row is None:
            return _bad("no such attempt")
        puzzle, player, sender, started_at, used = row
        if puzzle != self.puzzle:
            return _bad(f"the attempt was started on another puzzle, not {self.puzzle}")
        if player != self.player:
            return _bad("the attempt was started for another player")
        if sender != self.sender:
            return _bad("the attempt was started with another API key")
        if used is not None:
            return _bad(f"the attempt already timed entry {used}")
        elapsed = self.arrived_at - dt.datetime.fromisoformat(started_at)
        return max(0, elapsed // dt.timedelta(milliseconds=1))

    def use(self, db: Connection, submission_id: int) -> None:
        """Mark the attempt used by the new entry (in the same transaction as the entry)."""
        db.execute(
            "UPDATE attempts SET submission_id = ? WHERE id = ? AND submission_id IS NULL",
            (submission_id, self.attempt),
        )


def _bad(message: str) -> ErrorInfo:
    return ErrorInfo(index=None, path="/attempt", code=REJECTED, message=message)


class Attempts(Store):
    """Started attempts, in the table ``attempts`` of the store
    (:class:`~cruel_tools.schema.Store`)."""

    def start(self, puzzle: str, player: str, sender: Hashable, now: dt.datetime) -> AttemptStarted:
        """Start an attempt of ``player`` on ``puzzle`` at the server's time ``now`` (a
        database locked for too long raises :class:`~cruel_tools.store.StoreBusy`)."""
        started = AttemptStarted(
            attempt=new_attempt_id(),
            puzzle=puzzle,
            player=player,
            started_at=now.astimezone(dt.UTC),
        )
        with self.database.write() as db:
            db.execute(
                "INSERT INTO attempts (id, puzzle, player, sender, started_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    started.attempt,
                    puzzle,
                    player,
                    _key_text(sender),
                    started.started_at.isoformat(),
                ),
            )
        return started

    @staticmethod
    def use(
        attempt: str, puzzle: str, player: str, sender: Hashable, arrived_at: dt.datetime
    ) -> AttemptUse:
        """A submission's claim on ``attempt``, to settle when its entry is stored."""
        return AttemptUse(attempt, puzzle, player, _key_text(sender), arrived_at)
