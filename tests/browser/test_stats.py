"""The stats panel (stats.js) against `cruel stats` (cruel_tools.game.stats.record) on the same logs.

The browser's record is seeded with logs built in Python (wins and a loss on different days, in
different offsets, and a log that does not verify), then the page itself records a game started
over (a loss) and a won game played by clicks. The panel's figures must be those of
:func:`cruel_tools.game.stats.record` on exactly the logs the browser kept.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import orjson

from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.log import compact
from cruel_tools.game.rules import PRESETS
from cruel_tools.game.stats import record
from cruel_tools.game.verify import Source
from tests.helpers import puzzle_log

from .conftest import SHOTS, TODAY
from .test_play import PUZZLE, open_play, play_by_clicks, puzzle, solution

ZONE = "Asia/Tokyo"  # the browser's own offset (+09:00): days are counted in it

#: data-stat of each figure -> the Record field it must equal
FIELDS = {
    "played": "played",
    "wins": "wins",
    "winRate": "win_rate",
    "fastestWinSeconds": "fastest_win_seconds",
    "fewestMovesWin": "fewest_moves_win",
    "bestScore": "best_score",
    "currentStreak": "current_streak",
    "bestStreak": "best_streak",
}


def _at(day: dt.date, time: str, offset: str) -> str:
    return f"{day.isoformat()}T{time}{offset}"


def seeded_logs(today: dt.date) -> list[dict[str, Any]]:
    """Two wins and a loss on the three days before ``today``, and one illegal log."""
    d3, d2, d1 = (today - dt.timedelta(days=k) for k in (3, 2, 1))
    win_a = puzzle_log(puzzle("2027-01-01-easy"))
    win_a["meta"] = {
        "player": "Stats Tester",
        "puzzle": "2027-01-01-easy",
        "started_at": _at(d3, "21:00:00", "+01:00"),
        "finished_at": _at(d3, "21:05:30", "+01:00"),
    }
    # finished at 23:58 in its own offset (-05:00): the next day in UTC, its own day here
    win_b = puzzle_log(puzzle("2027-01-02-easy"))
    win_b["meta"] = {
        "player": "Stats Tester",
        "puzzle": "2027-01-02-easy",
        "started_at": _at(d2, "23:50:00", "-05:00"),
        "finished_at": _at(d2, "23:58:00", "-05:00"),
    }
    loss = puzzle_log(puzzle("2027-01-03-medium"))
    loss["moves"] = loss["moves"][:12]
    loss["meta"] = {
        "player": "Stats Tester",
        "puzzle": "2027-01-03-medium",
        "started_at": _at(d1, "08:00:00", "+09:00"),
        "finished_at": _at(d1, "08:20:00", "+09:00"),
    }
    illegal = puzzle_log(puzzle("2027-01-04-easy"))
    illegal["moves"] = [illegal["moves"][0], illegal["moves"][0]] + illegal["moves"][1:]
    illegal["meta"] = {"finished_at": _at(today, "07:00:00", "+09:00")}
    return [win_a, win_b, loss, illegal]


def game_day() -> dt.date:
    """The day the page lives on (docs/web.md "The game day"): the served day when it is more
    than a day from the browser's own date (the demo's), else the browser's date."""
    local = dt.datetime.now(ZoneInfo(ZONE)).date()
    return TODAY if abs((TODAY - local).days) > 1 else local


def panel(page: Any) -> dict[str, float | None]:
    values = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#stats dd[data-stat]')]"
        ".map((d) => [d.dataset.stat, d.dataset.value]))"
    )
    return {k: (float(v) if v != "" else None) for k, v in values.items()}


def test_stats_panel_agrees_with_cruel_stats(new_page: Callable[..., Any], tmp_path: Path) -> None:
    _play_and_compare(new_page(timezone_id=ZONE), tmp_path)


