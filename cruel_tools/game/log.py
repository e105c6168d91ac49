"""Game-log format v1 (``cruel-log/1``): the pydantic model, parsing with limits, and steps.

A log names a rules profile, a deal and the moves a player made; see ``docs/log-format.md``.
Parsing is where hostile input is stopped: size and move-count limits are checked before any
model is built, and every problem becomes one :class:`LogFormatError` with a JSON-pointer path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, NotRequired

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
    with_config,
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from ..errors import LOG, CruelError, problem
from ..formats import document_config
from ..spec import SPEC
from . import cards, duplicates
from .cards import Card
from .deals import MAX_DEAL_NUMBER
from .game import MAX_PILES, NUM_PILES, REDEAL, Move, Step
from .rules import PRESETS, PresetName, Rules

__all__ = [
    "FORMAT",
    "BOM",
    "CARD_PATTERN",
    "COMPACT_PATTERN",
    "Limits",
    "LogFormatError",
    "FORMAT_ERROR_CODES",
    "CardText",
    "PileNumber",
    "MoveEntry",
    "RedealEntry",
    "CompactEntry",
    "LogEntry",
    "Deal",
    "Claim",
    "GameLog",
    "COMPACT_STEPS",
    "decode",
    "to_step",
    "parse_compact",
    "compact",
    "step_entry",
    "load",
    "InputProblem",
    "load_input",
    "as_input_problem",
    "strip_bom",
    "refuse_duplicates",
    "from_object",
]

#: The log's statement in the spec (cruel_tools/spec/log.json): its keys, bounds and limits. The
#: models below state the same keys and bounds as types (tests/test_spec.py holds them equal).
_SPEC: Final[dict[str, Any]] = SPEC.log
FORMAT: Final[Literal["cruel-log/1"]] = _SPEC["format"]  # GameLog.format states it as a type
#: The UTF-8 byte order mark some editors put at the start of a file; a log may begin with it
#: (RFC 8259 lets a parser ignore it), and :func:`load` does.
BOM: Final = b"\xef\xbb\xbf"
CARD_PATTERN = r"^(10|[2-9AaTtJjQqKk])([SsHhDdCc]|[♠♥♦♣]\ufe0f?)$"
COMPACT_PATTERN = r"^(?:[Rr]|([1-9]|1[0-3])(?:[Ff]|-([1-9]|1[0-3])(?:[xX]([1-9]|1[0-2]))?))$"


# --- limits and errors ------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Bounds on hostile input; a user may raise them."""

    max_bytes: int = _SPEC["limits"]["max_bytes"]
    max_moves: int = _SPEC["limits"]["max_moves"]


_DEFAULT_LIMITS = Limits()


#: The codes :class:`LogFormatError` uses (the verifier exits 2 on any of them).
FORMAT_ERROR_CODES: Final[tuple[str, ...]] = (
    "unreadable",
    "too-large",
    "not-json",
    "duplicate-key",
    "too-many-moves",
    "schema",
)


class LogFormatError(CruelError):
    """Input that cannot be read as a v1 log. ``code`` (one of :data:`FORMAT_ERROR_CODES`) is
    stable, ``path`` a JSON pointer."""

    codes = FORMAT_ERROR_CODES

    def __init__(self, code: str, path: str, message: str) -> None:
        super().__init__(message)
        self.code, self.path, self.message = code, path, message

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # A unit that could not be read travels to `cruel verify --jobs`' workers as this error:
        # pickle's default, cls(*args), would call __init__ with the message alone and fail.
        return _rebuilt, (type(self), self.code, self.path, self.message)


def _rebuilt(cls: type[LogFormatError], code: str, path: str, message: str) -> LogFormatError:
    exc = cls.__new__(cls)
    LogFormatError.__init__(exc, code, path, message)
    return exc


