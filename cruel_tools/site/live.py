"""Live attempts as library calls: what ``/v1/puzzles/{id}/attempts`` and ``/v1/attempts/...``
do, with no web stack (:mod:`cruel_tools.service.attempts` only reads requests).

The attempt's steps are played and kept by :class:`cruel_tools.site.attempts.Attempts`; here a won
attempt becomes its leaderboard entry through the one path every entry takes: its standing line
as a log of the puzzle, judged (:func:`cruel_tools.site.judging.judge`) and stored
(:meth:`cruel_tools.site.leaderboard.Leaderboards.store`), timed by the server from the start to the
winning step, and put in the review queue when its timing is flagged. A win whose entry was not
stored (the process stopped between the two transactions) is stored when the attempt is next
touched. See ``docs/service.md`` (Live attempts and moderation queue).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Hashable

from ..game.log import from_object
from ..puzzles import Puzzle, entry_log
from .attempts import AttemptState, Auto, LiveClaim
from .judging import Submission, SubmissionResult, judge
from .registry import register
from .stores import Stores
from .submissions import PlayerBanned

__all__ = ["start", "play", "give_up", "state", "store_win"]


def start(
    stores: Stores, puzzle: Puzzle, player: str, auto: Auto, sender: Hashable, now: dt.datetime
) -> AttemptState:
    """Start a live attempt of ``player`` (an enforced name) on an open ``puzzle``.

    :raises PlayerBanned: the player is banned.
    :raises ~cruel_tools.site.judging.BadPlayerField: the name looks like another player's.
    """
    if stores.moderation.is_banned(player):
        raise PlayerBanned(f"player {player!r} is banned from the leaderboards")
    return stores.attempts.start(puzzle, player, auto, sender, now, register)


def play(
    stores: Stores,
    puzzle: Puzzle,
    attempt: str,
    steps: list[str],
    sender: Hashable,
    now: dt.datetime,
    today: dt.date,
) -> AttemptState:
    """Play ``steps`` in ``attempt``; a win is stored as its entry (in ``entry``)."""
    found = stores.attempts.play(puzzle, attempt, steps, sender, now, today)
    return _with_entry(stores, puzzle, found, today)


def give_up(
    stores: Stores, puzzle: Puzzle, attempt: str, sender: Hashable, now: dt.datetime, today: dt.date
) -> AttemptState:
    """End ``attempt`` as given up (or blocked)."""
    return stores.attempts.give_up(puzzle, attempt, sender, now, today)


def state(
    stores: Stores, puzzle: Puzzle, attempt: str, sender: Hashable, now: dt.datetime, today: dt.date
) -> AttemptState:
    """``attempt`` as it stands (a win whose entry is missing is stored now)."""
    found = stores.attempts.state(puzzle, attempt, sender, now, today)
    return _with_entry(stores, puzzle, found, today)


def _with_entry(
    stores: Stores, puzzle: Puzzle, found: AttemptState, today: dt.date
) -> AttemptState:
    if found.status != "won" or found.entry is not None:
        return found
    return found.model_copy(update={"entry": store_win(stores, puzzle, found, today)})


def store_win(
    stores: Stores, puzzle: Puzzle, won: AttemptState, today: dt.date
) -> SubmissionResult:
    """Store a won attempt's entry from the server's own line (idempotent: the same game of
    the same player is stored once), and keep its answer with the attempt."""
    moves = " ".join(step.step for step in won.line)
    log = from_object(entry_log(puzzle, moves, won.player))
    judgement = judge(puzzle, Submission.model_construct(player=won.player, log=log), today)
    at = won.started_at + dt.timedelta(milliseconds=won.elapsed_ms)
    claim = LiveClaim(won.attempt, won.elapsed_ms, tuple(won.flags), at)
    result = stores.boards.store(dataclasses.replace(judgement, attempt=claim), at)
    stores.attempts.settle(won.attempt, result)
    return result
