"""The play page, /play/{id}, in a real browser, checked against the Python engine.

Each test drives the page as a player would (clicks, a drag, keys) and compares what the page
shows with :mod:`cruel_tools.game.game` playing the same steps: the board read from the DOM (every
card's ``data-card``, every foundation's top card) must be the engine's position.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from cruel_tools.game import cards
from cruel_tools.game.game import Game, IllegalMove, Move, Step
from cruel_tools.game.log import compact, to_step
from tests.helpers import published_puzzles

from .conftest import DESKTOP, PHONE, SHOTS, Server, Watch

PUZZLE = "2027-01-05-easy"  # open on the served day
TOP = '#board li[data-pile="{n}"] button.card'


# --- helpers (test_stats.py uses them too) -----------------------------------------------------


def puzzle(pid: str = PUZZLE) -> Any:
    return published_puzzles().get(pid)


def solution(pid: str = PUZZLE) -> list[Step]:
    """The puzzle's par solution as engine steps."""
    return [to_step(e) for e in puzzle(pid).solution]


def engine(steps: Sequence[Step], pid: str = PUZZLE) -> Game:
    """The Python engine's game after ``steps`` from the puzzle's deal."""
    p = puzzle(pid)
    game = Game.from_deal(
        [[cards.parse(t) for t in pile] for pile in p.deal.piles], p.resolved_rules()
    )
    for step in steps:
        game.push(step)
    return game


def position(game: Game) -> dict[str, Any]:
    """A position as the page's board shows it: card names, and the foundations' ranks."""
    return {
        "piles": [[cards.name(c) for c in pile] for pile in game.piles],
        "foundations": list(game.foundations),
    }


_READ_BOARD = """(sel) => {
  const root = document.querySelector(sel);
  const piles = [...root.querySelectorAll('li.pile')].map(
    (li) => [...li.querySelectorAll('.card')].map((c) => c.dataset.card));
  const foundations = [...root.querySelectorAll('.foundation')].map((f) => {
    const c = f.querySelector('.card');
    return c ? c.dataset.card : null;
  });
  return {piles, foundations};
}"""


def board(page: Any, selector: str = "#board") -> dict[str, Any]:
    """The position the page shows in ``selector`` (a board drawn by board.js)."""
    seen = page.evaluate(_READ_BOARD, selector)
    ranks = [cards.rank(cards.parse(c)) if c else 0 for c in seen["foundations"]]
    return {"piles": seen["piles"], "foundations": ranks}


def counters(page: Any) -> dict[str, int]:
    ids = ("moves", "redeals", "actions", "foundation-cards")
    return {i: int(page.inner_text(f"#{i}")) for i in ids}


def open_play(page: Any, pid: str = PUZZLE, auto: bool = True) -> None:
    """Open the play page of ``pid``; ``auto=False`` turns the page's automatic moves off first
    (a test that clicks a whole solution: the page would finish the game before its end)."""
    if not auto:
        page.add_init_script("localStorage.setItem('cruel.auto', 'off')")
    page.goto(f"/play/{pid}")
    page.wait_for_selector('#board[data-ready="true"] .board')


def click_step(page: Any, game: Game, step: Step, settle: bool = True) -> None:
    """Play ``step`` by mouse as a player would: the card, then its target when two are
    offered (checked against the engine's options); the Redeal button for a redeal."""
    if not isinstance(step, Move):
        page.click("#redeal")
        return
    options = [m for m in game.card_moves() if m.source == step.source]
    # A ranked page adopts the server's answer to the step before when it comes, and draws the
    # board again: a card picked before that is put down (on a loaded machine the answer can
    # come after the next click). Wait until every step is recorded, as a careful player would
    # (``settle``; a test that holds the server's answers back on purpose does not).
    if settle:
        page.wait_for_selector('#live-status[data-pending="0"]', state="attached", timeout=15_000)
    page.click(TOP.format(n=step.source))
    if len(options) > 1:
        assert page.is_visible("#choice"), f"no choice offered for {step}"
        if step.target is None:
            suit = "SHDC"[cards.suit(game.piles[step.source - 1][-1])]
            page.click(f'#board .foundation[data-suit="{suit}"] button.card')
        else:
            page.click(TOP.format(n=step.target))
    else:
        assert not page.is_visible("#choice")


