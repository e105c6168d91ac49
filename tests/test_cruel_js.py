"""cruel.js (cruel_tools/web/cruel.js) against the Python engine, under Node.

The differential test: ``tests/js/drive.mjs`` plays GAMES_PER_PRESET (60; 2,000 in the slow tier) seeded random games of every
preset with cruel.js (random legal steps, a redeal now and then, at most MAX_STEPS steps), tries
random illegal steps on the way, and records each game with cruel.js's Recorder. This file replays
every game with :class:`cruel_tools.game.game.Game` and requires, after every step, the same legal
steps in the same order, the same position (piles, foundations, moves, redeals, outcome), the same
automatic move (``Game.automaticMove()`` against ``Game.automatic_move()``, with the case that
makes it safe: auto-finish or no redeal left), the same
error code and message for every illegal step tried, and a recorded log that
:func:`cruel_tools.game.verify.verify_bytes` finds valid with the same outcome and counts.

Figures of one run (seed 20261201, 2,000 games per preset, 10 presets: 20,000 games):

    preset                games   steps   won
    cruel                  2000  149485    34
    cruel-when-stuck       2000  150011    87
    cruel-limited-3        2000   46338     1
    cruel-limited-5        2000   60928     5
    perseverance           2000   59534    52
    pysolfc                2000   97626   192
    ripple-fan             2000  271187  1989
    royal-family           2000  328319     5
    ripple-fan-pysolfc     2000  107612   183
    royal-family-pysolfc   2000   89206     0
    total                 20000 1360246  2548

At every one of those positions, and at each game's end, the two engines' automatic moves
agree (200 games a preset: 136,987 steps; 6,827 auto-finish moves, 3,319 with no redeal left;
the slow tier's 2,000 a preset compare over 1.3 million positions).
363,361 illegal steps tried (every code of ``MOVE_ERRORS``), 20,000 logs valid (1,965 naming the
deal by piles); about 82 s for the games on a busy 2-core machine (random play wins almost every
``ripple-fan`` game: its one-card redeals lay every card on top once 12 or fewer are left).
The fixture prints these figures (``pytest -s``); the assertions quote them when they fail.

Skipped when ``node`` is not on PATH. ``CRUEL_JS_MODULE=path/to/cruel.js`` tests another copy
of the module (the npm package's, installed: packages/cruel-engine/ci.sh).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from cruel_tools.game import cards
from cruel_tools.game.deals import BadDeal, deal_piles, mulberry32, resolve_deal
from cruel_tools.game.game import MOVE_ERRORS, REDEAL, Game, IllegalMove, Move, Step, redeal_piles
from cruel_tools.game.log import GameLog, LogFormatError, _first_error, compact, load, strip_bom
from cruel_tools.game.rules import PRESETS, Rules
from cruel_tools.game.verify import verify_bytes

ROOT = Path(__file__).resolve().parents[1]
# CRUEL_JS_MODULE: another copy of cruel.js to test (tests/js/drive.mjs reads it too), such as the
# npm package's as installed from its tarball (packages/cruel-engine/ci.sh). Default: the source.
CRUEL_JS = Path(
    os.environ.get("CRUEL_JS_MODULE") or ROOT / "cruel_tools" / "web" / "cruel.js"
).resolve()
DRIVER = Path(__file__).resolve().parent / "js" / "drive.mjs"
DEALS_MD = ROOT / "docs" / "deals.md"

# CRUEL_JS_GAMES=100 for a quick run while changing cruel.js; the figures above are for 2,000.
# The default tier plays 200 games of every preset; the slow tier the full 2,000 (CI runs both).
GAMES_PER_PRESET = int(os.environ.get("CRUEL_JS_GAMES", "60"))
FULL_GAMES = 2000
SEED = 20261201
MAX_STEPS = 200

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH: cruel.js is not run")


def node(*args: str, stdin: str | None = None) -> str:
    assert NODE is not None
    result = subprocess.run(
        [NODE, str(DRIVER), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


# --- the encodings of tests/js/drive.mjs ---------------------------------------------------------

# A card as the character of code 48 + card, piles joined by "|" (drive.mjs's position()).
_PILE_CHARS = bytearray(range(256))
_PILE_CHARS[0:52] = bytes(range(48, 100))
_PILE_CHARS[255] = ord("|")
PILE_CHARS = bytes(_PILE_CHARS)

# Every step's compact text ("3F", "1-7x2", "R"), looked up rather than formatted step by step.
COMPACT: dict[Step, str] = {REDEAL: "R"}
for _s in range(1, 14):
    for _t in [None, *range(1, 14)]:
        for _c in range(1, 13):
            COMPACT[Move(_s, _t, _c)] = compact(Move(_s, _t, _c))


def position(game: Game) -> str:
    piles = b"\xff".join(map(bytes, game.piles)).translate(PILE_CHARS).decode()
    f = game.foundations
    return f"{piles} {f[0]}.{f[1]}.{f[2]}.{f[3]} {game.moves} {game.redeals} {game.outcome()}"


def to_step(tried: list[Any]) -> Step:
    return Move(*tried) if tried else REDEAL


def try_step(game: Game, step: Step) -> tuple[str | None, str | None]:
    """Push ``step``: (None, None) when legal, else the error's (code, message)."""
    try:
        game.push(step)
    except IllegalMove as exc:
        return exc.code, str(exc)
    return None, None


