"""Issue #33, finding 3: one address could deny hints to everyone.

The attack: one client loops ``POST /v1/analyze`` of a costly win (the solver's win of a deal
under royal-family-pysolfc: 2.6-4.0 s of CPU each) from one address, while a player asks
``POST /v1/hint`` from another. Hints shared the analyses' one place per process, so the player
was refused ``busy`` 24 times of 25. Now hints have places and processes of their own
(``--max-hints``), one client holds at most half a kind's places, and a won game's analysis
outside Cruel's own layout searches a quarter of the positions (``ANALYSIS_FAMILY_WIN_DIVISOR``),
so that it costs what the docs say, about 1.5 s of one core at most.

The default tier holds the analyses' place with a stand-in (the place is what the attack takes)
and counts positions, not seconds; the slow tier runs the attack against a real ``cruel serve``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from cruel_tools import service
from cruel_tools.cli.app import app as cli_app
from cruel_tools.constants import MAX_HINTS
from cruel_tools.game import log
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.search import optimal
from cruel_tools.search.solver import solution_log, solve
from cruel_tools.service import costly
from cruel_tools.service.log_tools import ANALYZE_WIN_STATES, analyze_request

from .helpers import child_processes
from .test_help_guard import LOST, make_settings
from .test_hostile import request, second_address, serving

ATTACKER, PLAYER = ("192.0.2.66", 1000), ("192.0.2.7", 1000)
#: A position of a deal that is no puzzle's (docs/service.md's hint example: win-next).
HINTED = orjson.dumps({**LOST, "moves": list(LOST["moves"])[:5]})
#: The costliest preset for a won game's analysis (benchmarks/RESULTS.md, issue #33).
COSTLIEST = "royal-family-pysolfc"
#: The rest of the family: outside Cruel's own layout, the fewest-actions search is Python's.
FAMILY = [name for name, rules in PRESETS.items() if not rules.cruel_layout]
#: Positions a won game's analysis may generate (children of the fewest-actions search): about
#: 27 us of CPU each on royal-family-pysolfc (2.7 s for 98,506 before the fix), so 50,000 are
#: about 1.4 s, within the documented 1.5 s. Positions, not seconds: a loaded machine does not
#: change them.
MOST_GENERATED = 50_000


def solver_win(number: int, rules: Rules) -> dict[str, Any]:
    """The solver's win of deal ``number`` under ``rules`` (the attacker's costly log)."""
    piles = deal_piles(number, rules)
    found = solve(Game.from_deal(piles, rules))
    assert found.verdict == "won", (number, rules.preset)
    return solution_log(number, piles, rules, found.steps)


@pytest.fixture
def analyses_held(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Analyses hold their place (as a 4 s analysis does, looped) from the first event until
    the second is set; hints run at once in this process."""
    started, release = threading.Event(), threading.Event()

    async def run(self: costly.CostlyGate, work: Any) -> Any:
        if self.what == "analyses":
            started.set()
            await anyio.to_thread.run_sync(release.wait)
        return work()

    monkeypatch.setattr(costly.CostlyGate, "run", run)
    return started, release


def test_hints_are_answered_while_one_address_keeps_every_analysis_place_busy(
    tmp_path: Path, analyses_held: tuple[threading.Event, threading.Event]
) -> None:
    started, release = analyses_held
    # The stand-in holds the place as long as the costly win would; the log analysed once it
    # is let go is a cheap one, to keep the test short.
    analysis = orjson.dumps(LOST)
    app = service.create_app(make_settings(tmp_path / "c.sqlite"))
    with (
        TestClient(app, client=ATTACKER) as attacker,
        TestClient(app, client=PLAYER) as player,
    ):
        looped = threading.Thread(
            target=lambda: attacker.post("/v1/analyze", content=analysis), daemon=True
        )
        looped.start()
        try:
            assert started.wait(30)
            again = attacker.post("/v1/analyze", content=analysis)
            assert again.status_code == 503 and again.json()["code"] == "busy"  # the place is held
            answers: Counter[int] = Counter()
            for _ in range(25):
                r = player.post("/v1/hint", content=HINTED)
                answers[r.status_code] += 1
                if r.status_code == 200:
                    assert r.json()["status"] == "win-next"
        finally:
            release.set()
            looped.join(30)
    assert answers == {200: 25}, answers  # before the fix: 503 busy, 25 of 25


