"""Leaderboards: players' wins of puzzles, verified, deduplicated and ranked, kept in SQLite.

A submission is a player's name and a ``cruel-log/1`` log of one puzzle (:class:`Submission`). It is
verified against the puzzle by :func:`cruel_tools.puzzles.verify_for_puzzle`; a legal win is stored
and ranked by fewest actions (card moves + redeals, what the seed challenge and par count), then
fewest redeals (:data:`SCORE`): equal scores share a rank (1, 1, 3, ...), and the earliest
submission is listed first within a tie. The same game (the same
sequence of moves, however the log spells it) submitted again by the same player is not stored
twice. See ``docs/service.md``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError, to_json

from .documents import document_config
from .errors import CruelError
from .grading import Par
from .log import GameLog, Limits, LogFormatError, compact, load
from .names import MAX_LENGTH, PlayerNameError, enforce, lookalike_message, skeleton
from .puzzles import Puzzle, is_open, solution_is_public, verify_for_puzzle
from .stats import Game, Record, aggregate
from .store import (
    Connection,
    Database,
    SqliteDatabase,
    attach,
    database_errors,
    describe,
    name_of,
)
from .store import StoreBusy as StoreBusy  # re-exported: their old home
from .store import WouldWait as WouldWait
from .store import is_busy as is_busy
from .traversal import ErrorInfo
from .verify import VerifyReport

__all__ = [
    "SUBMISSION_FORMAT",
    "RESULT_FORMAT",
    "LEADERBOARD_FORMAT",
    "DB_VERSION",
    "SCORE",
    "MAX_PAGE",
    "PLAYER_PATTERN",
    "PlayerName",
    "AttemptId",
    "Order",
    "StoreError",
    "Submission",
    "SubmissionResult",
    "Entry",
    "Leaderboard",
    "PlayerGames",
    "parse_submission",
    "under_log",
    "compact_moves",
    "game_id",
    "Judgement",
    "AttemptClaim",
    "judge",
    "Leaderboards",
    "record_from_store",
    "prepare",
    "PG_MIGRATIONS",
    "rebuild_tallies",
    "Tallies",
]

SUBMISSION_FORMAT: Final = "cruel-submission/1"
RESULT_FORMAT: Final = "cruel-submission-result/1"
LEADERBOARD_FORMAT: Final = "cruel-leaderboard/1"
#: Version of the database layout, kept in SQLite's ``user_version``. 2 added ``players``,
#: 3 ``submissions.elapsed_ms`` (server-timed attempts), 4 ``submissions.actions`` (moves +
#: redeals, a generated column) and the indexes of ranking by it, 5 the tallies of the boards
#: (``score_counts``, ``player_best``): ranks and totals without counting entries.
DB_VERSION: Final = 5
#: An entry's score, best first: fewest actions (card moves + redeals), then fewest redeals.
#: Equal scores share a rank; the earliest submission (lowest id) is listed first within a tie.
#: The one statement of the order: every ranking query and index is made of it.
SCORE: Final = ("actions", "redeals")
#: Most entries one leaderboard page holds.
MAX_PAGE: Final = 1000

# A player name is checked by cruel_tools.names: PRECIS UsernameCasePreserved (RFC 8265) on each
# word between single spaces; the model keeps its enforced form (NFC, full-width letters made
# ordinary). The pattern is only what a JSON Schema can say of it (words of characters other
# than white space, one space apart): every name passes it, and not every string that passes
# it is a name.
PLAYER_PATTERN: Final = r"^\S+(?: \S+)*$"


def _player_name(name: str) -> str:
    try:
        return enforce(name)
    except PlayerNameError as exc:  # its message, not pydantic's "Value error, ..."
        raise PydanticCustomError("bad_player_name", "{reason}", {"reason": str(exc)}) from None


PlayerName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_LENGTH,
        description="1 to 64 characters: words that each pass the PRECIS profile "
        "UsernameCasePreserved (RFC 8265), one space apart. Stored in its enforced form (NFC). "
        "A name that looks like an existing player's is refused (player-name-confusable).",
        examples=["ada", "Ada Lovelace"],
        json_schema_extra={"pattern": PLAYER_PATTERN},
    ),
    AfterValidator(_player_name),
]


# Which of the store's errors are bad input. StoreError is: the file it is given is refused for
# what it is (not SQLite, made by a newer cruel-tools, or not to be opened at that path), as
# PuzzleSetError refuses a puzzle folder, and the same call fails again until someone changes
# the file. So it is a CruelError (a ValueError), and `cruel serve` reports both alike.
# StoreBusy and WouldWait are not: the input is good and the database is only in use by
# someone else for now, so the same call may succeed later. Were they ValueErrors, an
# `except ValueError` meant for bad input would turn "retry" into "refused". They stay plain
# Exceptions, apart from StoreError (an `except StoreError` must not catch "busy").


class StoreError(CruelError):
    """The database cannot be used (cannot be opened or reached, not SQLite, or made by a newer
    cruel-tools)."""

    code = "bad-database"


# StoreBusy, WouldWait and is_busy live in cruel_tools.store (both engines); importable from
# here too, as before.


# --- formats -------------------------------------------------------------------------------------


AttemptId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=64,
        description="Optional: the id of this player's attempt on this puzzle (POST "
        "/v1/puzzles/{id}/attempts, with the same key). The entry is then timed by the server, "
        "from the attempt's start to the submission's arrival; meta is never read for time.",
    ),
]


class Submission(BaseModel):
    """A player's game of one puzzle, as sent to ``POST /v1/puzzles/{id}/submissions``."""

    model_config = document_config("Cruel submission v1", "submission")

    format: Literal["cruel-submission/1"] = Field(
        SUBMISSION_FORMAT, description="Optional: the format and version of this document."
    )
    player: PlayerName
    log: GameLog
    attempt: AttemptId = None