# --- the random games ---------------------------------------------------------------------------


@dataclass
class Figures:
    games: Counter[str] = field(default_factory=Counter)
    steps: Counter[str] = field(default_factory=Counter)
    won: Counter[str] = field(default_factory=Counter)
    tried: Counter[str] = field(default_factory=Counter)  # illegal steps tried, by code
    # automatic moves compared, by "preset case" (case: finish, no-redeal-left or none)
    automatic: Counter[str] = field(default_factory=Counter)
    logs_valid: int = 0
    logs_by_piles: int = 0
    mismatches: list[str] = field(default_factory=list)
    logs: list[bytes] = field(default_factory=list)  # every recorded log, for readLog
    seconds: float = 0.0

    def summary(self) -> str:
        lines = [
            f"{p}: {self.games[p]} games, {self.steps[p]} steps, {self.won[p]} won"
            for p in self.games
        ]
        lines.append(
            f"total: {self.games.total()} games, {self.steps.total()} steps, "
            f"{self.tried.total()} illegal steps tried, {self.logs_valid} logs valid "
            f"({self.logs_by_piles} by piles), {self.seconds:.1f} s"
        )
        cases = Counter(k.split()[1] for k in self.automatic.elements())
        lines.append(f"automatic moves compared: {dict(sorted(cases.items()))}")
        return "\n".join(lines)


def automatic_text(game: Game) -> str | None:
    """Python's :meth:`Game.automatic_move` as drive.mjs writes cruel.js's ``automaticMove()``:
    ``"3F finish"`` or ``"3F no-redeal-left"`` (the case that makes it safe, checked in
    automatic_move's order), or None."""
    found = game.automatic_move()
    if found is None:
        return None
    r = game.rules
    spent = r.max_redeals is not None and game.redeals >= r.max_redeals
    no_redeal = spent and r.tableau_build == "down-in-suit" and r.foundation_direction == "up"
    return f"{COMPACT[found]} {'no-redeal-left' if no_redeal else 'finish'}"


def agree_on_automatic_move(game: Game, auto: str | None, figures: Figures, where: str) -> bool:
    """Whether cruel.js's automatic move ``auto`` is Python's at ``game`` (noted if not)."""
    mine = automatic_text(game)
    if mine != auto:
        figures.mismatches.append(f"{where}: automaticMove {auto!r}, Python {mine!r}")
        return False
    figures.automatic[game.rules.preset + " " + (auto.split()[1] if auto else "none")] += 1
    return True


