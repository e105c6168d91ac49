"""Ranked play on the play page: a live attempt streamed step by step, under a player's token.

The page claims a name (``POST /v1/players``), keeps its token, starts a live attempt at the
first move and sends each step as it is played; the server's answer decides the line that
stands. Each test checks what the page shows against the Python engine playing the server's
line (``GET /v1/attempts/{id}``, read with the page's own token), and that a browser without
the token cannot play under the name. The test server's speed floor is 0 (conftest.py):
Playwright clicks faster than people.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cruel_tools.game.game import Game, IllegalMove, Move, Step
from cruel_tools.game.log import compact, to_step

from .conftest import Server, Watch
from .test_play import (
    PUZZLE,
    board,
    click_step,
    engine,
    open_play,
    play_by_clicks,
    play_by_clicks_from,
    position,
    solution,
)

RANKED = "2027-01-05-medium"  # open on the served date; only these tests play it ranked


@pytest.fixture(autouse=True)
def closed_server(server: Server) -> Iterator[None]:
    """The server without ``--open`` (a local demo's switch): the page plays ranked with its
    player token alone."""
    server.settings.open = False
    try:
        yield
    finally:
        server.settings.open = True


def claim(page: Any, name: str) -> None:
    """Choose ``name`` in the Ranked play panel, as a player does."""
    page.fill("#claim-name", name)
    page.click("#claim")
    page.wait_for_selector("#ranked-as")
    assert name in page.inner_text("#ranked-as")


def set_auto(page: Any, on: bool) -> None:
    box = page.locator("#auto-moves")
    if box.is_checked() != on:
        box.click()


def synced(page: Any) -> str:
    """Wait until every step played is answered by the server; the attempt's status."""
    page.wait_for_selector(
        '#live-status[data-pending="0"]:not([data-status="starting"])', state="attached"
    )
    return str(page.get_attribute("#live-status", "data-status"))


def token(page: Any, name: str) -> str:
    found = page.evaluate(
        "(n) => JSON.parse(localStorage.getItem('cruel.tokens') || '{}')[n]", name
    )
    assert isinstance(found, str) and found
    return found


def attempt_state(
    page: Any, name: str, pid: str = PUZZLE, attempt: str | None = None
) -> dict[str, Any]:
    """The server's state of the page's live attempt (or of ``attempt``), read with the
    page's token."""
    if attempt is None:
        progress = page.evaluate(f"JSON.parse(localStorage.getItem('cruel.progress.{pid}'))")
        attempt = progress["live"]["id"]
    answer = page.request.get(
        f"/v1/attempts/{attempt}",
        headers={"Authorization": f"Player {token(page, name)}"},
    )
    assert answer.status == 200, answer.text()
    doc: dict[str, Any] = answer.json()
    return doc


def line_game(state: dict[str, Any], pid: str = PUZZLE) -> Game:
    """The engine's game after the server's standing line."""
    return engine([to_step(e["step"]) for e in state["line"]], pid)


def test_a_ranked_win_clicked_is_on_the_leaderboard_with_the_servers_line(
    new_page: Callable[..., Any], watch: Watch
) -> None:
    page = new_page()
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url.split('/v1/', 1)[-1]}"))
    player = "Live Clicker"
    open_play(page, RANKED)
    assert page.get_attribute("#live-status", "data-status") == "unranked"
    claim(page, player)
    set_auto(page, False)  # the player's own steps only: the published solution, click by click
    assert page.get_attribute("#live-status", "data-status") == "ready"
    steps = solution(RANKED)
    with page.expect_response(lambda r: r.url.endswith(f"/puzzles/{RANKED}/attempts")) as started:
        click_step(page, engine([], RANKED), steps[0])
    assert started.value.status == 201
    assert started.value.request.headers["authorization"] == f"Player {token(page, player)}"
    game = engine(steps[:1], RANKED)
    for step in steps[1:]:
        click_step(page, game, step)
        game.push(step)
    assert game.is_won()
    assert synced(page) == "won"
    verdict = page.locator('#result [data-verdict="accepted"]')
    verdict.wait_for()
    text = verdict.inner_text()
    state = attempt_state(page, player, RANKED)
    entry = state["entry"]
    assert state["status"] == "won" and state["flags"] == []
    assert [e["step"] for e in state["line"]] == [compact(s) for s in steps]
    assert not any(e["auto"] for e in state["line"])
    assert f"rank {entry['rank']} for {player}" in text
    assert f"{len(steps)} actions, at par" in text and "server time" in text
    assert verdict.locator("a").get_attribute("href") == f"/leaderboard/{RANKED}"
    assert board(page) == position(line_game(state, RANKED))
    # every step went to the server as it was played; no log was submitted
    assert not any("/submissions" in s for s in sent)
    assert sum(s.startswith("POST attempts/") and s.endswith("/steps") for s in sent) >= 2
    assert state["player_steps"] == len(steps)
    # the entry, with the server's time, on the leaderboard (API and page)
    entries = page.request.get(f"/v1/puzzles/{RANKED}/leaderboard?limit=100").json()["entries"]
    mine = [e for e in entries if e["player"] == player]
    assert len(mine) == 1 and mine[0]["actions"] == len(steps)
    assert mine[0]["submission_id"] == entry["submission_id"]
    assert mine[0]["elapsed_ms"] == state["elapsed_ms"]
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('cruel.result.{RANKED}'))")
    assert stored["submission_id"] == entry["submission_id"]
    # the win's dialog (issue #36) says the rank too, and is closed as a player would
    rank = page.locator('dialog#win [data-line="rank"]')
    rank.filter(has_text=f"Rank {entry['rank']} on the leaderboard").wait_for()
    from .test_win_moment import close_win

    close_win(page)
    page.click(f'#result a[href="/leaderboard/{RANKED}"]')
    page.get_by_text(player).first.wait_for()


