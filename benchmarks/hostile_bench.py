"""Hostile clients against ``cruel serve`` (issue #13): is ``/v1/health`` still answered?

    .venv/bin/python benchmarks/hostile_bench.py --attack stall --clients 300 --duration 30
    .venv/bin/python benchmarks/hostile_bench.py --attack slow --clients 300 --duration 30
    .venv/bin/python benchmarks/hostile_bench.py --attack drop --clients 4 --duration 10
    .venv/bin/python benchmarks/hostile_bench.py --attack stall -- --body-timeout 5
    .venv/bin/python benchmarks/hostile_bench.py --slow-addresses 10 --clients 300 --duration 30
    .venv/bin/python benchmarks/hostile_bench.py --analyze-flood 50 --duration 30
    .venv/bin/python benchmarks/hostile_bench.py --replay-burst 256 --duration 60 [--behind-nginx]
    .venv/bin/python benchmarks/hostile_bench.py --parse-flood 9 --duration 30 [--behind-nginx]
    .venv/bin/python benchmarks/hostile_bench.py --hint-starvation 25

It starts the real server (``python -m cruel_tools.cli.app serve``) on a free loopback port with a
fresh database (extra ``serve`` options after ``--``), then runs ``--clients`` attackers from
``--attacker`` (default 127.0.0.2: Linux answers all of 127.0.0.0/8 on loopback, so attackers
and the prober are different client addresses) for ``--duration`` seconds:

    stall   complete headers of a POST with Content-Length: 1000, then nothing; when the server
            closes the connection, connect again
    slow    a GET's request line, then one header byte every second; reconnect when closed
    drop    a POST whose body stops after 20 of its 58 bytes, then the client closes; at once
            again (the log flood)

``--slow-addresses N`` (issue #24, "slow connections from 10 addresses"): the ``slow`` attack
from N addresses at once (127.0.0.2 onwards, ``--clients`` spread evenly: 300 from 10 is 30
each, under the per-address cap of 32 and over the 256 places), probed every 0.1 s; it prints
health's p50 and p99 and the share of probes answered, against the targets (p99 under 200 ms,
at least 99% answered).

``--analyze-flood N`` (issue #24, "analyze flood"): every second, N anonymous ``POST /v1/analyze``
of a costly log (a long win: one fewest-actions search at the service's budget) at once from
``--flood-addresses`` addresses (127.0.0.2 on), the whole ``--duration``, health probed every
0.1 s; it prints health's p50 and p99 against the target (p99 under 200 ms) and the analyses'
answers by status (200, 429 rate-limited, 503 busy).

``--hint-starvation N`` (issue #33, finding 3): one client on 127.0.0.2 loops ``POST /v1/analyze``
of the costliest win found (the solver's win of deal 2 under royal-family-pysolfc;
benchmarks/analyze_cost.py), ``--starve-loops`` requests at once, each sent again as soon as
answered; a player on 127.0.0.3 asks N hints, one a second, each after the last is answered;
health probed every 0.1 s. It prints the hints answered and refused busy, their latency, the
analyses by status, and health's p50 and p99.

``--replay-burst N`` (issue #33, finding 1): N ``POST /v1/replay`` at once of a legal
10,000-step log made by random play with the library, spread over 8 addresses (256 from 8 is 32
each, the per-address cap); with ``--replay-loop`` each of the N sends again as soon as it is
answered, the whole ``--duration`` (a flood within the caps, not one burst); ``--parse-flood N``
(finding 2): N ``POST /v1/verify`` a second of the 960 KB body of nested meta, from 8 addresses
in turn (``--flood-route replay|analyze|hint|submissions``: the same body to another route,
inside a submission for ``submissions``). Both probe health every 0.1 s and print
its p50/p99 and the share of probes answered, against the target (p99 under 200 ms, every
probe answered). ``--behind-nginx`` puts nginx with deploy/nginx/cruel.conf in front (as
tests/test_nginx.py does; ``cruel serve --trusted-proxy 127.0.0.1``): attackers and prober then
go through it.

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


# --- issue #24: slow connections from many addresses ---------------------------------------------

#: The targets of issue #24 for ``--slow-addresses``.
SLOW_MANY_P99_MS = 200.0
SLOW_MANY_ANSWERED = 0.99


async def slow_many_async(args: argparse.Namespace, port: int, pid: int) -> dict[str, object]:
    """``--clients`` slow attackers spread over ``--slow-addresses`` addresses (127.0.0.2 on),
    ``/v1/health`` probed from 127.0.0.1 every 0.1 s once the attack has built up."""
    stop = time.monotonic() + args.duration
    seen: Counter[str] = Counter()
    sources = [f"127.0.0.{2 + n}" for n in range(args.slow_addresses)]
    attackers = [
        asyncio.create_task(attacker("slow", port, sources[n % len(sources)], stop, seen))
        for n in range(args.clients)
    ]
    await asyncio.sleep(2.0)  # every place taken before the first probe
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    probes = []
    while time.monotonic() < stop - 2.0:  # each probe has its 2 s before the attack ends
        probes.append(asyncio.create_task(probe(port, latencies, failures)))
        await asyncio.sleep(0.1)
    await asyncio.gather(*probes)
    rss = peak_rss_kb(pid)
    for task in attackers:
        task.cancel()
    await asyncio.gather(*attackers, return_exceptions=True)
    ms = sorted(t * 1000 for t in latencies)
    return {
        "answered": len(ms),
        "probes": len(probes),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1) if ms else None,
        "worst_ms": round(ms[-1], 1) if ms else None,
        "probe_failures": dict(failures),
        "attackers": dict(seen),
        "peak_rss_mb": round(rss / 1024, 1),
    }


def print_slow_many(args: argparse.Namespace, result: dict[str, object]) -> None:
    answered, probes = int(str(result["answered"])), int(str(result["probes"]))
    share = answered / probes if probes else 0.0
    p99 = result["p99_ms"]
    met = share >= SLOW_MANY_ANSWERED and p99 is not None and float(str(p99)) < SLOW_MANY_P99_MS
    print(
        f"attack: slow connections from {args.slow_addresses} addresses, {args.clients} "
        f"clients, {args.duration:g} s, serve options: {' '.join(args.serve) or '(defaults)'}"
    )
    print(f"machine: {os.cpu_count()} cores")
    print(
        f"health answered: {answered} of {probes} ({share:.1%}); p50 {result['p50_ms']} ms, "
        f"p99 {p99} ms, worst {result['worst_ms']} ms; failures: {result['probe_failures']}"
    )
    print(
        f"targets (p99 < {SLOW_MANY_P99_MS:g} ms, >= {SLOW_MANY_ANSWERED:.0%} answered): "
        f"{'met' if met else 'NOT met'}"
    )
    print(f"attackers: {result['attackers']}")
    print(f"server stderr: {result['stderr_bytes']} bytes; peak RSS: {result['peak_rss_mb']} MB")


# --- issue #24: a flood of analyses ----------------------------------------------------------

#: The target of issue #24 for ``--analyze-flood``: health's p99 while analyses flood in.
FLOOD_P99_MS = 200.0


def costly_log() -> bytes:
    """A log that costs ``POST /v1/analyze`` the most we found (benchmarks/analyze_cost.py): a
    long win far from the optimum, the continuation the analysis of deal 9's random game gives
    (the random player's steps, then the solver's win); one fewest-actions search at the
    service's budget."""
    import random

    import orjson

    from cruel_tools.advice.analysis import analyze
    from cruel_tools.game import log
    from cruel_tools.game.deals import deal_piles
    from cruel_tools.game.game import Game
    from cruel_tools.search.solver import solution_log

    rng = random.Random(9)
    game = Game.from_deal(deal_piles(9))
    played = []
    for _ in range(100):
        options = list(game.legal_steps())
        if not options:
            break
        played.append(rng.choice(options))
        game.push(played[-1])
    lost = log.from_object(solution_log(9, deal_piles(9), game.rules, played))
    loss = analyze(lost).loss
    assert loss is not None and loss.continuation is not None
    return orjson.dumps(loss.continuation)