class _Head(BaseModel):
    """A submission with its log not yet read: the log is read by :func:`cruel_tools.log.load`, so
    its errors are exactly those ``cruel verify`` gives."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["cruel-submission/1"] = SUBMISSION_FORMAT
    player: PlayerName
    log: Any
    attempt: AttemptId = None


class SubmissionResult(BaseModel):
    """The verdict on one submission."""

    model_config = document_config("Cruel submission result v1", "submission-result")

    format: Literal["cruel-submission-result/1"] = RESULT_FORMAT
    puzzle: str
    player: str
    accepted: bool = Field(description="A legal win of this puzzle: it is on the leaderboard.")
    duplicate: bool = Field(
        description="This player had already submitted this game; the earlier entry stands."
    )
    submission_id: int | None = Field(description="The leaderboard entry, when accepted.")
    submitted_at: dt.datetime | None = Field(description="When the entry was first stored (UTC).")
    moves: int | None = None
    redeals: int | None = None
    actions: int | None = Field(
        None,
        description="Card moves + redeals: what the leaderboard ranks and par counts; null when "
        "the log could not be played.",
    )
    par_actions: int | None = Field(
        None,
        description="The puzzle's par: the fewest actions found for a win. Null for a rejected "
        "submission.",
    )
    versus_par: int | None = Field(
        None,
        description="actions - par_actions: 0 at par, positive over par, negative under par. "
        "Null for a rejected submission.",
    )
    optimal: bool | None = Field(
        None,
        description="The entry's actions are proven the fewest possible: at par when par is "
        "proven optimal, or equal to the proven lower bound. Null for a rejected submission.",
    )
    elapsed_ms: int | None = Field(
        None,
        description="Milliseconds from the attempt's start to the first submission of the "
        "entry, measured by the server; null without an attempt.",
    )
    rank: int | None = Field(
        description="The entry's rank on the whole leaderboard when answered: 1 + the entries "
        "with a strictly better score (fewer actions, or as many actions and fewer redeals). "
        "Equal scores share a rank, whenever they were submitted. Only entries on the "
        "leaderboard count (not hidden by a moderator, player not banned); null for an entry "
        "that is not."
    )
    reason: ErrorInfo | None = Field(description="Why the submission was rejected.")
    report: VerifyReport = Field(description="The verifier's report on the log.")


class Entry(BaseModel):
    """One accepted win on a leaderboard."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rank: int = Field(
        description="1 + the entries ranked (with best_per_player: players) with a strictly "
        "better score: fewer actions (card moves + redeals), or as many actions and fewer "
        "redeals. Equal scores share a rank (1, 1, 3, ...); within a tie the earliest submission "
        "is listed first."
    )
    player: str
    moves: int
    redeals: int
    actions: int = Field(description="Card moves + redeals: the score, with redeals.")
    submitted_at: dt.datetime
    submission_id: int
    elapsed_ms: int | None = Field(
        None,
        description="Milliseconds from the attempt's start to the submission, measured by the "
        "server; null for an entry without an attempt. With by=time, equal times share a rank.",
    )


#: How a leaderboard ranks: fewest actions, or fastest server-timed win.
Order = Literal["actions", "time"]


class Leaderboard(BaseModel):
    """A page of a puzzle's leaderboard."""

    model_config = document_config("Cruel leaderboard v1", "leaderboard")

    format: Literal["cruel-leaderboard/1"] = LEADERBOARD_FORMAT
    puzzle: str
    best_per_player: bool = Field(description="Only each player's best entry is ranked.")
    by: Order = Field(
        "actions",
        description="actions: fewest actions (card moves + redeals), then fewest redeals. time: "
        "only server-timed entries, fastest first, then fewest actions, then redeals.",
    )
    total: int = Field(description="Entries on the whole leaderboard.")
    offset: int
    entries: list[Entry]


# --- reading submissions -------------------------------------------------------------------------


def parse_submission(data: bytes, limits: Limits = Limits()) -> Submission:
    """Read a submission from JSON text; raise :class:`LogFormatError` (path into the submission).

    The log inside is read as ``cruel verify`` reads a log file, so a log gets the same error
    here as there, its path prefixed with ``/log``.
    """
    if len(data) > limits.max_bytes:
        raise LogFormatError(
            "too-large", "", f"body is {len(data)} bytes, over the limit of {limits.max_bytes}"
        )
    try:
        # pydantic's JSON parser, as for a log file: it keeps big integers exact (orjson would
        # make them floats) and bounds nesting.
        head = _Head.model_validate_json(data)
    except ValidationError as exc:
        raise _head_error(exc) from None
    try:
        log = load(to_json(head.log), limits)
    except LogFormatError as exc:
        raise LogFormatError(exc.code, under_log(exc.path), exc.message) from None
    return Submission.model_construct(
        format=head.format, player=head.player, log=log, attempt=head.attempt
    )


def under_log(pointer: str) -> str:
    """A JSON pointer into a log, as a pointer into the submission that holds the log."""
    return "/log" + pointer.rstrip("/")


def _head_error(exc: ValidationError) -> LogFormatError:
    err = exc.errors(include_url=False)[0]
    key = str(err["loc"][0]) if err["loc"] else ""
    kind = err["type"]
    if kind == "json_invalid":
        return LogFormatError("not-json", "", f"not JSON: {err['ctx']['error']}")
    if not key:
        return LogFormatError("schema", "/", "a submission is a JSON object")
    if kind == "missing":
        message = f"required key {key!r} is missing"
    elif kind == "extra_forbidden":
        message = f"unknown key {key!r} (a submission has player, log, optional format and attempt)"
    elif key == "player":
        names = {
            "bad_player_name": str(err["msg"]),
            "string_type": "player name: not a string",
            "string_too_short": "player name: empty (a name is 1 to 64 characters)",
            "string_too_long": f"player name: over the limit of {MAX_LENGTH} characters",
        }
        return LogFormatError("bad-player-name", "/player", names.get(kind, str(err["msg"])))
    else:
        message = str(err["msg"])
    return LogFormatError("schema", f"/{key}", message)


