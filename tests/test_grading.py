"""Grading: the ladder table and what is derived from it, each player's technique, the tiers of
known deals, grade()'s fields, determinism and the budget."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import get_args

import orjson
import pytest
from jsonschema import Draft202012Validator

from cruel_tools.game import cards, deals
from cruel_tools.game.cards import Card
from cruel_tools.game.game import Game, Redeal, Step
from cruel_tools.game.verify import verify_bytes
from cruel_tools.search import grading
from cruel_tools.search.grading import (
    LADDER,
    PLAYERS,
    TIER_OF,
    TIERS,
    Budget,
    Tier,
    classify,
    fewest_actions,
    grade,
)
from cruel_tools.search.solver import solve

ROOT = Path(__file__).resolve().parent.parent
GRADE_SCHEMA = Draft202012Validator(
    orjson.loads((ROOT / "schemas" / "grade.schema.json").read_bytes())
)
SMALL = Budget(
    solver_states=20_000,
    critical_states=30,
    playouts=10,
    playout_steps=200,
    player_states=5000,
    optimal_states=5000,
)

# Deals of the committed daily set (puzzles/2027), graded with the default budget when they were
# published: number -> (tier, the ladder as the puzzle file records it).
KNOWN: dict[int, tuple[Tier, dict[str, bool]]] = {
    3439666753: ("easy", {"player1": False, "player2": True}),  # 2027-02-28-easy
    1170565312: ("medium", {"player1": False, "player2": False, "player3": True}),  # 01-05
    104906307: (  # 2027-03-02-hard
        "hard",
        {"player1": False, "player2": False, "player3": False, "player4": True},
    ),
    554250488: (  # 2027-03-03-expert
        "expert",
        {"player1": False, "player2": False, "player3": False, "player4": False},
    ),
}


def start(number: int) -> Game:
    return Game.from_deal(deals.deal_piles(number))


def suit_ladders() -> list[list[Card]]:
    """A deal player 1 wins without a redeal: each pile holds four cards of one suit, the
    lowest on top, and its suit's piles run 2-5, 6-9, 10-K."""
    piles = []
    for suit in "SHDC":
        for low in (2, 6, 10):
            ranks = ["A23456789TJQK"[r - 1] for r in range(low, low + 4)]
            piles.append([cards.parse(f"{rank}{suit}") for rank in reversed(ranks)])
    return piles


# --- the table -----------------------------------------------------------------------------------


def test_the_derived_lists_agree_with_the_table() -> None:
    assert TIERS == get_args(Tier) == ("easy", "medium", "hard", "expert")
    assert [r.tier for r in LADDER] == ["easy", "easy", "medium", "hard", "expert"]
    assert [name for name, _ in PLAYERS] == ["player1", "player2", "player3", "player4"]
    assert [play for _, play in PLAYERS] == [r.play for r in LADDER[:-1]]
    assert dict(TIER_OF) == {r.player: r.tier for r in LADDER}
    assert TIER_OF["solver"] == "expert" and LADDER[-1].play is None
    # tiers only grow along the ladder, and every tier has a rung
    assert [TIERS.index(r.tier) for r in LADDER] == sorted(TIERS.index(r.tier) for r in LADDER)
    assert {r.tier for r in LADDER} == set(TIERS)
    assert len({r.player for r in LADDER}) == len(LADDER)
    assert all(r.technique for r in LADDER)


def test_the_players_are_the_module_functions() -> None:
    assert dict(PLAYERS) == {
        "player1": grading.player1,
        "player2": grading.player2,
        "player3": grading.player3,
        "player4": grading.player4,
    }


def test_docs_show_the_ladder_table() -> None:
    """docs/grading.md's ladder table has one row per rung, in order, with its tier."""
    text = (ROOT / "docs" / "grading.md").read_text()
    section = text.split("## The ladder", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if re.match(r"^\| (\d|solver) ", line)
    ]
    assert [(row[0], row[-1]) for row in rows] == [
        (r.player.removeprefix("player"), r.tier) for r in LADDER
    ]


# --- each player's technique ---------------------------------------------------------------------


def test_player1_plays_foundation_moves_only() -> None:
    game = Game.from_deal(suit_ladders())
    steps = grading.player1(game, Budget())
    assert steps is not None and len(steps) == 48
    assert all(not isinstance(s, Redeal) and s.target is None for s in steps)
    assert game.moves == 0  # played on a copy
    assert classify(game).ladder == {"player1": True}
    assert classify(game).tier == "easy"


def test_player1_cannot_build_player2_can() -> None:
    game = start(1)
    assert grading.player1(game, Budget()) is None
    steps = grading.player2(game, Budget())
    assert steps is not None
    assert any(not isinstance(s, Redeal) and s.target is not None for s in steps)  # a build
    replay = game.copy()
    for step in steps:
        replay.push(step)
    assert replay.is_won()


