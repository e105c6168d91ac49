"""`cruel solve` end to end: verdicts, the score sheet, the JSON report, --out logs, exit codes.

Every solution the command prints or writes is checked independently: replayed through the
engine, or run through `cruel verify`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cruel_tools.cli.app import app
from cruel_tools.game import cards
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.log import to_step
from cruel_tools.game.rules import PRESETS

# The Python engine's paths too: .ci/run runs these again under CRUEL_ENGINE=python.
pytestmark = pytest.mark.fallback

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"

# Deals 1-12 that the default budget wins (deal 8 spends the whole budget, about 7 s, and ends
# unknown, so it is left out to keep this file fast).
WON_DEALS = (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12)

runner = CliRunner()


def run(*args: str) -> Result:
    result = runner.invoke(app, ["solve", *args])
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), result.exception
    return result


def report(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert len(lines) == 1, "--json prints exactly one JSON object"
    obj: dict[str, Any] = json.loads(lines[0])
    assert obj["format"] == "cruel-solve-report/1"
    return obj


def verify_json(path: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["verify", "--json", str(path)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    obj: dict[str, Any] = json.loads(result.stdout)
    return obj


def write_json(path: Path, obj: Any) -> Path:
    path.write_text(json.dumps(obj))
    return path


def one_line_error(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def sample(name: str) -> dict[str, Any]:
    obj: dict[str, Any] = json.loads((SAMPLES / name).read_text())
    return obj


def won_prefix_log(tmp_path: Path, n: int = 10, **extra: Any) -> tuple[Path, list[Any]]:
    """The first ``n`` steps of samples/won.json as a log of their own, with no claim."""
    obj = sample("won.json")
    obj.pop("claim", None)
    obj["moves"] = obj["moves"][:n]
    obj.update(extra)
    return write_json(tmp_path / "prefix.json", obj), obj["moves"]


# --- deal numbers ------------------------------------------------------------------------------


def test_won_deal_prints_verdict_and_score_sheet() -> None:
    result = run("3")
    assert result.exit_code == 0, result.output
    first, *sheet = result.stdout.splitlines()
    assert first.startswith("deal 3: won in ")
    assert "states expanded" in first and "unique" in first
    solution = report("3")["solution"]
    assert len(sheet) == len(solution["steps"])
    assert first.startswith(f"deal 3: won in {solution['moves']} moves and {solution['redeals']}")
    for number, line in enumerate(sheet, 1):
        assert line.startswith(f"{number}. "), line
    assert sheet[-1].endswith("→ foundation")
    redeals = [line for line in sheet if "Redeal" in line]
    assert redeals[0].endswith("Redeal (1st)")
    assert len(redeals) == solution["redeals"]


def test_json_report_counts_and_solution_replays_to_a_win() -> None:
    obj = report("3")
    assert obj["verdict"] == "won"
    assert obj["deal"]["number"] == 3
    assert obj["deal"]["piles"] == [[cards.name(c) for c in p] for p in deal_piles(3)]
    assert obj["rules"] == PRESETS["cruel"].model_dump()
    assert set(obj["stats"]) == {"expanded", "unique", "pruned", "seconds"}
    assert obj["stats"]["expanded"] > 0
    steps = obj["solution"]["steps"]
    assert obj["solution"]["moves"] == sum(e["type"] == "move" for e in steps)
    assert obj["solution"]["redeals"] == sum(e["type"] == "redeal" for e in steps)
    assert all("card" in e for e in steps if e["type"] == "move")
    game = Game.from_deal(deal_piles(3))
    for entry in steps:
        game.push(to_step(entry))  # each entry names its moving card: push checks it
    assert game.is_won()


def test_out_logs_of_won_deals_verify(tmp_path: Path) -> None:
    for number in WON_DEALS:
        out = tmp_path / f"deal-{number}.json"
        obj = report(str(number), "--out", str(out))
        assert obj["verdict"] == "won", (number, obj["reason"])
        checked = verify_json(out)
        assert checked["valid"] and checked["outcome"] == "won", checked
        assert checked["deal_number"] == number
        written = json.loads(out.read_text())
        assert written["claim"]["outcome"] == "won"
        assert written["claim"]["moves"] == checked["moves"] == obj["solution"]["moves"]
        assert written["claim"]["redeals"] == checked["redeals"] == obj["solution"]["redeals"]
        assert written["moves"] == obj["solution"]["steps"]


def test_rule_l_deal_is_unwinnable_and_out_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "never.json"
    result = run("18", "--out", str(out))
    assert result.exit_code == 0
    assert result.stdout.startswith("deal 18: unwinnable: ")
    assert "rule L" in result.stdout
    assert len(result.stdout.splitlines()) == 1
    assert not out.exists()
    assert str(out) in result.stderr and "not written" in result.stderr
    obj = report("18")
    assert obj["verdict"] == "unwinnable" and "rule L" in obj["reason"]
    assert obj["solution"] is None


def test_tiny_state_budget_is_unknown(tmp_path: Path) -> None:
    obj = report("2", "--max-states", "5")
    assert obj["verdict"] == "unknown"
    assert "5" in obj["reason"] and obj["stats"]["expanded"] == 5
    assert obj["solution"] is None
    out = tmp_path / "none.json"
    result = run("2", "--max-states", "5", "--out", str(out))
    assert result.exit_code == 0
    assert result.stdout.startswith("deal 2: unknown: state budget of 5 spent")
    assert not out.exists()


def test_tiny_time_budget_is_unknown() -> None:
    # Deal 48 needs tens of millions of positions: 1 ms decides nothing on either engine (the
    # native core wins deal 8 in under 1 ms).
    obj = report("48", "--max-seconds", "0.001")
    assert obj["verdict"] == "unknown" and "time budget" in obj["reason"]


# --- deal files ----------------------------------------------------------------------------------


def test_deal_files_by_number_and_by_piles(tmp_path: Path) -> None:
    by_number = write_json(tmp_path / "n.json", {"number": 3})
    piles = [[cards.name(c) for c in p] for p in deal_piles(3)]
    by_piles = write_json(tmp_path / "p.json", {"piles": piles})
    expected = report("3")["solution"]["steps"]
    assert report(str(by_number))["solution"]["steps"] == expected
    from_piles = report(str(by_piles))
    assert from_piles["deal"] == {"number": None, "piles": piles}
    assert from_piles["solution"]["steps"] == expected
    result = run(str(by_piles))
    assert result.stdout.startswith("deal given by its piles: won in ")
    out = tmp_path / "out.json"
    assert run(str(by_piles), "--out", str(out)).exit_code == 0
    assert verify_json(out)["outcome"] == "won"
    assert json.loads(out.read_text())["deal"] == {"piles": piles}


def test_bad_deal_file_exits_1(tmp_path: Path) -> None:
    piles = [[cards.name(c) for c in p] for p in deal_piles(3)]
    piles[0][0] = piles[1][0]  # a card twice
    result = run(str(write_json(tmp_path / "bad.json", {"piles": piles})))
    assert result.exit_code == 1
    assert "again in pile 2" in one_line_error(result)


# --- logs ------------------------------------------------------------------------------------------


def test_blocked_log_is_unwinnable() -> None:
    obj = report(str(SAMPLES / "blocked.json"))
    assert obj["verdict"] == "unwinnable"
    assert obj["prefix_steps"] == len(sample("blocked.json")["moves"])
    assert obj["deal"]["number"] == 2


def test_log_prefix_is_solved_from_its_final_position(tmp_path: Path) -> None:
    log, entries = won_prefix_log(tmp_path)
    result = run(str(log))
    assert result.exit_code == 0, result.output
    first, *sheet = result.stdout.splitlines()
    assert first.startswith("deal 1, after 10 logged steps: won in ")
    assert sheet[0].startswith("11. ")  # numbering goes on from the log's own steps

    obj = report(str(log))
    assert obj["verdict"] == "won" and obj["prefix_steps"] == 10
    game = Game.from_deal(deal_piles(1))
    for entry in entries + obj["solution"]["steps"]:
        game.push(to_step(entry))
    assert game.is_won()

    out = tmp_path / "complete.json"
    assert run(str(log), "--out", str(out)).exit_code == 0
    written = json.loads(out.read_text())
    assert written["moves"][:10] == entries
    assert len(written["moves"]) == 10 + len(obj["solution"]["steps"])
    checked = verify_json(out)
    assert checked["valid"] and checked["outcome"] == "won"
    assert written["claim"]["outcome"] == "won"


def test_log_rules_are_used_and_rules_option_must_agree(tmp_path: Path) -> None:
    log, _ = won_prefix_log(tmp_path, rules="cruel-limited-5")
    budget = ("--max-states", "300")
    assert report(str(log), *budget)["rules"] == PRESETS["cruel-limited-5"].model_dump()
    agreeing = report(str(log), *budget, "--rules", "cruel-limited-5")
    assert agreeing["rules"]["max_redeals"] == 5
    result = run(str(log), "--rules", "cruel")
    assert result.exit_code == 2
    assert "cruel-limited-5" in one_line_error(result)


def test_false_claim_warns_but_solves(tmp_path: Path) -> None:
    log, _ = won_prefix_log(tmp_path, claim={"outcome": "won"})
    result = run(str(log))
    assert result.exit_code == 0
    assert "won in" in result.stdout
    assert "warning" in result.stderr and "claim-mismatch" in result.stderr


def test_illegal_log_exits_1_in_the_verifiers_words(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = run(str(SAMPLES / "illegal.json"), "--out", str(out))
    assert result.exit_code == 1
    line = one_line_error(result)
    assert "move 11:" in line and "[wrong-rank]" in line
    assert result.stdout == ""
    assert not out.exists()


def test_log_with_a_bad_deal_exits_1(tmp_path: Path) -> None:
    obj = sample("won.json")
    obj["deal"] = {"number": 1, "piles": [[cards.name(c) for c in p] for p in deal_piles(2)]}
    result = run(str(write_json(tmp_path / "bad.json", obj)))
    assert result.exit_code == 1
    assert "bad-deal" in one_line_error(result)


# --- rules and options ---------------------------------------------------------------------------


def test_rules_preset_reaches_the_report() -> None:
    obj = report("3", "--rules", "perseverance", "--max-states", "300")
    assert obj["rules"]["run_moves"] is True
    assert obj["rules"] == PRESETS["perseverance"].model_dump()


@pytest.mark.parametrize(
    "args",
    [
        ("3", "--rules", "nope"),
        ("3", "--max-seconds", "0"),
        ("3", "--max-states", "0"),
        ("3", "--max-seconds", "-1"),
        ("99999999999",),
    ],
)
def test_bad_options_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert one_line_error(result).startswith("error: ")
    assert result.stdout == ""


# --- unreadable input ----------------------------------------------------------------------------


def test_unreadable_inputs_exit_2(tmp_path: Path) -> None:
    nope = tmp_path / "nope.json"
    nope.write_text("nope")
    cases = {
        str(nope): "unreadable: not JSON",
        str(tmp_path / "missing.json"): "No such file",
        str(tmp_path): "cannot read",
        str(write_json(tmp_path / "list.json", [1, 2])): "JSON, but not a deal or a game log",
        str(write_json(tmp_path / "v2.json", {"format": "cruel-log/2"})): "unreadable",
    }
    for path, words in cases.items():
        result = run(path)
        assert result.exit_code == 2, (path, result.output)
        assert words in one_line_error(result), path
        assert result.stdout == ""


def test_an_unreadable_log_is_refused_in_the_verifiers_words(tmp_path: Path) -> None:
    """solve and replay print the line cruel verify prints for the log (one wording)."""
    bad = write_json(tmp_path / "bad.json", {**sample("won.json"), "moves": ["R", "zz"]})
    verified = runner.invoke(app, ["verify", str(bad)])
    assert verified.exit_code == 2
    line = verified.stdout.strip()
    assert line.startswith(f"{bad}: unreadable: ") and line.endswith(" (at /moves/1) [schema]")
    for command in (["solve"], ["replay"]):
        result = runner.invoke(app, [*command, str(bad)])
        assert (result.exit_code, result.stdout) == (2, "")
        assert one_line_error(result) == line


def test_deal_from_stdin() -> None:
    result = runner.invoke(app, ["solve", "-", "--json"], input=json.dumps({"number": 3}))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deal"]["number"] == 3


def test_json_report_matches_its_schema() -> None:
    from jsonschema import Draft202012Validator

    from cruel_tools import schemas

    result = runner.invoke(app, ["solve", "3", "--json"])
    assert result.exit_code == 0
    validator = Draft202012Validator(schemas.schema_of(schemas.MODELS["solve-report.schema.json"]))
    report = json.loads(result.stdout)
    validator.validate(report)
    assert report["format"] == "cruel-solve-report/1"


# --- --optimal: the fewest actions ---------------------------------------------------------------


@pytest.mark.heavy
def test_optimal_proves_deal_1_and_its_win_replays_with_that_many_actions(tmp_path: Path) -> None:
    out = tmp_path / "best.json"
    result = run("1", "--optimal", "--json", "--out", str(out))
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    fewest = obj["fewest_actions"]
    assert fewest == {"verdict": "optimal", "actions": 56, "lower_bound": 56}
    solution = obj["solution"]
    assert solution["moves"] + solution["redeals"] == 56 == len(solution["steps"])
    game = Game.from_deal(deal_piles(1))
    for entry in solution["steps"]:
        game.push(to_step(entry))
    assert game.is_won()
    verified = verify_json(out)
    assert verified["outcome"] == "won" and verified["moves"] + verified["redeals"] == 56
    text = run("1", "--optimal").stdout.splitlines()[0]
    assert text.startswith("deal 1: optimal win in 56 actions (")
    assert "proven, no win takes fewer" in text


@pytest.mark.heavy
def test_optimal_within_a_small_budget_reports_its_bound_honestly() -> None:
    result = run("3209588634", "--optimal", "--max-states", "20000", "--json")
    assert result.exit_code == 0, result.output
    fewest = json.loads(result.stdout)["fewest_actions"]
    assert fewest["verdict"] == "best-found"
    # 57 is this deal's proven bound with a larger budget; a smaller one never proves more
    assert 48 <= fewest["lower_bound"] <= 57 < fewest["actions"]
    text = run("3209588634", "--optimal", "--max-states", "20000").stdout.splitlines()[0]
    assert f"best found {fewest['actions']} actions (" in text
    assert text.split(", optimum >= ")[1].startswith(f"{fewest['lower_bound']} (")


def test_optimal_on_a_rule_l_deal_is_unwinnable() -> None:
    result = run("18", "--optimal", "--json")
    obj = json.loads(result.stdout)
    assert obj["verdict"] == "unwinnable" and obj["solution"] is None
    assert obj["fewest_actions"]["verdict"] == "unwinnable"
    assert run("18", "--optimal").stdout.startswith("deal 18: unwinnable: ")