# --- verdicts -------------------------------------------------------------------------------------


def compact_moves(log: GameLog) -> str:
    """The log's moves in compact form, one string: ``"3F 3-7 R ..."``."""
    return " ".join(map(compact, log.steps()))


def game_id(log: GameLog) -> str:
    """What makes two logs the same game: their moves in compact form (spelling, card names,
    meta and claims do not count), hashed."""
    return _digest(compact_moves(log))


def _digest(moves: str) -> str:
    return hashlib.sha256(moves.encode()).hexdigest()


class AttemptClaim(Protocol):
    """A submission's claim on a server-timed attempt (made by :mod:`cruel_tools.attempts`),
    settled in the write transaction of a new entry."""

    def check(self, db: Connection) -> ErrorInfo | int:
        """The entry's elapsed milliseconds, or why the attempt may not time it."""
        ...

    def use(self, db: Connection, submission_id: int) -> None:
        """Mark the attempt used by the new entry."""
        ...


@dataclass(frozen=True)
class Judgement:
    """What verifying a submission decided, before anything is stored."""

    puzzle: str
    player: str
    report: VerifyReport
    reason: ErrorInfo | None  # why it is rejected; None: it goes on the leaderboard
    game: str  # game_id() of the log
    log: str  # its moves in compact form
    attempt: AttemptClaim | None = None  # the server-timed attempt it names, if any
    par: Par | None = None  # the puzzle's, to compare an accepted entry with

    @property
    def moves(self) -> int | None:
        return self.report.moves

    @property
    def redeals(self) -> int | None:
        return self.report.redeals

    @property
    def actions(self) -> int | None:
        """Card moves + redeals: the score (with redeals) the leaderboard ranks by."""
        if self.moves is None or self.redeals is None:
            return None
        return self.moves + self.redeals

    def result(self, **fields: Any) -> SubmissionResult:
        """The answer to the submission: this judgement, with what storing it gave; an accepted
        one is compared with par."""
        base: dict[str, Any] = {
            "puzzle": self.puzzle,
            "player": self.player,
            "report": self.report,
            "moves": self.moves,
            "redeals": self.redeals,
            "actions": self.actions,
            "accepted": False,
            "duplicate": False,
            "submission_id": None,
            "submitted_at": None,
            "rank": None,
            "reason": None,
            "elapsed_ms": None,
        }
        actions, par = self.actions, self.par
        if fields.get("accepted") and actions is not None and par is not None:
            base |= {
                "par_actions": par.actions,
                "versus_par": actions - par.actions,
                "optimal": par.proves_optimal(actions),
            }
        return SubmissionResult(**(base | fields))


def judge(puzzle: Puzzle, submission: Submission, today: dt.date | None = None) -> Judgement:
    """Verify ``submission`` against ``puzzle``: rejected, or to be stored.

    A dated puzzle closes when its solution is published, the day after its date (``today``
    defaults to the local date): later wins are verified but not ranked.
    """
    report = verify_for_puzzle(submission.log, puzzle)
    moves = compact_moves(submission.log)
    return Judgement(
        puzzle=puzzle.id,
        player=submission.player,
        report=report,
        reason=_rejection(report, puzzle, today or dt.date.today()),
        game=_digest(moves),
        log=moves,
        par=puzzle.par,
    )


# --- the store -----------------------------------------------------------------------------------


_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,   -- also the order within a tie: earlier first
    puzzle TEXT NOT NULL,
    player TEXT NOT NULL,
    game TEXT NOT NULL,                     -- game_id(): the same game is stored once per player
    moves INTEGER NOT NULL,
    redeals INTEGER NOT NULL,
    log TEXT NOT NULL,                      -- the moves in compact form, for audits and replays
    submitted_at TEXT NOT NULL,             -- ISO 8601, UTC
    elapsed_ms INTEGER,                     -- server-timed attempts (version 3); NULL: untimed
    actions INTEGER GENERATED ALWAYS AS (moves + redeals) VIRTUAL,  -- the score (version 4)
    UNIQUE (puzzle, player, game)
);
CREATE INDEX IF NOT EXISTS submissions_player ON submissions (player, id);  -- records
CREATE TABLE IF NOT EXISTS players (      -- every name with an entry, for lookalikes (version 2)
    player TEXT PRIMARY KEY,
    skeleton TEXT NOT NULL                  -- names.skeleton(player), shared by lookalikes
);
CREATE INDEX IF NOT EXISTS players_skeleton ON players (skeleton);
"""


#: The tallies of the boards (version 5), kept in the transaction of every change of a listed
#: entry (a new entry, a moderator's act), so that a rank or a total is a sum over a puzzle's
#: scores (a few hundred rows) instead of a count of its entries (issue #13: 10^6 of them).
_TALLIES = """
CREATE TABLE IF NOT EXISTS score_counts (   -- per puzzle and score (actions, redeals)
    puzzle TEXT NOT NULL,
    actions INTEGER NOT NULL,
    redeals INTEGER NOT NULL,
    entries INTEGER NOT NULL DEFAULT 0,     -- listed entries with this score
    timed INTEGER NOT NULL DEFAULT 0,       -- of them, server-timed
    bests INTEGER NOT NULL DEFAULT 0,       -- players whose best listed entry has this score
    fastest INTEGER NOT NULL DEFAULT 0,     -- players whose fastest timed entry has this score
    PRIMARY KEY (puzzle, actions, redeals)
);
CREATE TABLE IF NOT EXISTS player_best (    -- per puzzle, each player with a listed entry
    puzzle TEXT NOT NULL,
    player TEXT NOT NULL,
    best_id INTEGER NOT NULL,               -- their best listed entry, by SCORE then id
    best_actions INTEGER NOT NULL,
    best_redeals INTEGER NOT NULL,
    fast_id INTEGER,                        -- their fastest listed timed entry; NULL: none
    fast_elapsed INTEGER,
    fast_actions INTEGER,
    fast_redeals INTEGER,
    PRIMARY KEY (puzzle, player)
);
CREATE INDEX IF NOT EXISTS player_best_score
    ON player_best (puzzle, best_actions, best_redeals, best_id);
