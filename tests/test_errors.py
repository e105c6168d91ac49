"""Errors on bad input share one base, cruel_tools.errors.CruelError, each with a stable code."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import cruel_tools
from cruel_tools import dates
from cruel_tools.errors import CruelError
from cruel_tools.game import cards, deals, game, rules
from cruel_tools.game.log import InputProblem, LogFormatError
from cruel_tools.puzzles import PuzzleSetError
from cruel_tools.service.config import UnknownZone
from cruel_tools.site.database import StoreBusy, StoreError, WouldWait
from cruel_tools.site.leaderboard import Leaderboards
from cruel_tools.site.names import PlayerNameError

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "verify.md"


def every_error() -> list[type[CruelError]]:
    """Every subclass of CruelError the package defines, found by importing every module of it
    (pkgutil) and walking ``__subclasses__``: a new error class is checked without being named."""
    for info in pkgutil.walk_packages(cruel_tools.__path__, "cruel_tools."):
        importlib.import_module(info.name)
    found, todo = [], [CruelError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("cruel_tools.") and sub not in found:
                found.append(sub)
                todo.append(sub)
    return sorted(found, key=qualified)


def qualified(cls: type) -> str:
    """The class as the docs name it: ``game.PositionError``, ``service.config.UnknownZone``."""
    return f"{cls.__module__.removeprefix('cruel_tools.')}.{cls.__qualname__}"


ERRORS = every_error()


def own_codes(cls: type[CruelError]) -> tuple[str, ...]:
    """The codes a class is the owner of: ``codes`` or ``code`` set on the class itself (not
    inherited); none for a class that reports others' errors and carries their codes."""
    if "reports" in cls.__dict__:
        return ()
    if "codes" in cls.__dict__:
        return tuple(cls.__dict__["codes"])
    return (cls.__dict__["code"],)


def library_table() -> dict[str, str]:
    """The rows of docs/verify.md's "Errors of the library" table, by class name."""
    text = DOCS.read_text(encoding="utf-8").split("### Errors of the library", 1)[1]
    rows = re.findall(r"^\| `([\w.]+)` \|(.*)$", text.split("\n\n###", 1)[0], re.MULTILINE)
    return dict(rows)


def move_error_rows() -> set[str]:
    text = DOCS.read_text(encoding="utf-8").split("### Move errors", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `([\w-]+)` \|", text, re.MULTILINE))


def test_the_walk_finds_the_errors() -> None:
    # Can fail: errors of a subpackage and of an error's subclass are found too.
    assert {game.PositionError, game.WrongSuit, StoreError, UnknownZone, PuzzleSetError} <= set(
        ERRORS
    )
    assert len(ERRORS) > 30


@pytest.mark.parametrize("cls", ERRORS, ids=qualified)
def test_error_is_a_cruel_error_with_its_own_code(cls: type[CruelError]) -> None:
    assert issubclass(cls, CruelError) and issubclass(cls, ValueError)
    assert {"code", "codes", "reports"} & set(cls.__dict__), (
        f"{qualified(cls)} sets no code of its own: set code (or codes, or reports) on the class"
    )
    if "codes" in cls.__dict__ and "code" in cls.__dict__:  # the default is one of them
        assert cls.__dict__["code"] in cls.__dict__["codes"]
    for reported in cls.__dict__.get("reports", ()):
        assert issubclass(reported, CruelError) and own_codes(reported)


def test_codes_are_distinct() -> None:
    owners: dict[str, str] = {}
    for cls in ERRORS:
        for code in own_codes(cls):
            assert code not in owners, f"{qualified(cls)} and {owners[code]} both use {code}"
            owners[code] = qualified(cls)
    assert set(game.MOVE_ERRORS) <= set(owners)
    assert "cruel-error" not in owners  # the base's code, never raised


@pytest.mark.parametrize("cls", ERRORS, ids=qualified)
def test_error_code_is_documented(cls: type[CruelError]) -> None:
    if issubclass(cls, game.IllegalMove) and cls is not game.IllegalMove:
        # One class per move error code, each a row of the table of move errors.
        assert own_codes(cls)[0] in move_error_rows()
        return
    row = library_table().get(qualified(cls))
    assert row is not None, f"docs/verify.md's library errors have no row for {qualified(cls)}"
    for code in own_codes(cls):
        assert f"`{code}`" in row, f"{qualified(cls)}'s row does not give {code}"
    for reported in cls.__dict__.get("reports", ()):
        assert f"`{qualified(reported)}`" in row


def test_the_docs_name_no_error_that_is_gone() -> None:
    assert set(library_table()) == {qualified(c) for c in ERRORS} - {
        qualified(c)
        for c in ERRORS
        if issubclass(c, game.IllegalMove) and c is not game.IllegalMove
    }


def test_every_code_a_class_covers_is_used() -> None:
    # The codes listed in ``codes`` are those the raising code passes: a code written at a raise
    # that the class does not list fails here.
    calls = {"LogFormatError": 0, "PuzzleSetError": 1, "BadPlayerField": 0, "InputProblem": 0}
    listed = {
        "LogFormatError": LogFormatError.codes,
        "PuzzleSetError": PuzzleSetError.codes,
        "BadPlayerField": (PlayerNameError.code,),
        "InputProblem": InputProblem.codes,
    }
    seen: dict[str, set[str]] = {name: set() for name in calls}
    for path in (ROOT / "cruel_tools").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            name = node.func.id
            if name in calls:
                given = [k.value for k in node.keywords if k.arg == "code"]
                if len(node.args) > calls[name]:
                    given.append(node.args[calls[name]])
                for arg in given:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        seen[name].add(arg.value)
    for name in calls:
        assert seen[name] <= set(listed[name]), name
    assert seen["PuzzleSetError"] >= set(PuzzleSetError.codes) - {"not-a-puzzle"}
    assert seen["InputProblem"] == set(InputProblem.codes)  # each raised somewhere


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
