"""The HTTP service through FastAPI's test client: every endpoint and every error status."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cruel_tools import service
from cruel_tools.cli.app import app
from cruel_tools.dates import BadDate, parse_date
from cruel_tools.game.game import REDEAL, Move
from cruel_tools.game.verify import report_json, verify_bytes
from cruel_tools.puzzles import PuzzleSetError, puzzle_bytes
from cruel_tools.site.database import StoreError
from cruel_tools.site.keys import RateLimit
from cruel_tools.site.leaderboard import Leaderboards

from .helpers import other_win, published_puzzles, puzzle_log
from .stores import store_target

__all__ = ["store_target"]  # the fixture: both engines

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
OPEN_ID = "2027-01-05-hard"  # today's: open, solution not public
PAST_ID = "2027-01-04-hard"  # yesterday's: closed, solution public


def open_settings(db: Path) -> service.Settings:
    """A server that takes keyless submissions, without rate limits (tests/test_keys.py tests
    keys and limits)."""
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        open=True,
        key_limit=None,
        player_limit=None,
        review_untimed_par=False,  # par logs rank here (tests/test_live_attempts.py: queued)
        # Keyless logs rank here, as among friends: these tests are of ranking itself
        # (tests/test_hostile_ranking.py: by default they are stored unranked).
        rank_untimed=True,
    )


@pytest.fixture
def settings(store_target: Path | str) -> service.Settings:
    """An open server on a fresh store of either engine (tests.stores)."""
    return open_settings(store_target)  # type: ignore[arg-type]


@pytest.fixture
def client(settings: service.Settings) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings)) as c:
        yield c


def error(response: Any, status: int, code: str) -> dict[str, Any]:
    """Check a ``cruel-error/1`` answer; return it."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body: dict[str, Any] = response.json()
    assert body["format"] == "cruel-error/1"
    assert (body["status"], body["code"]) == (status, code)
    assert "Traceback" not in response.text and "\n" not in body["message"]
    return body


def submit(client: TestClient, puzzle_id: str, player: str, log: Any) -> Any:
    return client.post(
        f"/v1/puzzles/{puzzle_id}/submissions", content=orjson.dumps({"player": player, "log": log})
    )


def win(puzzle_id: str = OPEN_ID, compact: bool = False) -> dict[str, Any]:
    return puzzle_log(published_puzzles().get(puzzle_id), compact=compact)


# --- health, docs ----------------------------------------------------------------------------


def test_health(client: TestClient) -> None:
    body = client.get("/v1/health").json()
    assert body["format"] == "cruel-health/1" and body["status"] == "ok"
    assert (body["puzzles"], body["submissions"], body["today"]) == (360, 0, "2027-01-05")
    submit(client, OPEN_ID, "ada", win())
    assert client.get("/v1/health").json()["submissions"] == 1


def all_refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from all_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from all_refs(item)


def test_openapi_document_is_complete_and_its_refs_resolve(client: TestClient) -> None:
    doc = client.get("/v1/openapi.json").json()
    paths = doc["paths"]
    assert {p for p in paths if not p.startswith("/v1/admin/")} == {  # admin: test_moderation
        "/v1/health",
        "/v1/verify",
        "/v1/puzzles/daily/{date}",
        "/v1/puzzles/past",
        "/v1/puzzles/{id}",
        "/v1/puzzles/{id}/solution",
        "/v1/puzzles/{id}/submissions",
        "/v1/puzzles/{id}/leaderboard",
        "/v1/players/{name}",
        "/v1/puzzles/{id}/attempts",
        # live attempts (tests/test_live_attempts.py)
        "/v1/attempts/{attempt}",
        "/v1/attempts/{attempt}/steps",
        "/v1/attempts/{attempt}/give-up",
        # players' tokens (tests/test_player_tokens.py)
        "/v1/players",
        "/v1/players/{name}/link-codes",
        "/v1/players/{name}/tokens",
        "/v1/players/{name}/data",
        "/v1/replay",
        "/v1/analyze",
        "/v1/hint",  # tests/test_hints.py
        "/v1/puzzles/{id}/submissions/{submission_id}/log",
        "/v1/rules/presets",  # tests/test_rules_presets.py
    }
    schemas = doc["components"]["schemas"]
    for ref in set(all_refs(doc)):
        assert ref.startswith("#/components/schemas/") and ref.split("/")[-1] in schemas, ref
    assert not any("$id" in s for s in schemas.values())
    verify_body = paths["/v1/verify"]["post"]["requestBody"]["content"]["application/json"]
    assert verify_body["schema"]["$ref"].endswith("/GameLog-Input")
    submission = schemas["Submission-Input"]
    assert set(submission["required"]) == {"player", "log"}
    assert "422" in paths["/v1/puzzles/{id}/submissions"]["post"]["responses"]
    docs = client.get("/v1/docs")
    assert docs.status_code == 200 and "/static/swagger/swagger-ui-bundle.js" in docs.text


# --- verify ----------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", ["won", "blocked", "illegal"])
def test_verify_answers_what_cruel_verify_json_prints(client: TestClient, sample: str) -> None:
    data = (ROOT / "samples" / f"{sample}.json").read_bytes()
    response = client.post("/v1/verify", content=data)
    assert response.status_code == 200
    assert response.content == report_json(verify_bytes(data))
    assert response.json()["valid"] is (sample != "illegal")


def test_verify_errors(client: TestClient) -> None:
    body = error(client.post("/v1/verify", content=b'{"format":'), 400, "not-json")
    assert body["location"] == "body"
    log = orjson.loads((ROOT / "samples" / "won.json").read_bytes())
    log["moves"][4] = {"type": "move", "from": 14, "to": "foundation"}  # no rules have 14 piles
    body = error(client.post("/v1/verify", content=orjson.dumps(log)), 422, "schema")
    assert (body["location"], body["path"]) == ("body", "/moves/4/from")
    log["moves"] = ["R"] * 10_001
    error(client.post("/v1/verify", content=orjson.dumps(log)), 422, "too-many-moves")
    error(client.post("/v1/verify", content=b"[]"), 422, "schema")
    error(client.post("/v1/verify", content=b""), 400, "not-json")


# --- analyze (issue #16) ----------------------------------------------------------------------

#: Deal 3, lost at step 6 (docs/analysis.md's example).
LOST = {
    "format": "cruel-log/1",
    "rules": "cruel",
    "deal": {"number": 3},
    "moves": ["5-11", "5-7", "R", "3-11", "R", "9-7", "6-3", "R", "5-10", "R"],
}


