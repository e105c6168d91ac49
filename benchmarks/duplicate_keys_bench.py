"""The cost of refusing duplicate JSON keys (#24) in ``cruel verify --json``, whole process.

    python benchmarks/duplicate_keys_bench.py                    # 40,000 logs, 5 rounds
    python benchmarks/duplicate_keys_bench.py --logs 12000 --rounds 3

The command is native_verify_bench.py's (``cruel verify --json --quiet FILE.jsonl``, output to
/dev/null) on verify_bench.py's fixture (``benchmarks/data/won-logs.jsonl``, built by
``verify_bench.py`` on first use), repeated to ``--logs`` lines. Each round runs four
processes, alternating: the native core and the Python engine (``CRUEL_ENGINE``), each with
the check (this tree) and without it ("before": ``log._surely_unique`` answers True, so the
fast path skips the check, as main did before the check existed; the fixture's logs are all
valid, so no other path runs). The figures are medians over the rounds, of wall time and of
the process's CPU time (user + system: less moved by other work on the machine).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
CODE = """
import sys
if sys.argv[1] == "before":
    import cruel_tools.game.log as log
    log._surely_unique = lambda *args: True
sys.argv = ["cruel", "verify", "--json", "--quiet", sys.argv[2]]
from cruel_tools.cli.console import main
sys.exit(main())
"""


def run(tree: str, engine: str, path: Path) -> tuple[float, float]:
    env = {**os.environ, "CRUEL_ENGINE": engine}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CODE, tree, str(path)], env=env, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, f"{tree} {engine}: exit {done.returncode}"
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--logs", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--data", type=Path, default=HERE / "data" / "won-logs.jsonl")
    args = ap.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: missing: run benchmarks/verify_bench.py once to build it")
    lines = args.data.read_bytes().splitlines()
    lines = (lines * (args.logs // len(lines) + 1))[: args.logs]
    path = Path(tempfile.mkdtemp(prefix="cruel-dupkeys-")) / "logs.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for r in range(args.rounds):
        for engine in ("native", "python"):
            for tree in ("before", "after"):
                runs.setdefault((engine, tree), []).append(run(tree, engine, path))
        print(f"  round {r + 1}/{args.rounds}", file=sys.stderr)
    print(f"`cruel verify --json`, {len(lines):,} logs | wall | logs/s | CPU | after/before (CPU)")
    print("|---|---:|---:|---:|---:|")
    for engine in ("native", "python"):
        cpu_before = statistics.median(c for _, c in runs[(engine, "before")])
        for tree in ("before", "after"):
            wall = statistics.median(w for w, _ in runs[(engine, tree)])
            cpu = statistics.median(c for _, c in runs[(engine, tree)])
            print(
                f"| {engine}, {tree} | {wall:.2f} s | {len(lines) / wall:,.0f} | {cpu:.2f} s"
                f" | {cpu / cpu_before:.3f} |"
            )


if __name__ == "__main__":
    main()
