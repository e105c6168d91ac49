"""The front page (/) in a real browser: today's puzzles from the API, past days with their
solutions, the player's results from this browser's storage; and, for all three of this
module's pages (front, replay, leaderboard), no overflow at 375 and 1280 px, and docs/web.md's
screenshots."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, SHOTS, Server, Watch
from .test_replay import SOLVED, longer_win, par_win, submit

#: The days before the served date that have puzzles (the set starts on 2027-01-01).
PAST = ["2027-01-04", "2027-01-03", "2027-01-02", "2027-01-01"]


def open_front(page: Any, watch: Watch) -> None:
    page.goto("/")
    page.wait_for_selector("body[data-ready=true]")


def par_words(par: dict[str, Any]) -> str:
    bound = "optimal" if par["optimal"] else f"optimum ≥ {par['lower_bound']}"
    return f"{par['actions']} actions, {bound}"


def test_todays_puzzles_and_past_days_with_their_solutions(page: Any, watch: Watch) -> None:
    day = page.request.get("/v1/puzzles/daily/2027-01-05").json()
    open_front(page, watch)
    assert "January 5, 2027" in page.locator("#today-title").inner_text() or (
        "5 January 2027" in page.locator("#today-title").inner_text()
    )
    cards = page.locator("#today-list li.puzzle-card")
    assert cards.count() == 4
    for i, puzzle in enumerate(day["puzzles"]):
        card = cards.nth(i)
        assert card.get_attribute("data-puzzle") == puzzle["id"]
        assert card.locator("h3").inner_text() == puzzle["tier"].capitalize()
        assert card.locator(".par").inner_text() == f"Par: {par_words(puzzle['par'])}"
        play = card.get_by_role("link", name=f"Play today's {puzzle['tier']} puzzle")
        assert play.get_attribute("href") == f"/play/{puzzle['id']}"
    # Past days, newest first, down to the first day of the set.
    days = page.locator("#past-days section.past-day")
    assert [days.nth(i).get_attribute("data-date") for i in range(days.count())] == PAST
    for i, date in enumerate(PAST):
        listed = page.request.get(f"/v1/puzzles/daily/{date}").json()["puzzles"]
        items = days.nth(i).locator("li.past-puzzle")
        assert [items.nth(k).get_attribute("data-puzzle") for k in range(items.count())] == [
            p["id"] for p in listed
        ]
        for k, p in enumerate(listed):
            assert par_words(p["par"]) in items.nth(k).inner_text()
            board = items.nth(k).get_by_role("link", name=f"Leaderboard of {p['id']}")
            assert board.get_attribute("href") == f"/leaderboard/{p['id']}"
            practice = items.nth(k).get_by_role("link", name=f"Practice {p['id']} (not ranked)")
            assert practice.get_attribute("href") == f"/play/{p['id']}"
    # Free play: deal 17, and a random deal in the play page's range.
    assert page.get_attribute("#free-link", "href") == "/play/deal/17"
    random_deal = page.get_attribute("#free-random", "href") or ""
    assert re.fullmatch(r"/play/deal/[1-9][0-9]{0,6}", random_deal), random_deal
    # A solution link opens the solution in the replay page.
    page.get_by_role("link", name=f"Solution of {SOLVED}").click()
    page.wait_for_url(f"**/replay?puzzle={SOLVED}")
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#title").inner_text() == f"Solution of {SOLVED}"
    assert page.locator("#steps li").count() > 50


def test_the_players_results_appear_once_stored(page: Any, watch: Watch, server: Server) -> None:
    open_front(page, watch)
    assert page.locator("#today-list .result").count() == 0
    assert page.locator("#stats dd[data-stat=played]").get_attribute("data-value") == "0"
    # What the play page keeps: the entry of a win, and the finished game's log. A log at par
    # sent without a live attempt waits for a moderator (the service's default).
    reviewing, server.settings.review_untimed_par = server.settings.review_untimed_par, True
    try:
        answer = submit(page, "2027-01-05-medium", "Front", par_win("2027-01-05-medium"))
    finally:
        server.settings.review_untimed_par = reviewing
    assert answer["accepted"], answer
    game = par_win("2027-01-05-easy")
    game["meta"] = {
        "player": "Front",
        "puzzle": "2027-01-05-easy",
        "started_at": "2027-01-05T09:00:00+00:00",
        "finished_at": "2027-01-05T09:04:10+00:00",
    }
    stored = {
        "cruel.player": "Front",
        "cruel.result.2027-01-05-medium": json.dumps(answer),
        "cruel.games": json.dumps([game]),
        "cruel.progress.2027-01-05-hard": json.dumps(
            {"steps": ["3F"], "started_at": "2027-01-05T11:00:00+00:00"}
        ),
    }
    page.evaluate(
        "items => Object.entries(items).forEach(([k, v]) => localStorage.setItem(k, v))", stored
    )
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    medium = page.locator("#today-list li[data-puzzle='2027-01-05-medium'] .result")
    # a log at par sent without a live attempt waits for a moderator: no rank yet
    assert answer["rank"] is None
    assert (
        medium.inner_text() == f"Your entry: {answer['actions']} actions (at par), held for review"
    )
    ranked = dict(answer, rank=3)  # as the live attempt's entry of a win on the board says
    page.evaluate(
        "(r) => localStorage.setItem('cruel.result.2027-01-05-medium', r)", json.dumps(ranked)
    )
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert medium.inner_text() == f"Your entry: {answer['actions']} actions (at par), rank 3"
    actions = game["claim"]["moves"] + game["claim"]["redeals"]
    easy = page.locator("#today-list li[data-puzzle='2027-01-05-easy'] .result")
    assert easy.inner_text() == f"Won in {actions} actions (unranked)"
    hard = page.locator("#today-list li[data-puzzle='2027-01-05-hard'] .result")
    assert hard.inner_text() == "Game in progress"
    assert page.locator("#today-list li[data-puzzle='2027-01-05-expert'] .result").count() == 0
    # The player's record on the leaderboards, from the service.
    record = page.request.get("/v1/players/Front").json()
    assert (
        page.locator("#server-record")
        .inner_text()
        .startswith(
            f"On the leaderboards as Front: {record['played']} entries, {record['wins']} wins"
        )
    )
    # The stats panel counts the finished game.
    assert page.locator("#stats dd[data-stat=played]").get_attribute("data-value") == "1"
    assert page.locator("#stats dd[data-stat=wins]").get_attribute("data-value") == "1"


PAGES = {
    "front": "/",
    "replay": f"/replay?puzzle={SOLVED}&step=11",
    "replay-empty": "/replay",
    "leaderboard": "/leaderboard/2027-01-05-expert",
    "leaderboard-closed": f"/leaderboard/{SOLVED}",
}


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=["375", "1280"])
def test_nothing_overflows(
    new_page: Callable[..., Any], watch: Watch, width: dict[str, int]
) -> None:
    page = new_page(viewport=width)
    for path in PAGES.values():
        page.goto(path)
        page.wait_for_selector("body[data-ready=true]")
        scroll, inner = page.evaluate(
            "() => [document.documentElement.scrollWidth, window.innerWidth]"
        )
        assert scroll <= inner, f"{path} is {scroll} px wide at {inner} px"
        # Every control can be reached by keyboard and shows where the focus is.
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.tagName")
        assert focused in ("A", "BUTTON", "INPUT", "SELECT", "TEXTAREA")


def test_screenshots_for_the_docs(
    new_page: Callable[..., Any], watch: Watch, tmp_path: Path
) -> None:
    """docs/web.md's pictures: written into docs/img/ when CRUEL_SCREENSHOTS=1."""
    out = SHOTS if os.environ.get("CRUEL_SCREENSHOTS") == "1" else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    puzzle = "2027-01-05-expert"
    setup = new_page()
    submit(setup, puzzle, "Alice", par_win(puzzle))
    submit(setup, puzzle, "Bob", longer_win(puzzle))
    shots = {"front": "/", "replay": PAGES["replay"], "leaderboard": f"/leaderboard/{puzzle}"}
    for viewport in (DESKTOP, PHONE):
        page = new_page(viewport=viewport)
        for name, path in shots.items():
            page.goto(path)
            page.wait_for_selector("body[data-ready=true]")
            target = out / f"{name}-{viewport['width']}.png"
            page.screenshot(path=str(target))
            assert target.stat().st_size < 150_000, f"{target.name} is too big"
