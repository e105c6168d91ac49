"""First start of a real site (issue #34): seconds from ``cruel serve --secret-file`` to the
first 200 on today's puzzles, in an empty folder with an empty data folder.

    .venv/bin/python benchmarks/first_start.py                      # 3 runs, this venv's cruel
    .venv/bin/python benchmarks/first_start.py --runs 5 --cruel /tmp/wheel-venv/bin/cruel
    .venv/bin/python benchmarks/first_start.py --same-secret     # the same deals every run

Each run is what an operator does first: ``cruel daily --new-secret site.secret`` (a new secret,
so new deals each run: days vary from seconds to over a minute, by how long their par searches
take), then ``cruel serve --secret-file site.secret`` on a free port, asked
``GET /v1/puzzles/daily/today`` every 0.1 s until it answers 200 (before: 503
``publishing-today``). Printed per run: seconds to the first answer, to today's puzzles, the
server's own ``published ... in N s``, and the estimate it said at start; then the medians.
The server is stopped (SIGTERM) as soon as today is served. HOME and XDG_DATA_HOME point into
the run's folder, and ``CRUEL_*`` variables are left out, so nothing of the machine's is read.

The machines here are noisy (two shared cores): quote medians (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

#: Seconds a run may wait for today's puzzles before it is counted as failed.
TIMEOUT = 900.0


@dataclass
class Run:
    up: float  # seconds to the first answer of the server (any status)
    today: float  # seconds to the first 200 on today's puzzles
    made: float | None  # the server's "published <day> ... in N s"
    said: str  # the start-up line's estimate
    first_answer: str  # the first answer's status and code
    cpu: float | None = None  # CPU seconds of cruel daily making the same day (--cpu)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def ask_today(port: int) -> tuple[int, dict[str, object]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/v1/puzzles/daily/today")
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def daily_cpu(cruel: Path, folder: Path, env: dict[str, str], day: str) -> float:
    """CPU seconds (user + system) of ``cruel daily`` making ``day`` with the run's secret: the
    same library call and the same four deals as the server's, on one core, whatever the load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    args = ["daily", "--secret-file", "site.secret", "--start", day, "--days", "1", "-q"]
    subprocess.run([str(cruel), *args, "--out", "cpu-check"], cwd=folder, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_run(cruel: Path, folder: Path, secret: Path | None, cpu: bool) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRUEL_")}
    env.update(HOME=str(folder / "home"), XDG_DATA_HOME=str(folder / "home" / "data"))
    if secret is None:
        new = [str(cruel), "daily", "--new-secret", "site.secret", "-q"]
        subprocess.run(new, cwd=folder, env=env, check=True)
    else:
        shutil.copy(secret, folder / "site.secret")
    port, log = free_port(), folder / "serve.log"
    args = [str(cruel), "serve", "--secret-file", "site.secret", "--port", str(port)]
    started = time.monotonic()
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [*args, "--no-access-log"], cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=err
        )
    up, first = None, ""
    try:
        while True:
            if proc.poll() is not None or time.monotonic() - started > TIMEOUT:
                raise SystemExit(f"cruel serve stopped or timed out: {log.read_text()}")
            try:
                status, body = ask_today(port)
            except OSError:
                time.sleep(0.1)
                continue
            if up is None:
                up, first = time.monotonic() - started, f"{status} {body.get('code', '')}"
            if status == 200:
                today, day = time.monotonic() - started, str(body["date"])
                break
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    text = log.read_text()
    made = re.search(r"publishing: published \S+ \(.*?\) in ([\d.]+) s", text)
    said = re.search(r"today's puzzles first, in (about \d+ s)", text)
    return Run(
        up,
        today,
        float(made.group(1)) if made else None,
        said.group(1) if said else "(none said)",
        first.strip(),
        daily_cpu(cruel, folder, env, day) if cpu else None,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--same-secret",
        action="store_true",
        help="One secret for every run (the same deals: what varies is the machine), not a "
        "new one each run (a new site's first start).",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="After each run, the CPU seconds of cruel daily making the same day (the work, "
        "apart from the machine's load).",
    )
    parser.add_argument(
        "--cruel",
        type=Path,
        default=Path(sys.executable).parent / "cruel",
        help="The cruel command to start (default: the one beside this Python).",
    )
    options = parser.parse_args()
    runs = []
    keep = Path(tempfile.mkdtemp(prefix="cruel-first-start-secret-"))
    secret = None
    if options.same_secret:
        secret = keep / "site.secret"
        subprocess.run([str(options.cruel), "daily", "--new-secret", str(secret), "-q"], check=True)
    for k in range(options.runs):
        with tempfile.TemporaryDirectory(prefix="cruel-first-start-") as folder:
            run = one_run(options.cruel, Path(folder), secret, options.cpu)
        runs.append(run)
        made = "?" if run.made is None else f"{run.made:.1f}"
        cpu = "" if run.cpu is None else f"; cruel daily: {run.cpu:.1f} CPU s"
        print(
            f"run {k + 1}: first answer after {run.up:.1f} s ({run.first_answer}), today's "
            f"puzzles after {run.today:.1f} s (the day made in {made} s; said {run.said}{cpu})",
            flush=True,
        )
    print(
        f"median of {len(runs)}: first answer {statistics.median(r.up for r in runs):.1f} s, "
        f"today's puzzles {statistics.median(r.today for r in runs):.1f} s"
        + (
            f", cruel daily {statistics.median(r.cpu for r in runs if r.cpu):.1f} CPU s"
            if options.cpu
            else ""
        )
    )
    shutil.rmtree(keep)


if __name__ == "__main__":
    main()
