"""Every published puzzle's par (issue #25): its solution replays through the engine to a win in
exactly ``par.actions`` actions (``par.moves`` card moves and ``par.redeals`` redeals), and
``optimal`` says exactly that the proven bound meets it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cruel_tools import puzzles
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Redeal
from cruel_tools.game.log import to_step

ROOT = Path(__file__).resolve().parent.parent
FILES = puzzles.puzzle_files(ROOT / "puzzles")


def test_the_published_set_is_there() -> None:
    assert len(FILES) >= 360  # 2027-01-01..03-31, four tiers a day


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_par_replays_to_a_win_in_exactly_par_actions(path: Path) -> None:
    puzzle = puzzles.load_puzzle(path)
    par = puzzle.par
    rules = puzzle.resolved_rules()
    game = Game.from_deal(deal_piles(puzzle.deal.number, rules), rules)
    steps = [to_step(entry) for entry in puzzle.solution]
    for step in steps:
        game.push(step)  # raises on an illegal step
    assert game.is_won()
    redeals = sum(isinstance(s, Redeal) for s in steps)
    assert (len(steps), len(steps) - redeals, redeals) == (par.actions, par.moves, par.redeals)
    assert 48 <= par.lower_bound <= par.actions
    assert par.optimal == (par.lower_bound == par.actions)