def play_by_clicks(
    page: Any, steps: Sequence[Step], pid: str = PUZZLE, settle: bool = True
) -> Game:
    game = engine([], pid)
    for step in steps:
        click_step(page, game, step, settle)
        game.push(step)
    return game


def shot(page: Any, name: str, tmp_path: Path) -> Path:
    """A screenshot: into docs/img/ with CRUEL_SCREENSHOTS=1 (for docs/web.md), else tmp_path."""
    folder = SHOTS if os.environ.get("CRUEL_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path))
    return path


# --- the tests -------------------------------------------------------------------------------


def test_click_the_solution_to_an_unranked_win_nothing_sent(page: Any) -> None:
    """Without a name the game is the browser's own: played to a win, recorded in this
    browser, and nothing is sent (the ranked win, streamed to the server: test_ranked.py)."""
    sent: list[str] = []
    open_play(page, auto=False)
    page.on("request", lambda r: sent.append(f"{r.method} {r.url}"))
    steps = solution()
    assert page.inner_text("#par") == str(puzzle().par.actions)
    game = play_by_clicks_from(page, steps, 0)
    assert game.is_won()
    assert board(page) == position(game)
    assert page.inner_text("#end-title") == "You won!"
    assert counters(page) == {
        "moves": game.moves,
        "redeals": game.redeals,
        "actions": game.moves + game.redeals,
        "foundation-cards": 52,
    }
    progress = page.evaluate(f"JSON.parse(localStorage.getItem('cruel.progress.{PUZZLE}'))")
    assert progress["steps"] == [compact(s) for s in steps]
    assert "live" not in progress
    verdict = page.locator('#result [data-verdict="unranked"]')
    assert "Played unranked: nothing was sent" in verdict.inner_text()
    assert page.get_attribute("#live-status", "data-status") == "unranked"
    assert [s for s in sent if "/v1/" in s] == []
    # the won game is in this browser's record
    games = page.evaluate("JSON.parse(localStorage.getItem('cruel.games'))")
    assert len(games) == 1 and games[0]["claim"]["outcome"] == "won"
    assert games[0]["meta"]["puzzle"] == PUZZLE


def play_by_clicks_from(page: Any, steps: Sequence[Step], start: int) -> Game:
    game = engine(steps[:start])
    for step in steps[start:]:
        click_step(page, game, step)
        game.push(step)
    return game


def test_an_illegal_action_changes_nothing_and_says_why(page: Any) -> None:
    open_play(page)
    game = engine([])
    before, shown = board(page), counters(page)
    assert before == position(game)
    # a top card that can go nowhere: the engine's refusal to the foundation, and no pile
    stuck = next(n for n in range(1, 13) if not any(m.source == n for m in game.card_moves()))
    with pytest.raises(IllegalMove) as refusal:
        game.copy().move(stuck, None)
    page.click(TOP.format(n=stuck))
    assert page.inner_text("#message") == f"{refusal.value}, and no pile takes it"
    assert board(page) == before and counters(page) == shown
    # a card moved onto a pile that does not take it, by keyboard (focus pile 1, key 3)
    with pytest.raises(IllegalMove) as wrong:
        game.copy().move(1, 3)
    page.focus(TOP.format(n=1))
    page.keyboard.press("3")
    assert page.inner_text("#message") == str(wrong.value)
    assert "cannot go onto" in str(wrong.value)
    # and by drag and drop: pile 1's card dropped on pile 3
    src = page.locator(TOP.format(n=1)).bounding_box()
    dst = page.locator(TOP.format(n=3)).bounding_box()
    page.mouse.move(src["x"] + 10, src["y"] + 10)
    page.mouse.down()
    page.mouse.move(dst["x"] + 20, dst["y"] + 20, steps=5)
    page.mouse.up()
    assert page.inner_text("#message") == str(wrong.value)
    # a redeal in the opening position changes nothing: the engine says why
    problem = game.redeal_problem()
    assert problem is not None
    assert f"Redeal not allowed: {problem}" in page.inner_text("#redeal-note")
    page.click("#redeal")
    assert page.inner_text("#message") == f"No redeal: {problem}"
    assert board(page) == before and counters(page) == shown
    assert page.evaluate(f"localStorage.getItem('cruel.progress.{PUZZLE}')") is None


def test_a_drag_and_drop_moves_a_card(page: Any) -> None:
    open_play(page)
    game = engine([])
    step = next(m for m in game.card_moves() if m.target is not None)
    src = page.locator(TOP.format(n=step.source)).bounding_box()
    dst = page.locator(TOP.format(n=step.target)).bounding_box()
    page.mouse.move(src["x"] + 10, src["y"] + 10)
    page.mouse.down()
    page.mouse.move(dst["x"] + 20, dst["y"] + 20, steps=6)
    page.mouse.up()
    game.push(step)
    assert board(page) == position(game)
    assert counters(page)["moves"] == 1


def test_where_two_targets_are_offered_the_player_chooses(page: Any) -> None:
    open_play(page)
    steps = solution()[:1]
    game = play_by_clicks(page, steps)
    # pile 3's top card may go to its foundation or onto a pile: both are offered
    source = steps[0].source if isinstance(steps[0], Move) else 0
    options = [m for m in game.card_moves() if m.source == source]
    onto = next(m for m in options if m.target is not None)
    assert len(options) == 2 and onto.target is not None
    page.click(TOP.format(n=source))
    choice = page.locator("#choice button[data-choice]")
    assert sorted(choice.evaluate_all("(bs) => bs.map((b) => b.dataset.choice)")) == sorted(
        ["foundation", str(onto.target)]
    )
    target_card = page.locator(TOP.format(n=onto.target))
    assert "(move here: key" in (target_card.get_attribute("aria-label") or "")
    suit = "SHDC"[cards.suit(game.piles[source - 1][-1])]
    assert page.locator("#board .foundation.target").evaluate_all(
        "(fs) => fs.map((f) => f.dataset.suit)"
    ) == [suit]
    assert board(page) == position(game)  # nothing moves before the choice
    page.keyboard.press("Escape")
    assert page.is_hidden("#choice")
    page.click(TOP.format(n=source))
    target_card.click()
    game.push(onto)
    assert board(page) == position(game)
    assert page.inner_text("#message").startswith(f"{onto_words(game, onto)}")


def onto_words(game: Game, step: Move) -> str:
    """The page's words for ``step`` just played in ``game``: card from pile onto card."""
    assert step.target is not None
    pile = game.piles[step.target - 1]
    return (
        f"{cards.symbol(pile[-1])} from pile {step.source} onto "
        f"{cards.symbol(pile[-2])} on pile {step.target}"
    )


def test_undo_and_reload_restore_the_position(page: Any) -> None:
    open_play(page)
    steps = solution()[:9]  # a redeal among them
    play_by_clicks(page, steps)
    assert board(page) == position(engine(steps))
    page.click("#undo")
    page.keyboard.press("u")
    page.keyboard.press("Control+z")
    kept = steps[:6]
    assert board(page) == position(engine(kept))
    game = engine(kept)
    assert counters(page)["moves"] == game.moves and counters(page)["redeals"] == game.redeals
    progress = page.evaluate(f"JSON.parse(localStorage.getItem('cruel.progress.{PUZZLE}'))")
    assert progress["steps"] == [compact(s) for s in kept]
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert board(page) == position(game)
    assert "restored: 6 steps" in page.inner_text("#message")
    # undo all the way back to the deal, then one more says so
    for _ in kept:
        page.click("#undo")
    assert board(page) == position(engine([]))
    page.keyboard.press("u")
    assert page.inner_text("#message") == "Nothing to undo"


def test_redeal_preview_is_the_engines_redeal(page: Any, tmp_path: Path) -> None:
    open_play(page)
    steps = solution()
    first = next(i for i, s in enumerate(steps) if not isinstance(s, Move))
    play_by_clicks(page, steps[:first])
    assert page.is_hidden("#preview-wrap")
    page.click("#preview")
    assert page.get_attribute("#preview", "aria-pressed") == "true"
    after = engine(steps[:first])
    after.redeal()
    assert board(page, "#preview-board") == position(after)
    page.locator("#preview-wrap").scroll_into_view_if_needed()
    shot(page, "play-preview-1280.png", tmp_path)
    page.keyboard.press("r")
    assert board(page) == position(after)
    # the preview follows the position: now a redeal would change nothing
    again = after.copy()
    expected = [[cards.name(c) for c in p] for p in again.piles]
    assert board(page, "#preview-board")["piles"] == expected
    page.keyboard.press("p")
    assert page.is_hidden("#preview-wrap")


def _focused_pile(page: Any) -> int | None:
    found = page.evaluate(
        "() => { const e = document.activeElement && document.activeElement.closest('[data-pile]');"
        " return e ? Number(e.dataset.pile) : null; }"
    )
    return None if found is None else int(found)


def test_twenty_steps_by_keyboard_alone(page: Any) -> None:
    open_play(page)
    steps = solution()[:20]
    game = engine([])
    keys = "1234567890-="
    used_enter = used_choice_key = 0
    for step in steps:
        if not isinstance(step, Move):
            page.keyboard.press("r")
            game.push(step)
            continue
        for _ in range(13):  # arrows to the pile: the focus wraps over the non-empty piles
            if _focused_pile(page) == step.source:
                break
            page.keyboard.press("ArrowRight")
        assert _focused_pile(page) == step.source
        options = [m for m in game.card_moves() if m.source == step.source]
        if len(options) == 1:
            page.keyboard.press("Enter")
            used_enter += 1
        else:
            page.keyboard.press("Enter")  # offers the choice; the target's key picks one
            assert page.is_visible("#choice")
            page.keyboard.press("f" if step.target is None else keys[step.target - 1])
            used_choice_key += 1
        game.push(step)
        assert board(page) == position(game), f"after {compact(step)}"
    assert used_enter >= 10 and used_choice_key >= 3
    assert counters(page)["moves"] + counters(page)["redeals"] == 20
    # F and a pile's key also move the focused pile's card directly
    move = next(game.card_moves())
    for _ in range(13):
        if _focused_pile(page) == move.source:
            break
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("f" if move.target is None else keys[move.target - 1])
    game.push(move)
    assert board(page) == position(game)


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["375px", "1280px"])
def test_nothing_overflows(
    new_page: Callable[..., Any], viewport: dict[str, int], tmp_path: Path
) -> None:
    page = new_page(viewport=viewport)
    open_play(page)
    width = viewport["width"]
    shot(page, f"play-{width}.png", tmp_path)
    steps = solution()[:14]
    play_by_clicks(page, steps)
    page.click("#preview")
    for label in ("after moves, preview on", "opening"):
        sizes = page.evaluate(
            "() => [document.documentElement.scrollWidth, innerWidth,"
            " ...[...document.querySelectorAll('.card')].flatMap((c) => {"
            "   const r = c.getBoundingClientRect(); return [r.left, r.right]; })]"
        )
        scroll, inner, edges = sizes[0], sizes[1], sizes[2:]
        assert scroll <= inner, label
        assert min(edges) >= 0 and max(edges) <= inner, label
        if label.startswith("after"):
            page.click("#restart")
            page.click("#restart")
    # cards stay readable on a phone: at least 14 px text, at least 60 px wide
    font, card_w = page.evaluate(
        "() => { const c = document.querySelector('#board .piles .card');"
        " return [parseFloat(getComputedStyle(c).fontSize), c.getBoundingClientRect().width]; }"
    )
    assert font >= 14 and card_w >= 60
    columns = page.evaluate(
        "getComputedStyle(document.querySelector('#board .piles')).gridTemplateColumns"
        ".split(' ').length"
    )
    # 2 rows of 6 on phones (up to 600 px, issue #36: every control on the first screen) and
    # from 900 px; 3 rows of 4 between
    assert columns == (4 if 600 < width < 900 else 6)


