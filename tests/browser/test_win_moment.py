"""The win moment, sharing and sound on the play page (issue #36, findings 1 and 9).

- A win opens a dialog over the board with the result (actions against par, time), in view at
  1280x800 and on a 390x844 phone, the focus in it, Esc to close, and the next things to do
  (the day's next tier, share, watch it again, play again); the cards cascade off the
  foundations, except under ``prefers-reduced-motion: reduce``, where nothing moves.
- Share gives a spoiler-free text in the player's language: the puzzle, actions against par,
  time and a line of squares, and no card nor move.
- Sound is off by default (no AudioContext is made), its toggle is remembered across a reload,
  and nothing sounds while the page is hidden.

Each game is won fast: the page is opened on the par solution but its last step (restored
from ``cruel.progress``, as a reload would), and the last step is clicked.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from typing import Any

from cruel_tools.game.game import Move
from cruel_tools.game.log import compact

from .conftest import DESKTOP, SHOTS, TODAY
from .test_play import PUZZLE, click_step, engine, open_play, puzzle, solution

PHONE = {"width": 390, "height": 844}
#: A card named on a face (`4♦`, `10♥`, Dutch `H♣`) or in a log (`4D`, `QS`, `TH`).
CARD = re.compile(r"(?<![\w])(10|[2-9AJQKTBVH])\s?[♠♥♦♣]|(?<![\w])(10|[2-9AJQKTBVH])[SHDC](?!\w)")
#: Move notation: `3-7`, `3→7`, `3F`, `3-7x2`, a lone `R` (a date's `01-05` is not one).
MOVE = re.compile(
    r"(?<![\d-])\d{1,2}\s?[-→]\s?\d{1,2}(?![\d-])|(?<!\w)\d{1,2}[Ff](?!\w)|(?<!\w)R(?!\w)"
)
#: Counts the AudioContexts the page makes.
COUNT_AUDIO = """
window.__audio = 0;
const Real = window.AudioContext;
window.AudioContext = class extends Real {
  constructor(...args) { super(...args); window.__audio += 1; }
};
"""


def started_at() -> str:
    """A start 95 s ago on the served day (the page's clock runs on the game day)."""
    shift = TODAY - dt.date.today()
    now = dt.datetime.now(dt.UTC) + shift - dt.timedelta(seconds=95)
    return now.isoformat(timespec="seconds")


def win(page: Any, query: str = "") -> None:
    """Win the puzzle: restored one step before its end, then the last step clicked."""
    steps = solution()
    progress = {"steps": [compact(s) for s in steps[:-1]], "started_at": started_at()}
    page.add_init_script(
        f"localStorage.setItem('cruel.progress.{PUZZLE}', {json.dumps(json.dumps(progress))});"
        "localStorage.setItem('cruel.auto', 'off');"
    )
    page.goto(f"/play/{PUZZLE}{query}")
    page.wait_for_selector('#board[data-ready="true"] .board')
    click_step(page, engine(steps[:-1]), steps[-1])
    page.wait_for_selector("dialog#win[open]")


def close_win(page: Any) -> None:
    """Close the win dialog as a player would (Esc), once it is open: a test that goes on
    after a win (the leaderboard link, the Ranked play panel) uses the page behind it."""
    page.wait_for_selector("dialog#win[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog#win", state="hidden")


def inside(box: dict[str, float], size: dict[str, int]) -> bool:
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"]
        and box["y"] + box["height"] <= size["height"]
    )


def test_the_win_shows_its_result_in_view_at_1280x800(new_page: Any) -> None:
    check_result_in_view(new_page(viewport=DESKTOP), DESKTOP, "win-1280.png")


def test_the_win_shows_its_result_in_view_on_a_phone(new_page: Any) -> None:
    page = new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    check_result_in_view(page, PHONE, "win-390.png")


