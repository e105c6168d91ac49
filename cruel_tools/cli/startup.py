"""What every invocation of ``cruel`` checks and says first, for the console script and the CLI.

:mod:`cruel_tools.cli.console` (the console script) and :mod:`cruel_tools.cli.app` (the Typer app)
both
answer ``--version`` and refuse an engine that cannot run; the words and exit statuses live here,
below both, so that neither imports the other to share them.
"""

from __future__ import annotations

from ..game.engine import NativeCoreMissing, engine_line

__all__ = ["EXIT_CLOSED_PIPE", "EXIT_NO_NATIVE_CORE", "engine_refusal", "version_lines"]

#: The exit status when the engine asked for cannot run: ``CRUEL_ENGINE=native`` and the
#: compiled core is not built, or ``CRUEL_ENGINE`` names no engine (docs/cli.md, Engine).
EXIT_NO_NATIVE_CORE = 4

#: The exit status of a command whose standard output was closed early (``cruel replay LOG |
#: head -2``): 128 + SIGPIPE, as a shell reports a command killed by that signal (docs/cli.md).
EXIT_CLOSED_PIPE = 141


def version_lines() -> list[str]:
    """What ``cruel --version`` prints: ``cruel <version>``, then the engine line.

    :raises NativeCoreMissing: as :func:`cruel_tools.game.engine.engine_line`.
    """
    from .. import __version__  # importlib.metadata: paid only by the commands that say it

    return [f"cruel {__version__}", engine_line()]


def engine_refusal() -> str | None:
    """The one line (``error: ...``) that stops every command when the chosen engine cannot
    run, else None."""
    try:
        engine_line()
    except NativeCoreMissing as exc:
        return f"error: {exc}"
    return None
