"""What ``cruel serve`` is told to serve (:class:`Settings`), with no web stack imported."""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson

from ..constants import (
    ANALYZE_BURST,
    ANALYZE_RATE,
    DB_TIMEOUT,
    DEFAULT_DB,
    HINT_BURST,
    HINT_RATE,
    KEY_BURST,
    KEY_RATE,
    PLAYER_BURST,
    PLAYER_RATE,
    REPLAY_BURST,
    REPLAY_RATE,
    SERVE_OPTIONS,
    SWEEP_INTERVAL,
)
from ..dates import parse_date
from ..errors import CruelError
from ..game.log import Limits
from ..puzzles.location import demo_day
from ..site.attempts import Policy
from ..site.keys import RateLimit

__all__ = [
    "KEY_LIMIT",
    "PLAYER_LIMIT",
    "ANALYZE_LIMIT",
    "HINT_LIMIT",
    "REPLAY_LIMIT",
    "ENV_SETTINGS",
    "UnknownZone",
    "time_zone",
    "embed_origin",
    "Settings",
]

#: Default rate limits of submissions (``cruel serve --rate-key/--burst-key``, ``--rate-player/
#: --burst-player``): a key's buckets are its site's, a player's are shared by every key.
KEY_LIMIT: Final = RateLimit(rate=KEY_RATE, burst=KEY_BURST)
PLAYER_LIMIT: Final = RateLimit(rate=PLAYER_RATE, burst=PLAYER_BURST)
#: Default rate limit of analyses (``--analyze-rate``, ``--analyze-burst``): one bucket per client
#: address, one per API key (docs/service.md, Help for open puzzles and costly requests).
ANALYZE_LIMIT: Final = RateLimit(rate=ANALYZE_RATE, burst=ANALYZE_BURST)
#: Default rate limit of hints (``--hint-rate``, ``--hint-burst``): buckets of their own, per
#: client address and per API key (docs/service.md, Hints).
HINT_LIMIT: Final = RateLimit(rate=HINT_RATE, burst=HINT_BURST)
#: Default rate limit of replays (``--replay-rate``, ``--replay-burst``): one bucket per client
#: address (docs/service.md, Cost of each route).
REPLAY_LIMIT: Final = RateLimit(rate=REPLAY_RATE, burst=REPLAY_BURST)

#: Where ``cruel serve --workers N`` passes its settings to the worker processes.
ENV_SETTINGS: Final = "CRUEL_SERVE_SETTINGS"


class UnknownZone(CruelError):
    """A time zone that is not an IANA name known on this machine (``cruel serve --tz``)."""

    code = "unknown-zone"


def time_zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``UTC``, ``Europe/Paris``); :class:`UnknownZone` if there is
    none by that name."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # ValueError: "../x", "/etc/x", ""
        raise UnknownZone(
            f"unknown time zone {name!r} (use an IANA name, like UTC or Europe/Paris)"
        ) from None


#: What every refusal of :func:`embed_origin` ends with.
_ORIGIN_FORM: Final = "an origin is scheme://host[:port], like https://games.example"
#: A host name as browsers write it in ``Origin``: ASCII labels (an IDN in its xn-- form), or
#: an IPv4 address; lower case once read.
_HOST_NAME: Final = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def embed_origin(text: str) -> str:
    """``text`` (``cruel serve --embed-origin``) as browsers send it in ``Origin``: ``http`` or
    ``https``, a host, a port unless it is the scheme's own; the scheme and host in lower case.
    Anything else (a path, even ``/``; a query, a fragment, a user, ``*``) is a ValueError
    saying what, since a browser never sends it and a pattern would let in origins unseen."""
    if "*" in text:
        raise ValueError(f"{text!r} is not an origin: it has a wildcard ({_ORIGIN_FORM})")
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in _DEFAULT_PORTS:
        raise ValueError(f"{text!r} is not an origin: no http:// or https:// ({_ORIGIN_FORM})")
    for mark, what in (("@", "a user"), ("/", "a path"), ("?", "a query"), ("#", "a fragment")):
        if mark in rest:
            raise ValueError(f"{text!r} is not an origin: it has {what} ({_ORIGIN_FORM})")
    host, port = _host_port(text, rest.lower())
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        return f"{scheme}://{host}:{port}"
    return f"{scheme}://{host}"