def test_a_browser_without_the_token_cannot_play_under_the_name(
    new_page: Callable[..., Any], watch: Watch, server: Server
) -> None:
    watch.allowed += ["409", "401"]
    owner = new_page()
    open_play(owner)
    claim(owner, "Ada Web")
    other = new_page()  # another browser context: its own storage, no token
    open_play(other)
    other.evaluate("localStorage.setItem('cruel.player', 'Ada Web')")
    with other.expect_response(lambda r: r.url.endswith("/v1/players")) as claimed:
        open_play(other)
    assert claimed.value.status == 409
    note = other.locator("#player-note")
    note.wait_for()
    assert "The name Ada Web is taken" in note.inner_text()
    assert other.is_visible("#link-form")  # "link this device" with a code
    assert other.input_value("#link-name") == "Ada Web"
    # the game is unranked there: a move sends nothing
    sent: list[str] = []
    other.on("request", lambda r: sent.append(r.url))
    first = solution()[0]
    click_step(other, engine([]), first)
    assert board(other) == position(engine([first]))
    assert other.get_attribute("#live-status", "data-status") == "unranked"
    assert not any("/attempts" in u for u in sent)
    # and the API refuses a keyless attempt under the claimed name, even on an --open server
    forged = other.request.post(f"/v1/puzzles/{PUZZLE}/attempts", data={"player": "Ada Web"})
    assert forged.status == 401, forged.text()
    server.settings.open = True
    forged = other.request.post(f"/v1/puzzles/{PUZZLE}/attempts", data={"player": "Ada Web"})
    assert forged.status == 401, forged.text()
    assert forged.json()["code"] == "token-required"


def test_link_a_second_device_with_a_code(new_page: Callable[..., Any], watch: Watch) -> None:
    watch.allowed += ["409", "422", "400", "403"]
    first = new_page()
    open_play(first)
    claim(first, "Two Devices")
    first.click("#make-code")
    code = first.locator("#link-code").inner_text()
    assert len(code) >= 6
    second = new_page()
    open_play(second)
    second.click("#show-link")
    second.fill("#link-name", "Two Devices")
    second.fill("#link-code-input", code)
    second.click("#link-device")
    second.wait_for_selector("#ranked-as")
    assert token(second, "Two Devices") != token(first, "Two Devices")
    # the second device plays ranked under the name
    with second.expect_response(lambda r: r.url.endswith("/attempts")) as started:
        click_step(second, engine([]), solution()[0])
    assert started.value.status == 201
    assert synced(second) == "playing"
    assert attempt_state(second, "Two Devices")["player"] == "Two Devices"
    # a code works once
    third = new_page()
    open_play(third)
    third.click("#show-link")
    third.fill("#link-name", "Two Devices")
    third.fill("#link-code-input", code)
    third.click("#link-device")
    third.locator("#player-note.error").wait_for()
    assert third.locator("#ranked-as").count() == 0


