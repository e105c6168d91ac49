"""Issue #33, finding 2: every log body was parsed on the event loop before any limit. The
attacker's body: ``{"format":"cruel-log/1","deal":{"number":1},"meta":{"a":[{"b":1}, ...120,000
times]}}`` (960 KB, under the body limit): the duplicate-key check alone (Python's json with a
hook) cost 0.16 s of the loop's time, and 9 such requests a second took health's p99 to 581 ms;
``/v1/analyze`` and ``/v1/hint`` parsed it before taking a rate-limit token.

Now a body over ``PARSE_INLINE_BYTES`` is parsed in a process of its own pool
(:mod:`cruel_tools.service.bodies`), on every route that reads a log or JSON document, and the
routes that help parse only once the request has a place and a token. The tests follow each
parse: the parser called in the server's own process (on which thread), and the parses sent to
the parsing process (the parser named).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.constants import PARSE_INLINE_BYTES
from cruel_tools.game import duplicates
from cruel_tools.service import bodies
from cruel_tools.site.keys import RateLimit

from .test_hostile import serving
from .test_hostile_replay import run_apart, settings

#: An open puzzle on the served date (submissions and attempts take it).
TODAY = dt.date(2027, 1, 5)
PUZZLE = "2027-01-05-medium"

#: The attacker's body: 120,000 small objects in meta, 960 KB.
NESTED: bytes = (
    b'{"format":"cruel-log/1","deal":{"number":1},"meta":{"a":['
    + b",".join([b'{"b":1}'] * 120_000)
    + b"]}}"
)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Where the attacker's body was parsed: the threads of this process that ran the
    duplicate-key check (it runs on every read of a log whose meta is not plain: the parse's
    costliest part), and ``"process: <parser>"`` for each parse sent to the parsing process."""
    where: list[str] = []
    exact = duplicates.find

    def find(data: bytes | str) -> tuple[str, str] | None:
        where.append(threading.current_thread().name)
        return exact(data)

    monkeypatch.setattr(duplicates, "find", find)
    sent(monkeypatch, where)
    yield where


def sent(monkeypatch: pytest.MonkeyPatch, where: list[str]) -> None:
    """Record ``"process: <parser>"`` in ``where`` for each parse sent to the parsing process."""
    workers = bodies._workers()
    real = workers.run

    async def run(work: Any) -> Any:
        parser = work.args[0]
        name = getattr(parser, "func", parser).__name__
        where.append(f"process: {name}")
        return await real(work)

    monkeypatch.setattr(workers, "run", run)


def loop_thread(client: TestClient) -> str:
    """The name of the thread the app's event loop runs on."""
    names: list[str] = []
    client.portal.call(lambda: names.append(threading.current_thread().name))  # type: ignore[union-attr]
    return names[0]


@pytest.mark.parametrize("path", ["/v1/verify", "/v1/replay", "/v1/analyze", "/v1/hint"])
def test_the_attackers_body_is_never_parsed_on_the_event_loop(
    tmp_path: Path, parses: list[str], path: str
) -> None:
    with TestClient(service.create_app(settings(tmp_path))) as client:
        r = client.post(path, content=NESTED)
        assert r.status_code == 200, r.text  # a legal log with no moves
        loop = loop_thread(client)
    # Not on the loop, nor on any thread of this process once the app has started (its start
    # reads the puzzle files on the main thread): once, in the parsing process.
    assert parses.count("process: load") == 1, parses
    assert loop not in parses, (parses, loop)
    assert parses[parses.index("process: load") :] == ["process: load"], parses


def spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``"process: <parser>"`` for each parse sent to the parsing process, from now on (the
    parser itself cannot be wrapped: it goes to the other process by name)."""
    where: list[str] = []
    sent(monkeypatch, where)
    return where


def test_a_big_submission_is_parsed_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = spy(monkeypatch)
    with TestClient(service.create_app(settings(tmp_path, fixed_today=TODAY))) as client:
        body = b'{"player":"mallory","log":' + NESTED + b"}"
        r = client.post(f"/v1/puzzles/{PUZZLE}/submissions", content=body)
        assert r.status_code < 500, r.text
    assert where == ["process: parse_submission"], where


def test_a_big_steps_body_of_an_attempt_is_parsed_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = spy(monkeypatch)
    with TestClient(service.create_app(settings(tmp_path, fixed_today=TODAY))) as client:
        start = client.post(f"/v1/puzzles/{PUZZLE}/attempts", json={"player": "mallory"})
        assert start.status_code == 201, start.text
        attempt = start.json()["attempt"]
        body = b'{"steps":["R"' + b',"R"' * 3_000 + b"]}"  # 12 KB
        r = client.post(f"/v1/attempts/{attempt}/steps", content=body)
        assert r.status_code < 500, r.text
    assert where == ["process: parse_steps"], where


def test_a_refusal_in_the_parsing_process_is_the_same_refusal(tmp_path: Path) -> None:
    """A big body the library refuses: the same code, path and words as a small one's."""
    twice = b'{"format":"cruel-log/1","deal":{"number":1},"deal":{"number":2},"meta":{"a":['
    big = twice + b",".join([b'{"b":1}'] * 1_000) + b"]}}"
    small = b'{"format":"cruel-log/1","deal":{"number":1},"deal":{"number":2}}'
    with TestClient(service.create_app(settings(tmp_path))) as client:
        answers = [client.post("/v1/verify", content=body) for body in (big, small)]
    assert [a.status_code for a in answers] == [400, 400], [a.text for a in answers]
    assert len(big) > PARSE_INLINE_BYTES >= len(small)
    assert answers[0].json() == answers[1].json()
    assert answers[0].json()["code"] == "duplicate-key"


