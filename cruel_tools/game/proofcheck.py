"""Certificates of ``unwinnable`` verdicts (``cruel-certificate/1``) and their checker.

A certificate says why a position (a deal, then some steps) can never be won, in a form that can
be checked without trusting the solver (docs/solver.md, "Certificates"):

* ``rule``: one of the proven dead-position rules L, F or V fires on the position, with the
  cards it names and the facts the rule needs; the checker re-derives each fact from the
  position, as docs/solver.md states the rule, and refuses a rule under a profile where the doc
  does not prove it;
* ``search``: every position reachable from it, except past positions that the checker itself
  proves lost by rule F or V, was met, and none is won; the certificate gives how many positions
  that closure holds and a digest of them, and the checker's own plain search must find exactly
  those, within a budget of positions.

This module is the rules' layer (``cruel_tools.game``): it imports the statement of the rules
(cards, rules, the engine's legal steps) and never the solver (``cruel_tools.search``), so a bug
in the solver cannot vouch for itself (tests/test_import_graph.py). Each check below cites the
section of docs/solver.md it follows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..formats import document_config
from . import cards
from .cards import Card
from .deals import resolve_deal
from .game import Game, IllegalMove, builds_onto, foundation_index
from .log import parse_compact
from .rules import PRESETS, Rules

__all__ = [
    "CERTIFICATE_FORMAT",
    "CHECK_BUDGET",
    "MAX_CERTIFICATE_BYTES",
    "DealRef",
    "RuleProof",
    "SearchProof",
    "Certificate",
    "Checked",
    "position_text",
    "digest_of",
    "rule_l_holds",
    "rule_f_holds",
    "rule_v_holds",
    "greatest_frozen",
    "greatest_stuck",
    "plain_closure",
    "check",
    "parse_certificates",
    "MalformedCertificate",
    "Uncertified",
]

CERTIFICATE_FORMAT: Final = "cruel-certificate/1"
#: Positions the checker's own search may meet by default (``cruel check-proof --budget``).
CHECK_BUDGET: Final = 1_000_000
#: The largest input ``cruel check-proof`` reads (a certificate is a few hundred bytes).
MAX_CERTIFICATE_BYTES: Final = 64 << 20
#: A card's index in the tableau sequence starts a new packet of four after every 4th card
#: (docs/solver.md, rule F: ``i ≡ 3 (mod 4)`` ends a packet).
_PACKET: Final = 4

_CardName = Annotated[str, Field(max_length=4)]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DealRef(_Frozen):
    number: int | None = Field(description="The deal number, or null for a deal given by piles.")
    piles: list[Annotated[list[_CardName], Field(max_length=60)]] = Field(
        max_length=20, description="The deal's piles, each bottom to top."
    )


class RuleProof(_Frozen):
    """A dead-position rule of docs/solver.md that fires on the position itself."""

    kind: Literal["rule"] = "rule"
    rule: Literal["L", "F", "V"] = Field(
        description="L: the pile-1 lock; F: a frozen set; V: a stuck set (after the last redeal)."
    )
    cards: list[_CardName] = Field(
        max_length=52,
        description="L: the locked card; F: the frozen set; V: the stuck set (lowest first).",
    )
    waits_for: _CardName | None = Field(
        None, description="L: a lower card of the locked card's suit below it in pile 1."
    )
    successor_below: _CardName | None = Field(
        None, description="L: the locked card's successor, below it in pile 1 (null: a king)."
    )
    prefix: int | None = Field(
        None, ge=0, le=52, description="F: the length of the set's fixed prefix (rule F)."
    )


class SearchProof(_Frozen):
    """Every position reachable from the position, up to those rule F or V proves lost."""

    kind: Literal["search"] = "search"
    positions: int = Field(
        ge=1, description="Distinct positions of the closure (docs/solver.md, Certificates)."
    )
    digest: str = Field(
        pattern=r"^sha256:[0-9a-f]{64}$",
        description="sha256 of the closure's positions, each as position_text and a newline, "
        "sorted.",
    )


class Certificate(_Frozen):
    """Why a position can never be won, to be checked by ``cruel check-proof``."""

    model_config = document_config("Cruel certificate of an unwinnable verdict v1", "certificate")

    format: Literal["cruel-certificate/1"] = CERTIFICATE_FORMAT
    rules: str = Field(max_length=40, description="The rules preset's name.")
    deal: DealRef
    steps: list[Annotated[str, Field(max_length=8)]] = Field(
        default_factory=list,
        max_length=100_000,
        description='Steps played from the deal to the position, in compact form ("3F", "3-7", '
        '"R").',
    )
    verdict: Literal["unwinnable"] = "unwinnable"
    proof: RuleProof | SearchProof = Field(discriminator="kind")


@dataclass(frozen=True)
class Checked:
    """One certificate's answer: ``verified``, ``refused`` (with why) or ``undecided``."""

    status: Literal["verified", "refused", "undecided"]
    detail: str