CREATE INDEX IF NOT EXISTS player_best_time
    ON player_best (puzzle, fast_elapsed, fast_actions, fast_redeals, fast_id)
    WHERE fast_id IS NOT NULL;
"""

#: The tallies made anew from the entries (a migration; a bulk load). `WHERE true`: SQLite's
#: parser needs it before an INSERT ... SELECT's ON CONFLICT.
_REBUILD = """
DELETE FROM score_counts;
DELETE FROM player_best;
INSERT INTO player_best (puzzle, player, best_id, best_actions, best_redeals,
                         fast_id, fast_elapsed, fast_actions, fast_redeals)
SELECT b.puzzle, b.player, b.id, b.actions, b.redeals, f.id, f.elapsed_ms, f.actions, f.redeals
FROM (SELECT puzzle, player, id, actions, redeals, ROW_NUMBER() OVER (
          PARTITION BY puzzle, player ORDER BY actions, redeals, id) AS n
      FROM visible_submissions) AS b
LEFT JOIN (SELECT puzzle, player, id, elapsed_ms, actions, redeals, ROW_NUMBER() OVER (
          PARTITION BY puzzle, player ORDER BY elapsed_ms, actions, redeals, id) AS n
      FROM visible_submissions WHERE elapsed_ms IS NOT NULL) AS f
  ON f.puzzle = b.puzzle AND f.player = b.player AND f.n = 1
WHERE b.n = 1;
INSERT INTO score_counts (puzzle, actions, redeals, entries, timed)
SELECT puzzle, actions, redeals, COUNT(*), COUNT(elapsed_ms) FROM visible_submissions
GROUP BY puzzle, actions, redeals;
INSERT INTO score_counts (puzzle, actions, redeals, bests)
SELECT puzzle, best_actions, best_redeals, COUNT(*) FROM player_best WHERE true
GROUP BY puzzle, best_actions, best_redeals
ON CONFLICT (puzzle, actions, redeals) DO UPDATE SET bests = excluded.bests;
INSERT INTO score_counts (puzzle, actions, redeals, fastest)
SELECT puzzle, fast_actions, fast_redeals, COUNT(*) FROM player_best WHERE fast_id IS NOT NULL
GROUP BY puzzle, fast_actions, fast_redeals
ON CONFLICT (puzzle, actions, redeals) DO UPDATE SET fastest = excluded.fastest;
"""


def rebuild_tallies(db: Connection) -> None:
    """Make the tallies of every board anew from the listed entries, in the write transaction
    ``db`` (after loading entries in bulk, straight into ``submissions``)."""
    db.script(_REBUILD)


@dataclass
class _Tally:
    """What one player's listed entries of one puzzle add to the tallies."""

    counts: dict[tuple[int, int], list[int]]  # score: [entries, timed, bests, fastest]
    best: tuple[int, int, int] | None  # (id, actions, redeals)
    fast: tuple[int, int, int, int] | None  # (id, elapsed_ms, actions, redeals)


def _tally(db: Connection, puzzle: str, player: str) -> _Tally:
    """A player's part of a puzzle's tallies, from their listed entries (one statement, a few
    rows of the index ``submissions_best``)."""
    found = db.execute(
        "SELECT id, actions, redeals, elapsed_ms FROM visible_submissions"
        " WHERE puzzle = ? AND player = ?",
        (puzzle, player),
    ).fetchall()
    counts: dict[tuple[int, int], list[int]] = {}
    for _, actions, redeals, elapsed in found:
        count = counts.setdefault((actions, redeals), [0, 0, 0, 0])
        count[0] += 1
        count[1] += elapsed is not None
    # The orders of _order(): by score then id; by time, then score, then id.
    best = min(((a, r, i) for i, a, r, _ in found), default=None)
    fast = min(((e, a, r, i) for i, a, r, e in found if e is not None), default=None)
    if best is not None:
        counts[best[:2]][2] += 1
    if fast is not None:
        counts[fast[1:3]][3] += 1
    return _Tally(
        counts,
        None if best is None else (best[2], best[0], best[1]),
        None if fast is None else (fast[3], fast[0], fast[1], fast[2]),
    )


class Tallies:
    """The tallies of some (puzzle, player) pairs, read before a change of their entries'
    listing (:mod:`cruel_tools.moderation`), and moved to what the entries are after it by
    :meth:`settle`, in the same transaction."""

    def __init__(self, db: Connection, pairs: list[tuple[str, str]]) -> None:
        self.db = db
        self.before = [(puzzle, player, _tally(db, puzzle, player)) for puzzle, player in pairs]

    def settle(self) -> None:
        _retally(
            self.db,
            [(pz, pl, old, _tally(self.db, pz, pl)) for pz, pl, old in self.before],
        )


