"""Text made safe for a terminal: the one escaping of what the CLI prints as text (issue #33).

A file name or a log's text (meta, player names, puzzle ids) may hold control characters: a
file named ``x\\nfake.json`` printed raw by ``cruel verify`` forged a ``fake.json: valid: won``
line, and an escape sequence (``\\x1b[2J``, ``\\x1b]0;title\\x07``) would clear the screen or
retitle the window. :func:`terminal_safe` writes each such character as a visible escape, so
every line the CLI prints as text is one line, and shows what it holds. JSON outputs need none
of this: JSON escapes them itself.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["terminal_safe", "UNSAFE", "STYLES"]

#: C0 controls (tab and newline too), DEL, C1 controls, the Unicode line and paragraph
#: separators, and the bidirectional embeddings, overrides and isolates (which reorder what a
#: terminal shows after them).
UNSAFE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

#: The escape sequences the CLI's own renderer writes for colour (render.py: red, reset),
#: kept when the caller says the text was styled by it.
STYLES: Final = ("\x1b[31m", "\x1b[0m")

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str, styled: bool = False) -> str:
    """``text`` with every character of :data:`UNSAFE` written as an escape (``\\n``,
    ``\\x1b``, ``\\u202e``). Idempotent: a backslash stays as it is. ``styled``: ``text`` came
    from the CLI's renderer with colour on, so its own :data:`STYLES` stay (the log's text in it
    was made safe before it was styled)."""
    if not UNSAFE.search(text):
        return text
    if not styled:
        return UNSAFE.sub(lambda m: _escape(m.group()), text)
    parts = re.split("(" + "|".join(re.escape(s) for s in STYLES) + ")", text)
    return "".join(p if p in STYLES else terminal_safe(p) for p in parts)
