"""The ``cruel`` console script: what every invocation does before the CLI itself is loaded.

Importing Typer and the commands' modules costs more than ``cruel --version`` may take (issue
#22: under 150 ms), so :func:`main` answers ``--version`` alone by itself and hands everything
else to :data:`cruel_tools.cli.app`, whose commands import what they need when they run. It
also refuses, before anything else, an engine that cannot run (``CRUEL_ENGINE=native`` without
the compiled core): ``cli.app`` does the same for callers that skip this entry point
(``python -m cruel_tools.cli``, tests).
"""

from __future__ import annotations

import os
import sys

from .engine import NativeCoreMissing, engine_line

__all__ = ["EXIT_CLOSED_PIPE", "EXIT_NO_NATIVE_CORE", "engine_refusal", "main", "version_lines"]

#: The exit status when the engine asked for cannot run: ``CRUEL_ENGINE=native`` and the
#: compiled core is not built, or ``CRUEL_ENGINE`` names no engine (docs/cli.md, Engine).
EXIT_NO_NATIVE_CORE = 4

#: The exit status of a command whose standard output was closed early (``cruel replay LOG |
#: head -2``): 128 + SIGPIPE, as a shell reports a command killed by that signal (docs/cli.md).
EXIT_CLOSED_PIPE = 141


def version_lines() -> list[str]:
    """What ``cruel --version`` prints: ``cruel <version>``, then the engine line.

    :raises NativeCoreMissing: as :func:`cruel_tools.engine.engine_line`.
    """
    from . import __version__  # importlib.metadata: paid only by the commands that say it

    return [f"cruel {__version__}", engine_line()]


def engine_refusal() -> str | None:
    """The one line (``error: ...``) that stops every command when the chosen engine cannot
    run, else None."""
    try:
        engine_line()
    except NativeCoreMissing as exc:
        return f"error: {exc}"
    return None


def main() -> int:
    """The console script ``cruel``: its exit status."""
    refusal = engine_refusal()
    if refusal is not None:
        sys.stderr.write(refusal + "\n")
        return EXIT_NO_NATIVE_CORE
    if sys.argv[1:] == ["--version"]:  # the same lines as the CLI's --version, without Typer
        try:
            sys.stdout.write("\n".join(version_lines()) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:  # as the CLI: quietly, and Python's last flush goes nowhere
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return EXIT_CLOSED_PIPE
        return 0
    from .cli import app

    app()  # exits by itself (Click's standalone mode)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
