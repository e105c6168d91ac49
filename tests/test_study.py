"""``cruel study`` and cruel_tools.search.study (issue #38): the winnability study as a command.

Deals 1-40 at 3,000 positions a deal: a mix of the three verdicts in well under a second with the
native core. A budget in positions (the seconds left far out of reach) makes every verdict
deterministic, so two runs, however split between processes, give the same records but for the
solver's seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from cruel_tools import schemas
from cruel_tools.cli.app import app
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.rules import PRESETS
from cruel_tools.search import study
from cruel_tools.search.decide import decide

ROOT = Path(__file__).resolve().parent.parent
DEALS = range(1, 41)
BUDGET = study.StudyBudget(max_seconds=600, max_states=3000)
CLI_BUDGET = ["--max-states", "3000", "--max-seconds", "600"]
runner = CliRunner()


def same(record: study.StudyRecord) -> dict[str, Any]:
    """A record but for its seconds (the one thing two runs do not share)."""
    return record.model_dump(exclude={"seconds"})


def records_of(results: study.StudyResults) -> list[dict[str, Any]]:
    return sorted((same(r) for r in results.records), key=lambda r: (r["preset"], r["deal"]))


def counts_of(rep: study.StudyReport) -> list[dict[str, Any]]:
    """The report but for times."""
    timeless = {"median_seconds", "slowest_seconds", "slowest_deal"}
    return [p.model_dump(exclude=timeless) for p in rep.presets]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> study.StudyResults:
    """Deals 1-40 under cruel, in one uninterrupted run in this process."""
    path = tmp_path_factory.mktemp("study") / "whole.jsonl"
    return study.run_study(DEALS, ["cruel"], BUDGET, path)


# --- the interval ----------------------------------------------------------------------------------


def test_wilson_against_hand_computed_values() -> None:
    # Wilson's interval, z = 1.96: 0 of n has upper bound z²/(n + z²); n of n lower n/(n + z²).
    z2 = study.Z95**2
    assert study.wilson(0, 4) == (0.0, pytest.approx(z2 / (4 + z2)))  # 0.4899
    assert study.wilson(4, 4) == (pytest.approx(4 / (4 + z2)), 1.0)  # 0.5101
    assert study.wilson(0, 10)[1] == pytest.approx(0.2775, abs=5e-5)  # the textbook value
    # 2 of 4: centre 0.5, half-width 1.96 * sqrt(1/16 + z²/64) / (1 + z²/4) = 0.34996
    assert study.wilson(2, 4) == pytest.approx((0.15004, 0.84996), abs=5e-5)
    # 3 of 4: centre (0.75 + z²/8) / (1 + z²/4) = 0.62753, half 0.32689
    assert study.wilson(3, 4) == pytest.approx((0.30064, 0.95442), abs=5e-5)
    assert study.wilson(0, 0) == (0.0, 1.0)


def test_the_interval_counts_unknowns_as_lost_below_and_as_won_above() -> None:
    def record(deal: int, verdict: str) -> study.StudyRecord:
        won = verdict == "won"
        return study.StudyRecord(
            preset="cruel",
            deal=deal,
            verdict=verdict,  # type: ignore[arg-type]
            reason="",
            moves=50 if won else None,
            redeals=1 if won else None,
            solution=[] if won else None,
            positions=1,
            seconds=deal / 10,
            engine="python",
        )

    parameters = study.StudyParameters(
        first=1, last=4, presets=["cruel"], budget=BUDGET, solver="x"
    )
    verdicts = ["won", "won", "unwinnable", "unknown"]
    records = [record(d, v) for d, v in enumerate(verdicts, start=1)]
    rep = study.report(study.StudyResults(parameters, records, solved=4, wall_seconds=2.0))
    (p,) = rep.presets
    assert (p.deals, p.won, p.unwinnable, p.unknown) == (4, 2, 1, 1)
    assert p.winnability == 0.5 and p.decided == 0.75
    assert p.low == pytest.approx(0.15004, abs=5e-5)  # Wilson's lower bound of 2 of 4
    assert p.high == pytest.approx(0.95442, abs=5e-5)  # Wilson's upper bound of 3 of 4
    assert (p.median_seconds, p.slowest_seconds, p.slowest_deal) == (0.25, 0.4, 4)
    assert rep.throughput.deals_per_second == 2.0 and rep.complete


# --- a study's records ---------------------------------------------------------------------------


def test_the_report_counts_what_solving_each_deal_gives(whole: study.StudyResults) -> None:
    expected = {"won": 0, "unwinnable": 0, "unknown": 0}
    rules = PRESETS["cruel"]
    for deal in DEALS:
        result = decide(Game.from_deal(deal_piles(deal, rules), rules), max_states=3000)
        expected[result.verdict] += 1
    (p,) = study.report(whole).presets
    assert (p.won, p.unwinnable, p.unknown) == (
        expected["won"],
        expected["unwinnable"],
        expected["unknown"],
    )
    assert p.won and p.unwinnable and p.unknown  # the range shows all three
    assert p.deals == len(DEALS) == whole.solved
    assert p.winnability == expected["won"] / len(DEALS)


def test_every_win_in_the_file_replays_to_a_won_game(whole: study.StudyResults) -> None:
    from cruel_tools.game.log import parse_compact

    rules = PRESETS["cruel"]
    for r in whole.records:
        if r.verdict == "won":
            assert r.solution is not None
            game = Game.from_deal(deal_piles(r.deal, rules), rules)
            for step in r.solution:
                game.push(parse_compact(step))
            assert game.is_won() and len(r.solution) == (r.moves or 0) + (r.redeals or 0)


def test_two_jobs_give_the_same_records_as_one(whole: study.StudyResults, tmp_path: Path) -> None:
    two = study.run_study(DEALS, ["cruel"], BUDGET, tmp_path / "two.jsonl", jobs=2)
    assert records_of(two) == records_of(whole)


def test_the_file_is_a_header_then_a_record_per_line_each_in_its_schema(
    whole: study.StudyResults, tmp_path: Path
) -> None:
    path = tmp_path / "r.jsonl"
    study.run_study(range(1, 6), ["cruel", "ripple-fan"], BUDGET, path)
    lines = path.read_bytes().splitlines()
    header = Draft202012Validator(schemas.schema_of(study.StudyHeader))
    record = Draft202012Validator(schemas.schema_of(study.StudyRecord))
    header.validate(orjson.loads(lines[0]))
    assert orjson.loads(lines[0])["format"] == "cruel-study/1"
    assert len(lines) == 11
    for line in lines[1:]:
        record.validate(orjson.loads(line))


# --- resuming ------------------------------------------------------------------------------------


def test_a_file_cut_mid_line_resumes_to_the_same_records(
    whole: study.StudyResults, tmp_path: Path
) -> None:
    """A kill mid-write leaves a line without its end: dropped, the file made whole again, and
    the study goes on; no deal twice."""
    path = tmp_path / "cut.jsonl"
    study.run_study(DEALS, ["cruel"], BUDGET, path)
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    cut = sum(map(len, lines[:20])) + len(lines[20]) // 2  # header and 19 records, half a line
    path.write_bytes(data[:cut])
    again = study.run_study(DEALS, ["cruel"], BUDGET, path)
    assert again.solved == len(DEALS) - 19
    assert records_of(again) == records_of(whole)
    assert records_of(study.read_study(path)) == records_of(whole)
    assert len(path.read_bytes().splitlines()) == 1 + len(DEALS)  # no deal twice in the file
    assert counts_of(study.report(again)) == counts_of(study.report(whole))


def test_a_deal_found_twice_counts_once(whole: study.StudyResults, tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    study.run_study(range(1, 11), ["cruel"], BUDGET, path)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines, lines[3], lines[5]]))  # two records again
    read = study.read_study(path)
    assert len(read.records) == 10
    assert sorted(r.deal for r in read.records) == list(range(1, 11))
    again = study.run_study(range(1, 11), ["cruel"], BUDGET, path)
    assert again.solved == 0 and len(again.records) == 10
    (p,) = study.report(again).presets
    assert p.deals == 10


def test_a_header_cut_short_starts_the_file_afresh(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b'{"format":"cruel-st')
    done = study.run_study(range(1, 4), ["cruel"], BUDGET, path)
    assert done.solved == 3 and len(path.read_bytes().splitlines()) == 4


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"budget": study.StudyBudget(max_seconds=600, max_states=3001)}, "--max-states"),
        ({"budget": study.StudyBudget(max_seconds=5, max_states=3000)}, "--max-seconds 600 in"),
        ({"presets": ["cruel-when-stuck"]}, "presets"),
        ({"deals": range(1, 50)}, "deals"),
    ],
)
def test_a_resume_under_other_parameters_is_refused(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    path = tmp_path / "r.jsonl"
    study.run_study(range(1, 4), ["cruel"], BUDGET, path)
    before = path.read_bytes()
    asked = {"deals": range(1, 4), "presets": ["cruel"], "budget": BUDGET} | change
    with pytest.raises(study.StudyError) as info:
        study.run_study(asked["deals"], asked["presets"], asked["budget"], path)
    assert info.value.code == "study-mismatch" and named in str(info.value)
    assert path.read_bytes() == before


def test_another_solver_version_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.jsonl"
    study.run_study(range(1, 4), ["cruel"], BUDGET, path)
    monkeypatch.setattr(study, "solver_version", lambda: "cruel-tools 9.9, engine native")
    with pytest.raises(study.StudyError, match=r"solver .* in the file, cruel-tools 9.9"):
        study.run_study(range(1, 4), ["cruel"], BUDGET, path)


def test_the_command_refuses_another_study_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first = runner.invoke(app, ["study", "1-3", "--results", str(path), *CLI_BUDGET, "-q"])
    assert first.exit_code == 0, first.output
    other = runner.invoke(
        app, ["study", "1-3", "--results", str(path), *CLI_BUDGET[2:], "--max-states", "9"]
    )
    assert other.exit_code == 2
    assert other.stderr == (
        f"error: {path} holds another study (--max-states 3000 in the file, 9 asked): "
        "give another file\n"
    )
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n")
    refused = runner.invoke(app, ["study", "1-3", "--results", str(notes)])
    assert refused.exit_code == 2 and "not a cruel-study/1 header" in refused.stderr
    assert notes.read_text() == "shopping list\n"


# --- the command ---------------------------------------------------------------------------------


def test_the_command_reports_as_text_json_and_svg(
    whole: study.StudyResults, tmp_path: Path
) -> None:
    path, svg = tmp_path / "r.jsonl", tmp_path / "w.svg"
    args = ["study", "1-40", "--results", str(path), *CLI_BUDGET]
    text = runner.invoke(app, [*args, "--plot", str(svg)])
    assert text.exit_code == 0, text.output
    (p,) = study.report(whole).presets
    assert f"cruel: 40 deals: {p.won} won, {p.unwinnable} unwinnable, {p.unknown} unknown" in (
        text.stdout
    )
    assert text.stderr == f"wrote {svg}\n"  # no progress line: stderr is no terminal
    assert ET.fromstring(svg.read_text()).tag == "{http://www.w3.org/2000/svg}svg"
    shown = runner.invoke(app, [*args, "--json", "-q"])  # resumed: nothing left to solve
    doc = orjson.loads(shown.stdout)
    Draft202012Validator(schemas.schema_of(study.StudyReport)).validate(doc)
    assert doc["format"] == "cruel-study-report/1" and doc["complete"]
    assert doc["throughput"]["run_deals"] == 0 and shown.stderr == ""
    assert counts_of(study.StudyReport.model_validate(doc)) == counts_of(study.report(whole))


def test_progress_on_request(tmp_path: Path) -> None:
    args = ["study", "1-5", "--results", str(tmp_path / "r.jsonl"), *CLI_BUDGET, "--progress"]
    shown = runner.invoke(app, args)
    assert "\r\x1b[Kstudying [########################] 5/5 deals: " in shown.stderr
    assert " won, " in shown.stderr and "/s 0:00 spent, 0:00 left" in shown.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["40-1"], "DEALS: need 0 <= first <= last"),
        (["x"], "DEALS: 'x' is not a deal range"),
        (["1-3", "--rules", "klondike"], "--rules: "),
        (["1-3", "--max-seconds", "0"], "--max-seconds must be more than 0"),
        (["1-3", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1"], "not both"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, args: list[str], words: str) -> None:
    path = tmp_path / "r.jsonl"
    done = runner.invoke(app, ["study", *args, "--results", str(path)])
    assert done.exit_code == 2 and words in done.stderr
    assert len(done.stderr.splitlines()) == 1 and not path.exists()


def test_a_cluster_without_distributed_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    path = tmp_path / "r.jsonl"
    done = runner.invoke(
        app, ["study", "1-3", "--results", str(path), "--scheduler", "tcp://127.0.0.1:1"]
    )
    assert done.exit_code == 2
    assert done.stderr == (
        "error: a Dask cluster needs the distributed package: pip install 'cruel-tools[cluster]'\n"
    )
    assert not path.exists()


@pytest.mark.integration
def test_a_killed_study_resumes_to_the_report_of_an_uninterrupted_one(
    whole: study.StudyResults, tmp_path: Path
) -> None:
    """``cruel study`` killed (SIGKILL) after some verdicts are written, then run again, gives
    the records and the report of a study never stopped, with no deal twice. The killed run
    uses the Python engine (about 40 ms a deal), slow enough to be killed mid-way; its verdicts
    at a budget in positions are the native core's (docs/solver.md, "The native core")."""
    path = tmp_path / "killed.jsonl"
    command = [sys.executable, "-m", "cruel_tools.cli", "study", "1-40", "--results", str(path)]
    env = {**os.environ, "CRUEL_ENGINE": "python"}
    proc = subprocess.Popen([*command, *CLI_BUDGET], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not path.exists() or path.read_bytes().count(b"\n") < 11:  # header and 10 verdicts
        assert proc.poll() is None and time.monotonic() < deadline, "the study ended too soon"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = path.read_bytes().count(b"\n") - 1
    assert 10 <= written < len(DEALS)
    resumed = subprocess.run(
        [*command, *CLI_BUDGET, "--json"], env=env, capture_output=True, check=True
    )
    doc = orjson.loads(resumed.stdout)
    assert doc["throughput"]["run_deals"] == len(DEALS) - written
    assert counts_of(study.StudyReport.model_validate(doc)) == counts_of(study.report(whole))
    read = study.read_study(path)
    assert len(path.read_bytes().splitlines()) == 1 + len(DEALS)  # no deal twice
    engine_free = [{k: v for k, v in r.items() if k != "engine"} for r in records_of(read)]
    assert engine_free == [{k: v for k, v in r.items() if k != "engine"} for r in records_of(whole)]


@pytest.mark.integration
def test_a_local_cluster_gives_the_records_of_jobs(
    whole: study.StudyResults, tmp_path: Path
) -> None:
    """A Dask LocalCluster of two worker processes on this machine, reached by its address as
    a remote cluster would be (``--scheduler``), gives the records of ``--jobs``."""
    from distributed import LocalCluster

    path = tmp_path / "cluster.jsonl"
    with LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        args = ["study", "1-40", "--results", str(path), *CLI_BUDGET, "-q", "--json"]
        done = runner.invoke(app, [*args, "--scheduler", cluster.scheduler_address])
    assert done.exit_code == 0, done.output
    assert records_of(study.read_study(path)) == records_of(whole)
    doc = orjson.loads(done.stdout)
    assert counts_of(study.StudyReport.model_validate(doc)) == counts_of(study.report(whole))


def test_json_and_quiet_are_the_options_every_command_has() -> None:
    """docs/cli.md's table of --json and --quiet (tests/test_cli_conventions.py's wording)."""
    import re

    text = runner.invoke(app, ["study", "-h"], env={"COLUMNS": "200"}).stdout
    assert re.search(r"^  --json +Print the report as JSON\.$", text, re.M), text
    assert re.search(r"^  -q, --quiet +No progress, notes or summary on stderr", text, re.M)
