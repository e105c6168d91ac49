"""The ``cruel`` command: a thin layer over the library (every command is a plain call first).

This module holds the Typer application and registers the commands, which live one module per
group: :mod:`.checking` (verify, replay, show, stats), :mod:`.reference` (deal, schema, rules),
:mod:`.solving` (solve, analyze, hint, grade), :mod:`.studying` (study),
:mod:`.making` (generate, daily),
:mod:`.serving` (serve, sweep), :mod:`.admin` (keys, moderate, ratings); :mod:`.common` is what
they share, :mod:`.group` the group's usage errors and ``--help``.

Start-up (issue #22): the command modules import at their top only what every command's
definition needs (help texts, defaults) and what ``verify`` runs on; each other command imports
the rest when it runs (``cruel --version`` and ``cruel verify FILE`` start in a fraction of the
time the whole library takes to import; benchmarks/startup_bench.py).
"""

from __future__ import annotations

import sys
import traceback
from typing import Annotated, Any

import typer

from ..terminal import terminal_safe
from . import admin, checking, making, proofs, reference, serving, solving, studying
from .common import echo
from .group import CruelGroup
from .startup import EXIT_CLOSED_PIPE as EXIT_CLOSED_PIPE
from .startup import version_lines

__all__ = ["EXIT_INTERNAL_ERROR", "app"]

#: The exit status of a bug: an exception no command expected (docs/cli.md).
EXIT_INTERNAL_ERROR = 3


_TOP_HELP = """Tools for the patience game Cruel: game logs, deals, puzzles and a service.

\b
Game logs:  verify (check them against the rules), replay (step by step),
            stats (a player's record)
            analyze (where a game was lost, how far a win was from the best),
            hint (the next step of a win from a game's last position)
Deals:      deal (its piles), show (draw it), solve (search for a win),
            grade (tier and par), rules (the presets), schema (JSON Schemas),
            study (how many deals of a range are winnable),
            check-proof (check the certificate of an unwinnable verdict)
Puzzles:    generate (of one tier), daily (a dated puzzle set)
Service:    serve (HTTP: puzzles, verification, leaderboards), keys (its API keys),
            moderate (the review queue of flagged wins),
            ratings (the puzzles' ratings from play, by tier),
            sweep (delete abandoned attempts' steps now)

Run cruel COMMAND -h for a command's options and examples; docs/cli.md for exit codes."""


class _Cruel(typer.Typer):
    """The ``cruel`` entry point: an exception that no command expected is a bug. Its traceback
    goes to stderr (for the report), then one line, and exit :data:`EXIT_INTERNAL_ERROR`, not
    the 1 of an illegal move."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Exception as exc:
            traceback.print_exc()
            words = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            sys.stderr.write(f"error: internal error ({terminal_safe(words)}); please report it\n")
            sys.exit(EXIT_INTERNAL_ERROR)


app = _Cruel(
    cls=CruelGroup,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    no_args_is_help=True,
    # help wrapped by the terminal's width (Click's default stops at 80 columns)
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 200},
    help=_TOP_HELP,
)


def _show_version(value: bool) -> None:
    if value:  # the console script answers a lone --version before Typer loads (console.py)
        for line in version_lines():
            echo(line)
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_show_version,
            is_eager=True,
            help="Print the version of cruel-tools and the engine that runs (docs/cli.md), "
            "and exit.",
        ),
    ] = False,
) -> None:
    """Tools for the patience game Cruel: game logs, deals, puzzles and a service."""


# In the order `cruel --help` lists them.
for _name, _command in (
    ("verify", checking.verify_command),
    ("deal", reference.deal_command),
    ("schema", reference.schema_command),
    ("rules", reference.rules_command),
    ("replay", checking.replay_command),
    ("show", checking.show_command),
    ("stats", checking.stats_command),
    ("solve", solving.solve_command),
    ("analyze", solving.analyze_command),
    ("hint", solving.hint_command),
    ("grade", solving.grade_command),
    ("study", studying.study_command),
    ("generate", making.generate_command),
    ("daily", making.daily_command),
    ("serve", serving.serve_command),
):
    app.command(_name)(_command)
app.add_typer(admin.keys_app, name="keys")
app.add_typer(admin.moderate_app, name="moderate")
app.command("ratings")(admin.ratings_command)
app.command("sweep")(serving.sweep_command)
app.command("check-proof")(proofs.check_proof_command)


if __name__ == "__main__":  # pragma: no cover
    app()