class MalformedCertificate(ValueError):
    """A line or document that is not a certificate (not JSON, or not of the format)."""


class Uncertified(ValueError):
    """An unwinnable record of a study's results file that carries no certificate (a closure
    over the limit, or a file written before certificates): its verdict cannot be checked."""


#: A study's results file (``cruel-study/1``, cruel_tools/search/study.py) is read as its
#: certificates: its header line and the records of other verdicts are skipped. Named here, not
#: imported: the study is the solver's layer.
_STUDY_FORMAT: Final = "cruel-study/1"


# --- positions as text -------------------------------------------------------------------------


def position_text(game: Game) -> str:
    """A position's canonical text: each pile's cards bottom to top, separated by spaces, piles
    separated by ``|`` (empty piles too); under a redeal limit, then ``;`` and the redeals used.
    The piles determine the rest of the position (docs/solver.md, Search)."""
    text = "|".join(" ".join(cards.name(c) for c in pile) for pile in game.piles)
    if game.rules.max_redeals is not None:
        text += f";{game.redeals}"
    return text


def digest_of(texts: Iterable[str]) -> str:
    """``sha256:`` and the hex digest of the texts sorted, each followed by a newline."""
    h = hashlib.sha256()
    for text in sorted(texts):
        h.update(text.encode() + b"\n")
    return "sha256:" + h.hexdigest()


# --- where the rules hold ----------------------------------------------------------------------


def _cruel_rules_hold(rules: Rules) -> bool:
    """docs/solver.md, rule L ("For profiles with the bottom-up redeal and single-card moves")
    and its "Where it does not hold" (top-down redeal, run moves, and every profile whose
    ``Rules.cruel_layout`` is false); rule F: "Same profiles as rule L". Stated once, in
    ``Rules.locks_proven``, which the solver reads too."""
    return rules.locks_proven


def _last_deal(game: Game) -> bool:
    """docs/solver.md, rules V and S: the rest of the family (``cruel_layout`` false), single-card
    moves, and the redeal limit used up, so that no redeal can ever come (``Rules.stuck_proven``,
    which the solver reads too)."""
    return game.rules.stuck_proven(game.redeals)


# --- rule L ------------------------------------------------------------------------------------


def rule_l_holds(game: Game, b: Card, a: Card, successor: Card | None) -> str | None:
    """None when rule L fires on ``b``, with ``a`` below it and ``successor`` (None: ``b`` is a
    king) below it too; else why not. docs/solver.md, "Rule L: the pile-1 lock"."""
    if not _cruel_rules_hold(game.rules):
        return f"rule L does not hold under {game.rules.preset} (docs/solver.md, rule L)"
    # "Let p be the bottom four cards of pile 1 ... bottom to top."
    p = game.piles[0][:4]
    if b not in p or p.index(b) < 1:
        return f"{cards.name(b)} is not above the bottom card among pile 1's bottom four"
    below = p[: p.index(b)]  # "Let b = p[k] with k >= 1"
    # "some card a below b in p has b's suit and a lower rank"
    if a not in below or cards.suit(a) != cards.suit(b) or cards.rank(a) >= cards.rank(b):
        return f"{cards.name(a)} is not a lower card of {cards.name(b)}'s suit below it in pile 1"
    # "either b is a king or b's successor (same suit, one rank up) is below b in p"
    if successor is None:
        return None if cards.rank(b) == 13 else f"{cards.name(b)} is not a king"
    if cards.rank(b) == 13 or successor != b + 1:
        return f"{cards.name(successor)} is not {cards.name(b)}'s successor"
    return None if successor in below else f"{cards.name(successor)} is not below it in pile 1"


