"""``<cruel-game>`` on another site's page (issue #37), in Debian's Chromium.

A host page on one origin (``http.server`` on a loopback port) loads
``/embed/cruel-game.js`` from a ``cruel serve`` on another origin that lists it
(``--embed-origin``), and holds two elements: a free deal played offline (no ``server``) and a
closed puzzle of the service, played by clicks to a win after a hint. The ``cruel-won`` event's
log is verified by ``cruel verify``; the two elements play independently; a third origin, not
listed, loads the element but gets no CORS answer from the API. Themed by CSS custom
properties, in a screenshot for docs/embed.md (``CRUEL_SCREENSHOTS=1``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game, Move
from cruel_tools.game.log import to_step

from ..helpers import published_puzzles
from .conftest import CALL, CORS_REFUSAL, ROOT, SHOTS, Embed, call
from .test_embed_cors import CLOSED

#: Adds the element's script and the elements (``attrs``: id -> attributes) to the host page,
#: and records each element's events in ``window.events[id]``.
ADD = """([api, elements]) => {
  window.events = {};
  for (const [id, attrs] of Object.entries(elements)) {
    const game = document.createElement('cruel-game');
    game.id = id;
    for (const [k, v] of Object.entries(attrs)) game.setAttribute(k, v.replace('API', api));
    window.events[id] = [];
    for (const type of ['cruel-move', 'cruel-won']) {
      game.addEventListener(type, (e) => window.events[id].push({ type, ...e.detail }));
    }
    document.body.append(game);
  }
  const script = document.createElement('script');
  script.type = 'module';
  script.src = api + '/embed/cruel-game.js';
  document.head.append(script);
}"""

THEME = """
cruel-game { max-width: 760px; margin: 1rem auto; font-family: Georgia, serif;
  --felt: #23395d; --felt-edge: #162640; --card: #fff8e7; --red: #b3261e; --card-h: 3.2rem; }
cruel-game::part(toolbar) { justify-content: center; }
"""


def add_games(page: Any, api: str, elements: dict[str, dict[str, str]]) -> None:
    page.add_style_tag(content=THEME)
    page.evaluate(ADD, [api, elements])
    for gid in elements:
        page.wait_for_selector(f"#{gid}[data-ready=true]")


def tops(page: Any, gid: str) -> list[str | None]:
    """The top card of each pile of element ``gid``, as the board shows it."""
    found: list[str | None] = page.evaluate(
        """(gid) => [...document.getElementById(gid).shadowRoot.querySelectorAll('li[data-pile]')]
             .map((li) => [...li.querySelectorAll('.card')].at(-1)?.dataset.card ?? null)""",
        gid,
    )
    return found


def click_step(page: Any, gid: str, step: Any) -> None:
    """One step of a line, as a player clicks it: a redeal's button; a card, then, when the
    element offers it more than one place, the place."""
    game = page.locator(f"#{gid}")
    if not isinstance(step, Move):
        game.locator("button[data-action=redeal]").click()
        return
    game.locator(f"li[data-pile='{step.source}'] button.card").click()
    if game.locator("li.pile.selected").count():
        if step.target is None:
            game.locator(".foundation.target button.card").first.click()
        else:
            game.locator(f"li[data-pile='{step.target}'] button.card").click()


def test_two_games_on_a_host_page_one_offline_one_from_the_service(
    host_page: Any, embed: Embed, tmp_path: Path
) -> None:
    page = host_page(embed.allowed)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    add_games(
        page,
        embed.api,
        {
            "free": {"deal": "17"},
            "daily": {"puzzle": CLOSED, "server": "API", "auto-moves": "off", "lang": "en"},
        },
    )
    free_before = tops(page, "free")
    # Themed from the page: a custom property reaches the felt, a part takes the page's rule.
    themed = page.evaluate(
        """() => { const root = document.getElementById('free').shadowRoot;
                   return [getComputedStyle(root.querySelector('.board')).backgroundColor,
                           getComputedStyle(root.querySelector('.toolbar')).justifyContent]; }"""
    )
    assert themed == ["rgb(35, 57, 93)", "center"]
    daily = page.locator("#daily")
    assert "January 4, 2027" in daily.locator(".cg-title").inner_text()
    # A hint on the closed puzzle, from the service.
    daily.locator("button[data-action=hint]").click()
    page.wait_for_function(
        "() => document.getElementById('daily').shadowRoot.querySelector('.message')"
        ".textContent.startsWith('Hint:')"
    )
    # The published solution, clicked, to a win.
    solution = [to_step(e) for e in published_puzzles().get(CLOSED).solution]
    for i, step in enumerate(solution):
        click_step(page, "daily", step)
        if i == 20 and os.environ.get("CRUEL_SCREENSHOTS") == "1":
            page.set_viewport_size({"width": 900, "height": 1200})
            page.wait_for_timeout(600)  # the last card's slide ends
            page.screenshot(path=str(SHOTS / "embed.png"), full_page=True)
    page.wait_for_function("() => window.events.daily.some((e) => e.type === 'cruel-won')")
    assert daily.locator("dialog[open]").is_visible()
    won = page.evaluate("window.events.daily.find((e) => e.type === 'cruel-won')")
    assert won["actions"] == len(solution)
    moves = page.evaluate("window.events.daily.filter((e) => e.type === 'cruel-move').length")
    assert moves == len(solution)
    # The win, sent to the service's leaderboard from the host page (a closed puzzle's: the
    # service says so, and the answer is readable here: CORS on the submissions route).
    page.evaluate(CALL)
    claimed = call(page, f"{embed.api}/v1/players", method="POST", body={"player": "embedder"})
    sent = page.evaluate(
        "(token) => document.getElementById('daily').submit({player: 'embedder', token})",
        claimed["body"]["token"],
    )
    assert sent["status"] == 200, sent
    assert sent["data"]["report"]["outcome"] == "won" and sent["data"]["report"]["valid"]
    assert sent["data"]["reason"]["code"] == "puzzle-closed"  # verified, too late to rank
    # The other element did not move: two games, independent.
    assert tops(page, "free") == free_before
    assert page.evaluate("window.events.free.length") == 0
    # cruel verify confirms the win from the event's log.
    path = tmp_path / "won.json"
    path.write_text(json.dumps(won["log"]))
    verified = subprocess.run(
        [sys.executable, "-m", "cruel_tools.cli", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "won" in verified.stdout.lower()
    # The free game asked the service nothing: it plays offline.
    free_calls = [u for u in asked if "/v1/" in u and "deal" in u]
    assert free_calls == []


def test_the_offline_game_by_drag_and_drop_undo_and_redo(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.allowed)
    add_games(page, embed.api, {"free": {"deal": "1", "auto-moves": "off"}})
    game = page.locator("#free")
    # Deal 1's first card move onto a pile (by the module the element uses), dragged there.
    legal = page.evaluate(
        """async (api) => {
          const { Game, dealPiles } = await import(api + '/embed/cruel.js');
          const g = new Game(dealPiles(1));
          return g.cardMoves().find((m) => m.target !== null);
        }""",
        embed.api,
    )
    before = tops(page, "free")
    source = game.locator(f"li[data-pile='{legal['source']}'] button.card").last
    target = game.locator(f"li[data-pile='{legal['target']}']")
    source.drag_to(target)
    page.wait_for_function("() => window.events.free.length === 1")
    after = tops(page, "free")
    assert after[legal["target"] - 1] == before[legal["source"] - 1]
    log = page.evaluate("document.getElementById('free').getLog()")
    assert [(m["from"], m["to"]) for m in log["moves"]] == [(legal["source"], legal["target"])]
    game.locator("button[data-action=undo]").click()
    assert tops(page, "free") == before
    game.locator("button[data-action=redo]").click()
    assert tops(page, "free") == after
    assert game.locator("button[data-action=hint]").is_hidden()  # offline: no hints


def test_a_origin_not_listed_gets_no_answer_from_the_service(host_page: Any, embed: Embed) -> None:
    """The element's files are public, but the API answers the listed origins only: the game
    says it cannot load the puzzle."""
    page = host_page(embed.other, allowed=CORS_REFUSAL)
    page.evaluate(ADD, [embed.api, {"daily": {"puzzle": CLOSED, "server": "API"}}])
    page.wait_for_selector("#daily[data-ready=false]")
    message = page.locator("#daily .message").inner_text()
    assert "Failed to fetch" in message or "fetch" in message.lower(), message


def test_the_html_examples_of_the_docs_work(host_page: Any, embed: Embed) -> None:
    """Each ```html block of docs/embed.md and README.md, on a host page of a listed origin,
    with the service's address for ``https://puzzles.example``: every element is drawn, in the
    language the page asks for."""
    blocks = [
        block
        for doc in (ROOT / "docs" / "embed.md", ROOT / "README.md")
        for block in re.findall(r"```html\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    ]
    assert len(blocks) == 3
    for block in blocks:
        page = host_page(embed.allowed)
        html = block.replace("https://puzzles.example", embed.api)
        if "cruel-game.js" not in html:  # the events' example: the element's script first
            html = f'<script type="module" src="{embed.api}/embed/cruel-game.js"></script>' + html
        page.set_content(html)
        games = page.locator("cruel-game")
        for k in range(games.count()):
            games.nth(k).and_(page.locator("[data-ready=true]")).wait_for()
        if 'lang="nl"' in block:
            assert "Makkelijk" in page.locator("cruel-game[lang=nl] .cg-title").inner_text()


def test_automatic_moves_follow_the_players_steps(host_page: Any, embed: Embed) -> None:
    """With automatic moves on (the default), the element plays the moves cruel.js finds safe
    after a step of the player's, each a ``cruel-move`` event marked ``auto``; its log stays a
    legal game (the engine replays it)."""
    page = host_page(embed.allowed)
    add_games(page, embed.api, {"daily": {"puzzle": CLOSED, "server": "API"}})
    for step in [to_step(e) for e in published_puzzles().get(CLOSED).solution]:
        click_step(page, "daily", step)
        page.wait_for_timeout(400)  # the automatic moves come 160 ms apart
        if page.evaluate("window.events.daily.some((e) => e.auto)"):
            break
    else:
        raise AssertionError("the element made no automatic move")
    log = page.evaluate("document.getElementById('daily').getLog()")
    autos = page.evaluate("window.events.daily.filter((e) => e.auto).map((e) => e.step)")
    assert all(step.endswith("F") for step in autos), autos  # to the foundations only
    assert len(log["moves"]) == page.evaluate("window.events.daily.length")
    game = Game(deal_piles(log["deal"]["number"]))
    for entry in log["moves"]:
        game.push(to_step(entry))  # raises on an illegal step
