"""Latency of a hint (issue #27: "under 200 ms at the p95 for positions of closed published puzzles").

    python benchmarks/hint_bench.py
    python benchmarks/hint_bench.py --start 2027-01-01 --days 10 --every 5 --max-states 100000

The positions: along the par solution of every committed puzzle of ``--days`` days from
``--start``, the position after 0, ``--every``, 2 x ``--every``, ... steps (each as a log of the
par's first steps). Each is hinted:

* through the library (:func:`cruel_tools.advice.hints.hint`, in this process), wall clock per call;
* through the HTTP route (``POST /v1/hint``, FastAPI's TestClient on an app whose today is the
  day after the last puzzle, so that every one is closed, without rate limits): the help guard,
  the hints' gate and their process pool (apart from the analyses' since issue #33), as served
  (the pool is started by a first request not counted).

Then the worst case the budget allows: deals whose hint spends the whole budget (``unknown``),
through the library. Printed: the machine, the engine and command line; per way, the count,
p50, p95 and max in ms; the answers by status; the positions expanded (p95, max).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.advice import hints
from cruel_tools.game.engine import engine_name
from cruel_tools.game.log import from_object
from cruel_tools.puzzles import PuzzleSet, puzzle_solution_log

ROOT = Path(__file__).resolve().parent.parent
#: Deals whose hint from the start spends a budget of 100,000 positions (found on deals 1-300).
WORST = (48, 205)


def positions(start: dt.date, days: int, every: int) -> list[dict[str, Any]]:
    """Logs of the par solutions' first 0, every, 2 x every, ... steps."""
    found = PuzzleSet.load(ROOT / "puzzles")
    last = start + dt.timedelta(days - 1)
    logs = []
    for puzzle_id in sorted(found.by_id):
        puzzle = found.by_id[puzzle_id]
        if puzzle.date is None or not start <= puzzle.date <= last:
            continue
        doc = puzzle_solution_log(puzzle)
        del doc["claim"]
        moves = doc["moves"]
        logs.extend({**doc, "moves": moves[:k]} for k in range(0, len(moves), every))
    return logs


def quantiles(seconds: list[float]) -> str:
    s = sorted(seconds)
    p50, p95 = s[len(s) // 2], s[min(len(s) - 1, int(len(s) * 0.95))]
    return f"n={len(s)} p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {s[-1] * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=dt.date.fromisoformat, default=dt.date(2027, 1, 1))
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--max-states", type=int, default=hints.MAX_STATES)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"engine: {engine_name()}; load {os.getloadavg()[0]:.2f}")
    print("command: python " + shlex.join(["benchmarks/hint_bench.py", *sys.argv[1:]]))
    logs = positions(args.start, args.days, args.every)

    took, statuses, expanded = [], Counter[str](), []
    for doc in logs:
        game_log = from_object(doc)
        began = time.perf_counter()
        found = hints.hint(game_log, args.max_states)
        took.append(time.perf_counter() - began)
        statuses[found.status] += 1
        expanded.append(found.expanded)
    expanded.sort()
    print(f"library: {quantiles(took)}; {dict(statuses)}")
    p95 = expanded[min(len(expanded) - 1, int(len(expanded) * 0.95))]
    print(f"  positions expanded: p95 {p95}, max {expanded[-1]}")

    today = args.start + dt.timedelta(args.days)  # every puzzle benchmarked is closed
    with tempfile.TemporaryDirectory() as folder:
        settings = service.Settings(
            puzzles=ROOT / "puzzles",
            db=Path(folder) / "cruel.sqlite",
            fixed_today=today,
            analyze_limit=None,
        )
        with TestClient(service.create_app(settings)) as client:
            url = f"/v1/hint?max_states={args.max_states}"
            bodies = [orjson.dumps(doc) for doc in logs]
            assert client.post(url, content=bodies[0]).status_code == 200  # starts the pool
            took, statuses = [], Counter()
            for body in bodies:
                began = time.perf_counter()
                r = client.post(url, content=body)
                took.append(time.perf_counter() - began)
                assert r.status_code == 200, r.text
                statuses[r.json()["status"]] += 1
    print(f"HTTP route: {quantiles(took)}; {dict(statuses)}")

    took = []
    for number in WORST:
        doc = {"format": "cruel-log/1", "deal": {"number": number}, "moves": []}
        began = time.perf_counter()
        found = hints.hint(from_object(doc), args.max_states)
        took.append(time.perf_counter() - began)
        print(
            f"worst case, deal {number}: {found.status}, {found.expanded} positions, "
            f"{took[-1] * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
