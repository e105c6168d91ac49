"""The specification (cruel_tools/spec/): the files generated from it are up to date, the code
that states the same facts as types agrees with it, and a preset added to a spec alone is played
alike by the three engines (game.py, the native core, cruel.js).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from cruel_tools import constants, spec
from cruel_tools.game import game, log, verify
from cruel_tools.game.deals import MAX_DEAL_NUMBER, deal_piles
from cruel_tools.game.log import FORMAT_ERROR_CODES, Claim, GameLog
from cruel_tools.game.rules import PRESET_TABLE, PRESETS, Rules
from cruel_tools.spec.__main__ import main
from cruel_tools.spec.generate import HEADER, OUTPUTS, PACKAGE, render

from .test_i18n import catalogs

ROOT = Path(__file__).resolve().parent.parent
WEB = PACKAGE / "web"
NODE = shutil.which("node")
#: The package's own spec, whatever CRUEL_SPEC says.
OWN = spec.load(spec.FOLDER)


# --- drift: every generated file is what the spec gives -----------------------------------------


@pytest.mark.parametrize("path", sorted(OUTPUTS))
def test_generated_file_matches_the_spec(path: str) -> None:
    committed = (PACKAGE / path).read_text(encoding="utf-8")
    assert committed == render(OWN)[path], (
        f"cruel_tools/{path} is stale: run `python -m cruel_tools.spec generate`"
    )
    assert HEADER in committed.splitlines()[0]


def test_check_names_a_stale_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--out", str(tmp_path)]) == 0
    assert main(["check", "--out", str(tmp_path)]) == 0
    (tmp_path / "web" / "spec.js").write_text("// edited by hand\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--out", str(tmp_path)]) == 1
    assert "web/spec.js is stale" in capsys.readouterr().out


# --- the code that states the same facts as types agrees with the spec --------------------------


def test_rules_model_is_the_spec_parameters() -> None:
    parameters = OWN.presets["parameters"]
    assert list(Rules.model_fields) == ["preset", *(p["name"] for p in parameters)]
    schema = Rules.model_json_schema()["properties"]
    for p in parameters:
        field = schema[p["name"]]
        assert field["default"] == p["default"], p["name"]
        if p["type"] in ("enum", "int-choice"):
            assert field["enum"] == p["values"], p["name"]
    assert [name for name, _, _ in PRESET_TABLE] == [p["name"] for p in OWN.presets["presets"]]


def test_log_models_are_the_spec_keys() -> None:
    keys = OWN.log["keys"]
    assert list(GameLog.model_fields) == [k["name"] for k in keys]
    assert {k["name"] for k in keys if k["required"]} == {
        name for name, f in GameLog.model_fields.items() if f.is_required()
    }
    annotation: Any = GameLog.model_fields["format"].annotation
    assert log.FORMAT == OWN.log["format"] == annotation.__args__[0]
    assert log.Limits() == log.Limits(**OWN.log["limits"])
    assert constants.MAX_BODY == OWN.log["limits"]["max_bytes"]  # the service's bound on a body
    claim = Claim.model_json_schema()["properties"]
    for key in OWN.log["claim"]:
        if "maximum" in key:
            assert claim[key["name"]]["anyOf"][0]["maximum"] == key["maximum"]
        else:
            assert claim[key["name"]]["anyOf"][0]["enum"] == key["values"]
    bounds = {
        (part, k["name"]): k.get("maximum") for part in ("deal", "move") for k in OWN.log[part]
    }
    assert bounds["deal", "number"] == MAX_DEAL_NUMBER
    assert bounds["move", "from"] == bounds["move", "to"] == game.MAX_PILES
    assert bounds["move", "count"] == game.NUM_PILES
    # The fast path reads every key of the spec (a key it did not read would take the slow path).
    assert log._FAST_KEYS == frozenset(GameLog.model_fields)  # noqa: SLF001


def test_report_models_are_the_spec_keys() -> None:
    # native/fastlog.hpp's render writes a valid log's report with the keys spec.hpp gives, in
    # that order; report_json writes the models' fields in theirs: the two are the spec's.
    report = OWN.log["report"]
    assert verify.REPORT_FORMAT == report["format"]
    assert list(verify.VerifyReport.model_fields) == report["keys"]
    assert list(verify.FinalPosition.model_fields) == report["final"]
    assert list(verify.Source.model_fields) == report["source"]
    played = GameLog.model_validate({"format": log.FORMAT, "deal": {"number": 1}})
    written = orjson.loads(
        verify.report_json(verify.verify(played, verify.Source(file="a", line=1)))
    )
    assert list(written) == report["keys"]
    assert list(written["final"]) == report["final"]
    assert list(written["source"]) == report["source"]


def test_error_codes_are_the_spec_codes() -> None:
    move = OWN.errors["move"]
    assert {e["code"]: e["class"] for e in move} == {
        code: cls.__name__ for code, cls in game.MOVE_ERRORS.items()
    }
    assert set(FORMAT_ERROR_CODES) <= {e["code"] for e in OWN.errors["log"]}


def _catalog(lang: str) -> dict[str, str]:
    """The error words of a page catalog, errors.move.* and errors.log.*, as the page sees them
    (the English catalog takes them from spec.js): tests/test_i18n.py's reading under Node."""
    return {
        k: v for k, v in catalogs()[lang].items() if k.startswith(("errors.move.", "errors.log."))
    }


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the catalogs are not read")
def test_english_catalog_says_the_spec_words() -> None:
    words = {
        k: v for part in ("move", "log") for e in OWN.errors[part] for k, v in e["words"].items()
    }
    assert _catalog("en") == words


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the catalogs are not read")
def test_dutch_catalog_has_the_same_codes() -> None:
    assert set(_catalog("nl")) == set(_catalog("en"))


