"""Requests a second of ``POST /v1/verify`` and ``POST /v1/replay`` on ``cruel serve`` (issue #33:
bodies parsed off the loop and replays budgeted must keep these within 10% of before).

    .venv/bin/python benchmarks/route_throughput.py --route verify --clients 8 --duration 15
    .venv/bin/python benchmarks/route_throughput.py --route replay --clients 2 -- --replay-rate off

It starts the real server (``python -m cruel_tools.cli.app serve`` from the folder above this
script, so that a copy of it in a worktree of an older commit measures that commit) on a free
loopback port, then ``--clients`` threads, each with one keep-alive connection, post the
published par solutions of the committed puzzles (1-3 KB, 60-110 steps: what a web page sends)
in turn for ``--duration`` seconds. It prints the requests a second, the median and p99 latency
and the answers by status (every one should be 200). Extra ``cruel serve`` options after ``--``
(after issue #33 a replay benchmark needs ``--replay-rate off``: one address asks all).
"""

from __future__ import annotations

import argparse
import http.client
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bodies() -> list[bytes]:
    """The par solutions of every committed puzzle, as logs."""
    found = []
    for path in sorted((ROOT / "puzzles").rglob("*.json")):
        doc = orjson.loads(path.read_bytes())
        if isinstance(doc, dict) and isinstance(doc.get("solution"), list):
            log = {"format": "cruel-log/1", "rules": doc["rules"], "deal": doc["deal"]}
            found.append(orjson.dumps({**log, "moves": doc["solution"]}))
    if not found:
        sys.exit("no puzzle with a solution log found under puzzles/")
    return found


def client(
    port: int, path: str, logs: list[bytes], stop: float, out: list[float], seen: Counter[str]
) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    n = 0
    while time.monotonic() < stop:
        body = logs[n % len(logs)]
        n += 1
        start = time.perf_counter()
        conn.request("POST", path, body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        out.append(time.perf_counter() - start)
        seen[str(response.status)] += 1
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--route", choices=["verify", "replay"], default="verify")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("serve", nargs="*", help="extra options of cruel serve (after --)")
    args = parser.parse_args()
    logs = bodies()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cruel_tools.cli.app", "serve", "--port", str(port)]
            + ["--db", f"{tmp}/cruel.sqlite", "--today", "2027-01-05", "--no-access-log"]
            + ["--puzzles", str(ROOT / "puzzles"), *args.serve],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        sys.exit("server did not start")
                    time.sleep(0.1)
            time.sleep(0.5)
            latencies: list[float] = []
            seen: Counter[str] = Counter()
            stop = time.monotonic() + args.duration
            threads = [
                threading.Thread(
                    target=client, args=(port, f"/v1/{args.route}", logs, stop, latencies, seen)
                )
                for _ in range(args.clients)
            ]
            began = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            took = time.monotonic() - began
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    ms = sorted(t * 1000 for t in latencies)
    print(
        f"POST /v1/{args.route}: {len(ms) / took:.0f} requests/s with {args.clients} clients "
        f"for {took:.1f} s; latency p50 {statistics.median(ms):.1f} ms, "
        f"p99 {ms[int(0.99 * (len(ms) - 1))]:.1f} ms; answers {dict(seen)}; "
        f"{len(logs)} logs of {min(map(len, logs))}-{max(map(len, logs))} bytes"
    )


if __name__ == "__main__":
    main()