def _retally(db: Connection, changes: list[tuple[str, str, _Tally, _Tally]]) -> None:
    """Move the tallies from each (puzzle, player)'s ``before`` to its ``after``. Rows of
    ``score_counts`` are changed in one order, (puzzle, actions, redeals), in every
    transaction: two writers on one PostgreSQL never wait for each other in a circle."""
    deltas: dict[tuple[str, int, int], list[int]] = {}
    for puzzle, _, before, after in changes:
        for score in set(before.counts) | set(after.counts):
            old = before.counts.get(score, [0, 0, 0, 0])
            new = after.counts.get(score, [0, 0, 0, 0])
            delta = deltas.setdefault((puzzle, *score), [0, 0, 0, 0])
            for k in range(4):
                delta[k] += new[k] - old[k]
    for key in sorted(deltas):
        delta = deltas[key]
        if any(delta):
            db.execute(
                "INSERT INTO score_counts (puzzle, actions, redeals, entries, timed, bests,"
                " fastest) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (puzzle, actions, redeals) DO UPDATE SET"
                " entries = score_counts.entries + excluded.entries,"
                " timed = score_counts.timed + excluded.timed,"
                " bests = score_counts.bests + excluded.bests,"
                " fastest = score_counts.fastest + excluded.fastest",
                (*key, *delta),
            )
    for puzzle, player, before, after in changes:
        if (before.best, before.fast) == (after.best, after.fast):
            continue
        if after.best is None:
            db.execute("DELETE FROM player_best WHERE puzzle = ? AND player = ?", (puzzle, player))
            continue
        fast = after.fast or (None, None, None, None)
        db.execute(
            "INSERT INTO player_best (puzzle, player, best_id, best_actions, best_redeals,"
            " fast_id, fast_elapsed, fast_actions, fast_redeals)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (puzzle, player) DO UPDATE SET best_id = excluded.best_id,"
            " best_actions = excluded.best_actions, best_redeals = excluded.best_redeals,"
            " fast_id = excluded.fast_id, fast_elapsed = excluded.fast_elapsed,"
            " fast_actions = excluded.fast_actions, fast_redeals = excluded.fast_redeals",
            (puzzle, player, *after.best, *fast),
        )


#: The versioned migrations of a PostgreSQL store, in order: (version, what it does). A store
#: records each one applied in its table ``cruel_migrations``; the versions are SQLite's
#: ``user_version`` (:data:`DB_VERSION`), the same layout. PostgreSQL stores began at version
#: 4, so its first migration makes the whole layout of version 4; a later version appends its
#: own statements here (and its upgrade of SQLite files to :func:`_migrate_sqlite`).
PG_MIGRATIONS: Final[tuple[tuple[int, str], ...]] = (
    (4, "the layout of version 4: submissions, players, moderation, keys, attempts"),
    (5, "the tallies of the boards: score_counts, player_best"),
)


def _pg_migration(version: int) -> str:
    """The statements of a PostgreSQL migration (the store modules' own definitions, in this
    engine's words)."""
    from .attempts import SCHEMA as ATTEMPTS  # they import this module
    from .keys import SCHEMA as KEYS

    if version == 4:
        return "\n".join([_SCHEMA, _index_ddl(), _moderation_schema(), KEYS, ATTEMPTS])
    if version == 5:
        return _TALLIES + _REBUILD
    raise AssertionError(f"no migration to version {version}")


def prepare(database: Database, name: str | None = None) -> None:
    """Bring the store's layout up to :data:`DB_VERSION` (once per :class:`Database`), or refuse
    one made by a newer cruel-tools (:class:`StoreError`). SQLite keeps its version in
    ``user_version``; PostgreSQL in the table ``cruel_migrations``, where several instances
    starting at once take turns (an advisory lock), and each migration is one transaction
    (PostgreSQL's definitions are transactional: a failed one leaves nothing behind)."""
    name = name or describe(database.target)
    if getattr(database, "prepared", False):
        return
    if isinstance(database, SqliteDatabase):
        _migrate_sqlite(database, name)
        database.open_reader()
        database.prepared = True
        return
    with database.write(lock="cruel-tools migrations") as db:
        db.script(
            "CREATE TABLE IF NOT EXISTS cruel_migrations (\n"
            "    version INTEGER PRIMARY KEY,\n"
            "    description TEXT NOT NULL,\n"
            "    applied_at TEXT NOT NULL\n"
            ");"
        )
        found = db.execute("SELECT COALESCE(MAX(version), 0) FROM cruel_migrations").fetchone()
        version = int(found[0])
        if version > DB_VERSION:
            raise StoreError(
                f"{name}: made by a newer cruel-tools (database version {version}, "
                f"this one knows {DB_VERSION})"
            )
        now = dt.datetime.now(dt.UTC).isoformat()
        for number, description in PG_MIGRATIONS:
            if number > version:
                db.script(_pg_migration(number))
                db.execute(
                    "INSERT INTO cruel_migrations (version, description, applied_at)"
                    " VALUES (?, ?, ?)",
                    (number, description, now),
                )
    database.prepared = True