@pytest.mark.parametrize("path", ["/v1/analyze", "/v1/hint"])
def test_help_refused_rate_limited_never_parses_the_body(
    tmp_path: Path, parses: list[str], path: str
) -> None:
    one = RateLimit(rate=0.001, burst=1)
    app = service.create_app(settings(tmp_path, analyze_limit=one, hint_limit=one))
    with TestClient(app) as client:
        first = client.post(path, content=NESTED)
        assert first.status_code == 200, first.text  # a place and a token: parsed
        read = len(parses)
        for _ in range(3):
            r = client.post(path, content=NESTED)
            assert (r.status_code, r.json()["code"]) == (429, "rate-limited")
    assert len(parses) == read == 1


async def _lag_during_flood(app: Any, bodies: int) -> tuple[float, float]:
    """The event loop's worst lag (a 2 ms sleep's overshoot) while ``bodies`` attacker's bodies
    are verified at once, and one inline parse's time for scale."""
    import httpx2 as httpx

    from cruel_tools.game.log import load

    start = time.perf_counter()
    load(NESTED)  # a legal log with no moves: all its cost is reading it
    parse_time = time.perf_counter() - start
    transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 1234))
    lags: list[float] = []
    async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
        # The parsing process started first: starting it is once per server process (a fork,
        # tens of milliseconds of the loop's time), not a cost of each body.
        assert (await client.post("/v1/verify", content=NESTED, timeout=60)).status_code == 200
        flood = asyncio.gather(
            *(client.post("/v1/verify", content=NESTED, timeout=60) for _ in range(bodies))
        )
        task = asyncio.ensure_future(flood)
        while not task.done():
            before = time.perf_counter()
            await asyncio.sleep(0.002)
            lags.append(time.perf_counter() - before - 0.002)
        await task
    return max(lags), parse_time


def test_the_loop_keeps_its_turn_while_big_bodies_are_parsed(tmp_path: Path) -> None:
    """Generously bounded: the loop's worst wait is under the time of one whole parse (on the
    loop, each parse held it for all of it)."""
    app = service.create_app(settings(tmp_path))
    worst, parse_time = run_apart(_lag_during_flood(app, 4))
    assert worst < 0.8 * parse_time + 0.01, (worst, parse_time)


# --- the flood through a real server (slow tier) -------------------------------------------------


def _health_during(port: int, seconds: float, send: Callable[[], None]) -> list[float]:
    """Health's latencies, probed every 0.1 s for ``seconds`` while ``send`` runs each 1/9 s."""
    import socket

    from .test_hostile import parse, read_all

    stop = time.monotonic() + seconds
    sender = threading.Thread(target=_every(1 / 9, stop, send), daemon=True)
    sender.start()
    latencies: list[float] = []
    while time.monotonic() < stop:
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            status, _ = parse(read_all(s))
        if status == 200:
            latencies.append(time.monotonic() - start)
        time.sleep(0.1)
    sender.join(30)
    return latencies


def _every(period: float, stop: float, send: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        threads = []
        while time.monotonic() < stop:
            t = threading.Thread(target=send, daemon=True)
            t.start()
            threads.append(t)
            time.sleep(period)
        for t in threads:
            t.join(30)

    return run


@pytest.mark.slow
def test_nine_attackers_bodies_a_second_from_eight_addresses_leave_health_under_200_ms(
    tmp_path: Path,
) -> None:
    import socket

    from .test_hostile import read_all

    count = [0]

    def send() -> None:
        count[0] += 1
        source = f"127.0.0.{2 + count[0] % 8}"
        with socket.socket() as s:
            s.settimeout(30)
            s.bind((source, 0))
            s.connect(("127.0.0.1", server.port))
            head = f"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Length: {len(NESTED)}\r\n"
            s.sendall(head.encode() + b"Connection: close\r\n\r\n" + NESTED)
            read_all(s)

    with serving(tmp_path) as server:
        latencies = _health_during(server.port, 15.0, send)
    ms = sorted(t * 1000 for t in latencies)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    assert len(ms) >= 40 and p99 < 200, (len(ms), statistics.median(ms), p99)
