"""Player names that cannot look alike: PRECIS usernames (RFC 8265) and UTS #39 skeletons.

A name is enforced by the PRECIS profile **UsernameCasePreserved** (RFC 8265 §3.4), word by
word: as RFC 8265 §3.5 suggests for applications that allow spaces, a name is split at each
U+0020 SPACE, the profile is applied to each word, and the words are joined again by one space.
So ``ada lovelace`` is a name, and `` ada``, ``ada  lovelace`` or a name with any other space,
an invisible character (a format character, a filler, a variation selector, a zero-width joiner
outside the scripts that need one), a control character, a symbol or an emoji is not.
:func:`enforce` gives the enforced form: full-width letters made ordinary, and NFC. That form is
the name that is stored and shown, so two spellings of one name are one player.

Two different names can still look alike (Latin ``ada``, and ``аda`` with a Cyrillic ``а``):
:func:`skeleton` maps a name to its UTS #39 skeleton, case-folded, which names that look alike
share. The leaderboard store refuses a new name whose skeleton an existing player's has
(:mod:`cruel_tools.site.leaderboard`). See ``docs/service.md``.
"""

from __future__ import annotations

import unicodedata
from typing import Final

import icu  # type: ignore[import-untyped]  # PyICU ships no annotations
import precis_i18n

from ..errors import CruelError

__all__ = [
    "MAX_LENGTH",
    "PROFILE",
    "PlayerNameError",
    "enforce",
    "skeleton",
    "unmarked",
    "lookalike_message",
]

#: Most characters (code points) in a name, as sent and as enforced.
MAX_LENGTH: Final = 64
#: The PRECIS profile that each space-separated word of a name must pass.
PROFILE: Final = "UsernameCasePreserved"

_PROFILE: Final = precis_i18n.get_profile(PROFILE)
# ICU's spoof checker computes the skeleton of UTS #39 from ICU's own copy of confusables.txt.
# getSkeleton only reads the checker, which ICU allows from several threads at once.
_SPOOF: Final = icu.SpoofChecker()
_WHO: Final = f"PRECIS {PROFILE} (RFC 8265)"
# Marks of these scripts go on a letter of any script (unmarked: never a letter's own part).
_ANY_SCRIPT: Final = frozenset({icu.UScriptCode.INHERITED, icu.UScriptCode.COMMON})
_NO_SCRIPT: Final = -1  # before the first letter: a mark there belongs to nothing


class PlayerNameError(CruelError):
    """A player name that :func:`enforce` refuses; the message names the rule it breaks."""

    code = "bad-player-name"


def enforce(name: str) -> str:
    """The enforced form of ``name``: what is stored and shown. Raise :class:`PlayerNameError`,
    naming the rule and the character at fault, when ``name`` is not a player name."""
    if not name:
        raise PlayerNameError("player name: empty (a name is 1 to 64 characters)")
    if len(name) > MAX_LENGTH:
        raise PlayerNameError(
            f"player name: {len(name)} characters, over the limit of {MAX_LENGTH}"
        )
    words = name.split(" ")
    if "" in words:
        raise PlayerNameError(
            f"player name: {_quote(name)} is not allowed: a space may only stand between two "
            "words (none at either end, never two in a row)"
        )
    enforced = []
    for word in words:
        try:
            enforced.append(_PROFILE.enforce(word))
        except UnicodeEncodeError as exc:
            raise PlayerNameError(_refusal(name, exc)) from None
    result = " ".join(enforced)
    if len(result) > MAX_LENGTH:  # NFC lengthens a few characters
        raise PlayerNameError(
            f"player name: {_quote(name)} is {len(result)} characters once normalised, over "
            f"the limit of {MAX_LENGTH}"
        )
    return result


