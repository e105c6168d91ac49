"""The command line ``cruel``: a thin layer over the library.

:mod:`.console` is the console script (a lone ``--version`` answered before Typer loads);
:mod:`.app` is the Typer application, which registers the commands of :mod:`.checking`,
:mod:`.reference`, :mod:`.solving`, :mod:`.making`, :mod:`.serving` and :mod:`.admin` (one module
per group of commands; :mod:`.common` what they share, :mod:`.group` the group's usage errors and
``--help``); :mod:`.startup` what both say first. Every text it prints goes through
:func:`cruel_tools.terminal.terminal_safe`. ``app`` is imported on first use, so that
``cruel --version`` pays for none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import app


def __getattr__(name: str) -> Any:
    if name == "app":
        from .app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app"]
