"""Benchmark of undo in a live attempt (issue #33, finding 6): a request of undos against a
request of steps, on a long standing line.

    python benchmarks/attempt_undo_bench.py --line 1600 --undos 100 --repeat 7

Builds an attempt (SQLite, in a temporary folder) on the committed puzzle 2027-01-05-medium with
a standing line of ``--line`` steps made by random play (as the attacker's), then times, each
``--repeat`` times on the same line: a request of one step, a request of ``--undos`` steps, and
a request of ``--undos`` undos (each followed by the steps that put the line back, not timed).
Prints the median wall time of each request, in milliseconds, and the engine steps
(``Game.push``) each made. Run with ``PYTHONPATH=<an older tree>`` to measure that tree's code.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TODAY = dt.date(2027, 1, 5)
T0 = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)


def random_line(puzzle: Any, length: int) -> list[str]:
    from cruel_tools.game import cards
    from cruel_tools.game.game import Game, Move
    from cruel_tools.game.log import compact

    for seed in range(100):
        rng = random.Random(seed)
        piles = [[cards.parse(t) for t in pile] for pile in puzzle.deal.piles]
        game = Game.from_deal(piles, puzzle.resolved_rules())
        line: list[str] = []
        while len(line) < length:
            steps = list(game.legal_steps())
            if not steps:
                break
            others = [s for s in steps if not (isinstance(s, Move) and s.target is None)]
            step = rng.choice(others if others and rng.random() < 0.97 else steps)
            game.push(step)
            line.append(compact(step))
        if len(line) == length:
            return line
    raise SystemExit(f"no random line of {length} steps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--line", type=int, default=1600)
    parser.add_argument("--undos", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=7)
    opts = parser.parse_args()
    from cruel_tools.game.game import Game
    from cruel_tools.puzzles import PuzzleSet
    from cruel_tools.site import attempts

    puzzle = PuzzleSet.load(ROOT / "puzzles").get("2027-01-05-medium")
    assert puzzle is not None
    line = random_line(puzzle, opts.line + opts.undos)
    pushes = [0]
    real = Game.push

    def counted(game: Game, step: Any) -> None:
        pushes[0] += 1
        real(game, step)

    setattr(Game, "push", counted)  # noqa: B010 (counted, for this process only)
    with tempfile.TemporaryDirectory() as folder:
        store = attempts.Attempts(Path(folder) / "cruel.sqlite")
        policy = store.policy
        if "max_steps" in {f.name for f in dataclasses.fields(policy)}:  # the cap, raised
            store.policy = dataclasses.replace(policy, max_steps=10**6)
        else:
            attempts.MAX_ATTEMPT_STEPS = 10**6  # type: ignore[misc]
        aid = store.start(puzzle, "ada", "off", 7, T0).attempt
        for at in range(0, opts.line, attempts.MAX_REQUEST_STEPS):
            store.play(puzzle, aid, line[at : min(at + 200, opts.line)], 7, T0, TODAY)

        def timed(steps: list[str]) -> tuple[float, int]:
            pushes[0] = 0
            began = time.perf_counter()
            store.play(puzzle, aid, steps, 7, T0, TODAY)
            return (time.perf_counter() - began) * 1000, pushes[0]

        rows: dict[str, list[tuple[float, int]]] = {"1 step": [], "steps": [], "undos": []}
        for _ in range(opts.repeat):
            rows["1 step"].append(timed(line[opts.line : opts.line + 1]))
            store.play(puzzle, aid, ["undo"], 7, T0, TODAY)
            rows["steps"].append(timed(line[opts.line : opts.line + opts.undos]))
            rows["undos"].append(timed(["undo"] * opts.undos))
        store.close()
    print(f"standing line {opts.line} steps, {opts.undos} a request, median of {opts.repeat}")
    for name, runs in rows.items():
        label = name if name == "1 step" else f"{opts.undos} {name}"
        ms = statistics.median(r[0] for r in runs)
        print(f"{label:>10}: {ms:8.1f} ms  {statistics.median(r[1] for r in runs):>8} engine steps")


if __name__ == "__main__":
    sys.path.append(str(ROOT))  # after PYTHONPATH, so that an older tree given there is measured
    main()
