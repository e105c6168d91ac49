"""The command that checks proofs: ``check-proof`` (docs/solver.md, "Certificates")."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Final

import typer

from .common import emit, fail

__all__ = ["check_proof_command", "EXIT_REFUSED", "EXIT_UNDECIDED"]

#: A certificate was read and is wrong (docs/cli.md, exit 1: the input is wrong).
EXIT_REFUSED: Final = 1
#: A search certificate the budget could not settle: neither verified nor refused.
EXIT_UNDECIDED: Final = 5


def check_proof_command(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A cruel-certificate/1 JSON document, JSON Lines of them, or a study's "
            "results file (cruel study --results); - for stdin.",
        ),
    ],
    budget: Annotated[
        int,
        typer.Option("--budget", min=1, help="Most positions the check's own search may meet."),
    ] = 1_000_000,
) -> None:
    """Check certificates of unwinnable verdicts, with code that does not use the solver.

    A rule certificate is re-derived from the position, as docs/solver.md states the rule; a
    search certificate by a plain search of its own that must meet exactly the positions the
    certificate counts and digests. One line per certificate: verified, refused (and why) or
    undecided (the budget ran out). A study's results file gives its unwinnable records'
    certificates (its header and other verdicts skipped); an unwinnable record without one is
    a line of its own, counted as undecided.

    Exit status: 0 every certificate verified, 1 one refused, 2 unreadable input or one that is
    not a certificate, 5 one undecided or missing (and none refused).
    """
    from ..game import proofcheck

    data = _read(file)
    found = proofcheck.parse_certificates(data)
    if not found:
        raise fail(f"{file}: no certificate in it", 2)
    codes = {0}
    for i, cert in enumerate(found, 1):
        label = f"certificate {i}" if len(found) > 1 else "certificate"
        if isinstance(cert, proofcheck.MalformedCertificate):
            emit(f"{label}: malformed: {cert}")
            codes.add(2)
            continue
        if isinstance(cert, proofcheck.Uncertified):
            emit(f"{label}: missing: {cert}")
            codes.add(EXIT_UNDECIDED)
            continue
        what = f"deal {cert.deal.number}" if cert.deal.number is not None else "deal by piles"
        if cert.steps:
            what += f" after {len(cert.steps)} steps"
        checked = proofcheck.check(cert, budget)
        emit(f"{label} ({what}, {cert.rules}): {checked.status}: {checked.detail}")
        codes.add(
            {"verified": 0, "refused": EXIT_REFUSED, "undecided": EXIT_UNDECIDED}[checked.status]
        )
    for code in (2, EXIT_REFUSED, EXIT_UNDECIDED):
        if code in codes:
            raise typer.Exit(code)


def _read(file: str) -> bytes:
    """The input's bytes, at most MAX_CERTIFICATE_BYTES; a problem is one line, exit 2."""
    from ..game.proofcheck import MAX_CERTIFICATE_BYTES

    most = MAX_CERTIFICATE_BYTES
    try:
        if file == "-":
            data = sys.stdin.buffer.read(most + 1)
        else:
            with Path(file).open("rb") as f:
                data = f.read(most + 1)
    except OSError as exc:
        raise fail(f"cannot read {file}: {exc.strerror or type(exc).__name__}", 2) from None
    if len(data) > most:
        raise fail(f"{file}: larger than {most >> 20} MiB: not certificates", 2)
    return data