def test_player3_never_redeals_early_player4_at_most_once() -> None:
    medium, hard = start(1170565312), start(104906307)

    def early_redeals(game: Game, steps: list[Step]) -> int:
        g, early = game.copy(), 0
        for step in steps:
            if isinstance(step, Redeal):
                early += any(True for _ in g.card_moves())
            g.push(step)
        assert g.is_won()
        return early

    steps3 = grading.player3(medium, Budget())
    assert steps3 is not None and early_redeals(medium, steps3) == 0
    assert grading.player3(hard, Budget()) is None
    steps4 = grading.player4(hard, Budget())
    assert steps4 is not None and early_redeals(hard, steps4) == 1


# --- tiers of known deals ------------------------------------------------------------------------


@pytest.mark.parametrize("number", sorted(KNOWN))
def test_known_deals_get_their_published_tier(number: int) -> None:
    tier, ladder = KNOWN[number]
    found = classify(start(number))
    assert (found.verdict, found.tier, found.ladder) == ("won", tier, ladder)
    assert found.solutions  # the solver's win, then the winning player's (if any)
    assert len(found.solutions) == 1 + any(ladder.values())


def test_committed_puzzles_record_the_tier_classify_gives() -> None:
    """The first committed day, against classify with the default budget (the files hold the
    deal number, tier, ladder and solver effort they were published with)."""
    day = sorted((ROOT / "puzzles" / "2027").glob("2027-01-0[2-5]-*.json"))
    cheap = [p for p in day if "expert" not in p.name]  # experts take seconds each
    assert len(cheap) == 12
    for path in cheap:
        doc = orjson.loads(path.read_bytes())
        found = classify(start(doc["deal"]["number"]))
        assert found.tier == doc["tier"], path.name
        assert found.ladder == doc["metrics"]["ladder"], path.name
        # Grader version 2 searches without rule F, as when these were published.
        assert found.solver_states == doc["metrics"]["solver_states"], path.name


def test_deals_the_solver_does_not_win_have_no_tier() -> None:
    lost = classify(start(18))
    assert (lost.verdict, lost.tier, lost.ladder, lost.solutions) == ("unwinnable", None, {}, [])
    graded = grade(deals.deal_piles(18), 18)
    assert (graded.verdict, graded.tier, graded.metrics, graded.solution) == (
        "unwinnable",
        None,
        None,
        None,
    )
    GRADE_SCHEMA.validate(orjson.loads(graded.model_dump_json()))


# --- grade() -------------------------------------------------------------------------------------


def test_grade_fields() -> None:
    graded = grade(deals.deal_piles(1), 1, budget=SMALL)
    GRADE_SCHEMA.validate(orjson.loads(graded.model_dump_json()))
    assert graded.format == "cruel-grade/1" and graded.grader_version == grading.GRADER_VERSION
    assert graded.deal.number == 1
    assert graded.deal.piles == [[cards.name(c) for c in p] for p in deals.deal_piles(1)]
    assert graded.rules.preset == "cruel"
    assert (graded.verdict, graded.tier) == ("won", "easy")
    metrics, solution = graded.metrics, graded.solution
    assert metrics is not None and solution is not None
    assert metrics.ladder == {"player1": False, "player2": True}
    assert metrics.random_playouts == SMALL.playouts
    assert 0.0 <= metrics.random_win_rate <= 1.0
    assert metrics.solver_states > 0
    assert 0 <= metrics.critical_decisions <= len(solution)
    # the solution is the par: a verified win with exactly par's moves and redeals
    log = {"format": "cruel-log/1", "deal": {"number": 1}, "moves": solution}
    report = verify_bytes(orjson.dumps(log))
    assert report.valid and report.outcome == "won", report.error
    assert (report.moves, report.redeals) == (metrics.par.moves, metrics.par.redeals)
    assert report.moves + report.redeals == metrics.par.actions


def test_par_is_no_longer_than_any_solution_found_and_above_its_bound() -> None:
    found = classify(start(1), SMALL)
    graded = grade(deals.deal_piles(1), 1, budget=SMALL, found=found)
    assert graded.metrics is not None
    par = graded.metrics.par
    assert len(found.solutions) == 2
    assert par.actions == par.moves + par.redeals
    assert par.actions <= min(len(s) for s in found.solutions)
    assert 48 <= par.lower_bound <= par.actions
    assert par.optimal == (par.lower_bound == par.actions)


def test_par_is_the_proven_optimum_when_the_budget_allows() -> None:
    # Deal 1 is an easy deal whose optimum (56 actions) the optimizer proves in a few seconds.
    budget = dataclasses.replace(SMALL, optimal_states=100_000)
    graded = grade(deals.deal_piles(1), 1, budget=budget)
    assert graded.metrics is not None
    par = graded.metrics.par
    assert (par.actions, par.optimal, par.lower_bound) == (56, True, 56)