def test_analyze_answers_what_cruel_analyze_json_prints(client: TestClient, tmp_path: Path) -> None:
    from cruel_tools.advice.analysis import Analysis

    r = client.post("/v1/analyze", content=orjson.dumps(LOST))
    assert r.status_code == 200, r.text
    doc = Analysis.model_validate_json(r.content)
    assert doc.loss is not None and doc.loss.losing_step is not None
    assert (doc.format, doc.loss.status, doc.loss.losing_step.number) == (
        "cruel-analysis/1",
        "lost-at-step",
        6,
    )
    assert doc.max_states == service.ANALYZE_MAX_STATES
    path = tmp_path / "lost.json"
    path.write_bytes(orjson.dumps(LOST))
    # the service keeps its own measured budget; the CLI's default is the engine's (issue #25)
    budget = str(service.ANALYZE_MAX_STATES)
    cli = CliRunner().invoke(app, ["analyze", str(path), "--json", "-q", "--max-states", budget])
    assert json.loads(cli.stdout) == r.json()


def test_analyze_a_win_and_a_smaller_budget(client: TestClient) -> None:
    won = (ROOT / "samples" / "won.json").read_bytes()
    r = client.post("/v1/analyze", params={"max_states": 200}, content=won)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["loss"] is None and body["max_states"] == 200
    assert (body["win"]["actions"], body["win"]["costly_steps"]) == (69, None)  # never --deep
    # One position per solve decides nothing: an interval, never a guess.
    lost = client.post("/v1/analyze", params={"max_states": 1}, content=orjson.dumps(LOST))
    assert lost.json()["loss"]["status"] == "undecided"


def test_analyze_the_budget_is_capped_and_solves_stop_when_it_is_spent(
    client: TestClient,
) -> None:
    body = error(
        client.post(
            "/v1/analyze",
            params={"max_states": service.ANALYZE_MAX_STATES + 1},
            content=orjson.dumps(LOST),
        ),
        422,
        "bad-parameter",
    )
    assert (body["location"], body["path"]) == ("query", "max_states")
    error(client.post("/v1/analyze", params={"max_states": 0}, content=b"{}"), 422, "bad-parameter")
    from cruel_tools.advice.analysis import analyze
    from cruel_tools.game import log as log_module

    # The total budget: solves get what is left of it, and none is made once it is spent.
    game_log = log_module.from_object(LOST)
    unbounded = analyze(game_log, max_states=1).loss
    spent = analyze(game_log, max_states=1, total_states=3).loss  # one solve spends 3 here
    assert unbounded is not None and unbounded.solves > 1 and unbounded.status == "undecided"
    assert spent is not None and spent.solves == 1 and spent.status == "undecided"


def test_analyze_errors_are_verifys(client: TestClient) -> None:
    error(client.post("/v1/analyze", content=b'{"format":'), 400, "not-json")
    error(client.post("/v1/analyze", content=b"[]"), 422, "schema")
    log = orjson.loads((ROOT / "samples" / "won.json").read_bytes())
    log["moves"] = ["R"] * 10_001
    error(client.post("/v1/analyze", content=orjson.dumps(log)), 422, "too-many-moves")
    # A log that is not a legal game: 422 with the verifier's own code, message and path.
    illegal = (ROOT / "samples" / "illegal.json").read_bytes()
    body = error(client.post("/v1/analyze", content=illegal), 422, "wrong-rank")
    assert (body["location"], body["path"]) == ("body", "/moves/10")
    assert body["message"] == "move 11: J♠ from pile 1 cannot go onto 8♠ on pile 5 (needs Q♠)"
    false_claim = {**LOST, "claim": {"outcome": "won"}}
    error(client.post("/v1/analyze", content=orjson.dumps(false_claim)), 422, "claim-mismatch")


def test_bodies_over_the_limit_get_413(settings: service.Settings) -> None:
    settings.max_body = 2048
    with TestClient(service.create_app(settings)) as client:
        big = b" " * 3000
        body = error(client.post("/v1/verify", content=big), 413, "too-large")
        assert "3000 bytes" in body["message"]  # told by Content-Length, before reading

        def chunks() -> Iterator[bytes]:  # no Content-Length: refused while reading
            for _ in range(100):
                yield b" " * 1000

        error(client.post("/v1/verify", content=chunks()), 413, "too-large")
        error(client.post("/v1/analyze", content=big), 413, "too-large")
        error(client.post(f"/v1/puzzles/{OPEN_ID}/submissions", content=big), 413, "too-large")
        small = b'{"format": "cruel-log/1", "deal": {"number": 1}, "meta": {"pad": "' + b"x" * 1900
        small += b'"}}'
        assert len(small) < 2048 and client.post("/v1/verify", content=small).status_code == 200


def test_a_bad_content_length_is_400(client: TestClient) -> None:
    response = client.post("/v1/verify", content=b"{}", headers={"content-length": "x2"})
    error(response, 400, "bad-request")


# --- puzzles ---------------------------------------------------------------------------------


def no_solution_inside(node: Any) -> None:
    assert "solution" not in orjson.dumps(node).decode()


def test_daily_puzzles(client: TestClient) -> None:
    body = client.get("/v1/puzzles/daily/2027-01-05").json()
    assert body["format"] == "cruel-daily/1" and body["date"] == "2027-01-05"
    assert [p["tier"] for p in body["puzzles"]] == ["easy", "medium", "hard", "expert"]
    for p in body["puzzles"]:
        assert p["format"] == "cruel-puzzle-public/1" and p["solution_from"] == "2027-01-06"
        assert set(p) >= {"id", "deal", "par", "metrics", "rules"}
    no_solution_inside(
        [{k: v for k, v in p.items() if k != "solution_from"} for p in body["puzzles"]]
    )
    one = client.get("/v1/puzzles/daily/2027-01-05", params={"tier": "hard"}).json()
    assert [p["id"] for p in one["puzzles"]] == [OPEN_ID]
    assert client.get("/v1/puzzles/daily/today").json() == body


def test_daily_errors(client: TestClient) -> None:
    body = error(client.get("/v1/puzzles/daily/2026-01-05"), 404, "no-puzzles")
    assert "2026-01-05" in body["message"]
    for bad in ("2027-13-01", "yesterday", "2027-1-5", "2027-W01-1", "20270105", "x" * 500):
        body = error(client.get(f"/v1/puzzles/daily/{bad}"), 422, "bad-date")
        assert (body["location"], body["path"]) == ("path", "date")
    body = error(client.get("/v1/puzzles/daily/2027-01-05?tier=insane"), 422, "bad-parameter")
    assert (body["location"], body["path"]) == ("query", "tier")


