"""A player's record: the statistics panel Cruel sites show (seed 002).

The rules live in one place, :func:`aggregate`, which takes one :class:`Game` (the facts of one
game: its day, whether it was won, its moves, its foundation cards, its duration) per game.
:func:`record` feeds it from log files (``cruel stats``): only logs that verify count; the others
are listed with the verifier's error and left out. Dates come from each log's ``meta``: a game's
day is the calendar date of ``finished_at`` (or ``started_at`` when it has no finish) as written
in the log, i.e. in the player's own offset. The service feeds it from the leaderboard store
(``GET /v1/players/{name}``, see ``docs/service.md``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..formats import PlayRating, document_config
from .log import FORMAT_ERROR_CODES, InputProblem, Limits, LogFormatError, load_input
from .verify import Source, Unit, plural, verify

__all__ = [
    "STATS_FORMAT",
    "META_KEYS",
    "MAX_LISTED",
    "Excluded",
    "Record",
    "Game",
    "Notes",
    "aggregate",
    "record",
    "table",
]

STATS_FORMAT: Final = "cruel-stats/1"

#: The keys of a log's ``meta`` that :func:`record` reads (docs/log-format.md); it reads no other.
META_KEYS: Final = ("player", "started_at", "finished_at")

#: The most left-out logs a record lists (memory stays bounded on millions of bad lines); the
#: rest are only counted (:attr:`Notes.excluded`).
MAX_LISTED: Final = 100


class Excluded(BaseModel):
    """A log left out of the record, and why (the verifier's words)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: Source
    code: str
    message: str


class Record(BaseModel):
    """A player's record: from logs (cruel stats) or from the service's store
    (GET /v1/players/{name}), by the same rules."""

    model_config = document_config("Cruel player record v1", "stats")

    format: Literal["cruel-stats/1"] = STATS_FORMAT
    played: int = Field(
        description="Games counted: logs that verify, any outcome (cruel stats); the player's "
        "listed entries (wins) and server-timed attempts that timed no entry (games not won) "
        "(the service)."
    )
    wins: int
    win_rate: float | None = Field(description="wins / played; null when nothing was played.")
    fastest_win_seconds: float | None = Field(
        description="Shortest finished_at - started_at of a win; null when no win has both "
        "(cruel stats). Always null from the service, which has no server-measured times."
    )
    fewest_moves_win: int | None = Field(description="Fewest card moves in a win.")
    best_score: int | None = Field(description="Most foundation cards in one game (4-52).")
    current_streak: int = Field(
        description="Consecutive days with a win, ending on the reference day, or on the day "
        "before it when the reference day has no game."
    )
    best_streak: int = Field(description="Longest run of consecutive days with a win.")
    reference_day: dt.date | None = Field(
        description="The day the current streak is counted to: --today, else the latest game "
        "day (cruel stats); the service's today (the service)."
    )
    players: list[str] = Field(
        description="Distinct meta.player values seen in counted logs (cruel stats); the "
        "player's stored name (the service)."
    )
    excluded: list[Excluded] = Field(
        description="Logs left out (cruel stats); always empty from the service."
    )
    rating: PlayRating | None = Field(
        None,
        description="The player's rating from play (the service: docs/service.md, Ratings); "
        "null until enough live attempts have rated it, and always from cruel stats.",
    )


def _moment(meta: dict[str, Any], key: str) -> dt.datetime | None:
    value = meta.get(key)
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        return None


def _duration(start: dt.datetime | None, end: dt.datetime | None) -> float | None:
    if start is None or end is None or (start.tzinfo is None) != (end.tzinfo is None):
        return None
    seconds = (end - start).total_seconds()
    return seconds if seconds >= 0 else None


def _day_before(day: dt.date) -> dt.date | None:
    return day - dt.timedelta(days=1) if day > dt.date.min else None


def _runs(days: set[dt.date]) -> dict[dt.date, int]:
    """For each day, the length of the run of consecutive days in ``days`` that ends on it."""
    runs: dict[dt.date, int] = {}
    for day in sorted(days):
        before = _day_before(day)
        runs[day] = (runs.get(before, 0) if before else 0) + 1
    return runs


@dataclass(frozen=True)
class Game:
    """The facts of one counted game that a record is made of."""

    #: The calendar day the game counts for (streaks); None: it counts for no day.
    day: dt.date | None
    won: bool
    #: Card moves (counted for a win).
    moves: int | None
    #: Cards on the foundations at the end (4-52).
    foundation_cards: int | None
    #: How long the game took, for a win's fastest time; None: not known.
    seconds: float | None = None


def aggregate(
    games: Iterable[Game],
    today: dt.date | None = None,
    players: Iterable[str] = (),
    excluded: Sequence[Excluded] = (),
) -> Record:
    """The record of ``games``: the rules of every figure (``docs/replay.md``, ``cruel stats``).

    ``today`` is the reference day of the current streak (None: the latest day of a game);
    ``players`` and ``excluded`` are only reported.
    """
    played = wins = 0
    fastest: float | None = None
    fewest: int | None = None
    best: int | None = None
    win_days: set[dt.date] = set()
    all_days: set[dt.date] = set()
    for game in games:
        if game.day:
            all_days.add(game.day)
        played += 1
        best = max(best or 0, game.foundation_cards or 0)
        if not game.won:
            continue
        wins += 1
        fewest = game.moves if fewest is None else min(fewest, game.moves or 0)
        if game.seconds is not None:
            fastest = game.seconds if fastest is None else min(fastest, game.seconds)
        if game.day:
            win_days.add(game.day)
    runs = _runs(win_days)
    reference = today or (max(all_days) if all_days else None)
    current = 0
    if reference is not None:
        # A streak is still alive on a day not played yet (the run may end the day before), but
        # a day with games and no win ends it, as a lost daily puzzle does on puzzle sites.
        before = _day_before(reference) if reference not in all_days else None
        current = runs.get(reference, 0) or (runs.get(before, 0) if before else 0)
    return Record(
        played=played,
        wins=wins,
        win_rate=wins / played if played else None,
        fastest_win_seconds=fastest,
        fewest_moves_win=fewest,
        best_score=best,
        current_streak=current,
        best_streak=max(runs.values(), default=0),
        reference_day=reference,
        players=sorted(set(players)),
        excluded=list(excluded),
    )


@dataclass
class Notes:
    """What :func:`record` saw beside the record itself (``cruel stats`` says it on stderr)."""

    #: Logs left out, all of them (the record lists the first :data:`MAX_LISTED`).
    excluded: int = 0
    #: Of those, inputs that could not be used at all (status ``unreadable``: an input problem,
    #: docs/cli.md, or a file that is not a v1 log).
    unreadable: int = 0
    #: Logs of other players, left aside because one player was asked for.
    other_players: int = 0
    #: Counted logs with a ``started_at`` or ``finished_at`` that cannot be used (not an ISO 8601
    #: time, a finish before the start, one with an offset and one without): such a game counts
    #: for no day (without a usable time) and no fastest time.
    bad_timestamps: int = 0
    #: Every distinct player seen in counted logs (also those past what the record lists).
    players: set[str] = field(default_factory=set)


def _bad_timestamps(
    meta: dict[str, Any], start: dt.datetime | None, end: dt.datetime | None
) -> bool:
    if ("started_at" in meta and start is None) or ("finished_at" in meta and end is None):
        return True
    return start is not None and end is not None and _duration(start, end) is None


def record(
    units: Iterable[Unit],
    today: dt.date | None = None,
    limits: Limits = Limits(),
    player: str | None = None,
    notes: Notes | None = None,
) -> Record:
    """Compute a player's record from log units (see :func:`cruel_tools.game.inputs.iter_units`).

    ``player``: only the logs whose ``meta.player`` is that name count (the others are left
    aside, and counted in ``notes``). The units are read as a stream: memory does not grow with
    their number (at most :data:`MAX_LISTED` left-out logs are kept; ``notes`` counts them all).
    """
    notes = Notes() if notes is None else notes
    excluded: list[Excluded] = []

    def leave_out(source: Source, code: str, message: str) -> None:
        notes.excluded += 1
        notes.unreadable += _status(code) == "unreadable"
        if len(excluded) < MAX_LISTED:
            excluded.append(Excluded(source=source, code=code, message=message))

    def games() -> Iterator[Game]:
        for source, data in units:
            try:
                if isinstance(data, LogFormatError):
                    raise data
                log = load_input(data, limits)
            except LogFormatError as exc:
                leave_out(source, exc.code, str(exc))
                continue
            meta = log.meta or {}
            name = meta.get("player")
            if player is not None and name != player:
                notes.other_players += 1
                continue
            report = verify(log, source)
            if not report.valid or report.error is not None:
                assert report.error is not None
                leave_out(source, report.error.code, report.error.message)
                continue
            if isinstance(name, str):
                notes.players.add(name[:100])
            start, end = _moment(meta, "started_at"), _moment(meta, "finished_at")
            notes.bad_timestamps += _bad_timestamps(meta, start, end)
            moment = end or start
            won = report.outcome == "won"
            yield Game(
                day=moment.date() if moment else None,
                won=won,
                moves=report.moves,
                foundation_cards=report.foundation_cards,
                seconds=_duration(start, end) if won else None,
            )

    # aggregate reads players and excluded after the last game: they are complete by then
    return aggregate(games(), today, notes.players, excluded)


_UNUSABLE: Final = frozenset(FORMAT_ERROR_CODES + InputProblem.codes)


def _status(code: str) -> str:
    """A left-out log's status as ``cruel verify`` says it: ``unreadable`` for input that is not
    a log (a code of :class:`~cruel_tools.game.log.LogFormatError`), else ``invalid``."""
    return "unreadable" if code in _UNUSABLE else "invalid"


def _clock(seconds: float) -> str:
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}h {m:02d}m {sec:02d}s" if h else f"{m}m {sec:02d}s"


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def table(rec: Record, left_out: int | None = None) -> list[str]:
    """The record as a small table for people. ``left_out``: how many logs were left out in
    all (:attr:`Notes.excluded`), when more than the record lists."""

    def opt(value: object, fmt: str = "{}") -> str:
        return "-" if value is None else fmt.format(value)

    rows = [
        ("games played", str(rec.played)),
        ("wins", str(rec.wins)),
        ("win rate", opt(None if rec.win_rate is None else rec.win_rate * 100, "{:.1f}%")),
        (
            "fastest win",
            "-" if rec.fastest_win_seconds is None else _clock(rec.fastest_win_seconds),
        ),
        ("fewest moves", opt(rec.fewest_moves_win, "{} (in a win)")),
        ("best score", opt(rec.best_score, "{} foundation cards")),
        (
            "current streak",
            _days(rec.current_streak)
            + (f" (to {rec.reference_day.isoformat()})" if rec.reference_day else ""),
        ),
        ("best streak", _days(rec.best_streak)),
    ]
    who = (
        f" of {', '.join(rec.players)}" if rec.players and len(", ".join(rec.players)) <= 40 else ""
    )
    total = max(left_out or 0, len(rec.excluded))
    lines = [f"Record{who}: {plural(rec.played, 'log')} counted, {total} left out"]
    lines += [f"  {name:<15} {value}" for name, value in rows]
    if rec.excluded:
        lines.append("Left out:")
        # as cruel verify words each (an input problem in its one wording: docs/cli.md)
        lines += [f"  {e.source}: {_status(e.code)}: {e.message} [{e.code}]" for e in rec.excluded]
        if total > len(rec.excluded):
            lines.append(f"  ... and {total - len(rec.excluded)} more, not listed")
    return lines
