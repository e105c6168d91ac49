"""The solver's speed, native core against the Python search, side by side on the same deals.

    python benchmarks/native_solve_bench.py                       # deals 1-40, 20,000 positions
    python benchmarks/native_solve_bench.py --from 1 --to 100 --max-states 50000 --rounds 3
    python benchmarks/native_solve_bench.py --big 48 --big-states 10000000

Both engines run ``solver.solve`` on each deal with the same budget in positions, one after the
other in this one process (``CRUEL_ENGINE`` is read at each call), so they meet the same noise.
The core searches node for node as the Python search does (tests/test_native_solver.py), so
both expand the same positions: the figure is positions expanded per second of solver time,
the same work on both sides. Each round gives one rate per engine (sum expanded / sum seconds);
the medians of the rounds are printed.

``--big N`` then runs one large native search of deal N (``solver.search``, the full pass) and
prints its rate (per second of wall time, and of this process's CPU time: on a busy machine the
second is the one that measures the code) and the process's peak resident memory before and
after (``ru_maxrss``), against the memory budget (``--max-memory``, default 1 GiB).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shlex
import statistics
import sys
import time

from cruel_tools.game import engine
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.search import solver


def rate(name: str, games: list[Game], max_states: int) -> tuple[float, int, float]:
    """(positions per second, positions, seconds) of ``solve`` on ``games`` under one engine."""
    os.environ[engine.ENV] = name
    expanded, seconds = 0, 0.0
    for game in games:
        result = solver.solve(game.copy(), max_states=max_states)
        expanded += result.stats.expanded
        seconds += result.stats.seconds
    return expanded / seconds, expanded, seconds


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=40)
    ap.add_argument("--max-states", type=int, default=20_000, help="positions per deal")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--big", type=int, default=48, help="deal of the large search (0: none)")
    ap.add_argument("--big-states", type=int, default=10_000_000)
    ap.add_argument("--max-memory", type=solver.parse_memory, default=solver.MAX_MEMORY)
    args = ap.parse_args()
    if engine.native() is None:
        sys.exit("the native core is not built (or CRUEL_ENGINE=python): nothing to compare")

    print(
        f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"
    )
    print(f"command: {shlex.join(sys.orig_argv)}")
    games = [Game.from_deal(deal_piles(n)) for n in range(args.first, args.last + 1)]
    rates: dict[str, list[float]] = {"python": [], "native": []}
    for k in range(args.rounds):
        for name in ("python", "native"):
            r, expanded, seconds = rate(name, games, args.max_states)
            rates[name].append(r)
            print(
                f"  round {k + 1} {name:6s}: {expanded:,} positions in {seconds:.3f} s, {r:,.0f}/s",
                file=sys.stderr,
            )
    py, nat = statistics.median(rates["python"]), statistics.median(rates["native"])
    print(
        f"deals {args.first}-{args.last}, {args.max_states:,} positions each, "
        f"{args.rounds} rounds (medians):"
    )
    print(f"  python  {py:12,.0f} positions/s")
    print(f"  native  {nat:12,.0f} positions/s   ({nat / py:.0f}x)")

    if args.big:
        os.environ[engine.ENV] = "native"
        game = Game.from_deal(deal_piles(args.big))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        began, cpu = time.perf_counter(), time.process_time()
        result = solver.search(
            game, max_states=args.big_states, max_seconds=600, max_memory=args.max_memory
        )
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        st = result.stats
        print(
            f"large search, deal {args.big}: {result.verdict} ({result.reason or 'won'}), "
            f"{st.expanded:,} expanded, {st.unique:,} unique in {wall:.2f} s "
            f"({cpu:.2f} s of CPU): {st.expanded / wall:,.0f}/s, "
            f"{st.expanded / cpu:,.0f} per CPU second"
        )
        print(
            f"  peak resident memory {before / 2**20:,.0f} MiB before, {after / 2**20:,.0f} MiB "
            f"after (+{(after - before) / 2**20:,.0f} MiB; budget "
            f"{solver.memory_size(args.max_memory)}), "
            f"{(after - before) / max(1, st.unique):.0f} bytes per position"
        )


if __name__ == "__main__":
    main()
