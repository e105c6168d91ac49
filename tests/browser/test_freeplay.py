"""The play page's game mechanics in a real browser (issue #27): automatic moves in unranked
games (auto-finish, double-click to the foundation, undo), hints and "still winnable?" in
practice and free play, practice on a closed puzzle, free play of any deal number, give up.

Every position the page shows is checked against :mod:`cruel_tools.game.game`, and every game the
page records against the verifier (:func:`cruel_tools.game.verify.verify_bytes`).
"""

from __future__ import annotations

import json
import random
import re
import statistics
import time
from typing import Any

import orjson
import pytest

from cruel_tools.game import cards
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Move, Step
from cruel_tools.game.log import compact, to_step
from cruel_tools.game.rules import PRESETS
from cruel_tools.game.verify import verify_bytes

from .conftest import Watch
from .test_play import TOP, board, counters, engine, open_play, position, puzzle, solution

CLOSED = "2027-01-02-easy"  # closed on the served day (2027-01-05): practice
OPEN = "2027-01-05-easy"  # open on the served day


#: The two screens of the issue's checks: a desktop, and a phone's touch screen.
SCREEN_OPTIONS: dict[str, dict[str, Any]] = {
    "1280x800": {"viewport": {"width": 1280, "height": 800}},
    "390x844": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
SCREENS = ["1280x800", "390x844"]
#: The long games on the phone in the slow tier (a win by 48 hints: about 25 s).
SCREENS_PHONE_SLOW = ["1280x800", pytest.param("390x844", marks=pytest.mark.slow)]


@pytest.fixture
def screen_page(new_page: Any, screen: str) -> Any:
    """A watched page on the test's ``screen`` (parametrized: SCREENS)."""
    return new_page(**SCREEN_OPTIONS[screen])


def idle(page: Any) -> None:
    """Wait until the page has made every automatic move it will make."""
    page.wait_for_selector('#board:not([data-auto="running"])', state="attached", timeout=15_000)


def click(page: Any, game: Game, step: Step) -> None:
    """Play ``step`` as a player would: its card (then its target when two are offered), or
    the Redeal button."""
    idle(page)
    if not isinstance(step, Move):
        page.click("#redeal")
        return
    options = [m for m in game.card_moves() if m.source == step.source]
    page.click(TOP.format(n=step.source))
    if len(options) > 1:
        target = "foundation" if step.target is None else str(step.target)
        page.click(f'#choice [data-choice="{target}"]')


def page_steps(page: Any, key: str) -> tuple[list[Step], list[int]]:
    """The steps the page saved for ``key``'s game, and their automatic marks."""
    saved = page.evaluate(f"JSON.parse(localStorage.getItem('cruel.progress.{key}'))") or {
        "steps": []
    }
    steps = [to_step(s) for s in saved["steps"]]
    return steps, saved.get("auto", [0] * len(steps))


def follow(game: Game, steps: list[Step], autos: list[int], start: int) -> None:
    """Play on ``game`` the steps from ``start``: each automatic one must be the engine's
    automatic move there."""
    for step, auto in zip(steps[start:], autos[start:], strict=True):
        if auto:
            assert step == game.automatic_move(), (step, game.automatic_move())
        game.push(step)


def recorded(page: Any) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = page.evaluate("JSON.parse(localStorage.getItem('cruel.games'))")
    return games


@pytest.mark.parametrize("screen", SCREENS_PHONE_SLOW)
def test_practice_on_a_closed_puzzle_won_by_hints_and_automatic_moves(
    screen_page: Any, watch: Watch
) -> None:
    """A closed published easy puzzle says before play that it is practice; from its deal,
    Hint, the hinted step, the page's automatic moves, again and again, win it. Each hint
    answers quickly, and the engine agrees with every step the page made."""
    page = screen_page
    sent: list[str] = []
    page.on("request", lambda r: sent.append(f"{r.method} {r.url}"))
    open_play(page, CLOSED)
    note = page.locator("#live-status")
    assert note.is_visible() and note.get_attribute("data-status") == "practice"
    assert note.inner_text() == "This puzzle closed on January 3, 2027: practice, not ranked."
    assert page.is_visible("#hint") and page.is_visible("#winnable")
    assert page.is_hidden("#hints-off")
    assert page.inner_text("#par") == str(puzzle(CLOSED).par.actions)

    page.click("#winnable")
    page.wait_for_selector('#hint-note[data-status="win-next"]')
    assert "Yes: a win is still there" in page.inner_text("#hint-note")

    game = engine([], CLOSED)
    latencies: list[float] = []
    hints = 0
    while not game.is_won():
        idle(page)
        steps, autos = page_steps(page, CLOSED)
        follow(game, steps, autos, game.moves + game.redeals)
        if game.is_won():
            break
        assert board(page) == position(game)
        began = time.perf_counter()
        page.click("#hint")
        page.wait_for_selector('#hint-note[data-status="win-next"][data-step]')
        latencies.append(time.perf_counter() - began)
        hints += 1
        step = to_step(page.get_attribute("#hint-note", "data-step"))
        text = page.inner_text("#hint-note")
        assert text.startswith("Hint: ")
        if isinstance(step, Move):
            card = cards.name(game.piles[step.source - 1][-1])
            assert page.get_attribute("#board .card.highlight", "data-card") == card
            if step.target is not None:
                assert page.locator(f'#board li.pile.target[data-pile="{step.target}"]').count()
            else:  # only the card's own foundation is marked
                marked = page.eval_on_selector_all(
                    "#board .foundation.target", "els => els.map((e) => e.dataset.suit)"
                )
                assert marked == [card[-1]], marked
        else:
            assert "hinted" in (page.get_attribute("#redeal", "class") or "")
        assert step in list(game.legal_steps())
        click(page, game, step)
        page.wait_for_function(
            f"() => JSON.parse(localStorage.getItem('cruel.progress.{CLOSED}') ?? "
            f"'{{\"steps\": []}}').steps.length > {game.moves + game.redeals}"
        )
        assert hints < 200
    idle(page)
    assert page.inner_text("#end-title") == "You won!"
    assert board(page) == position(game)
    steps, autos = page_steps(page, CLOSED)
    assert sum(autos) > 0 and hints + sum(autos) == len(steps)
    verdict = page.locator('#result [data-verdict="practice"]')
    assert "Practice on a closed puzzle: nothing was sent" in verdict.inner_text()
    # The hints answered fast (the service measures about 20 ms at the p95; here through a
    # browser on a loaded machine), and nothing ranked was sent.
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(
        f"{hints} hints: median {statistics.median(latencies) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms"
    )
    # A bound for a loaded CI machine, not the measurement (benchmarks/RESULTS.md, issue #27).
    assert p95 < 2.0, latencies
    assert not [s for s in sent if "/attempts" in s or "/submissions" in s]
    # the game is recorded, verifies, and is marked as practice
    games = recorded(page)
    assert len(games) == 1 and games[0]["meta"]["play"] == "practice"
    report = verify_bytes(orjson.dumps(games[0]))
    assert report.valid and report.outcome == "won"


@pytest.mark.parametrize("screen", SCREENS_PHONE_SLOW)
def test_the_rest_forced_the_page_finishes_and_undo_takes_it_back(screen_page: Any) -> None:
    """Unranked daily play (no name): along the published solution, once the rest is
    foundation moves alone the page plays them itself, one by one, and says so; every one is
    a step of the log, marked automatic; undo takes back the player's step and them."""
    page = screen_page
    open_play(page, OPEN)
    assert page.get_attribute("#live-status", "data-status") == "unranked"
    # an open puzzle: no hints, and the page says why
    assert page.is_hidden("#hint-tools")
    assert "being ranked today" in page.inner_text("#hints-off")
    steps = solution(OPEN)
    game = engine([], OPEN)
    played = 0
    for step in steps:
        click(page, game, step)
        game.push(step)
        played += 1
        idle(page)
        if page.is_visible("#end"):
            break
    assert played < len(steps), "the page made no automatic move"
    assert "The rest is forced" in page.inner_text("#message")
    saved, autos = page_steps(page, OPEN)
    follow(game, saved, autos, played)
    assert game.is_won() and board(page) == position(game)
    assert autos[:played] == [0] * played and all(autos[played:])
    assert int(page.get_attribute("#message", "data-auto") or 0) == len(saved) - played
    # a won game is final (issue #36): nothing to undo
    assert page.is_disabled("#undo")
    # undo, in the same game one automatic move short of the win (as a reload finds it, the
    # automatic moves off so that the page does not finish it): the player's last step and
    # the automatic moves after it
    assert len(saved) - played >= 2
    short = {"steps": [compact(s) for s in saved[:-1]], "auto": autos[:-1]}
    page.evaluate(
        "(p) => { localStorage.setItem(p.key, JSON.stringify(p.value));"
        " localStorage.setItem('cruel.auto', 'off'); }",
        {"key": f"cruel.progress.{OPEN}", "value": short},
    )
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    page.click("#undo")
    assert board(page) == position(engine(steps[: played - 1], OPEN))
    assert page_steps(page, OPEN)[0] == saved[: played - 1]


def two_place_card() -> tuple[int, int, Game]:
    """A deal whose opening has a top card with two places, one its foundation: the deal
    number, the pile, and the game."""
    for number in range(1, 400):
        game = Game.from_deal(deal_piles(number), PRESETS["cruel"])
        for pile in range(1, 13):
            options = [m for m in game.card_moves() if m.source == pile]
            if len(options) > 1 and any(m.target is None for m in options):
                return number, pile, game
    raise AssertionError("no such deal")


@pytest.mark.parametrize("pointer", ["mouse", "touch"])
def test_double_click_or_tap_sends_a_card_home(new_page: Any, pointer: str) -> None:
    """A card with two places (its foundation and a pile): one click offers both, a
    double-click (with a mouse at 1280 px) or a double-tap (on a 390 px touch screen) sends it
    to the foundation."""
    number, source, game = two_place_card()
    if pointer == "mouse":
        page = new_page()
    else:
        page = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page.add_init_script("localStorage.setItem('cruel.auto', 'off')")
    page.goto(f"/play/deal/{number}")
    page.wait_for_selector('#board[data-ready="true"] .board')
    if pointer == "mouse":
        page.dblclick(TOP.format(n=source))
    else:
        box = page.locator(TOP.format(n=source)).bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + 10
        page.touchscreen.tap(x, y)
        page.wait_for_timeout(60)
        page.touchscreen.tap(x, y)
    game.move(source, None)
    page.wait_for_function("() => document.getElementById('moves').textContent === '1'")
    assert board(page) == position(game)
    assert counters(page)["moves"] == 1


@pytest.mark.parametrize("screen", SCREENS)
def test_free_play_of_deal_17_and_its_rules(screen_page: Any, watch: Watch) -> None:
    """/play/deal/17 plays deal 17 unranked, with hints; ?rules= a preset the board draws;
    a bad number or preset is a clear message, not a crash."""
    page = screen_page
    page.goto("/play/deal/17")
    page.wait_for_selector('#board[data-ready="true"] .board')
    game = Game.from_deal(deal_piles(17), PRESETS["cruel"])
    assert board(page) == position(game)
    assert "deal 17" in page.inner_text("#title")
    assert page.get_attribute("#live-status", "data-status") == "free"
    assert "Free play" in page.inner_text("#live-status")
    # the first step by the hint, then the winnability check
    page.click("#hint")
    page.wait_for_selector('#hint-note[data-status="win-next"][data-step]')
    step = to_step(page.get_attribute("#hint-note", "data-step"))
    click(page, game, step)
    game.push(step)
    idle(page)
    steps, autos = page_steps(page, "deal.17.cruel")
    follow(game, steps, autos, 1)
    assert board(page) == position(game)
    page.click("#winnable")
    page.wait_for_selector('#hint-note:not([data-status="pending"])')
    assert page.get_attribute("#hint-note", "data-status") == "win-next"
    # a reload restores it; the key H asks for a hint too
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert board(page) == position(game)
    page.keyboard.press("h")
    page.wait_for_selector('#hint-note[data-status="win-next"][data-step]')
    # another preset, through the picker
    page.fill("#free-number", "17")
    page.select_option("#free-rules", "perseverance")
    page.click("#free-go")
    page.wait_for_url("**/play/deal/17?rules=perseverance")
    page.wait_for_selector('#board[data-ready="true"] .board')
    other = Game.from_deal(deal_piles(17, PRESETS["perseverance"]), PRESETS["perseverance"])
    assert board(page) == position(other)
    options = page.eval_on_selector_all("#free-rules option", "os => os.map(o => o.value)")
    assert "ripple-fan-pysolfc" not in options and "cruel" in options
    # hostile addresses: a message on the page, no board
    for address, words in [
        ("/play/deal/4294967296", "deal numbers are whole numbers from 0 to 4294967295"),
        ("/play/deal/abc", "No deal “abc”"),
        ("/play/deal/17?rules=ripple-fan-pysolfc", "No free play under “ripple-fan-pysolfc”"),
        ("/play/deal/17?rules=nonsense", "No free play under “nonsense”"),
    ]:
        page.goto(address)
        page.wait_for_selector('#message[data-code="bad-free-play"]')
        assert words in page.inner_text("#message"), address
        assert page.is_hidden("#game")
        assert page.is_visible("#free-form")


def test_free_play_of_an_open_puzzles_deal_gets_no_hint(page: Any) -> None:
    """The deal of today's puzzle, played freely: the service would refuse the hint (403
    puzzle-open), and the page, which knows today's deals, says so politely without asking
    (issue #36: a refusal the page can foresee makes no error in the console; the watch
    allows none here)."""
    number = puzzle(OPEN).deal.number
    page.goto(f"/play/deal/{number}")
    page.wait_for_selector('#board[data-ready="true"] .board')
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/v1/hint" in r.url else None)
    page.click("#hint")
    page.wait_for_selector('#hint-note[data-status="error"]')
    assert "being ranked now" in page.inner_text("#hint-note")
    assert asked == []


@pytest.mark.parametrize("screen", SCREENS)
def test_a_given_up_game_counts_as_played_not_won(screen_page: Any) -> None:
    """Give up (press twice) ends an unranked game: the board stops taking moves, and the
    stats panel counts it as played, not won, by stats.py's definitions."""
    page = screen_page
    open_play(page, CLOSED)
    assert page.is_hidden("#give-up")
    steps = solution(CLOSED)[:3]
    game = engine([], CLOSED)
    for step in steps:
        click(page, game, step)
        game.push(step)
    idle(page)
    assert page.is_visible("#give-up")
    page.click("#give-up")
    assert "Press Give up again" in page.inner_text("#message")
    page.click("#give-up")
    assert page.inner_text("#end-title") == "Given up"
    page.wait_for_selector('#stats dd[data-stat="played"][data-value="1"]', state="attached")
    assert page.get_attribute('#stats dd[data-stat="wins"]', "data-value") == "0"
    assert page.get_attribute('#stats dd[data-stat="bestScore"]', "data-value") == str(
        game.foundation_cards
    )
    games = recorded(page)
    assert len(games) == 1 and games[0]["meta"]["given_up"] is True
    report = verify_bytes(orjson.dumps(games[0]))
    assert report.valid and report.outcome == "in_progress"
    # the board takes no more moves; a reload keeps it given up; start over plays again
    assert page.locator("#board button.card").count() == 0
    page.reload()
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert page.inner_text("#end-title") == "Given up"
    page.click("#end-actions button")  # Play again: a game over has nothing to confirm
    assert board(page) == position(engine([], CLOSED))
    assert len(recorded(page)) == 1  # the given-up game is counted once


def answering(answer: dict[str, Any]) -> Any:
    """A route handler that fulfils the request with ``answer``."""
    return lambda route, _request: route.fulfill(
        status=answer["status"], headers=answer["headers"], body=answer["body"]
    )


def test_a_refused_or_failed_hint_is_said_politely(page: Any, watch: Watch) -> None:
    """Too many hints (429, with Retry-After), a busy solver (503), the service not reached:
    each is a sentence on the page, the game goes on, and the next hint works."""
    watch.allowed.extend(["429", "503", "Failed to load resource", "net::ERR_FAILED"])
    page.goto("/play/deal/17")
    page.wait_for_selector('#board[data-ready="true"] .board')
    answers = [
        {"status": 429, "headers": {"Retry-After": "7"}, "body": '{"code": "rate-limited"}'},
        {"status": 503, "headers": {"Retry-After": "1"}, "body": '{"code": "busy"}'},
    ]
    for answer, words in zip(
        answers, ["Too many hints just now: try again in 7 s.", "The solver is busy"], strict=True
    ):
        page.route("**/v1/hint", answering(answer))
        page.click("#hint")
        page.wait_for_selector('#hint-note[data-status="error"]')
        assert words in page.inner_text("#hint-note")
        page.unroute("**/v1/hint")
    page.route("**/v1/hint", lambda route: route.abort())
    page.click("#winnable")
    page.wait_for_selector('#hint-note[data-status="error"]')
    assert "cannot be reached" in page.inner_text("#hint-note")
    page.unroute("**/v1/hint")
    assert not page.is_disabled("#hint")
    page.click("#hint")
    page.wait_for_selector('#hint-note[data-status="win-next"][data-step]')


def test_still_winnable_says_no_with_the_proof(page: Any) -> None:
    """A lost game of free play (restored from the browser's storage): *Still winnable?* and
    *Hint* both say there is no win from here, in the solver's words, as POST /v1/hint does."""
    rng = random.Random(5)
    game = Game.from_deal(deal_piles(5), PRESETS["cruel"])
    steps: list[Step] = []
    while game.outcome() == "in_progress" and len(steps) < 400:
        step = rng.choice(list(game.legal_steps()))
        game.push(step)
        steps.append(step)
    assert game.outcome() == "blocked"
    progress = {"steps": [compact(s) for s in steps], "started_at": "2027-01-05T10:00:00+00:00"}
    page.add_init_script(
        f"localStorage.setItem('cruel.progress.deal.5.cruel', {json.dumps(json.dumps(progress))})"
    )
    page.goto("/play/deal/5")
    page.wait_for_selector('#board[data-ready="true"] .board')
    assert board(page) == position(game)
    log = {"format": "cruel-log/1", "deal": {"number": 5}, "moves": progress["steps"]}
    expected = page.request.post("/v1/hint", data=log).json()
    assert expected["status"] == "no-win"
    for button in ("#winnable", "#hint"):
        page.click(button)
        page.wait_for_selector('#hint-note[data-status="no-win"]')
        text = page.inner_text("#hint-note")
        assert text == f"No win from here: {proof_words(expected['reason'])}. Undo to go back."
    # in Dutch, the proof too
    page.goto("/play/deal/5?lang=nl")
    page.wait_for_selector('#board[data-ready="true"] .board')
    page.click("#winnable")
    page.wait_for_selector('#hint-note[data-status="no-win"]')
    text = page.inner_text("#hint-note")
    assert text.startswith("Vanaf hier is niet meer te winnen: ") and "never" not in text, text


def proof_words(reason: str) -> str:
    """A cruel-hint/1 proof as the page words it in English: its cards as symbols."""

    def symbols(names: str) -> str:
        return " ".join("…" if n == "..." else cards.symbol(cards.parse(n)) for n in names.split())

    never = re.fullmatch(r"(\d+) cards can never move \((.*); rule ([FV])\)", reason)
    if never:
        count, names, rule = never.groups()
        return f"{count} cards can never move again ({symbols(names)}; rule {rule})"
    lock = re.fullmatch(r"(\S+) in pile 1 can never leave \(rule L\)", reason)
    if lock:
        return f"{symbols(lock.group(1))} in pile 1 can never leave it (rule L)"
    assert reason == "every reachable position searched or proven lost", reason
    return "every position that can be reached was searched, or proven lost"


@pytest.mark.parametrize("address", [f"/play/{CLOSED}", "/play/deal/17"])
def test_practice_and_free_play_fit_a_phone(new_page: Any, address: str) -> None:
    """At 390×844 the whole board of a practice or free game is on the first screen, with
    the line that says which it is; a hint shown below it moves nothing."""
    page = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page.goto(address)
    page.wait_for_selector('#board[data-ready="true"] .board')
    box = (
        "() => { const r = document.querySelector('#board .board').getBoundingClientRect();"
        " return [r.top, r.bottom]; }"
    )
    top, bottom = page.evaluate(box)
    assert page.is_visible("#live-status") and top >= 0 and bottom <= 844, (top, bottom)
    page.click("#hint")
    page.wait_for_selector('#hint-note[data-status="win-next"]')
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate(box) == [top, bottom]