def replay(record: dict[str, Any], figures: Figures) -> None:
    """Replay one game of drive.mjs with the Python engine; note the first disagreement."""
    preset, number = record["preset"], record["number"]
    where = f"{preset} deal {number}"
    game = Game.trusted(deal_piles(number, PRESETS[preset]), PRESETS[preset])
    for k, (legal_text, index, pos, tried, auto) in enumerate(record["steps"], 1):
        for attempt in tried:
            figures.tried[attempt[1]] += 1
            got = try_step(game, to_step(attempt[0]))
            if got != (attempt[1], attempt[2]):
                figures.mismatches.append(f"{where} before step {k}: {attempt} gives {got}")
                return
        legal = list(game.legal_steps())
        text = " ".join(map(COMPACT.__getitem__, legal))
        if text != legal_text:
            figures.mismatches.append(f"{where} step {k}: legal {legal_text!r}, Python {text!r}")
            return
        if not agree_on_automatic_move(game, auto, figures, f"{where} step {k}"):
            return
        game.push(legal[index])
        if position(game) != pos:
            figures.mismatches.append(f"{where} step {k}: {pos!r}, Python {position(game)!r}")
            return
    for attempt in record["after"]:
        figures.tried[attempt[1]] += 1
        got = try_step(game, to_step(attempt[0]))
        if got != (attempt[1], attempt[2]):
            figures.mismatches.append(f"{where} after the end: {attempt} gives {got}")
            return
    if not agree_on_automatic_move(game, record["autoEnd"], figures, f"{where} at the end"):
        return
    figures.games[preset] += 1
    figures.steps[preset] += len(record["steps"])
    figures.won[preset] += game.is_won()
    log = orjson.dumps(record["log"])
    figures.logs.append(log)
    report = verify_bytes(log)
    expected = (True, game.outcome(), game.foundation_cards, game.moves, game.redeals)
    verified = (report.valid, report.outcome, report.foundation_cards, report.moves, report.redeals)
    if verified != expected:
        figures.mismatches.append(
            f"{where}: log verifies as {verified}, not {expected}: {report.error}"
        )
        return
    deal = record["log"]["deal"]
    assert ("piles" in deal) == record["byPiles"] and record["log"]["rules"] == preset
    figures.logs_valid += 1
    figures.logs_by_piles += record["byPiles"]


