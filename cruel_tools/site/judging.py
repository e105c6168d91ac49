"""Submissions: a player's game of one puzzle, read, judged and answered, with no database.

A submission is a player's name and a ``cruel-log/1`` log of one puzzle (:class:`Submission`). It
is read by :func:`parse_submission` (the log as ``cruel verify`` reads it), verified against the
puzzle by :func:`cruel_tools.puzzles.verify_for_puzzle` and judged (:func:`judge`): rejected, with
the reason, or a :class:`Judgement` to store (:class:`cruel_tools.site.leaderboard.Leaderboards`),
which
gives the :class:`SubmissionResult`. The same game is the same sequence of moves, however the log
spells it (:func:`game_id`). See ``docs/service.md``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, Protocol, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError, to_json

from ..formats import document_config
from ..game.log import GameLog, Limits, LogFormatError, compact, load, refuse_duplicates
from ..game.traversal import ErrorInfo
from ..game.verify import VerifyReport
from ..puzzles import Puzzle, is_open, solution_is_public, verify_for_puzzle
from ..search.grading import Par
from .database import Connection
from .names import MAX_LENGTH, PlayerNameError, enforce

__all__ = [
    "SUBMISSION_FORMAT",
    "UnrankedReason",
    "UNTIMED",
    "RESULT_FORMAT",
    "PLAYER_PATTERN",
    "PlayerName",
    "AttemptId",
    "Submission",
    "SubmissionResult",
    "parse_submission",
    "player_name_error",
    "read_document",
    "under_log",
    "compact_moves",
    "game_id",
    "AttemptClaim",
    "Judgement",
    "judge",
    "BadPlayerField",
]

SUBMISSION_FORMAT: Final = "cruel-submission/1"
#: Why an accepted entry is not ranked (:attr:`SubmissionResult.unranked_reason`).
UnrankedReason = Literal["untimed", "held-for-review", "hidden", "banned"]
#: The reason of an entry stored unranked because nothing timed it (issue #33, finding 4).
UNTIMED: Final = "untimed"
RESULT_FORMAT: Final = "cruel-submission-result/1"

# A player name is checked by cruel_tools.site.names: PRECIS UsernameCasePreserved (RFC 8265) on
# each
# word between single spaces; the model keeps its enforced form (NFC, full-width letters made
# ordinary). The pattern is only what a JSON Schema can say of it (words of characters other
# than white space, one space apart): every name passes it, and not every string that passes
# it is a name.
PLAYER_PATTERN: Final = r"^\S+(?: \S+)*$"

_Doc = TypeVar("_Doc", bound=BaseModel)


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


# --- formats -------------------------------------------------------------------------------------


AttemptId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=64,
        description="Refused: a submission naming an attempt is rejected (bad-attempt). Timed "
        "play is a live attempt (POST /v1/puzzles/{id}/attempts, then its steps), whose win the "
        "server stores itself from its own line.",
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
    """A submission with its log not yet read: the log is read by
    :func:`cruel_tools.game.log.load`, so
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
        description="Milliseconds from a live attempt's start to its winning step, measured "
        "by the server; null for a submitted log.",
    )
    rank: int | None = Field(
        description="The entry's rank on the whole leaderboard when answered: 1 + the entries "
        "with a strictly better score (fewer actions, or as many actions and fewer redeals). "
        "Equal scores share a rank, whenever they were submitted. Only ranked entries count "
        "(not unranked, not held for review or hidden by a moderator, player not banned); null "
        "for an entry that is not ranked: unranked_reason says why."
    )
    ranked: bool = Field(
        False,
        description="The entry is ranked on its board: a live attempt the server timed, or a "
        "log a site sent with its key. False for a rejected submission, and for an accepted "
        "one that is not ranked (unranked_reason).",
    )
    unranked_reason: UnrankedReason | None = Field(
        None,
        description="Why an accepted entry is not ranked: untimed (a log sent with a player's "
        "token or under --open: nothing timed it; listed apart, ranked=false on the board), "
        "held-for-review (flagged: off the board until a moderator clears it; flags says "
        "why), hidden (by a moderator), banned (its player). Null when ranked or rejected.",
    )
    flags: list[str] = Field(
        default_factory=list,
        description="Why the entry waits for a moderator: too-fast, batched, metronome, "
        "fast-par (a live attempt's timing), untimed-par (a site's log at par or better). "
        "Empty otherwise.",
    )
    reason: ErrorInfo | None = Field(description="Why the submission was rejected.")
    report: VerifyReport = Field(description="The verifier's report on the log.")


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
    # A key given twice, in the submission or its log: refused before pydantic keeps the last.
    refuse_duplicates(data)
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
        return player_name_error(kind, str(err["msg"]))
    else:
        message = str(err["msg"])
    return LogFormatError("schema", f"/{key}", message)


def read_document(model: type[_Doc], data: bytes, what: str, keys: str) -> _Doc:
    """Read a small JSON document of the service (an attempt, a steps request, a claim, a link
    request) as a submission's head is read; :class:`LogFormatError` otherwise: a key given twice
    ``duplicate-key``, a refused ``player`` ``bad-player-name`` at ``/player``, any other fault
    ``schema`` at its JSON pointer (``what`` names the document, ``keys`` lists its keys for an
    unknown one)."""
    refuse_duplicates(data)  # {"player": "ada", "player": "bob"}: neither (duplicate-key)
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
    kind, loc = err["type"], err["loc"]
    key = str(loc[0]) if loc else ""
    if kind == "json_invalid":
        raise LogFormatError("not-json", "", f"not JSON: {err['ctx']['error']}")
    if not key:
        raise LogFormatError("schema", "/", f"{what} is a JSON object")
    if key == "player" and kind != "missing":
        raise player_name_error(kind, str(err["msg"]))
    if kind == "missing":
        message = f"required key {key!r} is missing"
    elif kind == "extra_forbidden":
        message = f"unknown key {key!r} ({what} has {keys})"
    else:
        message = str(err["msg"])
    raise LogFormatError("schema", "/" + "/".join(str(p) for p in loc), message)


class BadPlayerField(LogFormatError):
    """A submission's or an attempt's ``player`` that is not a player name: a
    :class:`~cruel_tools.game.log.LogFormatError` at ``/player`` (the service answers it as any bad
    field of the document) carrying :class:`~cruel_tools.site.names.PlayerNameError`'s code,
    ``bad-player-name``."""

    reports = (PlayerNameError,)


def player_name_error(kind: str, message: str) -> BadPlayerField:
    """A refused ``player`` (pydantic's error ``kind`` and message) in our words: the one
    wording of a bad name in a submission and in an attempt (``bad-player-name``)."""
    names = {
        "bad_player_name": message,
        "string_type": "player name: not a string",
        "string_too_short": "player name: empty (a name is 1 to 64 characters)",
        "string_too_long": f"player name: over the limit of {MAX_LENGTH} characters",
    }
    return BadPlayerField("bad-player-name", "/player", names.get(kind, message))


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
    """What a new entry carries into its write transaction: a won live attempt's time
    (:class:`cruel_tools.site.attempts.LiveClaim`), or a flag for the review queue
    (:class:`cruel_tools.site.moderation.FlagUntimed`)."""

    def check(self, db: Connection) -> ErrorInfo | int | None:
        """The entry's elapsed milliseconds (None: untimed), or why it may not be stored."""
        ...

    def use(self, db: Connection, submission_id: int) -> None:
        """Settle the claim on the new entry (its attempt, its flags)."""
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
    unranked: str | None = None  # stored unranked, and why (UNTIMED); None: ranked

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
