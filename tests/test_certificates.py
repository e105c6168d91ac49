"""Certificates of unwinnable verdicts and their checker (issue #38; docs/solver.md,
Certificates): every unwinnable verdict of deals 1–2,000 is verified, and mutated ones refused."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from cruel_tools.game import cards, proofcheck
from cruel_tools.game.deals import deal_piles
from cruel_tools.game.game import Game
from cruel_tools.game.proofcheck import Certificate, RuleProof, SearchProof, check
from cruel_tools.game.rules import PRESETS
from cruel_tools.search import solver
from cruel_tools.search.certificates import certificate_for

from .test_import_graph import imports_of

CRUEL = PRESETS["cruel"]


@cache
def verdict(n: int) -> solver.SolveResult:
    return solver.solve(Game.from_deal(deal_piles(n, CRUEL), CRUEL), max_states=200_000)


def cert_of(n: int) -> Certificate:
    found = certificate_for(n, "cruel", verdict(n))
    assert found is not None
    return found


def with_proof(cert: Certificate, **changes: object) -> Certificate:
    return cert.model_copy(update={"proof": cert.proof.model_copy(update=changes)})


def sweep(numbers: range) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for n in numbers:
        if verdict(n).verdict != "unwinnable":
            continue
        cert = cert_of(n)
        assert check(cert) == proofcheck.Checked("verified", check(cert).detail), n
        assert check(cert).status == "verified", (n, check(cert))
        kind = cert.proof.rule if isinstance(cert.proof, RuleProof) else "search"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def test_every_unwinnable_verdict_of_deals_1_to_200_is_verified() -> None:
    kinds = sweep(range(1, 201))
    assert kinds["L"] >= 10 and kinds["F"] >= 1 and kinds["search"] >= 1


@pytest.mark.slow
def test_every_unwinnable_verdict_of_deals_1_to_2000_is_verified() -> None:
    # Measured (benchmarks/RESULTS.md, issue #38): 246 unwinnable, 207 by rule L at the deal, 22 by
    # rule F, 17 by a search of at most 330 positions.
    assert sweep(range(1, 2001)) == {"L": 207, "F": 22, "search": 17}


def test_the_checker_never_imports_the_solver() -> None:
    assert not any(
        m.startswith("cruel_tools.search") for m in imports_of("cruel_tools.game.proofcheck")
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, cruel_tools.game.proofcheck as p; "
            "print(any(m.startswith('cruel_tools.search') for m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "False"


# --- the seed examples of rule L (shared/notes/solver-facts.md section 3) -----------------------


def lone_pile1(pile: str) -> Game:
    """Pile 1 as given and the other cards of the deal home... as far as a deal allows: the deal
    of 12 piles with pile 1 replaced (the other piles are not read by rule L)."""
    piles = deal_piles(1, CRUEL)
    chosen = [cards.parse(t) for t in pile.split()]
    rest = [c for p in piles for c in p if c not in chosen]
    laid = [chosen] + [rest[i : i + 4] for i in range(0, 44, 4)]
    return Game.from_deal(laid, CRUEL)


@pytest.mark.parametrize(
    ("pile", "b", "a", "successor"),
    [
        ("7H 7D 7S KH", "KH", "7H", None),
        ("6D JD 10H 10D", "10D", "6D", "JD"),
        ("KC 6C 8D QC", "QC", "6C", "KC"),
    ],
)
def test_rule_l_on_the_seed_examples(pile: str, b: str, a: str, successor: str | None) -> None:
    game = lone_pile1(pile)
    p = cards.parse
    assert (
        proofcheck.rule_l_holds(game, p(b), p(a), None if successor is None else p(successor))
        is None
    )
    # the rule L lock is a frozen set (docs/solver.md, "Rule L is a case of rule F")
    below = game.piles[0][: game.piles[0].index(p(b)) + 1]
    assert proofcheck.rule_f_holds(game, set(below), None) is None
    # a wrong fact is refused: another card waited for, a king that is not one
    assert proofcheck.rule_l_holds(game, p(b), game.piles[1][0], None) is not None
    if successor is not None:
        assert proofcheck.rule_l_holds(game, p(b), p(a), None) is not None


def test_rule_l_does_not_hold_where_the_doc_does_not_prove_it() -> None:
    for name in ("pysolfc", "perseverance", "ripple-fan"):
        rules = PRESETS[name]
        game = Game.from_deal(deal_piles(18, rules), rules)
        assert "does not hold" in (proofcheck.rule_l_holds(game, 0, 1, None) or "")
        assert "does not hold" in (proofcheck.rule_f_holds(game, {0}, None) or "")


def test_rule_v_on_the_smallest_stuck_position() -> None:
    # docs/solver.md, rule V's tests: 2H AH as pile 1, after the last redeal, the black twos home
    rules = PRESETS["royal-family-pysolfc"]
    game = Game.from_deal(deal_piles(1, rules), rules)
    assert proofcheck.rule_v_holds(game, {0}) is not None  # before the last redeal: no rule V


# --- mutations are refused ----------------------------------------------------------------------


def test_rule_l_mutations_are_refused() -> None:
    cert = cert_of(18)  # KC in pile 1 can never leave
    assert isinstance(cert.proof, RuleProof) and cert.proof.rule == "L"
    assert check(cert).status == "verified"
    for bad in (
        with_proof(cert, rule="F"),  # a set of one king is not frozen
        with_proof(cert, rule="V"),  # rule V does not hold under cruel
        with_proof(cert, waits_for="AS"),
        with_proof(cert, cards=["QH"]),
        cert.model_copy(update={"rules": "pysolfc"}),  # a preset where rule L is not proven
        cert.model_copy(update={"rules": "perseverance"}),
        cert.model_copy(update={"deal": cert.deal.model_copy(update={"number": 19})}),
        cert.model_copy(update={"rules": "no-such-preset"}),
    ):
        assert check(bad).status == "refused", bad


def frozen_cert() -> Certificate:
    for n in range(1, 200):
        if verdict(n).verdict == "unwinnable":
            cert = cert_of(n)
            proof = cert.proof
            if isinstance(proof, RuleProof) and proof.rule == "F" and len(proof.cards) < 48:
                return cert
    raise AssertionError("no rule F deal among 1-200")


def test_rule_f_mutations_are_refused() -> None:
    cert = frozen_cert()
    proof = cert.proof
    assert isinstance(proof, RuleProof) and check(cert).status == "verified"
    game = Game.from_deal([[cards.parse(t) for t in p] for p in cert.deal.piles], CRUEL)
    first = cards.name(game.piles[0][0])
    assert first in proof.cards  # the set starts the sequence (else nothing is ever covered)
    outside = next(cards.name(c) for p in game.piles for c in p if cards.name(c) not in proof.cards)
    for bad in (
        with_proof(cert, cards=[c for c in proof.cards if c != first]),  # a card removed
        with_proof(cert, cards=[*proof.cards, outside]),  # a card added
        with_proof(cert, cards=[*proof.cards, "AS"]),  # a card not in the tableau
        with_proof(cert, cards=[*proof.cards, proof.cards[0]]),  # a card twice
        with_proof(cert, prefix=(proof.prefix or 0) + 1),
        with_proof(cert, cards=[]),
        with_proof(cert, rule="L"),
        cert.model_copy(update={"rules": "pysolfc"}),
        cert.model_copy(update={"deal": cert.deal.model_copy(update={"number": 1})}),
    ):
        assert check(bad).status == "refused", bad


def test_search_mutations_are_refused_and_a_small_budget_is_undecided() -> None:
    cert = cert_of(76)
    proof = cert.proof
    assert isinstance(proof, SearchProof) and check(cert).status == "verified"
    flipped = proof.digest[:-1] + ("0" if proof.digest[-1] != "0" else "1")
    for bad in (
        with_proof(cert, positions=proof.positions + 1),
        with_proof(cert, digest=flipped),
        cert.model_copy(update={"steps": ["R"]}),  # another position
    ):
        assert check(bad).status == "refused", bad
    assert check(cert, budget=10).status == "undecided"


def test_a_won_deals_fake_certificate_is_refused() -> None:
    assert verdict(1).verdict == "won"
    fake = cert_of(76).model_copy(
        update={
            "deal": proofcheck.DealRef(
                number=1, piles=[[cards.name(c) for c in p] for p in deal_piles(1, CRUEL)]
            )
        }
    )
    assert check(fake).status == "refused"
    # and a rule certificate for it: pile 1 of deal 1 holds no lock
    lock = cert_of(18).model_copy(update={"deal": fake.deal})
    assert check(lock).status == "refused"
    assert certificate_for(1, "cruel", verdict(1)) is None


# --- the command --------------------------------------------------------------------------------


def cruel(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    cli = Path(sys.executable).parent / "cruel"
    return subprocess.run([str(cli), *args], input=stdin, capture_output=True, check=False)


def test_check_proof_command_exit_codes(tmp_path: Path) -> None:
    good = [cert_of(n).model_dump_json().encode() for n in (18, 76)]
    done = cruel("check-proof", "-", stdin=b"\n".join(good))
    assert done.returncode == 0, done
    assert done.stdout.decode().count(": verified:") == 2
    bad = with_proof(cert_of(18), waits_for="AS").model_dump_json().encode()
    done = cruel("check-proof", "-", stdin=b"\n".join([good[0], bad]))
    assert done.returncode == 1 and b"refused" in done.stdout
    done = cruel("check-proof", "--budget", "5", "-", stdin=good[1])
    assert done.returncode == 5 and b"undecided" in done.stdout
    for hostile in (
        b"{",
        b"[1]",
        b'{"format": "cruel-certificate/1", "rules": 5}',
        b"\xff\xfe",
        b"",
    ):
        done = cruel("check-proof", "-", stdin=hostile)
        assert done.returncode == 2, (hostile, done)
        assert b"Traceback" not in done.stderr + done.stdout
    huge = (
        b'{"format": "cruel-certificate/1", "rules": "cruel", "deal": {"number": 1, "piles": ['
        + b'["AH"],' * 100
        + b'[]]}, "proof": {"kind": "search", "positions": 1, "digest": "x"}}'
    )
    done = cruel("check-proof", "-", stdin=huge)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    missing = cruel("check-proof", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and missing.stderr.startswith(b"error: ")


def test_solve_json_carries_the_certificate() -> None:
    import orjson

    done = cruel("solve", "18", "--json")
    report = orjson.loads(done.stdout)
    assert report["certificate"]["proof"]["rule"] == "L"
    assert check(Certificate.model_validate(report["certificate"])).status == "verified"
    assert orjson.loads(cruel("solve", "1", "--json").stdout)["certificate"] is None