def _host_port(text: str, rest: str) -> tuple[str, int | None]:
    """The host (an IPv6 address in brackets, compressed) and the port of ``rest``, the part
    of an origin after ``://``; ValueError naming ``text`` when either is not one."""
    if rest.startswith("["):
        inside, bracket, port = rest[1:].partition("]")
        try:
            host = f"[{ipaddress.IPv6Address(inside).compressed}]" if bracket else ""
        except ValueError:
            host = ""
        if port and not port.startswith(":"):
            host = ""
        port = port[1:]
    else:
        host, _, port = rest.partition(":")
        host = host if _HOST_NAME.fullmatch(host) else ""
    if not host:
        raise ValueError(f"{text!r} is not an origin: no host name or address ({_ORIGIN_FORM})")
    if port == "" and not rest.endswith(":"):
        return host, None
    if not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise ValueError(f"{text!r} is not an origin: the port is not 1-65535 ({_ORIGIN_FORM})")
    return host, int(port)


def _default(setting: str) -> Any:
    """The default of the option of ``cruel serve`` that sets ``setting``: stated once, in
    :data:`~cruel_tools.constants.SERVE_OPTIONS`."""
    return next(o.default for o in SERVE_OPTIONS if o.setting == setting)


def _now(zone: ZoneInfo) -> dt.datetime:
    """The time now in ``zone`` (a test sets the clock here)."""
    return dt.datetime.now(zone)


