"""Hostile clients against ``cruel serve`` (issue #13): is ``/v1/health`` still answered?

    .venv/bin/python benchmarks/hostile_bench.py --attack stall --clients 300 --duration 30
    .venv/bin/python benchmarks/hostile_bench.py --attack slow --clients 300 --duration 30
    .venv/bin/python benchmarks/hostile_bench.py --attack drop --clients 4 --duration 10
    .venv/bin/python benchmarks/hostile_bench.py --attack stall -- --body-timeout 5

It starts the real server (``python -m cruel_tools.cli serve``) on a free loopback port with a
fresh database (extra ``serve`` options after ``--``), then runs ``--clients`` attackers from
``--attacker`` (default 127.0.0.2: Linux answers all of 127.0.0.0/8 on loopback, so attackers
and the prober are different client addresses) for ``--duration`` seconds:

    stall   complete headers of a POST with Content-Length: 1000, then nothing; when the server
            closes the connection, connect again
    slow    a GET's request line, then one header byte every second; reconnect when closed
    drop    a POST whose body stops after 20 of its 58 bytes, then the client closes; at once
            again (the log flood)

Meanwhile a prober on 127.0.0.1 sends ``GET /v1/health`` every 0.25 s, each on a new
connection with a 2 s timeout. It prints how many health checks were answered 200, their
median and worst latency, what the attackers' connections got (answers by status, closes), the
bytes the server wrote to stderr, and the server's peak resident memory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def connect(
    host: str, port: int, source: str
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(host, port, local_addr=(source, 0))


async def attacker(kind: str, port: int, source: str, stop: float, seen: Counter[str]) -> None:
    while time.monotonic() < stop:
        try:
            reader, writer = await connect("127.0.0.1", port, source)
        except OSError as exc:
            seen[f"connect failed ({exc.__class__.__name__})"] += 1
            await asyncio.sleep(0.2)
            continue
        seen["connections"] += 1
        try:
            if kind == "stall":
                writer.write(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
                await writer.drain()
            elif kind == "slow":
                writer.write(b"GET /v1/health HTTP/1.1\r\n")
                await writer.drain()
            else:  # drop
                writer.write(
                    b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 58\r\n\r\n"
                    + b'{"format":"cruel-log/1","d'
                )
                await writer.drain()
                writer.close()
                seen["dropped"] += 1
                await asyncio.sleep(0.001)
                continue
            while time.monotonic() < stop:
                try:
                    data = await asyncio.wait_for(reader.read(65536), 1.0)
                except TimeoutError:
                    if kind == "slow":
                        writer.write(b"X")
                        await writer.drain()
                    continue
                if not data:
                    seen["closed by server"] += 1
                    break
                if data.startswith(b"HTTP/1.1 "):
                    seen[f"answered {data[9:12].decode()}"] += 1
        except OSError:
            seen["reset"] += 1
        finally:
            writer.close()


async def probe(port: int, latencies: list[float], failures: Counter[str]) -> None:
    start = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(connect("127.0.0.1", port, "127.0.0.1"), 2.0)
        try:
            writer.write(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = await asyncio.wait_for(reader.read(), 2.0 - (time.monotonic() - start))
        finally:
            writer.close()
    except (TimeoutError, OSError) as exc:
        failures[exc.__class__.__name__] += 1
        return
    if data.startswith(b"HTTP/1.1 200"):
        latencies.append(time.monotonic() - start)
    else:
        failures[data[:12].decode(errors="replace") or "empty"] += 1


def peak_rss_kb(pid: int) -> int:
    """Peak resident memory of ``pid`` and its children (the workers), from /proc."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for p in pids:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                total += int(line.split()[1])
    return total


async def main_async(args: argparse.Namespace, port: int, pid: int) -> dict[str, object]:
    stop = time.monotonic() + args.duration
    seen: Counter[str] = Counter()
    attackers = [
        asyncio.create_task(attacker(args.attack, port, args.attacker, stop, seen))
        for _ in range(args.clients)
    ]
    await asyncio.sleep(1.0)  # let the attack build up before probing
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    probes = []
    while time.monotonic() < stop:
        probes.append(asyncio.create_task(probe(port, latencies, failures)))
        await asyncio.sleep(0.25)
    await asyncio.gather(*probes)
    rss = peak_rss_kb(pid)
    for task in attackers:
        task.cancel()
    await asyncio.gather(*attackers, return_exceptions=True)
    return {
        "answered": len(latencies),
        "probes": len(probes),
        "median_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "worst_ms": round(max(latencies) * 1000, 1) if latencies else None,
        "probe_failures": dict(failures),
        "attackers": dict(seen),
        "peak_rss_mb": round(rss / 1024, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attack", choices=["stall", "slow", "drop"], default="stall")
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--attacker", default="127.0.0.2", help="attackers' source address")
    parser.add_argument("serve", nargs="*", help="extra options of cruel serve (after --)")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        err_path = Path(tmp) / "stderr"
        with err_path.open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cruel_tools.cli", "serve", "--port", str(port)]
                + ["--db", f"{tmp}/cruel.sqlite", "--today", "2027-01-05", "--no-access-log"]
                + ["--puzzles", str(ROOT / "puzzles"), *args.serve],
                stdout=subprocess.DEVNULL,
                stderr=err,
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
                        sys.exit(f"server did not start: {err_path.read_text()}")
                    time.sleep(0.1)
            time.sleep(0.5)
            before = err_path.stat().st_size
            result = asyncio.run(main_async(args, port, proc.pid))
            result["stderr_bytes"] = err_path.stat().st_size - before
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    print(
        f"attack: {args.attack}, {args.clients} clients from {args.attacker}, "
        f"{args.duration:g} s, serve options: {' '.join(args.serve) or '(defaults)'}"
    )
    print(f"machine: {os.cpu_count()} cores")
    print(
        f"health answered: {result['answered']} of {result['probes']} "
        f"(median {result['median_ms']} ms, worst {result['worst_ms']} ms); "
        f"failures: {result['probe_failures']}"
    )
    print(f"attackers: {result['attackers']}")
    print(f"server stderr: {result['stderr_bytes']} bytes; peak RSS: {result['peak_rss_mb']} MB")


if __name__ == "__main__":
    main()
