"""Players' tokens (docs/service.md, Players and tokens), written as the attacks of issue #24's
finding 6: an anonymous client writing under a player's name, keyless clients sharing one rate
limit, and a player's data that could be neither exported nor deleted."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.site import players as players_module
from cruel_tools.site.keys import KeyStore, RateLimit
from cruel_tools.site.players import (
    CODE_ALPHABET,
    MAX_TRIES,
    PlayerRefused,
    Players,
    code_hash,
    normal_code,
)
from cruel_tools.site.tables import rebuild_tallies

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import store_target

__all__ = ["store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
PUZZLE = "2027-01-05-easy"
OTHER = "2027-01-05-medium"
ATTACKER = ("203.0.113.7", 40000)
NEIGHBOUR = ("198.51.100.9", 40000)


@pytest.fixture
def db(store_target: Path | str) -> Path | str:
    return store_target


def settings(db: Path | str, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        clock=lambda: 1000.0,  # buckets never refill within a test
        **fields,
    )


@pytest.fixture
def open_client(db: Path | str) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings(db, open=True))) as client:
        yield client


@pytest.fixture
def closed_client(db: Path | str) -> Iterator[TestClient]:
    # Logs sent with a player's token rank here (as among friends), so that deleting a player
    # moves the boards' tallies (tests/test_hostile_ranking.py: unranked by default).
    with TestClient(service.create_app(settings(db, rank_untimed=True))) as client:
        yield client


_WINS: dict[tuple[str, int | None], dict[str, Any]] = {}


def win(puzzle: str = PUZZLE, seed: int | None = None) -> dict[str, Any]:
    """The par game of ``puzzle``, or (``seed``) another win of it."""
    if (puzzle, seed) not in _WINS:
        found = published_puzzles().get(puzzle)
        steps = None if seed is None else other_win(found, seed)
        _WINS[puzzle, seed] = puzzle_log(found, steps)
    return _WINS[puzzle, seed]


def auth(token: str | None = None, key: str | None = None) -> dict[str, str]:
    if token:
        return {"Authorization": f"Player {token}"}
    return {"Authorization": f"Bearer {key}"} if key else {}


def submit(
    client: TestClient, player: str, puzzle: str = PUZZLE, seed: int | None = None, **kw: Any
) -> Any:
    doc = {"player": player, "log": win(puzzle, seed)}
    return client.post(
        f"/v1/puzzles/{puzzle}/submissions", content=orjson.dumps(doc), headers=auth(**kw)
    )


def start(client: TestClient, player: str, **kw: Any) -> Any:
    doc = {"format": "cruel-attempt/1", "player": player}
    return client.post(
        f"/v1/puzzles/{PUZZLE}/attempts", content=orjson.dumps(doc), headers=auth(**kw)
    )


def claim(client: TestClient, player: str) -> str:
    response = client.post("/v1/players", content=orjson.dumps({"player": player}))
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["format"], body["player"]) == ("cruel-player-token/1", player)
    token: str = body["token"]
    return token


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert (body["format"], body["code"]) == ("cruel-error/1", code)
    return body


def site_key(db: Path | str, role: str = "site") -> str:
    keys = KeyStore(db)
    try:
        return keys.add("example.com", role)[1]
    finally:
        keys.close()


# --- finding 6: writing under someone else's name ------------------------------------------------


def test_without_open_an_anonymous_client_cannot_write_as_ada(closed_client: TestClient) -> None:
    error(submit(closed_client, "ada"), 401, "missing-key")
    error(start(closed_client, "ada"), 401, "missing-key")
    # A browser needs no --open: it claims its name and writes with its token.
    token = claim(closed_client, "ada")
    assert submit(closed_client, "ada", token=token).status_code == 201
    assert start(closed_client, "ada", token=token).status_code == 201


def test_on_open_a_claimed_name_needs_its_token(open_client: TestClient, db: Path) -> None:
    token = claim(open_client, "ada")
    # The attack of finding 6: an anonymous client submits and starts attempts as ada.
    body = error(submit(open_client, "ada"), 401, "token-required")
    assert body["path"] == "authorization"
    for _ in range(5):  # five anonymous attempts dragged her win rate from 0.50 to 0.14
        error(start(open_client, "ada"), 401, "token-required")
    record = open_client.get("/v1/players/ada")
    assert record.status_code in (200, 404)
    if record.status_code == 200:
        assert record.json()["played"] == 0, record.text  # no game started in her name
    # Another player's token is not hers; nor is a made-up or malformed one.
    bob = claim(open_client, "bob")
    error(submit(open_client, "ada", token=bob), 403, "wrong-player")
    error(start(open_client, "ada", token=bob), 403, "wrong-player")
    error(submit(open_client, "ada", token="cruelp_" + "A" * 43), 401, "bad-token")
    error(submit(open_client, "ada", token="nonsense"), 401, "bad-token")
    # Hers is.
    assert submit(open_client, "ada", token=token).status_code == 201
    # A site's key still vouches for any player; an unclaimed name still plays keyless (demo).
    assert submit(open_client, "ada", OTHER, key=site_key(db)).status_code == 201
    assert submit(open_client, "cy").status_code == 201


def test_a_keyless_name_rotator_is_limited_per_address(db: Path) -> None:
    limited = settings(db, open=True, key_limit=RateLimit(rate=0.001, burst=5), player_limit=None)
    app = service.create_app(limited)
    with TestClient(app, client=ATTACKER) as attacker:
        neighbour = TestClient(app, client=NEIGHBOUR)
        token = claim(neighbour, "ada")
        statuses = [submit(attacker, f"sock{k}").status_code for k in range(8)]
        assert statuses == [201] * 5 + [429] * 3
        assert error(submit(attacker, "sock9"), 429, "rate-limited")["message"].endswith(
            "from this address; retry in 1000 s"
        )
        # Before tokens, every keyless client shared one bucket: the attacker's flood gave real
        # players 429s. Now another address, and a player's token, each have their own.
        assert submit(neighbour, "dee").status_code == 201
        assert submit(neighbour, "ada", token=token).status_code == 201
        assert submit(attacker, "ada", token=token, seed=1).status_code == 201


# --- tokens and link codes -----------------------------------------------------------------------


def test_tokens_and_codes_are_stored_hashed(tmp_path: Path) -> None:
    db = tmp_path / "cruel.sqlite"
    with TestClient(service.create_app(settings(db))) as client:
        token = claim(client, "ada")
        made = client.post("/v1/players/ada/link-codes", headers=auth(token))
        assert made.status_code == 201, made.text
        code = made.json()["code"]
    raw = db.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("cruel.sqlite-*"))
    assert token.encode() not in raw and code.encode() not in raw
    with sqlite3.connect(db) as con:
        stored = con.execute("SELECT hash, player FROM player_tokens").fetchall()
        codes = con.execute("SELECT hash FROM link_codes").fetchall()
    assert stored == [(hashlib.sha256(token.encode()).hexdigest(), "ada")]
    assert codes == [(code_hash("ada", code),)]


def test_a_link_code_works_once(closed_client: TestClient) -> None:
    token = claim(closed_client, "ada")
    error(closed_client.post("/v1/players/ada/link-codes"), 401, "token-required")
    bob = claim(closed_client, "bob")
    error(closed_client.post("/v1/players/ada/link-codes", headers=auth(bob)), 403, "wrong-player")
    made = closed_client.post("/v1/players/ada/link-codes", headers=auth(token)).json()
    assert made["format"] == "cruel-link-code/1"
    code = made["code"]
    assert len(code) == 8 and set(code) <= set(CODE_ALPHABET)
    typed = f"{code[:4].lower()}-{code[4:]}"  # as a person types it
    second = closed_client.post("/v1/players/ada/tokens", content=orjson.dumps({"code": typed}))
    assert second.status_code == 201, second.text
    laptop = second.json()["token"]
    assert laptop != token and submit(closed_client, "ada", token=laptop).status_code == 201
    again = closed_client.post("/v1/players/ada/tokens", content=orjson.dumps({"code": code}))
    error(again, 403, "bad-link-code")
    # Another player's name: the code is ada's only.
    made = closed_client.post("/v1/players/ada/link-codes", headers=auth(token)).json()
    stolen = closed_client.post(
        "/v1/players/bob/tokens", content=orjson.dumps({"code": made["code"]})
    )
    error(stolen, 403, "bad-link-code")


def test_wrong_codes_void_the_live_code(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert MAX_TRIES == 100  # from all addresses (tests/test_hostile_link_codes.py)
    monkeypatch.setattr(players_module, "MAX_TRIES", 5)  # each wrong try costs a scrypt
    players = Players(db)
    try:
        players.claim("ada")
        code = players.link_code("ada").code
        wrong = next(c for c in CODE_ALPHABET if c != code[0]) + code[1:]
        for _ in range(5):
            with pytest.raises(PlayerRefused) as info:
                players.redeem("ada", wrong)
            assert info.value.code == "bad-link-code"
        with pytest.raises(PlayerRefused) as late:
            players.redeem("ada", code)  # guessed at last: too late, and the answer says why
        assert late.value.code == "link-code-voided"
        # Expired codes are refused too.
        code = players.link_code("ada", now=dt.datetime(2020, 1, 1, tzinfo=dt.UTC)).code
        with pytest.raises(PlayerRefused):
            players.redeem("ada", code)
    finally:
        players.close()


def test_normal_code_reads_what_people_type() -> None:
    assert normal_code("abcd-efgh") == "ABCDEFGH"
    assert normal_code("o1l1 i0O0") == "01111000"
    assert normal_code("ABCDEFG") is None and normal_code("ABCDEFGU") is None


def test_claim_refusals(closed_client: TestClient, db: Path) -> None:
    claim(closed_client, "ada")
    taken = closed_client.post("/v1/players", content=orjson.dumps({"player": "ada"}))
    error(taken, 409, "name-taken")
    lookalike = closed_client.post("/v1/players", content=orjson.dumps({"player": "\u0430da"}))
    assert error(lookalike, 409, "player-name-confusable")["path"] == "/player"
    bad = closed_client.post("/v1/players", content=orjson.dumps({"player": "ada\u200b"}))
    error(bad, 422, "bad-player-name")
    # A name with games from before tokens is not anyone's for the asking.
    assert submit(closed_client, "cy", key=site_key(db)).status_code == 201
    old = closed_client.post("/v1/players", content=orjson.dumps({"player": "cy"}))
    error(old, 409, "name-needs-moderator")


def test_a_moderator_revokes_a_lost_token(closed_client: TestClient, db: Path) -> None:
    token = claim(closed_client, "ada")
    url = "/v1/admin/players/ada/tokens"
    error(closed_client.delete(url), 401, "missing-key")
    error(closed_client.delete(url, headers=auth(key=site_key(db))), 403, "wrong-role")
    admin = site_key(db, "admin")
    done = closed_client.request(
        "DELETE", url, headers=auth(key=admin), content=orjson.dumps({"reason": "lost phone"})
    )
    assert done.status_code == 200, done.text
    body = done.json()
    assert (body["revoked"], body["audit"]["action"], body["audit"]["reason"]) == (
        1,
        "revoke-tokens",
        "lost phone",
    )
    error(submit(closed_client, "ada", token=token), 401, "revoked-token")
    new = closed_client.post("/v1/players/ada/tokens", content=orjson.dumps({"code": body["code"]}))
    assert submit(closed_client, "ada", token=new.json()["token"]).status_code == 201
    audit = closed_client.get("/v1/admin/audit", headers=auth(key=admin)).json()
    assert audit["entries"][0]["action"] == "revoke-tokens"
    # A name from before tokens reaches its player the same way.
    assert submit(closed_client, "cy", key=site_key(db)).status_code == 201
    code = closed_client.delete("/v1/admin/players/cy/tokens", headers=auth(key=admin))
    got = closed_client.post("/v1/players/cy/tokens", content=orjson.dumps(code.json()))
    assert got.status_code == 422  # the answer is no link request: only its code is
    got = closed_client.post(
        "/v1/players/cy/tokens", content=orjson.dumps({"code": code.json()["code"]})
    )
    assert got.status_code == 201 and got.json()["player"] == "cy"


# --- a player's data: export and delete ----------------------------------------------------------


def test_export_holds_the_players_games(closed_client: TestClient) -> None:
    token = claim(closed_client, "ada")
    entry = submit(closed_client, "ada", token=token).json()
    assert start(closed_client, "ada", token=token).status_code == 201
    error(closed_client.get("/v1/players/ada/data"), 401, "token-required")
    response = closed_client.get("/v1/players/ada/data", headers=auth(token))
    assert response.status_code == 200, response.text
    data = response.json()
    assert (data["format"], data["player"], data["names"]) == (
        "cruel-player-data/1",
        "ada",
        ["ada"],
    )
    [mine] = data["entries"]
    assert mine["submission_id"] == entry["submission_id"]
    assert mine["log"].split()[0] and mine["puzzle"] == PUZZLE
    [attempt] = data["attempts"]
    assert attempt["puzzle"] == PUZZLE and attempt["sender"]
    assert attempt["status"] in (None, "playing")  # a live attempt's state, once they land
    [held] = data["tokens"]
    assert set(held) == {"id", "created_at", "used_at", "revoked_at"}
    assert token not in response.text
    assert hashlib.sha256(token.encode()).hexdigest() not in response.text


def tallies(db: Path | str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    players = Players(db)
    try:
        with players.database.read() as con:
            counts = con.execute(
                "SELECT puzzle, actions, redeals, entries, timed, bests, fastest FROM score_counts"
                " WHERE entries + timed + bests + fastest > 0 ORDER BY puzzle, actions, redeals"
            ).fetchall()
            best = con.execute("SELECT * FROM player_best ORDER BY puzzle, player").fetchall()
        return [tuple(r) for r in counts], [tuple(r) for r in best]
    finally:
        players.close()


def test_delete_removes_the_players_games_and_the_tallies_stay_right(
    closed_client: TestClient, db: Path | str
) -> None:
    ada = claim(closed_client, "ada")
    bob = claim(closed_client, "bob")
    for player, token, puzzle, seed in [
        ("ada", ada, PUZZLE, None),
        ("ada", ada, PUZZLE, 1),
        ("ada", ada, OTHER, None),
        ("bob", bob, PUZZLE, 1),
    ]:
        assert submit(closed_client, player, puzzle, seed, token=token).status_code == 201
    assert start(closed_client, "ada", token=ada).status_code == 201
    error(closed_client.delete("/v1/players/ada", headers=auth(bob)), 403, "wrong-player")
    response = closed_client.delete("/v1/players/ada", headers=auth(ada))
    assert response.status_code == 200, response.text
    gone = response.json()
    assert (gone["entries"], gone["tokens"], gone["attempts"] >= 1) == (3, 1, True)
    error(submit(closed_client, "ada", token=ada), 401, "bad-token")  # her token went too
    for puzzle in (PUZZLE, OTHER):
        board = closed_client.get(f"/v1/puzzles/{puzzle}/leaderboard").json()
        assert "ada" not in {e["player"] for e in board["entries"]}
    kept = tallies(db)
    players = Players(db)
    try:
        with players.database.write() as con:
            rebuild_tallies(con)
        with players.database.read() as con:
            for table in ("submissions", "attempts", "player_tokens", "players", "player_claims"):
                found = con.execute(f"SELECT COUNT(*) FROM {table} WHERE player = 'ada'")
                assert found.fetchone()[0] == 0, table
            for table in ("live_attempts", "attempt_steps"):  # nothing left of her attempts
                if con.has_table(table):
                    orphans = con.execute(
                        f"SELECT COUNT(*) FROM {table} WHERE attempt NOT IN (SELECT id FROM attempts)"
                    )
                    assert orphans.fetchone()[0] == 0, table
    finally:
        players.close()
    assert tallies(db) == kept
    assert [row[1] for row in kept[1]] == ["bob"]
    # The name is free again: a new player may claim it.
    claim(closed_client, "ada")


def test_a_code_guesser_is_limited_and_the_code_kept(db: Path) -> None:
    app = service.create_app(settings(db))
    with TestClient(app, client=NEIGHBOUR) as ada_client:
        attacker = TestClient(app, client=ATTACKER)
        token = claim(ada_client, "ada")
        code = ada_client.post("/v1/players/ada/link-codes", headers=auth(token)).json()["code"]
        guesses = [f"{k:08d}" for k in range(12)]
        answers = [
            attacker.post("/v1/players/ada/tokens", content=orjson.dumps({"code": g}))
            for g in guesses
            if g != code
        ][:11]
        # Five wrong codes from the address (--link-guesses), then it waits an hour's fifth;
        # issue #33, finding 9: they voided her code before.
        assert [a.status_code for a in answers] == [403] * 5 + [429] * 6
        assert answers[5].headers["Retry-After"] == "720"  # then the tries' own limit: 60
        kept = ada_client.post("/v1/players/ada/tokens", content=orjson.dumps({"code": code}))
        assert kept.status_code == 201, kept.text
        # A new code works too, from her own address (the attacker's limit is not hers).
        code = ada_client.post("/v1/players/ada/link-codes", headers=auth(token)).json()["code"]
        new = ada_client.post("/v1/players/ada/tokens", content=orjson.dumps({"code": code}))
        assert new.status_code == 201, new.text


def test_claims_are_limited_per_address(db: Path) -> None:
    app = service.create_app(settings(db))
    with TestClient(app, client=ATTACKER) as squatter:
        neighbour = TestClient(app, client=NEIGHBOUR)
        made = [
            squatter.post("/v1/players", content=orjson.dumps({"player": f"name{k}"}))
            for k in range(11)
        ]
        assert [m.status_code for m in made] == [201] * 10 + [429]
        assert error(made[-1], 429, "rate-limited")["message"].startswith("too many claims")
        claim(neighbour, "ada")


def test_two_claims_at_once_of_one_name_or_lookalikes_give_one_player(db: Path) -> None:
    import threading

    stores = [Players(db) for _ in range(4)]
    names = ["ada", "\u0430da", "bob", "bob"]  # a lookalike pair, and one name twice
    outcomes: list[str] = [""] * 4
    start = threading.Barrier(4)

    def run(k: int) -> None:
        start.wait()
        try:
            outcomes[k] = stores[k].claim(names[k]).player
        except PlayerRefused as exc:
            outcomes[k] = exc.code

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert sorted(outcomes[:2]) in (
            ["ada", "player-name-confusable"],
            ["player-name-confusable", "\u0430da"],
        ), outcomes
        assert sorted(outcomes[2:]) == ["bob", "name-taken"], outcomes
        with stores[0].database.read() as con:
            rows = con.execute("SELECT player FROM player_tokens ORDER BY player").fetchall()
        assert len(rows) == 2
    finally:
        for store in stores:
            store.close()
