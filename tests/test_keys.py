"""API keys and rate limits of the service: who may submit, how often (docs/service.md)."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cruel_tools import service
from cruel_tools.cli.app import app
from cruel_tools.site.database import StoreError
from cruel_tools.site.keys import (
    BadKeyRequest,
    BadRate,
    KeyStore,
    RateLimit,
    TokenBuckets,
    key_hash,
    new_key,
    parse_rate,
)
from cruel_tools.site.stores import open_stores

from .helpers import published_puzzles, puzzle_log
from .stores import sqlite_only, store_target

__all__ = ["sqlite_only", "store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
OPEN_ID = "2027-01-05-hard"
URL = f"/v1/puzzles/{OPEN_ID}/submissions"


class Clock:
    """A clock for the rate limits' buckets that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def settings(db: Path, clock: Clock | None = None, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles", db=db, fixed_today=TODAY, clock=clock or Clock(), **fields
    )


@pytest.fixture
def db(store_target: Path | str) -> Path | str:
    """The store: an SQLite file, or a fresh PostgreSQL schema (tests.stores)."""
    return store_target


@pytest.fixture
def store(db: Path) -> Iterator[KeyStore]:
    s = KeyStore(db)
    yield s
    s.close()


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings(db))) as c:
        yield c


def win() -> dict[str, Any]:
    return puzzle_log(published_puzzles().get(OPEN_ID))


def submit(client: TestClient, key: str | None = None, player: str = "ada", **headers: str) -> Any:
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    body = orjson.dumps({"player": player, "log": win()})
    return client.post(URL, content=body, headers=headers)


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert (body["format"], body["status"], body["code"]) == ("cruel-error/1", status, code)
    return body


def unauthorized(response: Any, code: str) -> dict[str, Any]:
    body = error(response, 401, code)
    assert response.headers["www-authenticate"] == "Bearer"
    assert (body["location"], body["path"]) == ("header", "authorization")
    return body


# --- keys ----------------------------------------------------------------------------------------


def test_a_key_is_random_and_long() -> None:
    keys = {new_key() for _ in range(100)}
    assert len(keys) == 100
    assert all(re.fullmatch(r"cruel_[A-Za-z0-9_-]{43}", k) for k in keys)


def test_a_keyless_write_is_401_missing_key(client: TestClient) -> None:
    body = unauthorized(submit(client), "missing-key")
    assert "Authorization: Bearer" in body["message"]
    assert client.get("/v1/health").json()["submissions"] == 0


def test_a_bad_key_is_401_bad_key(client: TestClient, store: KeyStore) -> None:
    _, good = store.add("site", "site")
    for key in [new_key(), "cruel_short", good + "x", good.upper(), "", " "]:
        unauthorized(submit(client, key), "bad-key")
    for header in [f"Basic {good}", good, "Bearer", f"Token {good}"]:
        unauthorized(submit(client, Authorization=header), "bad-key")


def test_a_site_key_submits(client: TestClient, store: KeyStore) -> None:
    _, key = store.add("example.com", "site")
    response = submit(client, key)
    assert response.status_code == 201 and response.json()["player"] == "ada"
    # The scheme is case-insensitive (RFC 7235).
    assert submit(client, Authorization=f"bearer {key}").json()["duplicate"] is True


def test_a_revoked_key_is_401_revoked_key(client: TestClient, store: KeyStore) -> None:
    made, key = store.add("example.com", "site")
    assert submit(client, key).status_code == 201
    store.revoke(made.id)  # as `cruel keys revoke` does, from another connection
    body = unauthorized(submit(client, key, "bob"), "revoked-key")
    assert f"id {made.id}" in body["message"]


def test_an_admin_key_may_not_submit(client: TestClient, store: KeyStore) -> None:
    _, key = store.add("moderator", "admin")
    body = error(submit(client, key), 403, "wrong-role")
    assert body["message"] == "an admin key may not submit (only a site key may)"
    assert "www-authenticate" not in submit(client, key).headers


def test_verify_needs_no_key(client: TestClient) -> None:
    response = client.post("/v1/verify", content=orjson.dumps(win()))
    assert response.status_code == 200 and response.json()["outcome"] == "won"


def test_the_key_is_checked_before_the_puzzle_and_the_body(client: TestClient) -> None:
    unauthorized(client.post("/v1/puzzles/nope/submissions", content=b"junk"), "missing-key")


def test_an_open_server_takes_keyless_submissions_and_still_checks_keys(db: Path) -> None:
    with TestClient(service.create_app(settings(db, open=True))) as client:
        assert submit(client).status_code == 201
        unauthorized(submit(client, new_key(), "bob"), "bad-key")
        _, admin = KeyStore(db).add("moderator", "admin")
        error(submit(client, admin, "bob"), 403, "wrong-role")


