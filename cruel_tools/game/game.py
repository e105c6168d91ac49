"""The rules engine: the one place where the rules of Cruel live.

A :class:`Game` is a position plus the rules profile and the counters a score needs. It is mutable
(like ``chess.Board``): :meth:`Game.move`, :meth:`Game.redeal` and :meth:`Game.push` change it or
raise an :class:`IllegalMove` subclass that leaves it untouched; :meth:`Game.copy` is cheap.

Piles are numbered 1-12 (1-13 under a 13-pile profile) as players number them; each pile is a list
of cards bottom to top, so its top card is ``pile[-1]``. Foundations hold the number of cards on
each suit's foundation: under Cruel's aces-up foundations that is the rank of the top card (1 = ace
only); :func:`foundation_rank` gives the top card's rank under any profile.

Cruel's own layout and build (12 piles, aces up, down in suit, packets of 4: ``Rules.cruel_layout``)
is played by :class:`Game` itself. The rest of the family (Ripple Fan, Royal Family) is played by
its subclass :class:`VariantGame`. :func:`game_class` picks the class from the rules, and every
constructor asks it (``Game(...)`` gives a :class:`VariantGame` for such rules): the code path of
``cruel`` stays exactly as fast as before the variants came.

The verifier, the renderer, the solver and the generator all play through this module; none of
them checks a rule itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from operator import itemgetter
from typing import Final, Literal, NamedTuple, Self, cast

from ..errors import CruelError
from ..spec import SPEC
from . import cards
from .cards import KING, Card
from .rules import DEFAULT, Rules

__all__ = [
    "NUM_PILES",
    "MAX_PILES",
    "PACKET",
    "FOUNDATION_TARGET",
    "Outcome",
    "Move",
    "Redeal",
    "REDEAL",
    "Step",
    "IllegalMove",
    "BadPile",
    "SamePile",
    "EmptySource",
    "EmptyTarget",
    "CardMismatch",
    "NotNextOnFoundation",
    "WrongSuit",
    "WrongRank",
    "WrongColour",
    "RunsNotAllowed",
    "NotARun",
    "RunToFoundation",
    "RedealUnchanged",
    "RedealLimit",
    "RedealNotStuck",
    "MoveAfterEnd",
    "MOVE_ERRORS",
    "PositionError",
    "redeal_piles",
    "is_packed",
    "tableau_sequence",
    "foundation_rank",
    "foundation_index",
    "builds_onto",
    "start_foundations",
    "Game",
    "VariantGame",
    "game_class",
]

NUM_PILES = 12
MAX_PILES = 13  # the most piles a profile deals (ripple-fan-pysolfc); what a log may name
PACKET = 4
FOUNDATION_TARGET = None  # a Move's target when the card goes to its foundation

Outcome = Literal["won", "blocked", "in_progress"]


class Move(NamedTuple):
    """A card move: the top ``count`` cards of pile ``source`` onto pile ``target``.

    ``target`` is ``None`` for the foundation. ``card``, when given, is the card that must be
    moving (for a run, its deepest card): logs use it to catch a player's misunderstanding early.
    """

    source: int
    target: int | None
    count: int = 1  # type: ignore[assignment]  # shadows tuple.count, which nobody needs here
    card: Card | None = None


class Redeal(NamedTuple):
    """Gather the piles in order and deal them out again in packets of 4."""


REDEAL = Redeal()
Step = Move | Redeal


# --- errors -----------------------------------------------------------------------------------


class IllegalMove(CruelError):
    """A step the rules forbid in the current position. ``code`` is a stable, documented string.

    Only its subclasses are raised, one per code (:data:`MOVE_ERRORS`). Each subclass's ``code``
    and the English words of its messages are the spec's (cruel_tools/spec/errors.json, "move":
    each code with its class and words), set on the classes below and read by :func:`_say`.
    """

    code = "illegal-move"


class BadPile(IllegalMove):
    """Raised when a move names a pile outside 1-12, as source or target (a v1 log cannot:
    its schema allows only 1-12)."""


class SamePile(IllegalMove):
    """Raised when a move's target is its own source pile."""


class EmptySource(IllegalMove):
    """Raised when a card is to move from an empty pile in a game not yet won (once it is
    won, :class:`MoveAfterEnd`)."""


class EmptyTarget(IllegalMove):
    """Raised when a card is to move onto an empty pile: empty piles stay closed until a
    redeal."""


