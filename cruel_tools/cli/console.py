"""The ``cruel`` console script: what every invocation does before the CLI itself is loaded.

Importing Typer and the commands' modules costs more than ``cruel --version`` may take (issue
#22: under 150 ms), so :func:`main` answers ``--version`` alone by itself and hands everything
else to :data:`cruel_tools.cli.app.app`, whose commands import what they need when they run. It
also refuses, before anything else, an engine that cannot run (``CRUEL_ENGINE=native`` without
the compiled core): ``cli.app`` does the same for callers that skip this entry point
(``python -m cruel_tools.cli.app``, tests).
"""

from __future__ import annotations

import os
import sys

from .startup import EXIT_CLOSED_PIPE, EXIT_NO_NATIVE_CORE, engine_refusal, version_lines

__all__ = ["main"]


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
    from .app import app

    app()  # exits by itself (Click's standalone mode)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