def _migrate_sqlite(database: SqliteDatabase, name: str) -> None:
    db = database.connection
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > DB_VERSION:
        raise StoreError(
            f"{name}: made by a newer cruel-tools (database version {version}, "
            f"this one knows {DB_VERSION})"
        )
    if database.target != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL's usual pairing: no fsync per commit
    with db:
        db.executescript(_SCHEMA)
        if version < 2:  # version 1 had no players table: every name stored is a player
            first_seen = "SELECT player FROM submissions GROUP BY player ORDER BY MIN(id)"
            names = db.execute(first_seen).fetchall()
            db.executemany(
                "INSERT OR IGNORE INTO players (player, skeleton) VALUES (?, ?)",
                [(name, skeleton(name)) for (name,) in names],
            )
        if version < 3:
            _add_elapsed(db)
        if version < 4:
            _add_actions(db)
        db.executescript(_index_ddl())
        db.executescript(_moderation_schema())  # after the columns: its view is of them all
        db.executescript(_TALLIES)
        if version < 5:
            db.executescript(_REBUILD)  # once, from the entries there
        db.execute(f"PRAGMA user_version = {DB_VERSION}")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class Leaderboards:
    """Accepted wins of every puzzle, in an SQLite file (created if missing) or a PostgreSQL
    database (a ``postgresql://`` URL; :mod:`cruel_tools.store`).

    Safe to share between threads; several processes may share the store too (SQLite: WAL mode;
    PostgreSQL: any number of instances), and the unique key keeps a game from being stored
    twice whoever wins the race. Reads have a connection of their own, so they never queue
    behind a write waiting for another process.
    """

    def __init__(self, target: Path | str | Database, timeout: float = 10.0) -> None:
        """``target``: a file's path, a ``postgresql://`` URL, or an open :class:`Database`
        (shared, not closed by :meth:`close`). ``timeout``: how long a write waits for another
        process's lock before :class:`StoreBusy`."""
        self.path = name_of(target)
        try:
            self.database, self._own = attach(target, timeout)
            prepare(self.database, self.path)
        except database_errors() as exc:
            raise StoreError(f"{self.path}: cannot use as a database: {_one_line(exc)}") from None

    def close(self) -> None:
        if self._own:
            self.database.close()

    def submit(
        self,
        puzzle: Puzzle,
        submission: Submission,
        now: dt.datetime | None = None,
        today: dt.date | None = None,
    ) -> SubmissionResult:
        """Verify ``submission`` against ``puzzle`` and store it if it is a legal win."""
        return self.store(judge(puzzle, submission, today), now)

    def store(
        self, judgement: Judgement, now: dt.datetime | None = None, wait: bool = True
    ) -> SubmissionResult:
        """Store an accepted judgement (from :func:`judge`), unless this player's game is
        there already.

        ``wait=False`` never waits (for another thread or process using the database): it
        raises :class:`WouldWait` instead, and the caller may retry where waiting is harmless
        (SQLite; PostgreSQL's writers wait only for the same player's). A wait over the store's
        timeout raises :class:`StoreBusy`.
        """
        if judgement.reason is not None:
            return judgement.result(reason=judgement.reason)
        when = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
        return self._insert(judgement, when, wait)

    def _insert(
        self, judgement: Judgement, when: dt.datetime, wait: bool = True
    ) -> SubmissionResult:
        """Insert the judged game unless this player's is there; the result, with the entry."""
        key = (judgement.puzzle, judgement.player, judgement.game)
        find = (
            f"SELECT id, {', '.join(SCORE)}, submitted_at, elapsed_ms FROM submissions"
            " WHERE puzzle = ? AND player = ? AND game = ?"
        )
        # PostgreSQL: writers of one name skeleton (a player and their lookalikes) wait for each
        # other, in every instance; SQLite's BEGIN IMMEDIATE holds the whole file.
        with self.database.write(lock=skeleton(judgement.player), wait=wait) as db:
            # Looked up first, because a refused INSERT still uses up an id; the unique key
            # settles a race with another process between the two statements.
            stored = db.execute(find, key).fetchone()
            new = stored is None
            elapsed = None
            if new and judgement.attempt is not None:  # a resent entry keeps its time
                elapsed = judgement.attempt.check(db)
                if isinstance(elapsed, ErrorInfo):
                    return judgement.result(reason=elapsed)
            if new and (lookalike := _lookalike(db, judgement.player)) is not None:
                return judgement.result(reason=lookalike)
            if new:
                before = _tally(db, judgement.puzzle, judgement.player)
                inserted = db.execute(
                    "INSERT INTO submissions (puzzle, player, game, moves, redeals, log,"
                    " submitted_at, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT DO NOTHING RETURNING id",
                    (
                        *key,
                        judgement.moves,
                        judgement.redeals,
                        judgement.log,
                        when.isoformat(),
                        elapsed,
                    ),
                ).fetchall()
                new = bool(inserted)
                if inserted and judgement.attempt is not None:
                    judgement.attempt.use(db, inserted[0][0])
                if inserted:
                    after = _tally(db, judgement.puzzle, judgement.player)
                    _retally(db, [(judgement.puzzle, judgement.player, before, after)])
                    score = (judgement.actions, judgement.redeals)  # SCORE's columns
                    stored = (inserted[0][0], *score, when.isoformat(), elapsed)
                else:  # stored meanwhile by another process: its entry
                    stored = db.execute(find, key).fetchone()
            # None: not listed (hidden by a moderator, or its player banned).
            listed = _listed(db, stored[0])
            rank = _rank(db, judgement.puzzle, stored[1:-2]) if listed else None
        return judgement.result(
            accepted=True,
            duplicate=not new,
            submission_id=stored[0],
            submitted_at=dt.datetime.fromisoformat(stored[-2]),
            rank=rank,
            elapsed_ms=stored[-1],
        )

    def leaderboard(
        self,
        puzzle_id: str,
        limit: int = 100,
        offset: int = 0,
        best_per_player: bool = False,
        by: Order = "actions",
    ) -> Leaderboard:
        """Entries ``offset`` to ``offset + limit`` of a puzzle's leaderboard, best first.

        ``by="actions"``: by :data:`SCORE` (fewest actions, then fewest redeals); equal scores
        share a rank, 1 + the entries with a strictly better score; the earliest submission is
        listed first within a tie. ``by="time"``: only server-timed entries, fastest first, then
        by score; equal times share a rank. ``best_per_player`` ranks only each player's best
        entry (by the same order).
        """
        limit = max(0, min(limit, MAX_PAGE))
        timed = by == "time"
        order = ", ".join(_order(timed))
        columns = "player, moves, redeals, actions, submitted_at, id, elapsed_ms"
        if best_per_player:
            # Each player's best (or fastest) listed entry is a row of player_best, read in the
            # order of its index; the entries themselves by their ids.
            mark = "fast" if timed else "best"
            keys = (["fast_elapsed"] if timed else []) + [f"{mark}_actions", f"{mark}_redeals"]
            source = (
                f"SELECT {', '.join('s.' + c for c in columns.split(', '))}"
                " FROM player_best AS b JOIN submissions AS s"
                f" ON s.id = b.{mark}_id WHERE b.puzzle = ?"
                + (" AND b.fast_id IS NOT NULL" if timed else "")
                + f" ORDER BY {', '.join('b.' + c for c in keys)}, b.{mark}_id"
            )
        else:
            where = "puzzle = ? AND elapsed_ms IS NOT NULL" if timed else "puzzle = ?"
            source = f"SELECT {columns} FROM visible_submissions WHERE {where} ORDER BY {order}"
        if best_per_player:
            tally = "fastest" if timed else "bests"
        else:
            tally = "timed" if timed else "entries"

        def tie(row: tuple[Any, ...]) -> tuple[Any, ...]:
            return (row[6],) if timed else (row[3], row[2])

        # One read transaction, so the total, the page and its first rank come from the same
        # snapshot.
        with self.database.read() as db:
            found = db.execute(
                f"SELECT COALESCE(SUM({tally}), 0) FROM score_counts WHERE puzzle = ?",
                (puzzle_id,),
            ).fetchone()
            total = int(found[0])
            rows = db.execute(f"{source} LIMIT ? OFFSET ?", (puzzle_id, limit, offset)).fetchall()
            # A page may start inside a tie: its first entry's rank is counted, not offset + 1.
            if not rows:
                first = 0
            elif timed:
                first = _time_rank(db, puzzle_id, rows[0][6], best_per_player)
            else:
                first = _rank(db, puzzle_id, (rows[0][3], rows[0][2]), best_per_player)
        entries: list[Entry] = []
        for k, row in enumerate(rows):
            player, moves, redeals, actions, at, sid, elapsed = row[:7]
            if k == 0:
                rank = first
            elif tie(row) == tie(rows[k - 1]):
                rank = entries[-1].rank  # a tie shares the rank
            else:
                rank = offset + k + 1  # every entry listed before it is strictly better
            entries.append(
                Entry(
                    rank=rank,
                    player=player,
                    moves=moves,
                    redeals=redeals,
                    actions=actions,
                    submitted_at=dt.datetime.fromisoformat(at),
                    submission_id=sid,
                    elapsed_ms=elapsed,
                )
            )
        return Leaderboard(
            puzzle=puzzle_id,
            best_per_player=best_per_player,
            by=by,
            total=total,
            offset=offset,
            entries=entries,
        )

    def entry_moves(self, puzzle_id: str, submission_id: int) -> tuple[str, str] | None:
        """The player and the moves (compact form) of a listed entry of ``puzzle_id``; None when
        there is no such entry, or it is not listed (hidden by a moderator, or its player banned).
        """
        with self.database.read() as db:
            row = db.execute(
                "SELECT player, log FROM visible_submissions WHERE id = ? AND puzzle = ?",
                (submission_id, puzzle_id),
            ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def count(self, timeout: float | None = None) -> int:
        """Accepted entries over all puzzles; ``timeout``: longest wait for a connection of a
        PostgreSQL store's pool (health's)."""
        with self.database.read(timeout) as db:
            return int(db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0])

    def player_games(self, player: str) -> PlayerGames | None:
        """The games of ``player`` (an enforced name) in the store, for player records; None
        when no such player has ever stored an entry or started an attempt."""
        with self.database.read() as db:  # one snapshot for every read
            known = db.execute("SELECT 1 FROM players WHERE player = ?", (player,)).fetchone()
            rows = db.execute(
                "SELECT puzzle, moves, submitted_at, elapsed_ms FROM visible_submissions"
                " WHERE player = ? ORDER BY id",
                (player,),
            ).fetchall()
            has_attempts = db.has_table("attempts")
            started: list[tuple[str, str]] = []
            tried = None
            if has_attempts:
                tried = db.execute(
                    "SELECT 1 FROM attempts WHERE player = ? LIMIT 1", (player,)
                ).fetchone()
                # Attempts that timed no entry (a banned player's count nowhere, as their
                # entries); an attempt that timed an entry is that entry's game (listed: the
                # win; hidden or deleted: nothing, as the entry).
                started = db.execute(
                    "SELECT puzzle, started_at FROM attempts AS a"
                    " WHERE a.player = ? AND a.submission_id IS NULL"
                    " AND NOT EXISTS (SELECT 1 FROM banned_players AS b"
                    " WHERE b.player = a.player)"
                    " ORDER BY a.started_at",
                    (player,),
                ).fetchall()
        if known is None and tried is None and not rows:
            return None
        return PlayerGames(
            wins=[(p, m, dt.datetime.fromisoformat(at), ms) for p, m, at, ms in rows],
            unfinished=[(p, dt.datetime.fromisoformat(at)) for p, at in started],
        )


