"""The ``cruel`` command group: usage errors in one line (with a "did you mean" for a close
spelling), a closed standard output as a quiet exit 141, and readable ``--help`` (metavars and
examples) for every command."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer
from typer._click.exceptions import NoArgsIsHelpError, NoSuchOption, UsageError
from typer.core import TyperGroup

from ..errors import problem
from .common import echo
from .startup import EXIT_CLOSED_PIPE, EXIT_NO_NATIVE_CORE, engine_refusal

__all__ = ["CruelGroup"]


def _usage_exit(exc: UsageError) -> typer.Exit:
    """A usage error as one line on stderr, ``error: ...``, and exit 2 (Typer would draw a Rich
    box, Click print three lines). An unknown option is an input problem (docs/cli.md), with a
    "did you mean" only for a close spelling (Click offers any option within difflib's loose
    0.6 ratio: --bogus got --jobs)."""
    where = exc.ctx.command_path if exc.ctx is not None else "cruel"
    if isinstance(exc, NoSuchOption):
        known = [] if exc.ctx is None else _long_options(exc.ctx)
        said = problem(
            "unknown-option",
            exc.option_name,
            command=where,
            close=_close_spellings(exc.option_name, known),
        )
        echo(said.line, err=True)
        return typer.Exit(said.exit)
    words = " ".join(exc.format_message().split()).rstrip(".")
    echo(f"error: {words} (see '{where} -h')", err=True)
    return typer.Exit(exc.exit_code)


def _long_options(ctx: Any) -> list[str]:
    """Every ``--option`` of the command of ``ctx``, ``--help`` too."""
    names = [*ctx.help_option_names]
    for param in ctx.command.get_params(ctx):
        names += [*param.opts, *param.secondary_opts]
    return sorted({n for n in names if n.startswith("--")})


def _close_spellings(typed: str, known: list[str]) -> list[str]:
    """The options of ``known`` closest to ``typed``, if close: one edit away (a letter
    missing, added, changed, or two swapped: Damerau-Levenshtein), two for a name of six
    letters or more; else none."""
    word = typed.lstrip("-")
    most = 1 if len(word) < 6 else 2
    found = [(_edits(word, k.lstrip("-")), k) for k in known]
    best = min((d for d, _ in found), default=most + 1)
    return [k for d, k in found if d == best <= most]


def _edits(a: str, b: str) -> int:
    """The Damerau-Levenshtein distance of ``a`` and ``b`` (optimal string alignment)."""
    before, row = None, list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        now = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            now[j] = min(row[j] + 1, now[j - 1] + 1, row[j - 1] + (x != y))
            if before is not None and i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                now[j] = min(now[j], before[j - 2] + 1)
        before, row = row, now
    return row[len(b)]


#: One or two examples for each command's --help (an "Examples:" paragraph, kept as written).
_EXAMPLES: dict[str, tuple[str, ...]] = {
    "verify": (
        "cruel verify samples/won.json",
        "cruel verify --jobs 2 --quiet logs/ games.jsonl",
        "cat games.jsonl | cruel verify - --jsonl --json",
    ),
    "deal": ("cruel deal 17",),
    "schema": ("cruel schema --out schemas",),
    "rules": ("cruel rules",),
    "check-proof": (
        "cruel check-proof certificates.jsonl --budget 100000",
        "cruel solve 18 --json | jq -c .certificate | cruel check-proof -",
    ),
    "replay": (
        "cruel replay samples/won.json --moves-only",
        "cruel replay samples/won.json --from 10 --to 20 --layout grid",
    ),
    "show": ("cruel show 17 --layout grid", "cruel show samples/won.json --ascii"),
    "stats": (
        "cruel stats logs/ --player ada",
        "cruel stats games.jsonl --json --today 2027-01-06",
    ),
    "solve": ("cruel solve 17", "cruel solve samples/blocked.json --out solved.json"),
    "grade": ("cruel grade 17", "cruel grade deal.json --json"),
    "study": (
        "cruel study 1-1000 --max-seconds 2 --jobs 2 --results study.jsonl",
        "cruel study 1-200 --rules cruel --rules cruel-when-stuck --results s.jsonl --plot s.svg",
        "cruel study 1-100000 --results big.jsonl --scheduler tcp://10.0.0.5:8786",
    ),
    "analyze": (
        "cruel analyze samples/blocked.json",
        "cruel analyze mygame.json --puzzle-id 2027-01-01-easy --deep --json",
    ),
    "hint": ("cruel hint samples/blocked.json", "cruel hint mygame.json --max-states 20000 --json"),
    "generate": ("cruel generate --tier hard --seed demo --count 3 --out puzzles/hard",),
    "daily": (
        "cruel daily --start 2027-01-01 --days 7 --out puzzles",
        "cruel daily --export site-puzzles --db cruel.sqlite",
    ),
    "serve": (
        "cruel serve --puzzles puzzles --db cruel.sqlite --port 8000",
        "cruel serve --workers 2 --max-per-client 16 --body-timeout 15",
    ),
    "keys": ("cruel keys add --role site --name example.org", "cruel keys list"),
    "keys add": (
        "cruel keys add --role site --name example.org",
        "cruel keys add --role admin --name 'ops (ada)' --db new.sqlite --create",
    ),
    "keys list": ("cruel keys list --db cruel.sqlite",),
    "keys revoke": ("cruel keys revoke 3",),
    "moderate": ("cruel moderate queue", "cruel moderate clear 12 --as 1"),
    "moderate queue": (
        "cruel moderate queue --db cruel.sqlite",
        "cruel moderate queue --status rejected",
    ),
    "moderate clear": ("cruel moderate clear 12 --as 1 --reason 'played it in front of us'",),
    "moderate reject": ("cruel moderate reject 12 --as 1 --reason '58 moves in 5 ms'",),
    "ratings": ("cruel ratings --db cruel.sqlite", "cruel ratings --db cruel.sqlite --json"),
    "sweep": ("cruel sweep --db cruel.sqlite", "cruel sweep --db cruel.sqlite --keep-steps 6"),
}

#: Metavars by parameter name where the type alone says too little (``<str>``, ``<path>``).
_METAVARS = {
    "puzzle_id": "ID",
    "today": "DATE",
    "start": "DATE",
    "tz": "ZONE",
    "rate_key": "RATE",
    "rate_player": "RATE",
    "keep_steps": "HOURS",  # a float, yet not seconds
}


def _metavar(command: str, param: Any) -> str | None:
    """A readable metavar for ``param`` (``N``, ``SECONDS``, ``FILE``, ``DIR``, ``LOG...``), in
    place of Typer's ``<int range>``, ``<path>``, ``<list[str]>``; None for a flag."""
    kind = param.type_descriptor.annotation
    if getattr(param, "is_flag", False) or kind is bool:
        return None
    if param.param_type_name == "argument":
        name = str(param.name).upper()
        return f"{name.removesuffix('S')}..." if param.nargs != 1 else name
    if str(param.name) in _METAVARS:
        return _METAVARS[str(param.name)]
    if kind is int:
        return "N"
    if kind is float:
        return "SECONDS"
    if kind is Path:
        folder = str(param.name).endswith("_dir") or (param.name == "out" and command != "solve")
        return "DIR" if folder else "FILE"
    return str(param.name).upper()


