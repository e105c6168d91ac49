"""The analysis' losing step, proven on both sides (issue #25), on the games of
benchmarks/analysis_bench.py: the lost games of a seeded random player on deals 1-500.

For every game the analysis decides: the position before the losing step is winnable (the
analysis' continuation, the game's own steps up to it and then the solver's win, is a log that
:mod:`cruel_tools.game.verify` confirms as a win), and the position after it is lost (the solver's
``unwinnable``, or a blocked position; for a game lost from the start, the deal). The default
tier checks every tenth game (50); the slow tier all 500.

And: every solve of an analysis runs in the native core when the core plays the game (the
binary search's, the small ones per step of an undecided position, the alternatives'); both
engines give the same analysis for one budget, and the same answer wherever both decide at
their own default budgets (:func:`cruel_tools.advice.analysis.loss_states`).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest

from cruel_tools.advice import analysis
from cruel_tools.advice.analysis import (
    CHILD_STATES,
    MAX_STATES,
    NATIVE_MAX_STATES,
    Analysis,
    analyze,
    loss_states,
    positions,
)
from cruel_tools.game import engine, log
from cruel_tools.game.game import Game
from cruel_tools.game.log import compact, to_step
from cruel_tools.game.rules import PRESETS
from cruel_tools.game.verify import verify_bytes
from cruel_tools.search import solver

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parent.parent
needs_core = pytest.mark.skipif(engine.native() is None, reason="the native core is not built")


@cache
def _bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "analysis_bench", ROOT / "benchmarks" / "analysis_bench.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _game_log(number: int) -> log.GameLog | None:
    """The benchmark's game of deal ``number`` (None: the random player won it)."""
    steps = _bench().random_lost_game(number, 100)
    if steps is None:
        return None
    doc = {
        "format": "cruel-log/1",
        "rules": "cruel",
        "deal": {"number": number},
        "moves": [compact(s) for s in steps],
    }
    return log.from_object(doc)


def _proven_lost(game: Game, budget: int) -> bool:
    """The solver proves ``game`` lost: blocked, or ``unwinnable`` at the analysis' budget. The
    analysis' own solve shared a memo with its other solves (positions proven lost by them are
    cut), so a solve on its own may need more: then up to four times the budget (a proof at
    any budget is a proof)."""
    if game.outcome() == "blocked":
        return True
    for most in (budget, 4 * budget):
        verdict = solver.solve(game.copy(), most).verdict
        if verdict != "unknown":
            return verdict == "unwinnable"
    return False


def _check(number: int) -> str:
    """Check the proofs of deal ``number``'s analysis; its status."""
    game_log = _game_log(number)
    if game_log is None:
        return "won"
    result = analyze(game_log)
    loss = result.loss
    assert loss is not None and result.win is None
    games, steps, _ = positions(game_log)
    budget = result.max_states
    assert budget == loss_states(games[0].rules)
    if loss.status == "undecided":
        return loss.status
    if loss.status == "lost-from-start":
        assert loss.continuation is None and loss.first_lost_position == 0
        assert _proven_lost(games[0], budget), number
        return loss.status
    # A win from the last winnable position: the game's own steps to it, then the solver's.
    lo = loss.last_won_position
    assert lo is not None and loss.continuation is not None
    report = verify_bytes(orjson.dumps(loss.continuation))
    assert report.valid and report.outcome == "won", (number, report.error)
    played = [to_step(e) for e in loss.continuation["moves"][:lo]]
    assert [compact(s) for s in played] == [compact(s) for s in steps[:lo]], number
    if loss.status == "still-winnable":
        assert lo == len(steps)
        return loss.status
    assert loss.status == "lost-at-step" and loss.losing_step is not None
    assert loss.losing_step.index == lo and loss.first_lost_position == lo + 1
    assert _proven_lost(games[lo + 1], budget), number
    return loss.status


def test_every_tenth_game_of_the_benchmark_is_proven_on_both_sides() -> None:
    # Deals 10, 20, ..., 500: all decided at the native default (about 1 s of CPU in all; an
    # undecided game spends two full solves, several seconds: those are the slow tier's).
    statuses = [_check(number) for number in range(10, 501, 10)]
    decided = [s for s in statuses if s not in ("undecided", "won")]
    assert len(decided) >= 45, statuses
    assert "lost-at-step" in statuses and "lost-from-start" in statuses


