"""``cruel serve``: the HTTP service for daily-puzzle sites, a thin layer over the library.

Every answer is made by a library call (:mod:`cruel_tools.game.verify`, :mod:`cruel_tools.puzzles`,
:mod:`cruel_tools.site.leaderboard`, :func:`cruel_tools.site.submissions.submit`); this package
only reads
requests, bounds them, and maps results and errors to HTTP. Every error, of ours or of a
client's, is one ``cruel-error/1`` object. See ``docs/service.md``.

- :mod:`.config`: :class:`Settings` (no web stack); :mod:`.app`: :func:`create_app`;
- :mod:`.context`: what the routers share (settings, puzzles, stores, keys and limits);
  :mod:`.deps`: the dependencies that reach it (``request.app.state``) and the shared checks
  (the route's parameters first, the admin key, a write's credentials, a request for help's key);
- :mod:`.errors`: the one translation of each library error to HTTP; :mod:`.openapi`;
- :mod:`.help_guard`: no help towards a win for a puzzle not closed (over
  :mod:`cruel_tools.site.embargo`); :mod:`.costly`: the analyses' rate limits, cap and process;
- one module-level ``router`` per area, its handlers named functions: :mod:`.health`,
  :mod:`.pages`, :mod:`.metrics`, :mod:`.log_tools` (verify, replay, analyze), :mod:`.hints`,
  :mod:`.puzzles`, :mod:`.submissions`, :mod:`.attempts`, :mod:`.boards`, :mod:`.moderation`,
  :mod:`.players`.
"""

from __future__ import annotations

from .app import APP_FACTORY, app_from_env, create_app
from .config import ENV_SETTINGS, KEY_LIMIT, PLAYER_LIMIT, Settings, UnknownZone, time_zone
from .context import NOT_OPEN, OPEN_SENDER
from .errors import ApiError
from .log_tools import ANALYZE_MAX_STATES, ANALYZE_TOTAL_STATES
from .pages import PAGES, STATIC
from .puzzles import MAX_PAST_DAYS

__all__ = [
    "APP_FACTORY",
    "ENV_SETTINGS",
    "KEY_LIMIT",
    "PLAYER_LIMIT",
    "OPEN_SENDER",
    "NOT_OPEN",
    "MAX_PAST_DAYS",
    "ANALYZE_MAX_STATES",
    "ANALYZE_TOTAL_STATES",
    "STATIC",
    "PAGES",
    "ApiError",
    "Settings",
    "UnknownZone",
    "time_zone",
    "create_app",
    "app_from_env",
]
