"""``cruel serve --embed-origin`` (issue #37): CORS on the embed routes for the listed origins
only, through the app's test client; the option's refusals through the CLI
(docs/service.md, Embedding on other sites). The browser's view: tests/browser/test_embed_cors.py.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cruel_tools import service
from cruel_tools.cli.app import app as cli_app
from cruel_tools.game.log import compact, to_step
from cruel_tools.service.config import embed_origin
from cruel_tools.service.embedding import EMBED_ROUTES, EmbedOrigins, embed_methods

from .helpers import published_puzzles, puzzle_log

ROOT = Path(__file__).parent.parent
TODAY = dt.date(2027, 1, 5)
OPEN = "2027-01-05-easy"  # today's: live attempts
CLOSED = "2027-01-04-hard"  # yesterday's: hints
ALLOWED = "http://127.0.0.1:8123"
#: Not listed: another port of the same host, the same port under another name, another site.
OTHERS = ("http://127.0.0.1:8124", "http://localhost:8123", "https://evil.example")
#: An example path of each embed route's template.
EXAMPLES = {
    "/v1/health": "/v1/health",
    "/v1/puzzles/daily/{date}": "/v1/puzzles/daily/today",
    "/v1/puzzles/past": "/v1/puzzles/past",
    "/v1/puzzles/{id}": f"/v1/puzzles/{CLOSED}",
    "/v1/hint": "/v1/hint",
    "/v1/puzzles/{id}/submissions": f"/v1/puzzles/{OPEN}/submissions",
    "/v1/puzzles/{id}/attempts": f"/v1/puzzles/{OPEN}/attempts",
    "/v1/attempts/{attempt}": "/v1/attempts/abc",
    "/v1/attempts/{attempt}/steps": "/v1/attempts/abc/steps",
    "/v1/attempts/{attempt}/give-up": "/v1/attempts/abc/give-up",
    "/v1/players": "/v1/players",
    "/v1/players/{name}/tokens": "/v1/players/ada/tokens",
}
#: Routes an embed never gets CORS on (method, path), even from a listed origin.
NOT_EMBED = (
    ("GET", "/"),
    ("GET", "/play"),
    ("GET", "/static/play.js"),
    ("GET", "/v1/docs"),
    ("GET", "/v1/openapi.json"),
    ("GET", "/metrics"),
    ("GET", "/v1/admin/queue"),
    ("GET", "/v1/admin/audit"),
    ("POST", "/v1/admin/players/ada/ban"),
    ("GET", f"/v1/puzzles/{CLOSED}/leaderboard"),
    ("GET", f"/v1/puzzles/{CLOSED}/solution"),
    ("GET", "/v1/players/ada"),
    ("GET", "/v1/players/ada/data"),
    ("DELETE", "/v1/players/ada"),
    ("POST", "/v1/players/ada/link-codes"),
    ("POST", "/v1/verify"),
    ("POST", "/v1/analyze"),
    ("POST", "/v1/replay"),
    ("GET", "/v1/rules/presets"),
)


def human_clock() -> Any:
    """The server's wall clock: each reading 0.4 to 2.5 s after the one before, unevenly (so
    that a live win ranks, not flagged as batched or metronomic)."""
    rng, now = random.Random(37), [dt.datetime(2027, 1, 5, 9, tzinfo=dt.UTC)]

    def read() -> dt.datetime:
        now[0] += dt.timedelta(seconds=rng.uniform(0.4, 2.5))
        return now[0]

    return read


def settings(db: Path, *origins: str) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=TODAY,
        key_limit=None,
        player_limit=None,
        wall_clock=human_clock(),
        speed_floor_ms=0,
        par_pace_ms=0,
        embed_origins=origins,
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(service.create_app(settings(tmp_path / "cruel.sqlite", ALLOWED))) as c:
        yield c


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[TestClient]:
    """The same server without ``--embed-origin``."""
    with TestClient(service.create_app(settings(tmp_path / "plain.sqlite"))) as c:
        yield c


def cors(response: Any) -> dict[str, str]:
    """The answer's CORS headers (``Vary`` apart)."""
    return {k: v for k, v in response.headers.items() if k.startswith("access-control-")}


