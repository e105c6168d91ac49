"""JSON objects that give a key twice: found before any reader decides which value counts.

RFC 8259 leaves an object whose names repeat to each parser: orjson and pydantic keep the last
value, others the first or refuse it. A document that two readers read differently (a proxy, a
log line, another client, this toolkit) is how parser-differential attacks work, so every
document the CLI and the service read from outside is refused with ``duplicate-key`` when any
object in it repeats a key (docs/log-format.md, Duplicate keys).

:func:`find` is the exact check: Python's ``json`` reader with a hook that sees each object's
keys before they become a dict. :func:`surely_unique` is the cheap one for a document already
parsed by orjson, used where every log goes by (``cruel verify``): when the colons of the text,
less those inside strings, are as many as the keys of the parsed objects, every ``"key":`` pair
of the text is in the tree and no key was given twice. When they differ (or the text has an
escape, which may hide a colon), :func:`find` decides.
"""

from __future__ import annotations

import json
from typing import Any, Final

import pydantic_core

__all__ = [
    "DUPLICATE_KEY",
    "find",
    "surely_unique",
    "colons",
    "count_members",
    "message",
    "pointer",
]

#: The error code of a document that gives a key twice in one object.
DUPLICATE_KEY: Final = "duplicate-key"
_SHOWN: Final = 40  # longest key quoted in a message (a key may be a megabyte long)


class _Repeated(Exception):
    """A key given twice: stops the first reading at once."""


class _Pairs(list[tuple[str, Any]]):
    """An object's members in their order, repeats kept (arrays stay plain lists)."""


def _no_repeat(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Repeated
    return found


def find(data: bytes | str) -> tuple[str, str] | None:
    """The first key given twice in one object, in reading order: (the JSON pointer of its
    object, the key). None when there is none, and when ``data`` is not JSON as pydantic reads
    it (its reader then says what is wrong: not being JSON comes first)."""
    try:
        json.loads(data, object_pairs_hook=_no_repeat)
        return None
    except _Repeated:
        pass
    except (ValueError, RecursionError):  # not JSON to this reader (JSONDecodeError, bad UTF-8)
        return None
    try:
        pydantic_core.from_json(data)  # the reader of every model: its limits, its refusals
    except ValueError:
        return None
    return _locate(json.loads(data, object_pairs_hook=_Pairs), "")


def _locate(node: Any, at: str) -> tuple[str, str] | None:
    # Depth is at most pydantic's nesting limit (200): from_json has read it.
    if type(node) is _Pairs:
        seen: set[str] = set()
        for key, value in node:
            if key in seen:
                return at, key
            seen.add(key)
            found = _locate(value, f"{at}/{_escape(key)}")
            if found is not None:
                return found
    elif type(node) is list:
        for i, value in enumerate(node):
            found = _locate(value, f"{at}/{i}")
            if found is not None:
                return found
    return None


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def pointer(at: str, key: str) -> str:
    """The JSON pointer of the repeated member: its object's pointer, then the key."""
    return f"{at}/{_escape(key)}"


def message(key: str) -> str:
    """Why a document with ``key`` twice in one object is refused, in players' words."""
    shown = key if len(key) <= _SHOWN else key[: _SHOWN - 3] + "..."
    return (
        f"key {shown!r} is given twice in one object: give each key once (JSON readers "
        "differ on which of the two values they keep)"
    )


def surely_unique(data: bytes | str, tree: Any) -> bool:
    """True when no object of ``data`` gives a key twice, known cheaply from ``tree``, the
    value orjson (or any reader keeping one member per key) made of ``data``. False means "not
    known": ask :func:`find`.

    Without a backslash in the text, every colon is either between a key and its value or
    inside a string (numbers and words have none; a UTF-8 byte of another character is never
    a colon), and a string in the tree holds exactly the colons it has in the text."""
    found = colons(data)
    return found is not None and found == count_members(tree)


def colons(data: bytes | str) -> int | None:
    """The colons of ``data``'s text; None when it has a backslash (an escape may hide one)."""
    if isinstance(data, bytes):
        return None if b"\\" in data else data.count(b":")
    return None if "\\" in data else data.count(":")


def count_members(tree: Any) -> int:
    """The members of every object in ``tree`` plus the colons in its strings (keys and values):
    the colons its text would have, if no key was given twice."""
    total = 0
    stack = [tree]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            total += len(node)
            for key, value in node.items():
                if ":" in key:
                    total += key.count(":")
                push(value)
        elif kind is list:
            extend(node)
        elif kind is str and ":" in node:
            total += node.count(":")
    return total