async def analyze_once(port: int, source: str, body: bytes, seen: Counter[str]) -> None:
    """One anonymous ``POST /v1/analyze`` from ``source``, on a new connection; its status
    counted (it waits for the answer, however long)."""
    try:
        reader, writer = await connect("127.0.0.1", port, source)
        try:
            writer.write(
                b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            data = await reader.read()
        finally:
            writer.close()
    except OSError as exc:
        seen[exc.__class__.__name__] += 1
        return
    seen[data[9:12].decode(errors="replace") or "empty"] += 1


async def analyze_flood_async(args: argparse.Namespace, port: int, pid: int) -> dict[str, object]:
    """Every second, ``--analyze-flood`` anonymous analyses of a costly log at once, from
    ``--flood-addresses`` addresses (127.0.0.2 on); ``/v1/health`` probed from 127.0.0.1 every
    0.1 s (each with its 2 s timeout)."""
    body = costly_log()
    stop = time.monotonic() + args.duration
    seen: Counter[str] = Counter()
    sources = [f"127.0.0.{2 + n}" for n in range(args.flood_addresses)]
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    requests: list[asyncio.Task[None]] = []
    probes: list[asyncio.Task[None]] = []
    next_wave = time.monotonic()
    while time.monotonic() < stop - 2.0:
        if time.monotonic() >= next_wave:
            requests += [
                asyncio.create_task(analyze_once(port, sources[n % len(sources)], body, seen))
                for n in range(args.analyze_flood)
            ]
            next_wave += 1.0
        probes.append(asyncio.create_task(probe(port, latencies, failures)))
        await asyncio.sleep(0.1)
    await asyncio.gather(*probes)
    rss = peak_rss_kb(pid)
    # Analyses still unanswered 5 s after the flood: counted, not waited for (a server with no
    # cap would queue them for minutes).
    _, pending = await asyncio.wait(requests, timeout=5.0)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    if pending:
        seen["no answer by the end"] += len(pending)
    ms = sorted(t * 1000 for t in latencies)
    return {
        "answered": len(ms),
        "probes": len(probes),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1) if ms else None,
        "worst_ms": round(ms[-1], 1) if ms else None,
        "probe_failures": dict(failures),
        "attackers": dict(seen),
        "peak_rss_mb": round(rss / 1024, 1),
    }


