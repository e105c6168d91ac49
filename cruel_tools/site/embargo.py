"""No help towards a win for a puzzle that is not closed (issue #24): the rule every route that
helps (``POST /v1/analyze``, later hints) applies, as a library call with no web stack.

A puzzle is *closed* once its solution is public (:func:`~cruel_tools.puzzles.solution_is_public`:
from the day after its date); until then (today's puzzles, and puzzles to come) it is *not
closed*, and an analysis of its deal would hand out what ``/solution`` still refuses: a win.

Deals are compared as piles, whatever the rules a log names, and **up to relabelling the suits**:
Cruel does not care which suit is which, so the deal with spades and hearts swapped is the same
puzzle. :func:`canonical_deal` is the one form compared.

A deal given as piles could also be a position reached from an open deal (after redeals every pile
holds four cards again); telling those apart is a search, so piles get help only from a key whose
role is in :data:`PILES_ROLES` (a site's back end, an admin), or when they are (up to suits) the
deal of a closed puzzle. Deal numbers get help from anyone, unless the deal is that of a puzzle not
closed. See docs/service.md, "Help for open puzzles and costly requests".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from ..errors import CruelError
from ..game import cards
from ..game.cards import Card
from ..game.deals import resolve_deal
from ..game.log import GameLog
from ..puzzles import Puzzle, solution_from, solution_is_public

__all__ = [
    "PUZZLE_OPEN",
    "PILES_NEED_KEY",
    "PILES_ROLES",
    "CanonicalDeal",
    "canonical_deal",
    "puzzle_piles",
    "log_piles",
    "not_closed",
    "Refusal",
    "Embargo",
]

#: The one code of a log whose deal is that of a puzzle not closed (today's, or one to come).
PUZZLE_OPEN: Final = "puzzle-open"
#: The code of a deal given as piles by a client without a key of :data:`PILES_ROLES`.
PILES_NEED_KEY: Final = "piles-need-key"
#: The roles of API keys whose logs may give their deal as piles (keys.py's roles).
PILES_ROLES: Final = frozenset({"site", "admin"})

#: A deal as compared: its piles, each bottom to top, suits relabelled (:func:`canonical_deal`).
CanonicalDeal = tuple[tuple[Card, ...], ...]


def canonical_deal(piles: Sequence[Sequence[Card]]) -> CanonicalDeal:
    """The piles with their suits relabelled in order of first appearance (reading pile 1 bottom
    to top, then pile 2, ...): the first suit met becomes spades, the next new one hearts, and so
    on. Two deals are the same up to suits exactly when their forms are equal.

    It is the least of the 24 relabellings (as a tuple of tuples of card numbers, suit * 13 +
    rank - 1): at the first card whose suit two relabellings map differently, the one giving
    it the lower suit is less, and this one gives each new suit the lowest label left. Linear
    in the cards, where trying the 24 would cost 24 times as much (tests check it against them).
    """
    label: dict[int, int] = {}
    out = []
    for pile in piles:
        row = []
        for card in pile:
            suit, rank0 = divmod(card, 13)
            new = label.setdefault(suit, len(label))
            row.append(new * 13 + rank0)
        out.append(tuple(row))
    return tuple(out)


def puzzle_piles(puzzle: Puzzle) -> list[list[Card]]:
    """A puzzle's deal as cards (its file gives the piles, whatever its rules)."""
    return [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]


def log_piles(game_log: GameLog) -> list[list[Card]] | None:
    """The piles a log is played from, resolved as the verifier resolves them (a number under
    the log's rules, piles, or both when they agree); None when they are not a deal, which
    every route refuses anyway (``bad-deal``: no game, so no help)."""
    try:
        return resolve_deal(game_log.deal.number, game_log.deal.piles, game_log.resolved_rules())
    except CruelError:
        return None


def not_closed(puzzles: Iterable[Puzzle], today: dt.date) -> list[Puzzle]:
    """The puzzles not closed on ``today``: open ones whose solution is not public yet, the ones
    to come, and those without a date (their solution is never published)."""
    return [p for p in puzzles if not solution_is_public(p, today)]


@dataclass(frozen=True)
class Refusal:
    """Why a log gets no help: a code (:data:`PUZZLE_OPEN` or :data:`PILES_NEED_KEY`), words
    that name no puzzle, and the JSON pointer of the deal in the log."""

    code: str
    message: str
    path: str


_OPEN_WORDS: Final = (
    "this deal is that of a puzzle still being played or still to come (up to which suit is "
    "which): no help is given for it before its solution is published"
)
_PILES_WORDS: Final = (
    "help for a deal given as piles needs a site or admin API key (Authorization: Bearer "
    "<key>): a position reached in a puzzle can itself be a deal; send the deal's number instead"
)


class Embargo:
    """Every puzzle's deal in canonical form, computed once (a set's puzzles are read once), with
    the first day its solution is public: whether a log may get help is then a dict lookup."""

    def __init__(self, puzzles: Iterable[Puzzle]) -> None:
        #: Canonical deal -> the first day every puzzle with it is closed (None: never).
        self._until: dict[CanonicalDeal, dt.date | None] = {}
        self.add(puzzles)

    def add(self, puzzles: Iterable[Puzzle]) -> None:
        """Take in puzzles published since (``cruel serve``'s days published ahead): their
        deals get no help until their solutions are public, as the set's do."""
        for puzzle in puzzles:
            key = canonical_deal(puzzle_piles(puzzle))
            until = solution_from(puzzle)
            if key in self._until:  # the same deal twice: closed when both are
                known = self._until[key]
                until = None if known is None or until is None else max(known, until)
            self._until[key] = until

    def __len__(self) -> int:
        return len(self._until)

    def _closed(self, piles: Sequence[Sequence[Card]], today: dt.date) -> bool | None:
        """None: ``piles`` are no puzzle's deal; else whether every puzzle with them is closed."""
        key = canonical_deal(piles)
        if key not in self._until:
            return None
        until = self._until[key]
        return until is not None and today >= until

    def is_not_closed(self, piles: Sequence[Sequence[Card]], today: dt.date) -> bool:
        """Whether ``piles`` are, up to suits, the deal of a puzzle not closed ``today``."""
        return self._closed(piles, today) is False

    def is_closed_puzzle(self, piles: Sequence[Sequence[Card]], today: dt.date) -> bool:
        """Whether ``piles`` are, up to suits, the deal of a puzzle, every one of them closed."""
        return self._closed(piles, today) is True

    def refusal(self, game_log: GameLog, today: dt.date, role: str | None) -> Refusal | None:
        """Why ``game_log`` gets no help ``today`` from a client with a key of ``role`` (None:
        no key, or a player's token), or None when it may.

        The deal of a puzzle not closed is refused to everyone, admins too (one code, words that
        name no puzzle, so that asking cannot tell today's puzzles from future ones or say
        which). A deal given only as piles is then helped only for :data:`PILES_ROLES`, or when
        it is a closed puzzle's deal.
        """
        piles = log_piles(game_log)
        if piles is None:
            return None
        closed = self._closed(piles, today)
        if closed is False:
            return Refusal(PUZZLE_OPEN, _OPEN_WORDS, "/deal")
        by_piles = game_log.deal.number is None
        if by_piles and role not in PILES_ROLES and closed is None:
            return Refusal(PILES_NEED_KEY, _PILES_WORDS, "/deal/piles")
        return None
