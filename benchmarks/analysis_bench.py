"""Benchmark of post-game analysis (issue #16): lost games of a seeded random player.

    python benchmarks/analysis_bench.py --from 1 --to 500
    python benchmarks/analysis_bench.py --from 1 --to 500 --every 10 --max-states 50000

For every deal number in the range (every ``--every``-th one), a seeded random legal player
(``random.Random(number)``, each legal step equally likely) plays until the game is blocked or
``--steps`` steps are played; games that end won are left out (there is nothing lost to find).
Each lost game is written as a ``cruel-log/1`` log and analysed by
``cruel_tools.analysis.analyze`` with ``--max-states`` positions per solve, one game at a time
on one core.

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

from cruel_tools import log
from cruel_tools.analysis import MAX_STATES, analyze
from cruel_tools.deals import deal_piles
from cruel_tools.game import Game, Step
from cruel_tools.log import compact

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--to", dest="last", type=int, default=500)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--steps", type=int, default=100, help="most steps the player plays")
    parser.add_argument("--max-states", type=int, default=MAX_STATES)
    args = parser.parse_args()

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print("command: " + shlex.join([sys.argv[0], *sys.argv[1:]]))
    seconds: list[float] = []
    cpu: list[float] = []
    lengths: list[int] = []
    solves: list[int] = []
    statuses: Counter[str] = Counter()
    won_games = 0
    began = time.perf_counter()
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
        game_log = log.from_object(doc)
        t, c = time.perf_counter(), time.process_time()
        result = analyze(game_log, max_states=args.max_states)
        seconds.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        assert result.loss is not None
        statuses[result.loss.status] += 1
        solves.append(result.loss.solves)
        lengths.append(len(steps))
    n = len(seconds)
    decided = n - statuses["undecided"]
    low, high = wilson(decided, n)
    p95 = statistics.quantiles(seconds, n=20)[-1] if n >= 2 else max(seconds, default=0.0)
    cpu95 = statistics.quantiles(cpu, n=20)[-1] if n >= 2 else max(cpu, default=0.0)
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
    print(f"solves per game: median {statistics.median(solves):g}, max {max(solves)}")
    print(f"wall time: {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