def print_analyze_flood(args: argparse.Namespace, result: dict[str, object]) -> None:
    answered, probes = int(str(result["answered"])), int(str(result["probes"]))
    p99 = result["p99_ms"]
    met = answered == probes and p99 is not None and float(str(p99)) < FLOOD_P99_MS
    print(
        f"attack: analyze flood, {args.analyze_flood} anonymous POST /v1/analyze at once every "
        f"second from {args.flood_addresses} addresses, {args.duration:g} s, serve options: "
        f"{' '.join(args.serve) or '(defaults)'}"
    )
    print(f"machine: {os.cpu_count()} cores")
    print(
        f"health answered: {answered} of {probes}; p50 {result['p50_ms']} ms, p99 {p99} ms, "
        f"worst {result['worst_ms']} ms; failures: {result['probe_failures']}"
    )
    print(
        f"target (p99 < {FLOOD_P99_MS:g} ms, every probe answered): {'met' if met else 'NOT met'}"
    )
    print(f"analyses answered, by status: {result['attackers']}")
    print(f"server stderr: {result['stderr_bytes']} bytes; peak RSS: {result['peak_rss_mb']} MB")


# --- issue #33: hints starved by one address's analyses ------------------------------------------

#: The analyses' loop and the player: different client addresses (Linux answers 127.0.0.0/8).
STARVER, PLAYER = "127.0.0.2", "127.0.0.3"


def costliest_win() -> bytes:
    """The won log whose analysis cost most (benchmarks/RESULTS.md, issue #33): the solver's win
    of deal 2 under royal-family-pysolfc (2.6 s of CPU at the budget of c1bfee9)."""
    import orjson

    from cruel_tools.game.deals import deal_piles
    from cruel_tools.game.game import Game
    from cruel_tools.game.rules import PRESETS
    from cruel_tools.search.solver import solution_log, solve

    rules = PRESETS["royal-family-pysolfc"]
    found = solve(Game.from_deal(deal_piles(2, rules), rules))
    assert found.verdict == "won"
    return orjson.dumps(solution_log(2, deal_piles(2, rules), rules, found.steps))


#: A hint of a deal no puzzle's (docs/service.md's example: deal 3 after five steps).
HINT_BODY = b'{"format":"cruel-log/1","deal":{"number":3},"moves":["5-11","5-7","R","3-11","R"]}'


