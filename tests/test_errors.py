"""Errors on bad input share one base, cruel_tools.errors.CruelError, each with a stable code."""

from __future__ import annotations

from pathlib import Path

import pytest

from cruel_tools import cards, dates, deals, game, rules
from cruel_tools.errors import CruelError
from cruel_tools.leaderboard import Leaderboards
from cruel_tools.store import StoreBusy, StoreError, WouldWait

DOCS = Path(__file__).resolve().parent.parent / "docs" / "verify.md"

#: Every error class with one code, and that code (docs/verify.md lists them all).
CODES: dict[type[CruelError], str] = {
    game.IllegalMove: "illegal-move",
    game.PositionError: "bad-position",
    cards.CardError: "bad-card",
    deals.DealNumberError: "bad-deal-number",
    deals.BadDeal: "bad-deal",
    rules.UnknownPreset: "unknown-preset",
    dates.BadDate: "bad-date",
    StoreError: "bad-database",
}


@pytest.mark.parametrize("cls", list(CODES), ids=lambda cls: cls.__name__)
def test_error_is_a_cruel_error_with_its_own_code(cls: type[CruelError]) -> None:
    assert issubclass(cls, CruelError) and issubclass(cls, ValueError)
    assert cls.__dict__.get("code") == CODES[cls]  # set on the class itself, not inherited


@pytest.mark.parametrize(
    "cls", [c for c in CODES if c is not game.IllegalMove], ids=lambda cls: cls.__name__
)
def test_error_code_is_documented(cls: type[CruelError]) -> None:
    # Move errors are checked one by one in test_engine.py; the base is never raised.
    assert f"| `{CODES[cls]}` |" in DOCS.read_text(encoding="utf-8")


def test_codes_are_distinct() -> None:
    every = list(CODES.values()) + list(game.MOVE_ERRORS)
    assert len(every) == len(set(every))


def test_waiting_for_the_database_is_not_bad_input() -> None:
    # A caller's `except ValueError` (or `except CruelError`) must not turn "retry" into "refused".
    for cls in (StoreBusy, WouldWait):
        assert not issubclass(cls, ValueError)
        assert not issubclass(cls, StoreError)


def test_raised_errors_carry_their_codes(tmp_path: Path) -> None:
    cases = [
        (lambda: cards.parse("1H"), "bad-card"),
        (lambda: deals.deal_piles(-1), "bad-deal-number"),
        (lambda: deals.resolve_deal(None, None), "bad-deal"),
        (lambda: game.Game([[] for _ in range(12)]), "bad-position"),
        (lambda: rules.preset("klondike"), "unknown-preset"),
        (lambda: dates.parse_date("2027-W01-1"), "bad-date"),
        (lambda: game.Game.from_deal(deals.deal_piles(17)).move(3, 3), "same-pile"),
    ]
    not_a_db = tmp_path / "notes.sqlite"
    not_a_db.write_bytes(b"not a database, but long enough to be read as a header" * 4)
    cases.append((lambda: Leaderboards(not_a_db), "bad-database"))
    for call, code in cases:
        with pytest.raises(CruelError) as info:
            call()
        assert info.value.code == code


def test_unknown_preset_is_still_a_key_error() -> None:
    with pytest.raises(KeyError, match="known: cruel"):
        rules.preset("klondike")