def test_keys_are_stored_hashed(db: Path, store: KeyStore) -> None:
    keys = [store.add(f"site {n}", "site")[1] for n in range(3)]
    if not isinstance(db, Path):  # PostgreSQL: what the table holds
        import psycopg

        with psycopg.connect(str(db)) as pg:
            stored = "\n".join(str(r) for r in pg.execute("SELECT * FROM api_keys")).encode()
        for key in keys:
            assert key.encode() not in stored and key_hash(key).encode() in stored
        return
    with TestClient(service.create_app(settings(db))) as client:
        assert all(submit(client, k).status_code in (200, 201) for k in keys)
        files = [p for p in db.parent.iterdir() if p.name.startswith(db.name)]
        stored = b"".join(p.read_bytes() for p in files)  # the WAL too, before a checkpoint
    stored += b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    for key in keys:
        assert key.encode() not in stored
        assert key.split("_", 1)[1].encode() not in stored
        assert key_hash(key).encode() in stored
    assert key_hash(keys[0]) == hashlib.sha256(keys[0].encode()).hexdigest()


def test_the_store_lists_and_revokes(store: KeyStore) -> None:
    at = dt.datetime(2027, 1, 5, 12, tzinfo=dt.UTC)
    site, _ = store.add("  example.com ", "site", now=at)
    admin, _ = store.add("me", "admin", now=at)
    assert (site.id, site.name, site.role, site.created_at) == (1, "example.com", "site", at)
    assert store.keys() == [site, admin]
    later = at + dt.timedelta(hours=1)
    revoked = store.revoke(admin.id, now=later)
    assert revoked.revoked_at == later
    assert store.revoke(admin.id, now=later + dt.timedelta(days=1)).revoked_at == later
    assert store.keys() == [site, revoked]
    with pytest.raises(BadKeyRequest, match="no key has the id 9"):
        store.revoke(9)
    for name, role in [("x", "root"), ("", "site"), ("a\nb", "site"), ("x" * 101, "site")]:
        with pytest.raises(BadKeyRequest):
            store.add(name, role)


def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a database, " * 200)
    with pytest.raises(StoreError, match="cannot use as a database"):
        KeyStore(tmp_path / "notes.txt")


# --- cruel keys ----------------------------------------------------------------------------------


def cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_cruel_keys_add_list_revoke(db: Path) -> None:
    # The first key of a site, before its first serve: --create makes the database.
    made = cli(
        "keys", "add", "--role", "site", "--name", "example.com", "--db", str(db), "--create"
    )
    assert made.exit_code == 0, made.output
    lines = made.stdout.splitlines()
    assert lines[0] == "id 1" and re.fullmatch(r"key cruel_[A-Za-z0-9_-]{43}", lines[1])
    key = lines[1].split()[1]
    assert "not shown again" in made.stderr
    assert cli("keys", "add", "--role", "admin", "--name", "me", "--db", str(db)).exit_code == 0

    listed = cli("keys", "list", "--db", str(db))
    assert listed.exit_code == 0 and key not in listed.output
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert rows[0] == ["ID", "ROLE", "CREATED", "REVOKED", "NAME"]
    assert [(r[0], r[1], r[3], r[4]) for r in rows[1:]] == [
        ("1", "site", "-", "example.com"),
        ("2", "admin", "-", "me"),
    ]

    revoked = cli("keys", "revoke", "1", "--db", str(db))
    assert revoked.exit_code == 0 and "key 1 (example.com) revoked at" in revoked.stderr
    rows = [line.split() for line in cli("keys", "list", "--db", str(db)).stdout.splitlines()]
    assert rows[1][3] != "-" and rows[2][3] == "-"
    with TestClient(service.create_app(settings(db))) as client:
        unauthorized(submit(client, key), "revoked-key")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["add", "--role", "root", "--name", "x"], "unknown role 'root' (one of site, admin)"),
        (["add", "--role", "site", "--name", " "], "a key's name is 1 to 100 printable"),
        (["revoke", "7"], "no key has the id 7"),
    ],
)
def test_cruel_keys_refuses_with_one_line(db: Path, args: list[str], words: str) -> None:
    open_stores(db, create=True).close()  # the site's database, as its first serve makes it
    done = cli("keys", *args, "--db", str(db))
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {words}") and done.stderr.count("\n") == 1


