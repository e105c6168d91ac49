"""Every rule of the engine and every move error code, plus the seeds' worked examples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cruel_tools.game import cards
from cruel_tools.game.game import (
    MOVE_ERRORS,
    REDEAL,
    Game,
    IllegalMove,
    Move,
    PositionError,
    is_packed,
    redeal_piles,
    tableau_sequence,
)
from cruel_tools.game.rules import PRESETS, preset

from .helpers import c, pile, position

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback


def names(game: Game, i: int) -> str:
    return " ".join(cards.name(x) for x in game.piles[i - 1])


def raises(code: str, fn, *args):  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalMove) as info:
        fn(*args)
    assert info.value.code == code
    assert isinstance(info.value, MOVE_ERRORS[code])
    assert isinstance(info.value, ValueError)
    return str(info.value)


# --- cards --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("4♦", "4D"),
        ("4♦\ufe0f", "4D"),
        ("as", "AS"),
        ("KC", "KC"),
        ("q♣", "QC"),
    ],
)
def test_card_spellings(text: str, expected: str) -> None:
    assert cards.name(cards.parse(text)) == expected


@pytest.mark.parametrize("text", ["1H", "11H", "10", "H10", "KX", "", " KH", "KH ", "KHH", "0S"])
def test_not_cards(text: str) -> None:
    with pytest.raises(cards.CardError, match="not a card"):
        cards.parse(text)


def test_card_encoding_and_successor() -> None:
    assert [cards.name(x) for x in (0, 12, 13, 51)] == ["AS", "KS", "AH", "KC"]
    assert c("5C") + 1 == c("6C")
    assert cards.symbol(c("10H")) == "10♥"


# --- positions ----------------------------------------------------------------------------------


def test_deal_starts_with_aces_on_foundations() -> None:
    g = position([])
    assert g.foundations == [1, 1, 1, 1]
    assert g.foundation_cards == 4
    assert sum(map(len, g.piles)) == 48


def test_position_must_hold_each_card_once() -> None:
    g = position([])
    piles = [p[:] for p in g.piles]
    piles[0][0] = piles[1][0]
    with pytest.raises(PositionError, match="twice"):
        Game(piles)
    with pytest.raises(PositionError):
        Game(piles[:11])


# --- moving to the foundation ---------------------------------------------------------------------


def test_foundation_takes_next_rank_of_its_suit() -> None:
    g = position(["9H 2D"])
    g.move(1, None)
    assert g.foundations[2] == 2 and names(g, 1) == "9H"
    assert g.moves == 1


def test_not_next_on_foundation() -> None:
    g = position(["9H 3D"])
    msg = raises("not-next-on-foundation", g.move, 1, None)
    assert msg == "3♦ from pile 1 cannot go to the foundation (needs 2♦)"
    assert names(g, 1) == "9H 3D" and g.moves == 0  # an illegal move changes nothing


def test_king_goes_up_only_after_the_queen() -> None:
    g = position(["QS KS"], foundations="S11")
    assert raises("not-next-on-foundation", g.move, 1, None).endswith("(needs Q♠)")
    g.piles[0].reverse()  # Q♠ on top now
    g.move(1, None)
    g.move(1, None)
    assert g.foundations[0] == 13


# --- building on piles --------------------------------------------------------------------------


def test_build_down_in_suit() -> None:
    # Seed 003: 5♣ goes on 6♣.
    g = position(["6C", "9H 5C"])
    g.move(2, 1)
    assert names(g, 1) == "6C 5C" and names(g, 2) == "9H"


def test_wrong_suit_names_what_is_needed() -> None:
    # Seed 000: "8♣ goes on 9♣, not 9♠".
    g = position(["9S", "8C"])
    assert (
        raises("wrong-suit", g.move, 2, 1)
        == "8♣ from pile 2 cannot go onto 9♠ on pile 1 (needs 9♣)"
    )


def test_wrong_rank_message_like_the_guide() -> None:
    g = position(["2S", "3S", "6D", "5S", "6S", "7S", "4D"])
    msg = raises("wrong-rank", g.move, 7, 3)
    assert msg == "4♦ from pile 7 cannot go onto 6♦ on pile 3 (needs 5♦)"


def test_king_builds_on_nothing() -> None:
    g = position(["KH", "QS"], foundations="H12")
    raises("wrong-suit", g.move, 1, 2)


def test_empty_target_stays_closed() -> None:
    g = position(["2D", "9H 3D"])
    g.move(1, None)
    assert g.piles[0] == []
    msg = raises("empty-target", g.move, 2, 1)
    assert "empty piles stay closed" in msg


def test_empty_source() -> None:
    g = position(["2D"])
    g.move(1, None)
    raises("empty-source", g.move, 1, None)


def test_same_pile() -> None:
    g = position(["6C 5C"])
    raises("same-pile", g.move, 1, 1)


def test_bad_pile_numbers() -> None:
    g = position([])
    raises("bad-pile", g.move, 0, 1)
    raises("bad-pile", g.move, 1, 13)


def test_card_mismatch() -> None:
    g = position(["9H 2D"])
    msg = raises("card-mismatch", g.move, 1, None, 1, c("9H"))
    assert "9♥" in msg and "2♦" in msg
    g.move(1, None, 1, c("2D"))
    assert g.foundations[2] == 2


def test_only_one_card_moves_under_cruel() -> None:
    g = position(["7C", "6C 5C"])
    raises("runs-not-allowed", g.move, 2, 1, 2)


# --- runs (perseverance) ------------------------------------------------------------------------


def test_run_moves_under_perseverance() -> None:
    g = position(["9H 7C", "8C 6C 5C", "KS 4D"], rules=preset("perseverance"))
    assert g.run_length(2) == 2
    raises("not-a-run", g.move, 2, 1, 3)
    raises("run-to-foundation", g.move, 2, None, 2)
    raises("card-mismatch", g.move, 2, 1, 2, c("5C"))
    g.move(2, 1, 2, c("6C"))
    assert names(g, 1) == "9H 7C 6C 5C" and names(g, 2) == "8C"
    assert g.moves == 1
    assert Move(2, 1, 2) not in list(g.card_moves())


def test_run_generation() -> None:
    g = position(["9H 7C", "8C 6C 5C"], rules=preset("perseverance"))
    assert Move(2, 1, 2) in list(g.card_moves())


# --- redeals ------------------------------------------------------------------------------------


def test_seed_000_worked_example() -> None:
    """Seed 000 section 08: move 4♦ onto 5♦, then redeal the first two piles into packets."""
    g = position(["5C 9H 2D", "KD 3S 8C 5D", "JH QH 6S 4D"])
    g.move(3, 2, 1, c("4D"))
    assert names(g, 2) == "KD 3S 8C 5D 4D"
    before = tableau_sequence(g.piles)
    g.redeal()
    assert names(g, 1) == "5C 9H 2D KD"
    assert names(g, 2) == "3S 8C 5D 4D"
    assert g.top(1) == c("KD")  # "the first pile now exposes K♦ instead of 2♦"
    assert names(g, 3) == "JH QH 6S " + cards.name(before[11])  # others follow in former order
    assert tableau_sequence(g.piles) == before
    assert g.redeals == 1


def test_seed_001_worked_example() -> None:
    """Seed 001 "Redealing": 5♣ 9♥ | K♦ 3♠ 8♣ | J♥ 4♦ 6♠ 2♣ → 5♣ 9♥ K♦ 3♠ | 8♣ J♥ 4♦ 6♠ | 2♣ …"""
    piles = [pile("5C 9H"), pile("KD 3S 8C"), pile("JH 4D 6S 2C")] + [[] for _ in range(9)]
    new = redeal_piles(piles)
    assert new[0] == pile("5C 9H KD 3S")
    assert new[1] == pile("8C JH 4D 6S")
    assert new[2] == pile("2C")
    assert all(p == [] for p in new[3:])


def test_seed_001_playing_example() -> None:
    """Seed 001: with A♦ and A♠ up, play 2♦ then 3♦ to the foundation, then 8♠ onto 9♠."""
    g = position(["KC 3D", "QC 2D", "JC 8S", "10C 9S"])
    g.move(2, None)
    g.move(1, None)
    g.move(3, 4)
    assert g.foundations[2] == 3
    assert names(g, 4) == "10C 9S 8S" and g.top(3) == c("JC")


def test_seed_003_heart_example() -> None:
    g = position(["KS 2H"])
    g.move(1, None)
    assert g.foundations[1] == 2


def test_redeal_unchanged_is_illegal() -> None:
    g = position([])
    assert is_packed(g.piles)
    msg = raises("redeal-unchanged", g.redeal)
    assert "leave every pile" in msg
    assert g.redeals == 0


def test_redeal_with_short_last_pile_is_unchanged() -> None:
    g = position(["2D", "5H 6H 7H 8H"])
    g.move(1, None)  # pile 1 now empty: a redeal changes the layout
    g.redeal()
    assert [len(p) for p in g.piles] == [4] * 11 + [3]
    raises("redeal-unchanged", g.redeal)


@pytest.mark.parametrize(
    ("name", "limit"), [("cruel-limited-3", 3), ("cruel-limited-5", 5), ("perseverance", 2)]
)
def test_redeal_limit(name: str, limit: int) -> None:
    g = position(["2D", "9H 3D"], rules=preset(name))
    g.move(1, None)
    g.redeals = limit - 1
    g.redeal()  # the last one allowed
    g.piles[0].append(g.piles[1].pop())  # unpack again so only the limit can forbid a redeal
    msg = raises("redeal-limit", g.redeal)
    assert f"these rules allow {limit}" in msg


def test_redeal_only_when_stuck() -> None:
    g = position(["2D", "9H 3D", "KS QC"], rules=preset("cruel-when-stuck"))
    g.move(1, None)
    raises("redeal-not-stuck", g.redeal)  # 3♦ can still go up
    g.move(2, None)
    while g.has_card_move():
        g.push(next(g.card_moves()))
    g.redeal()
    assert g.redeals == 1


def test_top_down_redeal_order() -> None:
    """pysolfc preset: piles read top to bottom; a packet's first card becomes its pile's top."""
    piles = [pile("5C 9H"), pile("KD 3S 8C"), pile("JH 4D 6S 2C")] + [[] for _ in range(9)]
    new = redeal_piles(piles, "top-down")
    # top-down sequence: 9H 5C | 8C 3S KD | 2C 6S 4D JH → packets 9H 5C 8C 3S | KD 2C 6S 4D | JH
    assert new[0] == pile("3S 8C 5C 9H")
    assert new[1] == pile("4D 6S 2C KD")
    assert new[2] == pile("JH")
    assert tableau_sequence(new, "top-down") == tableau_sequence(piles, "top-down")


def test_full_piles_redeal_the_same_in_both_orders() -> None:
    g = position([])
    assert redeal_piles(g.piles, "top-down") == g.piles == redeal_piles(g.piles)


# --- status -------------------------------------------------------------------------------------


def test_won_and_move_after_end() -> None:
    g = position(["KS", "KH", "KD", "KC"], foundations="S12 H12 D12 C12")
    for i in range(1, 5):
        g.move(i, None)
    assert g.is_won() and g.outcome() == "won" and g.foundation_cards == 52
    raises("move-after-end", g.move, 1, None)
    raises("move-after-end", g.redeal)
    assert list(g.legal_steps()) == []


def test_blocked_when_nothing_moves_and_redeal_changes_nothing() -> None:
    # Pile 1 holds K♠ over 2♠ (the pile-1 lock): after packing nothing can ever move.
    g = position(
        ["2S KS QH JH", "3S 4S 5S 6S", "7S 8S 9S 10S", "JS QS 10H KH"], foundations="H9 D13 C13"
    )
    assert not g.has_card_move()
    assert g.outcome() == "blocked"


def test_in_progress_when_only_a_redeal_is_legal() -> None:
    g = position(
        ["2S KS JH", "3S 4S 5S 6S", "7S 8S 9S 10S", "JS QS QH 10H KH"], foundations="H9 D13 C13"
    )
    assert not g.has_card_move()
    assert g.outcome() == "in_progress"
    assert list(g.legal_steps()) == [REDEAL]


def test_limited_profile_blocks_when_redeals_run_out() -> None:
    g = position(
        ["2S KS JH", "3S 4S 5S 6S", "7S 8S 9S 10S", "JS QS QH 10H KH"],
        foundations="H9 D13 C13",
        rules=preset("cruel-limited-3"),
    )
    g.redeals = 3
    assert g.outcome() == "blocked"


def test_every_error_code_has_a_test() -> None:
    text = Path(__file__).read_text()
    # MOVE_ERRORS holds the codes the engine raises; the base class's code is never raised.
    assert IllegalMove.code not in MOVE_ERRORS
    for code in MOVE_ERRORS:
        assert f'"{code}"' in text, code


def _move_error_classes() -> list[type[IllegalMove]]:
    """Every subclass of IllegalMove the library defines, however deep."""
    found, todo = [], [IllegalMove]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("cruel_tools."):
                found.append(sub)
                todo.append(sub)
    return found


def _documented_move_errors() -> list[str]:
    """The codes in the move errors table of docs/verify.md."""
    text = (Path(__file__).parent.parent / "docs" / "verify.md").read_text(encoding="utf-8")
    table = text.split("\n### Move errors\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.MULTILINE)


def test_every_move_error_is_listed_explained_and_documented() -> None:
    classes = _move_error_classes()
    assert len(classes) == 16
    documented = _documented_move_errors()
    raises = (Game.move.__doc__ or "") + (Game.redeal.__doc__ or "")
    for cls in classes:
        assert "code" in cls.__dict__, f"{cls.__name__} has no code of its own"
        assert MOVE_ERRORS.get(cls.code) is cls, f"{cls.__name__} is not in MOVE_ERRORS"
        assert (cls.__doc__ or "").startswith("Raised"), f"{cls.__name__}: when is it raised?"
        assert cls.code in documented, f"{cls.code} is not in docs/verify.md"
        assert f":raises {cls.__name__}:" in raises, f"{cls.__name__} not in Game.move/redeal"
    assert len(MOVE_ERRORS) == len(classes)
    assert sorted(documented) == sorted(MOVE_ERRORS)  # each once, and nothing else


def test_presets() -> None:
    assert set(PRESETS) == {
        "cruel",
        "cruel-when-stuck",
        "cruel-limited-3",
        "cruel-limited-5",
        "perseverance",
        "pysolfc",
        "ripple-fan",
        "royal-family",
        "ripple-fan-pysolfc",
        "royal-family-pysolfc",
    }
    assert PRESETS["perseverance"].max_redeals == 2 and PRESETS["perseverance"].run_moves
    assert PRESETS["pysolfc"].redeal_order == "top-down"
    with pytest.raises(KeyError, match="known"):
        preset("klondike")


def test_regression_redeal_after_a_pile_grew_past_four() -> None:
    """Full piles, then one pile of more than 4, then empty ones: a redeal changes that layout.

    An earlier engine called such a layout packed and refused the redeal (found while writing
    docs/rules.md, on deal 1 after 41 legal steps).
    """
    import pathlib

    from cruel_tools.game.verify import verify_bytes

    path = pathlib.Path(__file__).parent / "data" / "packed-redeal-regression.json"
    report = verify_bytes(path.read_bytes())
    assert report.valid, report.error
    assert not is_packed([[0, 1, 2, 3], [4, 5, 6, 7, 8]] + [[] for _ in range(10)])
    assert is_packed([[0, 1, 2, 3], [4, 5, 6]] + [[] for _ in range(10)])
    assert not is_packed([[0, 1, 2, 3], [], [4]] + [[] for _ in range(9)])


def test_kings_build_on_nothing_message() -> None:
    g = position(["KH", "JH 5S"], foundations="H10")
    msg = raises("wrong-suit", g.move, 1, 2)
    assert msg.endswith("(a king builds on no card)")


def test_wrong_colour_under_royal_family() -> None:
    g = position(["9H 6H", "KD 5D"], rules=preset("royal-family"))
    msg = raises("wrong-colour", g.move, 1, 2)
    assert msg == (
        "6♥ from pile 1 cannot go onto 5♦ on pile 2 "
        "(a 6 needs a card one rank lower of the other colour)"
    )