class InputProblem(LogFormatError):
    """Input the ``cruel`` commands read that holds no log at all, in the one wording of its
    problem (:func:`cruel_tools.errors.problem`; docs/cli.md, "Input problems"): a folder
    without logs, a binary file, JSON that is not a log, pretty JSON given as JSON Lines."""

    codes = ("empty-folder", "no-logs", "binary", "not-a-log", "pretty-json-as-jsonl")

    def __init__(self, code: str, wanted: str = LOG) -> None:
        super().__init__(code, "", problem(code, wanted=wanted).message)


# --- field types ------------------------------------------------------------------------------


# Cards stay strings in the model (checked by a pattern, which pydantic runs in Rust) and become
# ints where they are used: a Python validator per card would double the cost of a log.
CardText = Annotated[
    str, Field(pattern=CARD_PATTERN, description="rank then suit: 10H, TH, 4♦", examples=["10H"])
]
# 13 piles under a 13-pile profile (ripple-fan-pysolfc); under 12 piles the engine refuses pile 13
# (bad-pile), as the format cannot know the profile's piles.
PileNumber = Annotated[int, Field(ge=1, le=MAX_PILES, strict=True)]


MoveEntry = TypedDict(  # a TypedDict, not a model: logs hold thousands of moves, dicts are cheap
    "MoveEntry",
    {
        "type": Literal["move"],
        "from": PileNumber,
        "to": Literal["foundation"] | PileNumber,
        "card": NotRequired[CardText],
        "count": NotRequired[Annotated[int, Field(ge=1, le=12, strict=True)]],
    },
)
MoveEntry.__doc__ = (
    'A card move: "from" pile (1-13; 1-12 under most profiles), "to" "foundation" or a pile, '
    'optional "card" (the moving card; of a run, its deepest) and "count" (cards moved, '
    "default 1; runs under perseverance)."
)
MoveEntry = with_config(ConfigDict(extra="forbid", title="MoveEntry"))(MoveEntry)  # type: ignore[misc]


@with_config(ConfigDict(extra="forbid"))
class RedealEntry(TypedDict):
    """A redeal."""

    type: Literal["redeal"]


CompactEntry = Annotated[
    str,
    Field(
        pattern=COMPACT_PATTERN,
        description='Compact form: "3F" (pile 3 to foundation), "3-7" (pile 3 onto pile 7), '
        '"3-7x2" (a run of 2), "R" (redeal).',
    ),
]


# A plain smart union (str, or objects told apart by "type"), not a callable discriminator: the
# union is decided in Rust, which matters at thousands of moves per log.
LogEntry = Annotated[
    Annotated[MoveEntry | RedealEntry, Field(discriminator="type")] | CompactEntry,
    Field(union_mode="left_to_right"),  # objects are the common case: try them first
]


class Deal(BaseModel):
    """A deal by number, by piles (bottom to top), or both (then they must agree)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        json_schema_extra={
            "anyOf": [
                {"required": ["number"], "properties": {"number": {"type": "integer"}}},
                {"required": ["piles"], "properties": {"piles": {"type": "array"}}},
            ]
        },
    )

    number: Annotated[int, Field(ge=0, le=MAX_DEAL_NUMBER, strict=True)] | None = Field(
        None, description="A deal number (docs/deals.md)."
    )
    piles: list[list[CardText]] | None = Field(
        None,
        description=(
            "12 piles of 4 cards, each bottom to top: the 48 cards that are not aces (under "
            "another profile its piles: 13 of all 52, or 12 of the 48 that are not kings)."
        ),
    )

    @model_validator(mode="after")
    def _number_or_piles(self) -> Deal:
        if self.number is None and self.piles is None:
            raise ValueError('a deal needs "number" or "piles"')
        return self


def _most(part: str, key: str) -> int:
    """The spec's upper bound on ``key`` of ``part`` (a claim's moves, a move's count)."""
    return int(next(k["maximum"] for k in _SPEC[part] if k["name"] == key))


