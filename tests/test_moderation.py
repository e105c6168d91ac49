"""Moderation with an admin key: hide, unhide, delete, ban, unban, and the audit log
(cruel_tools.site.moderation; docs/service.md, Moderation)."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.site import moderation
from cruel_tools.site.judging import parse_submission
from cruel_tools.site.keys import KeyStore
from cruel_tools.site.leaderboard import Leaderboards
from cruel_tools.site.moderation import Moderation

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import sqlite_only, store_target

__all__ = ["sqlite_only", "store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
HARD, MEDIUM = "2027-01-05-hard", "2027-01-05-medium"
NOW = dt.datetime(2027, 1, 5, 9, 30, tzinfo=dt.UTC)


@functools.cache
def log(puzzle_id: str, seed: int | None = None) -> dict[str, Any]:
    """A win of the puzzle: its par (for HARD, grader version 2: 53 moves + 6 redeals = 59
    actions, the best), or another one (HARD seed 1: 69 + 10 = 79 actions; seed 2: 75 + 12 = 87;
    seed 0: 77 + 12 = 89, worst)."""
    puzzle = published_puzzles().get(puzzle_id)
    return puzzle_log(puzzle, None if seed is None else other_win(puzzle, seed))


@pytest.fixture
def db(store_target: Path | str) -> Path | str:
    """The store: an SQLite file, or a fresh PostgreSQL schema (tests.stores)."""
    return store_target


@pytest.fixture
def client(db: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(moderation, "_now", lambda: NOW)
    settings = service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        key_limit=None,
        player_limit=None,
        review_untimed_par=False,  # par logs rank here (tests/test_live_attempts.py: queued)
    )
    with TestClient(service.create_app(settings)) as c:
        yield c


@pytest.fixture
def keys(db: Path) -> Iterator[dict[str, str]]:
    store = KeyStore(db)
    _, site = store.add("example.com", "site")
    _, admin = store.add("ops (ada)", "admin")
    _, other = store.add("ops (bob)", "admin")
    yield {"site": site, "admin": admin, "other": other}
    store.close()


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def submit(
    client: TestClient, key: str, player: str, doc: dict[str, Any], puzzle: str = HARD
) -> Any:
    body = orjson.dumps({"player": player, "log": doc})
    return client.post(f"/v1/puzzles/{puzzle}/submissions", content=body, headers=auth(key))


def act(client: TestClient, key: str, method: str, path: str, body: Any = None) -> Any:
    content = None if body is None else orjson.dumps(body) if not isinstance(body, bytes) else body
    return client.request(method, f"/v1/admin/{path}", content=content, headers=auth(key))


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert (body["format"], body["status"], body["code"]) == ("cruel-error/1", status, code)
    return body


def board(client: TestClient, puzzle: str = HARD, **query: Any) -> list[tuple[int, str]]:
    """Every entry, unless ``best_per_player`` (the API's default) is asked for."""
    query = {"best_per_player": False} | query
    doc = ok(client.get(f"/v1/puzzles/{puzzle}/leaderboard", params=query))
    assert doc["total"] == len(doc["entries"]) or query.get("limit")
    return [(e["rank"], e["player"]) for e in doc["entries"]]


@pytest.fixture
def entries(client: TestClient, keys: dict[str, str]) -> dict[str, int]:
    """ada par, 76 actions (rank 1), bob 79 (2), cy 89 (3) on HARD; ada and bob on MEDIUM
    (tied)."""
    ids = {}
    for player, seed in [("ada", None), ("bob", 1), ("cy", 0)]:
        response = submit(client, keys["site"], player, log(HARD, seed))
        assert response.status_code == 201, response.text
        ids[player] = response.json()["submission_id"]
    for player in ["ada", "bob"]:
        assert submit(client, keys["site"], player, log(MEDIUM), MEDIUM).status_code == 201
    assert board(client) == [(1, "ada"), (2, "bob"), (3, "cy")]
    assert board(client, MEDIUM) == [(1, "ada"), (1, "bob")]
    return ids


# --- who may moderate -------------------------------------------------------------------------

#: What fills a route's path parameters: a submission that exists, a player who plays.
SAMPLE = {"id": "1", "name": "ada"}


def routes(client: TestClient) -> list[tuple[str, str]]:
    """(method, path) of every route of the app ``create_app`` made, path parameters filled."""
    found = []
    # The included routers' routes too (FastAPI includes routers lazily: app.routes holds them
    # unexpanded); HEAD is GET's twin, static mounts have no methods.
    for route in iter_route_contexts(client.app.routes):  # type: ignore[attr-defined]
        path = re.sub(r"\{(\w+)\}", lambda m: SAMPLE.get(m[1], "1"), route.path)
        found += [(method, path) for method in sorted(route.methods or ()) if method != "HEAD"]
    return found


def admin_refusal(client: TestClient, method: str, url: str) -> bool:
    """Whether the route refuses a request without a key as moderation does."""
    response = client.request(method, url)
    return response.status_code == 401 and response.json()["message"].startswith("moderation")


def test_every_admin_route_refuses_without_an_admin_key(
    client: TestClient, keys: dict[str, str], entries: dict[str, int]
) -> None:
    # The admin routes are found from the app's own routes: every route that refuses a request
    # without a key as moderation does, and these must be exactly those under /v1/admin/ (a
    # moderation route elsewhere, or one under /v1/admin/ that forgot the key, fails here).
    every = routes(client)
    admin = [(m, url) for m, url in every if admin_refusal(client, m, url)]
    assert admin == [(m, url) for m, url in every if url.startswith("/v1/admin/")]
    assert len(admin) >= 6 and ("GET", "/v1/admin/audit") in admin  # is the walk still right?
    for method, url in admin:
        path = url.removeprefix("/v1/admin/")
        body = error(client.request(method, url), 401, "missing-key")
        assert body["message"] == "moderation needs an admin API key: Authorization: Bearer <key>"
        assert client.request(method, url).headers["www-authenticate"] == "Bearer"
        error(act(client, "cruel_" + "x" * 43, method, path), 401, "bad-key")
        basic = client.request(method, url, headers={"Authorization": "Basic eDp4"})
        error(basic, 401, "bad-key")
        body = error(act(client, keys["site"], method, path), 403, "wrong-role")
        assert body["message"] == "a site key may not moderate (only an admin key may)"
        assert (body["location"], body["path"]) == ("header", "authorization")
    # Nothing was done, nothing recorded; the key is checked before the target and the body.
    assert board(client) == [(1, "ada"), (2, "bob"), (3, "cy")]
    assert ok(act(client, keys["admin"], "GET", "audit"))["total"] == 0
    error(act(client, keys["site"], "POST", "submissions/999/hide", b"{"), 403, "wrong-role")


def test_a_revoked_admin_key_is_401(client: TestClient, db: Path) -> None:
    store = KeyStore(db)
    made, key = store.add("ops", "admin")
    assert ok(act(client, key, "GET", "audit"))["total"] == 0
    store.revoke(made.id)
    body = error(act(client, key, "POST", "players/ada/ban"), 401, "revoked-key")
    assert f"id {made.id}" in body["message"]
    store.close()


def test_an_admin_key_still_may_not_submit(client: TestClient, keys: dict[str, str]) -> None:
    error(submit(client, keys["admin"], "ada", log(HARD)), 403, "wrong-role")


# --- bans --------------------------------------------------------------------------------------


def test_a_ban_takes_a_player_off_every_board_and_refuses_their_submissions(
    client: TestClient, keys: dict[str, str], entries: dict[str, int]
) -> None:
    done = ok(act(client, keys["admin"], "POST", "players/ada/ban", {"reason": "bot"}))
    assert done["format"] == "cruel-moderation/1"
    assert (done["action"], done["changed"], done["player"], done["banned"]) == (
        "ban",
        True,
        "ada",
        True,
    )
    assert (done["submission_id"], done["hidden"], done["deleted"], done["listed"]) == (
        None,
        None,
        False,
        0,
    )
    # Gone from both boards; the ranks are counted over the entries left.
    assert board(client) == [(1, "bob"), (2, "cy")]
    assert board(client, best_per_player=True) == [(1, "bob"), (2, "cy")]
    assert board(client, offset=1, limit=1) == [(2, "cy")]
    assert board(client, MEDIUM) == [(1, "bob")]
    # A new submission is refused before it is verified: a game that is no win, too.
    for doc in [log(HARD, 2), {**log(HARD), "moves": log(HARD)["moves"][:3]}]:
        body = error(submit(client, keys["site"], "ada", doc), 403, "player-banned")
        assert body["message"] == "player 'ada' is banned from the leaderboards"
        assert (body["location"], body["path"]) == ("body", "/player")
    # Another spelling of the name (full width, enforced to "ada") is the same player.
    error(submit(client, keys["site"], "\uff41da", log(HARD, 2)), 403, "player-banned")
    # A new entry's rank agrees with the board of visible entries.
    dan = submit(client, keys["site"], "dan", log(HARD, 1))  # bob's score
    assert dan.status_code == 201 and dan.json()["rank"] == 1
    assert board(client) == [(1, "bob"), (1, "dan"), (3, "cy")]
    # Banned again: recorded, nothing changes.
    again = ok(act(client, keys["admin"], "POST", "players/ada/ban"))
    assert (again["changed"], again["banned"]) == (False, True)

    lifted = ok(act(client, keys["other"], "POST", "players/ada/unban"))
    assert (lifted["changed"], lifted["banned"], lifted["listed"]) == (True, False, 2)
    assert board(client) == [(1, "ada"), (2, "bob"), (2, "dan"), (4, "cy")]
    assert board(client, MEDIUM) == [(1, "ada"), (1, "bob")]
    assert submit(client, keys["site"], "ada", log(HARD, 2)).status_code == 201
    again = ok(act(client, keys["admin"], "POST", "players/ada/unban"))
    assert (again["changed"], again["banned"]) == (False, False)


def test_a_player_may_be_banned_before_any_entry(client: TestClient, keys: dict[str, str]) -> None:
    done = ok(act(client, keys["admin"], "POST", "players/Eve%20Smith/ban"))
    assert (done["player"], done["listed"]) == ("Eve Smith", 0)
    error(submit(client, keys["site"], "Eve Smith", log(HARD)), 403, "player-banned")
    assert submit(client, keys["site"], "eve smith", log(HARD)).status_code == 201


def test_a_name_that_is_no_name_is_422(client: TestClient, keys: dict[str, str]) -> None:
    for name in ["ada%E2%80%8B", "a%20%20b", "x" * 65]:
        body = error(
            act(client, keys["admin"], "POST", f"players/{name}/ban"), 422, "bad-player-name"
        )
        assert (body["location"], body["path"]) == ("path", "name")


# --- hide, unhide, delete ----------------------------------------------------------------------


def test_hide_and_unhide(client: TestClient, keys: dict[str, str], entries: dict[str, int]) -> None:
    ada = entries["ada"]
    done = ok(act(client, keys["admin"], "POST", f"submissions/{ada}/hide", {"reason": "odd"}))
    assert (done["action"], done["changed"], done["submission_id"], done["player"]) == (
        "hide",
        True,
        ada,
        "ada",
    )
    assert (done["hidden"], done["banned"], done["deleted"], done["listed"]) == (
        True,
        False,
        False,
        0,
    )
    assert board(client) == [(1, "bob"), (2, "cy")]
    assert board(client, MEDIUM) == [(1, "ada"), (1, "bob")]  # only that entry is hidden
    # The same game again is the hidden entry: a duplicate, not on the board, so no rank.
    again = submit(client, keys["site"], "ada", log(HARD))
    assert again.status_code == 200
    assert (again.json()["duplicate"], again.json()["rank"]) == (True, None)
    # Another game of ada's is a new entry, ranked among the visible ones.
    other = submit(client, keys["site"], "ada", log(HARD, 2))
    assert other.status_code == 201 and other.json()["rank"] == 2
    assert board(client) == [(1, "bob"), (2, "ada"), (3, "cy")]
    assert ok(act(client, keys["admin"], "POST", f"submissions/{ada}/hide"))["changed"] is False

    shown = ok(act(client, keys["admin"], "POST", f"submissions/{ada}/unhide"))
    assert (shown["changed"], shown["hidden"], shown["listed"]) == (True, False, 1)
    assert board(client) == [(1, "ada"), (2, "bob"), (3, "ada"), (4, "cy")]
    assert board(client, best_per_player=True) == [(1, "ada"), (2, "bob"), (3, "cy")]
    assert ok(act(client, keys["admin"], "POST", f"submissions/{ada}/unhide"))["changed"] is False


def test_a_hidden_entry_of_a_banned_player_stays_hidden_on_unban(
    client: TestClient, keys: dict[str, str], entries: dict[str, int]
) -> None:
    ok(act(client, keys["admin"], "POST", f"submissions/{entries['ada']}/hide"))
    assert ok(act(client, keys["admin"], "POST", "players/ada/ban"))["listed"] == 0
    assert ok(act(client, keys["admin"], "POST", "players/ada/unban"))["listed"] == 1
    assert board(client) == [(1, "bob"), (2, "cy")]
    assert board(client, MEDIUM) == [(1, "ada"), (1, "bob")]
    # Unhidden while banned: still off the boards, until the ban is lifted.
    ok(act(client, keys["admin"], "POST", "players/ada/ban"))
    done = ok(act(client, keys["admin"], "POST", f"submissions/{entries['ada']}/unhide"))
    assert (done["hidden"], done["banned"], done["listed"]) == (False, True, 0)
    assert board(client) == [(1, "bob"), (2, "cy")]


def test_delete(client: TestClient, keys: dict[str, str], entries: dict[str, int]) -> None:
    ada = entries["ada"]
    ok(act(client, keys["admin"], "POST", f"submissions/{ada}/hide"))
    done = ok(act(client, keys["admin"], "DELETE", f"submissions/{ada}", {"reason": "cheat"}))
    assert (done["action"], done["changed"], done["deleted"], done["hidden"], done["listed"]) == (
        "delete",
        True,
        True,
        False,
        0,
    )
    # What was deleted, all of it, is in the audit entry.
    record = done["audit"]["submission"]
    assert record["submission_id"] == ada and record["player"] == "ada"
    par = published_puzzles().get(HARD).par
    assert (record["puzzle"], record["moves"], record["redeals"]) == (HARD, par.moves, par.redeals)
    assert record["log"].split()[0] and len(record["game"]) == 64
    assert board(client) == [(1, "bob"), (2, "cy")]
    for method, path in [("DELETE", f"submissions/{ada}"), ("POST", f"submissions/{ada}/hide")]:
        body = error(act(client, keys["admin"], method, path), 404, "no-such-submission")
        assert (body["location"], body["path"]) == ("path", "id")
    for bad in ["999", "x", "-1", "1.0", "٣"]:
        error(
            act(client, keys["admin"], "POST", f"submissions/{bad}/hide"), 404, "no-such-submission"
        )
    assert client.get("/v1/health").json()["submissions"] == 4
    # A deleted game is gone: the same game sent again is a new entry (hide keeps one off).
    again = submit(client, keys["site"], "ada", log(HARD))
    assert again.status_code == 201 and again.json()["rank"] == 1


# --- the audit log -----------------------------------------------------------------------------


def test_the_audit_log_records_who_what_and_when(
    client: TestClient, keys: dict[str, str], entries: dict[str, int], db: Path
) -> None:
    admin, other = keys["admin"], keys["other"]
    ok(act(client, admin, "POST", f"submissions/{entries['cy']}/hide", {"reason": "too fast"}))
    ok(act(client, other, "POST", "players/bob/ban", {}))
    ok(act(client, admin, "DELETE", f"submissions/{entries['ada']}", {"reason": None}))
    ok(act(client, other, "POST", "players/bob/unban", b""))
    log_doc = ok(act(client, admin, "GET", "audit"))
    assert (log_doc["format"], log_doc["total"], log_doc["offset"]) == ("cruel-audit/1", 4, 0)
    rows = [
        (e["action"], e["key_id"], e["key_name"], e["submission_id"], e["player"], e["reason"])
        for e in log_doc["entries"]
    ]
    assert rows == [  # newest first
        ("unban", 3, "ops (bob)", None, "bob", None),
        ("delete", 2, "ops (ada)", entries["ada"], "ada", None),
        ("ban", 3, "ops (bob)", None, "bob", None),
        ("hide", 2, "ops (ada)", entries["cy"], "cy", "too fast"),
    ]
    assert [e["id"] for e in log_doc["entries"]] == [4, 3, 2, 1]
    assert {e["at"] for e in log_doc["entries"]} == {"2027-01-05T09:30:00Z"}
    assert log_doc["entries"][3]["submission"]["moves"] == 77
    assert log_doc["entries"][0]["submission"] is None
    page = ok(client.get("/v1/admin/audit?limit=2&offset=1", headers=auth(admin)))
    assert [e["id"] for e in page["entries"]] == [3, 2] and page["total"] == 4
    error(client.get("/v1/admin/audit?limit=1001", headers=auth(admin)), 422, "bad-parameter")
    # The same, read by the library from the file.
    store = Moderation(db)
    assert store.audit(limit=1).entries[0].action == "unban"
    store.close()


@pytest.mark.parametrize(
    ("body", "status", "code", "path"),
    [
        (b"{", 400, "not-json", "/"),
        (b"[]", 422, "schema", "/"),
        (b'{"why": "x"}', 422, "schema", "/why"),
        (b'{"reason": 3}', 422, "schema", "/reason"),
        (orjson.dumps({"reason": "x" * 1001}), 422, "schema", "/reason"),
        (b"x" * 20_000, 413, "too-large", "/"),
    ],
)
def test_a_bad_body_is_refused_and_nothing_is_done(
    client: TestClient,
    keys: dict[str, str],
    entries: dict[str, int],
    body: bytes,
    status: int,
    code: str,
    path: str,
) -> None:
    answer = error(act(client, keys["admin"], "POST", "players/ada/ban", body), status, code)
    assert (answer["location"], answer["path"]) == ("body", path)
    assert board(client)[0] == (1, "ada")
    assert ok(act(client, keys["admin"], "GET", "audit"))["total"] == 0


# --- the library -------------------------------------------------------------------------------


def test_ranks_of_the_store_count_only_listed_entries(db: Path) -> None:
    boards, store = Leaderboards(db), Moderation(db)
    puzzle = published_puzzles().get(HARD)
    key = KeyStore(db).add("ops", "admin")[0]

    def send(player: str, seed: int | None) -> Any:
        body = orjson.dumps({"player": player, "log": log(HARD, seed)})
        return boards.submit(puzzle, parse_submission(body), today=TODAY)

    ada, bob = send("ada", None), send("bob", 1)  # 76 actions, 79
    assert (ada.rank, bob.rank) == (1, 2)
    assert ada.submission_id is not None
    store.hide(ada.submission_id, key, "test")
    assert send("cy", 1).rank == 1
    assert [(e.rank, e.player) for e in boards.leaderboard(HARD).entries] == [(1, "bob"), (1, "cy")]
    store.ban("bob", key)
    assert store.is_banned("bob") and not store.is_banned("ada")
    assert [(e.rank, e.player) for e in boards.leaderboard(HARD).entries] == [(1, "cy")]
    assert boards.leaderboard(HARD).total == 1
    assert send("bob", 0).rank is None  # the library stores it; it is listed nowhere
    store.close()
    boards.close()


def tallies(boards: Leaderboards) -> tuple[list[Any], list[Any]]:
    with boards.database.read() as db:
        counts = db.execute(
            "SELECT puzzle, actions, redeals, entries, timed, bests, fastest FROM score_counts"
            " WHERE entries + timed + bests + fastest > 0 ORDER BY puzzle, actions, redeals"
        ).fetchall()
        best = db.execute("SELECT * FROM player_best ORDER BY puzzle, player").fetchall()
    return [tuple(r) for r in counts], [tuple(r) for r in best]


def test_every_act_keeps_the_tallies_as_a_rebuild_makes_them(db: Path) -> None:
    from cruel_tools.site.tables import rebuild_tallies

    boards, store = Leaderboards(db), Moderation(db)
    key = KeyStore(db).add("ops", "admin")[0]
    ids = {}
    for puzzle_id, player, seed in [
        (HARD, "ada", None),
        (HARD, "ada", 1),
        (HARD, "bob", 1),
        (HARD, "bob", 2),
        (MEDIUM, "bob", None),
        (HARD, "cy", 0),
    ]:
        body = orjson.dumps({"player": player, "log": log(puzzle_id, seed)})
        puzzle = published_puzzles().get(puzzle_id)
        result = boards.submit(puzzle, parse_submission(body), today=TODAY)
        ids[player, puzzle_id, seed] = result.submission_id

    def check() -> None:
        kept = tallies(boards)
        with boards.database.write() as db:
            rebuild_tallies(db)
        assert tallies(boards) == kept

    check()
    store.hide(ids["ada", HARD, None], key)  # ada's best goes: her other entry is her best
    check()
    store.ban("bob", key)  # on both puzzles
    check()
    store.delete(ids["ada", HARD, 1], key)  # ada has no listed entry left
    check()
    store.unban("bob", key)
    store.unhide(ids["ada", HARD, None], key)
    check()
    board = boards.leaderboard(HARD, best_per_player=True)
    assert [(e.player, e.rank) for e in board.entries] == [("ada", 1), ("bob", 2), ("cy", 3)]
    assert board.total == 3 and boards.leaderboard(HARD).total == 4
    store.close()
    boards.close()


def test_the_openapi_document_has_the_admin_routes(client: TestClient) -> None:
    paths = client.get("/v1/openapi.json").json()["paths"]
    assert {p for p in paths if p.startswith("/v1/admin/")} == {
        "/v1/admin/submissions/{id}/hide",
        "/v1/admin/submissions/{id}/unhide",
        "/v1/admin/submissions/{id}",
        "/v1/admin/players/{name}/ban",
        "/v1/admin/players/{name}/unban",
        "/v1/admin/audit",
        "/v1/admin/queue",  # the review queue (tests/test_live_attempts.py)
        "/v1/admin/queue/{id}/clear",
        "/v1/admin/queue/{id}/reject",
        "/v1/admin/players/{name}/tokens",  # a lost token (tests/test_player_tokens.py)
    }
    assert set(paths["/v1/admin/submissions/{id}"]) == {"delete"}
    for path, methods in paths.items():
        for method, op in methods.items():
            if path.startswith("/v1/admin/"):
                assert op["security"] == [{"apiKey": []}]
                assert {"200", "401", "403"} <= set(op["responses"]), (method, path)


def test_a_player_record_counts_only_listed_entries(
    client: TestClient, keys: dict[str, str], entries: dict[str, int]
) -> None:
    def played() -> int:
        return int(ok(client.get("/v1/players/ada"))["played"])

    before = played()
    assert before == 2
    ok(act(client, keys["admin"], "POST", f"submissions/{entries['ada']}/hide"))
    assert played() == 1
    ok(act(client, keys["admin"], "POST", "players/ada/ban"))
    assert played() == 0
    ok(act(client, keys["admin"], "POST", "players/ada/unban"))
    ok(act(client, keys["admin"], "POST", f"submissions/{entries['ada']}/unhide"))
    assert played() == before
