"""CPU per ``POST /v1/analyze`` request at the service's budget (issue #24, finding 2).

    python benchmarks/analyze_cost.py --from 1 --to 500
    python benchmarks/analyze_cost.py --from 1 --to 500 --slowest 10 --steps 300
    python benchmarks/analyze_cost.py --from 1 --to 500 --total-states 200000 --max-states 50000

The set of logs: for every deal number in the range, the game of a seeded random player
(``random.Random(number)``, each legal step equally likely) stopped when blocked or after
``--steps`` steps, as a ``cruel-log/1`` log; with ``--wins N``, the par solution of every
committed puzzle of N days from 2027-01-01 (a won game: one fewest-actions search); with
``--long-wins N``, the first N wins that the analysis of a random game gives back
(``loss.continuation``: the random player's steps, then the solver's win, long and far from the
optimum, the costliest logs found).
Each log is analysed exactly as the route does (``cruel_tools.service.logs.analyze_request``,
the service's budgets unless overridden), one at a time, in this process; the CPU time of the
process per request is measured (``time.process_time``: other jobs on a shared machine
inflate it much less than the wall clock).

Printed: the machine and command line; logs analysed; median, p95 and max CPU seconds per
request, and the wall clock's; the answers by status; with ``--slowest N`` the N costliest
logs with their positions expanded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import shlex
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from cruel_tools import log
from cruel_tools.deals import deal_piles
from cruel_tools.engine import engine_name
from cruel_tools.game import Game, Step
from cruel_tools.puzzles import PuzzleSet, puzzle_solution_log
from cruel_tools.service.logs import (
    ANALYZE_MAX_STATES,
    ANALYZE_TOTAL_STATES,
    ANALYZE_WIN_STATES,
    analyze_request,
)
from cruel_tools.solver import solution_log

ROOT = Path(__file__).resolve().parent.parent


def random_game(number: int, steps: int) -> dict[str, Any]:
    """The seeded random player's game of deal ``number`` as a log (won games too)."""
    rng = random.Random(number)
    game = Game.from_deal(deal_piles(number))
    played: list[Step] = []
    for _ in range(steps):
        options = list(game.legal_steps())
        if not options:
            break
        step = rng.choice(options)
        game.push(step)
        played.append(step)
    return solution_log(number, deal_piles(number), game.rules, played)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--to", dest="last", type=int, default=100)
    parser.add_argument("--steps", type=int, default=100, help="most steps the player plays")
    parser.add_argument("--wins", type=int, default=0, help="days of puzzles' par wins")
    parser.add_argument("--long-wins", type=int, default=0, help="continuations analysed too")
    parser.add_argument("--max-states", type=int, default=ANALYZE_MAX_STATES)
    parser.add_argument("--total-states", type=int, default=ANALYZE_TOTAL_STATES)
    parser.add_argument("--win-states", type=int, default=ANALYZE_WIN_STATES)
    parser.add_argument("--slowest", type=int, default=0, help="list the N costliest logs")
    args = parser.parse_args()

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, engine {engine_name()}"
    )
    print("command: " + shlex.join([sys.argv[0], *sys.argv[1:]]))
    print(
        f"budget: {args.max_states} positions per solve, {args.total_states} per lost game, "
        f"{args.win_states} for a win's fewest-actions search"
    )
    logs: list[tuple[str, dict[str, Any]]] = [
        (f"deal {n}", random_game(n, args.steps)) for n in range(args.first, args.last + 1)
    ]
    if args.wins:
        puzzles = PuzzleSet.load(ROOT / "puzzles")
        start = dt.date(2027, 1, 1)
        for day in range(args.wins):
            for puzzle in puzzles.on(start + dt.timedelta(days=day)):
                logs.append((f"{puzzle.id} par", puzzle_solution_log(puzzle)))
    cpu: list[float] = []
    wall: list[float] = []
    answers: Counter[str] = Counter()
    costs: list[tuple[float, str, str]] = []
    long_wins = 0
    for name, doc in logs:
        game_log = log.from_object(doc)
        c0, w0 = time.process_time(), time.perf_counter()
        result = analyze_request(game_log, args.max_states, args.total_states, args.win_states)()
        c1, w1 = time.process_time(), time.perf_counter()
        status = result.loss.status if result.loss else "won"
        answers[status] += 1
        cpu.append(c1 - c0)
        wall.append(w1 - w0)
        costs.append((c1 - c0, name, f"{len(doc['moves'])} steps, {status}"))
        if result.loss and result.loss.continuation and long_wins < args.long_wins:
            long_wins += 1
            logs.append((f"{name}, its continuation", result.loss.continuation))
    print(f"logs: {len(cpu)}")
    for label, values in (("CPU", cpu), ("wall", wall)):
        print(
            f"{label} s per request: median {statistics.median(values):.3f}, "
            f"p95 {percentile(values, 0.95):.3f}, max {max(values):.3f}"
        )
    print("answers: " + ", ".join(f"{k} {v}" for k, v in answers.most_common()))
    for seconds, name, what in sorted(costs, reverse=True)[: args.slowest]:
        print(f"  {seconds:6.2f} s CPU  {name}: {what}")


if __name__ == "__main__":
    main()
