"""Live attempts: a game played step by step through the server, which plays, times and keeps it.

A player (or a site for them) starts an attempt on an open puzzle
(``POST /v1/puzzles/{id}/attempts``); each step is then sent as it is played
(``POST /v1/attempts/{id}/steps``). The server plays every step through the engine
(:mod:`cruel_tools.game.game`, the only statement of the rules), records it with its own clock's
time
and keeps the standing line; ``undo`` is a step of its own that takes back the last player step
still standing (with the automatic moves the server made after it). Automatic moves
(``auto: foundations``) are the server's: :meth:`cruel_tools.game.game.Game.automatic_move`,
recorded
as such and never counted as the player's speed.

An attempt ends ``won`` (the server stores the entry from its own standing line, timed from the
start to the winning step: :mod:`cruel_tools.site.live`), ``given-up``, ``expired`` (no step for
:attr:`Policy.timeout`, or the puzzle's day over; checked whenever the attempt is touched), or
``blocked``: a position with no legal step stays open (``status: blocked``) for an undo, and
ends ``blocked`` when given up or expired there.

The state lives in the store (tables ``attempts``, ``live_attempts``, ``attempt_steps``), so
every worker and instance sees it; each request is one write transaction (PostgreSQL: an
advisory lock on the attempt's id). See ``docs/service.md`` (Live attempts and moderation queue).
"""

from __future__ import annotations

import datetime as dt
import secrets
import statistics
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ..constants import (
    ATTEMPT_TIMEOUT,
    ATTEMPTS_PER_DAY,
    ATTEMPTS_PER_MINUTE,
    KEEP_STEPS_HOURS,
    MAX_ATTEMPT_STEPS,
    MAX_OPEN_ATTEMPTS,
    PAR_PACE_MS,
    SWEEP_INTERVAL,
    UNDO_SNAPSHOT_STEPS,
)
from ..constants import SPEED_FLOOR_MS as _SPEED_FLOOR_MS
from ..errors import CruelError
from ..formats import document_config
from ..game import cards
from ..game.game import Game, IllegalMove, Move, Step
from ..game.log import COMPACT_STEPS, LogFormatError, compact
from ..game.traversal import ErrorInfo
from ..puzzles import Puzzle, solution_is_public
from .database import Connection
from .judging import PlayerName, SubmissionResult, read_document
from .moderation import queue_entry
from .names import skeleton
from .ratings import rate
from .tables import Store

__all__ = [
    "ATTEMPT_FORMAT",
    "STATE_FORMAT",
    "STEPS_FORMAT",
    "UNDO",
    "MAX_REQUEST_STEPS",
    "TIMEOUT",
    "SPEED_FLOOR_MS",
    "BATCH_MS",
    "METRONOME_CV",
    "METRONOME_INTERVALS",
    "Auto",
    "Status",
    "AttemptRequest",
    "StepsRequest",
    "AppliedStep",
    "Position",
    "AttemptState",
    "NoSuchAttempt",
    "NotYourAttempt",
    "AttemptOver",
    "NothingToUndo",
    "BadStep",
    "IllegalStep",
    "AttemptFull",
    "TooManyAttempts",
    "TooManyOpenAttempts",
    "Policy",
    "Swept",
    "Sweeper",
    "timing_flags",
    "pace_flags",
    "parse_attempt",
    "parse_steps",
    "new_attempt_id",
    "sender_text",
    "LiveClaim",
    "Attempts",
]

ATTEMPT_FORMAT: Final = "cruel-attempt/1"
STATE_FORMAT: Final = "cruel-attempt-state/1"
STEPS_FORMAT: Final = "cruel-attempt-steps/1"
#: The step that takes back the last player step still standing.
UNDO: Final = "undo"
#: Most steps one request may carry.
MAX_REQUEST_STEPS: Final = 200
# MAX_ATTEMPT_STEPS (most steps, player and automatic, undos included, one attempt may record)
# is in constants, with the other storage bounds (issue #33).
#: An attempt with no step for this long expires (checked when it is next touched); stated in
#: constants, with ``cruel serve --attempt-timeout``'s default.
TIMEOUT: Final = dt.timedelta(seconds=ATTEMPT_TIMEOUT)
#: A win whose wall time per player step is under this is flagged ``too-fast`` (constants:
#: ``--speed-floor``'s default).
SPEED_FLOOR_MS: Final = _SPEED_FLOOR_MS
#: A win whose median interval between player steps is under this is flagged ``batched``.
BATCH_MS: Final = 50
#: A win with at least :data:`METRONOME_INTERVALS` player intervals whose coefficient of
#: variation (standard deviation / mean) is under this is flagged ``metronome``.
METRONOME_CV: Final = 0.1
METRONOME_INTERVALS: Final = 20

Auto = Literal["foundations", "off"]
Status = Literal["playing", "won", "blocked", "given-up", "expired"]


# --- errors --------------------------------------------------------------------------------------


class NoSuchAttempt(CruelError):
    """No attempt has this id (it is unguessable: a typo, or another server's)."""

    code = "no-such-attempt"
    status: ClassVar[int] = 404