@dataclass
class Settings:
    """What ``cruel serve`` is told to serve."""

    puzzles: Path = Path("puzzles")
    #: The store: an SQLite file's path, or a ``postgresql://user@host:port/dbname`` URL.
    db: Path | str = Path(DEFAULT_DB)
    max_body: int = _default("max_body")
    max_moves: int = Limits().max_moves
    #: Seconds a submission waits for a database locked by another process (then 503).
    db_timeout: float = DB_TIMEOUT
    #: Seconds between two integrity checks of the database file (docs/service.md, Integrity).
    check_interval: float = _default("check_interval")
    #: The server's date (puzzles up to it are open, solutions of earlier ones public); None:
    #: the date now in ``tz``.
    fixed_today: dt.date | None = _default("fixed_today")
    #: The IANA time zone whose dates open puzzles (a puzzle opens at the start of its date).
    tz: str = _default("tz")
    #: Take submissions without an API key (demos): ``cruel serve --open``.
    open: bool = _default("open")
    #: Addresses or networks of reverse proxies whose ``X-Forwarded-For`` is believed
    #: (``cruel serve --trusted-proxy``; :func:`cruel_tools.service.clients.client_address`).
    trusted_proxies: tuple[str, ...] = ()
    #: Origins of other sites whose pages may call the embed routes from a browser (CORS:
    #: ``cruel serve --embed-origin``; :mod:`cruel_tools.service.embedding`), each as
    #: :func:`embed_origin` writes it; none: no route answers another origin.
    embed_origins: tuple[str, ...] = ()
    #: Submissions each key may send (its token bucket); None: no limit.
    key_limit: RateLimit | None = KEY_LIMIT
    #: Submissions each player name may get, from all keys together; None: no limit.
    player_limit: RateLimit | None = PLAYER_LIMIT
    #: Analyses each client address, and each API key, may ask for; None: no limit.
    analyze_limit: RateLimit | None = ANALYZE_LIMIT
    #: Hints each client address, and each API key, may ask for; None: no limit.
    hint_limit: RateLimit | None = HINT_LIMIT
    #: Analyses running at once in one server process; more are answered 503 busy.
    max_analyses: int = _default("max_analyses")
    #: Hints running at once in one server process (their own places and processes, apart
    #: from the analyses'); more are answered 503 busy.
    max_hints: int = _default("max_hints")
    #: Replays each client address may ask for; None: no limit.
    replay_limit: RateLimit | None = REPLAY_LIMIT
    #: Replays running at once in one server process; more are answered 503 busy.
    max_replays: int = _default("max_replays")
    #: Seconds without a step after which a live attempt expires (``--attempt-timeout``).
    attempt_timeout: float = _default("attempt_timeout")
    #: Milliseconds of wall time per player step under which a live win is flagged for a
    #: moderator (``--speed-floor``; docs/service.md, Live attempts and moderation queue).
    speed_floor_ms: int = _default("speed_floor_ms")
    #: What one player name may store (issue #33; docs/service.md, Storage bounds): live
    #: attempts open at once, steps an attempt records, starts a minute and a day, valid tokens
    #: (``--max-open-attempts``, ``--max-attempt-steps``, ``--attempts-per-minute``,
    #: ``--attempts-per-day``, ``--max-tokens``); names one address may claim a day
    #: (``--claims-per-day``); hours an ended attempt's steps are kept unless it won
    #: (``--keep-steps``), and seconds between two sweeps of them.
    max_open_attempts: int = _default("max_open_attempts")
    max_attempt_steps: int = _default("max_attempt_steps")
    attempts_per_minute: int = _default("attempts_per_minute")
    attempts_per_day: int = _default("attempts_per_day")
    max_tokens: int = _default("max_tokens")
    claims_per_day: int = _default("claims_per_day")
    keep_steps_hours: float = _default("keep_steps_hours")
    sweep_interval: float = SWEEP_INTERVAL
    #: A submitted log at par or better (no live attempt timed it) waits in the review queue
    #: (``--no-review-par`` turns it off: a server among friends, or a test of something else).
    review_untimed_par: bool = _default("review_untimed_par")
    #: Logs sent with a player's token or under ``--open`` rank like timed play
    #: (``--rank-untimed``: a server among friends). Off, they are stored and shown unranked:
    #: nothing timed them (issue #33, finding 4; docs/service.md, Ranked and unranked entries).
    rank_untimed: bool = _default("rank_untimed")
    #: Milliseconds a player step under which a live win at par or better is flagged
    #: ``fast-par`` for a moderator (``--par-pace``; 0: never).
    par_pace_ms: int = _default("par_pace_ms")
    #: Wrong link codes one client address may send, then as many again an hour
    #: (``--link-guesses``; docs/service.md, Linking a second device).
    link_guesses: int = _default("link_guesses")
    #: The puzzles are the packaged public demo set (``PuzzleLocation.demo``): with no
    #: ``fixed_today``, a date outside the set's dates is served as its place in the set's cycle
    #: (:func:`~cruel_tools.puzzles.location.demo_day`), so that the demo can be played on any date.
    #: With a ``secret_file`` the set is not served at all (:attr:`demo_cycle`).
    demo: bool = False
    #: The demo set's first and last dates, set by ``create_app`` from the set it loads.
    demo_dates: tuple[dt.date, dt.date] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: The site's secret (``--secret-file``): days are published ahead from its stream; None:
    #: from none (or the public stream, ``open``). Each process reads the file: the secret is
    #: never passed in the environment (docs/service.md, Publishing ahead).
    secret_file: Path | None = _default("secret_file")
    #: Days after today kept published (``--ahead``).
    ahead: int = _default("ahead")
    #: Seconds between two looks at the database for days published by another process.
    publish_poll: float = 5.0
    #: Bytes the process making a day may hold at its peak (``--publish-memory``); None: half
    #: the machine's memory (:func:`cruel_tools.memory.default_budget`).
    publish_memory: int | None = _default("publish_memory")
    #: Seconds, for the rate limits' buckets (a test sets its own clock here; not sent to workers).
    clock: Callable[[], float] = field(default=time.monotonic, repr=False, compare=False)
    #: The server's time of attempts' starts and submissions' arrivals (a test sets its own).
    wall_clock: Callable[[], dt.datetime] = field(
        default=lambda: dt.datetime.now(dt.UTC), repr=False, compare=False
    )

    @property
    def demo_cycle(self) -> bool:
        """The demo set is served, as a cycle of its dates: its location (``demo``) with no
        secret (``--open``, or a first try). A server given the site's secret is a site: it
        serves none of the public demo set, and publishes today, then the days ahead, into its
        database (issue #34; docs/service.md, Running a site)."""
        return self.demo and self.secret_file is None

    def today(self) -> dt.date:
        if self.fixed_today is not None:
            return self.fixed_today
        day = _now(time_zone(self.tz)).date()
        return day if self.demo_dates is None else demo_day(day, *self.demo_dates)

    @property
    def policy(self) -> Policy:
        """The live attempts' timeout and speed floor."""
        timeout = dt.timedelta(seconds=self.attempt_timeout)
        return Policy(
            timeout=timeout,
            floor_ms=self.speed_floor_ms,
            par_pace_ms=self.par_pace_ms,
            max_open=self.max_open_attempts,
            max_steps=self.max_attempt_steps,
            per_minute=self.attempts_per_minute,
            per_day=self.attempts_per_day,
            keep_steps=dt.timedelta(hours=self.keep_steps_hours),
        )

    @property
    def limits(self) -> Limits:
        return Limits(max_bytes=self.max_body, max_moves=self.max_moves)

    def to_env(self) -> str:
        """The settings as JSON, for the worker processes (:data:`ENV_SETTINGS`): every field
        but the clocks and what ``create_app`` sets."""
        return orjson.dumps({f.name: _encode(getattr(self, f.name)) for f in _sent()}).decode()

    @classmethod
    def from_env(cls, text: str) -> Settings:
        """The settings :meth:`to_env` wrote."""
        doc = orjson.loads(text)
        given = {f.name: doc[f.name] for f in _sent() if f.name in doc}
        for name, value in given.items():
            decode = _DECODE.get(str(_field_types()[name]))
            given[name] = value if value is None or decode is None else decode(value)
        return cls(**given)

    @classmethod
    def from_options(cls, values: Mapping[str, Any], **more: Any) -> Settings:
        """The settings ``cruel serve`` is given: each option's value (parsed: a rate as
        requests a second, None for off), by its parameter's name in
        :data:`~cruel_tools.constants.SERVE_OPTIONS`, set on the field its row names; a rate
        and a burst make one :class:`RateLimit` (none when the rate is off). ``more``: fields no
        option sets as it is (``demo``)."""
        given: dict[str, Any] = {}
        limits: dict[str, dict[str, Any]] = {}
        for option in SERVE_OPTIONS:
            if option.setting is not None:
                name, _, part = option.setting.partition(".")
                value = values[option.param]
                if part:
                    limits.setdefault(name, {})[part] = value
                else:
                    given[name] = value
        for name, limit in limits.items():
            given[name] = RateLimit(**limit) if limit["rate"] else None
        return cls(**given, **more)


def _sent() -> list[Any]:
    """The fields :meth:`Settings.to_env` passes on: not the clocks (each process has its own),
    not what ``create_app`` sets (``init=False``)."""
    return [f for f in fields(Settings) if f.init and f.compare]


def _field_types() -> dict[str, Any]:
    """Each field's type as written (``"Path | None"``): what :data:`_DECODE` is keyed by."""
    return {f.name: f.type for f in fields(Settings)}


def _encode(value: Any) -> Any:
    """A field's value as JSON has it: a path as text, a date ISO 8601, a limit a dict."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, RateLimit):
        return _limit_doc(value)
    return list(value) if isinstance(value, tuple) else value


#: How a field's JSON value is read back, by its type as written; other types are JSON's own.
#: ``db`` (``Path | str``) stays text: the store takes either.
_DECODE: Final[dict[str, Callable[[Any], Any]]] = {
    "Path": Path,
    "Path | None": Path,
    "dt.date | None": parse_date,
    "RateLimit | None": lambda doc: RateLimit(**doc),
    "tuple[str, ...]": tuple,
}


def _limit_doc(limit: RateLimit | None) -> dict[str, float] | None:
    return {"rate": limit.rate, "burst": limit.burst} if limit else None