def lines_of_node_games(games: int) -> Iterator[bytes]:
    assert NODE is not None
    args = ["games", str(games), str(SEED), str(MAX_STEPS)]
    with subprocess.Popen([NODE, str(DRIVER), *args], stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        yield from proc.stdout  # replayed while Node plays on
    assert proc.returncode == 0


def play_games(games: int) -> Figures:
    figures = Figures()
    start = time.perf_counter()
    for line in lines_of_node_games(games):
        replay(orjson.loads(line), figures)
    figures.seconds = time.perf_counter() - start
    print("\n" + figures.summary())
    return figures


@pytest.fixture(scope="module")
def figures() -> Figures:
    return play_games(GAMES_PER_PRESET)


def check_agree(figures: Figures, games: int) -> None:
    assert figures.mismatches == [], figures.mismatches[:5]
    assert set(figures.games) == set(PRESETS), figures.summary()
    for preset in PRESETS:
        assert figures.games[preset] == games, figures.summary()
        assert figures.steps[preset] >= 10 * games, figures.summary()
    assert figures.won.total() > 0, figures.summary()


def test_random_games_agree_step_by_step(figures: Figures) -> None:
    check_agree(figures, GAMES_PER_PRESET)


@pytest.mark.slow
def test_the_full_differential_agrees() -> None:
    """2,000 games of every preset (about 560,000 steps of the six Cruel presets alone)."""
    figures = play_games(FULL_GAMES)
    check_agree(figures, FULL_GAMES)
    assert figures.logs_valid == len(PRESETS) * FULL_GAMES, figures.summary()
    assert set(figures.tried) == set(MOVE_ERRORS), figures.tried


def test_automatic_moves_agree(figures: Figures) -> None:
    """At every position of every game (before each step, and at the end), cruel.js's
    ``Game.automaticMove()`` is Python's ``Game.automatic_move()``, and says which case made it
    safe; both cases come up (auto-finish under every preset that wins, no redeal left under
    the limited ones)."""
    assert figures.mismatches == [], figures.mismatches[:5]
    seen = figures.automatic
    assert seen.total() == figures.steps.total() + figures.games.total(), figures.summary()
    for preset in PRESETS:
        assert seen[f"{preset} none"] > 0, figures.summary()
    limited = [p for p, r in PRESETS.items() if r.max_redeals is not None]
    limited = [p for p in limited if PRESETS[p].tableau_build == "down-in-suit"]
    assert limited and all(seen[f"{p} no-redeal-left"] > 0 for p in limited), seen
    assert sum(seen[f"{p} finish"] for p in PRESETS) >= 100, seen


def test_recorded_logs_verify(figures: Figures) -> None:
    assert figures.logs_valid == len(PRESETS) * GAMES_PER_PRESET, figures.summary()
    assert figures.logs_by_piles > 0, figures.summary()


def test_every_error_code_is_tried(figures: Figures) -> None:
    # Each code of the Python engine came up, with the same code and message in both.
    assert set(figures.tried) == set(MOVE_ERRORS), figures.tried


# --- the tables and the deal numbers ------------------------------------------------------------


def test_presets_are_those_of_python() -> None:
    js = json.loads(node("presets"))
    python = {name: rules.model_dump(mode="json") for name, rules in PRESETS.items()}
    assert js == python


def deal_vectors(preset: str = "cruel") -> dict[int, list[list[str]]]:
    """docs/deals.md's test vectors: Cruel's, or those of one of the other decks."""
    parts = DEALS_MD.read_text(encoding="utf-8").split("\n## Other decks\n", 1)
    text = parts[0] if preset == "cruel" else parts[1].split(f"`{preset}`", 2)[2].split("\n\n")[1]
    rows: dict[int, list[list[str]]] = {}
    for line in text.splitlines():
        match = re.match(r"^\|\s*(\d+)\s*\|(.*)\|\s*$", line)
        if match:
            rows[int(match.group(1))] = [cell.split() for cell in match.group(2).split("|")]
    return rows


def test_deal_numbers_agree_with_the_vectors_and_python() -> None:
    vectors = deal_vectors()
    assert len(vectors) >= 8 and 0 in vectors and 2**32 - 1 in vectors
    numbers = sorted({*vectors, *range(100), 2**31, 2**32 - 2})
    lines = node("deals", *map(str, numbers)).splitlines()
    assert len(lines) == len(numbers)
    for number, line in zip(numbers, lines, strict=True):
        piles = json.loads(line)["piles"]
        assert piles == [[cards.name(c) for c in p] for p in deal_piles(number)], number
        if number in vectors:
            assert piles == vectors[number], number


@pytest.mark.parametrize("preset", ["ripple-fan-pysolfc", "royal-family-pysolfc", "ripple-fan"])
def test_other_decks_agree_with_the_vectors_and_python(preset: str) -> None:
    rules = PRESETS[preset]
    vectors = deal_vectors(preset) if not rules.cruel_layout and preset != "ripple-fan" else {}
    numbers = sorted({*vectors, *range(50), 2**32 - 1})
    lines = node("deals", "--rules", preset, *map(str, numbers)).splitlines()
    assert len(lines) == len(numbers)
    for number, line in zip(numbers, lines, strict=True):
        piles = json.loads(line)["piles"]
        assert piles == [[cards.name(c) for c in p] for p in deal_piles(number, rules)], number
        if number in vectors:
            assert piles == vectors[number], number
    assert preset == "ripple-fan" or sorted(vectors) == [0, 1, 17]


def test_mulberry32_outputs_are_those_of_the_spec() -> None:
    text = DEALS_MD.read_text(encoding="utf-8")
    seed_1 = [int(x) for x in re.findall(r"\d+", text.split("For seed 1 the first five")[1])[:5]]
    assert seed_1[0] == 2693262067
    assert json.loads(node("mulberry", "1", "5")) == seed_1
    python = [u for u, _ in zip(mulberry32(4242), range(1000), strict=False)]
    assert json.loads(node("mulberry", "4242", "1000")) == python


# --- chosen positions: Python picks the steps, cruel.js follows ----------------------------------


def python_game(
    number: int, preset: str, steps: int, rand: Iterator[int]
) -> tuple[Game, list[list[Any]]]:
    """A random game played by Python: its final position and the steps, as drive.mjs reads them."""
    game = Game.trusted(deal_piles(number, PRESETS[preset]), PRESETS[preset])
    played: list[list[Any]] = []
    for _ in range(steps):
        legal = list(game.legal_steps())
        if not legal:
            break
        step = legal[next(rand) % len(legal)]
        game.push(step)
        played.append([] if step == REDEAL else list(step))
    return game, played


def test_python_chosen_games_and_redeal_previews() -> None:
    rand = mulberry32(7)
    cases: list[dict[str, Any]] = []
    games: list[tuple[Game, list[list[Any]]]] = []
    for k in range(120):
        preset = list(PRESETS)[k % len(PRESETS)]
        number = next(rand)
        game, played = python_game(number, preset, 1 + next(rand) % 80, rand)
        # The same steps from the start, then a step after them that may well be illegal.
        extra = [[1 + next(rand) % 12, None, 1, None], [], [1 + next(rand) % 12, 3, 2, None]]
        start = [[cards.name(c) for c in p] for p in deal_piles(number, PRESETS[preset])]
        cases.append({"piles": start, "rules": preset, "steps": played + extra})
        games.append((game, extra))
    # A won game: every step is too late, and a pile outside 1-12 is still a bad pile.
    won = Game([[]] * 12, (13, 13, 13, 13))
    after = [[1, None, 1, None], [], [5, 6, 1, None], [0, None, 1, None], [13, 2, 1, None]]
    cases.append({"piles": [[]] * 12, "foundations": [13] * 4, "rules": "cruel", "steps": after})
    games.append((won, after))
    # A position given with counters, under a rules object that overrides its preset: past
    # Perseverance's 2 redeals, but without its limit.
    rules = Rules(preset="perseverance", run_moves=True, max_redeals=None)
    start_3 = deal_piles(3)
    game = Game(start_3, rules=rules, moves=7, redeals=5)
    first = next(game.card_moves())
    steps = [[], list(first), [], [], [1 + next(rand) % 12, None, 1, None]]
    piles_3 = [[cards.name(c) for c in p] for p in start_3]
    rules_js = {"preset": "perseverance", "max_redeals": None}
    cases.append({"piles": piles_3, "rules": rules_js, "moves": 7, "redeals": 5, "steps": steps})
    games.append((game, steps))
    results = [json.loads(line) for line in node("cases", stdin=json.dumps(cases)).splitlines()]
    assert len(results) == len(cases)
    for (game, extra), case, result in zip(games, cases, results, strict=True):
        expected_tail = []
        for step in extra:
            code, message = try_step(game, to_step(step))
            expected_tail.append([code, message, position(game)])
        tail = result["results"][len(case["steps"]) - len(extra) :]
        assert tail == expected_tail, case
        assert all(r[0] is None for r in result["results"][: len(case["steps"]) - len(extra)])
        rules = game.rules
        assert result["preview"] == redeal_piles(game.piles, rules.redeal_order, rules.redeal_deal)
        problem = game.redeal_problem()
        assert result["problem"] == (problem.code if problem else None)


@pytest.mark.parametrize("which", [0, 1])
def test_the_examples_of_docs_web_md_print_what_they_say(which: int) -> None:
    assert NODE is not None
    page = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```js\n(.*?)```", page, re.S) if "'./cruel.js'" in b]
    assert len(blocks) == 2  # Embedding cruel.js, Reading logs
    block = blocks[which]
    expected = [
        line.removeprefix("// → ") for line in block.splitlines() if line.startswith("// → ")
    ]
    assert len(expected) >= 5
    code = block.replace("'./cruel.js'", json.dumps(CRUEL_JS.as_uri()))
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == expected


# --- the log reader: cruel.js's readLog against log.load -----------------------------------------

# Mutated logs per run: the default tier's, and the slow tier's.
MUTANTS = 3000
FULL_MUTANTS = 30_000


def python_read(text: str) -> dict[str, Any]:
    """What readLog must answer for ``text``: log.load's verdict, then the deal's (resolve_deal)."""
    data = text.encode("utf-8", "surrogatepass")
    try:
        log = load(data)
        # load's fast path only shortcuts the model (a test of test_fast_path holds it to that);
        # checked here again, since cruel.js follows the model.
        GameLog.model_validate_json(strip_bom(data))
    except LogFormatError as exc:
        return {"ok": False, "code": exc.code, "path": exc.path}
    except ValidationError as exc:
        error = _first_error(exc)
        return {"ok": False, "code": error.code, "path": error.path}
    rules = log.resolved_rules()
    try:
        piles = resolve_deal(log.deal.number, log.deal.piles, rules)
    except BadDeal as exc:
        return {"ok": False, "code": exc.code, "path": exc.path}
    steps = [[] if s == REDEAL else list(s) for s in log.steps()]
    return {
        "ok": True,
        "rules": rules.model_dump(mode="json"),
        "number": log.deal.number,
        "piles": [[cards.name(c) for c in p] for p in piles],
        "steps": steps,
    }


def js_read(texts: list[str]) -> list[dict[str, Any]]:
    lines = "".join(json.dumps(t) + "\n" for t in texts)
    answers = [json.loads(line) for line in node("read", stdin=lines).splitlines()]
    assert len(answers) == len(texts)
    return answers


def read_disagreements(texts: list[str]) -> tuple[Counter[str], list[str]]:
    """readLog and log.load on every text: the verdicts seen, and every disagreement."""
    seen: Counter[str] = Counter()
    wrong: list[str] = []
    for text, js in zip(texts, js_read(texts), strict=True):
        expected = python_read(text)
        seen["accepted" if expected["ok"] else expected["code"]] += 1
        got = {k: js[k] for k in expected if k in js}
        if js["ok"] and "steps" in got:
            got["steps"] = [[s[0], s[1], s[2], s[3]] if s else [] for s in got["steps"]]
        if got != expected or js["ok"] != expected["ok"]:
            wrong.append(f"{text[:300]!r}: Python {expected}, cruel.js {js}"[:900])
    return seen, wrong


def repository_logs() -> list[str]:
    paths = sorted([*(ROOT / "samples").glob("*.json"), *(ROOT / "tests" / "data").glob("*.json")])
    assert len(paths) >= 5
    return [p.read_text(encoding="utf-8") for p in paths]


def base_logs() -> list[dict[str, Any]]:
    """Logs to mutate: the repository's, and logs of every form the format allows."""
    logs = [obj for obj in map(json.loads, repository_logs()) if isinstance(obj, dict)]
    for k, preset in enumerate(PRESETS):
        rules = PRESETS[preset]
        game = Game.trusted(deal_piles(k + 3, rules), rules)
        entries: list[Any] = []
        for n, step in enumerate(list(game.legal_steps())[:1] + [REDEAL]):
            text = compact(step)
            entries.append(text.lower() if n % 2 else text)
        deal: dict[str, Any] = {"number": k + 3}
        if k % 3 == 0:
            deal["piles"] = [[cards.name(c) for c in p] for p in deal_piles(k + 3, rules)]
        spec: Any = preset if k % 2 else {"preset": preset, "max_redeals": 7}
        logs.append(
            {
                "format": "cruel-log/1",
                "rules": spec,
                "deal": deal,
                "moves": entries,
                "claim": {"outcome": "in_progress", "moves": 1},
                "meta": {"player": "p"},
            }
        )
    return logs


POOL: list[Any] = [
    0,
    1,
    3,
    12,
    13,
    14,
    -1,
    1.0,
    12.0,
    2.5,
    2**32 - 1,
    2**32,
    2**64,
    10**6 + 1,
    True,
    False,
    None,
    "",
    "R",
    "r",
    "3f",
    "3F",
    "13-1x12",
    "1-2x13",
    "14F",
    "03F",
    "3-7X2",
    "3-7x1",
    "R ",
    "foundation",
    "move",
    "redeal",
    "10h",
    "TH",
    "4\u2666",
    "4\u2666\ufe0f",
    "4D\ufe0f",
    "AS",
    "KD",
    "XX",
    "12",
    [],
    {},
    [1],
    ["2C"],
    {"type": "move"},
    {"type": "redeal"},
    {"type": "move", "from": 1, "to": 2, "card": "5H", "count": 2},
    {"number": 5},
    "cruel-log/1",
    "cruel-log/2",
    "bottom-up",
    "top-down",
    "ace",
    "king",
    "none",
    "up",
    "down",
    "one-at-a-time",
    "won",
    "blocked",
    *PRESETS,
    {"preset": "perseverance"},
    {"preset": "royal-family-pysolfc", "foundation_base": "ace"},
    float("nan"),
    float("inf"),
]
KEYS = [
    "format",
    "rules",
    "deal",
    "moves",
    "claim",
    "meta",
    "number",
    "piles",
    "type",
    "from",
    "to",
    "card",
    "count",
    "preset",
    "max_redeals",
    "pile_count",
    "run_moves",
    "zz",
    "a/b~c",
]


def _containers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, (dict, list)):
        yield path, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in items:
            yield from _containers(child, (*path, key))


