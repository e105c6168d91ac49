"""The submission flow: what ``POST /v1/puzzles/{id}/submissions`` does, as one library call.

:func:`submit` takes a read submission (:func:`cruel_tools.submissions.parse_submission`) of an
open puzzle and runs it through the stores in the service's order: a banned player is refused,
the player's rate limit is taken, the log is judged, a named attempt is claimed, and a legal win
is stored. The service only reads the request and turns the outcome into HTTP (docs/service.md).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Hashable

from .errors import CruelError
from .keys import TokenBuckets, throttle
from .puzzles import Puzzle
from .stores import Stores
from .submissions import Submission, SubmissionResult, judge

__all__ = ["PlayerBanned", "submit"]


class PlayerBanned(CruelError):
    """The player is banned from the leaderboards (a moderator's act): their submission is
    refused before it is verified."""

    code = "player-banned"


def submit(
    stores: Stores,
    puzzle: Puzzle,
    submission: Submission,
    sender: Hashable,
    arrived_at: dt.datetime,
    today: dt.date,
    player_buckets: TokenBuckets | None = None,
) -> SubmissionResult:
    """Judge ``submission`` of ``puzzle``, sent by ``sender`` (an API key's id) at
    ``arrived_at`` (the server's clock: a named attempt is timed up to it), and store it if it
    is a legal win.

    :raises PlayerBanned: the player is banned.
    :raises ~cruel_tools.keys.RateLimited: the player's bucket is empty (path ``/player``).
    :raises ~cruel_tools.store.StoreBusy: the database stayed locked too long.
    """
    player = submission.player
    if stores.moderation.is_banned(player):
        raise PlayerBanned(f"player {player!r} is banned from the leaderboards")
    throttle(player_buckets, player, "for this player", "/player")
    judgement = judge(puzzle, submission, today)
    if submission.attempt is not None:
        claim = stores.attempts.use(submission.attempt, puzzle.id, player, sender, arrived_at)
        judgement = dataclasses.replace(judgement, attempt=claim)
    return stores.boards.store(judgement, arrived_at)
