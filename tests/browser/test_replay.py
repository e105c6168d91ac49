"""The replay page (/replay) in a real browser: published solutions, pasted logs (legal or not)
and leaderboard entries, against the CLI's `cruel replay` (its words and its final position)."""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.game import cards
from cruel_tools.game.game import REDEAL, Game, Step
from cruel_tools.game.log import compact, to_step
from cruel_tools.puzzles import find_puzzle, puzzle_solution_log
from cruel_tools.search.solver import solution_log, solve

from .conftest import ROOT, TODAY, Server, Watch

SOLVED = "2027-01-04-easy"  # closed on the served date: its solution is public
SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}

# --- helpers (the leaderboard's tests use them too) ----------------------------------------


def cli(*args: str) -> str:
    """What ``cruel ARGS`` prints."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code in (0, 1), result.output
    return result.output


def cli_final(path: Path) -> dict[str, Any]:
    """The final position ``cruel replay --final`` prints: piles of card names, foundation
    ranks as printed (``A``, ``8``, ``K``)."""
    lines = cli("replay", "--final", str(path)).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(("Final position", "Position")))
    foundations = {SYMBOLS[s]: r for s, r in re.findall(r"([♠♥♦♣]) (\w+)", lines[at + 1])}
    piles = []
    for line in lines[at + 2 : at + 14]:
        text = line.split(":", 1)[1].strip()
        piles.append([] if text == "(empty)" else [c[:-1] + SYMBOLS[c[-1]] for c in text.split()])
    return {"piles": piles, "foundations": foundations}


def cli_replay(path: Path) -> dict[str, Any]:
    """``cruel replay --json``: the steps in words, each with its position."""
    doc: dict[str, Any] = json.loads(cli("replay", "--json", str(path)))
    return doc


def board(page: Any) -> dict[str, Any]:
    """The replay board as drawn: each pile's cards bottom to top, each foundation's top rank."""
    drawn: dict[str, Any] = page.evaluate(
        """() => {
        const b = document.getElementById('board');
        const piles = [...b.querySelectorAll('li.pile')].map(
          (li) => [...li.querySelectorAll('[data-card]')].map((c) => c.dataset.card));
        const foundations = {};
        for (const f of b.querySelectorAll('.foundation')) {
          const c = f.querySelector('[data-card]');
          foundations[f.dataset.suit] = c ? c.dataset.card.slice(0, -1) : null;
        }
        return {piles, foundations};
      }"""
    )
    return drawn


def position_as_drawn(position: dict[str, Any]) -> dict[str, Any]:
    """A service position (ranks as numbers) in the board's terms (ranks as card names)."""
    names = {1: "A", 11: "J", 12: "Q", 13: "K"}
    found = {s: names.get(r, str(r)) for s, r in position["foundations"].items()}
    return {"piles": position["piles"], "foundations": found}


def at_step(page: Any) -> int:
    """The step the page shows (from its counter, ``N / LAST``)."""
    return int(page.locator("#counter").inner_text().split("/")[0])


def wait_for_step(page: Any, n: int) -> None:
    page.wait_for_function(
        "n => document.getElementById('counter').textContent.startsWith(n + ' /')", arg=n
    )


def open_replay(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]")


