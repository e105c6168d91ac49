"""Certificates in the post-game analysis (issue #38): ``cruel analyze --json`` and ``POST
/v1/analyze`` give each unwinnable verdict of a lost game its certificate, for the position it
speaks of (the deal, then the log's steps up to it), and ``cruel check-proof`` verifies it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.advice.analysis import Analysis, analyze
from cruel_tools.game import log, proofcheck
from cruel_tools.game.log import compact

from .test_analysis import _lost_game

ROOT = Path(__file__).resolve().parent.parent

#: Deal 3, lost at step 6 (docs/analysis.md's example): position 6 is proven lost.
LOST = {
    "format": "cruel-log/1",
    "rules": "cruel",
    "deal": {"number": 3},
    "moves": ["5-11", "5-7", "R", "3-11", "R", "9-7", "6-3", "R", "5-10", "R"],
}


def verified(cert: proofcheck.Certificate | None) -> proofcheck.Certificate:
    assert cert is not None
    assert proofcheck.check(cert).status == "verified", proofcheck.check(cert)
    return cert


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = service.Settings(puzzles=ROOT / "puzzles", db=tmp_path / "cruel.sqlite")
    with TestClient(service.create_app(settings)) as c:
        yield c


def test_the_first_lost_position_of_a_lost_game_carries_a_verified_certificate() -> None:
    game_log = log.from_object(LOST)
    loss = analyze(game_log).loss
    assert loss is not None and loss.first_lost_position == 6
    cert = verified(loss.certificate)
    assert (cert.deal.number, cert.rules, cert.steps) == (3, "cruel", LOST["moves"][:6])


@pytest.mark.parametrize("seed", range(6))
def test_every_unwinnable_verdict_of_random_lost_games_is_certified(seed: int) -> None:
    game_log, _ = _lost_game(seed)
    loss = analyze(game_log, max_states=20_000).loss
    assert loss is not None
    if loss.first_lost_position is not None:
        cert = verified(loss.certificate)
        assert len(cert.steps) == loss.first_lost_position
    for alt in loss.alternatives:
        if alt.verdict == "unwinnable":
            cert = verified(alt.certificate)
            assert cert.steps[-1] == compact(log.to_step(alt.entry))
        else:
            assert alt.certificate is None


def test_a_deal_lost_from_the_start_is_certified_at_the_deal() -> None:
    doc = {"format": "cruel-log/1", "rules": "cruel", "deal": {"number": 76}, "moves": []}
    loss = analyze(log.from_object(doc)).loss
    assert loss is not None and loss.status == "lost-from-start"
    cert = verified(loss.certificate)
    assert cert.steps == [] and isinstance(cert.proof, proofcheck.SearchProof)


def test_no_certificate_past_the_budget_or_without_a_lost_position() -> None:
    doc = {"format": "cruel-log/1", "rules": "cruel", "deal": {"number": 76}, "moves": []}
    # deal 76's closure holds 330 positions: a budget of 300 gives no certificate
    loss = analyze(log.from_object(doc), certificate_positions=300).loss
    assert loss is not None and loss.status == "lost-from-start" and loss.certificate is None
    # undecided everywhere (one position a solve): nothing proven lost but a blocked end
    still = {"format": "cruel-log/1", "rules": "cruel", "deal": {"number": 1}, "moves": []}
    loss = analyze(log.from_object(still)).loss
    assert loss is not None and loss.status == "still-winnable" and loss.certificate is None


def test_a_profile_that_is_not_a_preset_gets_no_certificate() -> None:
    doc = {
        "format": "cruel-log/1",
        "rules": {"preset": "cruel", "max_redeals": 5},
        "deal": {"number": 3},
        "moves": LOST["moves"],
    }
    loss = analyze(log.from_object(doc)).loss
    assert loss is not None and loss.first_lost_position is not None
    assert loss.certificate is None


def test_the_service_answers_with_the_certificate(client: TestClient) -> None:
    r = client.post("/v1/analyze", content=orjson.dumps(LOST))
    assert r.status_code == 200, r.text
    doc = Analysis.model_validate_json(r.content)
    assert doc.loss is not None
    cert = verified(doc.loss.certificate)
    assert cert.steps == LOST["moves"][:6]
    # check-proof reads it as the answer gives it
    assert proofcheck.parse_certificates(orjson.dumps(r.json()["loss"]["certificate"])) == [cert]
    # a won game's answer has no loss, so no certificate
    won = client.post("/v1/analyze", content=(ROOT / "samples" / "won.json").read_bytes())
    assert won.status_code == 200 and won.json()["loss"] is None
    assert b"certificate" not in won.content