BAD_DATES = ["20270105", "2027-W01-1", "2027-1-5", "2027-02-30", "2027-01-05\n", "２０２７-01-05"]


@pytest.mark.parametrize("text", BAD_DATES)
def test_the_cli_and_the_service_refuse_a_date_with_the_same_words(
    client: TestClient, text: str
) -> None:
    """One parser (dates.parse_date): ``fromisoformat`` alone would take the first two."""
    with pytest.raises(BadDate) as refused:
        parse_date(text)
    words = str(refused.value)
    assert words.startswith("not a date: ") and "\n" not in words
    body = error(client.get(f"/v1/puzzles/daily/{quote(text)}"), 422, "bad-date")
    assert body["message"] == words
    for command in (["stats", "--today", text, "x.json"], ["daily", "--start", text]):
        result = CliRunner().invoke(app, command)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == f"error: {command[1]}: {words}\n"


def test_the_cli_and_the_service_take_a_date(client: TestClient) -> None:
    assert parse_date("2027-01-05") == TODAY
    assert client.get("/v1/puzzles/daily/2027-01-05").json()["date"] == "2027-01-05"
    won = str(ROOT / "tests" / "data" / "won-deal-34.json")
    result = CliRunner().invoke(app, ["stats", "--json", "--today", "2027-01-05", won])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["reference_day"] == "2027-01-05"


def test_one_puzzle_without_its_solution(client: TestClient) -> None:
    body = client.get(f"/v1/puzzles/{OPEN_ID}").json()
    stored = published_puzzles().get(OPEN_ID)
    assert body["id"] == OPEN_ID and body["deal"]["piles"] == stored.deal.piles
    assert body["par"] == stored.par.model_dump() and "solution" not in body


@pytest.mark.parametrize(
    "puzzle_id", ["nope", "..%2Fpyproject.toml", "2027%2F2027-01-05-hard", "index", "..", "%00"]
)
def test_unknown_puzzles_are_404_and_no_file_is_read(client: TestClient, puzzle_id: str) -> None:
    for suffix in ("", "/solution", "/leaderboard"):
        response = client.get(f"/v1/puzzles/{puzzle_id}{suffix}")
        assert response.status_code == 404, (puzzle_id, suffix, response.text)
        assert response.json()["format"] == "cruel-error/1"


def test_an_absurd_puzzle_id_is_422(client: TestClient) -> None:
    body = error(client.get(f"/v1/puzzles/{'x' * 300}"), 422, "bad-parameter")
    assert (body["location"], body["path"]) == ("path", "id")


def test_solution_only_after_the_puzzles_day(client: TestClient) -> None:
    body = error(client.get(f"/v1/puzzles/{OPEN_ID}/solution"), 403, "solution-not-public")
    assert "2027-01-06" in body["message"]
    body = client.get(f"/v1/puzzles/{PAST_ID}/solution").json()
    assert body["format"] == "cruel-solution/1" and body["puzzle"] == PAST_ID
    report = client.post("/v1/verify", content=orjson.dumps(body["log"])).json()
    assert report["outcome"] == "won" and report["moves"] == body["par"]["moves"]