def test_undo_during_a_live_attempt_and_reload(page: Any) -> None:
    open_play(page)
    claim(page, "Live Undoer")
    set_auto(page, False)
    steps = solution()[:6]
    play_by_clicks(page, steps)
    page.click("#undo")
    page.keyboard.press("u")
    assert synced(page) == "playing"
    kept = steps[:4]
    state = attempt_state(page, "Live Undoer")
    assert [e["step"] for e in state["line"]] == [compact(s) for s in kept]
    assert state["player_steps"] == 8  # six steps and two undos, each sent
    assert board(page) == position(engine(kept)) == position(line_game(state))
    # a reload restores the attempt from the server
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert synced(page) == "playing"
    assert "restored from the server: 4 steps" in page.inner_text("#message")
    assert board(page) == position(engine(kept))
    # and the attempt goes on: one more step is recorded
    click_step(page, engine(kept), steps[4])
    synced(page)
    assert len(attempt_state(page, "Live Undoer")["line"]) == 5


#: Notes the page's Web Audio plays, by frequency (sound.js: a card moved is 520 Hz; a card on
#: its foundation is 784 then 1046 Hz; a win begins at 523 Hz).
COUNT_NOTES = """
window.__notes = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.__notes.push(this.frequency.value);
  return start.apply(this, args);
};
"""


@pytest.mark.slow  # a whole published game (the server's moves: tests/test_live_attempts.py)
def test_automatic_moves_come_from_the_server_and_are_shown(page: Any) -> None:
    """...and heard: with sound on, the server's automatic moves sound as the page's own do
    (issue #36)."""
    page.add_init_script(COUNT_NOTES)
    open_play(page, RANKED)
    page.check("#sound")
    claim(page, "Auto Mover")
    assert page.locator("#auto-moves").is_checked()  # on unless the player turned it off
    # The published solution, click by click, until the server moves cards by itself (its
    # moves are safe ones only: here, once the foundations alone finish the game).
    game = engine([], RANKED)
    for step in solution(RANKED):
        page.evaluate("window.__notes = []")
        own_home = isinstance(step, Move) and step.target is None  # this click's own sound
        click_step(page, game, step)
        synced(page)
        state = attempt_state(page, "Auto Mover", RANKED)
        game = line_game(state, RANKED)
        assert board(page) == position(game)
        if any(e["auto"] for e in state["line"]):
            break
    else:
        raise AssertionError("the server made no automatic move")
    # The click's sound, then one foundation sound for the server's answer (and a win's
    # arpeggio, which holds a 784 Hz note too, if the server's moves finished the game).
    heard = 1 + own_home + game.is_won()
    page.wait_for_function(f"() => window.__notes.filter((f) => f === 784).length >= {heard}")
    assert page.evaluate("window.__notes.filter((f) => f === 784).length") == heard
    made = [e for e in state["line"] if e["auto"]]
    message = page.inner_text("#message")
    assert "Moved to the foundations automatically" in message
    assert int(page.get_attribute("#message", "data-auto") or 0) == len(made)
    own = [e for e in state["line"] if not e["auto"]]
    assert state["player_steps"] == len(own)  # the server's moves are not the player's
    if game.is_won():  # the foundations finished it: a win, ranked by the player's steps
        assert state["status"] == "won" and "You won!" in message
        page.locator('#result [data-verdict="accepted"]').wait_for()