async def post_status(port: int, source: str, path: str, body: bytes) -> str:
    """One ``POST`` from ``source`` on a new connection: its status (or the error's name)."""
    return (await post_answer(port, source, path, body))[0]


async def post_answer(port: int, source: str, path: str, body: bytes) -> tuple[str, int | None]:
    """One ``POST`` from ``source`` on a new connection, its whole answer read: its status and
    size (or the error's name, and None)."""
    try:
        reader, writer = await connect("127.0.0.1", port, source)
        try:
            writer.write(
                f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n".encode()
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            data = await reader.read()
        finally:
            writer.close()
    except OSError as exc:
        return exc.__class__.__name__, None
    return data[9:12].decode(errors="replace") or "empty", len(data)


async def starve_loop(port: int, body: bytes, stop: list[float], seen: Counter[str]) -> None:
    """The attacker: analyses again as soon as answered (soon after a refusal) until ``stop``."""
    while time.monotonic() < stop[0]:
        status = await post_status(port, STARVER, "/v1/analyze", body)
        seen[status] += 1
        if status != "200":
            await asyncio.sleep(0.05)


async def hint_starvation_async(args: argparse.Namespace, port: int, pid: int) -> dict[str, object]:
    """``--hint-starvation`` hints, one a second from :data:`PLAYER`, while :data:`STARVER`
    loops costly analyses; ``/v1/health`` probed every 0.1 s meanwhile."""
    body = costliest_win()
    stop = [float("inf")]
    analyses: Counter[str] = Counter()
    loops = [
        asyncio.create_task(starve_loop(port, body, stop, analyses))
        for _ in range(args.starve_loops)
    ]
    await asyncio.sleep(1.0)  # the analyses' place taken first
    hints: Counter[str] = Counter()
    hint_ms: list[float] = []
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    probes: list[asyncio.Task[None]] = []

    async def probing() -> None:
        while stop[0] == float("inf"):
            probes.append(asyncio.create_task(probe(port, latencies, failures)))
            await asyncio.sleep(0.1)

    prober = asyncio.create_task(probing())
    for _ in range(args.hint_starvation):
        began = time.monotonic()
        status = await post_status(port, PLAYER, "/v1/hint", HINT_BODY)
        hints[status] += 1
        if status == "200":
            hint_ms.append((time.monotonic() - began) * 1000)
        await asyncio.sleep(max(0.0, began + 1.0 - time.monotonic()))
    stop[0] = time.monotonic()
    await prober
    await asyncio.gather(*probes, *loops)
    ms = sorted(t * 1000 for t in latencies)
    hint_ms.sort()
    return {
        "hints": dict(hints),
        "hint_p50_ms": round(statistics.median(hint_ms), 1) if hint_ms else None,
        "hint_max_ms": round(hint_ms[-1], 1) if hint_ms else None,
        "analyses": dict(analyses),
        "answered": len(ms),
        "probes": len(probes),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1) if ms else None,
        "probe_failures": dict(failures),
        "peak_rss_mb": round(peak_rss_kb(pid) / 1024, 1),
    }


def print_hint_starvation(args: argparse.Namespace, result: dict[str, object]) -> None:
    hints = result["hints"]
    assert isinstance(hints, dict)
    print(
        f"attack: hint starvation, {args.starve_loops} analyses at once of the costliest win "
        f"from {STARVER}, looped; {args.hint_starvation} hints from {PLAYER}, one a second; "
        f"serve options: {' '.join(args.serve) or '(defaults)'}"
    )
    print(f"machine: {os.cpu_count()} cores")
    print(
        f"hints: answered {hints.get('200', 0)}, refused busy {hints.get('503', 0)}, of "
        f"{args.hint_starvation} (all: {hints}); answered in p50 {result['hint_p50_ms']} ms, "
        f"max {result['hint_max_ms']} ms"
    )
    print(f"analyses, by status: {result['analyses']}")
    print(
        f"health answered: {result['answered']} of {result['probes']}; p50 {result['p50_ms']} "
        f"ms, p99 {result['p99_ms']} ms; failures: {result['probe_failures']}"
    )
    print(f"server stderr: {result['stderr_bytes']} bytes; peak RSS: {result['peak_rss_mb']} MB")