def skeleton(name: str) -> str:
    """What names that look alike share: the UTS #39 skeleton, case-folded (and the skeleton of
    that, for what case folding makes), so ``Ada``, ``ada``, ``аda`` (Cyrillic) and ``ᎪDA``
    (Cherokee) have one skeleton, and so do ``Il`` and ``ll``.

    Marks drawn on a letter are left out first (:func:`unmarked`), so ``adá``, ``aḍa`` and
    ``ada̶`` (a strikethrough) share ``ada``'s skeleton: UTS #39 keeps them apart, as they are
    different letters, but on a board at a glance they are one name with a smudge. The skeleton
    is NFD, and may itself bring marks (a letter confusable with a marked one), so they are left
    out of it again."""
    first: str = _SPOOF.getSkeleton(0, unmarked(name))
    folded: str = _SPOOF.getSkeleton(0, first.casefold())
    return unmarked(folded)


def unmarked(text: str) -> str:
    """``text`` in NFD without the combining marks (Mn, Me) that are not part of their letter:
    a mark of the Inherited or Common script (the accents, dots, overlays and strokes of
    U+0300-U+036F and their kin, which go on a letter of any script), or a mark of another
    script than the letter it follows. A mark of its letter's own script stays: a Devanagari
    vowel sign (``कु`` is not ``क``), a Hebrew point, a Thai vowel, which are parts of the
    letters of those scripts, and refusing every name that differs from another by one would
    refuse names that do not look alike. (Spacing marks, Mc, always stay.)"""
    decomposed = unicodedata.normalize("NFD", text)
    if decomposed.isascii():
        return decomposed
    out: list[str] = []
    base = _NO_SCRIPT
    for c in decomposed:
        if unicodedata.category(c) not in ("Mn", "Me"):
            out.append(c)
            base = _script_code(c)
            continue
        script = _script_code(c)
        if script not in _ANY_SCRIPT and script == base:
            out.append(c)
    return "".join(out)


def lookalike_message(name: str, existing: str) -> str:
    """Why ``name`` is refused: it looks like ``existing``, another player's name."""
    differ = [c for c in dict.fromkeys(name) if c not in existing and c != " "]
    which = ", ".join(_shown(c) for c in differ[:3])
    return (
        f"player name {_quote(name)}{f' ({which})' if which else ''} looks like existing "
        f"player {_quote(existing)}"
    )


def _shown(c: str) -> str:
    """A character that differs, in a message: its script and itself, or for a combining mark
    (which would sit on the quote or the space before it) its code point and name."""
    if unicodedata.category(c)[0] == "M":
        return f"U+{ord(c):04X} {unicodedata.name(c, '(unnamed)')}"
    return f"{_script(c)} {_quote(c)[1:-1]}"


def _refusal(name: str, exc: UnicodeEncodeError) -> str:
    rule = exc.reason.removeprefix("DISALLOWED/")
    if exc.end - exc.start == 1:
        c = exc.object[exc.start]
        what = f"U+{ord(c):04X} {unicodedata.name(c, '(unnamed)')} is disallowed by {_WHO}"
    elif rule == "bidi_rule":
        what = f"it mixes right-to-left and left-to-right text as {_WHO} does not allow"
    else:
        what = f"{_WHO} refuses it"
    return f"player name: {_quote(name)} is not allowed: {what}, rule {rule}"


def _quote(text: str) -> str:
    """``text`` in quotes, with every character that does not show (controls, format
    characters, spaces other than U+0020, fillers and other default-ignorables) escaped."""
    out = []
    for c in text:
        if c != " " and (unicodedata.category(c)[0] in "CZ" or _ignorable(c)):
            out.append(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
        else:
            out.append(c)
    return "'" + "".join(out) + "'"


def _ignorable(c: str) -> bool:
    """A default-ignorable code point (Unicode's Default_Ignorable_Code_Point): shows nothing."""
    return bool(icu.Char.hasBinaryProperty(c, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT))


def _script_code(c: str) -> int:
    return int(icu.Script.getScript(c).getScriptCode())


def _script(c: str) -> str:
    return str(icu.Script.getScript(c).getName())
