"""CPU per ``POST /v1/analyze`` request at the service's budget (issue #24, finding 2).

    python benchmarks/analyze_cost.py --from 1 --to 500
    python benchmarks/analyze_cost.py --from 1 --to 500 --slowest 10 --steps 300
    python benchmarks/analyze_cost.py --from 1 --to 500 --total-states 200000 --max-states 50000
    python benchmarks/analyze_cost.py --all-rules --from 1 --to 5 --solver-wins 5 --long-wins 3
    python benchmarks/analyze_cost.py --rules royal-family-pysolfc --from 1 --to 20 --solver-wins 20

The set of logs: for every deal number in the range, the game of a seeded random player
(``random.Random(number)``, each legal step equally likely) stopped when blocked or after
``--steps`` steps, as a ``cruel-log/1`` log; with ``--wins N``, the par solution of every
committed puzzle of N days from 2027-01-01 (a won game: one fewest-actions search); with
``--long-wins N``, the first N wins that the analysis of a random game gives back
(``loss.continuation``: the random player's steps, then the solver's win, long and far from the
optimum, the costliest logs found); with ``--solver-wins N``, the solver's win (``cruel solve``'s
line) of each of the first N deals of the range it wins (issue #33, finding 3: a won log is what
costs most on the rest of the family). ``--rules NAME`` (repeatable) or ``--all-rules``: the
logs are played and analysed under those presets (``cruel rules``), each measured on its own
(default: cruel).
Each log is analysed exactly as the route does (``cruel_tools.service.log_tools.analyze_request``,
the service's budgets unless overridden), one at a time, in this process; the CPU time of the
process per request is measured (``time.process_time``: other jobs on a shared machine
inflate it much less than the wall clock).

Printed: the machine and command line; logs analysed; median, p95 and max CPU seconds per
request, and the wall clock's; the answers by status; with ``--slowest N`` the N costliest
logs; per preset when several are measured, and a table of them at the end.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cruel_tools.advice.analysis import Analysis
from cruel_tools.game import log
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.engine import engine_name
from cruel_tools.game.game import Game, Step
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.puzzles import PuzzleSet, puzzle_solution_log
from cruel_tools.search.solver import solution_log, solve
from cruel_tools.service.log_tools import ANALYZE_MAX_STATES, ANALYZE_TOTAL_STATES, analyze_request

ROOT = Path(__file__).resolve().parent.parent


def random_game(number: int, steps: int, rules: Rules) -> dict[str, Any]:
    """The seeded random player's game of deal ``number`` under ``rules`` as a log (won games
    too)."""
    rng = random.Random(number)
    game = Game.from_deal(deal_piles(number, rules), rules)
    played: list[Step] = []
    for _ in range(steps):
        options = list(game.legal_steps())
        if not options:
            break
        step = rng.choice(options)
        game.push(step)
        played.append(step)
    return solution_log(number, deal_piles(number, rules), game.rules, played)


def solver_win(number: int, rules: Rules) -> dict[str, Any] | None:
    """The solver's win of deal ``number`` under ``rules`` (what ``cruel solve`` prints), or
    None when it finds none within its default budget."""
    found = solve(Game.from_deal(deal_piles(number, rules), rules))
    if found.verdict != "won":
        return None
    return solution_log(number, deal_piles(number, rules), rules, found.steps)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def the_logs(args: argparse.Namespace, rules: Rules) -> list[tuple[str, dict[str, Any]]]:
    """The logs measured under ``rules``: random games, puzzles' par wins (Cruel's own puzzles,
    under the preset cruel only) and the solver's wins."""
    numbers = range(args.first, args.last + 1)
    logs = [(f"deal {n}", random_game(n, args.steps, rules)) for n in numbers]
    if args.wins and rules.preset == "cruel":
        puzzles = PuzzleSet.load(ROOT / "puzzles")
        start = dt.date(2027, 1, 1)
        for day in range(args.wins):
            for puzzle in puzzles.on(start + dt.timedelta(days=day)):
                logs.append((f"{puzzle.id} par", puzzle_solution_log(puzzle)))
    wins = 0
    for n in numbers:
        if wins >= args.solver_wins:
            break
        doc = solver_win(n, rules)
        if doc is not None:
            wins += 1
            logs.append((f"deal {n}, solver's win", doc))
    return logs