class CardMismatch(IllegalMove):
    """Raised when a move names its card and that is not the card that would move (for a
    run, its deepest card)."""


class NotNextOnFoundation(IllegalMove):
    """Raised when a card sent to the foundation is not the next rank of its suit."""


class WrongSuit(IllegalMove):
    """Raised when a card is to go onto a top card of another suit."""


class WrongRank(IllegalMove):
    """Raised when a card is to go onto a card of its own suit that is not one rank higher
    (a king goes onto no card)."""


class WrongColour(IllegalMove):
    """Raised, under an alternate-colour build, when a card is to go onto a card of its own
    colour (or onto one of the other colour that is not of the rank the build needs)."""


class RunsNotAllowed(IllegalMove):
    """Raised when a move's ``count`` is not 1 under rules without ``run_moves``: only single
    cards move."""


class NotARun(IllegalMove):
    """Raised, under ``run_moves``, when ``count`` is more than the run on top of the source
    pile (or less than 1)."""


class RunToFoundation(IllegalMove):
    """Raised, under ``run_moves``, when a move to the foundation has a ``count`` other than 1:
    cards go there one at a time."""


class RedealUnchanged(IllegalMove):
    """Raised when a redeal would leave every pile as it is (:func:`is_packed`), as at
    the start of a game or right after another redeal."""


class RedealLimit(IllegalMove):
    """Raised when a redeal is asked for after the rules' ``max_redeals`` are used up."""


class RedealNotStuck(IllegalMove):
    """Raised, under ``redeal_only_when_stuck``, when a redeal is asked for while a card
    can move."""


class MoveAfterEnd(IllegalMove):
    """Raised for any step, card move or redeal, once the game is won (a pile number outside
    1-12 is still :class:`BadPile`)."""


#: Every move error class by its code, for documentation and tests: the spec's codes, in its order,
#: each with the class it names (which takes the code as its own ``code``).
MOVE_ERRORS: dict[str, type[IllegalMove]] = {}


def _spec_codes(*classes: type[IllegalMove]) -> None:
    by_name = {cls.__name__: cls for cls in classes}
    for entry in SPEC.errors["move"]:
        cls = by_name.pop(entry["class"])  # a class the spec names and game.py lacks: KeyError
        cls.code = entry["code"]
        MOVE_ERRORS[cls.code] = cls
    if by_name:
        raise RuntimeError(f"move errors the spec does not name: {sorted(by_name)}")


_spec_codes(
    BadPile,
    SamePile,
    EmptySource,
    EmptyTarget,
    CardMismatch,
    NotNextOnFoundation,
    WrongSuit,
    WrongRank,
    WrongColour,
    RunsNotAllowed,
    NotARun,
    RunToFoundation,
    RedealUnchanged,
    RedealLimit,
    RedealNotStuck,
    MoveAfterEnd,
)

#: The English words of the refusals by key (the spec's ``errors.move.<key>``, which the pages'
#: catalog holds too): sentence templates, their ``{fields}`` filled by :func:`_say`.
_WORDS: Final[dict[str, str]] = {
    key.removeprefix("errors.move."): words
    for entry in SPEC.errors["move"]
    for key, words in entry["words"].items()
}


def _say(key: str, **fields: object) -> str:
    """The words of refusal ``key`` with its fields filled in. Cards come as players write them
    (:func:`cards.symbol`): the spec gives the sentence, game.py the cards and piles in it. Only
    an illegal step comes here, never the legal moves of the hot path."""
    return _WORDS[key].format(**fields)


#: :func:`_say` remembering its answers, for the refusals :meth:`Game.redeal_problem` makes at
#: every position it is asked about (``legal_steps``, ``outcome``), raised or not: a handful of
#: sentences per process, each formatted once rather than at every ask.
_said: Final = cache(_say)


class PositionError(CruelError):
    """Piles and foundations that do not make a position of Cruel (cards missing or twice)."""

    code = "bad-position"


# --- redeal orders ----------------------------------------------------------------------------