# --- rule F ------------------------------------------------------------------------------------


def _sequence(game: Game) -> tuple[list[Card], list[bool]]:
    """docs/solver.md, rule F, Definitions: "Read the tableau as the sequence s_0 s_1 ... (pile 1
    bottom to top, then pile 2, ...); a card is a top if it is the last card of its pile now"."""
    seq: list[Card] = []
    top: list[bool] = []
    for pile in game.piles:
        seq += pile
        top += [i == len(pile) - 1 for i in range(len(pile))]
    return seq, top


def _fixed_prefix(seq: list[Card], top: list[bool], f: set[Card]) -> int:
    """m: "the longest run of cards of F from the start of the sequence, ended at the first card
    s_i that is a top now or has i ≡ 3 (mod 4) and whose predecessor (same suit, one rank lower)
    is not in F (that card is included, as the last)". An ace has no predecessor."""
    m = 0
    for i, c in enumerate(seq):
        if c not in f:
            break
        m = i + 1
        predecessor_in_f = cards.rank(c) > 1 and c - 1 in f
        if (top[i] or i % _PACKET == _PACKET - 1) and not predecessor_in_f:
            break
    return m


def _frozen_failures(game: Game, f: set[Card]) -> tuple[int, list[Card]]:
    """The fixed prefix of ``f`` and the cards of ``f`` that fail rule F's conditions."""
    seq, top = _sequence(game)
    m = _fixed_prefix(seq, top, f)
    # "s_i is covered if i < m-1, it is not a top now, and i ≢ 3 (mod 4)"
    covered = {seq[i] for i in range(max(0, m - 1)) if not top[i] and i % _PACKET != _PACKET - 1}
    failing = []
    for b in f:
        if b in covered:
            continue
        # (H) "some card of F has b's suit and a lower rank"
        h = any(cards.suit(a) == cards.suit(b) and cards.rank(a) < cards.rank(b) for a in f)
        # (B) "b is a king or b's successor is covered"
        kb = cards.rank(b) == 13 or b + 1 in covered
        if not (h and kb):
            failing.append(b)
    return m, failing


def rule_f_holds(game: Game, f: set[Card], prefix: int | None) -> str | None:
    """None when ``f`` is a nonempty frozen set of the position with the fixed prefix
    ``prefix``; else why not. docs/solver.md, "Rule F: frozen sets"."""
    if not _cruel_rules_hold(game.rules):
        return f"rule F does not hold under {game.rules.preset} (docs/solver.md, rule F)"
    if not f:
        return "the frozen set is empty"
    m, failing = _frozen_failures(game, f)
    if failing:
        shown = " ".join(cards.name(c) for c in sorted(failing)[:4])
        return f"not a frozen set: {shown} neither covered nor held (rule F)"
    if prefix is not None and prefix != m:
        return f"the fixed prefix is {m} cards, not {prefix}"
    return None


def greatest_frozen(game: Game) -> set[Card]:
    """The greatest frozen set, by the doc's "Computing it": start from every tableau card and
    drop every card that fails, recomputing the prefix, until none fails (no shortcut)."""
    if not _cruel_rules_hold(game.rules):
        return set()
    f = {c for pile in game.piles for c in pile}
    while f:
        _, failing = _frozen_failures(game, f)
        if not failing:
            break
        f.difference_update(failing)
    return f


