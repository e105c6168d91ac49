"""Certificates for the solver's ``unwinnable`` verdicts (docs/solver.md, "Certificates").

:func:`certificate_for` makes one with the solver's own rule functions (``pile1_lock``,
``frozen_cards``, ``stuck_cards``): a rule certificate when a rule fires on the position itself,
else the closure of the position (every position reachable from it, not going past the positions
those rules prove lost) counted and digested. :mod:`cruel_tools.game.proofcheck` checks it with
code of its own; the two sides share only the rules engine and the position's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..game import cards
from ..game.cards import Card
from ..game.deals import deal_piles
from ..game.game import Game, Step
from ..game.log import compact
from ..game.proofcheck import Certificate, DealRef, RuleProof, SearchProof, digest_of, position_text
from ..game.rules import PRESETS
from . import solver
from .solver import SolveResult

__all__ = ["CERTIFICATE_POSITIONS", "certificate_for", "closure"]

#: The most positions a search certificate's closure may hold when it is made; past it the
#: verdict comes without a certificate. Deals 1–2,000 need at most a few hundred.
CERTIFICATE_POSITIONS: Final = 200_000


def _rule_proof(game: Game) -> RuleProof | None:
    """The rule that fires on ``game`` itself, as the solver checks them: L, then F, then V."""
    lock = solver.pile1_lock(game)
    if lock is not None:
        p = game.piles[0][:4]
        below = p[: p.index(lock)]
        a = next(c for c in below if c // 13 == lock // 13 and c < lock)
        successor = None if lock % 13 == 12 else cards.name(lock + 1)
        return RuleProof(
            rule="L", cards=[cards.name(lock)], waits_for=cards.name(a), successor_below=successor
        )
    frozen = solver.frozen_cards(game)
    if frozen:
        return RuleProof(
            rule="F", cards=[cards.name(c) for c in frozen], prefix=_prefix(game, frozen)
        )
    stuck = solver.stuck_cards(game)
    if stuck:
        return RuleProof(rule="V", cards=[cards.name(c) for c in stuck])
    return None


def _prefix(game: Game, frozen: list[Card]) -> int:
    """The frozen set's fixed prefix (docs/solver.md, rule F), as a fact for the reader."""
    f = set(frozen)
    seq = [c for pile in game.piles for c in pile]
    tops = {pile[-1] for pile in game.piles if pile}
    m = 0
    for i, c in enumerate(seq):
        if c not in f:
            break
        m = i + 1
        if (c in tops or i % 4 == 3) and (c % 13 == 0 or c - 1 not in f):
            break
    return m


def _lost(game: Game) -> bool:
    return (
        solver.pile1_lock(game) is not None
        or bool(solver.frozen_cards(game))
        or bool(solver.stuck_cards(game))
    )


def closure(start: Game, most: int = CERTIFICATE_POSITIONS) -> list[str] | None:
    """The texts of every position reachable from ``start``, not going past positions the
    solver's rules prove lost; None when there are more than ``most`` or one is won (then the
    verdict was wrong, and no certificate is made)."""
    seen = {position_text(start)}
    queue = [start]
    while queue:
        game = queue.pop()
        if game.is_won():
            return None
        if _lost(game):
            continue
        for step in game.legal_steps():
            child = game.copy()
            child.push(step)
            text = position_text(child)
            if text not in seen:
                seen.add(text)
                if len(seen) > most:
                    return None
                queue.append(child)
    return sorted(seen)


def certificate_for(
    deal: int | Sequence[Sequence[Card]],
    preset: str,
    result: SolveResult,
    steps: Sequence[Step] = (),
    most: int = CERTIFICATE_POSITIONS,
) -> Certificate | None:
    """A certificate of ``result``'s ``unwinnable`` verdict for the position after ``steps``
    from ``deal`` (a number, or its piles) under the preset named ``preset``; None for another
    verdict, a profile that is not a preset, or a closure larger than ``most`` positions.

    The study (cruel_tools/search/study.py) and the CLI call it after a solve."""
    rules = PRESETS.get(preset)
    if result.verdict != "unwinnable" or rules is None:
        return None
    number = deal if isinstance(deal, int) else None
    piles = deal_piles(deal, rules) if isinstance(deal, int) else [list(p) for p in deal]
    game = Game.from_deal(piles, rules)
    for step in steps:
        game.push(step)
    proof: RuleProof | SearchProof | None = _rule_proof(game)
    if proof is None:
        if result.stats.unique > len(solver.PASSES) * most and not solver.probes_apply(game):
            # The closure is about the positions the full pass met (every one not proven lost
            # is expanded there), and each narrow pass meets a part of them: past three
            # closures' worth, this one holds more than ``most``. Said at once, rather than
            # after building it for half a minute (deal 205: 1.4 million met, 24 s).
            return None
        texts = closure(game, most)
        if texts is None:
            return None
        proof = SearchProof(positions=len(texts), digest=digest_of(texts))
    return Certificate(
        rules=preset,
        deal=DealRef(number=number, piles=[[cards.name(c) for c in p] for p in piles]),
        steps=[compact(s) for s in steps],
        proof=proof,
    )