def test_page_weight_and_time_to_a_playable_board(page: Any, server: Server) -> None:
    """Issue #27: the play page under 80 KB transferred (its files gzip-compressed: the service
    compresses for a browser that accepts it), every text file compressed, and a playable board
    in time (benchmarks/web_bench.py measures the median: under 300 ms)."""
    sent: dict[str, tuple[int, str | None]] = {}

    def on_finished(request: Any) -> None:
        response = request.response()
        if response is None or not request.url.startswith(server.url):
            return
        sizes = request.sizes()
        wire = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        sent[request.url] = (wire, response.headers.get("content-encoding"))

    page.on("requestfinished", on_finished)
    open_play(page)
    page.wait_for_load_state("networkidle")
    needed = ("/play/2027-01-05-easy", "/static/play.js", "/static/cruel.js", "/static/i18n.js")
    for _ in range(100):  # on a loaded machine a "finished" event may come after network idle
        paths = {url.removeprefix(server.url): enc for url, (_, enc) in sent.items()}
        if all(path in paths for path in needed):
            break
        page.wait_for_timeout(50)
    for path in needed:
        assert path in paths, sorted(paths)
    for path, encoding in paths.items():
        if path.endswith((".js", ".css")) or path.startswith("/play/"):  # not the API's JSON
            assert encoding == "gzip", path
    weight = sum(wire for wire, _ in sent.values())
    assert weight < 80_000, f"{weight} bytes transferred: {sorted(sent.items())}"
    ready = page.evaluate("performance.getEntriesByName('board-ready')[0].startTime")
    assert 0 < ready < 1500, f"board ready after {ready} ms"