def solution_of(page: Any, puzzle: str, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """A public solution's log, and a file holding it (for the CLI)."""
    log: dict[str, Any] = page.request.get(f"/v1/puzzles/{puzzle}/solution").json()["log"]
    path = tmp_path / f"{puzzle}.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    return log, path


def par_win(puzzle_id: str) -> dict[str, Any]:
    """The puzzle's par solution as a log, from the puzzle file (also of an open puzzle)."""
    return puzzle_solution_log(find_puzzle(ROOT / "puzzles", puzzle_id))


def longer_win(puzzle_id: str) -> dict[str, Any]:
    """Another win of the puzzle: its first par step, a redeal, then the solver's game."""
    puzzle = find_puzzle(ROOT / "puzzles", puzzle_id)
    piles = [[cards.parse(t) for t in pile] for pile in puzzle.deal.piles]
    rules = puzzle.resolved_rules()
    prefix = [to_step(puzzle.solution[0]), REDEAL]
    game = Game.from_deal(piles, rules)
    for step in prefix:
        game.push(step)
    found = solve(game, max_states=200_000)
    assert found.verdict == "won"
    return solution_log(puzzle.deal.number, piles, rules, found.steps, prefix=prefix)


def submit(page: Any, puzzle: str, player: str, log: dict[str, Any]) -> dict[str, Any]:
    """Submit a log through the API (no key: the test server runs --open, and the name is not
    claimed). A log at par or better sent so waits for a moderator (no rank): the tests that
    need it on the board play it live (:func:`live_win`) or submit a longer win."""
    answer = page.request.post(
        f"/v1/puzzles/{puzzle}/submissions", data={"player": player, "log": log}
    )
    doc: dict[str, Any] = answer.json()
    return doc


def live_win(page: Any, puzzle: str, player: str, log: dict[str, Any]) -> dict[str, Any]:
    """Play a winning log as a live attempt, one step per request as the play page sends them
    (the test server's clock gives them a person's pace); the entry the server stored."""
    started = page.request.post(
        f"/v1/puzzles/{puzzle}/attempts", data={"player": player, "auto": "off"}
    )
    assert started.status == 201, started.text()
    attempt = started.json()["attempt"]
    state: dict[str, Any] = {}
    for move in log["moves"]:
        step = compact(to_step(move))
        answer = page.request.post(f"/v1/attempts/{attempt}/steps", data={"steps": [step]})
        assert answer.status == 200, answer.text()
        state = answer.json()
    assert state["status"] == "won", state
    entry: dict[str, Any] = state["entry"]
    return entry


# --- the tests ------------------------------------------------------------------------------


def test_solution_stepped_to_its_end_shows_the_final_position_of_cruel_replay(
    page: Any, tmp_path: Path
) -> None:
    log, path = solution_of(page, SOLVED, tmp_path)
    expected = cli_replay(path)
    open_replay(page, f"/replay?puzzle={SOLVED}")
    assert page.locator("#title").inner_text() == f"Solution of {SOLVED}"
    last = len(expected["steps"])
    # Every step in the CLI's words, in order, after the deal.
    texts = page.locator("#steps li .step-text").all_inner_texts()
    assert texts == ["The deal"] + [s["text"] for s in expected["steps"]]
    # Step 0 is the deal (cruel.js from the deal number), as the puzzle publishes it.
    deal = page.request.get(f"/v1/puzzles/{SOLVED}").json()["deal"]["piles"]
    assert board(page) == {"piles": deal, "foundations": dict.fromkeys("SHDC", "A")}
    page.keyboard.press("End")
    wait_for_step(page, last)
    assert page.locator("#counter").inner_text() == f"{last} / {last}"
    assert board(page) == cli_final(path)
    assert f"step={last}" in page.url
    assert page.locator("#step-text").inner_text() == expected["steps"][-1]["text"]


def test_a_pasted_unfinished_game_ends_where_cruel_replay_final_does(
    page: Any, tmp_path: Path
) -> None:
    log, _ = solution_of(page, SOLVED, tmp_path)
    log = {k: v for k, v in log.items() if k != "claim"}
    log["moves"] = log["moves"][:30]
    path = tmp_path / "unfinished.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    open_replay(page, "/replay")
    assert page.locator("#player").is_hidden()
    page.get_by_label("Paste a cruel-log/1 game log").fill(json.dumps(log, indent=1))
    page.get_by_role("button", name="Replay this log").click()
    page.wait_for_selector("#player:not([hidden])")
    assert page.locator("#title").inner_text() == "Replay of your log"
    page.get_by_role("button", name="Last").click()
    wait_for_step(page, 30)
    assert board(page) == cli_final(path)
    assert "in progress" in page.locator("#summary").inner_text()


def test_step_back_forward_jump_scrub_url_and_play(page: Any, tmp_path: Path) -> None:
    log, path = solution_of(page, SOLVED, tmp_path)
    steps = cli_replay(path)["steps"]

    def shows(n: int) -> None:
        wait_for_step(page, n)
        if n:
            assert page.locator("#step-text").inner_text() == steps[n - 1]["text"]
            assert board(page) == position_as_drawn(steps[n - 1]["position"])
        assert f"step={n}" in page.url

    # The URL opens at a step.
    open_replay(page, f"/replay?puzzle={SOLVED}&step=20")
    shows(20)
    assert page.locator("#steps li[aria-current=step] .step-no").inner_text() == "20."
    page.get_by_role("button", name="Back").click()
    shows(19)
    page.get_by_role("button", name="Forward").click()
    shows(20)
    page.keyboard.press("ArrowRight")
    shows(21)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    shows(19)
    page.keyboard.press("Home")
    shows(0)
    assert page.get_by_role("button", name="Back").is_disabled()
    # Jump to step N.
    page.get_by_label("Step", exact=True).fill("33")
    page.get_by_role("button", name="Go").click()
    shows(33)
    # The scrubber.
    page.get_by_label("Step of the replay").fill("12")
    shows(12)
    # A click in the list of steps.
    page.locator("#steps li[data-stop='3'] button").click()
    shows(3)
    # The URL it wrote opens there again.
    page.goto(page.url)
    page.wait_for_selector("body[data-ready=true]")
    shows(3)
    # The moved card is highlighted: to a pile, then to a foundation.
    for n in (3, 1, 10):
        page.locator(f"#steps li[data-stop='{n}'] button").click()
        wait_for_step(page, n)
        assert (
            page.locator("#board .card.highlight").get_attribute("data-card")
            == (log["moves"][n - 1]["card"])
        )
    # A redeal moves no one card.
    redeal = next(i for i, m in enumerate(log["moves"]) if m["type"] == "redeal") + 1
    page.locator(f"#steps li[data-stop='{redeal}'] button").click()
    wait_for_step(page, redeal)
    assert page.locator("#board .card.highlight").count() == 0
    # Play, fast, then pause: it advances, then stays.
    page.keyboard.press("Home")
    page.get_by_label("Speed").select_option(label="5×")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    page.wait_for_function("() => parseInt(document.getElementById('counter').textContent) >= 4")
    page.get_by_role("button", name="Pause").click()
    stopped = at_step(page)
    page.wait_for_timeout(400)
    assert at_step(page) == stopped >= 4
    assert page.locator("#step-text").inner_text() == steps[stopped - 1]["text"]
    # Play runs to the end and stops there.
    page.get_by_role("button", name="▶ Play").click()
    assert page.locator("#play").inner_text() == "Pause"
    wait_for_step(page, len(steps))
    assert page.locator("#play").inner_text() == "▶ Play"


def test_a_pasted_illegal_log_plays_up_to_the_error_and_shows_the_verifiers_words(
    page: Any, tmp_path: Path
) -> None:
    log, _ = solution_of(page, SOLVED, tmp_path)
    log["moves"][5] = {"type": "move", "from": 1, "to": 3}  # 4♣ onto 6♥: wrong suit
    report = page.request.post("/v1/verify", data=log).json()
    error = report["error"]
    assert report["valid"] is False and error["index"] == 5
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    steps = cli_replay(path)["steps"]

    open_replay(page, "/replay")
    page.get_by_label("Paste a cruel-log/1 game log").fill(json.dumps(log))
    page.get_by_role("button", name="Replay this log").click()
    page.wait_for_selector("#player:not([hidden])")
    at = error["index"] + 1
    alert = page.get_by_role("alert")
    assert alert.inner_text() == f"step {at}: {error['message']} [{error['code']}]"
    # The steps before it, then the error at its step number.
    items = page.locator("#steps li")
    assert items.count() == at + 1
    assert page.locator("#steps li .step-text").all_inner_texts()[1:at] == [
        s["text"] for s in steps
    ]
    last = items.nth(at)
    assert "step-error" in (last.get_attribute("class") or "")
    assert last.locator(".step-no").inner_text() == f"{at}."
    assert error["message"] in last.inner_text()
    # Stepping there shows the message, over the position in which the move was tried.
    page.keyboard.press("End")
    wait_for_step(page, at)
    assert page.locator("#step-now").inner_text() == (
        f"Step {at}: error: {error['message']} [{error['code']}]"
    )
    assert board(page) == position_as_drawn(report["final"])
    page.keyboard.press("ArrowLeft")
    wait_for_step(page, at - 1)
    assert page.locator("#step-text").inner_text() == steps[-1]["text"]


def lost_game(seed: int = 4) -> dict[str, Any]:
    """A seeded random game of the solved puzzle's deal, played until blocked (seed 4: 34 steps,
    lost at step 33)."""
    puzzle = find_puzzle(ROOT / "puzzles", SOLVED)
    piles = [[cards.parse(t) for t in pile] for pile in puzzle.deal.piles]
    game = Game.from_deal(piles, puzzle.resolved_rules())
    rng = random.Random(seed)
    steps: list[Step] = []
    while game.outcome() == "in_progress" and len(steps) < 300:
        step = rng.choice(list(game.legal_steps()))
        game.push(step)
        steps.append(step)
    assert game.outcome() == "blocked"
    return solution_log(puzzle.deal.number, piles, puzzle.resolved_rules(), steps)


def test_analysis_marks_the_losing_step_and_measures_a_win(page: Any, tmp_path: Path) -> None:
    log = lost_game()
    path = tmp_path / "lost.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    expected = json.loads(cli("analyze", "--json", str(path)))["loss"]
    losing = expected["losing_step"]["number"]
    open_replay(page, "/replay")
    page.get_by_label("Paste a cruel-log/1 game log").fill(json.dumps(log))
    page.get_by_role("button", name="Replay this log").click()
    page.wait_for_selector("#player:not([hidden])")
    page.get_by_role("button", name="Analyse this game").click()
    # The service's solves take seconds on a busy machine.
    page.wait_for_selector("#steps .marks:not(:empty)", timeout=90_000)
    marked = page.locator("#steps li.mark-loss")
    assert marked.count() == 1
    assert marked.get_attribute("data-step-no") == str(losing)
    assert marked.locator(".marks").inner_text() == "!!"
    # In the words of cruel replay, as the list of steps says it.
    words = cli_replay(path)["steps"][losing - 1]["text"]
    assert f"Lost at step {losing} ({words})" in page.locator("#analysis").inner_text()
    # A win: how far from the best.
    open_replay(page, f"/replay?puzzle={SOLVED}")
    par = page.request.get(f"/v1/puzzles/{SOLVED}/solution").json()["par"]
    page.get_by_role("button", name="Analyse this game").click()
    page.wait_for_function(
        "() => document.getElementById('analysis').textContent.startsWith('Won')",
        timeout=90_000,
    )
    text = page.locator("#analysis").inner_text()
    assert text.startswith(f"Won in {par['actions']} actions")
    # One thing beside the par the page shows (issue #34): a proven par is the optimum, never
    # "every win takes at least" a weaker bound the request's search left open.
    assert par["optimal"]
    assert text == f"Won in {par['actions']} actions, at par ({par['actions']}): optimal.", text


_READ_LOG_ERROR = """async (text) => {
  const { readLog } = await import('/static/cruel.js');
  try { readLog(text); return null; } catch (e) { return { code: e.code, message: e.message }; }
}"""


@pytest.mark.parametrize("text", ["{not json", "hello", '{"format": "cruel-log/2"}', "[]"])
def test_text_that_is_not_a_log_is_refused_with_the_services_code(page: Any, text: str) -> None:
    """A text that is no log is refused by cruel.js's readLog, with the code the service
    refuses it with, without a request (issue #36: the service's 400 or 422 would be an error
    in the console, and the watch allows none here)."""
    refused = page.request.post("/v1/replay", data=text)
    assert refused.status in (400, 422)
    open_replay(page, "/replay")
    expected = page.evaluate(_READ_LOG_ERROR, text)
    assert expected["code"] == refused.json()["code"]
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
    page.get_by_label("Paste a cruel-log/1 game log").fill(text)
    page.get_by_role("button", name="Replay this log").click()
    assert page.get_by_role("alert").inner_text() == expected["message"]
    assert page.locator("#player").is_hidden()
    assert posted == []


def test_an_entry_replays_only_once_its_puzzle_is_closed(
    page: Any, server: Server, watch: Watch, tmp_path: Path
) -> None:
    watch.allowed.append("status of 403")
    puzzle = "2027-01-05-medium"
    answer = live_win(page, puzzle, "Replayer", par_win(puzzle))
    assert answer["accepted"] and answer["rank"] is not None, answer
    sid = answer["submission_id"]
    url = f"/replay?puzzle={puzzle}&entry={sid}"
    # Open: the service refuses, and the page says why in its words.
    refused = page.request.get(f"/v1/puzzles/{puzzle}/submissions/{sid}/log")
    assert refused.status == 403
    open_replay(page, url)
    assert page.get_by_role("alert").inner_text() == refused.json()["message"]
    assert page.locator("#player").is_hidden()
    # A closed puzzle takes no entries.
    closed = submit(page, SOLVED, "Replayer", solution_of(page, SOLVED, tmp_path)[0])
    assert closed["accepted"] is False and closed["reason"]["code"] == "puzzle-closed"
    # Once the day is over, the entry's game replays.
    server.settings.fixed_today = dt.date(2027, 1, 6)
    try:
        entry = page.request.get(f"/v1/puzzles/{puzzle}/submissions/{sid}/log").json()
        path = tmp_path / "entry.json"
        path.write_text(json.dumps(entry), encoding="utf-8")
        expected = cli_replay(path)
        open_replay(page, url)
        assert page.locator("#title").inner_text() == f"Entry {sid} of {puzzle} by Replayer"
        texts = page.locator("#steps li .step-text").all_inner_texts()
        assert texts[1:] == [s["text"] for s in expected["steps"]]
        page.keyboard.press("End")
        wait_for_step(page, len(expected["steps"]))
        assert board(page) == cli_final(path)
    finally:
        server.settings.fixed_today = TODAY


def test_a_log_longer_than_one_window_is_replayed_whole(page: Any, tmp_path: Path) -> None:
    """Issue #33: the service answers at most 2,000 steps at once; the page asks for the next
    window until it has every step, and ends where cruel replay ends."""
    from cruel_tools.game.deals import deal_piles

    rng = random.Random(1)  # deal 1 lasts 10,000 random steps under this seed
    game, moves = Game.from_deal(deal_piles(1)), []
    while len(moves) < 2_100:
        step = rng.choice(list(game.legal_steps()))
        game.push(step)
        moves.append(compact(step))
    log = {"format": "cruel-log/1", "deal": {"number": 1}, "moves": moves}
    path = tmp_path / "long.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    open_replay(page, "/replay")
    page.get_by_label("Paste a cruel-log/1 game log").fill(json.dumps(log))
    page.get_by_role("button", name="Replay this log").click()
    page.wait_for_selector("#player:not([hidden])")
    assert page.locator("#steps li").count() == 2_101  # the deal and every step
    page.get_by_role("button", name="Last").click()
    wait_for_step(page, 2_100)
    assert board(page) == cli_final(path)
