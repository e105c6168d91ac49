"""What every router of the service works with (:class:`Context`): the settings, the puzzles,
the stores and the rate limits, and the checks many routes share (an open puzzle, a key)."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Final

from fastapi import Request
from fastapi.concurrency import run_in_threadpool

from ..game.log import Limits
from ..puzzles import Puzzle, PuzzleSet, is_open
from ..site.keys import MODERATE_ROLES, SUBMIT_ROLES, ApiKey, TokenBuckets, throttle
from ..site.players import TokenInfo
from ..site.stores import Stores
from .clients import client_address, one_header
from .config import Settings
from .errors import ApiError, unauthorized

__all__ = [
    "NOT_OPEN",
    "OPEN_SENDER",
    "PLAYER_SCHEME",
    "MISSING",
    "Credentials",
    "token_required",
    "Context",
]

#: The one answer for a puzzle that does not exist and one not open yet (and a day not begun).
NOT_OPEN: Final = "puzzle-not-open"
#: Who a write without credentials is recorded as (an ``--open`` server, an unclaimed name).
#: Not a rate-limit bucket: those are per client address (:meth:`Context.credentials`).
OPEN_SENDER: Final = "open"
#: The ``Authorization`` scheme of a player's token: ``Authorization: Player <token>``.
PLAYER_SCHEME: Final = "Player"
#: The message of a write sent with no credentials to a server that is not ``--open``.
MISSING: Final = (
    "submissions need an API key (Authorization: Bearer <key>) or the player's token "
    "(Authorization: Player <token>)"
)
# Where a refused token is, and the challenge of its 401 (RFC 9110: the scheme it takes).
_PLAYER: Final[dict[str, Any]] = {
    "location": "header",
    "path": "authorization",
    "headers": {"WWW-Authenticate": PLAYER_SCHEME},
}


@dataclass(frozen=True)
class Credentials:
    """What a write is sent with, checked: a site key, a player's token, or neither (an
    ``--open`` server)."""

    key: ApiKey | None = None
    token: TokenInfo | None = None


def token_required(player: str) -> ApiError:
    """401 ``token-required``: a claimed name's writes need one of its tokens."""
    message = (
        f"player {player!r} is claimed: send its token (Authorization: Player <token>), or "
        "link this device with a code from another of yours"
    )
    return ApiError(401, "token-required", message, **_PLAYER)


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
        header = one_header(request, "Authorization")  # two of them: 400, never the first
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

    async def credentials(self, request: Request) -> Credentials:
        """What this write is sent with, checked, and its rate limit taken, once per request
        (kept on the request: :meth:`sender` asks again for free). A site key whose role may
        submit is limited per key; a player's token per token; no credentials (only on an
        ``--open`` server) per client address (:func:`~.clients.client_address`), so that one
        client's traffic never empties another's bucket. Otherwise 401, 403 or 429."""
        found: Credentials | None = getattr(request.state, "cruel_credentials", None)
        if found is not None:
            return found
        header = one_header(request, "Authorization")  # two of them: 400, never the first
        scheme, _, credential = (header or "").strip().partition(" ")
        if scheme.lower() == PLAYER_SCHEME.lower():
            token = await self._token(credential.strip())
            throttle(self.key_buckets, ("token", token.id), "from this player's token")
            found = Credentials(token=token)
        elif header is not None:
            key = await self.bearer_key(request)
            assert key is not None  # a header was sent
            if key.role not in SUBMIT_ROLES:
                raise ApiError(
                    403,
                    "wrong-role",
                    f"an {key.role} key may not submit (only a site key may)",
                    "header",
                    "authorization",
                )
            throttle(self.key_buckets, key.id, "from this key")
            found = Credentials(key=key)
        elif self.settings.open:
            address = client_address(request, self.settings)  # in memory only, never stored
            throttle(self.key_buckets, ("address", address), "from this address")
            found = Credentials()
        else:
            raise unauthorized("missing-key", MISSING)
        request.state.cruel_credentials = found
        return found

    async def sender(self, request: Request, player: str) -> Hashable:
        """Who sends a write for ``player`` (an enforced name), as the stores record it: a
        site key's id (a site vouches for any player), ``token <id>`` (one of ``player``'s own
        tokens; another player's is 403 ``wrong-player``), or :data:`OPEN_SENDER` (no
        credentials: only on an ``--open`` server and only for a name nobody has claimed; a
        claimed name always needs its token, 401 ``token-required``). Rate limits are taken
        by :meth:`credentials`: a route takes no other sender's bucket."""
        found = await self.credentials(request)
        if found.key is not None:
            return found.key.id
        if found.token is not None:
            if found.token.player != player:
                raise ApiError(
                    403,
                    "wrong-player",
                    f"this token belongs to player {found.token.player!r}, not to {player!r}",
                    "header",
                    "authorization",
                )
            return f"token {found.token.id}"
        if await run_in_threadpool(self.stores.players.is_claimed, player):
            raise token_required(player)
        return OPEN_SENDER

    async def own_token(self, request: Request, player: str) -> TokenInfo:
        """The valid token of ``player`` this request is sent with (``Authorization: Player
        <token>``): what a player's own routes take (link codes, export, delete), never a
        site key nor ``--open``. Otherwise 401 ``token-required``, ``bad-token``,
        ``revoked-token``, 403 ``wrong-player``, or 429."""
        header = one_header(request, "Authorization")
        scheme = (header or "").strip().partition(" ")[0]
        if scheme.lower() != PLAYER_SCHEME.lower():
            raise token_required(player)
        await self.sender(request, player)
        found = await self.credentials(request)
        assert found.token is not None
        return found.token

    async def _token(self, token: str) -> TokenInfo:
        found = await run_in_threadpool(self.stores.players.find, token)
        if found is None:
            raise ApiError(401, "bad-token", "not a player token of this service", **_PLAYER)
        if found.revoked_at is not None:
            when = found.revoked_at.isoformat(timespec="seconds")
            message = (
                f"this token of player {found.player!r} was revoked at {when}: a moderator can "
                "give you a link code"
            )
            raise ApiError(401, "revoked-token", message, **_PLAYER)
        return found

    async def admin(
        self, request: Request, needs: str = "moderation needs", may: str = "moderate"
    ) -> ApiKey:
        """The valid admin key this request is sent with; otherwise 401 or 403 (never
        ``--open``). ``needs`` and ``may`` name what the key is for in the refusals."""
        found = await self.bearer_key(request)
        if found is None:
            raise unauthorized(
                "missing-key", f"{needs} an admin API key: Authorization: Bearer <key>"
            )
        if found.role not in MODERATE_ROLES:
            raise ApiError(
                403,
                "wrong-role",
                f"a {found.role} key may not {may} (only an admin key may)",
                "header",
                "authorization",
            )
        return found
