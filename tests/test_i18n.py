"""The pages' languages (docs/web.md "Languages"): the message catalogs and the refusals.

- the English and Dutch catalogs (``cruel_tools/web/messages-xx.js`` and the words of the front,
  replay and leaderboard pages, ``messages-xx-site.js``) have the same keys, no key twice, the
  same ``{placeholders}``, and each ``.one`` message its ``.other``;
- every refusal code the engine can raise (``game.MOVE_ERRORS``, the log's and the verifier's
  codes, and every code cruel.js's ``IllegalMove`` / ``LogError`` can raise) has a message in
  both catalogs;
- every refusal cruel.js raises on random games of every preset is explained by words.js: in
  English in exactly the engine's words (the CLI's and the API's), in Dutch from its code and
  fields, with no placeholder left and no English sentence.

Run by Node (``node`` on PATH, as tests/test_cruel_js.py); skipped without it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from cruel_tools.game import game, log

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "cruel_tools" / "web"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH")

#: Messages whose English passes the engine's or the service's own English words through
#: (``{detail}``, ``{message}``): the Dutch says it from the code and the fields instead.
PASS_THROUGH = ("errors.log.", "errors.api.")
#: The fields a Dutch pass-through message may use (never the English words themselves).
FIELDS = {"path", "size", "max", "field", "claimed", "actual", "status"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def run_node(*args: str) -> str:
    assert NODE is not None
    return subprocess.run(
        [NODE, *args], capture_output=True, text=True, check=True, cwd=ROOT, timeout=120
    ).stdout


@cache
def catalogs() -> dict[str, dict[str, str]]:
    script = (
        "const out = {};"
        "for (const l of ['en', 'nl']) {"
        "  out[l] = {...(await import(`./cruel_tools/web/messages-${l}.js`)).default,"
        "    ...(await import(`./cruel_tools/web/messages-${l}-site.js`)).default}; }"
        "process.stdout.write(JSON.stringify(out));"
    )
    result: dict[str, dict[str, str]] = json.loads(run_node("--input-type=module", "-e", script))
    return result


@cache
def checked(lang: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(run_node("tests/js/i18n_check.mjs", lang))
    return result


def test_both_catalogs_have_the_same_keys() -> None:
    en, nl = catalogs()["en"], catalogs()["nl"]
    assert sorted(set(en) - set(nl)) == [], "English messages without a Dutch one"
    assert sorted(set(nl) - set(en)) == [], "Dutch messages without an English one"


def test_no_key_is_given_twice() -> None:
    for lang in ("en", "nl"):
        keys = []
        for name in (f"messages-{lang}.js", f"messages-{lang}-site.js"):
            text = (WEB / name).read_text(encoding="utf-8")
            keys += re.findall(r"^\s*'([^']+)':", text, flags=re.M)
        twice = sorted({k for k in keys if keys.count(k) > 1})
        assert twice == [], f"the {lang} catalogs give these keys twice: {twice}"


def test_both_catalogs_have_the_same_placeholders() -> None:
    en, nl = catalogs()["en"], catalogs()["nl"]
    for key, english in en.items():
        dutch = nl.get(key, "")
        want, got = set(PLACEHOLDER.findall(english)), set(PLACEHOLDER.findall(dutch))
        if key.startswith(PASS_THROUGH):
            assert english in ("{detail}", "{message}"), key
            assert got <= FIELDS, f"{key}: the Dutch uses {got - FIELDS}"
        else:
            assert want == got, f"{key}: English {sorted(want)}, Dutch {sorted(got)}"


def test_plural_messages_come_in_pairs() -> None:
    for lang, messages in catalogs().items():
        for key in messages:
            if key.endswith(".one"):
                assert key[: -len("one")] + "other" in messages, f"{lang}: {key} has no .other"
                assert "{count}" in messages[key[: -len("one")] + "other"] or key.startswith(
                    "errors.move.redeal-limit"
                ), key


def js_codes(kind: str) -> set[str]:
    text = (WEB / "cruel.js").read_text(encoding="utf-8")
    codes = set(re.findall(rf"new {kind}\(\s*'([a-z-]+)'", text))
    if kind == "IllegalMove":  # buildError() chooses its code among these
        codes |= set(re.findall(r"'(wrong-[a-z]+)'", text))
    assert codes, kind
    return codes


def test_every_refusal_code_has_a_message_in_both_languages() -> None:
    move_codes = set(game.MOVE_ERRORS)
    assert js_codes("IllegalMove") == move_codes, "cruel.js and game.py raise other move codes"
    log_codes = (
        set(log.FORMAT_ERROR_CODES)
        | js_codes("LogError")
        | {"bad-deal", "claim-mismatch", "puzzle-mismatch", "unreadable", "internal-error"}
    )
    for lang, messages in catalogs().items():
        missing = sorted(c for c in move_codes if f"errors.move.{c}" not in messages)
        assert missing == [], f"{lang}: no message for the move codes {missing}"
        missing = sorted(c for c in log_codes if f"errors.log.{c}" not in messages)
        assert missing == [], f"{lang}: no message for the log codes {missing}"


def test_in_english_a_refusal_reads_as_the_engine_words_it() -> None:
    refusals = checked("en")["refusals"]
    assert {r["code"] for r in refusals} == set(game.MOVE_ERRORS), "a code never came up"
    for r in refusals:
        assert r["explained"] == r["message"], r


def test_in_dutch_every_refusal_is_explained_from_its_code_and_fields() -> None:
    refusals = checked("nl")["refusals"]
    assert {r["code"] for r in refusals} == set(game.MOVE_ERRORS)
    english = re.compile(r"\b(pile|cannot|needs|the|foundation|redeal|empty)\b")
    for r in refusals:
        text = r["explained"]
        assert text != r["message"], r
        assert "{" not in text and "}" not in text, r
        assert not english.search(text), r


def test_cards_read_in_the_players_language() -> None:
    en, nl = checked("en")["cards"], checked("nl")["cards"]
    assert en[0] == "ace of spades" and en[13 + 4] == "5 of hearts" and en[51] == "king of clubs"
    assert nl[0] == "schoppen aas" and nl[13 + 4] == "harten 5" and nl[51] == "klaveren heer"
    assert nl[26 + 10] == "ruiten boer" and nl[11] == "schoppen vrouw"
    assert checked("nl")["lines"][0].count("stapel") == 2
