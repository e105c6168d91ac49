"""Defaults the library uses and the ``cruel`` command's help shows, stated once, here, where
importing them costs nothing.

The CLI builds every command's help at each start; taking these from
:mod:`cruel_tools.advice.analysis`
and :mod:`cruel_tools.search.grading` made every command import the solver and the puzzles first
(issue #22). Those modules re-export them under their own names (``analysis.MAX_STATES``,
``grading.Tier``), which the rest of the code uses. So do ``cruel serve``'s options: the service,
the guard, the stores and the integrity watch take their defaults from here, and the CLI's
options show the same values without importing the web stack (issue #23: one source).
:data:`SERVE_OPTIONS` states each option of ``cruel serve`` once (issue #35): the CLI makes its
options from it, and the service's ``Settings`` its defaults and its values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

__all__ = [
    "UNDO_SNAPSHOT_STEPS",
    "ANALYSIS_MAX_STATES",
    "ANALYSIS_NATIVE_MAX_STATES",
    "ANALYSIS_DEEP_STATES",
    "ANALYSIS_FAMILY_WIN_DIVISOR",
    "SOLVE_MAX_STATES",
    "SOLVE_DEFAULT_STATES",
    "HINT_MAX_STATES",
    "Tier",
    "DEFAULT_DB",
    "MAX_BODY",
    "DB_TIMEOUT",
    "CHECK_INTERVAL",
    "KEY_RATE",
    "KEY_BURST",
    "PLAYER_RATE",
    "PLAYER_BURST",
    "HEAD_TIMEOUT",
    "BODY_TIMEOUT",
    "MAX_CONNECTIONS",
    "MAX_PER_CLIENT",
    "ANALYZE_RATE",
    "ANALYZE_BURST",
    "HINT_RATE",
    "HINT_BURST",
    "MAX_ANALYSES",
    "MAX_HINTS",
    "PUBLISH_AHEAD",
    "MAX_OPEN_ATTEMPTS",
    "MAX_ATTEMPT_STEPS",
    "ATTEMPTS_PER_MINUTE",
    "ATTEMPTS_PER_DAY",
    "CLAIMS_PER_DAY",
    "MAX_TOKENS",
    "KEEP_STEPS_HOURS",
    "SWEEP_INTERVAL",
    "REPLAY_MAX_STEPS",
    "REPLAY_MAX_BYTES",
    "REPLAY_RATE",
    "REPLAY_BURST",
    "MAX_REPLAYS",
    "PARSE_INLINE_BYTES",
    "MAX_PARSES",
    "LINK_GUESSES",
    "LINK_GUESS_HOURS",
    "LINK_CODE_MAX_WRONG",
    "PAR_PACE_MS",
    "ATTEMPT_TIMEOUT",
    "SPEED_FLOOR_MS",
    "ServeOption",
    "SERVE_OPTIONS",
]

#: Positions each solve of the analysis may expand (where the win was lost) on the Python engine,
#: and the fewest-actions search of a won game (and ``POST /v1/analyze``'s solves, at most).
ANALYSIS_MAX_STATES: Final = 50_000
#: Positions each solve of a lost game's analysis may expand by default where the native core
#: plays the profile (issue #25; docs/analysis.md, Budgets): a hundred times faster, so forty
#: times the budget.
ANALYSIS_NATIVE_MAX_STATES: Final = 2_000_000
#: Positions a hint's solve may expand (``cruel hint``, ``POST /v1/hint``; issue #27): chosen so
#: that a hint of a closed published puzzle's position answers in under 200 ms at the p95 with
#: the native core (benchmarks/hint_bench.py, benchmarks/RESULTS.md issue #27).
HINT_MAX_STATES: Final = 100_000
#: Positions each fewest-actions search of the analysis may expand with ``deep`` (one per
#: position of the log).
ANALYSIS_DEEP_STATES: Final = 5_000
#: A won game's fewest-actions search outside Cruel's own layout (Ripple Fan, Royal Family and
#: their PySolFC variants) runs in Python over every legal step, at 0.2-0.45 ms a position
#: against Cruel's 0.1 ms (native: far less): a budget of positions given for a win
#: (``POST /v1/analyze``'s) is divided by this there, so that a win's analysis costs what it
#: does on Cruel, at most about 1.5 s of one core (issue #33, finding 3: 10,000 positions took
#: up to 4.0 s under royal-family-pysolfc; benchmarks/analyze_cost.py, benchmarks/RESULTS.md).
ANALYSIS_FAMILY_WIN_DIVISOR: Final = 4
#: Positions grading's solver may expand (its ladder's last rung; a published day's records
#: depend on it, so it stays as the committed puzzles were made).
SOLVE_MAX_STATES: Final = 200_000
#: Positions ``cruel solve`` may expand by default (``--max-states``): half for the proof search,
#: enough to decide every deal the winnability study's proof search decides at 10 s a deal
#: (issue #38: on deals 1-10,000 the most a decided deal took was 1,259,198, deal 205, proven
#: unwinnable; 200,000 left it unknown), and half for the beams that look for a win
#: (search/decide.py). A count, not seconds, so that a verdict is the same on every machine.
SOLVE_DEFAULT_STATES: Final = 4_000_000

#: The tiers, easiest first. mypy and pydantic need a Literal written out (mypy cannot read one
#: built from a table at run time), so this repeats the tier column of ``grading.LADDER``; the
#: rows are typed ``Tier`` (mypy refuses a row with another tier) and, below the table, an
#: import-time check refuses a Literal that is not exactly the table's tiers in order.
Tier = Literal["easy", "medium", "hard", "expert"]

# --- the service (cruel serve) and its stores ----------------------------------------------------

#: The store ``cruel serve`` and ``cruel keys`` use without ``--db``: an SQLite file here.
DEFAULT_DB: Final = "cruel.sqlite"
#: Largest request body, in bytes (``--max-body``; the log limit of ``cruel verify`` too).
MAX_BODY: Final = 1 << 20
#: Seconds a write waits for a database locked by another process (then 503 busy).
DB_TIMEOUT: Final = 10.0
#: Seconds between two ``quick_check`` runs of a running server (``--check-interval``).
CHECK_INTERVAL: Final = 60.0
#: Submissions a second each API key may send, and at once (``--rate-key``, ``--burst-key``).
KEY_RATE: Final = 10.0
KEY_BURST: Final = 50
#: Submissions a second each player name may get from all keys, and at once
#: (``--rate-player``, ``--burst-player``).
PLAYER_RATE: Final = 1.0
PLAYER_BURST: Final = 5
#: Seconds a request's line and headers may take, and its body after them (``--head-timeout``,
#: ``--body-timeout``).
HEAD_TIMEOUT: Final = 10.0
BODY_TIMEOUT: Final = 20.0
#: Open connections before 503s, and from one client address before 429s
#: (``--max-connections``, ``--max-per-client``).
MAX_CONNECTIONS: Final = 256
MAX_PER_CLIENT: Final = 32
#: ``POST /v1/analyze``, the costly route (issue #24): analyses a second from each client address
#: and each API key, and at once (``--analyze-rate``, ``--analyze-burst``); analyses running at
#: once in one server process, more answered 503 busy (``--max-analyses``).
ANALYZE_RATE: Final = 0.1
ANALYZE_BURST: Final = 10
#: ``POST /v1/hint`` (issue #27): hints a second from each client address and each API key, and
#: at once (``--hint-rate``, ``--hint-burst``). Looser than analyses: a player in practice may ask
#: at every step (a win is 50-90 of them; a hint's budget is a twentieth of an analysis').
HINT_RATE: Final = 0.5
HINT_BURST: Final = 30
MAX_ANALYSES: Final = 1
#: Hints running at once in one server process, in processes of their own, apart from the
#: analyses' (``--max-hints``; issue #33, finding 3: hints that shared the analyses' one place
#: were refused busy 24 times of 25 while one address looped analyses).
MAX_HINTS: Final = 1
#: ``POST /v1/replay`` (issue #33, finding 1): most steps one answer shows (a longer window is
#: cut there, and the answer's ``window.next`` says where the next one starts), and most bytes
#: of those steps (a position is about 300 bytes: 2,000 steps are about 0.6 MB and 40 ms of
#: CPU, where a whole 10,000-step log was 3.5 MB and 0.28 s).
REPLAY_MAX_STEPS: Final = 2_000
REPLAY_MAX_BYTES: Final = 1 << 20
#: Replays a second from each client address, and at once (``--replay-rate``,
#: ``--replay-burst``): a web page asks one window per 2,000 steps (at most 5 for a log of
#: 10,000); replays running at once in one server process, more answered 503 busy
#: (``--max-replays``).
REPLAY_RATE: Final = 1.0
REPLAY_BURST: Final = 20
MAX_REPLAYS: Final = 2
#: Request bodies up to this many bytes are parsed on the event loop (the worst such body, a
#: meta of nested arrays, costs about 0.3 ms; a won game's log is 1-3 KB); bigger ones in one of
#: ``MAX_PARSES`` processes (issue #33, finding 2; service/bodies.py says why).
PARSE_INLINE_BYTES: Final = 4_096
MAX_PARSES: Final = 1
#: Days after today ``cruel serve`` keeps published (``--ahead``; docs/service.md, Publishing
#: ahead).
PUBLISH_AHEAD: Final = 7

# --- storage bounds (issue #33, finding 5: one name with ten tokens, starting an attempt a
# second and filling each, wrote 1.2-1.4 GB an hour) ----------------------------------------------

#: Live attempts one player name may hold open at once (``--max-open-attempts``): a player has one
#: game per device; more is refused 409 ``too-many-open-attempts`` until one ends or expires.
MAX_OPEN_ATTEMPTS: Final = 3
#: Steps (player and automatic, undos included) one live attempt may record
#: (``--max-attempt-steps``; 409 ``attempt-full``): a won game is 60-200 of them with its
#: automatic moves, so this is several games' worth of undos, and about 210 KB on SQLite.
MAX_ATTEMPT_STEPS: Final = 1000
#: Live attempts one player name may start a minute, and a day (rolling windows, in the store:
#: shared by every worker and instance; ``--attempts-per-minute``, ``--attempts-per-day``; 429
#: ``too-many-attempts`` with ``Retry-After``). A day's steps of one name are so at most
#: ``ATTEMPTS_PER_DAY * MAX_ATTEMPT_STEPS`` (50,000 steps, about 10 MB on SQLite).
ATTEMPTS_PER_MINUTE: Final = 5
ATTEMPTS_PER_DAY: Final = 50
#: Names one client address may claim a day (``--claims-per-day``; 429 ``rate-limited``): a
#: family or a class behind one address claims a name each, a squatter cannot take thousands.
CLAIMS_PER_DAY: Final = 10
#: Valid tokens one player name may hold: its devices (``--max-tokens``; 409 ``too-many-tokens``:
#: a moderator revokes them, and hands out a link code).
MAX_TOKENS: Final = 10
#: Hours the steps of an ended live attempt that did not win (given up, expired, blocked) are
#: kept before they are deleted (``--keep-steps``); the attempt's row (its start, end, status
#: and standing line) stays. A win's steps stay: they are the evidence of its time.
KEEP_STEPS_HOURS: Final = 24.0
#: Seconds between two sweeps of a running server (ending attempts left open past their timeout,
#: deleting the steps past ``KEEP_STEPS_HOURS``).
SWEEP_INTERVAL: Final = 300.0

#: A live attempt's standing line is replayed with a snapshot of its position every this many
#: steps, and an undo plays from the last snapshot within the shortened line: an undo costs at
#: most this many steps and one step's automatic moves, not the whole line (issue #33, finding
#: 6). Not an operator's setting: it trades a copy of 52 cards for up to this many engine steps.
UNDO_SNAPSHOT_STEPS: Final = 32

#: Link codes (issue #33, finding 9: five wrong guesses from anyone voided a player's code).
#: Wrong codes one client address may send at once, then one more every ``LINK_GUESS_HOURS /
#: LINK_GUESSES`` hours (``--link-guesses``; in memory, per process, like every rate limit):
#: too few for one stranger to void a code.
LINK_GUESSES: Final = 5
LINK_GUESS_HOURS: Final = 1.0
#: Wrong codes sent for one player from all addresses before their live code is void: twenty
#: addresses' worth, and still odds of about 1 in 10^10 for a guesser (2^40 codes).
LINK_CODE_MAX_WRONG: Final = 100
#: A live attempt's win at par or better averaging under this many milliseconds a player step
#: is flagged ``fast-par`` (``--par-pace``; docs/service.md, What the flags catch and miss). A
#: card move is two pointing acts (the card, its target): about 1.1 s each for the average
#: mouse user in the Keystroke-Level Model (Card, Moran and Newell, 1980), some 0.4-0.5 s for a
#: fast practised hand by Fitts' law; so a second a step is under even a player replaying a line
#: they know, and far under one finding the fewest-actions line (no solitaire study measured).
PAR_PACE_MS: Final = 1000
#: Seconds without a step after which a live attempt expires (``--attempt-timeout``), and the
#: milliseconds a player step under which a live win waits for a moderator (``--speed-floor``):
#: :mod:`cruel_tools.site.attempts` reads them as ``TIMEOUT`` and ``SPEED_FLOOR_MS``.
ATTEMPT_TIMEOUT: Final = 1800.0
SPEED_FLOOR_MS: Final = 250


# --- cruel serve's options, stated once ----------------------------------------------------------


@dataclass(frozen=True)
class ServeOption:
    """One option of ``cruel serve``, stated once: the CLI makes its Typer option from this
    row (:mod:`cruel_tools.cli.serving`), and :class:`cruel_tools.service.config.Settings` takes
    its default and its value from it (``Settings.from_options``)."""

    #: The name of the command's parameter (``--help``'s metavar is read from it).
    param: str
    #: The option's names, as Typer takes them (``"--review-par/--no-review-par"``).
    flags: tuple[str, ...]
    #: The parameter's type, as Typer reads it.
    kind: Any
    #: The default, as typed on the command line (a rate as text: ``"10/s"``).
    default: Any
    help: str
    #: The field of :class:`~cruel_tools.service.config.Settings` the option sets
    #: (``"key_limit.rate"``: a part of a rate limit); None: the server's own (listening,
    #: connections, workers).
    setting: str | None = None
    #: How the option's text becomes the setting's value (the CLI's parser of that name, which
    #: names the option in its refusal): date, zone, rate, size, db, proxies, origins,
    #: address.
    parse: str | None = None
    min: float | None = None
    max: float | None = None
    metavar: str | None = None
    show_default: bool = True


_RATE_HELP = "N/s, N/min, N/h or off."
_MEMORY_HELP = (
    "Most memory the process making a day may hold at its peak: 512M, 1.5G, 2GiB or bytes "
    "(default: half the machine's, or of its container's limit). Reached, par keeps its proven "
    "bound."
)

#: Every option of ``cruel serve``, in the order of its ``--help`` (docs/service.md, Running it).
#: A new setting of the server is a row here and a typed field of ``Settings``.
SERVE_OPTIONS: Final[tuple[ServeOption, ...]] = (
    ServeOption("host", ("--host",), str, "127.0.0.1", "Address to listen on."),
    ServeOption("port", ("--port",), int, 8000, "Port.", min=0, max=65535),
    ServeOption(
        "puzzles_dir",
        ("--puzzles",),
        Path | None,
        None,
        "The puzzle set to serve (read once, at start). Default: $CRUEL_PUZZLES, else "
        "./puzzles, else the data folder ($XDG_DATA_HOME/cruel-tools/puzzles), else the "
        "public demo set in the package.",
        setting="puzzles",
        show_default=False,
    ),
    ServeOption(
        "db",
        ("--db",),
        str,
        DEFAULT_DB,
        "SQLite file of the leaderboards (created if missing), or a PostgreSQL server's "
        "postgresql://user@host:port/dbname URL.",
        setting="db",
        parse="db",
    ),
    ServeOption(
        "max_body",
        ("--max-body",),
        int,
        MAX_BODY,
        "Largest request body, in bytes.",
        setting="max_body",
        min=1024,
    ),
    ServeOption(
        "max_connections",
        ("--max-connections",),
        int,
        MAX_CONNECTIONS,
        "Open connections before 503s.",
        min=1,
    ),
    ServeOption(
        "today",
        ("--today",),
        str | None,
        None,
        "Act as if the date in --tz were this one (demos and tests).",
        setting="fixed_today",
        parse="date",
    ),
    ServeOption(
        "tz",
        ("--tz",),
        str,
        "UTC",
        "Time zone (IANA name) of the service's dates: a puzzle opens at the start of its "
        "date there.",
        setting="tz",
        parse="zone",
    ),
    ServeOption(
        "access_log",
        ("--access-log/--no-access-log",),
        bool,
        True,
        "Log every request on standard output.",
    ),
    ServeOption(
        "workers",
        ("--workers",),
        int,
        1,
        "Server processes (one per core).",
        min=1,
        max=64,
    ),
    ServeOption(
        "head_timeout",
        ("--head-timeout",),
        float,
        HEAD_TIMEOUT,
        "Seconds a request's line and headers may take.",
        min=0.1,
    ),
    ServeOption(
        "body_timeout",
        ("--body-timeout",),
        float,
        BODY_TIMEOUT,
        "Seconds a request's body may take after its headers (then 408).",
        min=0.1,
    ),
    ServeOption(
        "max_per_client",
        ("--max-per-client",),
        int,
        MAX_PER_CLIENT,
        "Open connections from one client address (then 429).",
        min=1,
    ),
    ServeOption(
        "check_interval",
        ("--check-interval",),
        float,
        CHECK_INTERVAL,
        "Seconds between two integrity checks of the --db file (quick_check).",
        setting="check_interval",
        min=0.1,
    ),
    ServeOption(
        "open_",
        ("--open",),
        bool,
        False,
        "A local demo: names nobody has claimed may play with no API key or player token "
        "(anyone may then play under such a name; a claimed name always needs its token). A "
        "public site needs no --open: browsers claim names and get tokens.",
        setting="open",
    ),
    ServeOption(
        "rate_key",
        ("--rate-key",),
        str,
        f"{KEY_RATE:g}/s",
        f"Submissions per API key: {_RATE_HELP}",
        setting="key_limit.rate",
        parse="rate",
    ),
    ServeOption(
        "burst_key",
        ("--burst-key",),
        int,
        KEY_BURST,
        "Submissions a key may send at once.",
        setting="key_limit.burst",
        min=1,
    ),
    ServeOption(
        "rate_player",
        ("--rate-player",),
        str,
        f"{PLAYER_RATE:g}/s",
        f"Submissions per player name: {_RATE_HELP}",
        setting="player_limit.rate",
        parse="rate",
    ),
    ServeOption(
        "burst_player",
        ("--burst-player",),
        int,
        PLAYER_BURST,
        "Submissions for one player at once.",
        setting="player_limit.burst",
        min=1,
    ),
    ServeOption(
        "analyze_rate",
        ("--analyze-rate",),
        str,
        f"{ANALYZE_RATE * 60:g}/min",
        f"Analyses per client address and per API key: {_RATE_HELP}",
        setting="analyze_limit.rate",
        parse="rate",
    ),
    ServeOption(
        "analyze_burst",
        ("--analyze-burst",),
        int,
        ANALYZE_BURST,
        "Analyses one address or key may ask at once.",
        setting="analyze_limit.burst",
        min=1,
    ),
    ServeOption(
        "hint_rate",
        ("--hint-rate",),
        str,
        f"{HINT_RATE * 60:g}/min",
        f"Hints per client address and per API key: {_RATE_HELP}",
        setting="hint_limit.rate",
        parse="rate",
    ),
    ServeOption(
        "hint_burst",
        ("--hint-burst",),
        int,
        HINT_BURST,
        "Hints one address or key may ask at once.",
        setting="hint_limit.burst",
        min=1,
    ),
    ServeOption(
        "max_analyses",
        ("--max-analyses",),
        int,
        MAX_ANALYSES,
        "Analyses running at once per worker (then 503 busy).",
        setting="max_analyses",
        min=1,
    ),
    ServeOption(
        "max_hints",
        ("--max-hints",),
        int,
        MAX_HINTS,
        "Hints running at once per worker, apart from the analyses (then 503 busy).",
        setting="max_hints",
        min=1,
    ),
    ServeOption(
        "replay_rate",
        ("--replay-rate",),
        str,
        f"{REPLAY_RATE:g}/s",
        f"Replays per client address: {_RATE_HELP}",
        setting="replay_limit.rate",
        parse="rate",
    ),
    ServeOption(
        "replay_burst",
        ("--replay-burst",),
        int,
        REPLAY_BURST,
        "Replays one address may ask at once.",
        setting="replay_limit.burst",
        min=1,
    ),
    ServeOption(
        "max_replays",
        ("--max-replays",),
        int,
        MAX_REPLAYS,
        "Replays running at once per worker (then 503 busy).",
        setting="max_replays",
        min=1,
    ),
    ServeOption(
        "trusted_proxy",
        ("--trusted-proxy",),
        list[str] | None,
        None,
        "Address or network of a reverse proxy in front (repeatable): its X-Forwarded-For is "
        "believed, and its connections are not capped per address.",
        setting="trusted_proxies",
        parse="proxies",
    ),
    ServeOption(
        "embed_origin",
        ("--embed-origin",),
        list[str] | None,
        None,
        "Origin of another site whose pages may embed the game (repeatable; like "
        "https://games.example): browsers there may read puzzles, ask hints, submit and play "
        "ranked through the API (CORS), nothing else. No path, no *.",
        setting="embed_origins",
        parse="origins",
        metavar="ORIGIN",
    ),
    ServeOption(
        "attempt_timeout",
        ("--attempt-timeout",),
        float,
        ATTEMPT_TIMEOUT,
        "Seconds without a step after which a live attempt expires.",
        setting="attempt_timeout",
        min=10.0,
    ),
    ServeOption(
        "max_open_attempts",
        ("--max-open-attempts",),
        int,
        MAX_OPEN_ATTEMPTS,
        "Live attempts one player name may hold open (then 409 too-many-open-attempts).",
        setting="max_open_attempts",
        min=1,
    ),
    ServeOption(
        "max_attempt_steps",
        ("--max-attempt-steps",),
        int,
        MAX_ATTEMPT_STEPS,
        "Steps one live attempt may record, automatic moves and undos too (then 409 attempt-full).",
        setting="max_attempt_steps",
        min=10,
    ),
    ServeOption(
        "attempts_per_minute",
        ("--attempts-per-minute",),
        int,
        ATTEMPTS_PER_MINUTE,
        "Live attempts one player name may start a minute (then 429 too-many-attempts).",
        setting="attempts_per_minute",
        min=1,
    ),
    ServeOption(
        "attempts_per_day",
        ("--attempts-per-day",),
        int,
        ATTEMPTS_PER_DAY,
        "Live attempts one player name may start a day (then 429 too-many-attempts).",
        setting="attempts_per_day",
        min=1,
    ),
    ServeOption(
        "max_tokens",
        ("--max-tokens",),
        int,
        MAX_TOKENS,
        "Valid tokens (devices) one player name may hold (then 409 too-many-tokens).",
        setting="max_tokens",
        min=1,
    ),
    ServeOption(
        "claims_per_day",
        ("--claims-per-day",),
        int,
        CLAIMS_PER_DAY,
        "Names one client address may claim a day (then 429 rate-limited).",
        setting="claims_per_day",
        min=1,
    ),
    ServeOption(
        "keep_steps",
        ("--keep-steps",),
        float,
        KEEP_STEPS_HOURS,
        "Hours the steps of a live attempt that ended without a win are kept (its row "
        "stays); swept every 5 minutes.",
        setting="keep_steps_hours",
        min=0.0,
    ),
    ServeOption(
        "speed_floor",
        ("--speed-floor",),
        int,
        SPEED_FLOOR_MS,
        "Milliseconds per player step under which a live win waits for a moderator.",
        setting="speed_floor_ms",
        min=0,
    ),
    ServeOption(
        "review_par",
        ("--review-par/--no-review-par",),
        bool,
        True,
        "A submitted log at par or better waits for a moderator (no live attempt timed it).",
        setting="review_untimed_par",
    ),
    ServeOption(
        "rank_untimed",
        ("--rank-untimed",),
        bool,
        False,
        "Rank logs sent with a player's token or under --open (a server among friends). "
        "Without it they are stored unranked: only live attempts and a site key's "
        "submissions rank.",
        setting="rank_untimed",
    ),
    ServeOption(
        "par_pace",
        ("--par-pace",),
        int,
        PAR_PACE_MS,
        "Milliseconds per player step under which a live win at par or better waits for a "
        "moderator (fast-par; 0: never).",
        setting="par_pace_ms",
        min=0,
    ),
    ServeOption(
        "link_guesses",
        ("--link-guesses",),
        int,
        LINK_GUESSES,
        "Wrong link codes one client address may send, then as many again an hour.",
        setting="link_guesses",
        min=1,
    ),
    ServeOption(
        "metrics_bind",
        ("--metrics-bind",),
        str | None,
        None,
        "HOST:PORT where GET /metrics is also served, with no key (for Prometheus on a "
        "private address, e.g. 127.0.0.1:9108). Without it, /metrics needs an admin key.",
        parse="address",
    ),
    ServeOption(
        "secret_file",
        ("--secret-file",),
        Path | None,
        None,
        "The site's secret (cruel daily --new-secret): today and --ahead days after it are "
        "published from its stream, in the database, and the packaged demo set is never "
        "served. Without it nothing is published ahead (--open: from the public stream).",
        setting="secret_file",
    ),
    ServeOption(
        "ahead",
        ("--ahead",),
        int,
        PUBLISH_AHEAD,
        "Days after today kept published.",
        setting="ahead",
        min=0,
        max=366,
    ),
    ServeOption(
        "publish_memory",
        ("--publish-memory",),
        str | None,
        None,
        _MEMORY_HELP,
        setting="publish_memory",
        parse="size",
        metavar="SIZE",
    ),
)
