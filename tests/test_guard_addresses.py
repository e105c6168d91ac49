"""Connection limits that hold against many addresses (issue #24, finding 3), and the guard's
view of clients behind a trusted reverse proxy.

The attack of finding 3: 300 connections trickling their request heads from 10 loopback
addresses, 30 each (under the per-address cap of 32, over the 256 places of a process). Before
issue #24 every place was held by a connection that had sent nothing useful, and ``/v1/health``
from an eleventh address was answered ``503 server-full`` to 53 of 54 probes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from cruel_tools.service.connections import ENV_GUARD, GuardConfig, Places, config

from .test_hostile import ROOT, free_port, parse, read_all, request, serving

ATTACKERS = [f"127.0.0.{n}" for n in range(2, 12)]  # 10 addresses
PROBER = "127.0.0.12"  # an eleventh


def bindable(address: str) -> bool:
    try:
        with socket.socket() as s:
            s.bind((address, 0))
    except OSError:
        return False
    return True


def need_addresses() -> None:
    if not all(bindable(a) for a in [*ATTACKERS, PROBER]):
        pytest.skip("127.0.0.2-12 cannot be bound here: no eleven client addresses on loopback")


async def slow_client(port: int, source: str, stop: float, seen: Counter[str]) -> None:
    """A request line, then one header byte a second, never the end of the head; when the
    server closes the connection, another one."""
    while time.monotonic() < stop:
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0)
            )
        except OSError:
            seen["connect failed"] += 1
            await asyncio.sleep(0.2)
            continue
        seen["connections"] += 1
        try:
            writer.write(b"GET /v1/health HTTP/1.1\r\n")
            await writer.drain()
            while time.monotonic() < stop:
                try:
                    data = await asyncio.wait_for(reader.read(65536), 1.0)
                except TimeoutError:
                    writer.write(b"X")
                    await writer.drain()
                    continue
                if not data:
                    seen["closed by server"] += 1
                    break
                seen[f"answered {data[9:12].decode(errors='replace')}"] += 1
        except OSError:
            seen["reset"] += 1
        finally:
            writer.close()


async def probe(port: int, latencies: list[float], failures: Counter[str]) -> None:
    began = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port, local_addr=(PROBER, 0)), 2.0
        )
        try:
            writer.write(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = await asyncio.wait_for(reader.read(), 2.0 - (time.monotonic() - began))
        finally:
            writer.close()
    except (TimeoutError, OSError) as exc:
        failures[exc.__class__.__name__] += 1
        return
    if data.startswith(b"HTTP/1.1 200"):
        latencies.append(time.monotonic() - began)
    else:
        failures[data[:12].decode(errors="replace") or "empty"] += 1


T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: a browser test before this one in the same
    worker (Playwright's sync API) leaves an event loop running in the main thread, where
    ``asyncio.run`` refuses to start."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def attack(
    port: int, per_address: int, seconds: float
) -> tuple[list[float], int, Counter[str], Counter[str]]:
    stop = time.monotonic() + seconds
    seen: Counter[str] = Counter()
    clients = [
        asyncio.create_task(slow_client(port, source, stop, seen))
        for source in ATTACKERS
        for _ in range(per_address)
    ]
    await asyncio.sleep(1.5)  # every place taken before the first probe
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    probes = []
    while time.monotonic() < stop - 2.0:
        probes.append(asyncio.create_task(probe(port, latencies, failures)))
        await asyncio.sleep(0.1)
    await asyncio.gather(*probes)
    for task in clients:
        task.cancel()
    await asyncio.gather(*clients, return_exceptions=True)
    return latencies, len(probes), failures, seen


@pytest.mark.integration
def test_slow_connections_from_ten_addresses_do_not_starve_an_eleventh(tmp_path: Path) -> None:
    """Finding 3, as the attack, at the default caps (256 places, 32 per address)."""
    need_addresses()
    with serving(tmp_path, "--max-connections", "256", "--max-per-client", "32") as server:
        latencies, probes, failures, seen = run_apart(attack(server.port, 30, 9.0))
    answered = len(latencies)
    assert seen["connections"] >= 300, seen  # the attack did run: every place was wanted
    # Before issue #24: 1 of 54. The bar here is below the benchmark's 99% and 200 ms (shared CI
    # machines); benchmarks/hostile_bench.py --attack slow-many measures it.
    assert answered >= 0.95 * probes, (answered, probes, failures, seen)
    assert statistics.median(latencies) < 0.5, latencies


# --- the choice of the connection to shed (no server) -------------------------------------------


@dataclass(eq=False)
class Conn:
    """What :class:`Places` knows of a connection."""

    host: str | None
    since: float
    waiting: bool = True  # for its client's bytes (a head, or a body)
    trusted: bool = False

    def sheddable(self) -> bool:
        return self.waiting

    def shed(self) -> None:
        self.waiting = False


def full(places: Places, limits: GuardConfig, conns: list[Conn]) -> None:
    for conn in conns:
        assert places.take(conn, limits) is None
    assert places.total == limits.max_connections


def test_a_fast_newcomer_sheds_the_longest_waiting_of_the_address_holding_most() -> None:
    limits = GuardConfig(max_connections=5, max_per_client=4)
    places = Places()
    a = [Conn("10.0.0.1", since) for since in (3.0, 1.0, 2.0)]
    b = [Conn("10.0.0.2", since) for since in (0.5, 0.7)]
    full(places, limits, [*a, *b])
    newcomer = Conn("10.0.0.3", 9.0)
    assert places.take(newcomer, limits) is not None  # no place yet: it must show its request
    assert not places.admit_late(newcomer, limits, shed=False)  # none free
    assert places.shed_for(newcomer, limits) is a[1]  # not b's older ones: a holds more
    assert not a[1].waiting and places.total == 5
    assert places.by_client == {"10.0.0.1": 2, "10.0.0.2": 2, "10.0.0.3": 1}


def test_nothing_is_shed_for_an_address_holding_as_many_or_for_busy_connections() -> None:
    limits = GuardConfig(max_connections=4, max_per_client=4)
    places = Places()
    mine = [Conn("10.0.0.1", 1.0), Conn("10.0.0.1", 2.0)]
    theirs = [Conn("10.0.0.2", 0.0), Conn("10.0.0.2", 0.1, waiting=False)]
    full(places, limits, [*mine, *theirs])
    # 10.0.0.2 holds 2, as many as the newcomer's address: a swap would be no fairer.
    assert places.shed_for(Conn("10.0.0.1", 5.0), limits) is None
    assert all(c.waiting for c in [*mine, theirs[0]])
    # From a third address it is: only a connection waiting for its client is shed.
    assert places.shed_for(Conn("10.0.0.3", 5.0), limits) in (mine[0], theirs[0])


def test_a_trusted_proxy_is_not_capped_per_address_nor_shed() -> None:
    limits = GuardConfig(max_connections=4, max_per_client=2, trusted_proxies=("127.0.0.1/32",))
    places = Places()
    proxy = [Conn("127.0.0.1", float(n), trusted=True) for n in range(3)]  # over the cap of 2
    for conn in proxy:
        assert places.take(conn, limits) is None
    direct = Conn("10.0.0.9", 0.0)
    assert places.take(direct, limits) is None
    # A prompt request from the proxy stands for its clients: it sheds the direct connection,
    # and a direct newcomer never sheds the proxy's (they carry other clients' requests).
    assert places.shed_for(Conn("127.0.0.1", 9.0, trusted=True), limits) is direct
    assert places.shed_for(Conn("10.0.0.8", 9.0), limits) is None
    assert places.by_client == {"127.0.0.1": 4}
    assert limits.trusts("127.0.0.1") and not limits.trusts("127.0.0.2")
    assert not limits.trusts("not an address") and not limits.trusts(None)
    assert not GuardConfig().trusts("127.0.0.1")


def test_the_guard_config_travels_to_workers_with_its_proxies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = GuardConfig(max_connections=9, trusted_proxies=("10.1.0.0/16", "::1"))
    monkeypatch.setenv(ENV_GUARD, limits.to_env())
    assert config() == limits


@contextlib.contextmanager
def held(port: int, source: str, count: int) -> Iterator[list[socket.socket]]:
    conns = [socket.create_connection(("127.0.0.1", port), 10, (source, 0)) for _ in range(count)]
    try:
        yield conns
    finally:
        for s in conns:
            s.close()


@pytest.mark.integration
def test_a_full_server_sheds_a_silent_connection_for_a_prompt_request(tmp_path: Path) -> None:
    need_addresses()
    args = ("--head-timeout", "20", "--max-per-client", "3", "--max-connections", "3")
    with serving(tmp_path, *args) as server, held(server.port, ATTACKERS[0], 3):
        time.sleep(0.3)  # accepted, holding every place, sending nothing
        status, body = request(server.port, "GET", "/v1/health", source=PROBER)
        assert status == 200, body


@pytest.mark.integration
def test_a_loopback_client_cannot_name_its_address_without_trusted_proxies(tmp_path: Path) -> None:
    """uvicorn believed ``X-Forwarded-For`` from any loopback peer (its default): a client on
    127.0.0.1 was logged, and counted, as whatever address it wrote. Only ``--trusted-proxy``
    peers are believed now (tests/test_nginx.py: behind nginx)."""
    out = tmp_path / "stdout.txt"
    port = free_port()
    args = [sys.executable, "-m", "cruel_tools.cli.app", "serve", "--port", str(port)]
    args += ["--db", str(tmp_path / "cruel.sqlite"), "--today", "2027-01-05"]
    args += ["--puzzles", str(ROOT / "puzzles")]
    with out.open("wb") as stdout:
        proc = subprocess.Popen(args, stdout=stdout, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            assert proc.poll() is None and time.monotonic() < deadline, "no server"
            time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                b"GET /v1/health?forged=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                b"X-Forwarded-For: 203.0.113.9\r\n\r\n"
            )
            assert read_all(s).startswith(b"HTTP/1.1 200")
        deadline = time.monotonic() + 10
        while "forged=1" not in out.read_text():
            assert time.monotonic() < deadline, out.read_text()
            time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    line = next(x for x in out.read_text().splitlines() if "forged=1" in x)
    assert "127.0.0.1:" in line and "203.0.113.9" not in line, line


@pytest.mark.integration
def test_a_body_that_is_slowest_in_coming_is_shed_with_a_json_503(tmp_path: Path) -> None:
    need_addresses()
    args = ("--body-timeout", "20", "--max-per-client", "3", "--max-connections", "3")
    with serving(tmp_path, *args) as server, held(server.port, ATTACKERS[0], 3) as stalled:
        for s in stalled:  # complete heads, then a body that stops after its first byte
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        time.sleep(0.3)
        assert request(server.port, "GET", "/v1/health", source=PROBER)[0] == 200
        answers = []
        for s in stalled:
            s.settimeout(0.5)
            with contextlib.suppress(OSError):
                answers.append(read_all(s))
        shed = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert len(shed) == 1, answers
        status, body = parse(shed[0])
        assert (status, body["code"]) == (503, "server-full")


@pytest.mark.integration
def test_only_a_whole_request_sheds_a_connection(tmp_path: Path) -> None:
    """A newcomer's body must come whole within 2 s: a client whose own requests stall would
    otherwise shed the others' connections, and they its, many times a second."""
    need_addresses()
    args = ("--head-timeout", "20", "--max-per-client", "3", "--max-connections", "3")
    with serving(tmp_path, *args) as server, held(server.port, ATTACKERS[0], 3):
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", server.port), 10, (PROBER, 0)) as s:
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            status, body = parse(read_all(s))
        assert (status, body["code"]) == (503, "server-full")
        won = (ROOT / "samples/won.json").read_bytes()  # a whole request, with its body
        status, report = request(server.port, "POST", "/v1/verify", won, source=PROBER)
        assert status == 200 and report["valid"] is True


@pytest.mark.integration
def test_over_its_address_s_cap_a_request_is_refused_at_once_body_or_not(tmp_path: Path) -> None:
    need_addresses()
    args = ("--head-timeout", "20", "--max-per-client", "2", "--max-connections", "50")
    with serving(tmp_path, *args) as server, held(server.port, ATTACKERS[0], 2):
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", server.port), 10, (ATTACKERS[0], 0)) as s:
            began = time.monotonic()
            s.sendall(b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            status, body = parse(read_all(s))
            took = time.monotonic() - began
        assert (status, body["code"]) == (429, "too-many-connections")
        assert took < 1.5, took  # not kept waiting for a body that cannot win it a place
