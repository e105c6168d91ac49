"""The leaderboard page (/leaderboard/{id}) in a real browser: entries submitted through the API
listed in rank order, best per player, by server time, replay links only once closed."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from .conftest import TODAY, Server, Watch
from .test_replay import live_win, longer_win, par_win, submit

PUZZLE = "2027-01-05-hard"  # open on the served date; no other test submits to it


def rows(page: Any) -> list[dict[str, Any]]:
    """The table as shown: one dict per row."""
    shown: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('#rows tr')].map((tr) => ({
          submission_id: Number(tr.dataset.submission),
          rank: Number(tr.querySelector('.rank').textContent),
          player: tr.querySelector('.player').textContent,
          actions: Number(tr.querySelector('.actions').textContent),
          moves: Number(tr.querySelector('.moves').textContent),
          redeals: Number(tr.querySelector('.redeals').textContent),
          time: tr.querySelector('.time')?.textContent ?? null,
          replay: tr.querySelector('a.replay-link')?.getAttribute('href') ?? null,
        }))"""
    )
    return shown


def loaded(page: Any, key: str) -> None:
    """Wait until the table shows the answer for ``by:best:offset:limit``."""
    page.wait_for_selector(f"#entries[data-loaded='{key}']", state="attached")


def test_entries_in_rank_order_best_per_player_by_time_and_replays_once_closed(
    page: Any, server: Server
) -> None:
    # Entries of a live attempt have the server's time; a submitted log has none (and one at
    # par or better would wait for a moderator, so the submitted one is longer).
    best = live_win(page, PUZZLE, "Ranker", par_win(PUZZLE))
    worse = submit(page, PUZZLE, "Ranker", longer_win(PUZZLE))
    timed = live_win(page, PUZZLE, "Timer", par_win(PUZZLE))
    assert best["accepted"] and worse["accepted"] and timed["accepted"]
    assert None not in (best["rank"], worse["rank"], timed["rank"])
    assert worse["actions"] > best["actions"]

    page.goto(f"/leaderboard/{PUZZLE}?all=1")
    loaded(page, "actions:false:0:25")
    assert page.get_by_label("Every entry (not only each player’s best)").is_checked()
    puzzle = page.request.get(f"/v1/puzzles/{PUZZLE}").json()
    meta = page.locator("#meta").inner_text()
    assert f"{puzzle['par']['actions']} actions" in meta and "Hard" in meta
    api = page.request.get(
        f"/v1/puzzles/{PUZZLE}/leaderboard?limit=25&best_per_player=false"
    ).json()["entries"]
    shown = rows(page)
    assert [(r["submission_id"], r["rank"], r["player"], r["actions"]) for r in shown] == [
        (e["submission_id"], e["rank"], e["player"], e["actions"]) for e in api
    ]
    mine = [r for r in shown if r["player"] == "Ranker"]
    assert [r["submission_id"] for r in mine] == [best["submission_id"], worse["submission_id"]]
    assert [r["actions"] for r in mine] == [best["actions"], worse["actions"]]
    assert [(r["moves"], r["redeals"]) for r in mine] == [
        (best["moves"], best["redeals"]),
        (worse["moves"], worse["redeals"]),
    ]
    assert mine[0]["rank"] < mine[1]["rank"]
    assert [r["rank"] for r in shown] == sorted(r["rank"] for r in shown)
    # Open: no entry's game yet, and the page says when.
    assert all(r["replay"] is None for r in shown)
    assert page.locator("a.replay-link").count() == 0
    assert "once it closes" in page.locator("#links").inner_text()

    # Best per player (the default, issue #24): Ranker's best entry only.
    page.get_by_label("Every entry (not only each player’s best)").uncheck()
    loaded(page, "actions:true:0:25")
    mine = [r for r in rows(page) if r["player"] == "Ranker"]
    assert [r["submission_id"] for r in mine] == [best["submission_id"]]
    assert "all=1" not in page.url
    page.goto(f"/leaderboard/{PUZZLE}")
    loaded(page, "actions:true:0:25")
    assert not page.get_by_label("Every entry (not only each player’s best)").is_checked()
    assert len([r for r in rows(page) if r["player"] == "Ranker"]) == 1
    page.get_by_label("Every entry (not only each player’s best)").check()
    loaded(page, "actions:false:0:25")
    assert "all=1" in page.url
    assert len([r for r in rows(page) if r["player"] == "Ranker"]) == 2

    # By server time: only the timed entries, fastest first, with their times.
    page.get_by_label("Rank by").select_option("time")
    loaded(page, "time:false:0:25")
    timed_rows = rows(page)
    fastest = sorted([best, timed], key=lambda e: (e["elapsed_ms"], e["submission_id"]))
    assert [r["submission_id"] for r in timed_rows] == [e["submission_id"] for e in fastest]
    assert all(re.fullmatch(r"\d+\.\d s|\d+:\d\d\.\d", r["time"] or "") for r in timed_rows)

    # Closed: every entry's game, and the solution, can be replayed.
    server.settings.fixed_today = dt.date(2027, 1, 6)
    try:
        page.goto(f"/leaderboard/{PUZZLE}?all=1")
        loaded(page, "actions:false:0:25")
        for r in rows(page):
            assert r["replay"] == f"/replay?puzzle={PUZZLE}&entry={r['submission_id']}"
        assert page.locator("#solution-link").get_attribute("href") == f"/replay?puzzle={PUZZLE}"
        page.locator(f"tr[data-submission='{worse['submission_id']}'] a.replay-link").click()
        page.wait_for_selector("body[data-ready=true]")
        assert page.locator("#title").inner_text() == (
            f"Entry {worse['submission_id']} of {PUZZLE} by Ranker"
        )
        assert page.locator("#steps li").count() == worse["actions"] + 1
    finally:
        server.settings.fixed_today = TODAY


def test_pages_of_entries(page: Any) -> None:
    puzzle = "2027-01-05-expert"
    base = longer_win(puzzle)
    for n in range(12):
        # Twelve players, one entry each: a win over par, submitted (only par or better waits
        # for a moderator); live play is tested elsewhere, and 12 live games cost 40 s.
        assert submit(page, puzzle, f"Pager {n:02d}", base)["rank"] is not None
    page.goto(f"/leaderboard/{puzzle}?limit=10")
    loaded(page, "actions:true:0:10")
    total = page.request.get(f"/v1/puzzles/{puzzle}/leaderboard").json()["total"]
    assert total >= 12
    assert len(rows(page)) == 10
    assert page.get_by_role("button", name="← Previous").is_disabled()
    assert page.locator("#page-info").inner_text() == f"1–10 of {total}"
    page.get_by_role("button", name="Next →").click()
    loaded(page, "actions:true:10:10")
    assert "offset=10" in page.url
    second = rows(page)
    api = page.request.get(f"/v1/puzzles/{puzzle}/leaderboard?limit=10&offset=10").json()
    assert [r["submission_id"] for r in second] == [e["submission_id"] for e in api["entries"]]
    page.get_by_role("button", name="← Previous").click()
    loaded(page, "actions:true:0:10")


def test_a_puzzle_not_open_says_so_in_the_services_words(page: Any, watch: Watch) -> None:
    watch.allowed.append("status of 404")
    expected = page.request.get("/v1/puzzles/2027-01-07-easy").json()["message"]
    page.goto("/leaderboard/2027-01-07-easy")
    page.wait_for_selector("body[data-ready=true]")
    assert page.get_by_role("alert").inner_text() == expected
    assert page.locator("#board-section").is_hidden()