def test_an_undated_puzzle_never_shows_its_solution(
    settings: service.Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "set"
    free = published_puzzles().get(PAST_ID).model_copy(update={"date": None, "id": "free-hard-1"})
    (folder / "2027").mkdir(parents=True)
    (folder / "2027" / "free-hard-1.json").write_bytes(puzzle_bytes(free))
    settings.puzzles = folder
    with TestClient(service.create_app(settings)) as client:
        assert client.get("/v1/puzzles/free-hard-1").json()["solution_from"] is None
        body = error(client.get("/v1/puzzles/free-hard-1/solution"), 403, "solution-not-public")
        assert body["message"] == "the solution of free-hard-1 is never published (no date)"


# --- submissions and leaderboards ----------------------------------------------------------------


def test_a_win_is_accepted_once(client: TestClient) -> None:
    first = submit(client, OPEN_ID, "ada", win())
    assert first.status_code == 201
    body = first.json()
    assert body["format"] == "cruel-submission-result/1"
    assert (body["accepted"], body["duplicate"], body["rank"]) == (True, False, 1)
    again = submit(client, OPEN_ID, "ada", win(compact=True))
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert again.json()["submission_id"] == body["submission_id"]
    board = client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard").json()
    assert board["format"] == "cruel-leaderboard/1" and board["total"] == 1
    assert board["entries"][0]["player"] == "ada"


def test_an_answer_compares_the_win_with_par(client: TestClient) -> None:
    par = published_puzzles().get(OPEN_ID).par
    played = par.moves + par.redeals  # the par solution, submitted
    body = submit(client, OPEN_ID, "ada", win()).json()
    assert (body["moves"], body["redeals"], body["actions"]) == (par.moves, par.redeals, played)
    assert (body["par_actions"], body["versus_par"]) == (par.actions, played - par.actions)
    proven = (par.optimal and played == par.actions) or played == par.lower_bound
    assert body["optimal"] is proven
    again = submit(client, OPEN_ID, "ada", win()).json()
    assert again["duplicate"] and again["versus_par"] == body["versus_par"]
    entry = client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard").json()["entries"][0]
    assert entry["actions"] == played
    closed = submit(client, PAST_ID, "ada", win(PAST_ID)).json()
    assert closed["reason"]["code"] == "puzzle-closed" and closed["actions"] is not None
    assert (closed["par_actions"], closed["versus_par"], closed["optimal"]) == (None, None, None)


def test_the_leaderboard_ranks_fewer_actions_above_fewer_moves(
    client: TestClient, settings: service.Settings
) -> None:
    store = Leaderboards(settings.db)
    with store.database.write() as db:  # scores no real game need have
        for k, (moves, redeals) in enumerate([(58, 6), (60, 2), (61, 1), (59, 3)]):
            db.execute(
                "INSERT INTO submissions (puzzle, player, game, moves, redeals, log, submitted_at)"
                " VALUES (?, ?, ?, ?, ?, '', '2027-01-05T00:00:00+00:00')",
                (OPEN_ID, f"p{k}", str(k), moves, redeals),
            )
    store.close()
    every = {"best_per_player": "false"}  # the rows bypass the tallies of players' bests
    entries = client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard", params=every).json()["entries"]
    got = [(e["player"], e["actions"], e["redeals"], e["rank"]) for e in entries]
    assert got == [("p2", 62, 1, 1), ("p1", 62, 2, 2), ("p3", 62, 3, 3), ("p0", 64, 6, 4)]


def test_rejected_submissions_say_why(client: TestClient) -> None:
    illegal = win()
    illegal["moves"].insert(2, "5-5")
    cases = [
        (OPEN_ID, illegal, "same-pile", "/log/moves/2"),
        (OPEN_ID, {**win(), "moves": win()["moves"][:5]}, "not-a-win", "/log/moves"),
        (OPEN_ID, win(PAST_ID), "puzzle-mismatch", "/log/deal"),
        (PAST_ID, win(PAST_ID), "puzzle-closed", "/"),
    ]
    for puzzle_id, log, code, path in cases:
        response = submit(client, puzzle_id, "ada", log)
        assert response.status_code == 200
        body = response.json()
        assert body["accepted"] is False and body["submission_id"] is None
        assert (body["reason"]["code"], body["reason"]["path"]) == (code, path)
        assert body["report"]["format"] == "cruel-verify-report/1"
    assert client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard").json()["total"] == 0


def test_submission_errors(client: TestClient) -> None:
    url = f"/v1/puzzles/{OPEN_ID}/submissions"
    error(client.post(url, content=b"{'player': 1}"), 400, "not-json")
    body = error(client.post(url, content=b'{"player": "", "log": {}}'), 422, "bad-player-name")
    assert (body["location"], body["path"]) == ("body", "/player")
    bad = win()
    bad["moves"][3] = {"type": "move", "from": 1, "to": "foundation", "card": "1H"}
    body = error(submit(client, OPEN_ID, "ada", bad), 422, "schema")
    assert body["path"] == "/log/moves/3/card"
    body = error(
        client.post("/v1/puzzles/nope/submissions", content=b"junk"), 404, "puzzle-not-open"
    )
    assert (body["location"], body["path"]) == ("path", "id")


@pytest.mark.parametrize(
    ("name", "names"),
    [
        ("ada\U0001d173", "U+1D173 MUSICAL SYMBOL BEGIN BEAM"),
        ("ada\u3164", "U+3164 HANGUL FILLER"),
        ("ada\u034f", "U+034F COMBINING GRAPHEME JOINER"),
        ("ada\u200b", "U+200B ZERO WIDTH SPACE"),
        ("ada\u200d", "U+200D ZERO WIDTH JOINER"),
    ],
)
def test_a_bad_player_name_is_422_naming_the_rule(
    client: TestClient, name: str, names: str
) -> None:
    body = error(submit(client, OPEN_ID, name, win()), 422, "bad-player-name")
    assert (body["location"], body["path"]) == ("body", "/player")
    assert f"{names} is disallowed by PRECIS UsernameCasePreserved (RFC 8265)" in body["message"]


def test_a_lookalike_of_an_existing_player_is_refused(client: TestClient) -> None:
    assert submit(client, OPEN_ID, "ada", win()).status_code == 201
    fake = submit(client, OPEN_ID, "\u0430da", win())  # a Cyrillic а
    assert fake.status_code == 200
    body = fake.json()
    assert body["accepted"] is False and body["submission_id"] is None
    assert body["reason"] == {
        "index": None,
        "path": "/player",
        "code": "player-name-confusable",
        "message": "player name '\u0430da' (Cyrillic \u0430) looks like existing player 'ada'",
    }
    assert submit(client, OPEN_ID, "ada", win(compact=True)).json()["duplicate"] is True
    assert submit(client, OPEN_ID, "ada lovelace", win()).status_code == 201
    board = client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard").json()
    assert [e["player"] for e in board["entries"]] == ["ada", "ada lovelace"]


def test_leaderboard_ranks_pages_and_keeps_each_players_best(client: TestClient) -> None:
    for player in ("ada", "bob", "cy"):
        assert submit(client, OPEN_ID, player, win()).status_code == 201
    url = f"/v1/puzzles/{OPEN_ID}/leaderboard"
    board = client.get(url).json()
    assert [e["player"] for e in board["entries"]] == ["ada", "bob", "cy"]  # a tie: earliest first
    assert [e["rank"] for e in board["entries"]] == [1, 1, 1]  # ... and one shared rank
    page = client.get(url, params={"limit": 1, "offset": 1}).json()
    assert (page["total"], page["offset"], [e["player"] for e in page["entries"]]) == (
        3,
        1,
        ["bob"],
    )
    assert page["entries"][0]["rank"] == 1  # a page starting inside the tie shows its rank
    best = client.get(url, params={"best_per_player": "true"}).json()
    assert best["best_per_player"] is True and best["total"] == 3


def test_equal_scores_share_a_rank_and_a_worse_one_comes_after_them(client: TestClient) -> None:
    puzzle = published_puzzles().get(OPEN_ID)
    par = (puzzle.par.moves + puzzle.par.redeals, puzzle.par.redeals)  # (actions, redeals)
    worse = None
    for seed in range(1, 60):
        steps = other_win(puzzle, seed)
        redeals = sum(s == REDEAL for s in steps)
        if (sum(isinstance(s, Move) for s in steps) + redeals, redeals) > par:
            worse = puzzle_log(puzzle, steps)
            break
    assert worse is not None
    assert submit(client, OPEN_ID, "ada", win()).json()["rank"] == 1
    assert submit(client, OPEN_ID, "zed", worse).json()["rank"] == 2
    assert submit(client, OPEN_ID, "bob", win()).json()["rank"] == 1  # later, the same score
    url = f"/v1/puzzles/{OPEN_ID}/leaderboard"
    ranks = [(e["player"], e["rank"]) for e in client.get(url).json()["entries"]]
    assert ranks == [("ada", 1), ("bob", 1), ("zed", 3)]
    best = client.get(url, params={"best_per_player": "true", "offset": 1}).json()
    assert [(e["player"], e["rank"]) for e in best["entries"]] == [("bob", 1), ("zed", 3)]
    assert submit(client, OPEN_ID, "zed", worse).json()["rank"] == 3  # a duplicate: its rank now


def test_leaderboard_errors(client: TestClient) -> None:
    url = f"/v1/puzzles/{OPEN_ID}/leaderboard"
    for params in ({"limit": 1001}, {"limit": -1}, {"offset": -1}, {"limit": "ten"}):
        body = error(client.get(url, params=params), 422, "bad-parameter")
        assert body["location"] == "query" and body["path"] == next(iter(params))
    error(client.get("/v1/puzzles/nope/leaderboard"), 404, "puzzle-not-open")


# --- anything else ---------------------------------------------------------------------------


def test_unknown_routes_and_methods(client: TestClient) -> None:
    error(client.get("/v1/nothing"), 404, "not-found")
    # A page path that names no page gets the HTML 404 page (tests/test_pages.py), the API JSON.
    for page in ("/nothing", "/play"):  # /play/{id} is a page; /play is not
        got = client.get(page)
        assert got.status_code == 404 and got.headers["content-type"].startswith("text/html")
    response = client.delete("/v1/health")
    error(response, 405, "method-not-allowed")
    assert response.headers["allow"] == "GET"
    error(client.get("/v1/verify"), 405, "method-not-allowed")
    error(client.get("/v1/health/"), 404, "not-found")  # not a redirect, which has no JSON
    error(client.get("/v1/puzzles/daily/"), 404, "not-found")


def test_a_bug_of_ours_is_a_500_without_a_traceback(
    settings: service.Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("/secret/path leaked")

    monkeypatch.setattr(service.log_tools, "verify", broken)  # the verify route's module
    with TestClient(service.create_app(settings), raise_server_exceptions=False) as client:
        data = (ROOT / "samples" / "won.json").read_bytes()
        body = error(client.post("/v1/verify", content=data), 500, "internal-error")
        assert "secret" not in body["message"] and "RuntimeError" in body["message"]


# --- start-up --------------------------------------------------------------------------------


def test_start_up_refuses_what_it_cannot_serve(settings: service.Settings, tmp_path: Path) -> None:
    settings.puzzles = tmp_path / "missing"
    with pytest.raises(PuzzleSetError, match="not a folder"):
        service.create_app(settings)
    folder = tmp_path / "set"
    (folder / "2027").mkdir(parents=True)
    shutil.copy(ROOT / "puzzles" / "2027" / f"{OPEN_ID}.json", folder / "2027")
    shutil.copy(ROOT / "puzzles" / "2027" / f"{OPEN_ID}.json", folder / "2027" / "copy.json")
    settings.puzzles = folder
    with pytest.raises(PuzzleSetError, match="two puzzles have the id"):
        service.create_app(settings)
    (folder / "2027" / "copy.json").write_text("{}")
    with pytest.raises(PuzzleSetError, match=r"copy\.json: not a cruel-puzzle/1 file"):
        service.create_app(settings)
    (folder / "2027" / "copy.json").unlink()
    outside = tmp_path / "outside.json"
    shutil.copy(ROOT / "puzzles" / "2027" / f"{PAST_ID}.json", outside)
    (folder / "2027" / "link.json").symlink_to(outside)
    with pytest.raises(PuzzleSetError, match="leads outside"):
        service.create_app(settings)
    (folder / "2027" / "link.json").unlink()
    settings.db = tmp_path / "set"  # a folder is no database
    with pytest.raises(StoreError):
        service.create_app(settings)


# --- hostile bodies --------------------------------------------------------------------------


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def near_log(base: dict[str, Any]) -> Any:
    """Logs and submissions with one part replaced by anything JSON can hold."""
    keys = st.sampled_from(["format", "rules", "deal", "moves", "claim", "meta", "extra"])
    return st.builds(lambda k, v: {**base, k: v}, keys, json_values)


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("fuzz") / "db.sqlite"
    app = service.create_app(open_settings(db))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


@hyp_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.one_of(
        st.binary(max_size=64),
        json_values.map(orjson.dumps),
        near_log(win()).map(orjson.dumps),
        near_log(win()).map(lambda log: orjson.dumps({"player": "ada", "log": log})),
    )
)
def test_no_body_gets_a_500(fuzz_client: TestClient, body: bytes) -> None:
    for url in ("/v1/verify", f"/v1/puzzles/{OPEN_ID}/submissions"):
        response = fuzz_client.post(url, content=body)
        assert response.status_code in (200, 201, 400, 422), (url, body, response.text)
        assert response.json()["format"].startswith("cruel-")


def test_big_numbers_stay_exact_and_read_as_cruel_verify_reads_them(client: TestClient) -> None:
    url = f"/v1/puzzles/{OPEN_ID}/submissions"
    log = {**win(), "meta": {"seed": 2**80}}  # json, not orjson: it writes integers of any size
    assert client.post(url, content=json.dumps({"player": "ada", "log": log})).status_code == 201
    log["deal"] = {"number": 2**70}
    body = error(client.post(url, content=json.dumps({"player": "bob", "log": log})), 422, "schema")
    direct = verify_bytes(json.dumps(log).encode())
    assert direct.error is not None
    assert (body["path"], body["message"]) == ("/log" + direct.error.path, direct.error.message)


def test_deep_nesting_is_refused_cleanly(client: TestClient) -> None:
    deep = b'{"player": "a", "log": {"meta": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    for url in ("/v1/verify", f"/v1/puzzles/{OPEN_ID}/submissions"):
        response = client.post(url, content=deep)
        assert response.status_code in (400, 422) and response.json()["format"] == "cruel-error/1"


def test_a_locked_database_is_503_and_the_server_answers_meanwhile(
    settings: service.Settings,
) -> None:
    settings.db_timeout = 3.0
    if isinstance(settings.db, Path):
        other: Any = sqlite3.connect(settings.db, check_same_thread=False)

        def hold() -> None:
            other.execute("BEGIN EXCLUSIVE")  # another process holds the write lock

    else:  # another instance holds the locks of ada's and bob's entries
        import psycopg

        from cruel_tools.site.names import skeleton

        other = psycopg.connect(settings.db)

        def hold() -> None:
            for name in ("ada", "bob"):
                lock = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"
                other.execute(lock, (skeleton(name),))

    with TestClient(service.create_app(settings)) as client:
        hold()
        waiting: list[Any] = []
        submitter = threading.Thread(
            target=lambda: waiting.append(submit(client, OPEN_ID, "ada", win()))
        )
        submitter.start()
        time.sleep(0.3)  # the submission is now waiting for the lock ...
        assert client.get("/v1/health").status_code == 200  # ... but not blocking the others
        assert submitter.is_alive(), waiting[0].text
        other.rollback()  # the lock goes: the waiting submission goes through
        submitter.join()
        assert waiting[0].status_code == 201
        hold()  # and this time it is held past the timeout
        try:
            response = submit(client, OPEN_ID, "bob", win())
        finally:
            other.rollback()
        body = error(response, 503, "busy")
        assert body["message"].startswith("the leaderboard database is busy")
        assert submit(client, OPEN_ID, "bob", win()).status_code == 201
    other.close()


def test_settings_reach_worker_processes_intact(tmp_path: Path) -> None:
    sent = service.Settings(
        puzzles=tmp_path / "set",
        db=tmp_path / "db.sqlite",
        max_body=4096,
        max_moves=77,
        db_timeout=1.5,
        fixed_today=dt.date(2027, 2, 3),
        open=True,
        key_limit=None,
        player_limit=RateLimit(0.5, 3),
        attempt_timeout=90.0,
        speed_floor_ms=400,
        review_untimed_par=False,
    )
    got = service.Settings.from_env(sent.to_env())
    assert (got.attempt_timeout, got.speed_floor_ms, got.review_untimed_par) == (90.0, 400, False)
    assert (got.open, got.key_limit, got.player_limit) == (True, None, RateLimit(0.5, 3))
    assert (got.puzzles, Path(got.db), got.max_body, got.max_moves, got.db_timeout) == (
        tmp_path / "set",
        tmp_path / "db.sqlite",
        4096,
        77,
        1.5,
    )
    assert got.today() == dt.date(2027, 2, 3)
    assert got.tz == "UTC"
    default = service.Settings.from_env(service.Settings().to_env())
    assert default.today() == utc_today()
    assert (default.open, default.key_limit, default.player_limit) == (
        False,
        service.KEY_LIMIT,
        service.PLAYER_LIMIT,
    )
    paris = service.Settings.from_env(service.Settings(tz="Europe/Paris").to_env())
    assert paris.tz == "Europe/Paris"


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


# --- the embargo: a puzzle exists for clients from the start of its date -------------------------

FUTURE_ID = "2027-01-06-hard"  # tomorrow's


def same_but_the_id(a: bytes, a_id: str, b: bytes, b_id: str) -> bool:
    return a.replace(a_id.encode(), b"{id}") == b.replace(b_id.encode(), b"{id}")


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("GET", ""), ("GET", "/solution"), ("GET", "/leaderboard"), ("POST", "/submissions")],
)
def test_a_future_puzzle_answers_as_one_that_does_not_exist(
    client: TestClient, method: str, suffix: str
) -> None:
    body = orjson.dumps({"player": "ada", "log": win(FUTURE_ID)})
    content = body if method == "POST" else None
    future = client.request(method, f"/v1/puzzles/{FUTURE_ID}{suffix}", content=content)
    # an id of the same length, that no puzzle has
    missing = client.request(method, f"/v1/puzzles/2027-01-06-hare{suffix}", content=content)
    got = error(future, 404, "puzzle-not-open")
    assert (got["location"], got["path"]) == ("path", "id")
    assert got["message"] == f"puzzle '{FUTURE_ID}' does not exist or is not open yet"
    error(missing, 404, "puzzle-not-open")
    assert future.headers == missing.headers
    assert same_but_the_id(future.content, FUTURE_ID, missing.content, "2027-01-06-hare")
    far = client.request(method, f"/v1/puzzles/2027-03-31-expert{suffix}", content=content)
    nope = client.request(method, f"/v1/puzzles/nope{suffix}", content=content)
    assert same_but_the_id(far.content, "2027-03-31-expert", nope.content, "nope")
    assert client.get("/v1/health").json()["submissions"] == 0  # nothing was stored


