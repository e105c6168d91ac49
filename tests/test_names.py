"""Player names: PRECIS UsernameCasePreserved (RFC 8265) word by word, and UTS #39 lookalikes."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cruel_tools.errors import CruelError
from cruel_tools.site.database import PostgresDatabase
from cruel_tools.site.judging import PLAYER_PATTERN
from cruel_tools.site.names import MAX_LENGTH, PlayerNameError, enforce, lookalike_message, skeleton

PRECIS = "is disallowed by PRECIS UsernameCasePreserved (RFC 8265)"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        # What the old filter let through: invisible, and Unicode's default-ignorables.
        (
            "ada\U0001d173",
            "player name: 'ada\\U0001d173' is not allowed: U+1D173 MUSICAL SYMBOL BEGIN BEAM "
            f"{PRECIS}, rule precis_ignorable_properties",
        ),
        (
            "ada\u3164",
            f"player name: 'ada\\u3164' is not allowed: U+3164 HANGUL FILLER {PRECIS}, "
            "rule precis_ignorable_properties",
        ),
        (
            "ada\u034f",
            f"player name: 'ada\\u034f' is not allowed: U+034F COMBINING GRAPHEME JOINER "
            f"{PRECIS}, rule precis_ignorable_properties",
        ),
    ],
)
def test_invisible_characters_are_refused_naming_the_rule(name: str, message: str) -> None:
    with pytest.raises(PlayerNameError) as caught:
        enforce(name)
    assert str(caught.value) == message
    assert caught.value.code == "bad-player-name" and isinstance(caught.value, CruelError)


@pytest.mark.parametrize(
    ("name", "char", "rule"),
    [
        ("ada\u200b", "U+200B ZERO WIDTH SPACE", "precis_ignorable_properties"),
        ("\u200bada", "U+200B ZERO WIDTH SPACE", "precis_ignorable_properties"),
        ("ada\u200d", "U+200D ZERO WIDTH JOINER", "zero_width_joiner"),
        ("a\u200db", "U+200D ZERO WIDTH JOINER", "zero_width_joiner"),
        ("a\u200cb", "U+200C ZERO WIDTH NON-JOINER", "zero_width_nonjoiner"),
        ("ada\u2060", "U+2060 WORD JOINER", "precis_ignorable_properties"),
        ("\ufeffada", "U+FEFF ZERO WIDTH NO-BREAK SPACE", "precis_ignorable_properties"),
        ("a\u202eb", "U+202E RIGHT-TO-LEFT OVERRIDE", "precis_ignorable_properties"),
        ("a\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A", "precis_ignorable_properties"),
        ("a\xadb", "U+00AD SOFT HYPHEN", "precis_ignorable_properties"),
        ("ada\ufe0f", "U+FE0F VARIATION SELECTOR-16", "precis_ignorable_properties"),
        ("a\nb", "U+000A (unnamed)", "controls"),
        ("ada\xa0lovelace", "U+00A0 NO-BREAK SPACE", "has_compat"),
        ("ada\u2028", "U+2028 LINE SEPARATOR", "other"),
        ("\U0001f469\u200d\U0001f4bb dev", "U+1F469 WOMAN", "symbols"),  # emoji are symbols
    ],
)
def test_zero_width_and_other_hidden_characters_are_refused(
    name: str, char: str, rule: str
) -> None:
    with pytest.raises(PlayerNameError, match=re.escape(f"{char} {PRECIS}, rule {rule}")):
        enforce(name)


@pytest.mark.parametrize(
    "name",
    ["Ada", "ada", "José", "Zoë", "李雷", "ada lovelace", "Ada Lovelace", "Ωμέγα", "Дмитрий"]
    + ["محمد", "名前", "a-b_c.d", "x" * MAX_LENGTH, "क्\u200dष"],  # ZWJ after a virama: allowed
)
def test_ordinary_names_in_several_scripts_pass_unchanged(name: str) -> None:
    assert enforce(name) == name
    assert re.fullmatch(PLAYER_PATTERN, name)


def test_the_enforced_form_is_nfc_with_ordinary_width() -> None:
    assert enforce("Jose\u0301") == "Jos\xe9" == unicodedata.normalize("NFC", "Jose\u0301")
    assert enforce("\uff21\uff44\uff41 Lovelace") == "Ada Lovelace"  # full-width letters


@pytest.mark.parametrize(
    ("name", "words"),
    [
        (" ada", "a space may only stand between two words"),
        ("ada ", "a space may only stand between two words"),
        ("ada  lovelace", "a space may only stand between two words"),
        (" ", "a space may only stand between two words"),
        ("", "empty"),
        ("x" * (MAX_LENGTH + 1), "65 characters, over the limit of 64"),
        ("\u0958" * 40, "80 characters once normalised, over the limit of 64"),  # NFC: 2 each
        ("ada\u3000lovelace", "U+3000 IDEOGRAPHIC SPACE"),  # only U+0020 separates words
        ("ab\u05d0", "mixes right-to-left and left-to-right text"),
    ],
)
def test_spaces_lengths_and_direction(name: str, words: str) -> None:
    with pytest.raises(PlayerNameError, match=re.escape(words)):
        enforce(name)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("ada", "\u0430da"),  # Cyrillic а
        ("ada", "\u0430d\u0430"),
        ("ada", "Ada"),  # case
        ("ada", "ADA"),
        ("ada", "\u13aaDA"),  # Cherokee Ꭺ
        ("Il", "ll"),  # I and l
        ("m", "rn"),
        ("paypal", "p\u0430yp\u0430l"),
        ("ada lovelace", "\u0430da lovelace"),
    ],
)
def test_lookalikes_share_a_skeleton(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize(
    ("one", "other"), [("ada", "bob"), ("ada", "adb"), ("ada lovelace", "adalovelace")]
)
def test_different_names_have_different_skeletons(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)


def test_the_lookalike_message_names_the_foreign_characters() -> None:
    assert lookalike_message("\u0430da", "ada") == (
        "player name '\u0430da' (Cyrillic \u0430) looks like existing player 'ada'"
    )
    assert (
        lookalike_message("Il", "ll")
        == "player name 'Il' (Latin I) looks like existing player 'll'"
    )


@given(st.text(max_size=80))
def test_an_enforced_name_is_a_name_and_enforced_again_unchanged(text: str) -> None:
    try:
        name = enforce(text)
    except PlayerNameError as exc:
        assert str(exc).startswith("player name")
        return
    assert 1 <= len(name) <= MAX_LENGTH
    assert enforce(name) == name
    assert re.fullmatch(PLAYER_PATTERN, name)


# --- issue #24, finding 10: marks that change how a name looks ----------------------------------


@pytest.mark.parametrize(
    "marked",
    [
        "ad\u00e1",  # adá, precomposed
        "ada\u0301",  # the same, decomposed
        "a\u1e0da",  # aḍa: a dot below
        "ada\u0336",  # ada̶: U+0336 COMBINING LONG STROKE OVERLAY
        "a\u0336d\u0336a\u0336",  # struck through
        "\u00e4d\u00e4",  # ädä
        "ad\u0430\u0308",  # a Cyrillic а with a diaeresis
        "ada\u20dd",  # U+20DD COMBINING ENCLOSING CIRCLE (Me)
        "ada\u0941",  # a Devanagari vowel sign on a Latin letter: not that letter's part
        "\u00c1DA",  # ÁDA
    ],
)
def test_marks_on_a_name_look_like_the_unmarked_name(marked: str) -> None:
    assert skeleton(marked) == skeleton("ada")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("\u0915\u0941", "\u0915"),  # कु and क: a Devanagari vowel sign is part of the letter
        ("\u0915\u093f", "\u0915"),  # कि (a spacing vowel sign, Mc)
        ("\u05e9\u05b8", "\u05e9"),  # שָ and ש: a Hebrew vowel point
        ("\u0e01\u0e34", "\u0e01"),  # กิ and ก: a Thai vowel
    ],
)
def test_marks_that_are_part_of_their_letter_keep_names_apart(one: str, other: str) -> None:
    assert skeleton(one) != skeleton(other)


@pytest.mark.parametrize("marked", ["ad\u00e1", "a\u1e0da", "ada\u0336"])
def test_a_marked_name_is_refused_beside_the_unmarked_one_and_back(
    tmp_path: Path, marked: str
) -> None:
    """The attack of finding 10: ``adá``, ``aḍa``, ``ada̶`` became players beside ``ada``."""
    from cruel_tools.site.registry import CONFUSABLE, register
    from cruel_tools.site.tables import Store

    store = Store(tmp_path / "names.sqlite")
    try:
        for first, second in (("ada", marked), (marked, "ada")):
            with store.database.write() as db:
                db.execute("DELETE FROM players")
                assert register(db, enforce(first)) is None
                refused = register(db, enforce(second))
            assert refused is not None and refused.code == CONFUSABLE, (first, second)
            assert refused.path == "/player"
    finally:
        store.close()


def test_opening_an_older_database_makes_the_players_skeletons_anew(tmp_path: Path) -> None:
    """Skeletons are stored: a database of version 5 has them without marks left out, and a new
    ``adá`` must be refused beside its stored ``ada`` once it is opened by this version."""
    import sqlite3

    from cruel_tools.site.registry import register
    from cruel_tools.site.tables import Store

    path = tmp_path / "old.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("INSERT INTO players VALUES ('adá', 'adá'), ('bob', 'bob')")
        raw.execute("PRAGMA user_version = 5")
    raw.close()
    store = Store(path)
    try:
        with store.database.read() as db:
            rows = dict(db.execute("SELECT player, skeleton FROM players").fetchall())
        assert rows == {"adá": "ada", "bob": "bob"}
        with store.database.write() as db:
            refused = register(db, "ada")
        assert refused is not None and refused.code == "player-name-confusable"
    finally:
        store.close()


def test_a_postgresql_store_makes_the_players_skeletons_anew_at_version_6() -> None:
    """As on SQLite: a store whose migrations stop at 5 gets every skeleton made anew."""
    from cruel_tools.site.registry import register
    from cruel_tools.site.tables import Store

    from .stores import FreshSchema, needs_postgres

    fresh = FreshSchema(needs_postgres())
    try:
        store = Store(fresh.url)
        with store.database.write() as db:
            db.execute("INSERT INTO players (player, skeleton) VALUES ('adá', 'adá')")
            db.execute("DELETE FROM cruel_migrations WHERE version >= 6")  # 6 and later
        store.close()
        for database in list(PostgresDatabase.opened):
            database.close()
        store = Store(fresh.url)
        with store.database.write() as db:
            found = db.execute("SELECT skeleton FROM players WHERE player = 'adá'").fetchone()
            refused = register(db, "ada")
        assert found[0] == "ada"
        assert refused is not None and refused.code == "player-name-confusable"
        store.close()
    finally:
        fresh.drop()


def test_the_lookalike_message_names_a_mark_by_its_code_point() -> None:
    # Shown as itself, a combining mark would sit on the parenthesis before it.
    assert lookalike_message("ada\u0336", "ada") == (
        "player name 'ada\u0336' (U+0336 COMBINING LONG STROKE OVERLAY) looks like existing "
        "player 'ada'"
    )