def check_result_in_view(page: Any, size: dict[str, int], shot: str) -> None:
    win(page)
    dialog = page.locator("dialog#win")
    assert inside(dialog.bounding_box(), size), dialog.bounding_box()
    assert dialog.locator(".win-close").inner_text() == "Close"
    for el in dialog.locator("[data-line], [data-action], .win-close").all():
        assert inside(el.bounding_box(), size), el.inner_text()
    steps = solution()
    n, par = len(steps), puzzle().par.actions
    lines = dict(
        zip(
            dialog.locator("[data-line]").evaluate_all("els => els.map((e) => e.dataset.line)"),
            dialog.locator("[data-line]").all_inner_texts(),
            strict=True,
        )
    )
    assert lines["actions"] == f"{n} actions: par {par}, at par"
    assert re.fullmatch(r"Time 1:3\d", lines["time"]), lines
    assert lines["streak"] == "Streak: 1 day"
    actions = dialog.locator("[data-action]")
    keys = actions.evaluate_all("els => els.map((e) => e.dataset.action)")
    assert keys == ["next", "share", "replay", "again"]
    nxt = dialog.locator('[data-action="next"]')
    assert nxt.inner_text() == "Next: Medium"
    assert nxt.get_attribute("href") == "/play/2027-01-05-medium"
    assert page.evaluate("document.activeElement.closest('dialog#win') !== null")
    if os.environ.get("CRUEL_SCREENSHOTS") == "1":
        page.wait_for_timeout(300)
        page.screenshot(path=str(SHOTS / shot))
    close_win(page)
    assert page.inner_text("#end-title") == "You won!"  # the board and its end stay


def test_the_cards_cascade_unless_reduced_motion(new_page: Any) -> None:
    moving = new_page(reduced_motion="no-preference")
    win(moving)
    assert moving.locator(".cascade .card").count() == 52
    assert moving.evaluate("document.getAnimations().length") > 0
    still = new_page()  # reduced motion: the result, and nothing moves
    win(still)
    assert still.locator(".cascade").count() == 0
    assert still.evaluate("document.getAnimations().length") == 0


def spoiler_free(text: str) -> None:
    assert not CARD.search(text), text
    assert not MOVE.search(text), text


def test_share_copies_a_text_without_card_or_move(new_page: Any) -> None:
    page = new_page(permissions=["clipboard-read", "clipboard-write"])
    page.add_init_script("Object.defineProperty(navigator, 'share', {value: undefined})")
    win(page)
    page.click('[data-action="share"]')
    page.wait_for_selector('dialog#win[data-shared="copied"]')
    text = page.evaluate("navigator.clipboard.readText()")
    assert page.inner_text("dialog#win .share-text") == text
    assert "Copied" in page.inner_text("dialog#win .win-note")
    spoiler_free(text)
    steps = solution()
    redeals = sum(1 for s in steps if not isinstance(s, Move))
    head, result, squares, url = text.split("\n")
    assert head == "Cruel 2027-01-05 · Easy"
    assert re.fullmatch(
        rf"Won in {len(steps)} actions \(at par, par {len(steps)}\) · ⏱ 1:3\d", result
    )
    assert len(squares) == redeals + 1 and squares.endswith("🟩"), squares
    assert url.endswith(f"/play/{PUZZLE}")
    if os.environ.get("CRUEL_SCREENSHOTS") == "1":
        page.locator("dialog#win").screenshot(path=str(SHOTS / "win-share.png"))


def test_share_text_is_in_dutch_under_dutch(new_page: Any) -> None:
    page = new_page()
    page.add_init_script("navigator.share = async (data) => { window.__shared = data.text; }")
    win(page, "?lang=nl")
    page.click('[data-action="share"]')
    page.wait_for_selector('dialog#win[data-shared="shared"]')
    text = page.evaluate("window.__shared")
    spoiler_free(text)
    head, result = text.split("\n")[:2]
    assert head == "Cruel 2027-01-05 · Makkelijk"
    assert result.startswith(f"Gewonnen in {len(solution())} acties (op par,")
    assert "Won" not in text and "actions" not in text


def test_sound_is_off_by_default_and_its_toggle_is_remembered(new_page: Any) -> None:
    page = new_page()
    page.add_init_script(COUNT_AUDIO)
    open_play(page, auto=False)
    steps = solution()
    game = engine([])
    assert not page.is_checked("#sound")
    click_step(page, game, steps[0])
    game.push(steps[0])
    assert page.evaluate("window.__audio") == 0  # off: no AudioContext at all
    page.check("#sound")
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert page.is_checked("#sound")
    assert page.evaluate("localStorage.getItem('cruel.sound')") == "on"
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => true})"
    )
    click_step(page, game, steps[1])
    game.push(steps[1])
    page.wait_for_timeout(200)
    assert page.evaluate("window.__audio") == 0  # hidden: quiet
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => false})"
    )
    click_step(page, game, steps[2])
    # A function, not an expression: Playwright polls an expression with eval in the page,
    # which the page's Content-Security-Policy refuses (no 'unsafe-eval') once it must wait.
    page.wait_for_function("() => window.__audio === 1")
    page.uncheck("#sound")
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert not page.is_checked("#sound")