class Claim(BaseModel):
    """What the player says happened; the verifier checks every field that is present."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: Literal["won", "blocked", "in_progress"] | None = None
    foundation_cards: (
        Annotated[int, Field(ge=0, le=_most("claim", "foundation_cards"), strict=True)] | None
    ) = None
    moves: Annotated[int, Field(ge=0, le=_most("claim", "moves"), strict=True)] | None = None
    redeals: Annotated[int, Field(ge=0, le=_most("claim", "redeals"), strict=True)] | None = None


class GameLog(BaseModel):
    """A game of Cruel as a player's client records it."""

    model_config = document_config("Cruel game log v1", "game-log")

    format: Literal["cruel-log/1"] = Field(description="Format and version of this document.")
    rules: PresetName | Rules = Field(
        "cruel", description='A preset name, or {"preset": name, <overrides>}.'
    )
    deal: Deal
    moves: list[LogEntry] = Field(default_factory=list)

    @field_validator("moves", mode="wrap")
    @classmethod
    def _move_limit(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        # Checked before a single move is validated, so an absurd log costs no more than its size.
        limits = (info.context or {}).get("limits", _DEFAULT_LIMITS)
        if isinstance(value, list) and len(value) > limits.max_moves:
            raise PydanticCustomError(
                "too_many_moves",
                "{count} moves, over the limit of {limit}",
                {"count": len(value), "limit": limits.max_moves},
            )
        return handler(value)

    claim: Claim | None = None
    meta: dict[str, Any] | None = Field(None, description="Free-form: player, started_at, ...")

    _steps: list[Step] | None = PrivateAttr(None)

    def steps(self) -> list[Step]:
        """The moves as engine steps (decoded once, by :func:`decode`)."""
        if self._steps is None:
            steps = decode(self.moves)
            # The model accepted every entry, and decode accepts exactly what the model does.
            assert steps is not None, "decode refused an entry the model accepted"
            self._steps = steps
        return self._steps

    @field_validator("rules")
    @classmethod
    def _overrides_make_a_game(cls, rules: str | Rules) -> str | Rules:
        # The model checks an object of rules against the defaults of each field; the profile
        # played is the preset's, with the overrides on top, and that must make a game too
        # ({"preset": "ripple-fan-pysolfc", "foundation_base": "ace"} does not).
        if isinstance(rules, Rules):
            Rules.model_validate(_merged(rules))  # raises a ValidationError naming the problem
        return rules

    def resolved_rules(self) -> Rules:
        """The rules profile: a preset with the log's overrides applied."""
        if isinstance(self.rules, str):
            return PRESETS[self.rules]
        return Rules.model_validate(_merged(self.rules))


def _merged(rules: Rules) -> dict[str, Any]:
    """A rules object's preset with its overrides on top, as fields."""
    overrides = {k: getattr(rules, k) for k in rules.model_fields_set - {"preset"}}
    return {**PRESETS[rules.preset].model_dump(), **overrides}


# --- the one decoder of entries -------------------------------------------------------------


def _compact_table() -> dict[str, Step]:
    """Every string the compact pattern accepts, with the step it stands for (4,253 of them)."""
    table: dict[str, Step] = {"R": REDEAL, "r": REDEAL}
    for source in range(1, MAX_PILES + 1):
        for f in "Ff":
            table[f"{source}{f}"] = Move(source, None)
        for target in range(1, MAX_PILES + 1):
            table[f"{source}-{target}"] = Move(source, target)
            for count in range(1, NUM_PILES + 1):
                for x in "xX":
                    table[f"{source}-{target}{x}{count}"] = Move(source, target, count)
    return table


#: The compact moves (``"3F"``, ``"3-7"``, ``"3-7x2"``, ``"R"``), each with its step. A test
#: checks that these keys are exactly the strings :data:`COMPACT_PATTERN` accepts.
COMPACT_STEPS: Final[dict[str, Step]] = _compact_table()
_PILES: Final = frozenset(range(1, MAX_PILES + 1))
# A run is 1 to 12 cards (the model's bound on "count"), whatever the piles are numbered to.
_COUNTS: Final = frozenset(range(1, NUM_PILES + 1))
# Every single-card move, by (source, target, card): looking one up costs a fifth of building a
# Move (a NamedTuple's constructor is Python code), and a log has thousands of them.
_SINGLE: Final[dict[tuple[int, int | None, Card | None], Move]] = {
    (source, target, card): Move(source, target, 1, card)
    for source in _PILES
    for target in (None, *_PILES)
    for card in (None, *cards.DECK)
}


def decode(entries: list[Any]) -> list[Step] | None:
    """The steps that log entries stand for, or None when an entry is not one the model accepts.

    This is the only reader of entries: the model's :meth:`GameLog.steps` and the fast path of
    :func:`load` both go through it. It accepts exactly what :data:`LogEntry` accepts (a
    hypothesis test holds the two to that); on None, the caller lets pydantic say what is wrong.
    Plain type checks and table look-ups, no function calls per entry: a log has thousands.
    """
    steps: list[Step] = []
    append, compact, single = steps.append, COMPACT_STEPS.get, _SINGLE.get
    by_text, piles = cards.BY_TEXT, _PILES
    for entry in entries:
        if type(entry) is not dict:
            step = compact(entry) if type(entry) is str else None
            if step is None:
                return None
            append(step)
            continue
        kind = entry.get("type")
        if kind == "redeal" and len(entry) == 1:
            append(REDEAL)
            continue
        # A move: "type", "from", "to", and optionally "card" and "count"; nothing else.
        # `type(x) is int`, not isinstance: bools are ints to Python, not to the (strict) model.
        source, to, card = entry.get("from"), entry.get("to"), entry.get("card")
        if kind != "move" or type(source) is not int or source not in piles:
            return None
        if to == "foundation":
            to = None
        elif type(to) is not int or to not in piles:
            return None
        if card is not None:
            card = by_text.get(card) if type(card) is str else None
            if card is None:
                return None
        size = 3 if card is None else 4
        if len(entry) == size and "card" in entry or card is None and len(entry) == 3:
            append(single((source, to, card)))  # type: ignore[arg-type]  # always found
            continue
        count = entry.get("count")
        if type(count) is not int or count not in _COUNTS or len(entry) != size + 1:
            return None
        append(Move(source, to, count, card))
    return steps


def to_step(entry: Any) -> Step:
    """The step one log entry stands for; :class:`ValueError` when it is not an entry."""
    steps = decode([entry])
    if steps is None:
        raise ValueError(f"not a log entry: {entry!r}"[:80])
    return steps[0]


def parse_compact(text: str) -> Step:
    """``"3F"``, ``"3-7"``, ``"3-7x2"`` or ``"R"`` as an engine step."""
    step = COMPACT_STEPS.get(text)
    if step is None:
        raise ValueError(f"not a compact move: {text!r}")
    return step


def compact(step: Step) -> str:
    """The compact form of an engine step (the inverse of :func:`parse_compact`)."""
    if not isinstance(step, Move):
        return "R"
    if step.target is None:
        return f"{step.source}F"
    return f"{step.source}-{step.target}" + (f"x{step.count}" if step.count != 1 else "")


def step_entry(step: Step, card: Card | None = None) -> dict[str, Any]:
    """The object form of an engine step, as written into logs we produce."""
    if not isinstance(step, Move):
        return {"type": "redeal"}
    entry: dict[str, Any] = {
        "type": "move",
        "from": step.source,
        "to": "foundation" if step.target is None else step.target,
    }
    shown = step.card if step.card is not None else card
    if shown is not None:
        entry["card"] = cards.name(shown)
    if step.count != 1:
        entry["count"] = step.count
    return entry


# --- parsing ----------------------------------------------------------------------------------


# Keys of the v1 models, read from the models themselves: anything else in an error location is
# a union branch's label (such as "function-after[...]"), which a JSON pointer must not show.
_KEYS: Final = frozenset(
    key for model in (GameLog, Deal, Claim, Rules) for key in model.model_fields
).union(*(td.__required_keys__ | td.__optional_keys__ for td in (MoveEntry, RedealEntry)))
# Errors that only say "this union branch wanted another type": the least telling ones.
_TYPE_ERRORS = frozenset(
    {"string_type", "model_type", "model_attributes_type", "dict_type", "literal_error", "int_type"}
)


def _pointer(loc: tuple[int | str, ...], extra: bool = False) -> str:
    known = loc[:-1] if extra else loc
    parts = [str(p) for p in known if isinstance(p, int) or p in _KEYS]
    if extra:  # the unknown key itself ends the location, whatever it is called
        parts.append(str(loc[-1]))
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts) or "/"


