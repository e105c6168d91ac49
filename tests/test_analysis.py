"""Post-game analysis (issue #16): the losing step of random lost games, wins against par and
the optimum, the JSON model and its schema, and ``cruel analyze``."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from cruel_tools.advice.analysis import (
    ANALYSIS_FORMAT,
    Analysis,
    AnalysisRefused,
    analyze,
    positions,
    text_lines,
)
from cruel_tools.cli.app import app
from cruel_tools.game import deals, log
from cruel_tools.game.game import Game, Move
from cruel_tools.game.log import to_step
from cruel_tools.game.verify import verify_bytes
from cruel_tools.search.optimal import optimize
from cruel_tools.search.solver import Memo, check_win, pile1_lock, solve

from .helpers import log_dict, published_puzzles, puzzle_log, random_game

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = orjson.loads((ROOT / "schemas" / "analysis.schema.json").read_bytes())
runner = CliRunner()


def _lost_game(seed: int) -> tuple[log.GameLog, dict[str, Any]]:
    """A seeded random legal player's game of a small deal, played until it is blocked (the
    first such game from ``seed`` on), as a log (by deal number)."""
    while True:
        rng = random.Random(seed)
        number = rng.randrange(1, 60)
        piles, steps, game = random_game(number, rng, max_steps=300)
        if game.outcome() == "blocked":
            break
        seed += 1000
    doc = log_dict(piles, steps)
    doc["deal"] = {"number": number}
    return log.from_object(doc), doc


@cache
def _analysed(seed: int) -> tuple[log.GameLog, Analysis]:
    game_log, _ = _lost_game(seed)
    return game_log, analyze(game_log, max_states=20_000)


# --- where the win was lost -------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_the_losing_step_is_the_edge_between_a_win_and_a_proven_loss(seed: int) -> None:
    game_log, analysis = _analysed(seed)
    games, steps, _ = positions(game_log)
    loss = analysis.loss
    assert loss is not None and analysis.win is None
    assert analysis.format == ANALYSIS_FORMAT
    if loss.status == "undecided":  # allowed, but then an interval with its undecided positions
        assert loss.undecided_positions
        return
    if loss.status in ("lost-from-start", "still-winnable"):
        return
    assert loss.status == "lost-at-step" and loss.losing_step is not None
    k = loss.losing_step.index
    assert loss.last_won_position == k and loss.first_lost_position == k + 1
    assert loss.first_step == loss.last_step == k
    # Before it: won. The continuation replays through Game.push to a win, and verifies.
    assert loss.continuation is not None
    report = verify_bytes(orjson.dumps(loss.continuation))
    assert report.valid and report.outcome == "won"
    game = games[k].copy()
    for entry in loss.continuation["moves"][k:]:
        game.push(to_step(entry))
    assert game.is_won()
    # After it: proven lost (the position is a blocked one, or the solver proves it).
    after = games[k + 1]
    assert after.outcome() == "blocked" or solve(after.copy(), 20_000).verdict == "unwinnable"
    # The alternatives are the other legal steps there, each with the solver's verdict.
    legal = [s for s in games[k].legal_steps()]
    assert len(loss.alternatives) == len(legal) - 1
    for alt in loss.alternatives:
        child = games[k].copy()
        child.push(to_step(alt.entry))
        assert solve(child, 20_000).verdict == alt.verdict


def test_random_lost_games_give_every_kind_of_answer_and_mostly_a_step() -> None:
    statuses = [_analysed(seed)[1].loss.status for seed in range(12)]  # type: ignore[union-attr]
    assert "still-winnable" not in statuses  # each game ends blocked
    assert statuses.count("lost-at-step") >= 9, statuses


def _locked_deal() -> int:
    return next(n for n in range(1, 1000) if pile1_lock(Game.from_deal(deals.deal_piles(n))))


def test_a_deal_lost_from_the_start_says_so_with_rule_l() -> None:
    number = _locked_deal()
    doc = {"format": "cruel-log/1", "rules": "cruel", "deal": {"number": number}, "moves": []}
    analysis = analyze(log.from_object(doc))
    loss = analysis.loss
    assert loss is not None
    assert loss.status == "lost-from-start"
    assert loss.losing_step is None and loss.continuation is None
    assert loss.first_lost_position == 0 and loss.last_won_position is None
    assert "rule L" in loss.reason and "can never leave" in loss.reason
    assert "lost from the start" in text_lines(analysis)[1]


def test_a_game_stopped_while_still_winnable_has_no_losing_step() -> None:
    doc = {"format": "cruel-log/1", "rules": "cruel", "deal": {"number": 1}, "moves": []}
    loss = analyze(log.from_object(doc)).loss
    assert loss is not None and loss.status == "still-winnable"
    assert loss.continuation is not None and verify_bytes(orjson.dumps(loss.continuation)).valid


def test_a_position_the_budget_cannot_decide_makes_an_interval_never_a_guess() -> None:
    # One state per solve decides nothing but blocked ends: the answer is an interval.
    game_log, _ = _lost_game(3)
    loss = analyze(game_log, max_states=1).loss
    assert loss is not None and loss.status == "undecided"
    assert loss.losing_step is None and loss.undecided_positions
    assert loss.last_step is not None
    assert loss.first_step is None or loss.first_step <= loss.last_step


@pytest.mark.parametrize("seed", range(3))
def test_a_shared_memo_never_changes_a_decided_verdict(seed: int) -> None:
    # Every position of a lost game, solved in turn with one memo (what analyze does) and each
    # on its own: where both decide, they agree; each win found with the memo replays to a win.
    game_log, _ = _lost_game(seed)
    games, _, _ = positions(game_log)
    memo = Memo()
    for game in [*games[::-3], *games[1::4]]:  # the order mixes proven-lost and won ones
        shared = solve(game.copy(), 3_000, memo=memo)
        alone = solve(game.copy(), 3_000)
        if "unknown" not in (shared.verdict, alone.verdict):
            assert shared.verdict == alone.verdict
        if shared.verdict == "won":
            check_win(game, shared.steps)
    assert memo.lost and memo.won


def test_the_analysis_is_deterministic() -> None:
    game_log, _ = _lost_game(5)
    assert analyze(game_log, max_states=20_000) == analyze(game_log, max_states=20_000)


def test_an_illegal_log_is_refused_with_the_verifiers_error() -> None:
    doc = orjson.loads((ROOT / "samples" / "illegal.json").read_bytes())
    with pytest.raises(AnalysisRefused) as caught:
        analyze(log.from_object(doc))
    assert caught.value.report.error is not None
    assert caught.value.report.error.code == "wrong-rank"
    assert caught.value.report.error.path == "/moves/10"


# --- how far from the best --------------------------------------------------------------------


def _easiest() -> list[Any]:
    """The published puzzles, fewest par actions first."""
    return sorted(published_puzzles().by_id.values(), key=lambda p: (p.par.actions, p.id))


def test_a_win_at_par_against_its_puzzle_and_the_optimum() -> None:
    puzzle = _easiest()[0]
    game_log = log.from_object(puzzle_log(puzzle))
    analysis = analyze(game_log, puzzle=puzzle, max_states=20_000)
    win = analysis.win
    assert win is not None and analysis.loss is None
    assert win.par == puzzle.par
    assert win.actions == puzzle.par.actions == win.moves + win.redeals
    assert (win.moves, win.redeals) == (puzzle.par.moves, puzzle.par.redeals)
    assert win.over_par == 0
    assert win.at_most_over_optimum == win.actions - win.optimum.lower_bound
    if puzzle.par.optimal:
        assert win.optimum.lower_bound == win.actions == win.optimum.actions
        assert win.over_optimum == 0


@pytest.mark.parametrize("seed", range(2))
def test_a_random_win_against_par_and_the_optimum(seed: int) -> None:
    from .helpers import other_win

    puzzle = _easiest()[seed]
    steps = other_win(puzzle, seed)
    game_log = log.from_object(puzzle_log(puzzle, steps))
    win = analyze(game_log, puzzle=puzzle, max_states=20_000).win
    assert win is not None
    moves = sum(isinstance(s, Move) for s in steps)
    assert (win.actions, win.moves, win.redeals) == (len(steps), moves, len(steps) - moves)
    assert win.over_par == len(steps) - puzzle.par.actions
    best = optimize(game_log_start(game_log), max_states=20_000, known=steps)
    # The search's bounds, with the par's (issue #34): its win above, its proven bound below.
    assert best.actions is not None
    fewest = min(best.actions, puzzle.par.actions)
    lower = max(best.lower_bound, puzzle.par.lower_bound)
    verdict = "optimal" if fewest == lower else "best-found"
    assert (win.optimum.verdict, win.optimum.actions) == (verdict, fewest)
    assert win.optimum.lower_bound == lower
    assert win.optimum.actions is not None and win.optimum.actions <= len(steps)
    if win.over_optimum is not None:
        assert win.over_optimum == len(steps) - win.optimum.actions >= 0


def game_log_start(game_log: log.GameLog) -> Game:
    return positions(game_log)[0][0].copy()


def test_another_puzzles_game_is_refused() -> None:
    a, b = _easiest()[:2]
    with pytest.raises(AnalysisRefused) as caught:
        analyze(log.from_object(puzzle_log(a)), puzzle=b)
    assert caught.value.report.error is not None
    assert caught.value.report.error.code == "puzzle-mismatch"


def test_deep_on_an_optimal_win_finds_no_costly_step() -> None:
    puzzle = next(p for p in _easiest() if p.par.optimal)
    win = analyze(
        log.from_object(puzzle_log(puzzle)), max_states=5_000, deep=True, deep_states=1_000
    ).win
    assert win is not None and win.costly_steps == []  # sound: a shortest win wastes nothing
    assert win.undecided_steps is not None


def test_deep_costs_of_a_longer_win_add_up_to_at_most_its_distance_from_the_optimum() -> None:
    from .helpers import other_win

    puzzle = _easiest()[0]
    steps = other_win(puzzle, 1)
    analysis = analyze(
        log.from_object(puzzle_log(puzzle, steps)), max_states=5_000, deep=True, deep_states=1_000
    )
    win = analysis.win
    assert win is not None and win.costly_steps is not None and win.undecided_steps is not None
    assert sum(c.cost for c in win.costly_steps) <= win.at_most_over_optimum
    if win.over_optimum is not None and not win.undecided_steps:
        assert sum(c.cost for c in win.costly_steps) == win.over_optimum
    for c in win.costly_steps:
        assert c.cost >= 1 and (not c.exact or c.cost == c.after + 1 - c.before)  # type: ignore[operator]
    lines = text_lines(analysis)
    assert lines[1] == f"won in {win.actions} actions ({win.moves} moves, {win.redeals} redeals)"


# --- the JSON model and its schema ------------------------------------------------------------


def test_the_json_matches_the_checked_in_schema() -> None:
    _, analysis = _analysed(1)
    doc = orjson.loads(analysis.model_dump_json())
    assert doc["format"] == "cruel-analysis/1"
    Draft202012Validator(SCHEMA).validate(doc)
    assert Analysis.model_validate(doc) == analysis


# --- cruel analyze ----------------------------------------------------------------------------


def _write_lost(tmp_path: Path, seed: int = 1) -> tuple[Path, Analysis]:
    game_log, doc = _lost_game(seed)
    path = tmp_path / "lost.json"
    path.write_bytes(orjson.dumps(doc))
    return path, analyze(game_log, max_states=20_000)


def test_cli_text_names_the_losing_step(tmp_path: Path) -> None:
    path, expected = _write_lost(tmp_path)
    result = runner.invoke(app, ["analyze", str(path), "--max-states", "20000", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == text_lines(expected)
    loss = expected.loss
    assert loss is not None and loss.losing_step is not None
    assert f"the win was lost at step {loss.losing_step.number}: " in result.stdout


def test_cli_json_is_the_analysis_and_matches_its_schema(tmp_path: Path) -> None:
    path, expected = _write_lost(tmp_path)
    result = runner.invoke(app, ["analyze", str(path), "--max-states", "20000", "--json"])
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    Draft202012Validator(SCHEMA).validate(doc)
    assert Analysis.model_validate(doc) == expected


def test_cli_a_win_against_its_puzzle(tmp_path: Path) -> None:
    puzzle = _easiest()[0]
    path = tmp_path / "win.json"
    path.write_bytes(orjson.dumps(puzzle_log(puzzle)))
    puzzle_path = next((ROOT / "puzzles").rglob(f"{puzzle.id}.json"))
    args = ["analyze", str(path), "--puzzle", str(puzzle_path), "--max-states", "5000", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    Draft202012Validator(SCHEMA).validate(doc)
    assert doc["loss"] is None and doc["win"]["over_par"] == 0
    assert doc["win"]["actions"] == puzzle.par.actions


def test_cli_exit_codes(tmp_path: Path) -> None:
    illegal = runner.invoke(app, ["analyze", str(ROOT / "samples" / "illegal.json")])
    assert illegal.exit_code == 1
    assert illegal.stderr.strip().endswith("(at /moves/10) [wrong-rank]")
    missing = runner.invoke(app, ["analyze", str(tmp_path / "nosuch.json")])
    assert missing.exit_code == 2
    nosuch = tmp_path / "nosuch.json"  # the one wording of every command (docs/cli.md)
    assert (
        missing.stderr
        == f"{nosuch}: unreadable: cannot read {nosuch}: No such file or directory [unreadable]\n"
    )
    not_json = tmp_path / "bad.json"
    not_json.write_text("{")
    assert runner.invoke(app, ["analyze", str(not_json)]).exit_code == 2
    zero = runner.invoke(app, ["analyze", str(not_json), "--max-states", "0"])
    assert (zero.exit_code, zero.stderr) == (2, "error: --max-states must be at least 1, not 0\n")
    a, b = _easiest()[:2]
    other = tmp_path / "other.json"
    other.write_bytes(orjson.dumps(puzzle_log(a)))
    b_path = next((ROOT / "puzzles").rglob(f"{b.id}.json"))
    mismatch = runner.invoke(app, ["analyze", str(other), "--puzzle", str(b_path)])
    assert mismatch.exit_code == 1 and "[puzzle-mismatch]" in mismatch.stderr