def test_a_future_day_lists_nothing(client: TestClient) -> None:
    for url in ("/v1/puzzles/daily/2027-01-06", "/v1/puzzles/daily/2027-01-06?tier=hard"):
        body = error(client.get(url), 404, "puzzle-not-open")
        assert body["message"] == "the puzzles of 2027-01-06 are not open yet"
        assert (body["location"], body["path"]) == ("path", "date")
    # A future day without puzzles answers the same: the answer depends on the date alone.
    with_puzzles = client.get("/v1/puzzles/daily/2027-03-31")
    without = client.get("/v1/puzzles/daily/2030-03-31")
    assert with_puzzles.status_code == without.status_code == 404
    assert same_but_the_id(with_puzzles.content, "2027-03-31", without.content, "2030-03-31")


def test_a_puzzle_opens_at_the_start_of_its_date(settings: service.Settings) -> None:
    settings.fixed_today = dt.date(2027, 1, 6)
    with TestClient(service.create_app(settings)) as client:
        assert client.get(f"/v1/puzzles/{FUTURE_ID}").status_code == 200
        assert client.get(f"/v1/puzzles/{FUTURE_ID}/leaderboard").status_code == 200
        assert client.get("/v1/puzzles/daily/today?tier=hard").json()["puzzles"][0]["id"] == (
            FUTURE_ID
        )
        assert submit(client, FUTURE_ID, "ada", win(FUTURE_ID)).status_code == 201
        error(client.get(f"/v1/puzzles/{FUTURE_ID}/solution"), 403, "solution-not-public")


