"""The short-win search (cruel_tools/search/short_wins.py, issue #38): its wins verify, it never
claims fewer actions than a proven optimum, it is deterministic, and it may build a card that
could go home (solver-facts §5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cruel_tools.game import cards
from cruel_tools.game.game import Game, Move
from cruel_tools.game.log import GameLog
from cruel_tools.game.verify import verify
from cruel_tools.puzzles import load_puzzle
from cruel_tools.puzzles.files import Puzzle
from cruel_tools.search.short_wins import shortest_found
from cruel_tools.search.solver import solution_log

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles" / "2027"
#: Easy to hard puzzles whose par is proven optimal, and the win a beam of 300 finds on each.
PROVEN = [
    "2027-01-01-easy",
    "2027-01-01-hard",
    "2027-01-02-medium",
    "2027-01-03-easy",
    "2027-01-05-hard",
    "2027-01-06-medium",
]


def _puzzle(pid: str) -> tuple[Puzzle, Game]:
    puzzle = load_puzzle(PUZZLES / f"{pid}.json")
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    return puzzle, Game.from_deal(piles, puzzle.resolved_rules())


@pytest.mark.parametrize("pid", PROVEN)
def test_a_win_verifies_and_is_never_below_the_proven_optimum(pid: str) -> None:
    puzzle, start = _puzzle(pid)
    assert puzzle.par.optimal
    found = shortest_found(start, 300)
    assert found.actions is not None and found.ranking is not None
    assert found.actions >= puzzle.par.actions
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    log = solution_log(puzzle.deal.number, piles, puzzle.resolved_rules(), found.steps)
    report = verify(GameLog.model_validate(log))
    assert report.valid and report.outcome == "won"
    assert (report.moves or 0) + (report.redeals or 0) == found.actions


def test_the_same_width_gives_the_same_win() -> None:
    _, start = _puzzle("2027-01-02-medium")
    first, again = shortest_found(start, 500), shortest_found(start, 500)
    assert first.steps == again.steps and first.expanded == again.expanded


def test_a_known_win_is_only_ever_beaten() -> None:
    puzzle, start = _puzzle("2027-01-01-easy")
    # par is optimal: nothing shorter exists, so the search returns no win
    found = shortest_found(start, 300, known=[Move(1, None)] * puzzle.par.actions)
    assert found.steps == [] and found.actions is None
    # a long known win is beaten by what the beam finds alone
    alone = shortest_found(start, 300)
    assert alone.actions is not None
    beaten = shortest_found(start, 300, known=[Move(1, None)] * (alone.actions + 5))
    assert beaten.actions is not None and beaten.actions <= alone.actions


def test_a_card_that_could_go_home_may_be_built_elsewhere() -> None:
    # solver-facts §5: a search that always sends such a card home misses wins. This deal's
    # shortest win at width 300 builds one.
    _, start = _puzzle("2027-01-06-medium")
    found = shortest_found(start, 300)
    game, built_home_card = start.copy(), False
    for step in found.steps:
        if isinstance(step, Move) and step.target is not None:
            card = game.piles[step.source - 1][-1]
            built_home_card |= game.foundations[card // 13] == card % 13
        game.push(step)
    assert game.is_won() and built_home_card


@pytest.mark.slow  # about 7 s: two beams of 100,000 positions a level
def test_it_beats_version_3s_par_of_the_2027_02_02_expert_and_not_the_published_one() -> None:
    # Grader version 3 published 68 actions; version 4 runs a beam of 1,000,000 positions a
    # level and publishes 65: a beam of 100,000 finds 66, shorter than the first, not the second.
    puzzle, start = _puzzle("2027-02-02-expert")
    assert puzzle.par.actions == 65 and not puzzle.par.optimal
    assert puzzle.generator == "cruel-tools 4"
    found = shortest_found(start, 100_000)
    assert found.actions is not None and puzzle.par.actions <= found.actions < 68