@pytest.mark.slow
def test_every_game_of_the_benchmark_is_proven_on_both_sides() -> None:
    statuses = [_check(number) for number in range(1, 501)]
    # 7 undecided at the native default, 11 at the Python one (benchmarks/RESULTS.md, #25)
    assert statuses.count("undecided") <= 15, statuses
    assert "still-winnable" in statuses


def _counting(patch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Count (by their budgets) the analysis' solves, the searches they make (one per pass of
    :func:`cruel_tools.search.solver.solve`) and those the core runs."""
    counts: dict[str, list[int]] = {"solve": [], "search": [], "native": []}
    solve, search, native = analysis.solve, solver.search, solver._native_search

    def counted_solve(start: Game, max_states: int = 200_000, **k: Any) -> Any:
        counts["solve"].append(max_states)
        return solve(start, max_states, **k)

    def counted_search(start: Game, max_states: int = 200_000, *a: Any, **k: Any) -> Any:
        counts["search"].append(max_states)
        return search(start, max_states, *a, **k)

    def counted_native(core: Any, rules_t: Any, start: Game, max_states: int, *a: Any) -> Any:
        counts["native"].append(max_states)
        return native(core, rules_t, start, max_states, *a)

    patch.setattr(analysis, "solve", counted_solve)
    patch.setattr(solver, "search", counted_search)
    patch.setattr(solver, "_native_search", counted_native)
    return counts


@needs_core
def test_every_solve_of_an_analysis_runs_in_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    # Deal 27's game holds a position undecided at a small budget: its steps get their own
    # small solves; then a decided game with alternatives at its losing step.
    counts = _counting(monkeypatch)
    game_log = _game_log(27)
    assert game_log is not None
    loss = analyze(game_log, max_states=3_000).loss
    assert loss is not None and loss.undecided_positions
    assert CHILD_STATES in counts["solve"]
    decided = _game_log(3)
    assert decided is not None
    loss = analyze(decided).loss
    assert loss is not None and loss.status == "lost-at-step" and loss.alternatives
    assert len(counts["search"]) >= len(counts["solve"]) > 10
    assert counts["native"] == counts["search"]


@needs_core
def test_the_default_budget_depends_on_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = PRESETS["cruel"]
    assert loss_states(rules) == NATIVE_MAX_STATES
    # the core plays the rest of the family too (issue #25), so it gets the core's budget
    assert loss_states(PRESETS["royal-family"]) == NATIVE_MAX_STATES
    monkeypatch.setenv("CRUEL_ENGINE", "python")
    assert loss_states(rules) == MAX_STATES


def _in(
    engine_name: str, patch: pytest.MonkeyPatch, game_log: log.GameLog, most: int | None = None
) -> Analysis:
    """The analysis on one engine (``most``: None for its default budget)."""
    with patch.context() as p:
        p.setenv("CRUEL_ENGINE", engine_name)
        return analyze(game_log, max_states=most)


@needs_core
@pytest.mark.parametrize("number", [3, 10, 12])
def test_both_engines_give_the_same_analysis_for_one_budget(
    number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_log = _game_log(number)
    assert game_log is not None
    native = _in("native", monkeypatch, game_log, 5_000)
    python = _in("python", monkeypatch, game_log, 5_000)
    assert native == python


@needs_core
def test_both_engines_agree_where_both_decide_at_their_own_budgets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The budgets differ (2,000,000 and 50,000 positions a solve), so the native engine may
    # decide where the Python one leaves an interval; where both decide, a proof is a proof.
    both = 0
    for number in (3, 12, 21):
        game_log = _game_log(number)
        assert game_log is not None
        native = _in("native", monkeypatch, game_log).loss
        python = _in("python", monkeypatch, game_log).loss
        assert native is not None and python is not None
        if "undecided" in (native.status, python.status):
            continue
        both += 1
        assert (native.status, native.last_won_position, native.first_lost_position) == (
            python.status,
            python.last_won_position,
            python.first_lost_position,
        ), number
    assert both >= 2
