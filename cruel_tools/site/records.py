"""A player's record from the store: their games there, made into ``cruel-stats/1``.

:meth:`cruel_tools.site.leaderboard.Leaderboards.player_games` reads a player's games
(:class:`PlayerGames`); :func:`record_from_store` makes them the record ``cruel stats`` makes from
a player's logs (``GET /v1/players/{name}``, docs/service.md). No database here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from ..game.stats import Game, Record, aggregate
from ..puzzles import Puzzle

__all__ = ["PlayerGames", "record_from_store"]


@dataclass(frozen=True)
class PlayerGames:
    """A player's games in the store (listed entries only: not hidden, player not banned)."""

    #: Every listed entry, oldest first: (puzzle, moves, submitted_at, elapsed_ms: the
    #: server-timed attempt's time, or None).
    wins: list[tuple[str, int, dt.datetime, int | None]]
    #: Every attempt that timed no entry, oldest first: (puzzle, started_at): a game played
    #: and not won.
    unfinished: list[tuple[str, dt.datetime]]


def record_from_store(
    player: str,
    games: PlayerGames,
    puzzle_of: Callable[[str], Puzzle | None],
    zone: dt.tzinfo,
    today: dt.date,
) -> Record:
    """A player's record (``cruel-stats/1``, by the rules of
    :func:`cruel_tools.game.stats.aggregate`)
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