@dataclass(frozen=True)
class PlayerGames:
    """A player's games in the store (listed entries only: not hidden, player not banned)."""

    #: Every listed entry, oldest first: (puzzle, moves, submitted_at, elapsed_ms: the
    #: server-timed attempt's time, or None).
    wins: list[tuple[str, int, dt.datetime, int | None]]
    #: Every attempt that timed no entry, oldest first: (puzzle, started_at): a game played
    #: and not won.
    unfinished: list[tuple[str, dt.datetime]]


def _order(timed: bool) -> tuple[str, ...]:
    """The columns a leaderboard is listed by: :data:`SCORE` (``timed``: after the time), then
    the submission's id (earliest first within a tie)."""
    return ("elapsed_ms",) * timed + SCORE + ("id",)


def _add_elapsed(db: sqlite3.Connection) -> None:
    """Version 3: ``submissions.elapsed_ms`` (a table made earlier lacks it)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(submissions)")}
    if "elapsed_ms" not in columns:
        db.execute("ALTER TABLE submissions ADD COLUMN elapsed_ms INTEGER")


def _add_actions(db: sqlite3.Connection) -> None:
    """Version 4: ``submissions.actions`` (moves + redeals, generated: a table made earlier
    lacks it); the indexes of ranking by moves go, :func:`_index_ddl` makes those by score."""
    columns = {row[1] for row in db.execute("PRAGMA table_xinfo(submissions)")}
    if "actions" not in columns:
        db.execute(
            "ALTER TABLE submissions ADD COLUMN actions INTEGER"
            " GENERATED ALWAYS AS (moves + redeals) VIRTUAL"
        )
    db.execute("DROP INDEX IF EXISTS submissions_rank")  # (puzzle, moves, redeals, id)
    db.execute("DROP INDEX IF EXISTS submissions_time")  # (puzzle, elapsed_ms, moves, ...)


def _index_ddl() -> str:
    """The indexes of the leaderboard's orders (:func:`_order`): the page and rank count of
    each order, and a player's best entry (``best_per_player``)."""
    score = ", ".join(_order(timed=False))
    timed = ", ".join(_order(timed=True))
    return (
        f"CREATE INDEX IF NOT EXISTS submissions_score ON submissions (puzzle, {score});\n"
        "CREATE INDEX IF NOT EXISTS submissions_best ON submissions"
        f" (puzzle, player, {score});\n"
        "CREATE INDEX IF NOT EXISTS submissions_timed ON submissions"
        f" (puzzle, {timed}) WHERE elapsed_ms IS NOT NULL;\n"
        "CREATE INDEX IF NOT EXISTS submissions_best_timed ON submissions"
        f" (puzzle, player, {timed}) WHERE elapsed_ms IS NOT NULL;\n"
    )