# --- issue #33: a replay burst and a parse flood, bare or behind nginx -----------------------------

#: The target of issue #33 for ``--replay-burst`` and ``--parse-flood``: health's p99.
ROUTE_FLOOD_P99_MS = 200.0
#: The addresses of both attacks (127.0.0.2 on): each within the per-address connection cap.
ROUTE_FLOOD_ADDRESSES = 8


def random_legal_log(steps: int = 10_000, seed: int = 1) -> bytes:
    """The attacker's replay: ``steps`` random legal steps played with the library, on the
    first deal that lasts that long (60 KB in compact steps)."""
    import random

    import orjson

    from cruel_tools.game.deals import deal_piles
    from cruel_tools.game.game import Game
    from cruel_tools.game.log import compact

    rng = random.Random(seed)
    for deal in range(1, 100):
        game, moves = Game.from_deal(deal_piles(deal)), list[str]()
        while len(moves) < steps:
            options = list(game.legal_steps())
            if not options:
                break
            step = rng.choice(options)
            game.push(step)
            moves.append(compact(step))
        if len(moves) == steps:
            return orjson.dumps({"format": "cruel-log/1", "deal": {"number": deal}, "moves": moves})
    raise SystemExit("no deal lasted that long")


#: The attacker's body of the parse flood: 120,000 small objects in meta, 960 KB.
NESTED_BODY = (
    b'{"format":"cruel-log/1","deal":{"number":1},"meta":{"a":['
    + b",".join([b'{"b":1}'] * 120_000)
    + b"]}}"
)

#: ``--flood-route``: where the parse flood sends its body (issue #33: "test each route"), and
#: the body it sends there: the nested log, alone or inside a submission.
FLOOD_ROUTES = {
    "verify": ("/v1/verify", NESTED_BODY),
    "replay": ("/v1/replay", NESTED_BODY),
    "analyze": ("/v1/analyze", NESTED_BODY),
    "hint": ("/v1/hint", NESTED_BODY),
    "submissions": (
        "/v1/puzzles/2027-01-05-medium/submissions",
        b'{"format":"cruel-submission/1","player":"flood","log":' + NESTED_BODY + b"}",
    ),
}


async def post_timed(
    port: int, source: str, path: str, body: bytes, seen: Counter[str], sizes: list[int]
) -> None:
    """One ``POST`` from ``source``, its whole answer read: status counted, size kept."""
    status, size = await post_answer(port, source, path, body)
    seen[status] += 1
    if size is not None:
        sizes.append(size)


def _health(latencies: list[float], probes: int, failures: Counter[str]) -> dict[str, object]:
    ms = sorted(t * 1000 for t in latencies)
    return {
        "answered": len(ms),
        "probes": probes,
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 1) if ms else None,
        "worst_ms": round(ms[-1], 1) if ms else None,
        "probe_failures": dict(failures),
    }


async def replay_burst_async(args: argparse.Namespace, port: int, pid: int) -> dict[str, object]:
    """``--replay-burst`` replays of a legal 10,000-step log at once, spread over 8 addresses;
    ``/v1/health`` probed every 0.1 s until the last is answered (or ``--duration``)."""
    body = random_legal_log()
    seen: Counter[str] = Counter()
    sizes: list[int] = []
    began = time.monotonic()
    sources = [f"127.0.0.{2 + n}" for n in range(ROUTE_FLOOD_ADDRESSES)]

    async def attacker(n: int) -> None:
        # --replay-loop: each attacker sends again as soon as it is answered, the whole
        # --duration (a flood held within the connection caps, not one burst).
        while True:
            await post_timed(port, sources[n % len(sources)], "/v1/replay", body, seen, sizes)
            if not args.replay_loop or time.monotonic() >= began + args.duration:
                return

    burst = asyncio.gather(*(attacker(n) for n in range(args.replay_burst)))
    task = asyncio.ensure_future(burst)
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    probes = []
    while not task.done() and time.monotonic() < began + args.duration:
        probes.append(asyncio.create_task(probe(port, latencies, failures)))
        await asyncio.sleep(0.1)
    await asyncio.gather(*probes)
    rss = peak_rss_kb(pid)
    _, pending = await asyncio.wait([task], timeout=5.0)
    for left in pending:
        left.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return {
        **_health(latencies, len(probes), failures),
        "attackers": dict(seen),
        "last_answer_s": round(time.monotonic() - began, 1),
        "largest_answer_kb": round(max(sizes, default=0) / 1024, 1),
        "log_kb": round(len(body) / 1024, 1),
        "peak_rss_mb": round(rss / 1024, 1),
    }