def _keys(err: Any) -> list[int | str]:
    return [p for p in err["loc"] if isinstance(p, int) or p in _KEYS]


def _best(errors: list[Any]) -> Any:
    """The error to show: in the first part of the log that has any (a top-level key, or one
    move), the most specific one: deepest location first, then not a mere type mismatch.
    """

    def part(err: Any) -> list[int | str]:
        keys = _keys(err)
        return keys[:2] if keys[:1] == ["moves"] else keys[:1]

    first = part(errors[0])
    group = [e for e in errors if part(e) == first]
    return max(group, key=lambda e: (len(_keys(e)), e["type"] not in _TYPE_ERRORS))


def _short_repr(value: Any) -> str:
    if isinstance(value, (list, dict)):
        # Never repr a hostile container whole: it may be huge or nested past the recursion limit.
        return "an array" if isinstance(value, list) else "an object"
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge number"
    return text if len(text) <= 40 else text[:37] + "..."


# A compact move's shape with any numbers: "4-13" is refused for its pile, not its shape.
_COMPACT_SHAPE: Final = re.compile(r"(\d+)(?:[Ff]|-(\d+)(?:[xX](\d+))?)")
#: The words of a pile out of range: the spec's (game.py's refusal ``bad-pile``), not a copy.
_PILES_RULE: Final = next(e for e in SPEC.errors["move"] if e["code"] == "bad-pile")["words"][
    "errors.move.bad-pile"
].format(piles=MAX_PILES)
_RUN_RULE: Final = f"a run is 1 to {NUM_PILES} cards"