def test_cruel_keys_refuses_a_file_that_is_no_database(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a database, " * 200)
    done = cli("keys", "list", "--db", str(tmp_path / "notes.txt"))
    assert done.exit_code == 2 and "cannot use as a database" in done.stderr


# --- rate limits ---------------------------------------------------------------------------------


def test_parse_rate() -> None:
    assert parse_rate("10/s") == 10.0
    assert parse_rate("30/min") == 0.5
    assert parse_rate("36/h") == 0.01
    assert parse_rate("2") == 2.0
    assert parse_rate("off") is None
    for bad in ["", "fast", "0/s", "-1/s", "1/day", "nan/s", "inf/s"]:
        with pytest.raises(BadRate, match="not a rate"):
            parse_rate(bad)


def test_a_bucket_gives_its_burst_then_refills_at_its_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(RateLimit(rate=2.0, burst=3), clock)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == 0.5  # a token every half second
    assert buckets.take("b") == 0.0  # each key has its own bucket
    clock.now += 0.25
    assert buckets.take("a") == 0.25  # a refused request takes nothing
    clock.now += 0.25
    assert buckets.take("a") == 0.0
    assert buckets.take("a") == 0.5
    clock.now += 100
    assert [buckets.take("a") for _ in range(4)] == [0.0, 0.0, 0.0, 0.5]  # never over the burst


def test_full_buckets_are_forgotten() -> None:
    clock = Clock()
    buckets = TokenBuckets(RateLimit(rate=1.0, burst=2), clock)
    buckets.SWEEP_AT = 100  # type: ignore[misc]
    buckets._sweep_at = 100
    for n in range(99):
        buckets.take(n)
    clock.now += 10  # every bucket is full again
    buckets.take("last")
    assert len(buckets) == 1


def test_a_key_over_its_burst_is_429_with_retry_after(db: Path, store: KeyStore) -> None:
    clock = Clock()
    limits = {"key_limit": RateLimit(0.5, 3), "player_limit": None}
    _, key = store.add("example.com", "site")
    _, other = store.add("other.example", "site")
    with TestClient(service.create_app(settings(db, clock, **limits))) as client:
        assert [submit(client, key, f"p{n}").status_code for n in range(3)] == [201] * 3
        response = submit(client, key, "p3")
        body = error(response, 429, "rate-limited")
        assert response.headers["retry-after"] == "2"
        assert body["message"] == "too many submissions from this key; retry in 2 s"
        assert (body["location"], body["path"]) == ("header", "authorization")
        assert submit(client, other, "p9").status_code == 201  # another key, another bucket
        clock.now += 1.2
        assert submit(client, key, "p3").headers["retry-after"] == "1"  # 0.8 s: at least 1
        clock.now += 0.8
        assert submit(client, key, "p3").status_code == 201
        assert submit(client, key, "p4").status_code == 429
        # Requests refused for their key take nothing else: only 4 went through this key.
        assert client.get("/v1/health").json()["submissions"] == 5


def test_a_player_over_their_burst_is_429_whatever_the_key(db: Path, store: KeyStore) -> None:
    clock = Clock()
    limits = {"key_limit": None, "player_limit": RateLimit(0.25, 2)}
    keys = [store.add(f"site {n}", "site")[1] for n in range(2)]
    with TestClient(service.create_app(settings(db, clock, **limits))) as client:
        assert submit(client, keys[0]).status_code == 201
        assert submit(client, keys[1]).json()["duplicate"] is True  # a duplicate counts too
        response = submit(client, keys[1])
        body = error(response, 429, "rate-limited")
        assert response.headers["retry-after"] == "4"
        assert (body["location"], body["path"]) == ("body", "/player")
        assert "for this player" in body["message"]
        assert submit(client, keys[0], "bob").status_code == 201
        clock.now += 4
        assert submit(client, keys[0]).status_code == 200


def test_an_open_server_rate_limits_keyless_submissions_together(db: Path) -> None:
    clock = Clock()
    limits = {"key_limit": RateLimit(1.0, 2), "player_limit": None, "open": True}
    with TestClient(service.create_app(settings(db, clock, **limits))) as client:
        assert [submit(client, None, p).status_code for p in "abc"] == [201, 201, 429]


def test_limits_off_never_refuse(db: Path, store: KeyStore) -> None:
    _, key = store.add("example.com", "site")
    limits = {"key_limit": None, "player_limit": None}
    with TestClient(service.create_app(settings(db, **limits))) as client:
        assert {submit(client, key).status_code for _ in range(60)} == {200, 201}


def test_default_limits_are_the_documented_ones() -> None:
    assert service.Settings().key_limit == RateLimit(10.0, 50)
    assert service.Settings().player_limit == RateLimit(1.0, 5)
    assert service.Settings().open is False
    text = (ROOT / "docs" / "service.md").read_text()
    for option in ["`--rate-key R` | `10/s`", "`--burst-key N` | `50`"]:
        assert option in text
    for option in ["`--rate-player R` | `1/s`", "`--burst-player N` | `5`"]:
        assert option in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--rate-key", "fast"], "--rate-key: not a rate: 'fast'"),
        (["--rate-player", "0/s"], "--rate-player: not a rate: '0/s'"),
    ],
)
def test_serve_refuses_a_bad_rate_with_one_line(args: list[str], words: str) -> None:
    done = cli("serve", *args)
    assert done.exit_code == 2
    assert done.stderr.startswith(f"error: {words}") and done.stderr.count("\n") == 1


def test_openapi_documents_the_key_and_the_errors(client: TestClient) -> None:
    doc = client.get("/v1/openapi.json").json()
    post = doc["paths"]["/v1/puzzles/{id}/submissions"]["post"]
    assert post["security"] == [{"apiKey": []}]
    assert {"401", "403", "429"} <= set(post["responses"])
    assert doc["components"]["securitySchemes"]["apiKey"]["scheme"] == "bearer"
    assert "security" not in doc["paths"]["/v1/verify"]["post"]