# --- rule V ------------------------------------------------------------------------------------


def _stuck_failures(game: Game, f: set[Card]) -> list[Card]:
    """The cards of ``f`` that fail rule V's conditions (docs/solver.md, "Rule V: a stuck set")."""
    rules = game.rules
    where = {c: (p, i) for p, pile in enumerate(game.piles) for i, c in enumerate(pile)}

    def covered(b: Card) -> bool:  # "covered by a card of F (one lies above b in its pile)"
        p, i = where[b]
        return any(c in f for c in game.piles[p][i + 1 :])

    failing = []
    for b in f:
        if covered(b):
            continue
        # (H) "some card of F of b's suit goes home before b"
        order = foundation_index(rules, b)
        h = any(cards.suit(a) == cards.suit(b) and foundation_index(rules, a) < order for a in f)
        # (B) "every host of b is home or is a card of F covered by a card of F"
        hosts = (x for x in range(52) if x != b and builds_onto(rules, b, x))
        kb = all(x not in where or (x in f and covered(x)) for x in hosts)
        if not (h and kb):
            failing.append(b)
    return failing


def rule_v_holds(game: Game, f: set[Card]) -> str | None:
    """None when ``f`` is a nonempty stuck set after the last redeal; else why not."""
    if not _last_deal(game):
        return "rule V holds only after the last redeal of the rest of the family (docs/solver.md)"
    if not f:
        return "the stuck set is empty"
    failing = _stuck_failures(game, f)
    if failing:
        shown = " ".join(cards.name(c) for c in sorted(failing)[:4])
        return f"not a stuck set: {shown} neither covered nor held (rule V)"
    return None


def greatest_stuck(game: Game) -> set[Card]:
    """The greatest stuck set (the doc's "Computing it" for rule V), or the empty set."""
    if not _last_deal(game):
        return set()
    f = {c for pile in game.piles for c in pile}
    while f:
        failing = _stuck_failures(game, f)
        if not failing:
            break
        f.difference_update(failing)
    return f


# --- checking a certificate --------------------------------------------------------------------


def _position(cert: Certificate) -> Game | str:
    """The certificate's position: its deal under its preset, then its steps; or why not."""
    rules = PRESETS.get(cert.rules)
    if rules is None:
        return f"no rules preset is named {cert.rules!r}"
    number = cert.deal.number
    if number is not None and not 1 <= number < 1 << 32:
        return f"no deal is numbered {number}"
    try:
        game = Game.from_deal(resolve_deal(number, cert.deal.piles, rules), rules)
    except ValueError as exc:  # BadDeal, a bad card: piles that are not a deal of the preset
        return f"not a deal: {exc}"
    for i, text in enumerate(cert.steps, 1):
        try:
            game.push(parse_compact(text))
        except (IllegalMove, ValueError) as exc:
            return f"step {i}: {exc}"
    return game


def _card_set(names: Sequence[str], game: Game) -> set[Card] | str:
    try:
        found = [cards.parse(n) for n in names]
    except ValueError as exc:
        return str(exc)
    if len(set(found)) != len(found):
        return "a card is named twice"
    tableau = {c for pile in game.piles for c in pile}
    away = [c for c in found if c not in tableau]
    if away:
        return f"{cards.name(away[0])} is not in the tableau"
    return set(found)


def _check_rule(proof: RuleProof, game: Game) -> str | None:
    named = _card_set(proof.cards, game)
    if isinstance(named, str):
        return named
    if proof.rule == "F":
        return rule_f_holds(game, named, proof.prefix)
    if proof.rule == "V":
        return rule_v_holds(game, named)
    if len(named) != 1 or proof.waits_for is None:
        return "rule L names one locked card and the card it waits for"
    try:
        a = cards.parse(proof.waits_for)
        s = None if proof.successor_below is None else cards.parse(proof.successor_below)
    except ValueError as exc:
        return str(exc)
    return rule_l_holds(game, next(iter(named)), a, s)


