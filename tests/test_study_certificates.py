"""Certificates in a study's results (issue #38): each unwinnable record carries its
certificate, made in the worker next to the solve, and ``cruel check-proof`` reads the results
file itself (its header and the records of other verdicts skipped)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from cruel_tools.cli.app import app
from cruel_tools.cli.proofs import EXIT_UNDECIDED
from cruel_tools.game import proofcheck
from cruel_tools.search import study

DEALS = range(1, 61)
BUDGET = study.StudyBudget(max_seconds=600, max_states=3000)
runner = CliRunner()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, study.StudyResults]:
    """Deals 1-60 under cruel in two worker processes."""
    path = tmp_path_factory.mktemp("study") / "results.jsonl"
    return path, study.run_study(DEALS, ["cruel"], BUDGET, path, jobs=2)


def test_every_unwinnable_record_carries_a_certificate_check_proof_verifies(
    results: tuple[Path, study.StudyResults],
) -> None:
    path, done = results
    lost = [r for r in done.records if r.verdict == "unwinnable"]
    assert len(lost) >= 5
    assert all(r.certificate is not None for r in lost)
    assert all(r.certificate is None for r in done.records if r.verdict != "unwinnable")
    for r in lost:
        assert r.certificate is not None and r.certificate.deal.number == r.deal
        assert r.certificate.rules == r.preset and r.certificate.steps == []
    checked = runner.invoke(app, ["check-proof", str(path)])
    assert checked.exit_code == 0, checked.stdout
    lines = checked.stdout.splitlines()
    assert len(lines) == len(lost) and all(": verified: " in line for line in lines)
    # the file as check-proof parses it: the unwinnable records' certificates, in file order
    found = proofcheck.parse_certificates(path.read_bytes())
    assert found == [r.certificate for r in done.records if r.verdict == "unwinnable"]


def test_a_file_written_before_certificates_resumes_and_its_records_say_so(
    results: tuple[Path, study.StudyResults], tmp_path: Path
) -> None:
    path, done = results
    old = tmp_path / "old.jsonl"
    header, *records = path.read_bytes().splitlines()
    # an older file: records without the field, and the last 20 deals not yet solved
    kept = [orjson.loads(line) for line in records if orjson.loads(line)["deal"] <= 40]
    for record in kept:
        record.pop("certificate")
    old.write_bytes(b"\n".join([header, *(orjson.dumps(r) for r in kept)]) + b"\n")
    again = study.run_study(DEALS, ["cruel"], BUDGET, old)
    assert again.solved == 20  # the header's parameters mean the same: the study goes on
    assert {r.deal for r in again.records} == set(DEALS)
    lost = [r for r in again.records if r.verdict == "unwinnable"]
    assert all((r.certificate is None) == (r.deal <= 40) for r in lost)
    assert study.report(again).presets[0].unwinnable == study.report(done).presets[0].unwinnable
    checked = runner.invoke(app, ["check-proof", str(old)])
    assert checked.exit_code == EXIT_UNDECIDED, checked.stdout
    missing = [line for line in checked.stdout.splitlines() if ": missing: " in line]
    assert len(missing) == sum(r.deal <= 40 for r in lost)
    assert "unwinnable, without a certificate" in missing[0]


def test_a_study_file_without_an_unwinnable_record_has_no_certificate(tmp_path: Path) -> None:
    path = tmp_path / "won.jsonl"
    study.run_study(range(1, 3), ["cruel"], BUDGET, path)  # deals 1 and 2 are won
    checked = runner.invoke(app, ["check-proof", str(path)])
    assert checked.exit_code == 2 and "no certificate in it" in checked.output
