"""Two source trees side by side (issue #35: a refactor must keep verify, the solver and the
service as fast as they were): each measure runs in both trees in turn, ``--rounds`` times, and
the medians are printed.

    git worktree add /tmp/before REV && (cd /tmp/before && python setup.py build_ext --inplace)
    .venv/bin/python benchmarks/compare_trees.py /tmp/before . --rounds 3

Each tree runs with ``PYTHONPATH=<tree>`` (its own package and native core), its own copy of
the benchmark scripts, and the interpreter running this script:

* verify: ``python -m cruel_tools.cli verify --json FILE``, whole process, on verify_bench.py's
  fixture (``benchmarks/data/won-logs.jsonl``, 40,000 winning logs), output to /dev/null;
* solver: ``benchmarks/native_solve_bench.py --from 1 --to 40 --rounds 1 --big 0`` (the native
  core's positions a second);
* service: ``benchmarks/route_throughput.py --route verify --clients 8 --duration 10``
  (``POST /v1/verify`` on a real ``cruel serve``: requests a second, p99).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "data" / "won-logs.jsonl"


def run(tree: Path, args: list[str]) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "CRUEL_ENGINE": "native"}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, check=True
    )
    return time.perf_counter() - began, done.stdout


def verify(tree: Path) -> dict[str, float]:
    with open(os.devnull, "w") as sink:
        env = {**os.environ, "PYTHONPATH": str(tree), "CRUEL_ENGINE": "native"}
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cruel_tools.cli", "verify", "--json", str(FIXTURE)],
            cwd=tree,
            env=env,
            stdout=sink,
            check=False,  # exit 0: every log is a win
        )
        return {"verify s": time.perf_counter() - began}


def solver(tree: Path) -> dict[str, float]:
    script = "benchmarks/native_solve_bench.py"
    _, out = run(tree, [script, "--from", "1", "--to", "40", "--rounds", "1", "--big", "0"])
    found = re.search(r"native\s+([\d,]+) positions/s", out)
    assert found, out
    return {"solver positions/s": float(found.group(1).replace(",", ""))}


def service(tree: Path) -> dict[str, float]:
    script = "benchmarks/route_throughput.py"
    args = [script, "--route", "verify", "--clients", "8", "--duration", "10"]
    _, out = run(tree, args)
    rate = re.search(r"([\d,.]+) requests/s", out)
    p99 = re.search(r"p99 ([\d.]+) ms", out)
    assert rate and p99, out
    return {
        "verify requests/s": float(rate.group(1).replace(",", "")),
        "p99 ms": float(p99.group(1)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=["verify", "solver", "service"], action="append")
    args = ap.parse_args()
    measures = [m for m in (verify, solver, service) if not args.only or m.__name__ in args.only]
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    seen: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        for measure in measures:
            for name, tree in trees.items():
                for key, value in measure(tree).items():
                    seen.setdefault((key, name), []).append(value)
        print(f"round {round_ + 1} done", file=sys.stderr)
    print(f"command: {' '.join(sys.orig_argv)}")
    print(f"| measure | before ({args.before}) | after ({args.after}) | runs |")
    print("|---|---|---|---|")
    for key in dict.fromkeys(k for k, _ in seen):
        b, a = seen[(key, "before")], seen[(key, "after")]
        runs = " / ".join(f"{x:,.2f}" for x in b) + " vs " + " / ".join(f"{x:,.2f}" for x in a)
        print(f"| {key} | {statistics.median(b):,.2f} | {statistics.median(a):,.2f} | {runs} |")


if __name__ == "__main__":
    main()