def test_today_is_the_date_in_the_services_time_zone(
    settings: service.Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2027-01-05 23:30 UTC is already 2027-01-06 in Tokyo (UTC+9) and still the 5th in New York.
    instant = dt.datetime(2027, 1, 5, 23, 30, tzinfo=dt.UTC)
    monkeypatch.setattr(service.config, "_now", instant.astimezone)
    settings.fixed_today = None
    for zone, today, status in [
        ("UTC", "2027-01-05", 404),
        ("Asia/Tokyo", "2027-01-06", 200),
        ("America/New_York", "2027-01-05", 404),
    ]:
        settings.tz = zone
        with TestClient(service.create_app(settings)) as client:
            assert client.get("/v1/health").json()["today"] == today
            assert client.get(f"/v1/puzzles/{FUTURE_ID}").status_code == status


def test_an_undated_puzzle_stays_open(settings: service.Settings, tmp_path: Path) -> None:
    folder = tmp_path / "set"
    free = published_puzzles().get(PAST_ID).model_copy(update={"date": None, "id": "free-hard-1"})
    (folder / "2027").mkdir(parents=True)
    (folder / "2027" / "free-hard-1.json").write_bytes(puzzle_bytes(free))
    settings.puzzles = folder
    settings.fixed_today = dt.date(2000, 1, 1)
    with TestClient(service.create_app(settings)) as client:
        assert client.get("/v1/puzzles/free-hard-1").status_code == 200
        assert client.get("/v1/puzzles/free-hard-1/leaderboard").status_code == 200
        assert submit(client, "free-hard-1", "ada", win(PAST_ID)).json()["accepted"] is True


def test_an_unknown_time_zone_is_refused(settings: service.Settings) -> None:
    for zone in ("Mars/Olympus_Mons", "utc", "", "../etc", "/etc/localtime"):
        settings.tz = zone
        with pytest.raises(service.UnknownZone, match="unknown time zone"):
            service.create_app(settings)
    result = CliRunner().invoke(app, ["serve", "--tz", "Mars/Olympus_Mons"])
    assert result.exit_code == 2
    assert "--tz: unknown time zone 'Mars/Olympus_Mons'" in result.stderr


# --- static files: the rules engine for sites ----------------------------------------------------


def test_cruel_js_is_served_as_a_module_with_its_package_bytes(client: TestClient) -> None:
    from importlib.resources import files

    from cruel_tools.service.scripts import without_comment_lines

    r = client.get("/static/cruel.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["x-content-type-options"] == "nosniff"
    source = (files("cruel_tools") / "web" / "cruel.js").read_text(encoding="utf-8")
    # The package's bytes less their comment lines (service/scripts.py: the page's budget).
    assert r.content == without_comment_lines(source).encode("utf-8")
    assert len(r.content) < len(source.encode("utf-8")) * 0.8
    assert b"export class Game" in r.content or b"export { Game" in r.content


@pytest.mark.parametrize(
    "name",
    ["package.json", "nosuch.js", "..%2Fservice.py", "..%2F..%2Fpyproject.toml", "%2Fetc%2Fpasswd"],
)
def test_only_the_listed_static_files_are_served(client: TestClient, name: str) -> None:
    r = client.get(f"/static/{name}")
    assert r.status_code == 404
    assert r.json()["code"] == "not-found"


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/static/swagger/swagger-ui-bundle.js", "text/javascript"),
        ("/static/swagger/swagger-ui.css", "text/css"),
        ("/static/favicon.svg", "image/svg+xml"),
    ],
)
def test_the_api_docs_files_come_from_this_origin(
    client: TestClient, path: str, media: str
) -> None:
    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith(media)
    assert len(r.content) > 100
    # Revalidated on each use: an unchanged file costs a 304 without a body.
    again = client.get(path, headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert error(client.get("/static/swagger/index.html"), 404, "not-found")


def test_the_api_docs_page_names_no_other_origin(client: TestClient) -> None:
    r = client.get("/v1/docs")
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "http" not in policy
    assert "http://" not in r.text and "https://" not in r.text


# --- the replay and entries' games, for the web replay -----------------------------------------


def test_replay_gives_the_words_and_positions_of_cruel_replay_json(
    client: TestClient, tmp_path: Path
) -> None:
    from cruel_tools.game.render import ReplayDocument

    log = win(PAST_ID)
    r = client.post("/v1/replay", content=orjson.dumps(log))
    assert r.status_code == 200, r.text
    doc = ReplayDocument.model_validate_json(r.content)
    assert (doc.format, doc.outcome, doc.error) == ("cruel-replay/1", "won", None)
    assert len(doc.steps) == len(log["moves"]) and all(s.position for s in doc.steps)
    path = tmp_path / "won.json"
    path.write_bytes(orjson.dumps(log))
    cli = CliRunner().invoke(app, ["replay", str(path), "--json"])
    cli_doc = json.loads(cli.stdout)
    # The service's answer says which window of steps it holds (issue #33): here all of them.
    moves = len(log["moves"])
    window = {"first": 1, "last": moves, "steps": moves, "next": None, "cut": False}
    assert {**cli_doc, "source": None, "window": window} == r.json()


def test_replay_of_an_illegal_log_shows_the_steps_before_and_the_error(client: TestClient) -> None:
    log = win(PAST_ID)
    log["moves"].insert(6, log["moves"][5])  # the same card moved twice
    log.pop("claim", None)
    body = client.post("/v1/replay", content=orjson.dumps(log)).json()
    assert body["error"]["index"] is not None and body["error"]["path"].startswith("/moves/")
    assert len(body["steps"]) == body["error"]["index"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [(b"{", 400, "not-json"), (b'{"format": "cruel-log/9"}', 422, "bad-format")],
)
def test_replay_refuses_what_is_not_a_log(
    client: TestClient, body: bytes, status: int, code: str
) -> None:
    found = client.post("/v1/verify", content=body)
    assert error(client.post("/v1/replay", content=body), status, found.json()["code"])
    assert found.status_code == status


def test_replay_bounds_the_body_as_verify_does(client: TestClient, settings: Any) -> None:
    big = b" " * (settings.max_body + 1)
    assert error(client.post("/v1/replay", content=big), 413, "too-large")


def test_an_entrys_game_is_shown_only_once_its_puzzle_is_closed(
    client: TestClient, settings: service.Settings
) -> None:
    from cruel_tools.game.log import load
    from cruel_tools.game.verify import verify

    entry = submit(client, OPEN_ID, "ada", win())
    assert entry.status_code == 201
    sid = entry.json()["submission_id"]
    path = f"/v1/puzzles/{OPEN_ID}/submissions/{sid}/log"
    error(client.get(path), 403, "puzzle-not-closed")  # a win not to be copied while open
    settings.fixed_today = dt.date(2027, 1, 6)
    r = client.get(path)
    assert r.status_code == 200, r.text
    game = load(r.content)
    assert game.meta == {"player": "ada", "puzzle": OPEN_ID}
    report = verify(game)
    assert report.valid and report.outcome == "won"
    assert len(game.moves) == len(win()["moves"]) > 0
    error(client.get(f"/v1/puzzles/{OPEN_ID}/submissions/{sid + 1}/log"), 404, "unknown-submission")
    error(client.get(f"/v1/puzzles/{PAST_ID}/submissions/{sid}/log"), 404, "unknown-submission")
    error(client.get(f"/v1/puzzles/{OPEN_ID}/submissions/0/log"), 422, "bad-parameter")
    settings.fixed_today = dt.date(2000, 1, 1)  # a puzzle not open is not found, as elsewhere
    error(client.get(path), 404, "puzzle-not-open")
    settings.fixed_today = TODAY


def test_a_hidden_entrys_game_is_not_shown(tmp_path: Path) -> None:
    from cruel_tools.site.leaderboard import Leaderboards

    settings = open_settings(tmp_path / "db.sqlite")
    with TestClient(service.create_app(settings)) as client:
        sid = submit(client, OPEN_ID, "ada", win()).json()["submission_id"]
        assert Leaderboards(settings.db).entry_moves(OPEN_ID, sid) is not None
        with sqlite3.connect(settings.db) as db:  # as a moderator's hide leaves it
            db.execute(
                "INSERT INTO hidden_submissions VALUES (?, ?)", (sid, "2027-01-05T12:00:00Z")
            )
        settings.fixed_today = dt.date(2027, 1, 6)
        error(client.get(f"/v1/puzzles/{OPEN_ID}/submissions/{sid}/log"), 404, "unknown-submission")


# --- past days, pages ---------------------------------------------------------------------------


def test_past_days_list_the_latest_days_with_puzzles_before_a_date(
    client: TestClient, settings: service.Settings
) -> None:
    body = client.get("/v1/puzzles/past").json()
    assert body["format"] == "cruel-past/1" and body["before"] == "2027-01-05"
    assert [d["date"] for d in body["days"]] == [
        "2027-01-04",
        "2027-01-03",
        "2027-01-02",
        "2027-01-01",
    ]
    assert [p["tier"] for p in body["days"][0]["puzzles"]] == ["easy", "medium", "hard", "expert"]
    assert all("solution" not in p for d in body["days"] for p in d["puzzles"])
    assert body["days"][0] == client.get("/v1/puzzles/daily/2027-01-04").json()
    two = client.get("/v1/puzzles/past?before=2027-01-04&limit=2").json()
    assert [d["date"] for d in two["days"]] == ["2027-01-03", "2027-01-02"]
    assert client.get("/v1/puzzles/past?before=2027-01-01").json()["days"] == []
    # A date after today lists from today down: nothing that is not open yet.
    future = client.get("/v1/puzzles/past?before=2027-03-01&limit=31").json()
    assert future["before"] == "2027-01-06"
    assert [d["date"] for d in future["days"]][:2] == ["2027-01-05", "2027-01-04"]
    error(client.get("/v1/puzzles/past?before=2027-1-5"), 422, "bad-date")
    error(client.get("/v1/puzzles/past?limit=32"), 422, "bad-parameter")
    error(client.get("/v1/puzzles/past?limit=0"), 422, "bad-parameter")


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/", "index.html"),
        ("/play/2027-01-05-easy", "play.html"),
        ("/play/no-such-puzzle", "play.html"),
        ("/replay", "replay.html"),
        ("/leaderboard/2027-01-05-easy", "leaderboard.html"),
    ],
)
def test_pages_are_package_files_under_a_same_origin_policy(
    client: TestClient, path: str, name: str
) -> None:
    from importlib.resources import files

    r = client.get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert r.content == (files("cruel_tools") / "web" / name).read_bytes()
    policy = r.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self';" in policy
    assert "unsafe-inline" not in policy and "http" not in policy
    assert r.headers["x-content-type-options"] == "nosniff"
    assert client.get(path, headers={"If-None-Match": r.headers["etag"]}).status_code == 304
    # A page names no other origin: nothing it loads can come from elsewhere.
    assert "http://" not in r.text and "https://" not in r.text and "<script>" not in r.text


