"""Names and headers in the service (issue #24, finding 10), each test written as the attack.

- marks that change how a name looks (``adá``, ``aḍa``, ``ada̶``) made new players beside ``ada``;
- attempts skipped the lookalike check (Cyrillic ``аdа`` got an attempt and a player record);
- of two ``Authorization`` headers the first won;
- JSON with a key given twice was accepted, the last value winning.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.site.keys import KeyStore

from .helpers import published_puzzles, puzzle_log
from .stores import store_target

__all__ = ["store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
PUZZLE = "2027-01-05-easy"
T0 = dt.datetime(2027, 1, 5, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def keys(store_target: Path | str) -> Iterator[KeyStore]:
    store = KeyStore(store_target)
    yield store
    store.close()


@pytest.fixture
def client(store_target: Path | str) -> Iterator[TestClient]:
    settings = service.Settings(
        puzzles=ROOT / "puzzles",
        db=store_target,
        fixed_today=TODAY,
        clock=lambda: 1000.0,
        wall_clock=lambda: T0,
    )
    with TestClient(service.create_app(settings)) as c:
        yield c


@pytest.fixture
def site(keys: KeyStore, client: TestClient) -> str:
    return keys.add("example.com", "site")[1]


@pytest.fixture
def admin(keys: KeyStore, client: TestClient) -> str:
    return keys.add("moderator", "admin")[1]


def win() -> dict[str, Any]:
    return puzzle_log(published_puzzles().get(PUZZLE))


def submit(client: TestClient, key: str, player: str, body: bytes | None = None) -> Any:
    content = body or orjson.dumps({"player": player, "log": win()})
    return client.post(
        f"/v1/puzzles/{PUZZLE}/submissions",
        content=content,
        headers={"Authorization": f"Bearer {key}"},
    )


def error(response: Any, status: int, code: str, path: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert (body["format"], body["code"]) == ("cruel-error/1", code), body
    if path is not None:
        assert body["path"] == path, body
    return body


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize("marked", ["ad\u00e1", "a\u1e0da", "ada\u0336"])
def test_a_marked_name_is_refused_beside_the_unmarked_one(
    client: TestClient, site: str, marked: str
) -> None:
    assert submit(client, site, "ada").status_code == 201
    fake = submit(client, site, marked)
    assert fake.status_code == 200, fake.text
    assert fake.json()["accepted"] is False
    assert fake.json()["reason"]["code"] == "player-name-confusable"
    assert client.get(f"/v1/players/{quote(marked)}").status_code == 404


def test_an_attempt_under_a_lookalike_name_is_refused(client: TestClient, site: str) -> None:
    """Cyrillic ``аdа`` (two U+0430) beside ``ada``: no attempt, no player record."""
    assert submit(client, site, "ada").status_code == 201
    fake = "\u0430d\u0430"
    response = client.post(
        f"/v1/puzzles/{PUZZLE}/attempts",
        content=orjson.dumps({"format": "cruel-attempt/1", "player": fake}),
        headers={"Authorization": f"Bearer {site}"},
    )
    assert 400 <= response.status_code < 500, response.text
    body = response.json()
    assert (body["code"], body["path"]) == ("player-name-confusable", "/player"), body
    assert client.get(f"/v1/players/{quote(fake)}").status_code == 404
    # The name that is a player already may start one.
    ada = client.post(
        f"/v1/puzzles/{PUZZLE}/attempts",
        content=orjson.dumps({"format": "cruel-attempt/1", "player": "ada"}),
        headers={"Authorization": f"Bearer {site}"},
    )
    assert ada.status_code == 201, ada.text


# --- two Authorization headers ------------------------------------------------------------------


def twice(first: str, second: str) -> list[tuple[str, str]]:
    return [("Authorization", first), ("Authorization", second)]


def test_two_authorization_headers_are_refused_whichever_comes_first(
    client: TestClient, site: str, admin: str
) -> None:
    body = orjson.dumps({"player": "ada", "log": win()})
    url = f"/v1/puzzles/{PUZZLE}/submissions"
    for headers in (
        twice(f"Bearer {site}", "Bearer cruel_nope"),  # the first won: accepted
        twice("Bearer cruel_nope", f"Bearer {site}"),
        twice(f"Bearer {site}", f"Bearer {site}"),  # even the same key twice
    ):
        found = error(client.post(url, content=body, headers=headers), 400, "duplicate-header")
        assert found["path"] == "authorization" and found["location"] == "header"
        assert found["message"] == "the Authorization header is sent 2 times: send it once"
    audit = client.get("/v1/admin/audit", headers=twice(f"Bearer {admin}", f"Bearer {site}"))
    error(audit, 400, "duplicate-header", "authorization")
    assert client.get("/v1/admin/audit", headers={"Authorization": f"Bearer {admin}"}).is_success
    assert submit(client, site, "ada").status_code == 201  # one header: as before


# --- JSON with a key given twice ----------------------------------------------------------------


def test_bodies_with_a_key_given_twice_are_refused(
    client: TestClient, site: str, admin: str
) -> None:
    log = orjson.dumps(win()).decode()
    twice_deal = log.replace('"deal":', '"deal":{"number":1},"deal":', 1)
    error(client.post("/v1/verify", content=twice_deal), 400, "duplicate-key", "/deal")
    error(client.post("/v1/replay", content=twice_deal), 400, "duplicate-key", "/deal")
    two_players = f'{{"player": "bob", "player": "ada", "log": {log}}}'.encode()
    error(submit(client, site, "", two_players), 400, "duplicate-key", "/player")
    in_log = f'{{"player": "ada", "log": {twice_deal}}}'.encode()
    error(submit(client, site, "", in_log), 400, "duplicate-key", "/log/deal")
    attempt = client.post(
        f"/v1/puzzles/{PUZZLE}/attempts",
        content=b'{"format": "cruel-attempt/1", "player": "bob", "player": "ada"}',
        headers={"Authorization": f"Bearer {site}"},
    )
    error(attempt, 400, "duplicate-key", "/player")
    stored = submit(client, site, "ada")
    assert stored.status_code == 201, stored.text
    entry = stored.json()["submission_id"]
    hide = client.post(
        f"/v1/admin/submissions/{entry}/hide",
        content=b'{"reason": "a", "reason": "b"}',
        headers={"Authorization": f"Bearer {admin}"},
    )
    error(hide, 400, "duplicate-key", "/reason")


def test_two_attempts_at_once_under_lookalike_names_give_one_player(
    store_target: Path | str,
) -> None:
    """Two new names that look alike, each starting an attempt at the same moment from its own
    process's stores: one becomes a player, the other is refused (on PostgreSQL the writers of
    one skeleton take turns; an attempt's new id locked nothing)."""
    import threading

    from cruel_tools.game.log import LogFormatError
    from cruel_tools.site import live
    from cruel_tools.site.stores import open_stores

    puzzle = published_puzzles().get(PUZZLE)
    assert puzzle is not None
    both = [open_stores(store_target, create=True) for _ in range(2)]

    def run(i: int, name: str, gate: threading.Barrier, outcomes: list[str]) -> None:
        gate.wait()
        try:
            live.start(both[i], puzzle, name, "off", "1", T0)
            outcomes[i] = "started"
        except LogFormatError as exc:
            outcomes[i] = exc.code

    try:
        for k in range(8):
            names = [f"ada{k}", f"\u0430da{k}"]
            outcomes = [""] * 2
            gate = threading.Barrier(2)
            threads = [
                threading.Thread(target=run, args=(i, names[i], gate, outcomes)) for i in range(2)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(outcomes) == ["player-name-confusable", "started"], (k, outcomes)
    finally:
        for stores in both:
            stores.close()


@pytest.mark.integration
def test_two_authorization_headers_over_a_real_connection(tmp_path: Path) -> None:
    """The bytes as a client sends them, through uvicorn: the headers arrive as two."""
    import socket
    import subprocess

    from .test_serve_process import cruel, start, stop

    db = tmp_path / "cruel.sqlite"
    made = subprocess.run(
        cruel("keys", "add", "--role", "site", "--name", "s", "--db", str(db), "--create"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    key = made.stdout.split()[-1]
    assert key.startswith("cruel_"), made.stdout
    proc, port = start(db)
    try:
        body = orjson.dumps({"player": "ada", "log": win()})

        def send(*auth: str) -> tuple[int, dict[str, Any]]:
            head = f"POST /v1/puzzles/{PUZZLE}/submissions HTTP/1.1\r\nHost: x\r\n"
            head += "".join(f"Authorization: {a}\r\n" for a in auth)
            head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(head.encode() + body)
                answer = b""
                while chunk := s.recv(65536):
                    answer += chunk
            status = int(answer.split(b" ", 2)[1])
            return status, orjson.loads(answer.split(b"\r\n\r\n", 1)[1])

        status, found = send(f"Bearer {key}", "Bearer cruel_nope")
        assert (status, found["code"]) == (400, "duplicate-header"), found
        status, found = send("Bearer cruel_nope", f"Bearer {key}")
        assert (status, found["code"]) == (400, "duplicate-header"), found
        status, found = send(f"Bearer {key}")
        assert status == 201, found
    finally:
        stop(proc)
