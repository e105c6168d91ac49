"""What docs/service.md states of the code, read from the code (issue #34, "Docs true"): the
database's layout version, where ``/v1/docs`` loads Swagger UI from, the routes ``/metrics``
counts, and ``cruel serve``'s options with their defaults. A number or path the prose states is
checked against what the code does, so the page fails here the day it drifts.

And the analysis agrees with the par beside it: a puzzle's par proven optimal (found with a far
larger budget than a request's) is the optimum, never "at least" a weaker bound.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import typer
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from cruel_tools import service
from cruel_tools.advice.analysis import analyze, text_lines
from cruel_tools.cli.app import app
from cruel_tools.game import log
from cruel_tools.service.log_tools import ANALYZE_WIN_STATES
from cruel_tools.service.metrics import UNMATCHED
from cruel_tools.site.keys import KeyStore
from cruel_tools.site.tables import DB_VERSION

from .helpers import published_puzzles, puzzle_log

ROOT = Path(__file__).resolve().parent.parent
SERVICE_MD = ROOT / "docs" / "service.md"
TODAY = dt.date(2027, 1, 6)


def page() -> str:
    return SERVICE_MD.read_text(encoding="utf-8")


@pytest.fixture
def admin_client(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    db = tmp_path / "db.sqlite"
    keys = KeyStore(db)
    _, admin = keys.add("ops", "admin")
    keys.close()
    settings = service.Settings(puzzles=ROOT / "puzzles", db=db, fixed_today=TODAY)
    with TestClient(service.create_app(settings)) as client:
        yield client, admin


# --- the layout's version ---------------------------------------------------------------------


def test_the_user_version_the_page_states_is_the_codes_and_a_new_file_has_it(
    tmp_path: Path,
) -> None:
    text = page()
    stated = [int(n) for n in re.findall(r"`user_version`[^.]{0,40}?\(now (\d+)", text)]
    assert stated, "docs/service.md no longer says which user_version (update this test)"
    assert set(stated) == {DB_VERSION}, (
        f"docs/service.md says user_version is now {stated}; schema.DB_VERSION is {DB_VERSION}"
    )
    knows = [int(n) for n in re.findall(r"this one knows (\d+)\)", text)]
    assert knows and set(knows) == {DB_VERSION}, f"the refusal's example says it knows {knows}"
    keys = KeyStore(tmp_path / "new.sqlite")  # any store lays the file out
    keys.close()
    with sqlite3.connect(tmp_path / "new.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == DB_VERSION


# --- where /v1/docs loads Swagger UI from -----------------------------------------------------


class _Assets(HTMLParser):
    """Every script's ``src`` and stylesheet's ``href`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script" and named.get("src"):
            self.found.append(str(named["src"]))
        if tag == "link" and named.get("rel") == "stylesheet" and named.get("href"):
            self.found.append(str(named["href"]))


def test_swagger_ui_is_served_where_the_page_says(admin_client: tuple[TestClient, str]) -> None:
    client, _ = admin_client
    answer = client.get("/v1/docs")
    assert answer.status_code == 200
    assets = _Assets()
    assets.feed(answer.text)
    assert len(assets.found) >= 2, assets.found  # Swagger UI's script and its style
    for url in assets.found:
        assert url.startswith("/"), f"/v1/docs loads {url} from another origin"
        assert client.get(url).status_code == 200, url
    text = page()
    stated = set(re.findall(r"`(/static/swagger/[^`…]+)`", text))
    assert stated == set(assets.found), (
        f"docs/service.md names {sorted(stated)}; /v1/docs loads {sorted(assets.found)}"
    )
    assert not re.search(r"cdn\.|jsdelivr|unpkg", text.split("## Running it")[1].split("##")[0])


# --- the routes /metrics counts ---------------------------------------------------------------


def _requests(client: TestClient, key: str) -> dict[tuple[str, str], float]:
    """``cruel_http_requests_total`` by (route, status)."""
    answer = client.get("/metrics", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200
    return {
        (s.labels["route"], s.labels["status"]): s.value
        for family in text_string_to_metric_families(answer.text)
        for s in family.samples
        if s.name == "cruel_http_requests_total"
    }


def test_the_api_documents_are_counted_under_their_own_routes(
    admin_client: tuple[TestClient, str],
) -> None:
    client, admin = admin_client
    for path in ("/v1/openapi.json", "/v1/docs"):
        assert client.get(path).status_code == 200
    counted = _requests(client, admin)
    assert counted.get(("/v1/openapi.json", "200")) == 1, counted
    assert counted.get(("/v1/docs", "200")) == 1, counted
    assert not any(route == UNMATCHED for route, _ in counted), counted
    assert client.post("/v1/openapi.json").status_code == 405  # as FastAPI labels its own 405s
    assert _requests(client, admin).get(("/v1/openapi.json", "405")) == 1
    assert client.get("/v1/no-such-route").status_code == 404
    assert _requests(client, admin).get((UNMATCHED, "404")) == 1


def test_every_route_without_parameters_is_counted_under_its_template(
    admin_client: tuple[TestClient, str],
) -> None:
    """Whichever kind of route takes a request (FastAPI's, or a plain Starlette one), its
    template is the label: only a path no route takes is (unmatched)."""
    from fastapi.routing import iter_route_contexts

    client, admin = admin_client
    paths = {
        r.path
        for r in iter_route_contexts(client.app.routes)  # type: ignore[attr-defined]
        if r.path is not None
        and "{" not in r.path
        and "GET" in (getattr(r, "methods", None) or {"GET"})
    }
    assert "/v1/openapi.json" in paths and "/v1/health" in paths
    for path in sorted(paths - {"/metrics"}):
        client.get(path)
    counted = {route for route, _ in _requests(client, admin)}
    assert paths - {"/metrics"} <= counted, sorted(paths - counted)
    assert UNMATCHED not in counted


# --- cruel serve's options --------------------------------------------------------------------


def _options() -> dict[str, Any]:
    """Every option of ``cruel serve`` (Typer's, read from the command itself) by each of its
    flags (``--access-log`` and ``--no-access-log`` both), help left out."""
    serve = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    found = {}
    for param in serve.params:
        if param.param_type_name == "option" and param.name != "help":
            for flag in [*param.opts, *param.secondary_opts]:
                if flag.startswith("--"):
                    found[flag] = param
    return found


def _table() -> dict[str, str]:
    """The rows of the table under "Running it": each option's flag and its default's cell."""
    section = page().split("\n## Running it\n")[1].split("\n## ")[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        match = re.match(r"`(--[a-z0-9-]+)", cells[0]) if line.startswith("| `--") else None
        if match:
            rows[match.group(1)] = cells[1]
    return rows


def _same(cell: str, default: Any) -> bool:
    """Whether a table's default cell states ``default``: a value in backticks, ``none``,
    ``off``, or words (for a default the command works out: no value of its own)."""
    value = re.fullmatch(r"`([^`]+)`(?: \(.*\))?", cell)
    if value is None:
        if cell == "none":
            return default is None or default == ()
        if cell == "off":
            return default is False
        return default is None or isinstance(default, bool)
    text = value.group(1)
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        return float(text) == float(default)
    return text == str(default)


def test_the_serve_table_has_a_row_for_every_option_with_its_default() -> None:
    options, rows = _options(), _table()
    missing = sorted(
        {p.opts[0] for p in options.values()}
        - {options[flag].opts[0] for flag in rows if flag in options}
    )
    assert not missing, (
        f"cruel serve {', '.join(missing)}: no row in docs/service.md's table (Running it); "
        "add one with its default"
    )
    unknown = sorted(set(rows) - set(options))
    assert not unknown, f"docs/service.md's table has rows for {unknown}: no option of serve"
    wrong = [
        f"{flag}: the table says {cell}, the code's default is {options[flag].default!r}"
        for flag, cell in rows.items()
        if not _same(cell, options[flag].default)
    ]
    assert not wrong, "; ".join(wrong)


def test_the_bounds_the_serve_table_states_are_the_codes() -> None:
    """``(at least 1024)``, ``(1–64)``: the least (and most) value the option takes."""
    section = page().split("\n## Running it\n")[1].split("\n## ")[0]
    options, checked = _options(), 0
    for line in section.splitlines():
        flag = re.match(r"\| `(--[a-z0-9-]+)", line)
        if flag is None:
            continue
        option, effect = options[flag.group(1)], line.split("|")[3]
        for least in re.findall(r"\(at least (\d+(?:\.\d+)?)", effect):
            assert option.min == float(least), f"{flag.group(1)}: at least {option.min}"
            checked += 1
        for least, most in re.findall(r"\((\d+)–(\d+)\)", effect):
            assert (option.min, option.max) == (int(least), int(most)), flag.group(1)
            checked += 1
    assert checked >= 5


def test_a_flag_row_names_the_flag_that_changes_the_default() -> None:
    """``--no-access-log`` (on by default), ``--open`` (off): the row says what passing it does."""
    options = _options()
    for flag, cell in _table().items():
        option = options[flag]
        if option.is_flag and isinstance(option.default, bool):
            turns_on = flag in option.opts
            assert turns_on != option.default, f"{flag} is the default already ({cell})"


def test_the_synopsis_names_every_option() -> None:
    synopsis = page().split("```sh\ncruel serve", 1)[1].split("\ncruel keys", 1)[0]
    named = set(re.findall(r"\[(--[a-z0-9-]+)", synopsis))
    options = _options()
    missing = sorted({p.opts[0] for p in options.values()} - {options[f].opts[0] for f in named})
    assert not missing, f"cruel serve {', '.join(missing)}: not in docs/service.md's synopsis"
    assert named <= set(options), sorted(named - set(options))


def test_the_storage_bounds_table_states_the_defaults() -> None:
    section = page().split("\n### Storage bounds\n")[1].split("\n### ")[0]
    options, checked = _options(), 0
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        flags = re.findall(r"`(--[a-z0-9-]+)`", cells[2]) if len(cells) == 4 else []
        defaults = [int(n.replace(",", "")) for n in cells[1].split(", ")] if flags else []
        for flag, default in zip(flags, defaults, strict=True):
            assert options[flag].default == default, f"{flag}: {default} in the table"
            checked += 1
    assert checked >= 5


# --- the analysis agrees with the par beside it -----------------------------------------------

#: A puzzle whose par is proven optimal (58 actions) where a search of a request's budget proves
#: only 56 or 57 (issue #34: the replay page said "every win takes at least 56" beside "par 58,
#: optimal").
PROVEN = "2027-03-05-easy"


def test_a_proven_par_is_the_optimum_the_search_left_open() -> None:
    puzzle = published_puzzles().by_id[PROVEN]
    assert puzzle.par.optimal
    game_log = log.from_object(puzzle_log(puzzle))
    alone = analyze(game_log, max_states=ANALYZE_WIN_STATES).win
    assert alone is not None and alone.optimum.verdict == "best-found"  # the case is real
    assert alone.optimum.lower_bound < puzzle.par.actions
    win = analyze(game_log, puzzle=puzzle, max_states=ANALYZE_WIN_STATES).win
    assert win is not None
    assert (win.optimum.verdict, win.optimum.actions) == ("optimal", puzzle.par.actions)
    assert win.optimum.lower_bound == puzzle.par.actions
    assert (win.over_par, win.over_optimum, win.at_most_over_optimum) == (0, 0, 0)
    lines = text_lines(analyze(game_log, puzzle=puzzle, max_states=ANALYZE_WIN_STATES))
    assert f"optimum {puzzle.par.actions} actions (proven): 0 over it" in lines
    assert not any(">=" in line for line in lines), lines


def test_the_service_analyses_a_closed_puzzles_game_against_its_par(tmp_path: Path) -> None:
    """What the replay page of the puzzle's solution shows: par and the optimum, one number."""
    puzzle = published_puzzles().by_id[PROVEN]
    settings = service.Settings(
        puzzles=ROOT / "puzzles", db=tmp_path / "db.sqlite", fixed_today=dt.date(2027, 3, 10)
    )
    with TestClient(service.create_app(settings)) as client:
        solution = client.get(f"/v1/puzzles/{PROVEN}/solution").json()
        assert solution["par"]["optimal"] is True
        answer = client.post("/v1/analyze", json=solution["log"])
        assert answer.status_code == 200, answer.text
        win = answer.json()["win"]
        assert win["par"] == puzzle.par.model_dump()
        assert win["optimum"] == {"verdict": "optimal", "actions": 58, "lower_bound": 58}
        assert (win["over_par"], win["over_optimum"]) == (0, 0)