def _play_and_compare(page: Any, tmp_path: Path) -> None:
    today = game_day()
    open_play(page)
    assert panel(page)["played"] == 0
    assert page.inner_text('#stats dd[data-stat="winRate"]') == "—"
    page.evaluate(
        "(games) => localStorage.setItem('cruel.games', games)", json.dumps(seeded_logs(today))
    )
    open_play(page, auto=False)  # the whole solution by clicks: no automatic moves
    # a game started over counts as played (a loss) ...
    steps = solution()
    play_by_clicks(page, steps[:7])
    page.click("#restart")
    page.click("#restart")
    # ... and a win by clicks, today in the browser's own offset
    play_by_clicks(page, steps)
    assert page.inner_text("#end-title") == "You won!"
    page.wait_for_selector('#stats dd[data-stat="played"]', state="attached")
    games = page.evaluate("JSON.parse(localStorage.getItem('cruel.games'))")
    assert len(games) == 6
    assert games[-1]["meta"]["finished_at"].startswith(today.isoformat())
    assert games[-1]["meta"]["finished_at"].endswith("+09:00")
    units = [(Source(file=f"game{i}"), orjson.dumps(g)) for i, g in enumerate(games)]
    rec = record(units)
    # the page's own logs verify; only the seeded illegal one is left out
    assert [e.source.file for e in rec.excluded] == ["game3"]
    assert (rec.played, rec.wins) == (5, 3)
    assert (rec.current_streak, rec.best_streak) == (1, 2)
    assert rec.reference_day == today
    shown = panel(page)
    expected = {key: getattr(rec, field) for key, field in FIELDS.items()}
    assert shown == {k: (None if v is None else float(v)) for k, v in expected.items()}
    text = page.inner_text("#stats")
    assert "60.0%" in text and "1 day" in text and "2 days" in text
    assert f"{rec.best_score}/52" in text
    # a reload shows the same record
    open_play(page)
    assert panel(page) == shown
    folder = SHOTS if os.environ.get("CRUEL_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.locator("#stats").screenshot(path=str(folder / "stats-panel.png"))
    assert PUZZLE in page.url


def logs_the_browser_once_dropped(today: dt.date) -> list[dict[str, Any]]:
    """Logs `cruel stats` counts that stats.js once left out, reading logs by itself: compact
    moves in lower case (``"r"``, ``"3f"``), a 13-pile preset (``ripple-fan-pysolfc``, whose
    deal numbers name other piles), a preset by a rules object; and a false claim, which both
    leave out."""
    won = puzzle_log(puzzle("2027-01-01-easy"), compact=True)
    won["moves"] = [m.lower() for m in won["moves"]]
    assert "r" in won["moves"] and any(m.endswith("f") for m in won["moves"])
    won["meta"] = {"finished_at": _at(today, "09:00:00", "+09:00")}
    games: list[dict[str, Any]] = []
    for k, spec in enumerate(["ripple-fan-pysolfc", {"preset": "royal-family-pysolfc"}]):
        rules = PRESETS["ripple-fan-pysolfc" if k == 0 else "royal-family-pysolfc"]
        game = Game.trusted(deal_piles(40 + k, rules), rules)
        steps = []
        for _ in range(30):  # the first legal step each time: a game of its own, its own claim
            legal = list(game.legal_steps())
            if not legal:
                break
            game.push(legal[0])
            steps.append(compact(legal[0]))
        log: dict[str, Any] = {
            "format": "cruel-log/1",
            "rules": spec,
            "deal": {"number": 40 + k},
            "moves": steps,
            "claim": {
                "outcome": game.outcome(),
                "foundation_cards": game.foundation_cards,
                "moves": game.moves,
                "redeals": game.redeals,
            },
            "meta": {"finished_at": _at(today - dt.timedelta(days=1), "10:00:00", "+09:00")},
        }
        games.append(log)
    assert len(games[0]["moves"]) >= 10 and games[0]["claim"]["foundation_cards"] > 0
    false_claim = json.loads(json.dumps(games[0]))
    false_claim["claim"]["moves"] += 1
    return [won, *games, false_claim]


def test_stats_panel_counts_every_log_cruel_stats_counts(new_page: Callable[..., Any]) -> None:
    page = new_page(timezone_id=ZONE)
    today = game_day()
    logs = logs_the_browser_once_dropped(today)
    open_play(page)
    page.evaluate("(games) => localStorage.setItem('cruel.games', games)", json.dumps(logs))
    open_play(page)
    units = [(Source(file=f"game{i}"), orjson.dumps(g)) for i, g in enumerate(logs)]
    rec = record(units)
    assert [e.source.file for e in rec.excluded] == ["game3"]
    assert [e.code for e in rec.excluded] == ["claim-mismatch"]
    assert (rec.played, rec.wins) == (3, 1)
    expected = {key: getattr(rec, field) for key, field in FIELDS.items()}
    assert panel(page) == {k: (None if v is None else float(v)) for k, v in expected.items()}