def test_a_puzzle_that_is_not_open_shows_the_services_message(page: Any, watch: Watch) -> None:
    watch.allowed.append("404")
    page.goto("/play/2027-01-06-easy")
    page.wait_for_selector("#message[data-code]", state="attached")
    answer = page.request.get("/v1/puzzles/2027-01-06-easy")
    assert answer.status == 404
    assert page.inner_text("#message") == answer.json()["message"]
    assert page.is_hidden("#game")
    assert page.locator(".card").count() == 0


def test_a_blocked_game_says_so_and_offers_undo_and_restart(page: Any) -> None:
    """Plays random legal card moves in Python until the position is blocked, replays them in
    the page from saved progress, then undoes and starts over (which records the game)."""
    import random

    rng = random.Random(4)
    for _ in range(200):
        game, steps = engine([]), list[Step]()
        while game.outcome() == "in_progress" and len(steps) < 400:
            options = list(game.legal_steps())
            step = rng.choice(options)
            game.push(step)
            steps.append(step)
        if game.outcome() == "blocked":
            break
    assert game.outcome() == "blocked"
    open_play(page)
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [
            f"cruel.progress.{PUZZLE}",
            json.dumps(
                {"steps": [compact(s) for s in steps], "started_at": "2027-01-05T09:00:00+00:00"}
            ),
        ],
    )
    open_play(page)
    assert board(page) == position(game)
    assert page.inner_text("#end-title") == "No move is left"
    assert "this game is lost" in page.inner_text("#end-text")
    page.click("#end-actions >> text=Undo")
    assert board(page) == position(engine(steps[:-1]))
    page.click("#restart")
    page.click("#restart")
    assert board(page) == position(engine([]))
    games = page.evaluate("JSON.parse(localStorage.getItem('cruel.games'))")
    assert len(games) == 1
    assert games[0]["meta"]["started_at"] == "2027-01-05T09:00:00+00:00"
    assert len(games[0]["moves"]) == len(steps) - 1