class NotYourAttempt(CruelError):
    """The attempt was started by another sender (another key, or another player's token):
    only its starter may play, give up or read it."""

    code = "not-your-attempt"
    status: ClassVar[int] = 403


class AttemptOver(CruelError):
    """The attempt has ended (won, given up, expired, or ended blocked): it takes no step."""

    code = "attempt-over"
    status: ClassVar[int] = 409


class NothingToUndo(CruelError):
    """An ``undo`` with no player step standing."""

    code = "nothing-to-undo"
    status: ClassVar[int] = 422


class BadStep(CruelError):
    """A step that is not one: neither log notation (``3F``, ``1-9``, ``2-5x3``, ``R``) nor
    ``undo``; or more steps than a request or an attempt may hold."""

    code = "bad-step"
    status: ClassVar[int] = 422


class AttemptFull(CruelError):
    """The attempt holds the most steps an attempt may record (:attr:`Policy.max_steps`): it
    takes no more; the player gives it up and starts another."""

    code = "attempt-full"
    status: ClassVar[int] = 409


class TooManyAttempts(CruelError):
    """The player name has started the most live attempts a minute or a day allows
    (:attr:`Policy.per_minute`, :attr:`Policy.per_day`); ``retry_after``: seconds until one
    more may start."""

    code = "too-many-attempts"
    status: ClassVar[int] = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TooManyOpenAttempts(CruelError):
    """The player name holds the most open live attempts it may (:attr:`Policy.max_open`);
    ``retry_after``: seconds until the first of them expires, if nothing is played in it."""

    code = "too-many-open-attempts"
    status: ClassVar[int] = 409

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class IllegalStep(CruelError):
    """A step the engine refuses, carrying the engine's code and words
    (:class:`~cruel_tools.game.game.IllegalMove`); nothing of the request is kept."""

    reports = (IllegalMove,)
    status: ClassVar[int] = 422

    def __init__(self, code: str, message: str, path: str) -> None:
        super().__init__(message)
        self.code = code
        self.path = path


# --- documents -----------------------------------------------------------------------------------


class AttemptRequest(BaseModel):
    """The body of ``POST /v1/puzzles/{id}/attempts``: who starts a live attempt."""

    model_config = document_config("Cruel attempt v1", "attempt")

    format: Literal["cruel-attempt/1"] = Field(
        ATTEMPT_FORMAT, description="Optional: the format and version of this document."
    )
    player: PlayerName
    auto: Auto = Field(
        "foundations",
        description="foundations: the server makes the foundation moves that are provably safe "
        "(docs/rules.md, Automatic moves) after each player step; off: none.",
    )


class StepsRequest(BaseModel):
    """The body of ``POST /v1/attempts/{id}/steps``: the steps played, in order."""

    model_config = document_config("Cruel attempt steps v1", "attempt-steps")

    format: Literal["cruel-attempt-steps/1"] = Field(
        STEPS_FORMAT, description="Optional: the format and version of this document."
    )
    steps: list[str] = Field(
        min_length=1,
        max_length=MAX_REQUEST_STEPS,
        description='Steps in compact log notation ("3F", "1-9", "2-5x3", "R") or "undo". All '
        "are played or none: an illegal one refuses the whole request.",
        examples=[["3F", "1-9", "R", "undo"]],
    )


class AppliedStep(BaseModel):
    """A step as the server played it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: str = Field(description='Compact log notation, or "undo".')
    auto: bool = Field(description="Made by the server (auto: foundations), not the player.")


class Position(BaseModel):
    """A position: the piles bottom to top, by card name, and each foundation's card count."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    piles: list[list[str]]
    foundations: list[int] = Field(description="Cards on the foundations of S, H, D, C.")


class AttemptState(BaseModel):
    """A live attempt as the server keeps it."""

    model_config = document_config("Cruel attempt state v1", "attempt-state")

    format: Literal["cruel-attempt-state/1"] = STATE_FORMAT
    attempt: str = Field(description="The attempt's id: unguessable; steps are sent to it.")
    puzzle: str
    player: str
    auto: Auto
    status: Status = Field(
        description="playing; blocked (no legal step: only undo or give-up); won; given-up; "
        "expired. Ended attempts (finished) take no step; blocked may be either."
    )
    finished: bool = Field(description="The attempt has ended and takes no more steps.")
    position: Position
    line: list[AppliedStep] = Field(description="The standing steps: what a win would rank.")
    applied: list[AppliedStep] = Field(
        description="This request's steps, and the automatic moves the server made after them."
    )
    moves: int = Field(description="Card moves of the standing line.")
    redeals: int = Field(description="Redeals of the standing line.")
    actions: int = Field(description="moves + redeals: the standing line's score.")
    player_steps: int = Field(description="Steps the player sent (undos and undone ones too).")
    started_at: dt.datetime = Field(description="The server's time at the start (UTC).")
    elapsed_ms: int = Field(
        description="Server milliseconds from the start to the winning step (won), to the end, "
        "or to the last step."
    )
    expires_at: dt.datetime | None = Field(
        description="When the attempt expires without another step; null once finished."
    )
    flags: list[str] = Field(
        description="Why a won attempt waits for a moderator (too-fast, batched, metronome, "
        "fast-par): its entry is off the public board until cleared. Empty otherwise."
    )
    entry: SubmissionResult | None = Field(description="The leaderboard entry of a win.")


