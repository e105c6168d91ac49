"""Moderation of the leaderboards: hide, unhide and delete submissions, ban and unban players.

Every act is done with an ``admin`` API key and kept in an audit log: who (the key's id and
name), what (the action, its target, the reason given), when (server time). The state lives in
the store, beside ``submissions`` (tables in :mod:`cruel_tools.site.tables`):

- ``hidden_submissions``: the ids of hidden submissions (kept, listed nowhere);
- ``banned_players``: banned names (their entries are listed nowhere; their new submissions are
  refused by the service, 403 ``player-banned``);
- ``moderation_audit``: one row per act, with, for a submission, everything it was (its log
  too), so that a deleted one is still known;
- the view ``visible_submissions``: the submissions that are neither hidden nor a banned
  player's. Leaderboards and ranks are made of it only.

See ``docs/service.md`` (Moderation).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ..errors import CruelError
from ..formats import document_config
from .database import Connection
from .keys import ApiKey
from .leaderboard import MAX_PAGE, Tallies
from .names import skeleton
from .tables import Store

__all__ = [
    "MODERATION_FORMAT",
    "AUDIT_FORMAT",
    "MAX_REASON",
    "Action",
    "ACTIONS",
    "NoSuchSubmission",
    "NotInQueue",
    "QUEUE_FORMAT",
    "Flag",
    "Review",
    "QueueEntry",
    "ReviewQueue",
    "queue_entry",
    "FlagUntimed",
    "record_act",
    "ModerationRequest",
    "SubmissionRecord",
    "AuditEntry",
    "ModerationResult",
    "AuditLog",
    "Moderation",
]

MODERATION_FORMAT: Final = "cruel-moderation/1"
AUDIT_FORMAT: Final = "cruel-audit/1"
#: Longest reason a moderator may give, in characters.
MAX_REASON: Final = 1000

#: revoke-tokens: a player's tokens revoked, and a link code made for them
#: (:meth:`cruel_tools.site.players.Players.revoke`).
#: clear, reject: a flagged entry of the review queue listed, or left hidden for good.
Action = Literal["hide", "unhide", "delete", "ban", "unban", "revoke-tokens", "clear", "reject"]
ACTIONS: Final[tuple[Action, ...]] = (
    "hide",
    "unhide",
    "delete",
    "ban",
    "unban",
    "revoke-tokens",
    "clear",
    "reject",
)
#: The review queue's document (``GET /v1/admin/queue``).
QUEUE_FORMAT: Final = "cruel-review-queue/1"
#: Why an entry is flagged: a live attempt's timing (:func:`cruel_tools.site.attempts.timing_flags`,
#: :func:`~cruel_tools.site.attempts.pace_flags`), or a submitted log at par or better that no live
#: attempt timed.
Flag = Literal["too-fast", "batched", "metronome", "fast-par", "untimed-par"]
Review = Literal["pending", "cleared", "rejected"]


class NoSuchSubmission(CruelError):
    """No stored submission has this id (it never had, or it was deleted)."""

    code = "no-such-submission"


class NotInQueue(CruelError):
    """A moderator clears or rejects a submission that waits in no review queue (never
    flagged, or decided already)."""

    code = "not-in-queue"


# --- formats -------------------------------------------------------------------------------------


class ModerationRequest(BaseModel):
    """The optional body of a moderation request."""

    model_config = document_config("Cruel moderation request v1", "moderation-request")

    reason: str | None = Field(
        None,
        max_length=MAX_REASON,
        description=f"Why, for the audit log: up to {MAX_REASON} characters.",
        examples=["impossible time, reported by two players"],
    )


class SubmissionRecord(BaseModel):
    """A stored submission, all of it: what the audit log keeps of a submission acted on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    submission_id: int
    puzzle: str
    player: str
    moves: int
    redeals: int
    submitted_at: dt.datetime
    elapsed_ms: int | None = Field(description="Its server-measured time, if it had an attempt.")
    game: str = Field(description="The game's id: SHA-256 of its moves in compact form.")
    log: str = Field(description="Its moves in compact form.")


