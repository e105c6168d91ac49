"""Issue #33, finding 6: an undo replayed the whole standing line through the engine, so a
request of 100 undos on a 1,600-step line cost 0.44-1.2 s where a step cost 5-28 ms.

The attack as it was made: a live attempt with a standing line of 1,600 steps, then one request
of 100 undos. Its cost
is counted in engine steps (``Game.push``), not wall time, so the test holds on a loaded
machine; benchmarks/attempt_undo_bench.py has the wall time. The answers are the old ones: each
undo's position is the shortened line's full replay."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cruel_tools.constants import UNDO_SNAPSHOT_STEPS
from cruel_tools.game import cards
from cruel_tools.game.game import Game, Move, Step
from cruel_tools.game.log import COMPACT_STEPS, compact
from cruel_tools.site.attempts import MAX_REQUEST_STEPS, Attempts, Auto

from .helpers import published_puzzles

TODAY = dt.date(2027, 1, 5)
PUZZLE = "2027-01-05-medium"
T0 = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)
LINE = 1_600
UNDOS = 100


def _opening(puzzle: Any) -> Game:
    piles = [[cards.parse(text) for text in pile] for pile in puzzle.deal.piles]
    return Game.from_deal(piles, puzzle.resolved_rules())


def _random_line(puzzle: Any, length: int, seed: int) -> list[str] | None:
    rng = random.Random(seed)
    game = _opening(puzzle)
    line: list[str] = []
    while len(line) < length:
        steps = list(game.legal_steps())
        if not steps:
            return None  # blocked
        others = [s for s in steps if not (isinstance(s, Move) and s.target is None)]
        step = rng.choice(others if others and rng.random() < 0.97 else steps)
        game.push(step)
        line.append(compact(step))
    return line


def long_line(puzzle: Any, length: int) -> list[str]:
    """A legal line of ``length`` steps, by random play (as the attacker's): builds and redeals,
    now and then a card to its foundation; the first seed whose game lasts that long."""
    for seed in range(100):
        line = _random_line(puzzle, length, seed)
        if line is not None:
            return line
    raise AssertionError(f"no random line of {length} steps in 100 seeds")


class Pushes:
    """Counts the engine's steps (every position played goes through ``Game.push``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = Game.push

        def counted(game: Game, step: Step) -> None:
            self.count += 1
            real(game, step)

        monkeypatch.setattr(Game, "push", counted)

    def during(self, run: Any) -> tuple[int, Any]:
        before = self.count
        result = run()
        return self.count - before, result


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Attempts]:
    attempts = Attempts(tmp_path / "cruel.sqlite")
    # The attacker's line (1,600 steps) was made under the old cap of 3,000 steps an attempt;
    # the storage cap (finding 5) is another test's business: raised here, so the undo's cost is
    # measured on the line the attack used.
    if "max_steps" in {f.name for f in dataclasses.fields(attempts.policy)}:
        attempts.policy = dataclasses.replace(attempts.policy, max_steps=10_000)
    yield attempts
    attempts.close()


def _play(store: Attempts, puzzle: Any, attempt: str, steps: list[str]) -> Any:
    state = None
    for at in range(0, len(steps), MAX_REQUEST_STEPS):
        chunk = steps[at : at + MAX_REQUEST_STEPS]
        state = store.play(puzzle, attempt, chunk, 7, T0, TODAY)
    return state


def _full_replay(puzzle: Any, line: list[str]) -> list[list[str]]:
    game = _opening(puzzle)
    for text in line:
        game.push(COMPACT_STEPS[text])
    return [[cards.name(c) for c in pile] for pile in game.piles]


def test_a_hundred_undos_on_a_long_line_cost_what_a_hundred_steps_cost(
    store: Attempts, monkeypatch: pytest.MonkeyPatch
) -> None:
    puzzle = published_puzzles().get(PUZZLE)
    line = long_line(puzzle, LINE + 1)
    attempt = store.start(puzzle, "ada", "off", 7, T0).attempt
    _play(store, puzzle, attempt, line[:LINE])
    pushes = Pushes(monkeypatch)
    step_cost, _ = pushes.during(lambda: store.play(puzzle, attempt, [line[LINE]], 7, T0, TODAY))
    undo_cost, state = pushes.during(
        lambda: store.play(puzzle, attempt, ["undo"] * UNDOS, 7, T0, TODAY)
    )
    # A request replays the standing line once, then plays what it carries: one step costs one
    # push, each undo at most the steps since the last snapshot.
    assert step_cost == LINE + 1
    per_undo = (undo_cost - (LINE + 1)) / UNDOS
    assert per_undo <= UNDO_SNAPSHOT_STEPS, (undo_cost, per_undo)
    # The whole request: within a small factor of one step's (the old code: about 100 times).
    assert undo_cost <= 4 * step_cost, (undo_cost, step_cost)
    kept = LINE + 1 - UNDOS
    assert [s.step for s in state.line] == line[:kept]
    assert state.position.piles == _full_replay(puzzle, line[:kept])


def _more_steps(
    puzzle: Any, standing: list[str], auto: str, n: int, rng: random.Random
) -> list[str]:
    """``n`` random legal player steps after the standing line (the server's automatic moves
    made after each, as it makes them, when ``auto`` is on)."""
    game = _opening(puzzle)
    for text in standing:
        game.push(COMPACT_STEPS[text])
    sent: list[str] = []
    for _ in range(n):
        steps = list(game.legal_steps())
        if not steps:
            break  # blocked: the undos take it back
        others = [s for s in steps if not (isinstance(s, Move) and s.target is None)]
        step = rng.choice(others if others and rng.random() < 0.97 else steps)
        game.push(step)
        sent.append(compact(step))
        while auto == "foundations" and (move := game.automatic_move()) is not None:
            game.push(move)
    return sent


@pytest.mark.parametrize("auto", ["off", "foundations"])
def test_undos_answer_as_a_full_replay_of_the_shortened_line(store: Attempts, auto: Auto) -> None:
    # Undos of every size, between steps, across snapshots, down to the start: each answer's
    # line and position are those of the line replayed from the deal, as before.
    puzzle = published_puzzles().get(PUZZLE)
    rng = random.Random(3)
    state = store.start(puzzle, "ada", auto, 7, T0)
    attempt = state.attempt
    undone = 0
    for _ in range(10):
        standing = [s.step for s in state.line]
        steps = _more_steps(puzzle, standing, auto, rng.randint(1, 90), rng)
        players = sum(1 for s in state.line if not s.auto) + len(steps)
        undos = ["undo"] * rng.randint(1, min(players, 80))
        undone += len(undos)
        # undos alone, and undos mixed with steps in one request
        for request in ([*steps, *undos], undos[:1]):
            state = store.play(puzzle, attempt, request, 7, T0, TODAY)
            standing = [s.step for s in state.line]
            assert state.position.piles == _full_replay(puzzle, standing)
            if not any(not s.auto for s in state.line):
                break
    assert undone > 3 * UNDO_SNAPSHOT_STEPS  # undos across several snapshots
