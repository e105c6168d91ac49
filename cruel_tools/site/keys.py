"""API keys and rate limits of ``cruel serve``: who may submit, and how often.

A key is ``cruel_`` and 32 random bytes (:mod:`secrets`), shown once, when it is made; the
store keeps only its SHA-256 hash, beside an id, a label, a role and its dates, in a table
``api_keys`` of the store (:mod:`cruel_tools.site.tables`). ``cruel keys add|list|revoke`` manage
them.

Rate limits are token buckets (:class:`TokenBuckets`), in memory: each server process has its
own. See ``docs/service.md`` (Keys and rate limits).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
import secrets
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Final, Literal, get_args

from ..errors import CruelError
from .tables import Store

__all__ = [
    "KEY_PREFIX",
    "Role",
    "ROLES",
    "SUBMIT_ROLES",
    "MODERATE_ROLES",
    "BadKeyRequest",
    "check_request",
    "MAX_NAME",
    "BadRate",
    "ApiKey",
    "KeyStore",
    "new_key",
    "key_hash",
    "RateLimit",
    "parse_rate",
    "TokenBuckets",
    "RateLimited",
    "throttle",
]

KEY_PREFIX: Final = "cruel_"
#: ``site``: a site's back end, submitting for the players it has authenticated.
#: ``admin``: moderation (``/v1/admin``, docs/service.md); it may not submit.
Role = Literal["site", "admin"]
ROLES: Final[tuple[str, ...]] = get_args(Role)
#: The roles that may send submissions.
SUBMIT_ROLES: Final = frozenset({"site"})
#: The roles that may moderate (hide, delete, ban; read the audit log).
MODERATE_ROLES: Final = frozenset({"admin"})
#: Longest label of a key.
MAX_NAME: Final = 100
# What a key as made by new_key() looks like: a header that does not is refused before the store
# is asked (43 url-safe characters: base64 of 32 bytes, unpadded).
_KEY_SHAPE: Final = re.compile(rf"{KEY_PREFIX}[A-Za-z0-9_-]{{43}}")


class BadKeyRequest(CruelError):
    """A key cannot be made or revoked as asked (bad role or label, no such id)."""

    code = "bad-key-request"


def new_key() -> str:
    """A new random key: ``cruel_`` and 32 bytes from :mod:`secrets`, url-safe base64."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    """What the store keeps of a key: its SHA-256, in hex.

    A plain, fast hash is enough here, unlike for passwords: a key is 256 random bits, so no
    one can guess it from its hash, however fast they hash (a slow, salted hash such as scrypt
    only protects secrets people choose, which are few enough to try them all). And an unsalted
    hash can be looked up by an index, so checking a key compares no secret byte by byte: the
    time a lookup takes says nothing useful about any stored key.
    """
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    """A key as the store describes it: never the key itself."""

    id: int
    name: str
    role: Role
    created_at: dt.datetime
    revoked_at: dt.datetime | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


def check_request(name: str, role: str) -> str:
    """The name a new key of ``role`` is stored under (stripped), or :class:`BadKeyRequest`:
    checked before any database is opened, so that ``cruel keys add --create`` with a bad role
    or name makes none."""
    if role not in ROLES:
        raise BadKeyRequest(f"unknown role {role!r} (one of {', '.join(ROLES)})")
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise BadKeyRequest(f"a key's name is 1 to {MAX_NAME} printable characters")
    return name


class KeyStore(Store):
    """The API keys, in the table ``api_keys`` of the store
    (:class:`~cruel_tools.site.tables.Store`:
    an SQLite file, created if missing, or a ``postgresql://`` URL). Safe to share between
    threads; the server reads it on every write request, so a key revoked by ``cruel keys
    revoke`` is refused from the next request on, in every process.
    """

    def add(self, name: str, role: str, now: dt.datetime | None = None) -> tuple[ApiKey, str]:
        """Make a key: its description and the key, which is not kept (only its hash)."""
        name = check_request(name, role)
        key = new_key()
        when = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
        with self.database.write() as db:
            (key_id,) = db.execute(
                "INSERT INTO api_keys (hash, name, role, created_at) VALUES (?, ?, ?, ?)"
                " RETURNING id",
                (key_hash(key), name, role, when.isoformat()),
            ).fetchone()
        return ApiKey(int(key_id), name, role, when, None), key  # type: ignore[arg-type]

    def keys(self) -> list[ApiKey]:
        """Every key ever made, revoked ones too, oldest first."""
        with self.database.read() as db:
            rows = db.execute(f"SELECT {_COLUMNS} FROM api_keys ORDER BY id").fetchall()
        return [_api_key(row) for row in rows]

    def get(self, key_id: int) -> ApiKey | None:
        with self.database.read() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM api_keys WHERE id = ?", (key_id,)).fetchone()
        return _api_key(row) if row else None

    def revoke(self, key_id: int, now: dt.datetime | None = None) -> ApiKey:
        """Revoke a key (for good); a key revoked already keeps its first revocation date."""
        when = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
        with self.database.write() as db:
            db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (when.isoformat(), key_id),
            )
        found = self.get(key_id)
        if found is None:
            raise BadKeyRequest(f"no key has the id {key_id}")
        return found

    def find(self, key: str) -> ApiKey | None:
        """The key's description, revoked or not; None for a key that was never made.

        Looked up by its hash (an index): no stored secret is compared byte by byte.
        """
        if not _KEY_SHAPE.fullmatch(key):
            return None
        with self.database.read() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM api_keys WHERE hash = ?", (key_hash(key),)
            ).fetchone()
        return _api_key(row) if row else None


_COLUMNS: Final = "id, name, role, created_at, revoked_at"


def _api_key(row: tuple[int, str, str, str, str | None]) -> ApiKey:
    key_id, name, role, created, revoked = row
    return ApiKey(
        id=key_id,
        name=name,
        role=role,  # type: ignore[arg-type]
        created_at=dt.datetime.fromisoformat(created),
        revoked_at=dt.datetime.fromisoformat(revoked) if revoked else None,
    )


# --- rate limits ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RateLimit:
    """A token bucket's shape: ``rate`` tokens a second, at most ``burst`` saved up."""

    rate: float
    burst: int

    def __post_init__(self) -> None:
        if not (self.rate > 0 and math.isfinite(self.rate)) or self.burst < 1:
            raise ValueError(f"bad rate limit {self.rate}/s, burst {self.burst}")


_UNITS: Final = {"s": 1.0, "min": 60.0, "h": 3600.0}


class BadRate(CruelError):
    """A rate that is not ``N/s``, ``N/min``, ``N/h`` or ``off``."""

    code = "bad-rate"


def parse_rate(text: str) -> float | None:
    """Tokens a second from ``10/s``, ``30/min``, ``100/h``; None for ``off`` (no limit)."""
    if text.strip().lower() == "off":
        return None
    count, _, unit = text.strip().partition("/")
    try:
        rate = float(count) / _UNITS[unit.strip() or "s"]
    except (ValueError, KeyError):
        rate = math.nan
    if not (rate > 0 and math.isfinite(rate)):
        raise BadRate(f"not a rate: {text!r} (use N/s, N/min or N/h, N > 0, or off)")
    return rate


class TokenBuckets:
    """One token bucket per key (a key id, a player name), all of one :class:`RateLimit`.

    A bucket starts full (``burst`` tokens) and refills at ``rate`` tokens a second; a request
    takes one token, or is refused with the seconds until one is there. In memory, per process.
    Full buckets are forgotten now and then (they are the same as new ones), so the memory held
    is that of the keys seen in the last ``burst / rate`` seconds or so.
    """

    #: Buckets held before full ones are swept.
    SWEEP_AT: Final = 10_000

    def __init__(self, limit: RateLimit, clock: Callable[[], float]) -> None:
        self.limit = limit
        self.clock = clock
        self._buckets: dict[Hashable, tuple[float, float]] = {}  # key: (tokens, at)
        self._lock = threading.Lock()
        self._sweep_at = self.SWEEP_AT

    def _level(self, key: Hashable, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.limit.burst), now))
        return min(float(self.limit.burst), tokens + max(0.0, now - at) * self.limit.rate)

    def take(self, key: Hashable) -> float:
        """Take a token from ``key``'s bucket: 0.0, or, when it is empty, the seconds until
        it has one again (and nothing is taken)."""
        with self._lock:
            now = self.clock()
            tokens = self._level(key, now)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                return (1.0 - tokens) / self.limit.rate
            self._buckets[key] = (tokens - 1.0, now)
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            return 0.0

    def give_back(self, key: Hashable) -> None:
        """Return a token taken from ``key``'s bucket for a request that turned out not to
        count (a right link code: only wrong ones are limited). Taken first and given back,
        so that requests racing each other cannot all pass a bucket with one token left."""
        with self._lock:
            now = self.clock()
            self._buckets[key] = (min(float(self.limit.burst), self._level(key, now) + 1.0), now)

    def _sweep(self, now: float) -> None:
        burst = float(self.limit.burst)
        self._buckets = {k: v for k, v in self._buckets.items() if self._level(k, now) < burst}
        self._sweep_at = max(self.SWEEP_AT, 2 * len(self._buckets))

    def __len__(self) -> int:
        return len(self._buckets)


class RateLimited(Exception):
    """A request over its token bucket: refused, to be sent again in ``seconds`` (a whole
    number, at least 1). ``path``: what was limited, as a JSON pointer into the request
    (``/player``), or None for its sender (the API key).

    Not a :class:`~cruel_tools.errors.CruelError`: nothing is wrong with the input; retry.
    """

    def __init__(self, seconds: int, what: str, path: str | None = None) -> None:
        super().__init__(f"too many submissions {what}; retry in {seconds} s")
        self.seconds = seconds
        self.path = path


def throttle(
    buckets: TokenBuckets | None, key: Hashable, what: str, path: str | None = None
) -> None:
    """Take a token from ``key``'s bucket (no buckets: no limit), or raise
    :class:`RateLimited` with the whole seconds until the bucket has a token again."""
    if buckets is None:
        return
    wait = buckets.take(key)
    if wait > 0:
        raise RateLimited(max(1, math.ceil(wait - 1e-9)), what, path)