def allowed(response: Any, origin: str = ALLOWED) -> None:
    assert cors(response) == {
        "access-control-allow-origin": origin,
        "access-control-expose-headers": "Retry-After",
    }, response.headers
    assert "Origin" in response.headers["vary"]


def none_for(response: Any) -> None:
    assert cors(response) == {}, response.headers
    assert "access-control-allow-credentials" not in response.headers


def from_(origin: str, token: str | None = None) -> dict[str, str]:
    headers = {"Origin": origin, "Content-Type": "application/json"}
    return headers | ({"Authorization": f"Player {token}"} if token else {})


def par_line(puzzle: str) -> list[str]:
    return [compact(to_step(e)) for e in published_puzzles().get(puzzle).solution]


def hint_body() -> bytes:
    puzzle = published_puzzles().get(CLOSED)
    return orjson.dumps(puzzle_log(puzzle, [to_step(e) for e in puzzle.solution][:3]))


# --- the one list ------------------------------------------------------------------------------


def test_every_embed_route_is_a_route_of_the_app(client: TestClient) -> None:
    paths = client.app.openapi()["paths"]  # type: ignore[attr-defined]
    for method, template in EMBED_ROUTES:
        assert method.lower() in paths[template], (method, template)
        assert method in embed_methods(EXAMPLES[template])
    assert set(EXAMPLES) == {template for _, template in EMBED_ROUTES}


def test_a_parameter_is_one_segment() -> None:
    assert embed_methods("/v1/puzzles/a/b") == frozenset()
    assert embed_methods(f"/v1/puzzles/{CLOSED}/solution") == frozenset()
    assert embed_methods("/v1/players/ada") == frozenset()
    assert embed_methods("/v1/players/ada/link-codes") == frozenset()
    assert embed_methods("/v1/hint/") == frozenset()
    assert embed_methods("/v1/attempts/x") == {"GET"}


# --- a listed origin ---------------------------------------------------------------------------


def test_a_listed_origin_reads_puzzles_and_asks_hints(client: TestClient) -> None:
    for path in ("/v1/puzzles/daily/today", "/v1/puzzles/past", f"/v1/puzzles/{CLOSED}"):
        answer = client.get(path, headers={"Origin": ALLOWED})
        assert answer.status_code == 200, answer.text
        allowed(answer)
    hint = client.post("/v1/hint", content=hint_body(), headers=from_(ALLOWED))
    assert hint.status_code == 200, hint.text
    assert hint.json()["status"] == "win-next"
    allowed(hint)
    missing = client.get("/v1/puzzles/2031-01-01-hard", headers={"Origin": ALLOWED})
    assert missing.status_code == 404
    allowed(missing)  # a refusal is read by the page too


def test_a_listed_origin_plays_ranked_with_a_claimed_names_token(client: TestClient) -> None:
    claimed = client.post(
        "/v1/players", content=orjson.dumps({"player": "ada"}), headers=from_(ALLOWED)
    )
    assert claimed.status_code == 201, claimed.text
    allowed(claimed)
    token = claimed.json()["token"]
    body = orjson.dumps({"format": "cruel-attempt/1", "player": "ada", "auto": "off"})
    started = client.post(f"/v1/puzzles/{OPEN}/attempts", content=body, headers=from_(ALLOWED))
    assert started.status_code == 401  # a claimed name needs its token
    allowed(started)
    headers = from_(ALLOWED, token)
    started = client.post(f"/v1/puzzles/{OPEN}/attempts", content=body, headers=headers)
    assert started.status_code == 201, started.text
    allowed(started)
    attempt = started.json()["attempt"]
    for step in par_line(OPEN):
        sent = orjson.dumps({"steps": [step]})
        played = client.post(f"/v1/attempts/{attempt}/steps", content=sent, headers=headers)
        assert played.status_code == 200, played.text
        allowed(played)
    state = client.get(f"/v1/attempts/{attempt}", headers=headers)
    assert state.json()["status"] == "won"
    allowed(state)
    board = client.get(f"/v1/puzzles/{OPEN}/leaderboard").json()["entries"]
    assert [e["player"] for e in board] == ["ada"]
    again = client.post(f"/v1/puzzles/{OPEN}/attempts", content=body, headers=headers)
    given_up = client.post(f"/v1/attempts/{again.json()['attempt']}/give-up", headers=headers)
    assert given_up.status_code == 200, given_up.text
    allowed(given_up)


