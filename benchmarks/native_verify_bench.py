"""Benchmark of ``cruel verify --json FILE.jsonl``, whole process: native core vs Python engine.

    python benchmarks/native_verify_bench.py              # 40,000 winning logs, 5 rounds
    python benchmarks/native_verify_bench.py --logs 40000 --rounds 7 --jobs 2

The fixture is verify_bench.py's (``benchmarks/data/won-logs.jsonl``, built on first use: deals
solved, each win written 24 times, once per relabelling of the suits). Each round runs the
command once with ``CRUEL_ENGINE=native`` and once with ``CRUEL_ENGINE=python``, alternating,
output to /dev/null, so both see the same machine at the same moments; the figures are the
medians over the rounds of logs/s (whole process: start-up, reading, verifying, writing).
With ``--jobs N`` it also times ``--jobs N``. It checks once that both engines print the same
bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
CRUEL = Path(sys.executable).parent / "cruel"


def _run(path: Path, engine: str, jobs: int, out: int | None = None) -> float:
    env = {**os.environ, "CRUEL_ENGINE": engine}
    command = [str(CRUEL), "verify", "--json", "--quiet", str(path)]
    if jobs > 1:
        command[2:2] = ["--jobs", str(jobs)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=out or subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, f"{engine}: exit {done.returncode}"
    return elapsed


def _digest(path: Path, engine: str) -> str:
    with tempfile.TemporaryFile() as f:
        _run(path, engine, 1, f.fileno())
        f.seek(0)
        return hashlib.sha256(f.read()).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--logs", type=int, default=40_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1, help="also time --jobs N (N > 1)")
    ap.add_argument("--data", type=Path, default=HERE / "data" / "won-logs.jsonl")
    args = ap.parse_args()

    if not args.data.exists() or args.data.read_bytes().count(b"\n") < args.logs:
        sys.path.insert(0, str(HERE))
        from verify_bench import build_fixture

        build_fixture(args.data, args.logs, 2)
    with args.data.open("rb") as f:
        lines = [next(f) for _ in range(args.logs)]
    path = Path(tempfile.mkdtemp(prefix="cruel-native-bench-")) / "logs.jsonl"
    path.write_bytes(b"".join(lines))
    n = len(lines)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''} "
        f"{multiprocessing.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"fixture: {n} winning logs, {sum(map(len, lines)) / n:.0f} bytes per log")
    assert _digest(path, "native") == _digest(path, "python"), "the engines print different bytes"
    print("output: byte-identical under both engines")
    runs = [("native", 1), ("python", 1)]
    if args.jobs > 1:
        runs += [("native", args.jobs), ("python", args.jobs)]
    times: dict[tuple[str, int], list[float]] = {r: [] for r in runs}
    for r in range(args.rounds):
        for engine, jobs in runs:
            times[(engine, jobs)].append(_run(path, engine, jobs))
        print(f"  round {r + 1}/{args.rounds}", file=sys.stderr)
    print(
        f"{'cruel verify --json (whole process, median)':46s} {'native':>12s} {'python':>12s} {'ratio':>7s}"
    )
    for jobs in sorted({j for _, j in runs}):
        nat = statistics.median(times[("native", jobs)])
        py = statistics.median(times[("python", jobs)])
        label = "1 process" if jobs == 1 else f"--jobs {jobs}"
        print(f"{label + ' (logs/s)':46s} {n / nat:12,.0f} {n / py:12,.0f} {py / nat:6.1f}x")
        print(f"{label + ' (seconds)':46s} {nat:12.2f} {py:12.2f}")


if __name__ == "__main__":
    main()