def test_give_up_ends_the_ranked_game(page: Any) -> None:
    open_play(page)
    claim(page, "Quitter")
    set_auto(page, False)
    play_by_clicks(page, solution()[:3])
    synced(page)
    attempt = attempt_state(page, "Quitter")["attempt"]
    page.click("#give-up")
    page.click("#give-up")
    assert synced(page) == "given-up"
    assert attempt_state(page, "Quitter", attempt=attempt)["status"] == "given-up"
    assert page.is_hidden("#give-up")
    # counted once in this browser's stats: played, not won
    games = page.evaluate("JSON.parse(localStorage.getItem('cruel.games'))")
    assert len(games) == 1 and games[0]["meta"]["given_up"] is True
    assert games[0]["meta"]["attempt"] == attempt
    assert "unranked" in page.inner_text("#live-status")
    # what is played after it is the browser's own, and a reload keeps it so
    play_by_clicks_from(page, solution()[:4], 3)
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert board(page) == position(engine(solution()[:4]))
    assert page.get_attribute("#live-status", "data-status") == "unranked"
    assert "Start over to play it ranked" in page.inner_text("#live-status")


def test_a_step_the_server_refuses_shows_the_servers_position(page: Any, watch: Watch) -> None:
    """Another client of the same token takes a step back behind the page's back: the page's
    next step no longer plays on the server, which refuses it; the page shows the server's
    position and says so."""
    watch.allowed.append("422")
    open_play(page)
    claim(page, "Two Windows")
    set_auto(page, False)
    steps = solution()[:3]
    play_by_clicks(page, steps[:2])
    synced(page)
    state = attempt_state(page, "Two Windows")
    undo = page.request.post(
        f"/v1/attempts/{state['attempt']}/steps",
        data={"steps": ["undo", "undo"]},
        headers={"Authorization": f"Player {token(page, 'Two Windows')}"},
    )
    assert undo.status == 200, undo.text()
    click_step(page, engine(steps[:2]), steps[2])
    synced(page)
    server = attempt_state(page, "Two Windows")
    assert board(page) == position(line_game(server))
    message = page.inner_text("#message")
    if _legal_after(steps[2], engine([])):  # taken from the deal: not the line the page meant
        assert [e["step"] for e in server["line"]] == [compact(steps[2])]
        assert "The server's line differs from this page's" in message
    else:
        assert server["line"] == []
        assert "The server refused" in message
    assert "shows the server's position" in message


def _legal_after(step: Any, game: Game) -> bool:
    try:
        game.copy().push(step)
    except IllegalMove:
        return False
    return True


@pytest.mark.slow  # retries wait 0.3, 1 and 3 s
@pytest.mark.parametrize("failures", [2, 99], ids=["recovers", "gives-up"])
def test_a_lost_connection_is_tried_again_then_said(page: Any, watch: Watch, failures: int) -> None:
    watch.allowed += ["ERR_FAILED", "Failed to load resource"]
    open_play(page)
    name = f"Flaky {failures}"
    claim(page, name)
    set_auto(page, False)
    steps = solution()[:3]
    play_by_clicks(page, steps[:1])
    synced(page)
    left = {"n": failures}

    def flaky(route: Any) -> None:
        if route.request.url.endswith("/steps") and left["n"] > 0:
            left["n"] -= 1
            route.abort()
        else:
            route.continue_()

    page.route("**/v1/attempts/**", flaky)
    click_step(page, engine(steps[:1]), steps[1])
    status = synced(page)
    if failures < 4:
        assert status == "playing"
        assert len(attempt_state(page, name)["line"]) == 2
        assert board(page) == position(engine(steps[:2]))
    else:
        assert status == "failed"
        assert "could not be recorded" in page.inner_text("#message")
        assert board(page) == position(engine(steps[:2]))  # the game goes on here
        click_step(page, engine(steps[:2]), steps[2])  # unranked now: nothing more is sent
        assert left["n"] == failures - 4
        assert board(page) == position(engine(steps))
        page.reload()  # and a reload keeps the browser's game
        page.wait_for_selector('#board[data-ready="true"] .board')
        assert board(page) == position(engine(steps))
    page.unroute("**/v1/attempts/**")


