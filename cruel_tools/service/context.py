"""What every router of the service works with (:class:`Context`): the settings, the puzzles,
the stores and the rate limits, and the checks many routes share (an open puzzle, a key)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Final

from fastapi import Request
from fastapi.concurrency import run_in_threadpool

from ..keys import MODERATE_ROLES, SUBMIT_ROLES, ApiKey, TokenBuckets
from ..log import Limits
from ..puzzles import Puzzle, PuzzleSet, is_open
from ..stores import Stores
from .config import Settings
from .errors import ApiError, unauthorized

__all__ = ["NOT_OPEN", "OPEN_BUCKET", "Context"]

#: The one answer for a puzzle that does not exist and one not open yet (and a day not begun).
NOT_OPEN: Final = "puzzle-not-open"
#: The bucket of keyless submissions, all of them, on an ``--open`` server.
OPEN_BUCKET: Final = "open"


@dataclass(frozen=True)
class Context:
    """One app's settings, puzzles and stores, and the token buckets of its rate limits."""

    settings: Settings
    puzzles: PuzzleSet
    stores: Stores
    key_buckets: TokenBuckets | None
    player_buckets: TokenBuckets | None

    @property
    def limits(self) -> Limits:
        return self.settings.limits

    def puzzle_or_404(self, puzzle_id: str) -> Puzzle:
        """The puzzle, if it exists and is open; otherwise one 404 for both, whose words do not
        say which (no way to learn that a future puzzle exists, or its id)."""
        puzzle = self.puzzles.get(puzzle_id)
        if puzzle is None or not is_open(puzzle, self.settings.today()):
            message = f"puzzle {puzzle_id!r} does not exist or is not open yet"
            raise ApiError(404, NOT_OPEN, message, "path", "id")
        return puzzle

    async def bearer_key(self, request: Request) -> ApiKey | None:
        """The valid key in the request's ``Authorization: Bearer`` header, None when there is
        no such header; 401 for a header that is not a bearer key, an unknown key or a revoked
        one. The one reading of keys: each route then says which roles it takes."""
        header = request.headers.get("authorization")
        if header is None:
            return None
        scheme, _, key = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise unauthorized("bad-key", "the Authorization header is not 'Bearer <key>'")
        found = await run_in_threadpool(self.stores.keys.find, key.strip())
        if found is None:
            raise unauthorized("bad-key", "not an API key of this service")
        if found.revoked_at is not None:
            when = found.revoked_at.isoformat(timespec="seconds")
            raise unauthorized("revoked-key", f"this API key (id {found.id}) was revoked at {when}")
        return found

    async def submitter(self, request: Request) -> Hashable:
        """Who sends this write: the id of a valid key whose role may submit (or, on an open
        server, :data:`OPEN_BUCKET` for no key); otherwise 401 or 403."""
        found = await self.bearer_key(request)
        if found is None:
            if self.settings.open:
                return OPEN_BUCKET
            raise unauthorized(
                "missing-key", "submissions need an API key: Authorization: Bearer <key>"
            )
        if found.role not in SUBMIT_ROLES:
            raise ApiError(
                403,
                "wrong-role",
                f"an {found.role} key may not submit (only a site key may)",
                "header",
                "authorization",
            )
        return found.id

    async def admin(self, request: Request) -> ApiKey:
        """The valid admin key this request is sent with; otherwise 401 or 403 (never
        ``--open``)."""
        found = await self.bearer_key(request)
        if found is None:
            raise unauthorized(
                "missing-key", "moderation needs an admin API key: Authorization: Bearer <key>"
            )
        if found.role not in MODERATE_ROLES:
            raise ApiError(
                403,
                "wrong-role",
                f"a {found.role} key may not moderate (only an admin key may)",
                "header",
                "authorization",
            )
        return found
