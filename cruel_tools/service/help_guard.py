"""The help guard: the one check of every route that gives help towards a win (``POST
/v1/analyze``; hints later), over :class:`cruel_tools.site.embargo.Embargo` (docs/service.md, Help
for open puzzles and costly requests).

A route reads its log, then calls :meth:`HelpGuard.check` (or :meth:`HelpGuard.key`, then
:meth:`HelpGuard.refuse`, when it takes a rate limit in between, as analyze does); a refusal is
a 403 whose words name no puzzle. tests/test_help_guard.py walks the app's routes: every route
that reads a game log either refuses an open puzzle's deal or is listed there with the reason it
helps no one win.
"""

from __future__ import annotations

from fastapi import Request

from ..game.log import GameLog
from ..site.embargo import Embargo
from ..site.keys import ApiKey
from .clients import one_header
from .context import Context
from .errors import ApiError

__all__ = ["HelpGuard"]


class HelpGuard:
    """The canonical deals of every puzzle of the app, computed once at start (the set is read
    once), and the check of one request against them on the server's date."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.embargo = Embargo(ctx.puzzles.by_id.values())

    async def key(self, request: Request) -> ApiKey | None:
        """The request's API key when it sends one (``Authorization: Bearer``: an unknown or
        revoked key is a 401, as everywhere); None for no credentials or a player's token,
        which get the help of an anonymous client."""
        header = one_header(request, "Authorization")  # two of them: 400, as everywhere
        if header is None or header.strip().partition(" ")[0].lower() != "bearer":
            return None
        return await self.ctx.bearer_key(request)

    def refuse(self, game_log: GameLog, key: ApiKey | None) -> None:
        """403 when ``game_log`` may not get help today from a client with ``key``:
        ``puzzle-open`` (the deal of a puzzle not closed, up to suits, for everyone) or
        ``piles-need-key`` (a deal given as piles, without a site or admin key, that is no
        closed puzzle's deal)."""
        found = self.embargo.refusal(
            game_log, self.ctx.settings.today(), key.role if key is not None else None
        )
        if found is not None:
            raise ApiError(403, found.code, found.message, "body", found.path)

    async def check(self, request: Request, game_log: GameLog) -> ApiKey | None:
        """The whole check: the request's key (:meth:`key`), then :meth:`refuse`. Returns the
        key, for the route's own limits."""
        key = await self.key(request)
        self.refuse(game_log, key)
        return key