class AuditEntry(BaseModel):
    """One act of moderation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int = Field(description="Increasing: later acts have larger ids.")
    at: dt.datetime = Field(description="Server time of the act (UTC).")
    key_id: int = Field(description="The admin key that acted (`cruel keys list`).")
    key_name: str = Field(description="That key's name when it acted.")
    action: Action
    changed: bool = Field(
        description="False when it was so already (hiding a hidden submission, banning a "
        "banned player): the act is recorded all the same."
    )
    submission_id: int | None = Field(description="The submission acted on; null for a player.")
    player: str = Field(description="The player acted on, or the submission's player.")
    reason: str | None = Field(description="The reason given, if any.")
    submission: SubmissionRecord | None = Field(
        description="The submission as it was when acted on (for delete: what was deleted)."
    )


class ModerationResult(BaseModel):
    """The answer to an act of moderation: the state it left, and its audit entry."""

    model_config = document_config("Cruel moderation result v1", "moderation")

    format: Literal["cruel-moderation/1"] = MODERATION_FORMAT
    action: Action
    changed: bool = Field(description="False when it was so already (recorded all the same).")
    player: str
    banned: bool = Field(description="The player is banned now.")
    submission_id: int | None = Field(description="The submission acted on; null for a player.")
    hidden: bool | None = Field(
        description="The submission is hidden now (false once deleted); null for a player."
    )
    deleted: bool = Field(description="The submission is deleted (delete only).")
    listed: int = Field(
        description="Of the submission (0 or 1), or of the player's entries: how many are on "
        "the leaderboards now (not hidden, not deleted, player not banned)."
    )
    audit: AuditEntry = Field(description="The act, as the audit log keeps it.")


class AuditLog(BaseModel):
    """A page of the audit log, newest act first."""

    model_config = document_config("Cruel audit log v1", "audit")

    format: Literal["cruel-audit/1"] = AUDIT_FORMAT
    total: int = Field(description="Acts in the whole log.")
    offset: int
    entries: list[AuditEntry]


class QueueEntry(BaseModel):
    """A flagged entry: hidden from the public boards until a moderator clears it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    submission_id: int
    puzzle: str
    player: str
    moves: int
    redeals: int
    actions: int
    elapsed_ms: int | None = Field(description="The live attempt's server time; null: untimed.")
    submitted_at: dt.datetime
    flagged_at: dt.datetime
    reasons: list[Flag] = Field(
        description="too-fast, batched, metronome: a live attempt's timing no person plays; "
        "fast-par: a live win at par or better at a pace under --par-pace a step; "
        "untimed-par: a submitted log at par or better that no live attempt timed."
    )
    detail: str
    attempt: str | None = Field(description="The live attempt that won it; null: a submission.")
    status: Review
    log: str = Field(description="Its moves in compact form.")


class ReviewQueue(BaseModel):
    """A page of the review queue, oldest flag first."""

    model_config = document_config("Cruel review queue v1", "review-queue")

    format: Literal["cruel-review-queue/1"] = QUEUE_FORMAT
    status: Review = Field(description="The entries listed: pending (to decide), or decided.")
    total: int = Field(description="Entries of this status in the whole queue.")
    offset: int
    entries: list[QueueEntry]


def queue_entry(
    db: Connection,
    submission_id: int,
    reasons: list[str],
    detail: str,
    at: dt.datetime,
    attempt: str | None = None,
) -> None:
    """Put a new entry in the review queue, hidden, in the transaction ``db`` that stores it
    (before the boards' tallies are moved: the entry never counts on a public board)."""
    db.execute(
        "INSERT INTO hidden_submissions (submission, hidden_at) VALUES (?, ?)"
        " ON CONFLICT DO NOTHING",
        (submission_id, at.isoformat()),
    )
    db.execute(
        "INSERT INTO review_queue (submission, flagged_at, reasons, detail, attempt, status)"
        " VALUES (?, ?, ?, ?, ?, 'pending') ON CONFLICT DO NOTHING",
        (submission_id, at.isoformat(), orjson.dumps(reasons).decode(), detail, attempt),
    )