# --- reading -------------------------------------------------------------------------------------


def parse_attempt(data: bytes) -> AttemptRequest:
    """Read an attempt request; raise :class:`LogFormatError` as a submission's head does (a
    refused name is ``bad-player-name`` at ``/player``)."""
    return read_document(AttemptRequest, data, "an attempt", "player, optional format and auto")


def parse_steps(data: bytes) -> list[str]:
    """Read a steps request: its steps, each checked to be a step (:class:`BadStep` at
    ``/steps/k`` otherwise); :class:`LogFormatError` for a body that is not the document."""
    request = read_document(StepsRequest, data, "a steps request", "steps and optional format")
    steps = request.steps
    for k, text in enumerate(steps):
        if text != UNDO and text not in COMPACT_STEPS:
            shown = repr(text[:20])
            raise BadStep(
                f"step {k + 1}: {shown} is not a step (log notation: 3F, 1-9, 2-5x3, R; or undo)"
            )
    return steps


def new_attempt_id() -> str:
    """16 random bytes, url-safe (22 characters): not to be guessed."""
    return secrets.token_urlsafe(16)


def sender_text(sender: Hashable) -> str:
    """How an attempt records who started it: the sender's repr, so a key's id (``7``) and a
    player's token (``'7'``) never read alike."""
    return repr(sender)