def test_a_win_too_fast_for_a_person_is_held_for_review(page: Any) -> None:
    """The server's first answer is held back while the rest of the game is clicked, so the
    steps reach it in one batch, as a bot sends them: the win is flagged (``batched``), kept
    off the board, and the page says so."""
    open_play(page, RANKED)
    claim(page, "Batcher")
    set_auto(page, False)
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/steps", hold_the_first)
    steps = solution(RANKED)
    play_by_clicks(page, steps, RANKED, settle=False)
    page.wait_for_timeout(50)
    assert len(held) == 1  # one request on its way: the other steps wait in the page's queue
    held[0].continue_()
    assert synced(page) == "won"
    verdict = page.locator('#result [data-verdict="held"]')
    verdict.wait_for()
    assert "Held for review" in verdict.inner_text()
    state = attempt_state(page, "Batcher", RANKED)
    assert "batched" in state["flags"] and state["entry"]["rank"] is None
    entries = page.request.get(f"/v1/puzzles/{RANKED}/leaderboard?limit=100").json()["entries"]
    assert "Batcher" not in [e["player"] for e in entries]


def test_your_data_downloaded_and_deleted(page: Any, watch: Watch) -> None:
    watch.allowed += ["401", "403", "404"]
    open_play(page)
    claim(page, "Data Owner")
    set_auto(page, False)
    play_by_clicks(page, solution()[:2])
    synced(page)
    held = token(page, "Data Owner")
    page.click("#your-data summary")
    with page.expect_download() as got:
        page.click("#export-data")
    download = got.value
    assert download.suggested_filename == "cruel-Data Owner.json"
    doc = json.loads(Path(download.path()).read_text(encoding="utf-8"))
    assert doc["format"] == "cruel-player-data/1" and doc["player"] == "Data Owner"
    assert len(doc["attempts"]) == 1
    # deleting asks again; "Keep my data" keeps it
    page.click("#delete-data")
    assert "cannot be undone" in page.inner_text("#player-note")
    page.click("#delete-cancel")
    assert page.locator("#delete-confirm").count() == 0
    page.click("#delete-data")
    with page.expect_response(lambda r: r.request.method == "DELETE") as deleted:
        page.click("#delete-confirm")
    assert deleted.value.status == 200, deleted.value.text()
    page.locator("#claim-form").wait_for()
    assert "deleted" in page.inner_text("#player-note")
    assert page.evaluate("localStorage.getItem('cruel.player')") is None
    assert page.evaluate("JSON.parse(localStorage.getItem('cruel.tokens'))") == {}
    gone = page.request.get(
        "/v1/players/Data%20Owner/data", headers={"Authorization": f"Player {held}"}
    )
    assert gone.status in (401, 403, 404)


def test_a_blocked_ranked_game_can_be_undone_then_ends_blocked(page: Any) -> None:
    """A line that leaves no legal step, clicked: the server says blocked and keeps the attempt
    open for an undo; the page offers Undo; giving up there ends the attempt blocked."""
    rng = random.Random(4)
    for _ in range(200):
        game, steps = engine([]), list[Step]()
        while game.outcome() == "in_progress" and len(steps) < 400:
            step = rng.choice(list(game.legal_steps()))
            game.push(step)
            steps.append(step)
        if game.outcome() == "blocked":
            break
    assert game.outcome() == "blocked"
    open_play(page)
    claim(page, "Blocker")
    set_auto(page, False)
    play_by_clicks(page, steps)
    assert synced(page) == "blocked"
    attempt = attempt_state(page, "Blocker")["attempt"]
    assert page.inner_text("#end-title") == "No move is left"
    assert "undo, or give up" in page.inner_text("#live-status")
    page.click("#end-actions >> text=Undo")
    assert synced(page) == "playing"
    assert board(page) == position(engine(steps[:-1]))
    click_step(page, engine(steps[:-1]), steps[-1])
    assert synced(page) == "blocked"
    page.click("#give-up")
    page.click("#give-up")
    page.locator("#message", has_text="This ranked game ends lost").wait_for()
    state = attempt_state(page, "Blocker", attempt=attempt)
    assert state["finished"] and state["status"] == "blocked"
    assert page.is_hidden("#give-up")