class FlagUntimed:
    """A submitted log's claim that puts its new entry in the review queue (``untimed-par``):
    a win at par or better that no live attempt timed (issue #24, finding 4: the solver's line
    ranked first). A :class:`~cruel_tools.site.judging.AttemptClaim` with no time."""

    def __init__(self, par: int, actions: int, at: dt.datetime) -> None:
        self.par, self.actions, self.at = par, actions, at

    def check(self, db: Connection) -> None:
        return None

    def use(self, db: Connection, submission_id: int) -> None:
        detail = f"a submitted log of {self.actions} actions (par {self.par}), untimed"
        queue_entry(db, submission_id, ["untimed-par"], detail, self.at)


# --- the store -----------------------------------------------------------------------------------


_RECORD: Final = "id, puzzle, player, moves, redeals, submitted_at, elapsed_ms, game, log"
_AUDIT: Final = "id, at, key_id, key_name, action, changed, submission, player, reason, record"


def _record(row: tuple[int, str, str, int, int, str, int | None, str, str]) -> SubmissionRecord:
    sid, puzzle, player, moves, redeals, at, elapsed, game, log = row
    return SubmissionRecord(
        submission_id=sid,
        puzzle=puzzle,
        player=player,
        moves=moves,
        redeals=redeals,
        submitted_at=dt.datetime.fromisoformat(at),
        elapsed_ms=elapsed,
        game=game,
        log=log,
    )


def _audit(
    row: tuple[int, str, int, str, str, int, int | None, str, str | None, str | None],
) -> AuditEntry:
    aid, at, key_id, key_name, action, changed, sid, player, reason, record = row
    return AuditEntry(
        id=aid,
        at=dt.datetime.fromisoformat(at),
        key_id=key_id,
        key_name=key_name,
        action=action,
        changed=bool(changed),
        submission_id=sid,
        player=player,
        reason=reason,
        submission=SubmissionRecord.model_validate_json(record) if record else None,
    )


def record_act(
    db: Connection,
    when: dt.datetime,
    key: ApiKey,
    action: Action,
    changed: bool,
    sid: int | None,
    player: str,
    reason: str | None,
    record: SubmissionRecord | None,
) -> AuditEntry:
    """Write one act in the audit log, in the act's transaction ``db``, and return its entry:
    the one writer of ``moderation_audit`` (the store's acts and
    :meth:`cruel_tools.site.players.Players.revoke`)."""
    stored = orjson.dumps(record.model_dump(mode="json")).decode() if record else None
    (aid,) = db.execute(
        "INSERT INTO moderation_audit (at, key_id, key_name, action, changed, submission,"
        " player, reason, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            when.astimezone(dt.UTC).isoformat(),
            key.id,
            key.name,
            action,
            int(changed),
            sid,
            player,
            reason,
            stored,
        ),
    ).fetchone()
    return AuditEntry(
        id=aid,
        at=when,
        key_id=key.id,
        key_name=key.name,
        action=action,
        changed=changed,
        submission_id=sid,
        player=player,
        reason=reason,
        submission=record,
    )