# --- the engine's refusals say the spec's words, byte for byte as before ------------------------

#: The rules the table plays: presets by name, plus a profile no preset has (aces dealt, built up
#: in alternate colours: the ace's words) and a won game ("won": every card home).
ALT = Rules(foundation_base="none", pile_count=13, tableau_build="up-alternate-colour")
REDEAL = "redeal"
STUCK_37 = [(12, None), (5, 3), (11, 3), (11, None), (11, 3), (11, 1)]

#: One illegal step per wording of each move error: (rules, deal, steps before, the step, code,
#: the message). The messages were captured from game.py while it still wrote each one as an
#: f-string of its own, before the words moved to spec/errors.json: they must not change.
REFUSALS: list[tuple[str, int, list[Any], Any, str, str]] = [
    ("cruel", 0, [], (0, None), "bad-pile", "piles are numbered 1 to 12"),
    ("ripple-fan-pysolfc", 0, [], (14, 1), "bad-pile", "piles are numbered 1 to 13"),
    ("cruel", 0, [], (1, 1), "same-pile", "pile 1 cannot move onto itself"),
    ("cruel-when-stuck", 37, STUCK_37, (11, None), "empty-source", "pile 11 is empty"),
    (
        "cruel-when-stuck",
        37,
        STUCK_37,
        (1, 11),
        "empty-target",
        "5♣ from pile 1 cannot go onto pile 11: it is empty, and empty piles stay closed",
    ),
    (
        "cruel",
        0,
        [],
        (1, None, 1, 17),
        "card-mismatch",
        "the log says 5♥ but pile 1's top card K♠",
    ),
    (
        "perseverance",
        17,
        [],
        (7, 1, 2, 22),
        "card-mismatch",
        "the log says 10♥ but pile 7's run of 2 starts at 6♥",
    ),
    (
        "cruel",
        0,
        [],
        (1, None),
        "not-next-on-foundation",
        "K♠ from pile 1 cannot go to the foundation (needs 2♠)",
    ),
    (
        "royal-family-pysolfc",
        0,
        [],
        (2, None),
        "not-next-on-foundation",
        "4♦ from pile 2 cannot go to the foundation (needs Q♦)",
    ),
    ("cruel", 0, [], (2, 1), "wrong-suit", "5♦ from pile 2 cannot go onto K♠ on pile 1 (needs 6♦)"),
    (
        "cruel",
        0,
        [],
        (1, 2),
        "wrong-suit",
        "K♠ from pile 1 cannot go onto 5♦ on pile 2 (a king builds on no card)",
    ),
    (
        "ripple-fan-pysolfc",
        0,
        [(13, None), (13, None), (1, None)],
        (1, 2),
        "wrong-suit",
        "K♦ from pile 1 cannot go onto J♥ on pile 2 (a king builds on no card)",
    ),
    ("cruel", 0, [], (2, 3), "wrong-rank", "5♦ from pile 2 cannot go onto 7♦ on pile 3 (needs 6♦)"),
    (
        "cruel",
        0,
        [],
        (1, 5),
        "wrong-rank",
        "K♠ from pile 1 cannot go onto 9♠ on pile 5 (a king builds on no card)",
    ),
    (
        "royal-family",
        0,
        [],
        (1, 2),
        "wrong-rank",
        "K♠ from pile 1 cannot go onto 5♦ on pile 2 (a K needs a card one rank lower of the other "
        "colour)",
    ),
    (
        "royal-family-pysolfc",
        0,
        [],
        (1, 2),
        "wrong-rank",
        "Q♠ from pile 1 cannot go onto 4♦ on pile 2 (a Q needs a card one rank lower or higher of "
        "the other colour)",
    ),
    (
        "alt",
        0,
        [],
        (13, 1),
        "wrong-rank",
        "A♥ from pile 13 cannot go onto 2♠ on pile 1 (a A needs nothing: an ace builds on no card "
        "of the other colour)",
    ),
    (
        "royal-family",
        0,
        [],
        (1, 5),
        "wrong-colour",
        "K♠ from pile 1 cannot go onto 9♠ on pile 5 (a K needs a card one rank lower of the other "
        "colour)",
    ),
    (
        "royal-family-pysolfc",
        0,
        [],
        (1, 5),
        "wrong-colour",
        "Q♠ from pile 1 cannot go onto 8♠ on pile 5 (a Q needs a card one rank lower or higher of "
        "the other colour)",
    ),
    (
        "alt",
        0,
        [],
        (13, 2),
        "wrong-colour",
        "A♥ from pile 13 cannot go onto J♥ on pile 2 (a A needs nothing: an ace builds on no card "
        "of the other colour)",
    ),
    (
        "cruel",
        0,
        [],
        (1, None, 2),
        "runs-not-allowed",
        "only one card moves at a time under cruel",
    ),
    (
        "perseverance",
        0,
        [],
        (1, 2, 2),
        "not-a-run",
        "the top 2 cards of pile 1 are not a run (its run is 1 card)",
    ),
    (
        "perseverance",
        0,
        [(4, 3)],
        (3, 1, 3),
        "not-a-run",
        "the top 3 cards of pile 3 are not a run (its run is 2 cards)",
    ),
    (
        "perseverance",
        0,
        [],
        (1, None, 2),
        "run-to-foundation",
        "runs move only onto piles; cards go to the foundation one by one",
    ),
    ("cruel", 0, [], REDEAL, "redeal-unchanged", "a redeal now would leave every pile as it is"),
    (
        "royal-family-pysolfc",
        9,
        [(11, 6), REDEAL],
        REDEAL,
        "redeal-limit",
        "no redeals left: these rules allow 1",
    ),
    (
        "cruel-when-stuck",
        0,
        [],
        REDEAL,
        "redeal-not-stuck",
        "cruel-when-stuck allows a redeal only when no card can move",
    ),
    ("won", 0, [], (1, None), "move-after-end", "the game is already won"),
    ("won", 0, [], REDEAL, "move-after-end", "the game is already won"),
]