async def parse_flood_async(args: argparse.Namespace, port: int, pid: int) -> dict[str, object]:
    """Every second, ``--parse-flood`` attacker's bodies (960 KB of nested meta) to
    ``--flood-route`` (``/v1/verify`` by default), from 8 addresses in turn, the whole
    ``--duration``; health probed every 0.1 s."""
    path, body = FLOOD_ROUTES[args.flood_route]
    seen: Counter[str] = Counter()
    sizes: list[int] = []
    sources = [f"127.0.0.{2 + n}" for n in range(ROUTE_FLOOD_ADDRESSES)]
    stop = time.monotonic() + args.duration
    sends: list[asyncio.Task[None]] = []
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    probes: list[asyncio.Task[None]] = []
    gap, next_send, count = 1.0 / args.parse_flood, time.monotonic(), 0
    next_probe = time.monotonic() + 1.0
    while time.monotonic() < stop - 2.0:
        now = time.monotonic()
        if now >= next_send:
            source = sources[count % len(sources)]
            sends.append(asyncio.create_task(post_timed(port, source, path, body, seen, sizes)))
            count += 1
            next_send += gap
        if now >= next_probe:
            probes.append(asyncio.create_task(probe(port, latencies, failures)))
            next_probe += 0.1
        await asyncio.sleep(min(next_send, next_probe) - time.monotonic())
    await asyncio.gather(*probes)
    rss = peak_rss_kb(pid)
    _, pending = await asyncio.wait(sends, timeout=5.0)
    for left in pending:
        left.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    if pending:
        seen["no answer by the end"] += len(pending)
    return {
        **_health(latencies, len(probes), failures),
        "attackers": dict(seen),
        "sent": count,
        "peak_rss_mb": round(rss / 1024, 1),
    }


def print_route_flood(args: argparse.Namespace, result: dict[str, object]) -> None:
    answered, probes = int(str(result["answered"])), int(str(result["probes"]))
    p99 = result["p99_ms"]
    met = answered == probes and p99 is not None and float(str(p99)) < ROUTE_FLOOD_P99_MS
    where = "behind nginx (deploy/nginx/cruel.conf)" if args.behind_nginx else "bare"
    if args.replay_burst:
        attack = (
            f"replay burst, {args.replay_burst} POST /v1/replay at once of a legal 10,000-step "
            f"log ({result['log_kb']} KB)"
        )
        if args.replay_loop:
            attack += f", each sent again when answered for {args.duration:g} s"
    else:
        attack = (
            f"parse flood, {args.parse_flood} POST {FLOOD_ROUTES[args.flood_route][0]} a "
            f"second of 960 KB of nested meta, {args.duration:g} s"
        )
    print(
        f"attack: {attack}, from {ROUTE_FLOOD_ADDRESSES} addresses, {where}; serve options: "
        f"{' '.join(args.serve) or '(defaults)'}"
    )
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    print(
        f"health answered: {answered} of {probes} ({100 * answered / max(probes, 1):.0f}%); "
        f"p50 {result['p50_ms']} ms, p99 {p99} ms, worst {result['worst_ms']} ms; "
        f"failures: {result['probe_failures']}"
    )
    print(
        f"target (p99 < {ROUTE_FLOOD_P99_MS:g} ms, every probe answered): "
        f"{'met' if met else 'NOT met'}"
    )
    print(f"attackers' answers, by status: {result['attackers']}")
    if args.replay_burst:
        print(
            f"last replay answered after {result['last_answer_s']} s; largest answer "
            f"{result['largest_answer_kb']} KB"
        )
    print(f"server stderr: {result['stderr_bytes']} bytes; peak RSS: {result['peak_rss_mb']} MB")


