"""The rest of the family (issue #17): Ripple Fan and Royal Family, as the seed reads them and as
PySolFC plays them. Worked examples for each preset: a redeal, a build, a foundation move, a
block; and the deals each preset makes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.game import cards
from cruel_tools.game.deals import BadDeal, check_piles, deal_piles
from cruel_tools.game.game import (
    MOVE_ERRORS,
    REDEAL,
    Game,
    IllegalMove,
    VariantGame,
    foundation_rank,
    redeal_piles,
    tableau_sequence,
)
from cruel_tools.game.rules import PRESETS, Rules, preset
from cruel_tools.game.verify import verify_bytes
from cruel_tools.puzzles import Puzzle, generate, puzzle_solution_log
from cruel_tools.search.grading import Budget, grade

from .helpers import log_dict, position, random_game

RIPPLE = preset("ripple-fan")
ROYAL = preset("royal-family")
RIPPLE_PY = preset("ripple-fan-pysolfc")
ROYAL_PY = preset("royal-family-pysolfc")


def names(game: Game, i: int) -> str:
    return " ".join(cards.name(x) for x in game.piles[i - 1])


def raises(code: str, fn, *args) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalMove) as info:
        fn(*args)
    assert info.value.code == code
    assert isinstance(info.value, MOVE_ERRORS[code])
    return str(info.value)


def test_the_profiles_and_the_engine_they_get() -> None:
    assert [PRESETS[n].cruel_layout for n in ("cruel", "pysolfc", "perseverance")] == [True] * 3
    for rules in (RIPPLE, ROYAL, RIPPLE_PY, ROYAL_PY):
        assert not rules.cruel_layout
        assert type(Game.from_deal(deal_piles(7, rules), rules)) is VariantGame
    assert type(Game.from_deal(deal_piles(7))) is Game
    assert RIPPLE.redeal_deal == "one-at-a-time" and RIPPLE.pile_count == 12
    assert ROYAL.tableau_build == "up-alternate-colour" and ROYAL.foundation_base == "ace"
    assert (RIPPLE_PY.pile_count, RIPPLE_PY.foundation_base) == (13, "none")
    assert (ROYAL_PY.foundation_base, ROYAL_PY.foundation_direction) == ("king", "down")
    assert (ROYAL_PY.tableau_build, ROYAL_PY.max_redeals) == ("up-or-down-alternate-colour", 1)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"foundation_base": "king"}, "kings build down"),
        ({"foundation_direction": "down"}, "aces build up"),
        ({"pile_count": 13}, "do not hold the 48"),
        ({"foundation_base": "none"}, "do not hold the 52"),
        ({"tableau_build": "up-alternate-colour", "run_moves": True}, "run moves"),
    ],
)
def test_profiles_that_make_no_game_are_refused(settings: dict[str, object], words: str) -> None:
    with pytest.raises(ValidationError, match=words):
        Rules(**settings)  # type: ignore[arg-type]


# --- deals ---------------------------------------------------------------------------------------


def test_deals_of_each_preset() -> None:
    cruel = deal_piles(1)
    assert deal_piles(1, RIPPLE) == cruel == deal_piles(1, ROYAL)  # same deck, same deal
    d52 = deal_piles(1, RIPPLE_PY)
    assert len(d52) == 13 and all(len(p) == 4 for p in d52)
    assert sorted(x for p in d52 for x in p) == list(cards.DECK)
    d48 = deal_piles(1, ROYAL_PY)
    flat = [x for p in d48 for x in p]
    assert len(d48) == 12 and len(set(flat)) == 48 and all(cards.rank(x) != 13 for x in flat)
    # The 52-card deal of deal 1, as docs/deals.md lists it.
    assert [cards.name(x) for x in d52[0]] == ["QH", "6C", "JH", "JS"]
    assert [cards.name(x) for x in d48[0]] == ["QH", "9H", "3D", "2C"]


def test_deal_checks_follow_the_profile() -> None:
    d52 = [[cards.name(x) for x in p] for p in deal_piles(3, RIPPLE_PY)]
    assert check_piles(d52, rules=RIPPLE_PY) == deal_piles(3, RIPPLE_PY)
    with pytest.raises(BadDeal, match="a deal has 12 piles, this one has 13"):
        check_piles(d52)
    with pytest.raises(BadDeal, match="a deal has 13 piles, this one has 12"):
        check_piles(d52[:12], rules=RIPPLE_PY)
    d48 = [[cards.name(x) for x in p] for p in deal_piles(3)]
    with pytest.raises(BadDeal, match="the kings start on the foundations") as info:
        check_piles(d48, rules=ROYAL_PY)
    assert info.value.path.startswith("/deal/piles/")


# --- ripple-fan: the seed's Ripple Fan -------------------------------------------------------------


def test_ripple_fan_redeal_deals_one_card_to_each_pile_in_turn() -> None:
    # Seed 000's worked position (4♦ moved onto 5♦), redealt one card at a time: pile 1 gets
    # cards 1, 13, 25 and 37 of the sequence, pile 2 cards 2, 14, 26, 38, ...
    g = position(["5C 9H 2D", "KD 3S 8C 5D 4D"], rules=RIPPLE)
    seq = tableau_sequence(g.piles)
    g.redeal()
    assert g.piles == [seq[j::12] for j in range(12)]
    assert names(g, 1).split()[0] == "5C" and g.piles[0][1] == seq[12]
    assert names(g, 2).split()[:2] == ["9H", cards.name(seq[13])]
    assert g.redeals == 1
    # Unlike Cruel's packets, a second redeal in a row changes the layout again.
    g.redeal()
    assert g.redeals == 2


def test_ripple_fan_redeal_frees_what_packets_keep_buried() -> None:
    # Q♠ under K♠ in pile 1 with 5 cards left: Cruel's packets keep it under K♠ for ever, one
    # card per pile lays every card on top.
    rows = ["QS KS", "KH", "KD KC"]
    found = "S11 H12 D12 C12"
    cruel = position(rows, found)
    cruel.redeal()
    assert [names(cruel, i) for i in (1, 2)] == ["QS KS KH KD", "KC"]
    for i in (2, 1, 1):  # K♣, K♦, K♥ go up; Q♠ stays under K♠
        cruel.move(i, None)
    assert names(cruel, 1) == "QS KS" and cruel.outcome() == "blocked"
    g = position(rows, found, RIPPLE)
    g.redeal()
    assert [names(g, i) for i in range(1, 7)] == ["QS", "KS", "KH", "KD", "KC", ""]
    for i in (1, 2, 3, 4, 5):
        g.move(i, None)
    assert g.outcome() == "won"


def test_ripple_fan_build_and_foundation_and_refusals() -> None:
    g = position(["9H 2D", "KD 3S 8C 3D"], rules=RIPPLE)
    g.move(1, None)  # 2♦ up: the foundation rule is Cruel's
    assert g.foundations[2] == 2
    raises("wrong-suit", g.move, 1, 2)  # 9♥ onto 3♦
    g.move(2, None)  # 3♦ up, 8♣ on top of pile 2
    assert "needs 9♣" in raises("wrong-suit", g.move, 2, 1)
    assert "needs 9♥" in raises(
        "wrong-rank", position(["10H 8H", "KD JH"], rules=RIPPLE).move, 1, 2
    )
    g2 = position(["10H 8H", "KD 9H"], rules=RIPPLE)
    g2.move(1, 2)  # a build: 8♥ onto 9♥, down in suit as in Cruel
    assert names(g2, 2) == "KD 9H 8H"


def test_ripple_fan_is_never_blocked() -> None:
    # Without a redeal limit no ripple-fan position is `blocked`: past 12 cards a redeal always
    # moves pile 1's second card, and at 12 or fewer it lays every card on top, the next card
    # of some foundation among them. Where Cruel blocks (the same cards as in the last test, the
    # four kings on top of their tens' runs), the one-card deal finds moves.
    rows = ["10S JS QS KS", "10H JH QH KH", "10D JD QD KD", "10C JC QC KC"]
    cruel = position(rows, "S9 H9 D9 C9")
    assert cruel.outcome() == "blocked"
    g = position(rows, "S9 H9 D9 C9", RIPPLE)
    assert not g.has_card_move() and g.outcome() == "in_progress"
    g.redeal()
    assert names(g, 1) == "10S 10C" and g.top(1) == cards.parse("10C")
    g.move(1, None)  # 10♣ up, then 10♠
    g.move(1, None)
    raises("empty-target", g.move, 2, 1)  # and empty piles stay closed


# --- royal-family: the seed's Royal Family ---------------------------------------------------------


def test_royal_family_builds_up_in_alternate_colours() -> None:
    g = position(["9H 6H", "KD 5S", "2C 5D", "3C 7S"], rules=ROYAL)
    g.move(1, 2)  # 6♥ onto 5♠: one rank up, red on black
    assert names(g, 2) == "KD 5S 6H"
    msg = raises("wrong-colour", g.move, 3, 1)  # 5♦ onto 9♥: red on red
    assert msg == (
        "5♦ from pile 3 cannot go onto 9♥ on pile 1 "
        "(a 5 needs a card one rank lower of the other colour)"
    )
    g.move(4, 2)  # 7♠ onto 6♥: up again
    assert names(g, 2) == "KD 5S 6H 7S"


def test_royal_family_build_directions() -> None:
    g = position(["9H 6H", "KD 5S", "2C 7S"], rules=ROYAL)
    raises("wrong-rank", g.move, 2, 1)  # 5♠ onto 6♥ would build down: refused
    g.move(1, 2)  # 6♥ onto 5♠
    g.move(3, 2)  # 7♠ onto 6♥
    assert names(g, 2) == "KD 5S 6H 7S"
    moves = list(position(["9H 6H", "KD 5S"], rules=ROYAL).card_moves())
    assert (1, 2) in [(m.source, m.target) for m in moves]


def test_royal_family_foundation_redeal_and_block() -> None:
    g = position(["9H 2H", "KD 5S"], rules=ROYAL)
    g.move(1, None)  # 2♥ onto A♥: foundations as in Cruel
    assert g.foundations[1] == 2
    g.redeal()  # packets of 4, as in Cruel
    assert names(g, 1) == "9H KD 5S " + names(g, 1).split()[3]
    # J♠ under Q♠ with K♠ on top: K♠ (black) needs a red queen on top; nothing moves, and the
    # redeal would lay pile 1 out as it is.
    b = position(["KH JS QS KS"], "S10 H12 D13 C13", ROYAL)
    assert not b.has_card_move()
    assert b.outcome() == "blocked"
    raises("redeal-unchanged", b.redeal)


# --- ripple-fan-pysolfc ----------------------------------------------------------------------------


def test_ripple_fan_pysolfc_deal_foundations_from_nothing() -> None:
    g = Game.from_deal(deal_piles(1, RIPPLE_PY), RIPPLE_PY)
    assert len(g.piles) == 13 and g.foundations == [0, 0, 0, 0] and g.foundation_cards == 0
    b = position(["2S AS", "3H"], rules=RIPPLE_PY)
    assert "needs A♥" in raises("not-next-on-foundation", b.move, 2, None)
    b.move(1, None)  # A♠ starts its foundation
    b.move(1, None)  # then 2♠
    assert b.foundations[0] == 2 and foundation_rank(RIPPLE_PY, 2) == 2
    assert "numbered 1 to 13" in raises("bad-pile", b.move, 14, None)


def test_ripple_fan_pysolfc_build_and_redeal() -> None:
    raises("wrong-suit", position(["9C 8C", "KD 9D"], rules=RIPPLE_PY).move, 1, 2)
    g2 = position(["5C 4D", "KH 5D"], rules=RIPPLE_PY)
    g2.move(1, 2)  # 4♦ onto 5♦, down in suit
    assert names(g2, 2) == "KH 5D 4D"
    before = [p[:] for p in g2.piles]
    g2.redeal()
    # top-down packets over 13 piles: read each pile top to bottom, the first card of each
    # packet on top of its new pile
    assert g2.piles == redeal_piles(before, "top-down")
    assert len(g2.piles) == 13
    assert names(g2, 1) == "KH 5D 4D 5C"  # the sequence 5C 4D 5D KH, first card on top


def test_ripple_fan_pysolfc_block() -> None:
    b = position(["KH JS QS KS"], "S10 H12 D13 C13", RIPPLE_PY)
    assert len(b.piles) == 13 and not b.has_card_move()
    assert b.outcome() == "blocked"
    raises("redeal-unchanged", b.redeal)


# --- royal-family-pysolfc ----------------------------------------------------------------------


def test_royal_family_pysolfc_foundations_build_down_from_the_kings() -> None:
    g = Game.from_deal(deal_piles(1, ROYAL_PY), ROYAL_PY)
    assert g.foundations == [1, 1, 1, 1] and g.foundation_cards == 4
    assert foundation_rank(ROYAL_PY, 1) == 13
    b = position(["JS QS", "AH"], rules=ROYAL_PY)
    assert "needs Q♥" in raises("not-next-on-foundation", b.move, 2, None)
    b.move(1, None)  # Q♠ onto K♠
    b.move(1, None)  # J♠ onto Q♠
    assert b.foundations[0] == 3 and foundation_rank(ROYAL_PY, 3) == 11


def test_royal_family_pysolfc_builds_up_or_down_in_alternate_colours() -> None:
    g = position(["9H 6H", "QD 5S", "2C 7S"], rules=ROYAL_PY)
    g.move(1, 3)  # 6♥ onto 7♠: down
    assert names(g, 3) == "2C 7S 6H"
    g = position(["9H 6H", "QD 5S", "2C 7S"], rules=ROYAL_PY)
    g.move(1, 2)  # 6♥ onto 5♠: up
    assert names(g, 2) == "QD 5S 6H"
    raises("wrong-colour", position(["9H 6H", "QD 5D"], rules=ROYAL_PY).move, 1, 2)
    raises("wrong-rank", position(["9H 6H", "QD 8S"], rules=ROYAL_PY).move, 1, 2)


def test_royal_family_pysolfc_one_redeal_then_blocked() -> None:
    g = position(["AS 2S 2H", "QD 5H"], "S11", ROYAL_PY)  # S: K..3 on the foundation
    g.redeal()
    assert g.redeals == 1
    raises("redeal-limit", g.redeal)
    # A♥ on top needs a black 2 on top, or 2♥ under it on the foundation: stuck, redeal used.
    b = position(["2H AS 2S AH"], "S11 H11 D13 C13", ROYAL_PY)
    b.redeals = 1
    assert not b.has_card_move()
    assert b.outcome() == "blocked"
    assert list(b.legal_steps()) == []
    assert REDEAL not in list(b.legal_steps())


# --- deal numbers: the documented vectors ------------------------------------------------------


def _doc_vectors(title: str) -> dict[int, list[str]]:
    text = (Path(__file__).parent.parent / "docs" / "deals.md").read_text(encoding="utf-8")
    table = text.split("\n## Other decks\n", 1)[1].split(f"`{title}`", 2)[2]
    rows = {}
    for line in table.split("\n\n", 2)[1].splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[int(cells[0])] = cells[1:]
    return rows


@pytest.mark.parametrize("name", ["ripple-fan-pysolfc", "royal-family-pysolfc"])
def test_other_decks_match_the_documented_vectors(name: str) -> None:
    vectors = _doc_vectors(name)
    assert sorted(vectors) == [0, 1, 17]
    for number, piles in vectors.items():
        got = [" ".join(cards.name(x) for x in p) for p in deal_piles(number, PRESETS[name])]
        assert got == piles


def test_cruel_deals_did_not_change() -> None:
    # docs/deals.md's first vector, by the old recipe: the 48 non-aces
    assert [cards.name(x) for x in deal_piles(0)[0]] == ["QC", "6C", "7S", "KS"]
    assert deal_piles(0, PRESETS["pysolfc"]) == deal_piles(0) == deal_piles(0, RIPPLE)


# --- the command line ------------------------------------------------------------------------------

runner = CliRunner()


def _log(name: str, number: int, seed: int, steps: int = 40) -> dict[str, Any]:
    piles, played, game = random_game(number, random.Random(seed), PRESETS[name], steps)
    doc = log_dict(piles, played, name)
    doc["deal"] = {"number": number}
    doc["claim"] = {
        "outcome": game.outcome(),
        "foundation_cards": game.foundation_cards,
        "moves": game.moves,
        "redeals": game.redeals,
    }
    return doc


def test_cli_deal_and_show_with_13_piles() -> None:
    out = runner.invoke(app, ["deal", "1", "--rules", "ripple-fan-pysolfc"])
    assert out.exit_code == 0
    piles = json.loads(out.stdout)["piles"]
    assert len(piles) == 13 and piles[0] == ["QH", "6C", "JH", "JS"]
    for layout in ("rows", "grid", "wide"):
        out = runner.invoke(
            app, ["show", "1", "--rules", "ripple-fan-pysolfc", "--layout", layout, "--ascii"]
        )
        assert out.exit_code == 0, out.stdout
        lines = out.stdout.splitlines()
        assert lines[1] == "S -  H -  D -  C -"
        assert max(map(len, lines)) <= 80
        assert "13" in out.stdout
    out = runner.invoke(app, ["show", "1", "--rules", "royal-family-pysolfc", "--ascii"])
    assert out.stdout.splitlines()[1] == "S K  H K  D K  C K"
    out = runner.invoke(app, ["deal", "1", "--rules", "klondike"])
    assert out.exit_code == 2 and "unknown rules preset 'klondike'" in out.output


@pytest.mark.parametrize(
    "name", ["ripple-fan", "royal-family", "ripple-fan-pysolfc", "royal-family-pysolfc"]
)
def test_cli_verify_and_replay_each_preset(tmp_path: Path, name: str) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(_log(name, 5, 3)))
    out = runner.invoke(app, ["verify", str(path), "--json"])
    assert out.exit_code == 0, out.stdout
    report = json.loads(out.stdout.splitlines()[0])
    assert report["valid"] and len(report["final"]["piles"]) == PRESETS[name].pile_count
    out = runner.invoke(app, ["replay", str(path), "--ascii"])
    assert out.exit_code == 0, out.stdout
    assert max(map(len, out.stdout.splitlines())) <= 80


def test_pile_13_is_a_bad_pile_under_12_piles(tmp_path: Path) -> None:
    doc = {"format": "cruel-log/1", "deal": {"number": 5}, "moves": ["13F"]}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    out = runner.invoke(app, ["verify", str(path)])
    assert out.exit_code == 1
    assert "move 1: piles are numbered 1 to 12 (at /moves/0) [bad-pile]" in out.stdout
    doc["rules"] = "ripple-fan-pysolfc"
    path.write_text(json.dumps(doc))
    out = runner.invoke(app, ["verify", str(path)])
    assert "[bad-pile]" not in out.stdout and "[not-next-on-foundation]" in out.stdout


# --- grade and generate ----------------------------------------------------------------------------


# The par search dominates the cost of a grade; the default tier gives it 2,000 positions (the
# CLI's full budget, a minute a preset, runs in the slow tier). The ladder's tiers are the same.
SMALL_PAR = Budget(optimal_states=2_000)


def check_grade(grade: dict[str, Any], name: str) -> None:
    assert grade["rules"]["preset"] == name
    assert len(grade["deal"]["piles"]) == PRESETS[name].pile_count
    assert grade["tier"] in ("easy", "medium")  # deal 3 is won by the ladder under all three
    par = grade["metrics"]["par"]
    start = Game.from_deal(deal_piles(3, PRESETS[name]), PRESETS[name])
    # every card left needs its foundation move
    assert par["moves"] >= 52 - start.foundation_cards
    assert par["actions"] >= par["lower_bound"] >= 52 - start.foundation_cards


@pytest.mark.heavy
@pytest.mark.parametrize("name", ["ripple-fan", "royal-family", "ripple-fan-pysolfc"])
def test_grade_under_each_new_preset(name: str) -> None:
    rules = PRESETS[name]
    found = grade(deal_piles(3, rules), 3, rules, SMALL_PAR)
    check_grade(found.model_dump(mode="json"), name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ripple-fan", "royal-family", "ripple-fan-pysolfc"])
def test_cli_grade_under_each_new_preset(name: str) -> None:
    out = runner.invoke(app, ["grade", "3", "--rules", name, "--json"])
    assert out.exit_code == 0, out.output
    check_grade(json.loads(out.stdout), name)


def test_royal_family_pysolfc_grades_without_a_tier_when_undecided() -> None:
    # Deal 3 is won (by the solver's probes, docs/solver.md), but not within 40 positions.
    rules = PRESETS["royal-family-pysolfc"]
    found = grade(deal_piles(3, rules), 3, rules, Budget(solver_states=40))
    assert found.rules.preset == "royal-family-pysolfc"
    assert found.tier is None and found.verdict == "unknown"


@pytest.mark.slow
def test_cli_royal_family_pysolfc_grades_a_deal_the_probes_win() -> None:
    # Deal 3 was undecided before the probes (issue #25); now it is won, graded and given a par.
    out = runner.invoke(app, ["grade", "3", "--rules", "royal-family-pysolfc", "--json"])
    assert out.exit_code == 0, out.output
    grade = json.loads(out.stdout)
    assert grade["rules"]["preset"] == "royal-family-pysolfc"
    assert grade["verdict"] == "won" and grade["tier"] is not None
    par = grade["metrics"]["par"]
    assert par["actions"] >= par["lower_bound"] >= 52 - 4


def check_13_pile_puzzle(doc: dict[str, Any]) -> None:
    assert doc["rules"] == "ripple-fan-pysolfc" and doc["tier"] == "easy"
    assert len(doc["deal"]["piles"]) == 13
    puzzle = Puzzle.model_validate(doc)
    report = verify_bytes(orjson.dumps(puzzle_solution_log(puzzle)))
    assert report.valid and report.outcome == "won", report.error
    assert report.moves + report.redeals == doc["par"]["actions"]


@pytest.mark.heavy
def test_generate_a_13_pile_puzzle_whose_solution_verifies() -> None:
    rules = PRESETS["ripple-fan-pysolfc"]
    (puzzle,) = generate("easy", 1, "demo", rules, budget=SMALL_PAR)
    check_13_pile_puzzle(orjson.loads(puzzle.model_dump_json(exclude_none=False)))


@pytest.mark.slow
def test_cli_generate_a_13_pile_puzzle_whose_solution_verifies() -> None:
    args = ["generate", "--tier", "easy", "--seed", "demo", "--count", "1", "-q"]
    out = runner.invoke(app, [*args, "--rules", "ripple-fan-pysolfc"])
    assert out.exit_code == 0, out.output
    check_13_pile_puzzle(json.loads(out.stdout.splitlines()[0]))