def _lost_here(game: Game) -> bool:
    """Whether the checker's own rules prove ``game`` lost (rule F, or V after the last redeal;
    rule L's locks are frozen sets, docs/solver.md "Rule L is a case of rule F")."""
    return bool(greatest_frozen(game)) or bool(greatest_stuck(game))


def plain_closure(start: Game, budget: int) -> tuple[list[str], bool] | None:
    """Every position reachable from ``start`` by legal steps, not going past positions that
    :func:`_lost_here` proves lost, as their texts; and whether a won one is among them. None
    when more than ``budget`` positions are met. Depth-first, with a set of texts seen."""
    seen = {position_text(start)}
    stack = [start]
    while stack:
        game = stack.pop()
        if game.is_won():
            return sorted(seen), True
        if _lost_here(game):
            continue
        for step in game.legal_steps():
            child = game.copy()
            child.push(step)
            text = position_text(child)
            if text in seen:
                continue
            seen.add(text)
            if len(seen) > budget:
                return None
            stack.append(child)
    return sorted(seen), False


def check(cert: Certificate, budget: int = CHECK_BUDGET) -> Checked:
    """Check one certificate (docs/solver.md, Certificates)."""
    game = _position(cert)
    if isinstance(game, str):
        return Checked("refused", game)
    proof = cert.proof
    if isinstance(proof, RuleProof):
        why = _check_rule(proof, game)
        if why is not None:
            return Checked("refused", why)
        if proof.rule == "L":
            return Checked("verified", f"{proof.cards[0]} can never leave pile 1 (rule L)")
        return Checked("verified", f"{len(proof.cards)} cards can never move (rule {proof.rule})")
    found = plain_closure(game, budget)
    if found is None:
        return Checked("undecided", f"more than {budget} positions: budget spent")
    texts, won = found
    if won:
        return Checked("refused", "a won position is reachable")
    if len(texts) != proof.positions:
        return Checked("refused", f"{len(texts)} positions, not {proof.positions}")
    if digest_of(texts) != proof.digest:
        return Checked("refused", "the positions' digest differs")
    return Checked("verified", f"search: {len(texts)} positions, none won")


def parse_certificates(
    data: bytes,
) -> list[Certificate | MalformedCertificate | Uncertified]:
    """A JSON certificate, or JSON Lines of them (blank lines skipped), or a study's results
    file (its unwinnable records' certificates): each a certificate, a
    :class:`MalformedCertificate` saying in one line what is wrong with it, or an
    :class:`Uncertified` unwinnable record."""
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        docs = [(n, line) for n, line in enumerate(data.splitlines(), 1) if line.strip()]
    else:
        docs = [(0, whole)]
    found: list[Certificate | MalformedCertificate | Uncertified] = []
    for n, doc in docs:
        where = f"line {n}: " if n else ""
        try:
            obj = orjson.loads(doc) if isinstance(doc, bytes) else doc
        except orjson.JSONDecodeError:
            found.append(MalformedCertificate(f"{where}not JSON"))
            continue
        if _study_line(obj):
            if obj.get("verdict") != "unwinnable":
                continue  # the header, a win, an unknown: nothing to check
            if obj.get("certificate") is None:
                said = f"deal {obj.get('deal')} ({obj.get('preset')})"
                found.append(Uncertified(f"{where}{said}: unwinnable, without a certificate"))
                continue
            obj = obj["certificate"]
        try:
            found.append(Certificate.model_validate(obj))
        except ValidationError as exc:
            err = exc.errors()[0]
            path = "/" + "/".join(str(p) for p in err["loc"])
            found.append(MalformedCertificate(f"{where}not a certificate: {path}: {err['msg']}"))
    return found


def _study_line(obj: object) -> bool:
    """A study's header line, or one of its records (they have no ``format`` of their own)."""
    if not isinstance(obj, dict):
        return False
    if "format" in obj:
        return bool(obj["format"] == _STUDY_FORMAT)
    return "preset" in obj and "verdict" in obj