def measure(args: argparse.Namespace, rules: Rules) -> dict[str, float]:
    """Analyse every log of :func:`the_logs` as the route does; print and return the figures."""
    logs = the_logs(args, rules)

    def work(game_log: log.GameLog) -> Callable[[], Analysis]:
        """The route's work; the service's budget for a win unless --win-states is given
        (analysis.win_budget scales it outside Cruel's layout)."""
        if args.win_states is None:
            return analyze_request(game_log, args.max_states, args.total_states)
        return analyze_request(game_log, args.max_states, args.total_states, args.win_states)

    cpu: list[float] = []
    wall: list[float] = []
    won: list[float] = []
    lost: list[float] = []
    answers: Counter[str] = Counter()
    costs: list[tuple[float, str, str]] = []
    long_wins = 0
    for name, doc in logs:
        game_log = log.from_object(doc)
        c0, w0 = time.process_time(), time.perf_counter()
        result = work(game_log)()
        c1, w1 = time.process_time(), time.perf_counter()
        status = result.loss.status if result.loss else "won"
        answers[status] += 1
        cpu.append(c1 - c0)
        wall.append(w1 - w0)
        (won if result.win is not None else lost).append(c1 - c0)
        costs.append((c1 - c0, name, f"{len(doc['moves'])} steps, {status}"))
        if result.loss and result.loss.continuation and long_wins < args.long_wins:
            long_wins += 1
            logs.append((f"{name}, its continuation", result.loss.continuation))
    print(f"rules {rules.preset}: logs {len(cpu)}")
    rows = (("CPU", cpu), ("wall", wall), ("CPU of a win", won), ("CPU of a game not won", lost))
    for label, values in rows:
        if values:
            print(
                f"  {label} s per request: median {statistics.median(values):.3f}, "
                f"p95 {percentile(values, 0.95):.3f}, max {max(values):.3f}"
            )
    print("  answers: " + ", ".join(f"{k} {v}" for k, v in answers.most_common()))
    for seconds, name, what in sorted(costs, reverse=True)[: args.slowest]:
        print(f"    {seconds:6.2f} s CPU  {name}: {what}")
    return {
        "median": statistics.median(cpu),
        "max": max(cpu),
        "win_median": statistics.median(won) if won else float("nan"),
        "win_max": max(won) if won else float("nan"),
        "wins": len(won),
        "lost_max": max(lost) if lost else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--to", dest="last", type=int, default=100)
    parser.add_argument("--steps", type=int, default=100, help="most steps the player plays")
    parser.add_argument("--wins", type=int, default=0, help="days of puzzles' par wins")
    parser.add_argument("--long-wins", type=int, default=0, help="continuations analysed too")
    parser.add_argument("--solver-wins", type=int, default=0, help="solver's wins analysed too")
    parser.add_argument("--rules", action="append", choices=list(PRESETS), help="repeatable")
    parser.add_argument("--all-rules", action="store_true", help="every preset, one by one")
    parser.add_argument("--max-states", type=int, default=ANALYZE_MAX_STATES)
    parser.add_argument("--total-states", type=int, default=ANALYZE_TOTAL_STATES)
    parser.add_argument("--win-states", type=int, default=None, help="default: the service's")
    parser.add_argument("--slowest", type=int, default=0, help="list the N costliest logs")
    args = parser.parse_args()
    names = list(PRESETS) if args.all_rules else args.rules or ["cruel"]

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, engine {engine_name()}"
    )
    print("command: " + shlex.join([sys.argv[0], *sys.argv[1:]]))
    print(
        f"budget: {args.max_states} positions per solve, {args.total_states} per lost game, "
        f"{args.win_states or 'the service budget'} for a win's fewest-actions search"
    )
    table = {name: measure(args, PRESETS[name]) for name in names}
    if len(table) > 1:
        print(
            "| rules | CPU s median | CPU s max | wins | win CPU s median | win CPU s max "
            "| not won CPU s max |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, f in table.items():
            print(
                f"| {name} | {f['median']:.3f} | {f['max']:.3f} | {f['wins']:.0f} | "
                f"{f['win_median']:.3f} | {f['win_max']:.3f} | {f['lost_max']:.3f} |"
            )


if __name__ == "__main__":
    main()
