"""Issue #33, finding 1: ``POST /v1/replay`` was a costly route with no budget. A legal
10,000-step log (made by random play) cost 0.28 s of CPU and answered 3.47 MB; 256 at once from 8
addresses held ``/v1/health`` for 40 s. The attack again: the same log, many at once, many from
one address. Now an answer is a window of steps (``from``/``to``, at most
``REPLAY_MAX_STEPS`` and ``REPLAY_MAX_BYTES`` of steps) that says where the next starts, replays
at once are capped (503 ``busy``) and each address has its bucket (429 ``rate-limited``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import random
from pathlib import Path
from typing import Any

import httpx2 as httpx
import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.constants import REPLAY_MAX_BYTES, REPLAY_MAX_STEPS
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.log import compact, load
from cruel_tools.game.render import replay_json
from cruel_tools.service.replaying import windowed_replay
from cruel_tools.site.keys import RateLimit

ROOT = Path(__file__).parent.parent

#: The answer's head (format, outcome, final position, window): a few KB beyond its steps.
HEAD_BYTES = 16_384


@functools.cache
def random_log(steps: int = 10_000, seed: int = 1) -> bytes:
    """A legal log of ``steps`` random steps (the attacker's: random play until it has them,
    on the first deal that lasts that long)."""
    rng = random.Random(seed)
    for deal in range(1, 100):
        game, moves = Game.from_deal(deal_piles(deal)), []
        while len(moves) < steps:
            options = list(game.legal_steps())
            if not options:
                break
            step = rng.choice(options)
            game.push(step)
            moves.append(compact(step))
        if len(moves) == steps:
            doc = {"format": "cruel-log/1", "deal": {"number": deal}, "moves": moves}
            return orjson.dumps(doc)
    raise AssertionError("no deal lasted that long")


def settings(tmp_path: Path, **extra: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles", db=tmp_path / "cruel.sqlite", open=True, **extra
    )


def run_apart(coroutine: Any) -> Any:
    """``asyncio.run`` in a thread of its own (a browser test's loop may be running here)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_a_10000_step_replay_answers_a_bounded_window_that_says_where_the_next_starts(
    tmp_path: Path,
) -> None:
    body = random_log()
    with TestClient(service.create_app(settings(tmp_path))) as client:
        r = client.post("/v1/replay", content=body)
        assert r.status_code == 200, r.text
        assert len(r.content) <= REPLAY_MAX_BYTES + HEAD_BYTES  # was 3.47 MB
        doc = r.json()
        assert len(doc["steps"]) == REPLAY_MAX_STEPS
        assert doc["window"] == {
            "first": 1,
            "last": REPLAY_MAX_STEPS,
            "steps": 10_000,
            "next": REPLAY_MAX_STEPS + 1,
            "cut": True,
        }
        assert doc["outcome"] is not None and doc["error"] is None  # the whole log is played
        last = client.post(f"/v1/replay?from={10_000 - 9}", content=body).json()
        assert [s["step"] for s in last["steps"]] == list(range(9_991, 10_001))
        assert last["window"]["next"] is None and not last["window"]["cut"]
        assert last["final"] == doc["final"]
        wide = client.post("/v1/replay?from=5&to=9000", content=body).json()["window"]
        assert (wide["last"], wide["next"], wide["cut"]) == (4 + REPLAY_MAX_STEPS, 2005, True)
        r = client.post("/v1/replay?from=10001", content=body)
        assert (r.status_code, r.json()["code"]) == (422, "empty-window")


def test_windows_put_end_to_end_are_the_whole_replay() -> None:
    game_log = load(random_log(57, seed=3))
    whole = replay_json(game_log)["steps"]
    got: list[Any] = []
    first: int | None = 1
    while first is not None:
        doc = windowed_replay(game_log, first, max_steps=10, max_bytes=2_500)
        assert 0 < len(doc["steps"]) <= 10
        got += doc["steps"]
        first = doc["window"]["next"]
    assert got == whole


def test_replays_at_once_past_the_cap_are_503_busy_with_retry_after(tmp_path: Path) -> None:
    app = service.create_app(settings(tmp_path, max_replays=2, replay_limit=None))
    body = random_log()

    async def burst() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 1234))
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            return await asyncio.gather(
                *(client.post("/v1/replay", content=body, timeout=60) for _ in range(8))
            )

    answers = run_apart(burst())
    statuses = sorted(r.status_code for r in answers)
    assert statuses.count(200) >= 2 and 503 in statuses, statuses
    busy = next(r for r in answers if r.status_code == 503)
    assert busy.json()["code"] == "busy" and int(busy.headers["retry-after"]) >= 1


def test_one_address_has_a_bucket_of_replays(tmp_path: Path) -> None:
    now = [0.0]
    limit = RateLimit(rate=1.0, burst=3)
    app = service.create_app(settings(tmp_path, replay_limit=limit, clock=lambda: now[0]))
    body = random_log(30, seed=2)
    with TestClient(app) as client:
        assert [client.post("/v1/replay", content=body).status_code for _ in range(3)] == [200] * 3
        r = client.post("/v1/replay", content=body)
        assert (r.status_code, r.json()["code"]) == (429, "rate-limited")
        assert r.headers["retry-after"] == "1"
        now[0] = 1.0
        assert client.post("/v1/replay", content=body).status_code == 200


@pytest.mark.parametrize("query", ["from=0", "to=0", "from=x"])
def test_a_bad_window_is_a_bad_parameter(tmp_path: Path, query: str) -> None:
    with TestClient(service.create_app(settings(tmp_path))) as client:
        r = client.post(f"/v1/replay?{query}", content=random_log(30, seed=2))
        assert (r.status_code, r.json()["code"]) == (422, "bad-parameter")