def redeal_piles(
    piles: Sequence[Sequence[Card]], order: str = "bottom-up", deal: str = "packets-of-4"
) -> list[list[Card]]:
    """The piles a redeal in ``order`` makes of ``piles`` (which it does not change), as many
    as there are.

    The redeal reads :func:`tableau_sequence` and cuts it into packets of 4 (``deal``
    ``packets-of-4``), or gives its cards one at a time to each pile in turn (``one-at-a-time``:
    card k to pile k mod the number of piles); top-down turns each new pile over, since the first
    card a pile gets becomes its top.
    """
    seq = tableau_sequence(piles, order)
    n = len(piles)
    if deal == "one-at-a-time":
        new = [seq[j::n] for j in range(n)]
    elif n == NUM_PILES:
        new = list(_PACKETS(seq))
    else:
        new = [seq[i : i + PACKET] for i in range(0, n * PACKET, PACKET)]
    if order != "bottom-up":
        new = [packet[::-1] for packet in new]
    return new


# The 12 packets of a redeal, cut from its sequence in one call (a redeal is the engine's
# costliest step, and logs hold one every few moves). Past the end of a short sequence a slice is
# a new empty list: the piles that stay empty.
_PACKETS = itemgetter(*(slice(i, i + PACKET) for i in range(0, NUM_PILES * PACKET, PACKET)))


def is_packed(piles: Sequence[Sequence[Card]]) -> bool:
    """Whether a redeal (in either order) would leave ``piles`` exactly as they are, that is
    ``redeal_piles(piles, order) == piles`` (a property test holds the two equal).

    Both orders cut the same sequence into packets of 4 and each restores a packet's own order,
    so the layout is unchanged exactly when the pile sizes already are the packet sizes:
    full piles of 4, then at most one shorter pile, then empty ones.
    """
    sizes = list(map(len, piles))
    return sizes == _PACKED_SIZES[sum(sizes)]