def _refusal(rules_name: str, deal: int, before: list[Any], step: Any) -> game.IllegalMove:
    if rules_name == "won":
        played = game.Game([[] for _ in range(12)], [13] * 4)
    else:
        rules = ALT if rules_name == "alt" else PRESETS[rules_name]
        played = game.Game.from_deal(deal_piles(deal, rules), rules)
    for s in before:
        played.push(game.REDEAL if s == REDEAL else game.Move(*s))
    with pytest.raises(game.IllegalMove) as info:
        played.push(game.REDEAL if step == REDEAL else game.Move(*step))
    return info.value


@pytest.mark.parametrize(("rules", "deal", "before", "step", "code", "message"), REFUSALS)
def test_refusals_say_the_words_they_said(
    rules: str, deal: int, before: list[Any], step: Any, code: str, message: str
) -> None:
    refused = _refusal(rules, deal, before, step)
    assert (refused.code, str(refused)) == (code, message)
    assert type(refused) is game.MOVE_ERRORS[code]


@pytest.mark.parametrize("rules", ["cruel", "royal-family-pysolfc"])
def test_a_complete_foundation_says_so(rules: str) -> None:
    # No play reaches it (a complete foundation's cards are all home), so the state is forced.
    played = game.Game.from_deal(deal_piles(0, PRESETS[rules]), PRESETS[rules])
    card = played.piles[1][-1] if rules != "cruel" else played.piles[0][-1]
    played.foundations[card // 13] = 13
    with pytest.raises(game.NotNextOnFoundation) as info:
        played.move(2 if rules != "cruel" else 1, None)
    assert (
        str(info.value)
        == {
            "cruel": "K♠ from pile 1 cannot go to the foundation (needs nothing: the ♠ foundation is "
            "complete)",
            "royal-family-pysolfc": "4♦ from pile 2 cannot go to the foundation (needs nothing: the ♦ "
            "foundation is complete)",
        }[rules]
    )


def test_every_move_error_is_refused_in_the_table() -> None:
    assert {row[4] for row in REFUSALS} == set(game.MOVE_ERRORS)


# Run by node with the table as JSON: each refusal of REFUSALS played in cruel.js, [code, message].
JS_REFUSALS = """
import { Game, dealPiles, rulesOf } from './cruel.js';
const ALT = { foundation_base: 'none', pile_count: 13, tableau_build: 'up-alternate-colour' };
const step = (s) => (s === 'redeal' ? { type: 'redeal' }
  : { type: 'move', source: s[0], target: s[1], count: s[2] ?? 1, card: s[3] ?? null });
const out = [];
for (const [name, deal, before, refused] of JSON.parse(process.argv.at(-1))) {
  const rules = rulesOf(name === 'alt' ? ALT : name === 'won' ? 'cruel' : name);
  const game = name === 'won'
    ? new Game(Array.from({ length: 12 }, () => []), rules, { foundations: [13, 13, 13, 13] })
    : new Game(dealPiles(deal, rules), rules);
  before.forEach((s) => game.push(step(s)));
  try { game.push(step(refused)); out.push(null); } catch (e) { out.push([e.code, e.message]); }
}
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: cruel.js is not run")
def test_cruel_js_refusals_say_the_same_words() -> None:
    # cruel.js fills the spec's templates itself (its `say`): the same sentences, byte for byte.
    assert NODE is not None
    table = [[rules, deal, before, step] for rules, deal, before, step, _, _ in REFUSALS]
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", JS_REFUSALS, json.dumps(table)],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == [[code, message] for *_, code, message in REFUSALS]


def _fixed_text(template: str) -> list[str]:
    """The words of a template between its ``{fields}``, those long enough to be a copy (a word
    or two like "pile " or " from " proves nothing)."""
    return [part for part in re.split(r"\{\w+\}", template) if len(part.strip()) >= 12]


def test_cruel_js_holds_no_copy_of_the_spec_words() -> None:
    # cruel.js words its refusals from spec.js's MOVE_WORDS: a sentence written out by hand in it
    # would be a second statement of the words, free to drift from the spec's.
    source = (WEB / "cruel.js").read_text(encoding="utf-8")
    words = {k: v for e in OWN.errors["move"] for k, v in e["words"].items()}
    copied = {
        key: part
        for key, template in words.items()
        for part in _fixed_text(template)
        if part.strip() in source
    }
    assert copied == {}
    assert "cannot go onto" in "".join(words.values())  # the check reads the sentences it should


# --- a preset added to a spec alone, played by all three engines --------------------------------

#: A preset of existing parameters combined as no preset combines them: 13 piles from all 52
#: cards, built up or down in alternate colours, redealt one card at a time, two redeals.
NEW_PRESET: dict[str, Any] = {
    "name": "test-ripple-royal",
    "settings": {
        "pile_count": 13,
        "foundation_base": "none",
        "tableau_build": "up-or-down-alternate-colour",
        "redeal_deal": "one-at-a-time",
        "max_redeals": 2,
    },
    "source": "tests/test_spec.py: a preset that lives only in a test's spec.",
}
DEALS = [0, 1, 17, 4242, 2**32 - 1]

# Run under CRUEL_SPEC: plays each deal in game.py and in the native core (the native engine
# differential's play_both: legal steps, positions and refusals compared after every step),
# then prints one seeded random game per deal (its steps and the legal steps after each).
PYTHON_SIDE = """
import json, random, sys
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.rules import PRESETS
from tests.helpers import random_step
from tests.test_native_engine import NATIVE, as_tuple, play_both

rules = PRESETS[sys.argv[1]]
games = []
for number in map(int, sys.argv[2:]):
    piles = deal_piles(number, rules)
    played, refused = play_both(piles, rules, random.Random(number), 150, 1)
    game, rng, steps, legal = Game.from_deal(piles, rules), random.Random(number), [], []
    for _ in range(150):
        step = random_step(game, rng)
        if step is None:
            break
        game.push(step)
        steps.append(as_tuple(step))
        legal.append([as_tuple(s) for s in game.legal_steps()])
    games.append({"number": number, "piles": piles, "steps": steps, "legal": legal,
                  "outcome": game.outcome(), "native_played": played, "native": NATIVE is not None})
print(json.dumps(games))
"""

# Run by node beside a copy of cruel.js and the test spec's spec.js: the same games in cruel.js.
JS_SIDE = """
import { Game, dealPiles, PRESETS } from './cruel.js';
const [name, text] = [process.argv[2], await new Promise((ok) => {
  let s = ''; process.stdin.on('data', (d) => { s += d; }); process.stdin.on('end', () => ok(s));
})];
const tuple = (s) => (s.type === 'redeal' ? [0, 0, 1] : [s.source, s.target ?? 0, s.count ?? 1]);
const out = [];
for (const g of JSON.parse(text)) {
  const piles = dealPiles(g.number, name);
  const game = new Game(piles, name);
  const legal = [];
  for (const [source, target, count] of g.steps) {
    game.push(source === 0 ? { type: 'redeal' } : { type: 'move', source, target: target || null, count });
    legal.push(game.legalSteps().map(tuple));
  }
  out.push({ number: g.number, piles, legal, outcome: game.outcome(), rules: PRESETS[name] });
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def test_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the spec with :data:`NEW_PRESET` added, in a folder of its own."""
    folder = tmp_path_factory.mktemp("spec")
    for name in spec.FILES:
        shutil.copy(spec.FOLDER / name, folder / name)
    presets = orjson.loads((folder / "presets.json").read_bytes())
    presets["presets"].append(NEW_PRESET)
    (folder / "presets.json").write_bytes(orjson.dumps(presets))
    return folder


def python_games(folder: Path) -> list[dict[str, Any]]:
    env = {**os.environ, spec.ENV: str(folder)}
    result = subprocess.run(
        [sys.executable, "-c", PYTHON_SIDE, NEW_PRESET["name"], *map(str, DEALS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    games: list[dict[str, Any]] = json.loads(result.stdout)
    return games


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: cruel.js is not run")
@pytest.mark.skipif(
    os.environ.get("CRUEL_ENGINE") == "python", reason="the three engines include the native core"
)
def test_a_preset_added_to_the_spec_is_played_alike_by_three_engines(
    test_spec: Path, tmp_path: Path
) -> None:
    games = python_games(test_spec)
    assert all(g["native"] for g in games), "the native core did not play"
    assert all(g["native_played"] > 0 for g in games)
    # cruel.js, beside the spec.js this spec gives (no other change).
    assert main(["generate", "--spec", str(test_spec), "--out", str(tmp_path)]) == 0
    shutil.copy(WEB / "cruel.js", tmp_path / "web" / "cruel.js")
    (tmp_path / "web" / "play.mjs").write_text(JS_SIDE, encoding="utf-8")
    assert NODE is not None
    result = subprocess.run(
        [NODE, str(tmp_path / "web" / "play.mjs"), NEW_PRESET["name"]],
        input=json.dumps(games),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    js = json.loads(result.stdout)
    for py, got in zip(games, js, strict=True):
        assert got["rules"]["pile_count"] == 13 and got["rules"]["redeal_deal"] == "one-at-a-time"
        assert got["piles"] == py["piles"], f"deal {py['number']}: piles differ"
        assert got["legal"] == py["legal"], f"deal {py['number']}: legal steps differ"
        assert got["outcome"] == py["outcome"], f"deal {py['number']}: outcomes differ"
    assert any(len(g["steps"]) > 10 for g in games)


def test_the_new_preset_is_unknown_to_the_package_spec() -> None:
    from cruel_tools.game.rules import PRESETS

    if os.environ.get(spec.ENV) is None:
        assert NEW_PRESET["name"] not in PRESETS


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: cruel.js is not run")
def test_docs_deals_js_finds_the_spec_where_it_is_served() -> None:
    # docs/deals.js is a link to cruel.js, which imports ./spec.js: a static host serving docs/
    # looks for it beside deals.js, as node does with --preserve-symlinks.
    docs = ROOT / "docs"
    assert (docs / "deals.js").resolve() == WEB / "cruel.js"
    assert (docs / "spec.js").resolve() == WEB / "spec.js"
    assert NODE is not None
    result = subprocess.run(
        [NODE, "--preserve-symlinks", "--preserve-symlinks-main", str(docs / "deals.js"), "17"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["number"] == 17