def pick(rand: Iterator[int]) -> Any:
    """A value of :data:`POOL`, a copy of its own (mutated again later, it must not be shared)."""
    return copy.deepcopy(POOL[next(rand) % len(POOL)])


def mutate(log: dict[str, Any], rand: Iterator[int]) -> str:
    """One mutant of ``log`` as text: a value replaced, a key dropped or added, or the text cut."""
    obj = json.loads(json.dumps(log))
    for _ in range(1 + next(rand) % 3):  # several faults at once: readLog must pick log.py's
        places = list(_containers(obj))
        # Top-level keys are as likely as any one move: pick a part of the log first.
        part = places[next(rand) % len(places)][0][:1]
        inside = [(p, c) for p, c in places if p[:1] == part]
        _, where = inside[next(rand) % len(inside)]
        kind = next(rand) % 4
        keys = list(where) if isinstance(where, dict) else list(range(len(where)))
        if kind == 0 and keys:
            where[keys[next(rand) % len(keys)]] = pick(rand)
        elif kind == 1 and keys:
            del where[keys[next(rand) % len(keys)]]
        elif kind == 2 and isinstance(where, dict):
            where[KEYS[next(rand) % len(KEYS)]] = pick(rand)
        elif isinstance(where, list):
            where.insert(next(rand) % (len(where) + 1), pick(rand))
    text = json.dumps(obj, ensure_ascii=next(rand) % 2 == 0, indent=None if next(rand) % 3 else 1)
    if next(rand) % 8 == 0:  # the text itself: a character dropped, doubled or changed
        k = next(rand) % len(text)
        text = (
            text[:k]
            + ["", text[k] * 2, "}", ",", '"', "\\", "0", " "][next(rand) % 8]
            + text[k + 1 :]
        )
    return text