def _compact_message(value: Any, shown: str) -> str:
    shape = _COMPACT_SHAPE.fullmatch(value) if isinstance(value, str) else None
    if shape is not None:
        source, target, count = shape.groups()
        if not all(1 <= int(p) <= MAX_PILES for p in (source, target) if p is not None):
            return f"not a move: {shown}: {_PILES_RULE} (compact moves are like 3F, 3-7, 3-7x2)"
        if count is not None:
            return f"not a move: {shown}: {_RUN_RULE} (like 3-7x2)"
    return f"not a move: {shown} (compact moves are like 3F, 3-7, 3-7x2 or R)"


def _deal_message(value: Any, shown: str) -> str:
    """A deal that is not an object; a number (or digits) is most likely a deal number."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if type(value) is int and 0 <= value <= MAX_DEAL_NUMBER:
        return f'a deal is an object, not {shown}: write {{"number": {value}}} for deal {value}'
    return f'a deal is an object, not {shown}: {{"number": N}} or {{"piles": [...]}}'


def _message(err: Any) -> str:
    keys = _keys(err) or [""]
    kind, value = err["type"], err.get("input")
    shown = _short_repr(value)
    if kind == "string_pattern_mismatch" and (keys[-1] == "card" or "piles" in keys):
        return f"not a card: {shown} (write rank then suit, like 10H, TH or 4♦)"
    if kind == "string_pattern_mismatch" and keys[0] == "moves":
        return _compact_message(value, shown)
    if keys == ["deal"] and kind in _TYPE_ERRORS:
        return _deal_message(value, shown)
    bound = kind in ("less_than_equal", "greater_than_equal")
    if bound and keys[0] == "moves" and keys[-1] in ("from", "to"):
        return f"no pile {shown}: {_PILES_RULE}"
    if bound and keys[0] == "moves" and keys[-1] == "count":
        return f"count {shown}: {_RUN_RULE}"
    if kind == "extra_forbidden":
        return f"unknown key {err['loc'][-1]!r} (only meta may hold free-form keys)"
    if kind == "missing":
        return f"required key {keys[-1]!r} is missing"
    if kind == "union_tag_invalid":
        return f'unknown move type {err["ctx"]["tag"]!r} (use "move" or "redeal")'
    if kind == "union_tag_not_found":
        return 'a move object needs "type": "move" or "redeal"'
    if len(keys) == 2 and keys[0] == "moves" and kind in _TYPE_ERRORS:
        return f'not a move: {shown} (use an object with "type", or a string like 3F, 3-7, R)'
    return str(err["msg"]).removeprefix("Value error, ").replace("\n", " ")


def _first_error(exc: ValidationError) -> LogFormatError:
    err = _best(exc.errors(include_url=False))
    if err["type"] == "json_invalid":
        return LogFormatError(
            "not-json", "", problem("not-json", detail=err["ctx"]["error"]).message
        )
    if err["type"] == "too_many_moves":
        return LogFormatError("too-many-moves", "/moves", str(err["msg"]))
    if err["type"] == "model_type" and not err["loc"]:
        return LogFormatError("schema", "/", "a log is a JSON object")
    path = _pointer(err["loc"], extra=err["type"] == "extra_forbidden")
    return LogFormatError("schema", path, _message(err))


def load(data: bytes | str, limits: Limits = _DEFAULT_LIMITS) -> GameLog:
    """Parse one log from JSON text; raise :class:`LogFormatError` for anything that is not one.

    Two paths, one definition of the format. The fast path (:func:`_read_fast`: orjson, then
    plain checks and :func:`decode`) takes the common case and builds the model without
    validating it again; it accepts only what the model accepts, and gives up on anything else.
    Then pydantic parses and validates the text, and either accepts it after all or names
    the first problem. Both paths are bounded by the size limit checked first.

    :raises LogFormatError: the text is too large, not JSON, or not a v1 log.
    """
    if len(data) > limits.max_bytes:
        raise LogFormatError(
            "too-large", "", f"log is {len(data)} bytes, over the limit of {limits.max_bytes}"
        )
    data = strip_bom(data)
    fast = _read_fast(data, limits)
    if fast is not None:
        return fast
    refuse_duplicates(data)
    try:
        return GameLog.model_validate_json(data, context={"limits": limits})
    except ValidationError as exc:
        raise _first_error(exc) from None


def load_input(data: bytes | str, limits: Limits = _DEFAULT_LIMITS) -> GameLog:
    """:func:`load` for a log the ``cruel`` commands read from a file or standard input: input
    that is no log at all is an :class:`InputProblem`, ``binary`` (not UTF-8) rather than
    ``not-json``, ``not-a-log`` (not an object with ``format``) rather than ``schema``. The
    service keeps :func:`load`'s codes, its API's."""
    try:
        return load(data, limits)
    except LogFormatError as exc:
        raise as_input_problem(exc, data) from None


def as_input_problem(exc: LogFormatError, data: bytes | str) -> LogFormatError:
    """``exc``, :func:`load`'s refusal of ``data``, as the input problem it is, if it is one."""
    if exc.code == "not-json" and isinstance(data, bytes):
        try:
            data.decode()
        except UnicodeDecodeError:
            return InputProblem("binary")
    if exc.code == "schema":
        try:
            obj = orjson.loads(strip_bom(data))
        except orjson.JSONDecodeError:  # what pydantic read and orjson does not: not ours to say
            return exc
        if type(obj) is not dict or "format" not in obj:
            return InputProblem("not-a-log")
    return exc


