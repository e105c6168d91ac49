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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from .documents import document_config
from .log import Limits, LogFormatError, load
from .verify import Source, Unit, verify

__all__ = ["STATS_FORMAT", "Excluded", "Record", "Game", "aggregate", "record", "table"]

STATS_FORMAT: Final = "cruel-stats/1"


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


def record(
    units: Iterable[Unit], today: dt.date | None = None, limits: Limits = Limits()
) -> Record:
    """Compute a player's record from log units (see :func:`cruel_tools.inputs.iter_units`)."""
    games: list[Game] = []
    players: set[str] = set()
    excluded: list[Excluded] = []
    for source, data in units:
        try:
            if isinstance(data, LogFormatError):
                raise data
            log = load(data, limits)
        except LogFormatError as exc:
            excluded.append(Excluded(source=source, code=exc.code, message=str(exc)))
            continue
        report = verify(log, source)
        if not report.valid or report.error is not None:
            assert report.error is not None
            excluded.append(
                Excluded(source=source, code=report.error.code, message=report.error.message)
            )
            continue
        meta = log.meta or {}
        if isinstance(meta.get("player"), str):
            players.add(meta["player"][:100])
        start, end = _moment(meta, "started_at"), _moment(meta, "finished_at")
        moment = end or start
        won = report.outcome == "won"
        games.append(
            Game(
                day=moment.date() if moment else None,
                won=won,
                moves=report.moves,
                foundation_cards=report.foundation_cards,
                seconds=_duration(start, end) if won else None,
            )
        )
    return aggregate(games, today, players, excluded)


def _clock(seconds: float) -> str:
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}h {m:02d}m {sec:02d}s" if h else f"{m}m {sec:02d}s"


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def table(rec: Record) -> list[str]:
    """The record as a small table for people."""

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
    lines = [f"Record{who}: {rec.played} logs counted, {len(rec.excluded)} left out"]
    lines += [f"  {name:<15} {value}" for name, value in rows]
    if rec.excluded:
        lines.append("Left out:")
        lines += [f"  {e.source}: {e.message} [{e.code}]" for e in rec.excluded]
    return lines