def special_texts() -> list[str]:
    """Where JSON parsers differ, and the limits."""
    good = '{"format": "cruel-log/1", "deal": {"number": 17}, "moves": ["2F"%s]%s}'

    def deep(n: int, open_: str, close: str) -> str:
        return good % ("", ', "meta": {"x": ' + open_ * n + "1" + close * n + "}")

    texts = [
        "\ufeff" + good % ("", ""),
        good % ("", "") + " x",
        good % ("", ', "meta": {"a": NaN}'),
        good % ("", ', "meta": {"a": -Infinity, "b": 1e400, "c": -0}'),
        good % ("", ', "meta": {"a": -NaN}'),
        good % ("", ', "meta": {"a": nan}'),
        good % ("", ', "meta": {"a": "\\ud800"}'),
        good % ("", ', "meta": {"a": "\\udc00"}'),
        good % ("", ', "meta": {"a": "\\ud83d\\ude00"}'),
        good % ("", ', "meta": {"a": 01}'),
        good % ("", ', "meta": {"a": 1.}'),
        good % ("", ', "meta": {"a": "\\x"}'),
        good % ("", ', "meta": {"a": "\x01"}'),
        good % ("", ', "deal": {"number": 18}'),
        good % ("", ', "zz": 1, "format": "x"'),
        "",
        " ",
        "[]",
        "17",
        "null",
        '"x"',
        "{",
        "{}",
        good % (', "3F"' * 9_999, ""),
        good % (', "3F"' * 10_000, ""),
        good % ("", ', "meta": {"x": "' + "x" * (1 << 20) + '"}'),
    ]
    for n in (197, 198, 199, 200):
        texts += [deep(n, "[", "]"), deep(n, '{"a": ', "}"), deep(n, "[[", "]]")[:-1] + "}"]
    return texts