def refuse_duplicates(data: bytes | str) -> None:
    """Raise :class:`LogFormatError` ``duplicate-key``, at the second of the two members, when
    an object in the JSON text ``data`` gives a key twice (:mod:`cruel_tools.game.duplicates`): the
    one check of every document read from outside. Text that is not JSON passes: its reader
    says so."""
    found = duplicates.find(data)
    if found is not None:
        at, key = found
        path = duplicates.pointer(at, key)
        raise LogFormatError(duplicates.DUPLICATE_KEY, path, duplicates.message(key))


def strip_bom(data: bytes | str) -> bytes | str:
    """``data`` without a leading byte order mark (:data:`BOM`), if it has one."""
    if isinstance(data, bytes):
        return data[3:] if data[:3] == BOM else data
    return data[1:] if data[:1] == "\ufeff" else data


#: The log's top-level keys, as the spec states them (GameLog's fields: a test holds them equal).
_TOP_KEYS: Final = frozenset(key["name"] for key in _SPEC["keys"])
#: The keys :func:`_read_fast` reads and hands to ``model_construct``: a log with any other key
#: (a field new to the spec, before this path learns it) takes the validating path, so the fast
#: path never gives a new field its default unread.
_FAST_KEYS: Final = frozenset({"format", "rules", "deal", "moves", "claim", "meta"}) & _TOP_KEYS
# Scalars that orjson and pydantic read alike. Not floats: orjson reads an integer too large
# for 64 bits as a float where pydantic keeps an int; not containers: pydantic refuses nesting
# that orjson allows. A meta value of another type sends the log down the validating path.
_PLAIN_META: Final = frozenset({str, int, bool, type(None)})


