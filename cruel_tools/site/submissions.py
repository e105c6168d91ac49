"""The submission flow: what ``POST /v1/puzzles/{id}/submissions`` does, as one library call.

:func:`submit` takes a read submission (:func:`cruel_tools.site.judging.parse_submission`) of an
open puzzle and runs it through the stores in the service's order: a banned player is refused,
the player's rate limit is taken, the log is judged, and a legal win is stored: ranked when a
site sent it with its key (or the server ranks untimed logs), else unranked (nothing timed it;
issue #33, finding 4); a ranked one at par or better, which no live attempt timed, goes to the
review queue (:mod:`cruel_tools.site.moderation`).
A submission naming an attempt is rejected: timed play is a live attempt
(:mod:`cruel_tools.site.live`). The service only reads the request and turns the outcome into HTTP
(docs/service.md).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Hashable
from typing import Final

from ..errors import CruelError
from ..game.traversal import ErrorInfo
from ..puzzles import Puzzle
from .judging import UNTIMED, Submission, SubmissionResult, judge
from .keys import TokenBuckets, throttle
from .moderation import FlagUntimed
from .stores import Stores

__all__ = ["NAMED_ATTEMPT", "PlayerBanned", "submit"]

#: The rejection of a submission that names an attempt (the old start-then-submit flow).
NAMED_ATTEMPT: Final = ErrorInfo(
    index=None,
    path="/attempt",
    code="bad-attempt",
    message="a submission cannot name an attempt: timed play is a live attempt, whose steps go "
    "to POST /v1/attempts/{attempt}/steps and whose win the server stores itself",
)


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
    review_par: bool = True,
    ranked: bool = True,
) -> SubmissionResult:
    """Judge ``submission`` of ``puzzle``, sent by ``sender`` (an API key's id) at
    ``arrived_at`` (the server's clock: a named attempt is timed up to it), and store it if it
    is a legal win: ranked when ``ranked`` (a site vouches for it, or the server ranks untimed
    logs), else unranked (``untimed``); with ``review_par``, a ranked win at par or better goes
    to the review queue.

    :raises PlayerBanned: the player is banned.
    :raises ~cruel_tools.site.keys.RateLimited: the player's bucket is empty (path ``/player``).
    :raises ~cruel_tools.site.database.StoreBusy: the database stayed locked too long.
    """
    player = submission.player
    if stores.moderation.is_banned(player):
        raise PlayerBanned(f"player {player!r} is banned from the leaderboards")
    throttle(player_buckets, player, "for this player", "/player")
    judgement = judge(puzzle, submission, today)
    if submission.attempt is not None:
        # Timed play is a live attempt, whose win the server stores from its own line: a log
        # naming one would time what the server did not see played (issue #24, finding 4).
        return judgement.result(reason=NAMED_ATTEMPT)
    if not ranked:  # nothing timed it (issue #33, finding 4): stored, listed apart, no rank
        return stores.boards.store(dataclasses.replace(judgement, unranked=UNTIMED), arrived_at)
    actions, par = judgement.actions, judgement.par
    if review_par and judgement.reason is None and actions is not None and par is not None:
        if actions <= par.actions:  # nothing timed it: a moderator looks first
            flag = FlagUntimed(par.actions, actions, arrived_at)
            judgement = dataclasses.replace(judgement, attempt=flag)
    return stores.boards.store(judgement, arrived_at)