def _rank(db: Connection, puzzle_id: str, score: tuple[int, ...], players: bool = False) -> int:
    """1 + the listed entries of the puzzle (``players``: the players' best entries) with a
    strictly better :data:`SCORE` than ``score``: a sum over the puzzle's tallied scores
    (``score_counts``), however long the board."""
    what = "bests" if players else "entries"
    better = db.execute(
        f"SELECT COALESCE(SUM({what}), 0) FROM score_counts WHERE puzzle = ?"
        f" AND ({', '.join(SCORE)}) < ({', '.join('?' * len(SCORE))})",
        (puzzle_id, *score),
    ).fetchone()[0]
    return int(better) + 1


def _time_rank(db: Connection, puzzle_id: str, elapsed: int, players: bool) -> int:
    """1 + the timed entries of the puzzle (``players``: the players' fastest) strictly faster
    than ``elapsed`` milliseconds: a count over an index (``submissions_timed``,
    ``player_best_time``) of the entries before the page, none for its first page."""
    if players:
        sql = (
            "SELECT COUNT(*) FROM player_best WHERE puzzle = ? AND fast_id IS NOT NULL"
            " AND fast_elapsed < ?"
        )
    else:
        sql = "SELECT COUNT(*) FROM visible_submissions WHERE puzzle = ? AND elapsed_ms < ?"
    return int(db.execute(sql, (puzzle_id, elapsed)).fetchone()[0]) + 1


# --- moderation (cruel_tools.moderation): leaderboards list only visible_submissions -----------


def _moderation_schema() -> str:
    from .moderation import SCHEMA  # it imports this module

    return SCHEMA


def _listed(db: Connection, submission_id: int) -> bool:
    """Whether the entry is on its leaderboard: neither hidden nor its player banned."""
    found = db.execute("SELECT 1 FROM visible_submissions WHERE id = ?", (submission_id,))
    return found.fetchone() is not None


def _lookalike(db: Connection, player: str) -> ErrorInfo | None:
    """Why ``player`` may not have an entry: its name looks like an existing player's (another
    spelling with the same skeleton). None: a player already, or now one (it is registered)."""
    if db.execute("SELECT 1 FROM players WHERE player = ?", (player,)).fetchone():
        return None
    key = skeleton(player)
    other = db.execute(
        "SELECT player FROM players WHERE skeleton = ? ORDER BY player LIMIT 1", (key,)
    ).fetchone()
    if other is None:
        db.execute("INSERT INTO players (player, skeleton) VALUES (?, ?)", (player, key))
        return None
    message = lookalike_message(player, other[0])
    return ErrorInfo(index=None, path="/player", code="player-name-confusable", message=message)


def _rejection(report: VerifyReport, puzzle: Puzzle, today: dt.date) -> ErrorInfo | None:
    """Why a verified log does not go on the leaderboard (None: it does)."""
    if report.error is not None:  # its path points into the log, which is at /log here
        return report.error.model_copy(update={"path": under_log(report.error.path)})
    if report.outcome != "won":
        return ErrorInfo(
            index=None,
            path="/log/moves",
            code="not-a-win",
            message=f"the game is legal but {report.outcome}, with "
            f"{report.foundation_cards} of 52 cards on the foundations",
        )
    if not is_open(puzzle, today):  # the service answers 404 before it gets here
        return ErrorInfo(
            index=None,
            path="/",
            code="puzzle-not-open",
            message=f"puzzle {puzzle.id} opens at the start of {puzzle.date}",
        )
    if solution_is_public(puzzle, today):
        return ErrorInfo(
            index=None,
            path="/",
            code="puzzle-closed",
            message=f"puzzle {puzzle.id} closed at the end of {puzzle.date}, when its solution "
            "was published",
        )
    return None


def record_from_store(
    player: str,
    games: PlayerGames,
    puzzle_of: Callable[[str], Puzzle | None],
    zone: dt.tzinfo,
    today: dt.date,
) -> Record:
    """A player's record (``cruel-stats/1``, by the rules of :func:`cruel_tools.stats.aggregate`)
    from their games in the store. A game counts for its puzzle's date, or for the day it was
    stored (``zone``) when the puzzle is undated or gone. A listed entry is a win, timed only
    by its attempt (never the client's meta); an attempt that timed no entry is a game played
    and not won: moves unknown, its score the 4 aces every game starts with."""

    def day(puzzle_id: str, at: dt.datetime) -> dt.date:
        puzzle = puzzle_of(puzzle_id)
        if puzzle is not None and puzzle.date is not None:
            return puzzle.date
        return at.astimezone(zone).date()

    played = [
        Game(
            day=day(puzzle_id, at),
            won=True,
            moves=moves,
            foundation_cards=52,
            seconds=None if elapsed_ms is None else elapsed_ms / 1000,
        )
        for puzzle_id, moves, at, elapsed_ms in games.wins
    ]
    played += [
        Game(day=day(puzzle_id, at), won=False, moves=None, foundation_cards=4)
        for puzzle_id, at in games.unfinished
    ]
    return aggregate(played, today, [player])
