"""Scripts served without their comment lines: the play page's budget is 80 KB on the wire
(issue #27), and the sources' comments, which say *why* for whoever reads the package, were a
third of it (cruel.js: 20.6 KB gzip-compressed, 12.4 KB without its comments).

Only whole lines go: a line that is a ``//`` comment, and a ``/* ... */`` block that starts a
line and ends one. Code is never rewritten, so a comment after code on its line stays. A line
inside a template literal (text between backticks) is text, not a comment, and stays: backticks
are counted on the lines kept. tests/test_served_scripts.py checks every served script against
its source under Node (the same exports, the same behaviour of cruel.js).
"""

from __future__ import annotations

__all__ = ["without_comment_lines"]


def without_comment_lines(source: str) -> str:
    """``source`` (JavaScript) less its whole-line comments, every other line as it was."""
    kept: list[str] = []
    in_template = False  # inside `...`: a line starting with // is text there
    in_block = False
    for line in source.split("\n"):
        text = line.strip()
        if in_block:
            in_block = not text.endswith("*/")
            if "*/" in text and not text.endswith("*/"):
                raise ValueError(f"code after a comment block's end: {line!r}")
            continue
        if not in_template:
            if text.startswith("//"):
                continue
            if text.startswith("/*"):
                if "*/" not in text:
                    in_block = True
                    continue
                if text.endswith("*/") and text.count("*/") == 1:
                    continue
        if line.count("`") % 2:
            in_template = not in_template
        kept.append(line)
    return "\n".join(kept)
