"""Start-up time of the ``cruel`` command (issue #22): wall time of whole processes.

    .venv/bin/python benchmarks/startup_bench.py               # 15 runs of each command
    .venv/bin/python benchmarks/startup_bench.py --runs 25 --top 15
    git worktree add /tmp/before <rev> && .venv/bin/python benchmarks/startup_bench.py --compare /tmp/before

Each command runs ``--runs`` times as a new process, as a user's shell starts it (the venv's
``cruel`` script), with its output thrown away; the commands take turns, so a noisy minute
falls on all of them alike. Printed: the median, fastest and slowest wall time of each, beside
the targets (``cruel --version`` under 150 ms, ``cruel verify samples/won.json`` under 300 ms),
then the modules that cost most to import under ``python -X importtime`` for each (cumulative
milliseconds, median of 3 runs; a module's time includes what it imports).

``--compare DIR`` measures this checkout and the one in DIR (another revision, as a git
worktree) side by side, runs interleaved: each as ``python -c`` calling the console script's
entry point that its own pyproject.toml names, in its folder (which ``python -c`` puts first
on ``sys.path``).

The machines here are noisy (two shared cores): quote medians, and compare variants side by
side in one session (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

#: (label, arguments of ``cruel``, target in seconds)
COMMANDS = [
    ("cruel --version", ["--version"], 0.150),
    ("cruel verify samples/won.json", ["verify", "samples/won.json"], 0.300),
    ("cruel --help", ["--help"], None),
]


def entry_code(checkout: Path) -> str:
    """Python that runs the console script ``cruel`` as ``checkout``'s pyproject.toml names it."""
    text = (checkout / "pyproject.toml").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("cruel = "))
    module, name = line.split("=", 1)[1].strip().strip('"').split(":")
    return f"import sys; sys.argv[0] = 'cruel'; from {module} import {name}; sys.exit({name}())"


def command(args: list[str], checkout: Path | None) -> tuple[list[str], dict[str, str]]:
    """The process to start for ``cruel ARGS``: the venv's script, or ``checkout``'s entry."""
    if checkout is None:
        return [str(BIN / "cruel"), *args], dict(os.environ)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return [sys.executable, "-c", entry_code(checkout), *args], env


def wall(args: list[str], checkout: Path | None = None) -> float:
    """Seconds one run of ``cruel ARGS`` takes, from fork to exit."""
    argv, env = command(args, checkout)
    started = time.perf_counter()
    done = subprocess.run(
        argv,
        cwd=checkout or ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"cruel {' '.join(args)} exited {done.returncode}")
    return seconds


def import_times(args: list[str], checkout: Path | None) -> dict[str, int]:
    """Cumulative import time of each module (µs) in one run of ``cruel ARGS`` under
    ``-X importtime``, through the console script's entry point."""
    env = {**os.environ, "PYTHONPATH": str(checkout)} if checkout else dict(os.environ)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", entry_code(checkout or ROOT), *args],
        cwd=checkout or ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    times: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (part.strip() for part in line.split("|"))
        if cumulative.isdigit():
            times[name] = int(cumulative)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="Runs of each command.")
    parser.add_argument("--top", type=int, default=10, help="Costliest imports to list.")
    parser.add_argument(
        "--compare", type=Path, metavar="DIR", help="Another checkout, measured side by side."
    )
    options = parser.parse_args()
    print(f"{platform.platform()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"CRUEL_ENGINE={os.environ.get('CRUEL_ENGINE', '(unset)')}")
    variants: list[tuple[str, Path | None]] = [("", None)]
    if options.compare is not None:
        variants = [("this checkout: ", ROOT), (f"{options.compare}: ", options.compare)]
    for _prefix, checkout in variants:  # warm the page cache and the .pyc files first
        for _label, args, _target in COMMANDS:
            wall(args, checkout)
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(options.runs):
        for label, args, _target in COMMANDS:
            for prefix, checkout in variants:
                samples[prefix + label].append(wall(args, checkout))
    print(f"\nwall time over {options.runs} runs (ms): median, fastest, slowest")
    for label, _args, target in COMMANDS:
        for prefix, _checkout in variants:
            ms = [s * 1000 for s in samples[prefix + label]]
            goal = "" if target is None else f"   target < {target * 1000:.0f}"
            print(
                f"  {prefix + label:<48} {statistics.median(ms):6.0f} {min(ms):6.0f} "
                f"{max(ms):6.0f}{goal}"
            )
    for prefix, checkout in variants:
        for label, args, _target in COMMANDS[:2]:
            runs = [import_times(args, checkout) for _ in range(3)]
            names = set().union(*runs)
            median = {n: statistics.median(r.get(n, 0) for r in runs) for n in names}
            print(f"\n{prefix}{label}: costliest imports (cumulative ms, -X importtime)")
            for name, us in sorted(median.items(), key=lambda kv: -kv[1])[: options.top]:
                print(f"  {us / 1000:7.1f}  {name}")


if __name__ == "__main__":
    main()