def _read_fast(data: bytes | str, limits: Limits) -> GameLog | None:
    """The log, if it is one in the common shape (a preset by name, plain meta); else None.

    Every check here is one the model makes too, so whatever this accepts the model accepts;
    whatever it does not recognise, it leaves to the model (a hypothesis test drives both).
    """
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if type(obj) is not dict or not _FAST_KEYS.issuperset(obj):
        return None
    rules, deal, moves = obj.get("rules", "cruel"), obj.get("deal"), obj.get("moves", [])
    claim, meta = obj.get("claim"), obj.get("meta")
    if (
        obj.get("format") != FORMAT
        or type(rules) is not str
        or rules not in PRESETS
        or type(moves) is not list
        or len(moves) > limits.max_moves
    ):
        return None
    deal_model = _fast_deal(deal)
    if deal_model is None:
        return None
    claim_model = None
    if claim is not None:
        claim_model = _fast_claim(claim)
        if claim_model is None:
            return None
    if meta is not None and (
        type(meta) is not dict or not _PLAIN_META.issuperset(map(type, meta.values()))
    ):
        return None
    steps = decode(moves)
    if steps is None:
        return None
    if not _surely_unique(data, obj, deal, claim, meta, moves):
        refuse_duplicates(data)  # a key given twice: duplicate-key, whatever the rest says
    log = GameLog.model_construct(
        format=FORMAT,
        rules=rules,  # checked: one of PRESETS
        deal=deal_model,
        moves=moves,
        claim=claim_model,
        meta=meta,
    )
    log._steps = steps
    return log


def _surely_unique(
    data: bytes | str, obj: dict[str, Any], deal: Any, claim: Any, meta: Any, moves: list[Any]
) -> bool:
    """:func:`duplicates.surely_unique` for a log the fast path has read: its objects' members
    counted without walking the whole tree. Every string in it but meta's is one the checks
    above allow (cards, moves, names of presets and outcomes), none with a colon."""
    colons = duplicates.colons(data)
    if colons is None:  # an escape may hide a colon
        return False
    members = len(obj) + len(deal) + (len(claim) if type(claim) is dict else 0)
    members += sum([len(entry) for entry in moves if type(entry) is dict])
    if meta:
        members += duplicates.count_members(meta)
    return colons == members


def _fast_deal(deal: Any) -> Deal | None:
    # The deal and the claim are small: the model itself checks them (in Python mode, from
    # orjson's objects, which costs less than the same checks written out here would).
    try:
        return Deal.model_validate(deal)
    except ValidationError:
        return None


def _fast_claim(claim: Any) -> Claim | None:
    try:
        return Claim.model_validate(claim)
    except ValidationError:
        return None


def from_object(obj: Any, limits: Limits = _DEFAULT_LIMITS) -> GameLog:
    """Validate an already-decoded log object (a dict) against the v1 model and the limits."""
    if not isinstance(obj, dict):
        raise LogFormatError("schema", "/", "a log is a JSON object")
    try:
        return GameLog.model_validate(obj, context={"limits": limits})
    except ValidationError as exc:
        raise _first_error(exc) from None