def test_one_client_holds_at_most_half_the_hint_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Semaphore(0), threading.Event()

    async def run(self: costly.CostlyGate, work: Any) -> Any:
        started.release()
        await anyio.to_thread.run_sync(release.wait, abandon_on_cancel=True)
        return work()

    monkeypatch.setattr(costly.CostlyGate, "run", run)
    app = service.create_app(make_settings(tmp_path / "c.sqlite", max_hints=2))
    done: list[int] = []
    with TestClient(app, client=ATTACKER) as a, TestClient(app, client=PLAYER) as b:

        def hint(client: TestClient) -> None:
            done.append(client.post("/v1/hint", content=HINTED).status_code)

        first = threading.Thread(target=hint, args=(a,), daemon=True)
        other = threading.Thread(target=hint, args=(b,), daemon=True)
        first.start()
        try:
            assert started.acquire(timeout=30)
            r = a.post("/v1/hint", content=HINTED)  # one of two places: this address's share
            assert r.status_code == 503 and r.json()["code"] == "busy", r.text
            assert "one client" in r.json()["message"]
            other.start()
            assert started.acquire(timeout=30)  # another address takes the second place
        finally:
            release.set()
            first.join(30)
            if other.is_alive():
                other.join(30)
    assert done == [200, 200]


def test_settings_and_serve_carry_the_hints_cap() -> None:
    back = service.Settings.from_env(service.Settings(max_hints=3).to_env())
    assert (back.max_hints, service.Settings().max_hints) == (3, MAX_HINTS)
    done = CliRunner().invoke(cli_app, ["serve", "--max-hints", "0"])
    assert done.exit_code == 2 and "--max-hints" in done.stderr


@pytest.mark.heavy
def test_a_won_games_analysis_on_the_costliest_preset_stays_within_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    generated = count_generated(monkeypatch)
    game_log = log.from_object(solver_win(2, PRESETS[COSTLIEST]))
    found = analyze_request(game_log)()
    assert 0 < generated[0] <= MOST_GENERATED, generated  # before the fix: 98,506
    assert found.win is not None and found.max_states == ANALYZE_WIN_STATES // 4


def count_generated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the positions the fewest-actions search generates (its Python children)."""
    generated = [0]
    children = optimal.children

    def counted(game: Game, held: frozenset[int]) -> Iterator[Any]:
        for child in children(game, held):
            generated[0] += 1
            yield child

    monkeypatch.setattr(optimal, "children", counted)
    return generated


@pytest.mark.slow
@pytest.mark.parametrize("preset", FAMILY)
def test_every_won_game_of_the_family_stays_within_budget(
    monkeypatch: pytest.MonkeyPatch, preset: str
) -> None:
    generated = count_generated(monkeypatch)
    cpu = []
    for number in range(1, 7):
        rules = PRESETS[preset]
        found = solve(Game.from_deal(deal_piles(number, rules), rules))
        if found.verdict != "won":
            continue
        game_log = log.from_object(
            solution_log(number, deal_piles(number, rules), rules, found.steps)
        )
        generated[0] = 0
        began = time.process_time()
        assert analyze_request(game_log)().win is not None
        cpu.append(time.process_time() - began)
        assert generated[0] <= MOST_GENERATED, (number, generated)
    # The bound is the count of positions above (the same on every machine). CPU time is only a
    # sanity check with room for a slower machine: 1.5 s held with 1.7x to spare on the machine
    # of issue #33 and failed (median 1.64 s) on the 2-core machine of issue #34, about twice as
    # slow (its quick subset of the same tree: 111 s against 46 s); the figures are benchmarks'.
    assert cpu and sorted(cpu)[len(cpu) // 2] < 3.0, cpu


@pytest.mark.slow
def test_hints_answer_a_real_server_while_one_address_loops_costly_analyses(
    tmp_path: Path,
) -> None:
    attacker = second_address()
    player = "127.0.0.3"
    analysis = orjson.dumps(solver_win(2, PRESETS[COSTLIEST]))
    with serving(tmp_path) as server:
        stop = time.monotonic() + 60
        analysed: Counter[int] = Counter()

        def loop() -> None:  # as the attacker did: again as soon as answered
            while time.monotonic() < stop:
                # The analysis runs niced: on a loaded 2-core machine (CI's slow tier runs
                # beside it) it took over 10 s to answer, and a 10 s client timeout lost it.
                status = request(server.port, "POST", "/v1/analyze", analysis, attacker, 120)[0]
                analysed[status] += 1
                if status != 200:
                    time.sleep(0.05)  # busy or rate-limited: again soon

        loops = [threading.Thread(target=loop, daemon=True) for _ in range(2)]
        for thread in loops:
            thread.start()
        time.sleep(1.0)
        hinted: Counter[int] = Counter()
        for _ in range(25):
            hinted[request(server.port, "POST", "/v1/hint", HINTED, player)[0]] += 1
            time.sleep(0.5)
        stop = time.monotonic()
        pid = server.proc.pid
        nice = sorted(os.getpriority(os.PRIO_PROCESS, child) for child in child_processes(pid))
        for thread in loops:
            thread.join(120)
    assert analysed[200] >= 1, analysed  # the attack ran
    assert hinted == {200: 25}, (hinted, analysed)  # before the fix: 503 busy 24 of 25
    assert costly.HINT_NICE in nice and costly.ANALYSIS_NICE in nice, nice  # two pools