def test_a_failing_postgresql_server_is_503_store_unavailable_and_health_says_so(
    client: TestClient, settings: service.Settings
) -> None:
    if isinstance(settings.db, Path):
        pytest.skip("PostgreSQL only: SQLite's integrity checks are tests/test_hostile.py's")
    import re

    import psycopg

    assert submit(client, OPEN_ID, "ada", win()).status_code == 201
    url = str(settings.db)
    schema = re.search(r"search_path%3D(\w+)", url)
    assert schema is not None
    name = schema.group(1)
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"ALTER SCHEMA {name} RENAME TO {name}_away")  # the tables are gone
        try:
            body = error(client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard"), 503, "store-unavailable")
            assert body["message"].startswith("the PostgreSQL server failed (")
            health = client.get("/v1/health")
            assert health.status_code == 503
            problem = health.json()["problem"]
            assert health.json()["status"] == "unavailable"
            assert problem["code"] == "store-unavailable"
            assert client.get(f"/v1/puzzles/{OPEN_ID}").status_code == 200  # puzzles go on
        finally:
            admin.execute(f"ALTER SCHEMA {name}_away RENAME TO {name}")
    health = client.get("/v1/health")  # the server answers again: so does health
    assert health.status_code == 200 and health.json()["submissions"] == 1


class Proxy:
    """A TCP forwarder to the PostgreSQL server, to take the server away and bring it back."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        import socket

        self.upstream = upstream
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port: int = probe.getsockname()[1]
        probe.close()
        self.sockets: list[Any] = []
        self.listener: Any = None

    def start(self) -> None:
        import socket

        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: Any) -> None:
        import socket

        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: Any, b: Any) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()

    def stop(self) -> None:
        import socket

        with contextlib.suppress(OSError):  # wakes the thread blocked in accept()
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
                s.close()
        self.sockets.clear()


def test_a_lost_postgresql_server_is_503_and_health_says_so_until_it_is_back(
    settings: service.Settings,
) -> None:
    if isinstance(settings.db, Path):
        pytest.skip("PostgreSQL only: SQLite's integrity checks are tests/test_hostile.py's")
    from urllib.parse import urlsplit

    url = str(settings.db)
    where = urlsplit(url)
    proxy = Proxy((where.hostname or "127.0.0.1", where.port or 5432))
    proxy.start()
    settings.db = url.replace(f"{where.hostname}:{where.port}", f"127.0.0.1:{proxy.port}")
    settings.db_timeout = 3.0  # the first request after the loss waits this long for the pool
    with TestClient(service.create_app(settings)) as client:
        assert submit(client, OPEN_ID, "ada", win()).status_code == 201
        proxy.stop()  # the server is gone: connections cut, new ones refused
        body = error(client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard"), 503, "store-unavailable")
        assert body["message"].startswith("the PostgreSQL server failed (")
        started = time.monotonic()
        error(client.get(f"/v1/puzzles/{OPEN_ID}/leaderboard"), 503, "store-unavailable")
        assert time.monotonic() - started < 2.5  # the server known gone: no long wait
        health = client.get("/v1/health")
        assert health.status_code == 503 and health.json()["submissions"] is None
        assert health.json()["problem"]["code"] == "store-unavailable"
        assert client.get(f"/v1/puzzles/{OPEN_ID}").status_code == 200  # puzzles go on
        proxy.start()  # back: the pool connects again
        deadline = time.monotonic() + 20
        while (health := client.get("/v1/health")).status_code != 200:
            assert time.monotonic() < deadline, health.json()
            time.sleep(0.2)
        assert health.json()["submissions"] == 1 and health.json()["problem"] is None
        assert submit(client, OPEN_ID, "bob", win()).status_code == 201
    proxy.stop()