def nginx_front(tmp: Path, upstream: int) -> tuple[subprocess.Popen[bytes], int]:
    """nginx with deploy/nginx/cruel.conf in front of ``upstream`` (as tests/test_nginx.py runs
    it: its own prefix and main configuration, a free port); its process and port."""
    import shutil

    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if nginx is None:
        sys.exit("--behind-nginx: nginx is not installed (apt-get install -y nginx)")
    port = free_port()
    text = (ROOT / "deploy" / "nginx" / "cruel.conf").read_text()
    text = text.replace("listen 80;", f"listen 127.0.0.1:{port};")
    text = text.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};")
    (tmp / "cruel.conf").write_text(text)
    temps = "\n".join(
        f"    {kind}_temp_path {tmp}/{kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root root;" if os.geteuid() == 0 else ""
    main = tmp / "nginx.conf"
    main.write_text(
        f"daemon off;\nworker_processes 1;\n{user}\npid {tmp}/nginx.pid;\n"
        f"error_log {tmp}/error.log warn;\nevents {{ worker_connections 4096; }}\n"
        f"http {{\n    access_log off;\n{temps}\n    include {tmp}/cruel.conf;\n}}\n"
    )
    proc = subprocess.Popen(
        [nginx, "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(main)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"nginx did not start: {(tmp / 'error.log').read_text()}")
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attack", choices=["stall", "slow", "drop"], default="stall")
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--attacker", default="127.0.0.2", help="attackers' source address")
    parser.add_argument(
        "--slow-addresses",
        type=int,
        default=0,
        help="issue #24: the slow attack from this many addresses (127.0.0.2 on), p50/p99",
    )
    parser.add_argument(
        "--analyze-flood",
        type=int,
        default=0,
        help="issue #24: this many anonymous analyses at once every second, health p50/p99",
    )
    parser.add_argument("--flood-addresses", type=int, default=5, help="addresses of the flood")
    parser.add_argument(
        "--hint-starvation",
        type=int,
        default=0,
        help="issue #33: this many hints while one address loops costly analyses",
    )
    parser.add_argument("--starve-loops", type=int, default=2, help="its analyses at once")
    parser.add_argument(
        "--replay-burst",
        type=int,
        default=0,
        help="issue #33: this many replays of a 10,000-step log at once from 8 addresses",
    )
    parser.add_argument(
        "--replay-loop",
        action="store_true",
        help="with --replay-burst: each attacker sends again when answered, for --duration",
    )
    parser.add_argument(
        "--parse-flood",
        type=int,
        default=0,
        help="issue #33: this many 960 KB nested-meta bodies a second to verify, 8 addresses",
    )
    parser.add_argument(
        "--flood-route",
        choices=sorted(FLOOD_ROUTES),
        default="verify",
        help="the route --parse-flood sends its bodies to (default verify)",
    )
    parser.add_argument(
        "--behind-nginx",
        action="store_true",
        help="issue #33: attack and probe through nginx with deploy/nginx/cruel.conf",
    )
    parser.add_argument("serve", nargs="*", help="extra options of cruel serve (after --)")
    args = parser.parse_args()
    port = free_port()
    if args.behind_nginx:
        args.serve = [*args.serve, "--trusted-proxy", "127.0.0.1"]
    front: subprocess.Popen[bytes] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        err_path = Path(tmp) / "stderr"
        with err_path.open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "cruel_tools.cli.app", "serve", "--port", str(port)]
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
            target = port
            if args.behind_nginx:
                front, target = nginx_front(Path(tmp), port)
            before = err_path.stat().st_size
            run = slow_many_async if args.slow_addresses else main_async
            if args.analyze_flood:
                run = analyze_flood_async
            if args.hint_starvation:
                run = hint_starvation_async
            if args.replay_burst:
                run = replay_burst_async
            if args.parse_flood:
                run = parse_flood_async
            result = asyncio.run(run(args, target, proc.pid))
            result["stderr_bytes"] = err_path.stat().st_size - before
        finally:
            if front is not None:
                front.terminate()
                front.wait(timeout=20)
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    if args.analyze_flood:
        print_analyze_flood(args, result)
        return
    if args.hint_starvation:
        print_hint_starvation(args, result)
        return
    if args.replay_burst or args.parse_flood:
        print_route_flood(args, result)
        return
    if args.slow_addresses:
        print_slow_many(args, result)
        return
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
