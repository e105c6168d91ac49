"""Issue #33, finding 10: ``cruel verify`` printed file names raw, so a file named
``x\\nfake.json`` forged a ``fake.json: valid: won`` line (both engines), and an escape sequence
in a name or in a log's meta reached the terminal as it was.

Every text command is run in-process (Typer's CliRunner) under both engines on files whose names
hold ``\\n``, ``\\r`` and escape sequences (``\\x1b[2J``, ``\\x1b]0;title\\x07``), with the same
in the log's meta (the player's name): no line of stdout or stderr holds a control character,
and none is forged. JSON outputs escape by themselves and are left as they were."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.game.deals import deal_piles
from cruel_tools.terminal import STYLES, UNSAFE, terminal_safe

runner = CliRunner()

EVIL = ["x\nfake.json", "x\rfake.json", "a\x1b[2Jb.json", "t\x1b]0;title\x07.json"]
PLAYER = "eve\n\x1b[2J\x1b]0;pwned\x07\u202e"


@pytest.fixture(params=["native", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("CRUEL_ENGINE", request.param)
    yield request.param


def _log(folder: Path, name: str) -> Path:
    path = folder / name
    doc = {
        "format": "cruel-log/1",
        "deal": {"number": 12},
        "meta": {"player": PLAYER, "started_at": "2027-01-05T09:00:00Z"},
        "moves": [],
    }
    path.write_bytes(orjson.dumps(doc))
    return path


def _safe(text: str) -> list[str]:
    """The lines of ``text``: none holds a control character (but the renderer's own colours,
    with --color always), none is forged."""
    lines = text.split("\n")
    for line in lines:
        plain = line
        for style in STYLES:
            plain = plain.replace(style, "")
        assert not UNSAFE.search(plain), repr(line)
        assert not line.startswith(("fake.json", "b.json", "title")), repr(line)
    return lines


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result
    _safe(result.stdout)
    _safe(result.stderr)
    return result.stdout + result.stderr


@pytest.mark.parametrize("name", EVIL)
def test_verify_escapes_file_names(tmp_path: Path, name: str, engine: str) -> None:
    path = _log(tmp_path, name)
    out = _run("verify", str(path))
    assert f"{terminal_safe(str(path))}: valid:" in out


@pytest.mark.parametrize("name", EVIL)
def test_errors_escape_file_names(tmp_path: Path, name: str, engine: str) -> None:
    missing = str(tmp_path / name)  # never written
    for command in (["verify"], ["replay"], ["solve"], ["analyze"], ["hint"], ["show"]):
        out = _run(*command, missing)
        assert terminal_safe(missing) in out, (command, out)
    bad = tmp_path / name
    bad.write_bytes(b"{not json")
    for command in (["verify"], ["replay"], ["stats"], ["solve"], ["analyze"], ["hint"]):
        _run(*command, str(bad))


@pytest.mark.parametrize("name", EVIL)
def test_every_text_command_escapes_names_and_meta(tmp_path: Path, name: str, engine: str) -> None:
    path = str(_log(tmp_path, name))
    replay = _run("replay", path)
    assert terminal_safe(PLAYER) in replay  # the header names the player, escaped
    _run("replay", "--color", "always", path)
    _run("replay", path, path)  # ==> name <== headers
    _run("stats", path)
    _run("stats", "--player", PLAYER, path)
    _run("solve", path, "--max-states", "50")
    _run("hint", path, "--max-states", "50")
    _run("analyze", path, "--max-states", "50")
    deal = tmp_path / (name + ".deal")
    deal.write_bytes(orjson.dumps({"piles": [[str(c) for c in p] for p in deal_piles(12)]}))
    _run("show", str(deal))
    _run("show", "--color", "always", str(deal))
    _run("grade", str(deal), "--max-states", "50")


def test_keys_refuse_names_with_control_characters(tmp_path: Path) -> None:
    # A key's name must be printable (so keys list prints none): the refusal is one safe line.
    db = str(tmp_path / "cruel.sqlite")
    name = "evil\x1b[2J\nsite"
    out = _run("keys", "add", "--role", "site", "--name", name, "--db", db, "--create")
    assert "printable" in out


def test_terminal_safe() -> None:
    assert terminal_safe("x\nfake.json") == "x\\nfake.json"
    assert terminal_safe("\x1b[2J\x1b]0;t\x07") == "\\x1b[2J\\x1b]0;t\\x07"
    assert (
        terminal_safe("\u202e\u2066\u2028\x85\x7f\r\t") == "\\u202e\\u2066\\u2028\\x85\\x7f\\r\\t"
    )
    assert terminal_safe("a\\nb ♠ é") == "a\\nb ♠ é"  # idempotent: a backslash stays
    assert terminal_safe("\x1b[31m7♥\x1b[0m\x1b[2J", styled=True) == "\x1b[31m7♥\x1b[0m\\x1b[2J"