def _polish_help(group: Any, prefix: str = "") -> None:
    """Readable metavars and an "Examples:" paragraph (``\\b``: not re-wrapped) in every
    command's --help, the subcommands of ``keys`` included."""
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        for param in command.params:
            if param.metavar is None or param.metavar.islower():
                param.metavar = _metavar(path, param) or param.metavar
            if param.param_type_name == "argument":  # LOG... rather than {logs}... <list[str]>
                usage = param.metavar if param.required else f"[{param.metavar}]"
                param.display_type_rich = lambda ctx: None
                param.get_usage_pieces = lambda ctx, usage=usage: [usage]
        examples = _EXAMPLES.get(path)
        if examples and "Examples:" not in (command.help or ""):
            lines = "\n".join(f"  $ {e}" for e in examples)
            command.help = f"{command.help or ''}\n\nExamples:\n\n\b\n{lines}"
        if hasattr(command, "commands"):
            _polish_help(command, f"{path} ")


class CruelGroup(TyperGroup):
    """The ``cruel`` group: the one place that turns a closed standard output into a quiet
    exit with :data:`EXIT_CLOSED_PIPE`, for every command (Click itself would exit 1, the code
    of an illegal move), and every usage error into one line (:func:`_usage_exit`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _polish_help(self)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        # Before the arguments, so that --version and --help stop too: an engine that cannot
        # run is the operator's to fix first (CRUEL_ENGINE=native without the compiled core).
        refusal = engine_refusal()
        if refusal is not None:
            echo(refusal, err=True)
            raise typer.Exit(EXIT_NO_NATIVE_CORE)
        try:
            return super().make_context(*args, **kwargs)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            raise _usage_exit(exc) from None

    def invoke(self, ctx: Any) -> Any:  # a Context of the click that typer vendors
        try:
            try:
                return super().invoke(ctx)
            finally:  # results still buffered would meet the closed pipe only at exit
                sys.stdout.flush()
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            raise _usage_exit(exc) from None
        except BrokenPipeError:
            # Point stdout at /dev/null: Python flushes it once more on the way out.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            raise typer.Exit(EXIT_CLOSED_PIPE) from None
