"""Many ``cruel serve`` instances on one PostgreSQL database (issue #13): three real servers on
three loopback ports, one schema. The same game sent to all of them at once is stored once,
every instance lists the same ranks, and ``kill -9`` of an instance under load loses no
acknowledged entry. Skipped without ``CRUEL_TEST_POSTGRES`` (tests/stores.py)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson
import psycopg
import pytest

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import FreshSchema, needs_postgres
from .test_serve_process import PUZZLE_ID, request, start, stop

SUBMIT = f"/v1/puzzles/{PUZZLE_ID}/submissions"
BOARD = f"/v1/puzzles/{PUZZLE_ID}/leaderboard?limit=1000&best_per_player=false"  # every entry
# Par logs rank as they are sent here (their review: tests/test_live_attempts.py), and untimed
# logs rank (--rank-untimed): these tests are about storing and ranking across instances.
OPEN = ("--open", "--rank-untimed", "--rate-key", "off", "--rate-player", "off", "--no-review-par")


@pytest.fixture
def schema() -> Iterator[FreshSchema]:
    fresh = FreshSchema(needs_postgres())
    try:
        yield fresh
    finally:
        fresh.drop()


@pytest.fixture
def instances(schema: FreshSchema) -> Iterator[list[Any]]:
    """Three servers on one schema, started together (they take turns making the tables)."""
    with ThreadPoolExecutor(3) as pool:
        started = list(pool.map(lambda _: start(schema.url, *OPEN), range(3)))  # type: ignore[arg-type]
    try:
        yield started
    finally:
        for proc, _ in started:
            if proc.poll() is None:
                stop(proc)


def rows(schema: FreshSchema) -> list[tuple[int, str, str]]:
    with psycopg.connect(schema.url) as db:
        found = db.execute("SELECT id, player, game FROM submissions ORDER BY id").fetchall()
    return [(int(i), str(p), str(g)) for i, p, g in found]


def test_three_instances_store_a_game_sent_to_all_at_once_once_and_rank_alike(
    schema: FreshSchema, instances: list[Any]
) -> None:
    ports = [port for _, port in instances]
    puzzle = published_puzzles().get(PUZZLE_ID)
    games = [puzzle_log(puzzle)] + [puzzle_log(puzzle, other_win(puzzle, s)) for s in (1, 2)]
    jobs = [(f"p{k}", games[k % len(games)]) for k in range(12)]
    barrier = threading.Barrier(len(jobs) * 3)

    def send(job: tuple[int, str, Any]) -> tuple[str, int, Any]:
        port, player, log = job
        body = orjson.dumps({"player": player, "log": log})
        barrier.wait()  # every instance gets every game at the same moment
        status, answer = request(port, "POST", SUBMIT, body)
        return player, status, answer

    with ThreadPoolExecutor(len(jobs) * 3) as pool:
        answers = list(pool.map(send, [(p, n, g) for n, g in jobs for p in ports]))
    by_player: dict[str, list[tuple[int, Any]]] = {}
    for player, status, answer in answers:
        assert status in (200, 201), answer
        by_player.setdefault(player, []).append((status, answer))
    for player, got in by_player.items():
        assert sorted(s for s, _ in got) == [200, 200, 201], (player, got)
        assert len({a["submission_id"] for _, a in got}) == 1  # the duplicates name the entry
        assert sum(a["duplicate"] for _, a in got) == 2
    stored = rows(schema)
    assert len(stored) == len(jobs) and len({(p, g) for _, p, g in stored}) == len(jobs)
    # Every instance lists the same board, and its ranks are 1 + the strictly better entries.
    boards = [request(port, "GET", BOARD)[1]["entries"] for port in ports]
    assert boards[0] == boards[1] == boards[2]
    scores = [(e["actions"], e["redeals"]) for e in boards[0]]
    assert [e["rank"] for e in boards[0]] == [1 + sum(o < s for o in scores) for s in scores]
    # The rank in each first answer counted entries stored before it: never more than now.
    final = {e["submission_id"]: e["rank"] for e in boards[0]}
    for got in by_player.values():
        created = next(a for s, a in got if s == 201)
        assert 1 <= created["rank"] <= final[created["submission_id"]]


def test_kill_9_of_an_instance_under_load_loses_no_acknowledged_entry(
    schema: FreshSchema, instances: list[Any]
) -> None:
    ports = [port for _, port in instances]
    log = puzzle_log(published_puzzles().get(PUZZLE_ID))
    acknowledged: list[tuple[str, int]] = []
    failures: list[str] = []
    stop_at = time.monotonic() + 4.0
    lock = threading.Lock()

    def load(worker: int) -> None:
        k = 0
        while time.monotonic() < stop_at:
            port = ports[(worker + k) % 3]
            player = f"w{worker} n{k}"
            k += 1
            body = orjson.dumps({"player": player, "log": log})
            try:
                status, answer = request(port, "POST", SUBMIT, body)
            except (OSError, ValueError) as exc:  # the killed instance: no answer, no promise
                failures.append(type(exc).__name__)
                continue
            if status == 201:
                with lock:
                    acknowledged.append((player, answer["submission_id"]))

    workers = [threading.Thread(target=load, args=(w,)) for w in range(6)]
    for w in workers:
        w.start()
    time.sleep(1.5)
    victim, _ = instances[0]
    victim.send_signal(signal.SIGKILL)  # kill -9, mid-load
    for w in workers:
        w.join()
    assert victim.wait(timeout=10) == -signal.SIGKILL
    assert failures, "the killed instance was never asked"
    assert len(acknowledged) > 50
    stored = {(player, sid) for sid, player, _ in rows(schema)}
    assert set(acknowledged) <= stored  # every 201 is there ...
    assert len(stored) == len({p for p, _ in stored})  # ... and no player has two entries
    # The survivors list every acknowledged entry.
    total = request(ports[1], "GET", BOARD)[1]
    assert request(ports[2], "GET", "/v1/health")[1]["submissions"] == len(stored)
    assert total["total"] == len(stored)


def test_a_server_that_cannot_be_reached_stops_the_start_in_one_line() -> None:
    import subprocess

    from .test_serve_process import cruel

    done = subprocess.run(
        cruel("serve", "--db", "postgresql://cruel:secret@127.0.0.1:1/cruel", "--port", "0"),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "error: postgresql://cruel:***@127.0.0.1:1/cruel: cannot use as a database: connection"
    )
    assert "secret" not in lines[0]