# --- timing --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """The stated limits of live attempts (``cruel serve --attempt-timeout/--speed-floor``), and
    the bounds of what one player name may store (``--max-open-attempts``,
    ``--max-attempt-steps``, ``--attempts-per-minute``, ``--attempts-per-day``,
    ``--keep-steps``; issue #33)."""

    timeout: dt.timedelta = TIMEOUT
    floor_ms: int = SPEED_FLOOR_MS
    batch_ms: int = BATCH_MS
    metronome_cv: float = METRONOME_CV
    metronome_intervals: int = METRONOME_INTERVALS
    max_open: int = MAX_OPEN_ATTEMPTS
    max_steps: int = MAX_ATTEMPT_STEPS
    per_minute: int = ATTEMPTS_PER_MINUTE
    per_day: int = ATTEMPTS_PER_DAY
    keep_steps: dt.timedelta = dt.timedelta(hours=KEEP_STEPS_HOURS)
    par_pace_ms: int = PAR_PACE_MS  # --par-pace: fast-par under it (0: never)


def pace_flags(
    line: Sequence[tuple[str, bool]], elapsed_ms: int, par: int, policy: Policy
) -> list[str]:
    """``fast-par``: a win at par or better (``line``, the standing steps, as long as ``par``
    or shorter) played at under ``par_pace_ms`` a player step on average. Finding a deal's
    fewest-actions line is a search people do slowly; a program that knows the line plays it
    at any pace it likes (issue #33: a solver's line at 0.22-0.34 s a step won par unflagged).
    """
    steps = sum(1 for _, auto in line if not auto)
    if policy.par_pace_ms <= 0 or not steps or len(line) > par:
        return []
    return ["fast-par"] if elapsed_ms < policy.par_pace_ms * steps else []


def timing_flags(intervals_ms: Sequence[int], elapsed_ms: int, policy: Policy) -> list[str]:
    """What no person plays, from the player's steps' server times: ``intervals_ms`` from the
    start to the first player step and between consecutive ones (steps of one request share a
    time: their intervals are 0), ``elapsed_ms`` from the start to the win.

    - ``too-fast``: under ``floor_ms`` of wall time per player step, on average;
    - ``batched``: the median interval under ``batch_ms`` (steps sent in bunches, not played);
    - ``metronome``: at least ``metronome_intervals`` intervals after the first step, with a
      coefficient of variation under ``metronome_cv`` (a machine's even beat).
    """
    flags: list[str] = []
    steps = len(intervals_ms)
    if steps and elapsed_ms < policy.floor_ms * steps:
        flags.append("too-fast")
    if steps and statistics.median(intervals_ms) < policy.batch_ms:
        flags.append("batched")
    beats = list(intervals_ms[1:])
    if len(beats) >= policy.metronome_intervals:
        mean = statistics.fmean(beats)
        if mean > 0 and statistics.pstdev(beats) / mean < policy.metronome_cv:  # 0: batched
            flags.append("metronome")
    return flags


# --- the store -----------------------------------------------------------------------------------


@dataclass
class _Attempt:
    """One attempt's row, and its standing line."""

    id: str
    puzzle: str
    player: str
    sender: str
    started_at: dt.datetime
    auto: Auto
    status: Status
    line: list[tuple[str, bool]]
    recorded: int
    player_steps: int
    last_at: dt.datetime
    ended_at: dt.datetime | None
    elapsed_ms: int | None
    flags: list[str]
    entry: str | None
    applied: list[tuple[str, bool]] = field(default_factory=list)
    # (steps, position after them): snapshots of the standing line every UNDO_SNAPSHOT_STEPS
    # steps or more, made while it is replayed, so that an undo plays a few steps, not the line
    marks: list[tuple[int, Game]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.ended_at is not None


_COLUMNS: Final = (
    "a.id, a.puzzle, a.player, a.sender, a.started_at, l.auto, l.status, l.line, l.recorded,"
    " l.player_steps, l.last_at, l.ended_at, l.elapsed_ms, l.flags, l.entry"
)


def _time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def _row(row: tuple[Any, ...]) -> _Attempt:
    aid, puzzle, player, sender, started, auto, status, line, recorded, steps = row[:10]
    last, ended, elapsed, flags, entry = row[10:]
    return _Attempt(
        id=aid,
        puzzle=puzzle,
        player=player,
        sender=sender,
        started_at=_time(started),
        auto=auto,
        status=status,
        line=[(s, bool(a)) for s, a in orjson.loads(line)],
        recorded=recorded,
        player_steps=steps,
        last_at=_time(last),
        ended_at=_time(ended) if ended else None,
        elapsed_ms=elapsed,
        flags=orjson.loads(flags) if flags else [],
        entry=entry,
    )


def _ms(delta: dt.timedelta) -> int:
    return max(0, delta // dt.timedelta(milliseconds=1))


def _opening(puzzle: Puzzle) -> Game:
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    return Game.from_deal(piles, puzzle.resolved_rules())


def _lock(attempt_id: str) -> str:
    """The lock of an attempt's writes: one at a time, in every process."""
    return f"cruel-tools attempt {attempt_id}"


def _replay(
    puzzle: Puzzle, line: list[tuple[str, bool]], marks: list[tuple[int, Game]] | None = None
) -> Game:
    """The standing line's position, played through the engine again (it was legal when kept);
    with ``marks``, a snapshot is added to it every :data:`UNDO_SNAPSHOT_STEPS` steps."""
    game = _opening(puzzle)
    for k, (text, _) in enumerate(line):
        if marks is not None and k % UNDO_SNAPSHOT_STEPS == 0:
            marks.append((k, game.copy()))
        game.push(COMPACT_STEPS[text])
    return game


def _end(attempt: _Attempt, how: Literal["given-up", "expired"], now: dt.datetime) -> None:
    """End ``attempt`` as ``how``, or ``blocked`` where its position has no legal step (its
    stored status says so: it is the position's, kept with every step): the one rule of how an
    attempt ends without a win, for a give-up, an expiry found by a request, and the sweep."""
    attempt.status = "blocked" if attempt.status == "blocked" else how
    attempt.ended_at = now


def _back_to(puzzle: Puzzle, line: list[tuple[str, bool]], marks: list[tuple[int, Game]]) -> Game:
    """The position of ``line`` after an undo shortened it: the last snapshot within it and the
    few steps after that (issue #33, finding 6: an undo replayed the whole line, so 100 undos of
    a 1,600-step line cost a second). Snapshots beyond the line are dropped."""
    while marks and marks[-1][0] > len(line):
        marks.pop()
    if not marks:
        return _replay(puzzle, line, marks)
    at, snapshot = marks[-1]
    game = snapshot.copy()
    for text, _ in line[at:]:
        game.push(COMPACT_STEPS[text])
    return game


def _mark(marks: list[tuple[int, Game]], length: int, game: Game) -> None:
    """A snapshot of ``game`` (the line's first ``length`` steps) if the last is far enough back:
    the steps an undo replays stay under :data:`UNDO_SNAPSHOT_STEPS` and one step's automatic
    moves."""
    if not marks or length - marks[-1][0] >= UNDO_SNAPSHOT_STEPS:
        marks.append((length, game.copy()))


def _autos(game: Game) -> list[tuple[str, bool]]:
    """Make the automatic moves the engine allows now, in ``game``; the steps made."""
    made: list[tuple[str, bool]] = []
    while (move := game.automatic_move()) is not None:
        game.push(move)
        made.append((compact(move), True))
    return made


def _status(game: Game) -> Status:
    outcome = game.outcome()
    return "won" if outcome == "won" else "blocked" if outcome == "blocked" else "playing"


@dataclass(frozen=True)
class LiveClaim:
    """A won attempt's claim on its new entry, settled in the leaderboard's write transaction
    (:meth:`cruel_tools.site.leaderboard.Leaderboards.store`): its time, and its flags, which put
    the
    entry in the moderation queue, hidden until a moderator clears it."""

    attempt: str
    elapsed_ms: int
    flags: tuple[str, ...]
    at: dt.datetime

    def check(self, db: Connection) -> ErrorInfo | int | None:
        row = db.execute(
            "SELECT status, submission_id FROM live_attempts WHERE attempt = ?", (self.attempt,)
        ).fetchone()
        if row is None or row[0] != "won":
            return ErrorInfo(
                index=None, path="/attempt", code="bad-attempt", message="the attempt is not won"
            )
        return self.elapsed_ms

    def use(self, db: Connection, submission_id: int) -> None:
        db.execute(
            "UPDATE live_attempts SET submission_id = ? WHERE attempt = ?",
            (submission_id, self.attempt),
        )
        db.execute(
            "UPDATE attempts SET submission_id = ? WHERE id = ?", (submission_id, self.attempt)
        )
        if self.flags:
            detail = f"live attempt {self.attempt}: " + ", ".join(self.flags)
            queue_entry(db, submission_id, list(self.flags), detail, self.at, self.attempt)


class Attempts(Store):
    """Live attempts, in the tables ``attempts``, ``live_attempts`` and ``attempt_steps`` of
    the store (:class:`~cruel_tools.site.tables.Store`). Every method that changes an attempt is one
    write transaction holding the attempt's lock (PostgreSQL: an advisory lock on its id;
    SQLite: the file's write lock), so two workers never play one attempt at once."""

    policy: Policy = Policy()

    def start(
        self,
        puzzle: Puzzle,
        player: str,
        auto: Auto,
        sender: Hashable,
        now: dt.datetime,
        register: Any = None,
    ) -> AttemptState:
        """Start an attempt of ``player`` on ``puzzle`` at the server's time ``now``; the
        automatic moves of the deal itself are made at once. ``register(db, player)``: the name
        policy's check in the same transaction (an :class:`ErrorInfo` refuses, raised as
        :class:`~cruel_tools.site.judging.BadPlayerField`)."""
        now = now.astimezone(dt.UTC)
        game = _opening(puzzle)
        line = _autos(game) if auto == "foundations" else []
        attempt = _Attempt(
            id=new_attempt_id(),
            puzzle=puzzle.id,
            player=player,
            sender=sender_text(sender),
            started_at=now,
            auto=auto,
            status=_status(game),
            line=line,
            recorded=len(line),
            player_steps=0,
            last_at=now,
            ended_at=None,
            elapsed_ms=None,
            flags=[],
            entry=None,
            applied=list(line),
        )
        # The new id is nobody's yet: what must wait its turn is a lookalike of the name, which
        # register checks (on PostgreSQL, the writers of one skeleton hold its lock).
        with self.database.write(lock=skeleton(player)) as db:
            if register is not None and (refused := register(db, player)) is not None:
                raise _name_refused(refused)
            self._check_starts(db, player, now)
            db.execute(
                "INSERT INTO attempts (id, puzzle, player, sender, started_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (attempt.id, puzzle.id, player, attempt.sender, now.isoformat()),
            )
            db.execute(
                "INSERT INTO live_attempts (attempt, auto, status, line, recorded, player_steps,"
                " last_at) VALUES (?, ?, ?, ?, ?, 0, ?)",
                (attempt.id, auto, attempt.status, _line_text(line), len(line), now.isoformat()),
            )
            self._record(db, attempt.id, 0, line, now)
        return _state(attempt, game, now, self.policy)

    def owner(self, attempt: str) -> tuple[str, str]:
        """The puzzle and the player of ``attempt`` (to check who may touch it)."""
        with self.database.read() as db:
            row = db.execute(
                "SELECT puzzle, player FROM attempts AS a JOIN live_attempts AS l"
                " ON l.attempt = a.id WHERE a.id = ?",
                (attempt,),
            ).fetchone()
        if row is None:
            raise NoSuchAttempt(f"no live attempt has the id {attempt[:64]!r}")
        return str(row[0]), str(row[1])

    def play(
        self,
        puzzle: Puzzle,
        attempt_id: str,
        steps: list[str],
        sender: Hashable,
        now: dt.datetime,
        today: dt.date,
    ) -> AttemptState:
        """Play ``steps`` (checked by :func:`parse_steps`) in the attempt, all or none, at the
        server's time ``now``; the automatic moves after each player step too.

        :raises NoSuchAttempt, NotYourAttempt: not this sender's attempt.
        :raises AttemptOver: it has ended (an attempt found expired now is ended first).
        :raises IllegalStep, NothingToUndo, BadStep: a step refused; nothing is kept.
        """
        now = now.astimezone(dt.UTC)

        def step(db: Connection, attempt: _Attempt, game: Game) -> Game:
            first = attempt.recorded
            game = self._advance(puzzle, attempt, game, steps)
            # Counted with the automatic moves the steps brought, before anything is kept: an
            # attempt never holds more than max_steps rows (the request is refused whole).
            if attempt.recorded > self.policy.max_steps:
                raise AttemptFull(
                    f"the attempt holds {first} steps and these would make {attempt.recorded}, "
                    f"over the {self.policy.max_steps} an attempt may record: give it up and "
                    "start another"
                )
            self._record(db, attempt.id, first, attempt.applied, now)
            attempt.player_steps += len(steps)
            attempt.status = _status(game)
            attempt.last_at = now
            if attempt.status == "won":
                attempt.ended_at = now
                attempt.elapsed_ms = _ms(now - attempt.started_at)
                attempt.flags = timing_flags(
                    self._intervals(db, attempt), attempt.elapsed_ms, self.policy
                ) + pace_flags(attempt.line, attempt.elapsed_ms, puzzle.par.actions, self.policy)
            return game

        return self._change(puzzle, attempt_id, sender, now, today, step)

    def give_up(
        self, puzzle: Puzzle, attempt_id: str, sender: Hashable, now: dt.datetime, today: dt.date
    ) -> AttemptState:
        """End the attempt as ``given-up`` (``blocked`` when no step was legal).

        :raises AttemptOver: it had ended already."""
        now = now.astimezone(dt.UTC)

        def end(db: Connection, attempt: _Attempt, game: Game) -> Game:
            _end(attempt, "given-up", now)
            return game

        return self._change(puzzle, attempt_id, sender, now, today, end)

    def state(
        self, puzzle: Puzzle, attempt_id: str, sender: Hashable, now: dt.datetime, today: dt.date
    ) -> AttemptState:
        """The attempt as it stands (ended first if it has expired: only then a write)."""
        now = now.astimezone(dt.UTC)
        with self.database.read() as db:
            attempt = self._load(db, attempt_id, sender)
        if attempt.finished or not self._expired(attempt, puzzle, now, today):
            return _state(attempt, _replay(puzzle, attempt.line), now, self.policy)
        with self.database.write(lock=_lock(attempt_id)) as db:
            attempt = self._load(db, attempt_id, sender)
            game = _replay(puzzle, attempt.line)
            self._expire(db, attempt, puzzle, now, today)
        return _state(attempt, game, now, self.policy)

    def settle(self, attempt_id: str, result: SubmissionResult) -> None:
        """Keep the answer of a won attempt's entry, for later reads."""
        text = orjson.dumps(result.model_dump(mode="json")).decode()
        with self.database.write(lock=_lock(attempt_id)) as db:
            db.execute(
                "UPDATE live_attempts SET entry = ?, submission_id = COALESCE(submission_id, ?)"
                " WHERE attempt = ?",
                (text, result.submission_id, attempt_id),
            )
            # A win that was a duplicate of the player's stored game is that entry's game: the
            # player's record counts it once, as a win (records: attempts with no entry are
            # games played and not won).
            db.execute(
                "UPDATE attempts SET submission_id = COALESCE(submission_id, ?) WHERE id = ?",
                (result.submission_id, attempt_id),
            )

    def sweep(self, now: dt.datetime, batch: int = 500) -> Swept:
        """Bound what abandoned attempts keep (issue #33): end the attempts left open past the
        timeout (``expired``, or ``blocked`` where no step was legal, rated as a touch would
        end them), then delete the steps of attempts that ended, not won, more than
        :attr:`Policy.keep_steps` ago; their rows stay (start, end, status, standing line).
        ``batch`` attempts a transaction, so no write holds the database long."""
        now = now.astimezone(dt.UTC)
        ended = self._end_stale(now, batch)
        cutoff = (now - self.policy.keep_steps).isoformat()
        swept = deleted = 0
        while True:
            with self.database.write() as db:
                # recorded > 0: steps still kept (a swept attempt's count is set to 0, its rows
                # gone), so each pass finds new attempts only.
                found = [
                    row[0]
                    for row in db.execute(
                        "SELECT attempt FROM live_attempts WHERE status <> 'won'"
                        " AND ended_at IS NOT NULL AND ended_at < ? AND recorded > 0 LIMIT ?",
                        (cutoff, batch),
                    ).fetchall()
                ]
                for aid in found:
                    deleted += db.execute(
                        "DELETE FROM attempt_steps WHERE attempt = ?", (aid,)
                    ).rowcount
                    db.execute("UPDATE live_attempts SET recorded = 0 WHERE attempt = ?", (aid,))
            swept += len(found)
            if len(found) < batch:
                return Swept(ended=ended, swept=swept, steps=deleted)

    def _end_stale(self, now: dt.datetime, batch: int) -> int:
        """End the attempts with no step for the timeout (what a touch would do, without the
        puzzle: the stored status already says whether the position is blocked)."""
        stale = (now - self.policy.timeout).isoformat()
        total = 0
        while True:
            query = (
                f"SELECT {_COLUMNS} FROM attempts AS a JOIN live_attempts AS l"
                " ON l.attempt = a.id WHERE l.ended_at IS NULL AND l.last_at < ?"
            )
            with self.database.write() as db:
                found = db.execute(query + " LIMIT ?", (stale, batch)).fetchall()
                for first in found:
                    # A request to it waits for this lock, then finds it ended; read again
                    # under the lock (PostgreSQL: a step may have just been kept).
                    db.lock(_lock(first[0]))
                    row = db.execute(query + " AND a.id = ?", (stale, first[0])).fetchone()
                    if row is None:
                        continue
                    attempt = _row(row)
                    _end(attempt, "expired", now)
                    self._save(db, attempt)
                    total += 1
            if len(found) < batch:
                return total

    # -- inside --

    def _check_starts(self, db: Connection, player: str, now: dt.datetime) -> None:
        """Refuse a start over the player's bounds: open attempts, starts a minute and a day
        (rolling windows, read from the store in the start's transaction: every worker and
        instance counts the same starts)."""
        policy = self.policy
        fresh = (now - policy.timeout).isoformat()
        open_at = [
            _time(row[0])
            for row in db.execute(
                "SELECT l.last_at FROM attempts AS a JOIN live_attempts AS l ON l.attempt = a.id"
                " WHERE a.player = ? AND l.ended_at IS NULL AND l.last_at > ?",
                (player, fresh),
            ).fetchall()
        ]
        if len(open_at) >= policy.max_open:
            wait = _seconds(min(open_at) + policy.timeout - now)
            raise TooManyOpenAttempts(
                f"player {player!r} has {len(open_at)} live attempts open, the most a name may "
                f"hold: give one up, or retry in {wait} s when the oldest expires",
                wait,
            )
        day = dt.timedelta(days=1)
        starts = [
            _time(row[0])
            for row in db.execute(
                "SELECT a.started_at FROM attempts AS a JOIN live_attempts AS l"
                " ON l.attempt = a.id WHERE a.player = ? AND a.started_at > ?"
                " ORDER BY a.started_at DESC LIMIT ?",
                (player, (now - day).isoformat(), policy.per_day),
            ).fetchall()
        ]
        minute = dt.timedelta(minutes=1)
        recent = [t for t in starts if t > now - minute]
        for count, most, window, span in (
            (len(recent), policy.per_minute, "a minute", minute),
            (len(starts), policy.per_day, "a day", day),
        ):
            if count >= most:
                wait = _seconds(starts[most - 1] + span - now)  # the oldest start that counts
                raise TooManyAttempts(
                    f"player {player!r} has started {most} live attempts in {window}, the "
                    f"most a name may: retry in {wait} s",
                    wait,
                )

    def _change(
        self,
        puzzle: Puzzle,
        attempt_id: str,
        sender: Hashable,
        now: dt.datetime,
        today: dt.date,
        change: Callable[[Connection, _Attempt, Game], Game],
    ) -> AttemptState:
        """One write to an open attempt (steps, a give-up): ``change`` it in its transaction
        and keep it, unless it has expired (then it is ended, and :class:`AttemptOver`)."""
        with self.database.write(lock=_lock(attempt_id)) as db:
            attempt = self._load(db, attempt_id, sender)
            game = _replay(puzzle, attempt.line, attempt.marks)
            ended = self._expire(db, attempt, puzzle, now, today)
            if ended is None:
                game = change(db, attempt, game)
                self._save(db, attempt)
        if ended is not None:
            raise AttemptOver(ended)
        return _state(attempt, game, now, self.policy)

    def _load(self, db: Connection, attempt_id: str, sender: Hashable) -> _Attempt:
        row = db.execute(
            f"SELECT {_COLUMNS} FROM attempts AS a JOIN live_attempts AS l ON l.attempt = a.id"
            " WHERE a.id = ?",
            (attempt_id,),
        ).fetchone()
        if row is None:
            raise NoSuchAttempt(f"no live attempt has the id {attempt_id[:64]!r}")
        attempt = _row(row)
        if attempt.sender != sender_text(sender):
            raise NotYourAttempt("this attempt was started by another sender: only it may play")
        return attempt

    def _expire(
        self,
        db: Connection,
        attempt: _Attempt,
        puzzle: Puzzle,
        now: dt.datetime,
        today: dt.date,
    ) -> str | None:
        """End an attempt found expired (and keep that); why it takes no step, or None."""
        if attempt.finished:
            return f"the attempt has ended: {attempt.status}"
        if not self._expired(attempt, puzzle, now, today):
            return None
        closed = solution_is_public(puzzle, today)
        _end(attempt, "expired", now)
        self._save(db, attempt)
        if closed:
            return f"the attempt has expired: puzzle {puzzle.id}'s day is over"
        minutes = self.policy.timeout // dt.timedelta(minutes=1)
        return f"the attempt has expired: no step for {minutes} minutes"

    def _expired(self, attempt: _Attempt, puzzle: Puzzle, now: dt.datetime, today: dt.date) -> bool:
        """No step for the timeout, or the puzzle's day over."""
        return now - attempt.last_at >= self.policy.timeout or solution_is_public(puzzle, today)

    @staticmethod
    def _advance(puzzle: Puzzle, attempt: _Attempt, game: Game, steps: list[str]) -> Game:
        """Play the player's steps (and the automatic moves after each) from ``game``, the
        position of the attempt's line; the new position. Raises before anything is kept."""
        line = list(attempt.line)
        applied: list[tuple[str, bool]] = []
        for k, text in enumerate(steps):
            if text == UNDO:
                while line and line[-1][1]:
                    line.pop()
                if not line:
                    raise NothingToUndo(f"step {k + 1}: no player step stands to take back")
                line.pop()
                game = _back_to(puzzle, line, attempt.marks)
                applied.append((UNDO, False))
                continue
            step: Step = COMPACT_STEPS[text]
            try:
                game.push(step)
            except IllegalMove as exc:
                raise IllegalStep(
                    exc.code, f"step {k + 1} ({text}): {exc}", f"/steps/{k}"
                ) from None
            line.append((text, False))
            applied.append((text, False))
            if attempt.auto == "foundations":
                made = _autos(game)
                line += made
                applied += made
            _mark(attempt.marks, len(line), game)
        attempt.line, attempt.applied = line, applied
        attempt.recorded += len(applied)
        return game

    def _intervals(self, db: Connection, attempt: _Attempt) -> list[int]:
        """The player's intervals, from the recorded steps (this transaction's too): from the
        start to the first player step, then between consecutive ones (0 between the steps of
        one request: they share its time)."""
        rows = db.execute(
            "SELECT at FROM attempt_steps WHERE attempt = ? AND auto = 0 ORDER BY seq",
            (attempt.id,),
        ).fetchall()
        times = [attempt.started_at, *(_time(r[0]) for r in rows)]
        return [_ms(b - a) for a, b in zip(times, times[1:], strict=False)]

    @staticmethod
    def _record(
        db: Connection, attempt: str, first: int, steps: list[tuple[str, bool]], at: dt.datetime
    ) -> None:
        db.executemany(
            "INSERT INTO attempt_steps (attempt, seq, at, step, auto) VALUES (?, ?, ?, ?, ?)",
            [(attempt, first + k, at.isoformat(), s, int(a)) for k, (s, a) in enumerate(steps)],
        )

    @staticmethod
    def _save(db: Connection, attempt: _Attempt) -> None:
        """Keep the attempt's row; an attempt that has ended is rated in the same transaction
        (:func:`cruel_tools.site.ratings.rate`: once, whichever request ends it)."""
        if attempt.ended_at is not None:
            rate(
                db,
                attempt.id,
                attempt.puzzle,
                attempt.player,
                attempt.status,
                attempt.ended_at,
                attempt.player_steps,
                attempt.flags,
            )
        db.execute(
            "UPDATE live_attempts SET status = ?, line = ?, recorded = ?, player_steps = ?,"
            " last_at = ?, ended_at = ?, elapsed_ms = ?, flags = ? WHERE attempt = ?",
            (
                attempt.status,
                _line_text(attempt.line),
                attempt.recorded,
                attempt.player_steps,
                attempt.last_at.isoformat(),
                attempt.ended_at.isoformat() if attempt.ended_at else None,
                attempt.elapsed_ms,
                orjson.dumps(attempt.flags).decode() if attempt.flags else None,
                attempt.id,
            ),
        )


def _seconds(delta: dt.timedelta) -> int:
    """A wait as a Retry-After: whole seconds, at least 1."""
    return max(1, -(-delta // dt.timedelta(seconds=1)))


@dataclass(frozen=True)
class Swept:
    """What one :meth:`Attempts.sweep` did: attempts ended (left open past their timeout),
    attempts whose steps were deleted, and the steps deleted."""

    ended: int
    swept: int
    steps: int


class Sweeper:
    """A thread of a server process that sweeps its attempts every ``interval`` seconds
    (:meth:`Attempts.sweep`), as :class:`cruel_tools.site.publishing.Publisher` keeps its days:
    every
    worker may run one (a sweep is idempotent, and each batch is a short transaction of its
    own). A failed sweep (a busy or unreachable database) is tried again at the next interval."""

    def __init__(
        self,
        attempts: Attempts,
        clock: Callable[[], dt.datetime],
        interval: float = SWEEP_INTERVAL,
    ) -> None:
        self.attempts = attempts
        self.clock = clock
        self.interval = interval
        self.last: Swept | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="cruel-sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.last = self.attempts.sweep(self.clock())
            except Exception:  # noqa: BLE001  # the next interval tries again; serving goes on
                continue


def _line_text(line: list[tuple[str, bool]]) -> str:
    return orjson.dumps([[s, a] for s, a in line]).decode()


def _name_refused(refused: ErrorInfo) -> LogFormatError:
    from .judging import BadPlayerField

    return BadPlayerField(refused.code, refused.path, refused.message)


def _state(attempt: _Attempt, game: Game, now: dt.datetime, policy: Policy) -> AttemptState:
    def applied(steps: list[tuple[str, bool]]) -> list[AppliedStep]:
        return [AppliedStep(step=s, auto=a) for s, a in steps]

    if attempt.elapsed_ms is not None:
        elapsed = attempt.elapsed_ms
    else:
        elapsed = _ms((attempt.ended_at or attempt.last_at) - attempt.started_at)
    moves = sum(isinstance(COMPACT_STEPS[s], Move) for s, _ in attempt.line)
    redeals = len(attempt.line) - moves
    entry = SubmissionResult.model_validate_json(attempt.entry) if attempt.entry else None
    return AttemptState(
        attempt=attempt.id,
        puzzle=attempt.puzzle,
        player=attempt.player,
        auto=attempt.auto,
        status=attempt.status,
        finished=attempt.finished,
        position=Position(
            piles=[[cards.name(c) for c in p] for p in game.piles],
            foundations=list(game.foundations),
        ),
        line=applied(attempt.line),
        applied=applied(attempt.applied),
        moves=moves,
        redeals=redeals,
        actions=len(attempt.line),
        player_steps=attempt.player_steps,
        started_at=attempt.started_at,
        elapsed_ms=elapsed,
        expires_at=None if attempt.finished else attempt.last_at + policy.timeout,
        flags=attempt.flags,
        entry=entry,
    )
