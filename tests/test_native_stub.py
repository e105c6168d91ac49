"""The native core's type stub, ``cruel_tools/_native.pyi``, is generated, never kept by hand.

pybind11-stubgen (pinned in the test extra) reads the built module: each bound struct with its
named fields and their docs, each function with its ``py::arg`` names. :func:`generate` turns
that into the committed stub; the test below fails when the two differ. After changing the
bindings, rebuild the core and write the stub again::

    flock /tmp/native-build.lock .venv/bin/python setup.py build_ext --inplace -q
    .venv/bin/python tests/test_native_stub.py

Nothing crosses the boundary as a positional tuple (issue #35): each value is a named struct
(``NativeRules``, ``CoreStep``, ``SearchResult``, ``Played``, ...), so two swapped fields no
longer type-check.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from cruel_tools.game import engine
from cruel_tools.game.rules import PRESETS

ROOT = Path(__file__).resolve().parent.parent
STUB = ROOT / "cruel_tools" / "_native.pyi"

HEADER = (
    '"""Type stub of the native core (cruel_tools/native/, C++17 via pybind11), GENERATED from the\n'
    "built module by tests/test_native_stub.py (pybind11-stubgen): do not edit; rebuild the core\n"
    'and run `python tests/test_native_stub.py`. See cruel_tools/game/engine.py."""\n'
)

#: pybind11 3 spells what a parameter accepts (``typing.SupportsInt | typing.SupportsIndex``,
#: ``collections.abc.Sequence[...]``); pybind11 2 and the callers say ``int`` and ``list``. The
#: stub says the plain types, the same under either (and stricter: what the callers pass).
PLAIN = (
    ("typing.SupportsInt | typing.SupportsIndex", "int"),
    ("typing.SupportsFloat | typing.SupportsIndex", "float"),
    ("collections.abc.Sequence[", "list["),
)


def generate() -> str:
    """The stub pybind11-stubgen makes of the built core, in plain types, formatted by ruff."""
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [sys.executable, "-m", "pybind11_stubgen", "--exit-code", "-o", out]
            + ["cruel_tools._native"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        text = (Path(out) / "cruel_tools" / "_native.pyi").read_text()
    for old, new in PLAIN:
        text = text.replace(old, new)
    # Our header instead of the module's docstring (the first three lines).
    body = text.split('"""\n', 2)[2]
    if "collections.abc." not in body:
        body = body.replace("import collections.abc\n", "")
    fixed = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--fix-only", "--stdin-filename", str(STUB), "-"],
        input=HEADER + body,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    formatted = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(STUB), "-"],
        input=fixed,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return "".join(_wrapped(line) for line in formatted.splitlines(keepends=True))


def _wrapped(line: str) -> str:
    """A docstring's line (pybind11-stubgen puts the docs on lines of their own) folded to the
    line length; code is ruff's."""
    text = line.strip()
    if len(line) <= 101 or text.startswith(("def ", "class ", "@", '"""')):
        return line
    indent = line[: len(line) - len(line.lstrip())]
    return textwrap.fill(text, 100, initial_indent=indent, subsequent_indent=indent) + "\n"


def _core_and_stubgen() -> None:
    if engine.native() is None:
        pytest.skip("the native core is not built")
    pytest.importorskip("pybind11_stubgen")


def test_the_stub_is_what_the_built_core_gives() -> None:
    _core_and_stubgen()
    assert STUB.read_text() == generate(), (
        "cruel_tools/_native.pyi differs from the built core: run `python tests/test_native_stub.py`"
    )


def test_no_positional_tuple_crosses_the_boundary() -> None:
    text = STUB.read_text()
    assert "tuple[" not in text and "Tuple[" not in text
    assert "typing.Any" not in text.replace("other: typing.Any", "")  # every value is typed


def test_the_rules_are_named_and_checked() -> None:
    if engine.native() is None:
        pytest.skip("the native core is not built")
    rules = engine.native_rules(PRESETS["royal-family-pysolfc"])
    assert (rules.top_down, rules.max_redeals, rules.when_stuck, rules.runs) == (
        True,
        1,
        False,
        False,
    )
    assert (rules.piles, rules.base, rules.build, rules.one_at_a_time) == (12, 1, 2, False)
    made = type(rules)(
        top_down=True,
        max_redeals=1,
        when_stuck=False,
        runs=False,
        piles=12,
        base=1,
        build=2,
        one_at_a_time=False,
    )
    assert made == rules and repr(made).startswith("NativeRules(top_down=True, max_redeals=1,")
    with pytest.raises(TypeError):  # keywords only: no order to get wrong
        type(rules)(True, 1, False, False, 12, 1, 2, False)  # type: ignore[misc]
    with pytest.raises(ValueError, match="not a profile"):  # runs only down in suit
        type(rules)(
            top_down=True,
            max_redeals=1,
            when_stuck=False,
            runs=True,
            piles=12,
            base=1,
            build=2,
            one_at_a_time=False,
        )


if __name__ == "__main__":
    STUB.write_text(generate())
    print(f"wrote {STUB.relative_to(ROOT)}")
