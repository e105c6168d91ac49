"""``cruel serve --embed-origin`` in a real browser (issue #37): a host page of a listed origin
reads a puzzle, asks a hint on a closed puzzle and plays ranked through the API with a claimed
name's token; a host page of another origin cannot (the browser's CORS refusal). Host pages
are served by ``http.server`` on loopback ports of their own (other origins than the service's:
another port is another origin), and the service, on a third port, lists one of them.
(docs/service.md, Embedding on other sites; the headers in detail: tests/test_embed_origins.py.)
"""

from __future__ import annotations

from typing import Any

from cruel_tools.game.log import compact, to_step

from ..helpers import published_puzzles, puzzle_log
from .conftest import CALL, CORS_REFUSAL, Embed, call

OPEN = "2027-01-05-easy"  # today's: live attempts
CLOSED = "2027-01-04-hard"  # yesterday's: hints


def test_a_listed_origin_reads_a_puzzle_and_asks_a_hint(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.allowed)
    page.evaluate(CALL)
    puzzle = call(page, f"{embed.api}/v1/puzzles/{CLOSED}")
    assert puzzle["status"] == 200 and puzzle["body"]["id"] == CLOSED, puzzle
    today = call(page, f"{embed.api}/v1/puzzles/daily/today")
    assert today["status"] == 200, today
    found = published_puzzles().get(CLOSED)
    log = puzzle_log(found, [to_step(e) for e in found.solution][:3])
    hint = call(page, f"{embed.api}/v1/hint", method="POST", body=log)
    assert hint["status"] == 200 and hint["body"]["status"] == "win-next", hint


def test_a_listed_origin_plays_ranked_with_a_claimed_names_token(
    host_page: Any, embed: Embed
) -> None:
    page = host_page(embed.allowed)
    page.evaluate(CALL)
    claimed = call(page, f"{embed.api}/v1/players", method="POST", body={"player": "embedded"})
    assert claimed["status"] == 201, claimed
    token = claimed["body"]["token"]
    start = {"format": "cruel-attempt/1", "player": "embedded", "auto": "off"}
    started = call(
        page, f"{embed.api}/v1/puzzles/{OPEN}/attempts", method="POST", body=start, token=token
    )
    assert started["status"] == 201, started
    attempt = f"{embed.api}/v1/attempts/{started['body']['attempt']}"
    for entry in published_puzzles().get(OPEN).solution:
        body = {"steps": [compact(to_step(entry))]}
        sent = call(page, f"{attempt}/steps", method="POST", body=body, token=token)
        assert sent["status"] == 200, sent
    state = call(page, attempt, token=token)
    assert state["body"]["status"] == "won", state
    import json
    import urllib.request

    with urllib.request.urlopen(f"{embed.api}/v1/puzzles/{OPEN}/leaderboard", timeout=10) as got:
        board = json.load(got)["entries"]
    assert "embedded" in [e["player"] for e in board]  # ranked, on the site's own board


def test_another_origin_cannot_call_the_service(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.other, allowed=CORS_REFUSAL)
    page.evaluate(CALL)
    puzzle = call(page, f"{embed.api}/v1/puzzles/{CLOSED}")
    assert puzzle["error"].startswith("TypeError"), puzzle
    start = {"format": "cruel-attempt/1", "player": "intruder", "auto": "off"}
    started = call(page, f"{embed.api}/v1/puzzles/{OPEN}/attempts", method="POST", body=start)
    assert started["error"].startswith("TypeError"), started
    claimed = call(page, f"{embed.api}/v1/players", method="POST", body={"player": "intruder"})
    assert claimed["error"].startswith("TypeError"), claimed
    # The preflight was refused, so the claim was never sent: the name is still free.
    assert claim_status(embed.api, "intruder") == 201


def test_a_listed_origin_gets_no_other_route(host_page: Any, embed: Embed) -> None:
    page = host_page(embed.allowed, allowed=CORS_REFUSAL)
    page.evaluate(CALL)
    for path in ("/v1/rules/presets", f"/v1/puzzles/{CLOSED}/leaderboard", "/v1/admin/queue"):
        answer = call(page, embed.api + path)
        assert answer["error"].startswith("TypeError"), (path, answer)


def claim_status(api: str, name: str) -> int:
    """The service's status for a claim of ``name`` sent by this test (no origin, no browser)."""
    import urllib.error
    import urllib.request

    body = b'{"player": "%s"}' % name.encode()
    request = urllib.request.Request(
        f"{api}/v1/players", data=body, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