# The pile sizes a redeal of n cards makes, for every n: 4, 4, ..., the rest, then zeros.
_PACKED_SIZES = [
    [PACKET] * (n // PACKET) + [n % PACKET] * (n % PACKET > 0) + [0] * (NUM_PILES - -(-n // PACKET))
    for n in range(NUM_PILES * PACKET + 1)
]


def tableau_sequence(piles: Sequence[Sequence[Card]], order: str = "bottom-up") -> list[Card]:
    """The single sequence a redeal reads and keeps (pile 1 first)."""
    seq: list[Card] = []
    if order == "bottom-up":
        for pile in piles:  # a plain loop: cheaper here than itertools.chain, card by card
            seq += pile
    else:
        for pile in piles:
            seq += pile[::-1]
    return seq


_COMPLETE: list[int] = [KING] * 4  # the foundations of a won game (13 cards on each)


def foundation_rank(rules: Rules, count: int) -> int:
    """The rank of the top card of a foundation holding ``count`` cards (0: empty)."""
    if rules.foundation_direction == "up" or count == 0:
        return count
    return KING + 1 - count


def start_foundations(rules: Rules) -> list[int]:
    """The foundations of a deal: one card on each, or none when no cards start there."""
    return [0, 0, 0, 0] if rules.foundation_base == "none" else [1, 1, 1, 1]


def _foundation_cards(rules: Rules, suit: int, count: int) -> list[Card]:
    if rules.foundation_direction == "up":
        return [cards.make(suit, r) for r in range(1, count + 1)]
    return [cards.make(suit, r) for r in range(KING + 1 - count, KING + 1)]


# The pile numbers, and what a move may name as its target (None: the foundation). Bad input is
# also of any type: a set look-up refuses it as surely as a range check, and costs less.
_PILE_NUMBERS: frozenset[int] = frozenset(range(1, NUM_PILES + 1))
_TARGETS: frozenset[int | None] = _PILE_NUMBERS | {None}


# --- the game ---------------------------------------------------------------------------------


class Game:
    """A game of Cruel in progress: position, rules profile and score counters."""

    __slots__ = ("rules", "piles", "foundations", "moves", "redeals")

    def __new__(
        cls,
        piles: Sequence[Sequence[Card]] = (),
        foundations: Sequence[int] | None = None,
        rules: Rules = DEFAULT,
        *,
        moves: int = 0,
        redeals: int = 0,
    ) -> Self:
        # Every constructor comes here (``Game(...)``, :meth:`from_deal`, :meth:`trusted`'s
        # checked path; :meth:`copy` keeps its class), so the class is picked once, before
        # ``__init__``, and an object never changes class. The defaults let pickle and copy make
        # an empty object of ``cls`` to fill.
        return cast(Self, object.__new__(game_class(rules, cls)))

    def __init__(
        self,
        piles: Sequence[Sequence[Card]],
        foundations: Sequence[int] | None = None,
        rules: Rules = DEFAULT,
        *,
        moves: int = 0,
        redeals: int = 0,
    ) -> None:
        """A position; raises :class:`PositionError` unless it holds each card exactly once.

        ``foundations`` counts the cards on each suit's foundation (S H D C); by default, those
        of a deal under ``rules``. A profile other than Cruel's own layout makes the game a
        :class:`VariantGame` (:func:`game_class`).

        :raises PositionError: the piles or foundations are not a position of ``rules``.
        :raises TypeError: ``rules`` are not Cruel's own layout and the class named is a subclass
            of :class:`Game` that cannot play them (:func:`game_class`).
        """
        if foundations is None:
            foundations = start_foundations(rules)
        if len(piles) != rules.pile_count:
            raise PositionError(f"a position has {rules.pile_count} piles, not {len(piles)}")
        low = 0 if rules.foundation_base == "none" else 1
        if len(foundations) != 4 or any(not low <= r <= KING for r in foundations):
            raise PositionError(f"foundations must give a card count {low}-13 for each of S H D C")
        self.rules = rules
        self.piles: list[list[Card]] = [list(p) for p in piles]
        self.foundations: list[int] = list(foundations)
        self.moves = moves
        self.redeals = redeals
        self._check_cards()

    def _check_cards(self) -> None:
        seen = [c for p in self.piles for c in p]
        for s in range(4):
            seen += _foundation_cards(self.rules, s, self.foundations[s])
        if len(seen) != 52 or set(seen) != set(cards.DECK):
            missing = sorted(set(cards.DECK) - set(seen))
            doubled = sorted({c for c in seen if seen.count(c) > 1})
            words = [f"{cards.name(c)} missing" for c in missing[:3]]
            words += [f"{cards.name(c)} twice" for c in doubled[:3]]
            raise PositionError("not a full deck: " + ", ".join(words or ["wrong card count"]))

    @classmethod
    def from_deal(cls, piles: Sequence[Sequence[Card]], rules: Rules = DEFAULT) -> Game:
        """The opening position of a deal (12 piles of 4, no aces; aces on the foundations; or
        what the profile deals)."""
        return cls(piles, None, rules)

    @classmethod
    def trusted(cls, piles: list[list[Card]], rules: Rules = DEFAULT) -> Game:
        """The opening position of piles already checked to be a deal (see
        :func:`cruel_tools.game.deals.check_piles`); takes ownership of ``piles``."""
        if not rules.cruel_layout:
            return cls(piles, None, rules)
        g = object.__new__(cls)
        g.rules, g.piles, g.foundations, g.moves, g.redeals = rules, piles, [1, 1, 1, 1], 0, 0
        return g

    def copy(self) -> Game:
        """An independent copy (piles are copied, rules shared: they are immutable), of the
        same class (a :class:`VariantGame` stays one)."""
        g = object.__new__(type(self))
        g.rules = self.rules
        g.piles = [p[:] for p in self.piles]
        g.foundations = self.foundations[:]
        g.moves = self.moves
        g.redeals = self.redeals
        return g

    # --- reading the position ---

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations, aces included (4-52; 0-52 when none start there)."""
        f = self.foundations
        return f[0] + f[1] + f[2] + f[3]

    def key(self) -> tuple[tuple[Card, ...], ...]:
        """The position as a hashable value: the piles (they determine the foundations, since
        every card not in a pile is on one). Equal keys, same position."""
        return tuple(map(tuple, self.piles))

    def is_won(self) -> bool:
        return self.foundations == _COMPLETE

    def top(self, pile: int) -> Card | None:
        """Top card of pile ``pile`` (1-12), or None when it is empty."""
        p = self.piles[pile - 1]
        return p[-1] if p else None

    def run_length(self, pile: int) -> int:
        """How many cards on top of ``pile`` form a run (one suit, each one rank below the last)."""
        p = self.piles[pile - 1]
        n = 1 if p else 0
        while n < len(p) and p[-n - 1] == p[-n] + 1 and cards.rank(p[-n]) < KING:
            n += 1
        return n

    def outcome(self) -> Outcome:
        """``won``, ``blocked`` (no card move and no redeal is legal) or ``in_progress``."""
        if self.is_won():
            return "won"
        if self.has_card_move() or self.redeal_problem() is None:
            return "in_progress"
        return "blocked"

    # --- the rules ---

    def move(
        self, source: int, target: int | None, count: int = 1, card: Card | None = None
    ) -> None:
        """Move the top ``count`` cards of ``source`` to ``target`` (None: the foundation).

        The checks run in this order; the first that fails raises, leaving the game unchanged.

        :raises BadPile: ``source`` or ``target`` is not a pile number 1-12.
        :raises MoveAfterEnd: the game is won.
        :raises EmptySource: pile ``source`` is empty.
        :raises SamePile: ``target`` is ``source``.
        :raises RunsNotAllowed: ``count`` is not 1 and the rules move single cards only.
        :raises RunToFoundation: ``count`` is not 1 and ``target`` is the foundation.
        :raises NotARun: ``count`` is more than the run on top of ``source`` (or less than 1).
        :raises CardMismatch: ``card`` is given and is not the (deepest) card that would move.
        :raises NotNextOnFoundation: the card is not the next of its suit's foundation.
        :raises EmptyTarget: pile ``target`` is empty.
        :raises WrongSuit: the top card of ``target`` is of another suit.
        :raises WrongRank: it is of the same suit but not one rank higher (or the card is a king).
        :raises WrongColour: under an alternate-colour build (:class:`VariantGame`), the top card
            of ``target`` is of the moving card's colour.
        """
        if source not in _PILE_NUMBERS or target not in _TARGETS:
            raise BadPile(_say("bad-pile", piles=NUM_PILES))
        piles = self.piles
        src = piles[source - 1]
        # The common case, a single card as the log names it, skips the call: the guard only
        # admits moves that pass every check of _moving, which states them (and their words).
        if src and count == 1 and target != source and (card is None or card == src[-1]):
            moving = src[-1]
        else:
            moving = self._moving(source, target, count, card)
        if target is None:
            found, s, r = self.foundations, moving // 13, moving % 13
            if found[s] != r:
                raise _not_next(moving, source, found[s] if found[s] < KING else None)
            found[s] = r + 1
            src.pop()
        else:
            dst = piles[target - 1]
            if not dst:
                raise _empty_target(moving, source, target)
            onto = dst[-1]
            if onto != moving + 1 or moving % 13 == 12:
                raise _not_in_suit(moving, source, target, onto)
            if count == 1:
                dst.append(src.pop())
            else:
                dst.extend(src[-count:])
                del src[-count:]
        self.moves += 1

    def _moving(self, source: int, target: int | None, count: int, card: Card | None) -> Card:
        """The card that moves (the deepest of a run), after the checks every card move starts
        with, in order, for every rules profile: the one statement of them and their words.

        :raises MoveAfterEnd: the game is won.
        :raises EmptySource: pile ``source`` is empty.
        :raises SamePile: ``target`` is ``source``.
        :raises RunsNotAllowed: ``count`` is not 1 and the rules move single cards only.
        :raises RunToFoundation: ``count`` is not 1 and ``target`` is the foundation.
        :raises NotARun: ``count`` is more than the run on top of ``source`` (or less than 1).
        :raises CardMismatch: ``card`` is given and is not the (deepest) card that would move.
        """
        src = self.piles[source - 1]
        if not src:
            # A won game has only empty piles, so the end is checked only here.
            if self.is_won():
                raise MoveAfterEnd(_say("move-after-end"))
            raise EmptySource(_say("empty-source", source=source))
        if target == source:
            raise SamePile(_say("same-pile", source=source))
        if count != 1:
            self._check_run(source, target, count)
        moving = src[-count]
        if card is not None and card != moving:
            key = "card-mismatch" if count == 1 else "card-mismatch-run"
            raise CardMismatch(
                _say(
                    key,
                    logged=cards.symbol(card),
                    source=source,
                    count=count,
                    card=cards.symbol(moving),
                )
            )
        return moving

    def _check_run(self, source: int, target: int | None, count: int) -> None:
        if not self.rules.run_moves:
            raise RunsNotAllowed(_say("runs-not-allowed", preset=self.rules.preset))
        if target is None:
            raise RunToFoundation(_say("run-to-foundation"))
        length = self.run_length(source)
        if not 1 <= count <= length:
            run = _say("run-length.one" if length == 1 else "run-length.other", count=length)
            raise NotARun(_say("not-a-run", count=count, source=source, run=run))

    def redeal_problem(self) -> IllegalMove | None:
        """Why a redeal is illegal now, or None when it is legal."""
        return self._redeal_problem(is_packed(self.piles))

    def _redeal_problem(self, unchanged: bool) -> IllegalMove | None:
        # The one statement of when a redeal is legal, in the order of its checks. Whether the
        # layout would stay ``unchanged`` comes from the caller: redeal() has the new piles and
        # compares them, the rest ask is_packed (the same answer without making them).
        if self.is_won():
            return MoveAfterEnd(_said("move-after-end"))
        rules = self.rules
        if rules.max_redeals is not None and self.redeals >= rules.max_redeals:
            return RedealLimit(_said("redeal-limit", count=rules.max_redeals))
        if rules.redeal_only_when_stuck and self.has_card_move():
            return RedealNotStuck(_said("redeal-not-stuck", preset=rules.preset))
        if unchanged:
            return RedealUnchanged(_said("redeal-unchanged"))
        return None

    def redeal(self) -> None:
        """Gather and deal out again (see :func:`redeal_piles`).

        The checks run in this order (:meth:`redeal_problem` says which would fail, without
        raising); the first that fails raises, leaving the game unchanged.

        :raises MoveAfterEnd: the game is won.
        :raises RedealLimit: the rules' ``max_redeals`` are used up.
        :raises RedealNotStuck: the rules allow a redeal only when stuck, and a card can move.
        :raises RedealUnchanged: the redeal would leave every pile as it is.
        """
        new = redeal_piles(self.piles, self.rules.redeal_order)
        problem = self._redeal_problem(new == self.piles)
        if problem is not None:
            raise problem
        self.piles = new
        self.redeals += 1

    def push(self, step: Step) -> None:
        """Play a :class:`Move` or :data:`REDEAL`.

        :raises IllegalMove: the subclass :meth:`move` or :meth:`redeal` raises for that step
            (any of :data:`MOVE_ERRORS`), leaving the game unchanged.
        """
        if isinstance(step, Redeal):
            self.redeal()
        else:
            self.move(step.source, step.target, step.count, step.card)

    # --- generating moves ---

    def card_moves(self) -> Iterator[Move]:
        """Every legal card move (runs included where the profile allows them)."""
        piles, found = self.piles, self.foundations
        tops = {p[-1]: i for i, p in enumerate(piles, 1) if p}  # empty when the game is won
        runs = self.rules.run_moves
        for c, i in tops.items():
            s, r = divmod(c, 13)
            if found[s] == r:
                yield Move(i, None)
            if not runs:
                j = tops.get(c + 1)
                if j is not None and r != 12:  # the successor of a king is no card
                    yield Move(i, j)
                continue
            p = piles[i - 1]
            for k in range(1, self.run_length(i) + 1):
                deepest = p[-k]
                j = tops.get(deepest + 1)
                if j is not None and deepest % 13 != 12:
                    yield Move(i, j, k)

    def has_card_move(self) -> bool:
        return next(self.card_moves(), None) is not None

    def legal_steps(self) -> Iterator[Step]:
        """Every legal step: the card moves, then the redeal when it is allowed."""
        yield from self.card_moves()
        if self.redeal_problem() is None:
            yield REDEAL

    # --- automatic moves ---

    def automatic_move(self) -> Move | None:
        """The next foundation move a server may make for a player without asking
        (``auto: foundations`` of a live attempt), or None when none is safe now.

        A foundation move is not always right in Cruel: it shifts the next redeal's packets,
        and a card may have to be built instead. Two cases are safe, each proved in
        docs/rules.md (Automatic moves): the position after the move is winnable whenever the
        one before was, in no more actions.

        - **Auto-finish**: foundation moves alone, repeated, empty the tableau. The rest of
          that sequence is a win from every position along it.
        - **No redeal left**: the rules' ``max_redeals`` are used up, the tableau builds down
          in suit and the foundations up. Then no card can ever be built on the card that goes
          up (the one below it is on its foundation already), and every win from before the
          move, with that card's own moves left out, is a win from after it.
        """
        if self.is_won():
            return None
        first = next((m for m in self.card_moves() if m.target is None), None)
        if first is None:
            return None
        rules = self.rules
        if (
            rules.max_redeals is not None
            and self.redeals >= rules.max_redeals
            and rules.tableau_build == "down-in-suit"
            and rules.foundation_direction == "up"
        ):
            return first
        finish = self.copy()
        while (up := next((m for m in finish.card_moves() if m.target is None), None)) is not None:
            finish.move(up.source, None)
        return first if finish.is_won() else None


def _empty_target(moving: Card, source: int, target: int) -> EmptyTarget:
    return EmptyTarget(
        _say("empty-target", card=cards.symbol(moving), source=source, target=target)
    )


def _not_next(moving: Card, source: int, needs: int | None) -> NotNextOnFoundation:
    """``moving`` cannot go to its foundation, which takes the 0-based rank ``needs`` next (None:
    the foundation is complete)."""
    card, suit = cards.symbol(moving), moving // 13
    if needs is None:
        symbol = cards.SUIT_SYMBOLS[suit]
        return NotNextOnFoundation(
            _say("foundation-complete", card=card, source=source, symbol=symbol)
        )
    needed = cards.symbol(cards.make(suit, needs + 1))
    return NotNextOnFoundation(
        _say("not-next-on-foundation", card=card, source=source, needs=needed)
    )


def _not_in_suit(moving: Card, source: int, target: int, onto: Card) -> IllegalMove:
    """``moving`` cannot go onto ``onto`` under the down-in-suit build: :class:`WrongRank` onto
    its own suit, else :class:`WrongSuit`."""
    cls = WrongRank if onto // 13 == moving // 13 else WrongSuit
    card, onto_card = cards.symbol(moving), cards.symbol(onto)
    if moving % 13 == 12:
        key, needs = "king-builds-on-nothing", ""
    else:
        key, needs = cls.code, cards.symbol(moving + 1)
    return cls(_say(key, card=card, source=source, target=target, onto=onto_card, needs=needs))


# --- the rest of the family ---------------------------------------------------------------------

# Red or black per suit (S H D C): hearts and diamonds are red.
_RED: tuple[bool, bool, bool, bool] = (False, True, True, False)


class VariantGame(Game):
    """A game under a profile other than Cruel's own layout and build (``Rules.cruel_layout``
    false): 13 piles, foundations from the kings down or from nothing, an alternate-colour
    tableau, redeals one card at a time. :class:`Game`'s constructors make one for such a profile
    (:func:`game_class`); a caller may also name it for any profile, Cruel's own included.

    Everything not overridden here (reading the position, status, :meth:`push`) is
    :class:`Game`'s; what differs is written for clarity, not speed.
    """

    __slots__ = ()

    def _next_rank(self, suit: int) -> int:
        """The 0-based rank the foundation of ``suit`` takes next (-1 or 13 when complete)."""
        n = self.foundations[suit]
        return n if self.rules.foundation_direction == "up" else KING - 1 - n

    def _fits(self, moving: Card, onto: Card) -> bool:
        """Whether ``moving`` may go onto ``onto`` under the profile's tableau build."""
        return builds_onto(self.rules, moving, onto)

    def _build_error(self, source: int, target: int, moving: Card, onto: Card) -> IllegalMove:
        build = self.rules.tableau_build
        if build == "down-in-suit":  # worded and coded as Game.move words it
            return _not_in_suit(moving, source, target, onto)
        if build == "up-alternate-colour":
            why = _say("needs-lower-other-colour" if moving % 13 else "ace-builds-on-nothing")
        else:
            why = _say("needs-next-other-colour")
        cls = WrongColour if _RED[moving // 13] == _RED[onto // 13] else WrongRank
        words = _say(
            "build",
            card=cards.symbol(moving),
            source=source,
            onto=cards.symbol(onto),
            target=target,
            rank=cards.RANK_NAMES[moving % 13 + 1],
            why=why,
        )
        return cls(words)

    def move(
        self, source: int, target: int | None, count: int = 1, card: Card | None = None
    ) -> None:
        """As :meth:`Game.move`, under this profile's piles, foundations and build.

        :raises WrongColour: under an alternate-colour build, the target's top card is of the
            moving card's colour.
        """
        n = self.rules.pile_count
        if not (isinstance(source, int) and 1 <= source <= n) or not (
            target is None or (isinstance(target, int) and 1 <= target <= n)
        ):
            raise BadPile(_say("bad-pile", piles=n))
        piles = self.piles
        src = piles[source - 1]
        moving = self._moving(source, target, count, card)
        if target is None:
            s, r = divmod(moving, 13)
            needs = self._next_rank(s)
            if needs != r:
                raise _not_next(moving, source, needs if 0 <= needs < KING else None)
            self.foundations[s] += 1
            src.pop()
        else:
            dst = piles[target - 1]
            if not dst:
                raise _empty_target(moving, source, target)
            onto = dst[-1]
            if not self._fits(moving, onto):
                raise self._build_error(source, target, moving, onto)
            dst.extend(src[-count:])
            del src[-count:]
        self.moves += 1

    def _new_piles(self) -> list[list[Card]]:
        return redeal_piles(self.piles, self.rules.redeal_order, self.rules.redeal_deal)

    def redeal_problem(self) -> IllegalMove | None:
        return self._redeal_problem(self._new_piles() == self.piles)

    def redeal(self) -> None:
        new = self._new_piles()
        problem = self._redeal_problem(new == self.piles)
        if problem is not None:
            raise problem
        self.piles = new
        self.redeals += 1

    def card_moves(self) -> Iterator[Move]:
        piles = self.piles
        tops = {p[-1]: i for i, p in enumerate(piles, 1) if p}
        runs = self.rules.run_moves
        build = self.rules.tableau_build
        for c, i in tops.items():
            s, r = divmod(c, 13)
            if self._next_rank(s) == r:
                yield Move(i, None)
            if runs:  # the down-in-suit build only (the rules refuse runs with any other)
                p = piles[i - 1]
                for k in range(1, self.run_length(i) + 1):
                    deepest = p[-k]
                    j = tops.get(deepest + 1)
                    if j is not None and deepest % 13 != 12:
                        yield Move(i, j, k)
                continue
            if build == "down-in-suit":
                j = tops.get(c + 1)
                if j is not None and r != 12:
                    yield Move(i, j)
                continue
            targets = []
            for t in _OTHER_COLOUR[s]:
                if r >= 1:
                    targets.append(tops.get(t * 13 + r - 1))
                if build == "up-or-down-alternate-colour" and r <= 11:
                    targets.append(tops.get(t * 13 + r + 1))
            for j in sorted(t for t in targets if t is not None):
                yield Move(i, j)


def builds_onto(rules: Rules, moving: Card, onto: Card) -> bool:
    """Whether ``moving`` may go onto ``onto`` (a top card) under the profile's tableau build:
    the one statement of the build rule of :class:`VariantGame` (the solver reads it too)."""
    build = rules.tableau_build
    if build == "down-in-suit":
        return onto == moving + 1 and moving % 13 != 12
    if _RED[moving // 13] == _RED[onto // 13]:
        return False
    step = onto % 13 - moving % 13
    return step == -1 or (step == 1 and build == "up-or-down-alternate-colour")


def foundation_index(rules: Rules, card: Card) -> int:
    """How many cards of ``card``'s suit are on their foundation when ``card`` may go there
    (its place in the foundation's order, 0-12): the card is home once its suit's count is
    above this, and may go home when the count equals it."""
    r = card % 13
    return r if rules.foundation_direction == "up" else KING - 1 - r


# The suits of the other colour, per suit (S H D C).
_OTHER_COLOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(t for t in range(4) if _RED[t] != _RED[s]) for s in range(4)
)


def game_class(rules: Rules, named: type[Game] | None = None) -> type[Game]:
    """The class that plays ``rules``: the one place it is chosen, which every constructor asks.

    :class:`Game` plays Cruel's own layout and build (``Rules.cruel_layout``) on its fast path;
    any other profile needs :class:`VariantGame`. ``named`` is the class a caller constructs
    (``Game(...)``, ``VariantGame.from_deal(...)``): ``Game`` itself stands for "whichever plays
    the rules", as ``chess.Board`` gives way to a variant's board; a class that plays every profile
    (a :class:`VariantGame`) is kept as named.

    :raises TypeError: ``named`` is a subclass of :class:`Game` other than a
        :class:`VariantGame`, and ``rules`` are not Cruel's own layout: it would play them by
        Cruel's rules.
    """
    if named is None or named is Game:
        return Game if rules.cruel_layout else VariantGame
    if rules.cruel_layout or issubclass(named, VariantGame):
        return named
    raise TypeError(
        f"{named.__name__} plays only Cruel's own layout, not {rules.preset}'s "
        "(derive it from VariantGame to play every profile)"
    )
