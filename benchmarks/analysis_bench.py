"""Benchmark of post-game analysis (issue #16): lost games of a seeded random player.

    python benchmarks/analysis_bench.py --from 1 --to 500
    python benchmarks/analysis_bench.py --from 1 --to 500 --every 10 --max-states 50000
    python benchmarks/analysis_bench.py --from 1 --to 500 --engines native,python --python-every 10

For every deal number in the range (every ``--every``-th one), a seeded random legal player
(``random.Random(number)``, each legal step equally likely) plays until the game is blocked or
``--steps`` steps are played; games that end won are left out (there is nothing lost to find).
Each lost game is written as a ``cruel-log/1`` log and analysed by
``cruel_tools.advice.analysis.analyze`` with ``--max-states`` positions per solve (default: the
analysis' default for the engine, ``analysis.loss_states``), one game at a time on one core.

``--engines native,python`` analyses the same games with each engine in turn, in this one
process (``CRUEL_ENGINE`` set for each), the Python engine only on every ``--python-every``-th
game of the set (it is about a hundred times slower); then the games both engines decided are
compared (the same answer, the same losing step: each is a proof).

Printed: the machine and the command line; games analysed and their median number of steps;
median and 95th percentile seconds per game (wall clock of ``analyze``, and the CPU time of
this process, which other jobs on a busy machine inflate much less); the share fully decided
(a losing step, lost from the start, or not lost) with its 95% Wilson interval; the answers by
status; the median number of solves.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import shlex
import statistics
import sys
import time
from collections import Counter

from cruel_tools.advice.analysis import Analysis, analyze, loss_states
from cruel_tools.game import log
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Step
from cruel_tools.game.log import GameLog, compact
from cruel_tools.game.rules import PRESETS

Z95 = 1.959963984540054


def random_lost_game(number: int, steps: int) -> list[Step] | None:
    """The seeded random player's game of deal ``number``; None when it ends won."""
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
    return None if game.is_won() else played


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + Z95**2 / n
    c = (p + Z95**2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def summary(engine: str, runs: dict[int, tuple[Analysis, float, float]], won_games: int) -> None:
    """The figures of one engine's analyses (number -> analysis, wall s, CPU s)."""
    seconds = [w for _, w, _ in runs.values()]
    cpu = [c for _, _, c in runs.values()]
    lengths = [a.steps for a, _, _ in runs.values()]
    losses = [a.loss for a, _, _ in runs.values() if a.loss is not None]
    solves = [loss.solves for loss in losses]
    statuses = Counter(loss.status for loss in losses)
    budgets = sorted({a.max_states for a, _, _ in runs.values()})
    n = len(seconds)
    decided = n - statuses["undecided"]
    low, high = wilson(decided, n)
    p95 = statistics.quantiles(seconds, n=20)[-1] if n >= 2 else max(seconds, default=0.0)
    cpu95 = statistics.quantiles(cpu, n=20)[-1] if n >= 2 else max(cpu, default=0.0)
    print(f"== engine {engine}, budget {', '.join(f'{b:,}' for b in budgets)} positions a solve")
    print(
        f"games analysed: {n} lost (left out: {won_games} won), median {statistics.median(lengths):g} steps"
    )
    print(
        f"seconds per game: median {statistics.median(seconds):.2f}, p95 {p95:.2f}, max {max(seconds):.2f}"
    )
    print(
        f"CPU seconds per game: median {statistics.median(cpu):.2f}, p95 {cpu95:.2f}, max {max(cpu):.2f}"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(f"fully decided: {decided}/{n} = {decided / n:.1%} (95% CI {low:.1%}-{high:.1%})")
    print("answers: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    undecided = [k for k, (a, _, _) in runs.items() if a.loss and a.loss.status == "undecided"]
    print(f"undecided deals: {' '.join(map(str, undecided)) or 'none'}")
    print(f"solves per game: median {statistics.median(solves):g}, max {max(solves)}")


def _answer(a: Analysis) -> tuple[str, int | None]:
    assert a.loss is not None
    return a.loss.status, a.loss.last_won_position


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--to", dest="last", type=int, default=500)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--steps", type=int, default=100, help="most steps the player plays")
    parser.add_argument(
        "--max-states", type=int, default=None, help="default: the engine's (loss_states)"
    )
    parser.add_argument(
        "--engines", default="", help="native,python: each in turn (default: CRUEL_ENGINE's)"
    )
    parser.add_argument("--python-every", type=int, default=1, help="the Python engine's share")
    args = parser.parse_args()

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print("command: " + shlex.join([sys.argv[0], *sys.argv[1:]]))
    games: dict[int, GameLog] = {}
    won_games = 0
    for number in range(args.first, args.last + 1, args.every):
        steps = random_lost_game(number, args.steps)
        if steps is None:
            won_games += 1
            continue
        doc = {
            "format": "cruel-log/1",
            "rules": "cruel",
            "deal": {"number": number},
            "moves": [compact(s) for s in steps],
        }
        games[number] = log.from_object(doc)
    engines = [e for e in args.engines.split(",") if e] or [os.environ.get("CRUEL_ENGINE", "")]
    results: dict[str, dict[int, tuple[Analysis, float, float]]] = {}
    for name in engines:
        if name:
            os.environ["CRUEL_ENGINE"] = name
        print(f"engine {name or 'auto'}: default budget {loss_states(PRESETS['cruel']):,}")
        every = args.python_every if name == "python" else 1
        runs: dict[int, tuple[Analysis, float, float]] = {}
        began = time.perf_counter()
        for number in list(games)[::every]:
            t, c = time.perf_counter(), time.process_time()
            result = analyze(games[number], max_states=args.max_states)
            runs[number] = (result, time.perf_counter() - t, time.process_time() - c)
        summary(name or "auto", runs, won_games)
        print(f"wall time: {time.perf_counter() - began:.1f} s")
        results[name] = runs
    if len(results) > 1:
        first, *others = list(results)
        for other in others:
            both = [k for k in results[other] if k in results[first]]
            decided = [
                k
                for k in both
                if "undecided"
                not in (results[first][k][0].loss.status, results[other][k][0].loss.status)  # type: ignore[union-attr]
            ]
            differ = [
                k for k in decided if _answer(results[first][k][0]) != _answer(results[other][k][0])
            ]
            print(
                f"{first} and {other}: {len(both)} games analysed by both, {len(decided)} decided "
                f"by both, different answers: {' '.join(map(str, differ)) or 'none'}"
            )


if __name__ == "__main__":
    main()