def test_a_listed_origin_submits_and_links_a_device(client: TestClient) -> None:
    token = client.post("/v1/players", content=orjson.dumps({"player": "bo"})).json()["token"]
    log = puzzle_log(published_puzzles().get(OPEN))
    doc = orjson.dumps({"player": "bo", "log": log})
    sent = client.post(
        f"/v1/puzzles/{OPEN}/submissions", content=doc, headers=from_(ALLOWED, token)
    )
    assert sent.status_code == 201, sent.text
    allowed(sent)
    # The code is made on the site's own page (link-codes is not an embed route)...
    made = client.post("/v1/players/bo/link-codes", headers=from_(ALLOWED, token), content=b"{}")
    assert made.status_code == 201, made.text
    none_for(made)
    # ...and typed into the embedded game, which gets its own token for the name.
    linked = client.post(
        "/v1/players/bo/tokens",
        content=orjson.dumps({"code": made.json()["code"]}),
        headers=from_(ALLOWED),
    )
    assert linked.status_code == 201, linked.text
    allowed(linked)


@pytest.mark.parametrize(("method", "template"), EMBED_ROUTES)
def test_a_listed_origins_preflight_is_answered(
    client: TestClient, method: str, template: str
) -> None:
    answer = client.options(
        EXAMPLES[template],
        headers={
            "Origin": ALLOWED,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert answer.status_code == 204, answer.text
    assert answer.content == b""
    assert cors(answer) == {
        "access-control-allow-origin": ALLOWED,
        "access-control-allow-methods": ", ".join(sorted(embed_methods(EXAMPLES[template]))),
        "access-control-allow-headers": "Accept, Authorization, Content-Type",
        "access-control-max-age": "600",
    }
    assert answer.headers["vary"] == "Origin"


def test_a_preflight_for_a_method_the_route_has_not_is_not_answered(client: TestClient) -> None:
    for path, method in (("/v1/players/ada/tokens", "DELETE"), ("/v1/puzzles/past", "POST")):
        answer = client.options(
            path, headers={"Origin": ALLOWED, "Access-Control-Request-Method": method}
        )
        assert answer.status_code == 405
        none_for(answer)


# --- any other origin, any other route, no option ----------------------------------------------


@pytest.mark.parametrize("origin", OTHERS)
def test_another_origin_gets_no_cors(client: TestClient, origin: str) -> None:
    for path in ("/v1/puzzles/daily/today", f"/v1/puzzles/{CLOSED}"):
        answer = client.get(path, headers={"Origin": origin})
        assert answer.status_code == 200
        none_for(answer)
    hint = client.post("/v1/hint", content=hint_body(), headers=from_(origin))
    assert hint.status_code == 200  # the server answers; the browser keeps it from the page
    none_for(hint)
    claimed = client.post("/v1/players", content=b'{"player":"cy"}', headers=from_(origin))
    none_for(claimed)
    for method, template in EMBED_ROUTES:
        preflight = client.options(
            EXAMPLES[template],
            headers={"Origin": origin, "Access-Control-Request-Method": method},
        )
        assert preflight.status_code == 405, preflight.text  # as without the option
        none_for(preflight)


def test_two_origin_headers_get_no_cors(client: TestClient) -> None:
    answer = client.get("/v1/puzzles/past", headers=[("Origin", ALLOWED), ("Origin", ALLOWED)])
    none_for(answer)


@pytest.mark.parametrize(("method", "path"), NOT_EMBED)
def test_other_routes_get_no_cors_even_for_a_listed_origin(
    client: TestClient, method: str, path: str
) -> None:
    answer = client.request(method, path, headers={"Origin": ALLOWED})
    none_for(answer)
    assert "origin" not in answer.headers.get("vary", "").lower()
    preflight = client.options(
        path, headers={"Origin": ALLOWED, "Access-Control-Request-Method": method}
    )
    assert preflight.status_code != 204
    none_for(preflight)


def test_without_the_option_there_is_no_cors_at_all(plain: TestClient, client: TestClient) -> None:
    layers = [m.cls for m in plain.app.user_middleware]  # type: ignore[attr-defined]
    assert EmbedOrigins not in layers
    assert EmbedOrigins in [m.cls for m in client.app.user_middleware]  # type: ignore[attr-defined]
    for method, template in EMBED_ROUTES:
        answer = plain.request(method, EXAMPLES[template], headers={"Origin": ALLOWED})
        none_for(answer)
        assert "origin" not in answer.headers.get("vary", "").lower()
        preflight = plain.options(
            EXAMPLES[template],
            headers={"Origin": ALLOWED, "Access-Control-Request-Method": method},
        )
        assert preflight.status_code == 405
        none_for(preflight)


def test_the_same_answer_but_for_vary_for_another_origin(
    plain: TestClient, client: TestClient
) -> None:
    """What the listed origins change for any other: ``Vary: Origin`` on the embed routes."""
    path = f"/v1/puzzles/{CLOSED}"
    with_option = client.get(path, headers={"Origin": OTHERS[0]})
    without = plain.get(path, headers={"Origin": OTHERS[0]})
    assert with_option.content == without.content
    assert {k: v for k, v in with_option.headers.items() if k != "vary"} == dict(without.headers)
    assert with_option.headers["vary"] == "Origin"


# --- the option --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("https://games.example", "https://games.example"),
        ("HTTPS://Games.Example:443", "https://games.example"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("http://127.0.0.1:80", "http://127.0.0.1"),
        ("http://[0:0::1]:8080", "http://[::1]:8080"),
        ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example"),
    ],
)
def test_an_origin_is_kept_as_browsers_send_it(text: str, origin: str) -> None:
    assert embed_origin(text) == origin


BAD = {
    "https://games.example/": "it has a path",
    "https://games.example/play": "it has a path",
    "https://games.example?x=1": "it has a query",
    "https://games.example#top": "it has a fragment",
    "https://user@games.example": "it has a user",
    "*": "it has a wildcard",
    "https://*.games.example": "it has a wildcard",
    "games.example": "no http:// or https://",
    "ftp://games.example": "no http:// or https://",
    "null": "no http:// or https://",
    "https://": "no host name or address",
    "https://bücher.example": "no host name or address",
    "https://games.example:0": "the port is not 1-65535",
    "https://games.example:65536": "the port is not 1-65535",
    "https://games.example:": "the port is not 1-65535",
}


@pytest.mark.parametrize(("text", "why"), BAD.items())
def test_the_cli_refuses_what_is_not_an_origin_in_one_line(
    tmp_path: Path, text: str, why: str
) -> None:
    args = ["serve", "--embed-origin", "https://ok.example", "--embed-origin", text]
    result = CliRunner().invoke(cli_app, [*args, "--db", str(tmp_path / "x.sqlite")])
    assert result.exit_code == 2
    assert result.output == (
        f"error: --embed-origin: {text!r} is not an origin: {why} (an origin is "
        "scheme://host[:port], like https://games.example)\n"
    )
    assert not (tmp_path / "x.sqlite").exists()


def test_the_origins_reach_the_workers_settings(tmp_path: Path) -> None:
    given = settings(tmp_path / "x.sqlite", ALLOWED, "https://games.example")
    assert service.Settings.from_env(given.to_env()).embed_origins == given.embed_origins


# --- the element's files (/embed/: pages.py), public to every origin --------------------------


@pytest.mark.parametrize("name", ["cruel-game.js", "cruel.js", "i18n.js", "style.css"])
def test_the_embed_files_are_served_to_any_origin(plain: TestClient, name: str) -> None:
    """``<cruel-game>``'s scripts and stylesheet, with or without ``--embed-origin``: the same
    bytes as ``/static/``, readable from any origin (a module script from another origin is
    fetched with CORS), never with credentials."""
    got = plain.get(f"/embed/{name}", headers={"Origin": OTHERS[2]})
    assert got.status_code == 200
    assert got.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in got.headers
    assert got.content == plain.get(f"/static/{name}").content


@pytest.mark.parametrize("name", ["play.html", "favicon.svg", "nothing.js", "..%2Fcruel.js"])
def test_the_embed_folder_holds_scripts_and_the_stylesheet_only(
    plain: TestClient, name: str
) -> None:
    got = plain.get(f"/embed/{name}")
    assert got.status_code == 404
    assert got.json()["code"] == "not-found"
    assert "access-control-allow-origin" not in got.headers