@pytest.mark.heavy
def test_where_the_proof_budget_runs_out_a_short_win_beam_shortens_par() -> None:
    """Grader version 4 (issue #38): the 2027-02-02 expert deal, par's search cut at 500,000
    positions, publishes 68 actions; a short-win beam of 30,000 positions a level, within as
    many positions, finds 66 (the engines' beams rank by cards home alike, so either engine
    gives the same par)."""
    game = start(2590654229)
    known = solve(game, 200_000).steps
    cut = dataclasses.replace(Budget(), optimal_states=500_000, short_win_width=0)
    alone, _ = fewest_actions(game, [known], cut)
    par, steps = fewest_actions(game, [known], dataclasses.replace(cut, short_win_width=30_000))
    assert (alone.actions, par.actions) == (68, 66)
    assert par.lower_bound == alone.lower_bound == 59 and not par.optimal
    assert par.redeals == sum(isinstance(s, Redeal) for s in steps)
    played = game.copy()
    for step in steps:
        played.push(step)
    assert played.is_won() and len(steps) == par.actions


def test_a_proven_par_runs_no_beam(monkeypatch: pytest.MonkeyPatch) -> None:
    # Deal 1's optimum is proven within the budget: the short-win search is never asked.
    def no(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the short-win search ran for a proven par")

    monkeypatch.setattr(grading, "shortest_found", no)
    budget = dataclasses.replace(SMALL, optimal_states=100_000)
    graded = grade(deals.deal_piles(1), 1, budget=budget)
    assert graded.metrics is not None and graded.metrics.par.optimal


def test_grade_reuses_a_classification() -> None:
    found = classify(start(1170565312), SMALL)
    piles = deals.deal_piles(1170565312)
    assert grade(piles, 1170565312, budget=SMALL, found=found) == grade(
        piles, 1170565312, budget=SMALL
    )


def test_grading_is_deterministic() -> None:
    piles = deals.deal_piles(104906307)
    first = grade(piles, 104906307, budget=SMALL)
    assert first.tier == "hard"
    assert grade(piles, 104906307, budget=SMALL) == first
    game = start(104906307)
    rates = {grading.random_win_rate(game, 50, 400, seed=7) for _ in range(3)}
    assert len(rates) == 1


def test_random_win_rate_depends_on_its_seed_only() -> None:
    game = start(1)
    by_seed = [grading.random_win_rate(game, 40, 400, seed=s) for s in range(6)]
    assert len(set(by_seed)) > 1  # the seed matters...
    assert by_seed == [grading.random_win_rate(game, 40, 400, seed=s) for s in range(6)]


# --- the budget ----------------------------------------------------------------------------------


def test_default_budget_is_what_published_puzzles_use() -> None:
    # Changing one regrades the committed set (docs/grading.md quotes them).
    assert Budget() == Budget(
        solver_states=200_000,
        solver_seconds=None,
        critical_states=300,
        playouts=200,
        playout_steps=400,
        player_states=30_000,
        optimal_states=20_000_000,
        optimal_memory=4 << 30,
        short_win_width=1_000_000,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        Budget().playouts = 1  # type: ignore[misc]


def test_a_small_solver_budget_leaves_a_deal_undecided() -> None:
    found = classify(start(22), Budget(solver_states=1))
    assert (found.verdict, found.tier) == ("unknown", None)
    graded = grade(deals.deal_piles(22), 22, budget=Budget(solver_states=1))
    assert (graded.verdict, graded.tier, graded.metrics) == ("unknown", None, None)


def test_a_small_player_budget_raises_the_tier() -> None:
    # Players 3 and 4 search within player_states: with a single position they win nothing.
    found = classify(start(1170565312), Budget(player_states=1))
    assert found.tier == "expert"
    assert found.ladder == {f"player{k}": False for k in range(1, 5)}


def test_playouts_budget() -> None:
    piles = deals.deal_piles(1)
    none = grade(piles, 1, budget=dataclasses.replace(SMALL, playouts=0))
    assert none.metrics is not None
    assert (none.metrics.random_playouts, none.metrics.random_win_rate) == (0, 0.0)
    assert grading.random_win_rate(start(1), 10, 0) == 0.0  # no steps: no game is won


def test_critical_states_budget() -> None:
    # With no search at all from the alternatives, none is shown to win: every decision point
    # on the par solution counts as critical.
    piles = deals.deal_piles(1)
    blind = grade(piles, 1, budget=dataclasses.replace(SMALL, critical_states=0))
    looking = grade(piles, 1, budget=SMALL)
    assert blind.metrics is not None and looking.metrics is not None
    assert blind.metrics.critical_decisions >= looking.metrics.critical_decisions
    assert blind.metrics.critical_decisions > 0


def test_par_says_when_a_count_is_proven_optimal() -> None:
    from cruel_tools.puzzles.solutions import versus
    from cruel_tools.search.grading import Par

    unproven = Par(actions=60, moves=53, redeals=7, optimal=False, lower_bound=57)
    assert not unproven.proves_optimal(60) and unproven.proves_optimal(57)
    assert versus(60, unproven) == "at par"
    assert versus(61, unproven) == "1 over par"
    assert versus(58, unproven) == "2 under par"
    assert versus(57, unproven) == "3 under par (optimal)"
    proven = Par(actions=57, moves=51, redeals=6, optimal=True, lower_bound=57)
    assert versus(57, proven) == "at par (optimal)"
    assert versus(59, proven) == "2 over par"
