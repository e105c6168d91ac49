"""``cruel replay --analyze`` (issue #16): the losing step, an undecided interval and the steps
that cost actions, marked in the text and JSON replays; the options it refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from cruel_tools.advice.analysis import DEEP_STATES, Analysis, analyze
from cruel_tools.cli.app import app
from cruel_tools.game import log
from cruel_tools.game.render import ReplayDocument, visible_width

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = orjson.loads((ROOT / "schemas" / "replay.schema.json").read_bytes())
runner = CliRunner()

#: Deal 3, lost at step 6 (docs/analysis.md's example): Q♥ onto K♥ instead still wins.
LOST = {
    "format": "cruel-log/1",
    "rules": "cruel",
    "deal": {"number": 3},
    "moves": ["5-11", "5-7", "R", "3-11", "R", "9-7", "6-3", "R", "5-10", "R"],
}


@pytest.fixture
def lost(tmp_path: Path) -> Path:
    path = tmp_path / "lost.json"
    path.write_bytes(orjson.dumps(LOST))
    return path


def _replay(*args: str) -> Any:
    result = runner.invoke(app, ["replay", *args])
    return result


def test_the_losing_step_is_marked_under_its_line(lost: Path) -> None:
    result = _replay(str(lost), "--analyze", "--moves-only")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = lines.index("6. 9♠ pile 9 → pile 7, onto 10♠")
    assert lines[at + 1].startswith("   !! the losing step: a win was possible before it, none")
    assert lines[at + 3] == "   !! steps here that still win: Q♥ pile 6 → pile 3, onto K♥"
    assert lines[at + 4] == "7. Q♥ pile 6 → pile 3, onto K♥"
    assert sum("!!" in line for line in lines) == 3  # the mark's two lines and the summary
    assert lines[-2].startswith("Analysis: the win was lost at step 6 (!!); a win from before")
    assert all(visible_width(line) <= 80 for line in lines)


def test_marks_follow_the_window_and_the_layout(lost: Path) -> None:
    shown = _replay(str(lost), "--analyze", "--from", "7", "--ascii", "--layout", "grid")
    assert shown.exit_code == 0, shown.output
    assert "!! the losing step" not in shown.stdout  # step 6 is not shown
    assert "Analysis: the win was lost at step 6 (!!)" in shown.stdout  # the summary always is
    full = _replay(str(lost), "--analyze", "--ascii")
    assert "   !! steps here that still win: QH pile 6 -> pile 3, onto KH" in full.stdout
    assert all(visible_width(line) <= 80 for line in full.stdout.splitlines())


def test_json_marks_the_step_and_carries_the_analysis(lost: Path) -> None:
    result = _replay(str(lost), "--analyze", "--json")
    assert result.exit_code == 0, result.output
    doc = orjson.loads(result.stdout)
    assert doc["format"] == "cruel-replay/1"
    marked = {s["step"]: s["mark"] for s in doc["steps"] if "mark" in s}
    assert list(marked) == [6]
    assert marked[6]["kind"] == "losing-step"
    assert marked[6]["still_winning"] == [{"type": "move", "from": 6, "to": 3, "card": "QH"}]
    expected = analyze(log.from_object(LOST), deep=True, deep_states=DEEP_STATES)
    assert Analysis.model_validate(doc["analysis"]) == expected
    Draft202012Validator(SCHEMA).validate(doc)  # cruel-replay/1, with its optional fields
    assert ReplayDocument.model_validate(doc).steps[5].mark is not None


def test_without_analyze_the_json_is_as_before(lost: Path) -> None:
    doc = orjson.loads(_replay(str(lost), "--json").stdout)
    assert "analysis" not in doc
    assert all("mark" not in s for s in doc["steps"])
    assert list(doc) == [
        "format",
        "source",
        "deal_number",
        "rules",
        "steps",
        "outcome",
        "foundation_cards",
        "moves",
        "redeals",
        "final",
        "error",
    ]


def test_an_undecided_interval_is_marked_step_by_step_never_a_guess(lost: Path) -> None:
    # One position per solve decides nothing but the blocked end: the deal or any step.
    text = _replay(str(lost), "--analyze", "--moves-only", "--max-states", "1")
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert "!!" not in text.stdout
    assert lines[1].startswith("   ?? the win was lost by the deal itself or one of steps 1 to 10 ")
    first = lines.index("1. 10♦ pile 5 → pile 11, onto J♦")
    assert lines[first + 1].startswith("   ?? from here to step 10: the win was lost by")
    last = lines.index("10. Redeal (4th)")
    assert lines[last + 1].startswith("   ?? from step 1 to here: the win was lost by")
    assert "Analysis: undecided: the win was lost between the deal and step 10 (??)" in lines
    doc = orjson.loads(_replay(str(lost), "--analyze", "--json", "--max-states", "1").stdout)
    kinds = [s["mark"]["kind"] if "mark" in s else None for s in doc["steps"]]
    assert kinds == ["may-be-losing-step"] * 10
    assert doc["analysis"]["loss"]["status"] == "undecided"
    assert doc["analysis"]["max_states"] == 1
    Draft202012Validator(SCHEMA).validate(doc)


def test_a_win_marks_the_steps_that_cost_actions(tmp_path: Path) -> None:
    # samples/won.json: 69 actions, 13 over the optimum; a small budget keeps the test fast.
    doc = orjson.loads((ROOT / "samples" / "won.json").read_bytes())
    path = tmp_path / "won.json"
    path.write_bytes(orjson.dumps(doc))
    result = _replay(str(path), "--analyze", "--moves-only", "--max-states", "300", "--json")
    assert result.exit_code == 0, result.output
    out = orjson.loads(result.stdout)
    expected = analyze(log.from_object(doc), max_states=300, deep=True, deep_states=300)
    assert expected.win is not None and expected.win.costly_steps
    assert Analysis.model_validate(out["analysis"]) == expected
    marked = {s["step"]: s["mark"] for s in out["steps"] if "mark" in s}
    assert marked == {
        c.step.number: {
            "kind": "costly",
            "text": marked[c.step.number]["text"],
            "cost": c.cost,
            "exact": c.exact,
        }
        for c in expected.win.costly_steps
    }
    text = _replay(str(path), "--analyze", "--moves-only", "--max-states", "300")
    lines = text.stdout.splitlines()
    for c in expected.win.costly_steps:
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{c.step.number}. "))
        assert lines[at + 1].startswith("   ++ this step cost ")
    assert lines[-1].startswith(f"Analysis: {len(expected.win.costly_steps)} step")
    assert (
        lines[-1].endswith("undecided in the budget") and "proven to cost actions (++)" in lines[-1]
    )


def test_an_illegal_log_is_replayed_to_its_error_without_analysis() -> None:
    illegal = str(ROOT / "samples" / "illegal.json")
    text = _replay(illegal, "--analyze", "--moves-only")
    assert text.exit_code == 1
    assert "[wrong-rank]" in text.stdout
    assert text.stdout.splitlines()[-1] == (
        "Analysis: none, the log is not a legal game (see the error above)"
    )
    doc = orjson.loads(_replay(illegal, "--analyze", "--json").stdout)
    assert doc["analysis"] is None and doc["error"]["code"] == "wrong-rank"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--analyze", "--final"],
            "error: --analyze and --final conflict: --analyze marks steps, --final shows none; "
            "give one of them\n",
        ),
        (
            ["--max-states", "10"],
            "error: --max-states goes with --analyze only: it is the budget of its solves\n",
        ),
    ],
)
def test_options_that_make_no_sense_together_are_one_usage_line(
    lost: Path, args: list[str], message: str
) -> None:
    result = _replay(str(lost), *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == message