class Moderation(Store):
    """Moderation of the leaderboards, in the store (:class:`~cruel_tools.site.tables.Store`): safe
    to share between threads. Each act is one transaction with its audit entry. A database
    locked by another process for over ``timeout`` seconds raises
    :class:`~cruel_tools.site.database.StoreBusy`. Bans are read on every submission, from the
    database's reading connection (SQLite), so that they never queue behind an act waiting for
    another process's lock.
    """

    # -- acts --

    def hide(self, sid: int, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """Hide a submission: kept, listed on no leaderboard."""
        return self._on_submission("hide", sid, key, reason)

    def unhide(self, sid: int, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """List a hidden submission again (unless its player is banned)."""
        return self._on_submission("unhide", sid, key, reason)

    def delete(self, sid: int, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """Delete a submission; the audit entry keeps all it was."""
        return self._on_submission("delete", sid, key, reason)

    def ban(self, player: str, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """Ban a player (an enforced name, :func:`cruel_tools.site.names.enforce`): their entries
        are listed nowhere, and the service refuses their submissions."""
        return self._on_player("ban", player, key, reason)

    def unban(self, player: str, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """Lift a ban: the player's entries (those not hidden) are listed again."""
        return self._on_player("unban", player, key, reason)

    def clear(self, sid: int, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """Clear a flagged entry of the review queue: it is listed on its board."""
        return self._on_submission("clear", sid, key, reason)

    def reject(self, sid: int, key: ApiKey, reason: str | None = None) -> ModerationResult:
        """Reject a flagged entry: it stays hidden (kept, as the evidence); its queue row is
        decided."""
        return self._on_submission("reject", sid, key, reason)

    # -- reads --

    def queue(self, status: Review = "pending", limit: int = 100, offset: int = 0) -> ReviewQueue:
        """Entries ``offset`` to ``offset + limit`` of the review queue of ``status``, oldest
        flag first."""
        limit = max(0, min(limit, MAX_PAGE))
        with self.database.read() as db:
            total = db.execute(
                "SELECT COUNT(*) FROM review_queue WHERE status = ?", (status,)
            ).fetchone()[0]
            rows = db.execute(
                "SELECT s.id, s.puzzle, s.player, s.moves, s.redeals, s.elapsed_ms,"
                " s.submitted_at, q.flagged_at, q.reasons, q.detail, q.attempt, q.status, s.log"
                " FROM review_queue AS q JOIN submissions AS s ON s.id = q.submission"
                " WHERE q.status = ? ORDER BY q.flagged_at, q.submission LIMIT ? OFFSET ?",
                (status, limit, offset),
            ).fetchall()
        entries = []
        for row in rows:
            sid, puzzle, player, moves, redeals, elapsed, at, flagged, reasons = row[:9]
            detail, attempt, state, log = row[9:]
            entries.append(
                QueueEntry(
                    submission_id=sid,
                    puzzle=puzzle,
                    player=player,
                    moves=moves,
                    redeals=redeals,
                    actions=moves + redeals,
                    elapsed_ms=elapsed,
                    submitted_at=dt.datetime.fromisoformat(at),
                    flagged_at=dt.datetime.fromisoformat(flagged),
                    reasons=orjson.loads(reasons),
                    detail=detail,
                    attempt=attempt,
                    status=state,
                    log=log,
                )
            )
        return ReviewQueue(status=status, total=int(total), offset=offset, entries=entries)

    def is_banned(self, player: str) -> bool:
        """Whether ``player`` (an enforced name) is banned; never waits for a write."""
        with self.database.read() as db:
            return self._banned(db, player)

    def audit(self, limit: int = 100, offset: int = 0) -> AuditLog:
        """Entries ``offset`` to ``offset + limit`` of the audit log, newest first."""
        limit = max(0, min(limit, MAX_PAGE))
        with self.database.read() as db:
            total = db.execute("SELECT COUNT(*) FROM moderation_audit").fetchone()[0]
            rows = db.execute(
                f"SELECT {_AUDIT} FROM moderation_audit ORDER BY id DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return AuditLog(total=total, offset=offset, entries=[_audit(r) for r in rows])

    # -- inside --

    @staticmethod
    def _banned(db: Connection, player: str) -> bool:
        found = db.execute("SELECT 1 FROM banned_players WHERE player = ?", (player,))
        return found.fetchone() is not None

    def _write(self) -> Any:
        """One act's transaction; acts take turns, in every instance (they are few)."""
        return self.database.write(lock="cruel-tools moderation")

    def _on_submission(
        self, action: Action, sid: int, key: ApiKey, reason: str | None
    ) -> ModerationResult:
        when = _now()
        with self._write() as db:
            row = db.execute(f"SELECT {_RECORD} FROM submissions WHERE id = ?", (sid,))
            found = row.fetchone()
            if found is None:
                raise NoSuchSubmission(f"no submission has the id {sid} (or it was deleted)")
            record = _record(found)
            db.lock(skeleton(record.player))  # the player's submissions wait (PostgreSQL)
            if action in ("clear", "reject"):
                self._decide(db, action, sid, key, when)
            tallies = Tallies(db, [(record.puzzle, record.player)])
            was_hidden = (
                db.execute(
                    "SELECT 1 FROM hidden_submissions WHERE submission = ?", (sid,)
                ).fetchone()
                is not None
            )
            if action in ("hide", "reject"):
                changed = not was_hidden or action == "reject"
                db.execute(
                    "INSERT INTO hidden_submissions (submission, hidden_at)"
                    " VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (sid, when.isoformat()),
                )
                hidden = True
            else:
                changed = was_hidden or action == "delete"
                db.execute("DELETE FROM hidden_submissions WHERE submission = ?", (sid,))
                hidden = False
            if action == "delete":
                db.execute("DELETE FROM submissions WHERE id = ?", (sid,))
                db.execute("DELETE FROM unranked_submissions WHERE submission = ?", (sid,))
            tallies.settle()  # the boards' tallies follow the entry's listing
            banned = self._banned(db, record.player)
            entry = record_act(db, when, key, action, changed, sid, record.player, reason, record)
        return ModerationResult(
            action=action,
            changed=changed,
            player=record.player,
            banned=banned,
            submission_id=sid,
            hidden=hidden,
            deleted=action == "delete",
            listed=int(not (hidden or banned or action == "delete")),
            audit=entry,
        )

    def _on_player(
        self, action: Action, player: str, key: ApiKey, reason: str | None
    ) -> ModerationResult:
        when = _now()
        with self._write() as db:
            db.lock(skeleton(player))  # the player's submissions wait (PostgreSQL)
            was_banned = self._banned(db, player)
            tallies = Tallies.of_player(db, player)
            if action == "ban":
                db.execute(
                    "INSERT INTO banned_players (player, banned_at) VALUES (?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (player, when.isoformat()),
                )
            else:
                db.execute("DELETE FROM banned_players WHERE player = ?", (player,))
            changed = was_banned != (action == "ban")
            tallies.settle()
            (listed,) = db.execute(
                "SELECT COUNT(*) FROM visible_submissions WHERE player = ?", (player,)
            ).fetchone()
            entry = record_act(db, when, key, action, changed, None, player, reason, None)
        return ModerationResult(
            action=action,
            changed=changed,
            player=player,
            banned=action == "ban",
            submission_id=None,
            hidden=None,
            deleted=False,
            listed=int(listed),
            audit=entry,
        )

    @staticmethod
    def _decide(db: Connection, action: Action, sid: int, key: ApiKey, when: dt.datetime) -> None:
        """Decide a pending entry of the review queue (:class:`NotInQueue` if there is none)."""
        pending = db.execute(
            "SELECT 1 FROM review_queue WHERE submission = ? AND status = 'pending'", (sid,)
        ).fetchone()
        if pending is None:
            raise NotInQueue(f"submission {sid} waits in no review queue (or was decided)")
        db.execute(
            "UPDATE review_queue SET status = ?, decided_at = ?, decided_by = ?"
            " WHERE submission = ?",
            ("cleared" if action == "clear" else "rejected", when.isoformat(), key.id, sid),
        )


def _now() -> dt.datetime:
    """Server time, UTC (a test sets the clock here)."""
    return dt.datetime.now(dt.UTC)