def mutants(count: int) -> list[str]:
    rand = mulberry32(20270105)
    logs = base_logs()
    return [mutate(logs[next(rand) % len(logs)], rand) for _ in range(count)]


def test_read_log_reads_the_repository_and_special_texts_as_log_py() -> None:
    seen, wrong = read_disagreements(repository_logs() + special_texts())
    assert wrong == [], wrong[:5]
    assert {"accepted", "not-json", "schema", "too-large", "too-many-moves"} <= set(seen), seen


def test_read_log_reads_the_recorded_games_as_log_py(figures: Figures) -> None:
    seen, wrong = read_disagreements([log.decode() for log in figures.logs])
    assert wrong == [], wrong[:5]
    assert seen == Counter(accepted=len(figures.logs)), seen


def check_mutants(count: int) -> None:
    seen, wrong = read_disagreements(mutants(count))
    print(f"\nreadLog on {count} mutated logs: {dict(seen)}")
    assert wrong == [], wrong[:5]
    # Both kinds of answer, and every code, came up.
    assert seen["accepted"] > count // 20 and seen["schema"] > count // 4, seen
    assert seen["not-json"] > 0 and seen["bad-deal"] > 0, seen


def test_read_log_agrees_on_mutated_logs() -> None:
    check_mutants(MUTANTS)


@pytest.mark.slow
def test_read_log_agrees_on_many_mutated_logs() -> None:
    check_mutants(FULL_MUTANTS)
