"""Load test of ``cruel serve``: requests per second, latency, and whether every answer was right.

    .venv/bin/python benchmarks/serve_load.py                  # 20 s, 8 clients, 4 puzzles
    .venv/bin/python benchmarks/serve_load.py --duration 5 --json

    .venv/bin/python benchmarks/serve_load.py --db postgresql://postgres@127.0.0.1:5432/test --instances 3

It starts the real server (``python -m cruel_tools.cli.app serve``) on a free loopback port with a
fresh SQLite database in a temporary folder (with ``--db URL``: a new schema of that PostgreSQL
database, dropped afterwards; ``--instances N``: N servers on N ports sharing it, client ``n``
speaking to server ``n % N``), dated 2027-01-01 so that day's four puzzles are open, and its
rate limits off; every submission carries a site's API key, made in that database.
Then ``--concurrency`` client threads, each with one keep-alive connection, send submissions for
``--duration`` seconds, each request's kind drawn with a seeded RNG:

    50% new win       a puzzle's par solution under a player name used once (object and compact
                      move spellings alternate)                      -> 201, accepted
    15% duplicate     an earlier win of the same thread, sometimes respelled
                                                                     -> 200, duplicate, same id
    15% illegal       the solution with one move replaced by an illegal one
                                                                     -> 200, reason.code the rules
                                                                        give that move
     5% not a win     a legal prefix of the solution                 -> 200, "not-a-win"
     5% wrong puzzle  another puzzle's solution                      -> 200, "puzzle-mismatch"
     4% malformed     JSON that does not parse                       -> 400 "not-json"
     4% schema        e.g. an empty player name or a bad card        -> 422 "schema" at a path
     2% oversize      a valid submission padded just past 1 MiB      -> 413 "too-large"

Every request body is built before the clock starts, so the clients spend their time on HTTP.
Each answer is checked (status and key fields); anything else, a connection error included, is
"unexpected". Afterwards every used puzzle's leaderboard is read: each id answered with a 201
must be on its puzzle's leaderboard exactly once, no other id may be there, and the health
document's submission count must equal the number of 201s, and every instance must list the
same boards.

The summary shows the machine, requests per second, latency percentiles (overall and per kind),
status counts, unexpected answers, and the CPU time of the load generator and of the server
during the timed phase (on a small machine the clients compete with the server for cores).
Exit status 0 only if no answer was unexpected and every check passed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import http.client
import itertools
import json
import math
import os
import platform
import random
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from cruel_tools.game import cards
from cruel_tools.game.game import Game, IllegalMove, Move, Step
from cruel_tools.game.log import Limits, compact, parse_compact, step_entry, to_step
from cruel_tools.puzzles import Puzzle, PuzzleSet, puzzle_solution_log
from cruel_tools.site.keys import KeyStore

ROOT = Path(__file__).resolve().parent.parent
TODAY = "2027-01-01"  # the server's date: the four puzzles of that day are open
MAX_BODY = Limits().max_bytes  # the server's default body limit (cruel serve --max-body)
PAGE = 1000  # the largest leaderboard page the server gives
HEALTH_TIMEOUT = 30.0
REQUEST_TIMEOUT = 30.0
MAX_EXAMPLES = 10
MAX_FAILURES = 10  # a client stops after this many connection errors in a row
JSON_HEADERS = {"Content-Type": "application/json"}  # and the key's Authorization, at start
ERROR_KEYS = frozenset({"format", "status", "code", "message", "location", "path"})

#: Request kinds and their weights (percent).
WEIGHTS: dict[str, int] = {
    "win": 50,
    "duplicate": 15,
    "illegal": 15,
    "not-a-win": 5,
    "wrong-puzzle": 5,
    "malformed": 4,
    "schema": 4,
    "oversize": 2,
}
KINDS = list(WEIGHTS)
SPELLINGS = ("object", "compact")
CUM_WEIGHTS = list(itertools.accumulate(WEIGHTS.values()))  # random.choices draws faster
#: A log's move: an object ({"type": "move", ...} or {"type": "redeal"}) or a compact string.
Entry = dict[str, Any] | str


def _dumps(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


# --- what each request expects -------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    """The right answer: its status, values of top-level keys, and of ``reason`` (a rejection)."""

    status: int
    fields: dict[str, Any]
    reason: dict[str, Any] | None = None


def _rejected(puzzle_id: str, reason: dict[str, Any]) -> Expect:
    fields = {"puzzle": puzzle_id, "accepted": False, "duplicate": False, "submission_id": None}
    return Expect(200, fields | {"format": "cruel-submission-result/1"}, reason)


def _error(status: int, code: str, path: str | None) -> Expect:
    return Expect(status, {"format": "cruel-error/1", "status": status, "code": code, "path": path})


@dataclass(frozen=True)
class Request:
    """One request ready to send: everything but a win's player name is precomputed."""

    kind: str
    path: str
    body: bytes
    expect: Expect
    player: str | None = None  # a win's or duplicate's player: the answer must name it
    spelling: str = ""  # a win's move spelling, which a duplicate may change


# --- the workload, built before the clock starts -------------------------------------------------


@dataclass
class PuzzleLoad:
    """One puzzle's precomputed bodies: its win logs and the rejected requests sent to it."""

    puzzle: Puzzle
    path: str
    logs: dict[str, bytes]  # the solution log's JSON by spelling
    win: Expect  # the answer to a new win, but for its player and submission_id
    canned: dict[str, list[Request]] = field(default_factory=dict)  # rejections by kind

    def win_body(self, player: str, spelling: str) -> bytes:
        # Player names here are plain ASCII, so splicing needs no JSON escaping.
        return b'{"player":"' + player.encode() + b'","log":' + self.logs[spelling] + b"}"


def _step(entry: Entry) -> Step:
    return to_step(cast(Any, entry))  # entries here are valid: made from a puzzle's solution


def _solution(puzzle: Puzzle) -> list[Entry]:
    """The par solution's moves, in object form (as puzzle files keep them)."""
    return [cast(Entry, e) for e in puzzle.solution]


def _spelled(entries: Sequence[Entry], spelling: str) -> list[Entry]:
    if spelling == "object":
        return list(entries)
    return [compact(_step(e)) for e in entries]


def _log_doc(puzzle: Puzzle, moves: Sequence[Entry]) -> dict[str, Any]:
    doc = puzzle_solution_log(puzzle) | {"moves": list(moves)}
    del doc["claim"]  # the par game's: ``moves`` may be another
    return doc


def _replayed(puzzle: Puzzle, entries: Sequence[Entry]) -> Game:
    game = Game.from_deal([[cards.BY_TEXT[c] for c in pile] for pile in puzzle.deal.piles])
    for entry in entries:
        game.push(_step(entry))
    return game


def _bad_moves(game: Game) -> list[tuple[str, str]]:
    """Every single-card compact move, and the redeal, that the engine refuses in ``game``'s
    position, with the code it gives. The engine is the one judge of the rules: this script
    keeps no copy of them, it only checks that the server answers as the engine does."""
    piles = range(1, 13)
    candidates = ["R", *(f"{i}F" for i in piles), *(f"{i}-{j}" for i in piles for j in piles)]
    bad: list[tuple[str, str]] = []
    for move in candidates:
        try:
            game.copy().push(parse_compact(move))
        except IllegalMove as exc:
            bad.append((move, exc.code))
    return bad


def _confirmed(game: Game, entry: Entry, code: str) -> Entry:
    try:
        game.copy().push(_step(entry))
    except IllegalMove as exc:
        if exc.code == code:
            return entry
        raise AssertionError(f"{entry!r}: expected {code}, the engine says {exc.code}") from None
    raise AssertionError(f"{entry!r}: expected {code}, the engine plays it")


def _object_form(game: Game, move: str) -> dict[str, Any]:
    step = _step(move)
    top = game.top(step.source) if isinstance(step, Move) else None
    return step_entry(step, top)


def _illegal_move(game: Game, step: Step, variant: int, rng: random.Random) -> tuple[Entry, str]:
    """An illegal move in ``game``'s position (``step`` is the legal one it replaces) and the
    code expected for it, in compact form when any spelling will do."""
    if variant == 0:  # a fresh deal is 12 piles of 4: a redeal would change nothing
        return "R", "redeal-unchanged"
    if variant % 4 == 3 and isinstance(step, Move):  # the right move naming the wrong card
        card = game.piles[step.source - 1][-step.count]
        return step_entry(step._replace(card=(card + 1) % 52)), "card-mismatch"
    by_code: dict[str, list[str]] = {}
    for move, code in _bad_moves(game):
        by_code.setdefault(code, []).append(move)
    code = rng.choice(sorted(by_code))  # each code equally likely, rather than each move
    return rng.choice(by_code[code]), code


def _illegal(load: PuzzleLoad, rng: random.Random, count: int) -> list[Request]:
    """The solution with its move k replaced by an illegal one, in either spelling."""
    puzzle, entries = load.puzzle, _solution(load.puzzle)
    out = []
    for variant in range(count):
        k = 0 if variant == 0 else rng.randrange(len(entries))
        game = _replayed(puzzle, entries[:k])
        bad, code = _illegal_move(game, _step(entries[k]), variant, rng)
        spelling = SPELLINGS[variant % 2]
        if spelling == "object" and isinstance(bad, str):
            bad = _object_form(game, bad)
        moves = _spelled(entries, spelling)
        moves[k] = _confirmed(game, bad, code)
        body = _dumps({"player": "illegal", "log": _log_doc(puzzle, moves)})
        reason = {"code": code, "index": k, "path": f"/log/moves/{k}"}
        out.append(Request("illegal", load.path, body, _rejected(puzzle.id, reason)))
    return out


def _not_a_win(load: PuzzleLoad, rng: random.Random, count: int) -> list[Request]:
    """Legal prefixes of the solution: a game that is not over (or blocked), never won."""
    entries = _solution(load.puzzle)
    out = []
    for n in range(count):
        moves = _spelled(entries[: rng.randrange(len(entries))], SPELLINGS[n % 2])
        body = _dumps({"player": "prefix", "log": _log_doc(load.puzzle, moves)})
        reason = {"code": "not-a-win", "index": None, "path": "/log/moves"}
        out.append(Request("not-a-win", load.path, body, _rejected(load.puzzle.id, reason)))
    return out


def _wrong_puzzle(load: PuzzleLoad, others: Sequence[PuzzleLoad], rng: random.Random) -> Request:
    other = rng.choice([o for o in others if o.puzzle.deal.number != load.puzzle.deal.number])
    body = b'{"player":"mismatch","log":' + other.logs[rng.choice(SPELLINGS)] + b"}"
    reason = {"code": "puzzle-mismatch", "index": None, "path": "/log/deal"}
    return Request("wrong-puzzle", load.path, body, _rejected(load.puzzle.id, reason))


def _schema_errors(load: PuzzleLoad, rng: random.Random) -> list[Request]:
    """Submissions that are JSON but not submissions, with the JSON pointer the server names."""
    entries = _solution(load.puzzle)
    log = _log_doc(load.puzzle, entries)
    m = rng.randrange(len(entries))
    bad_card = list(entries)
    bad_card[m] = {"type": "move", "from": 1, "to": "foundation", "card": "1X"}
    bad_compact = _spelled(entries, "compact")
    bad_compact[m] = "14F"  # no pile 14 under any rules (13F is a move error under 12 piles)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"player": "", "log": log}, "/player"),
        ({"player": " padded", "log": log}, "/player"),
        ({"player": "x" * 65, "log": log}, "/player"),
        ({"player": "extra", "log": log, "score": 1}, "/score"),
        ({"player": "nolog"}, "/log"),
        ({"player": "card", "log": log | {"moves": bad_card}}, f"/log/moves/{m}/card"),
        ({"player": "compact", "log": log | {"moves": bad_compact}}, f"/log/moves/{m}"),
        ({"player": "format", "log": log | {"format": "cruel-log/2"}}, "/log/format"),
    ]
    return [
        # A name the PRECIS profile refuses has its own code; every other shape error is "schema".
        Request("schema", load.path, _dumps(doc), _error(422, code, path))
        for doc, path in cases
        for code in ["bad-player-name" if path == "/player" else "schema"]
    ]


def _malformed(load: PuzzleLoad, rng: random.Random) -> list[Request]:
    """Bodies that are not JSON: cut short, trailing junk, single quotes, empty."""
    whole = load.win_body("cut", "compact")
    bodies = [
        whole[: rng.randrange(len(whole))],
        whole[: rng.randrange(len(whole))],
        whole + b"}",
        b"{'player': 'quotes', 'log': {}}",
        b"",
    ]
    return [Request("malformed", load.path, b, _error(400, "not-json", "/")) for b in bodies]


def _oversize(load: PuzzleLoad) -> list[Request]:
    """Valid submissions (a win, with meta padding) of 1 MiB + 1 byte and 1 MiB + 64 KiB:
    refused on their Content-Length alone."""
    out = []
    for size in (MAX_BODY + 1, MAX_BODY + (64 << 10)):
        log = _log_doc(load.puzzle, _solution(load.puzzle))
        empty = len(_dumps({"player": "big", "log": log | {"meta": {"pad": ""}}}))
        body = _dumps({"player": "big", "log": log | {"meta": {"pad": "x" * (size - empty)}}})
        assert len(body) == size
        out.append(Request("oversize", load.path, body, _error(413, "too-large", "/")))
    return out


def _puzzle_load(puzzle: Puzzle) -> PuzzleLoad:
    entries = _solution(puzzle)
    logs = {s: _dumps(_log_doc(puzzle, _spelled(entries, s))) for s in SPELLINGS}
    final = _replayed(puzzle, entries)
    assert final.is_won(), f"{puzzle.id}: its solution does not win"
    win = Expect(
        201,
        {
            "format": "cruel-submission-result/1",
            "puzzle": puzzle.id,
            "accepted": True,
            "duplicate": False,
            "moves": final.moves,
            "redeals": final.redeals,
            "reason": None,
        },
    )
    path = f"/v1/puzzles/{puzzle.id}/submissions"
    return PuzzleLoad(puzzle, path, logs, win)


def build_workload(puzzles: Sequence[Puzzle], seed: int) -> list[PuzzleLoad]:
    """Every puzzle's win logs and canned rejections (a few variants of each kind)."""
    rng = random.Random(f"workload-{seed}")
    loads = [_puzzle_load(p) for p in puzzles]
    for load in loads:
        load.canned = {
            "illegal": _illegal(load, rng, 8),
            "not-a-win": _not_a_win(load, rng, 4),
            "wrong-puzzle": [_wrong_puzzle(load, loads, rng) for _ in range(2)],
            "schema": _schema_errors(load, rng),
            "malformed": _malformed(load, rng),
        }
    big = _oversize(loads[0])  # two 1 MiB bodies are enough: any puzzle's URL will do
    for load in loads:
        load.canned["oversize"] = [dataclasses.replace(r, path=load.path) for r in big]
    return loads


# --- checking answers ----------------------------------------------------------------------------


def _same(got: Any, want: Any) -> bool:
    # Strict: 0 is not false, 1 is not true, in an answer we check.
    return type(got) is type(want) and got == want


def judge(req: Request, status: int, data: bytes) -> tuple[str | None, dict[str, Any]]:
    """(What is wrong with the answer, or None; the answer as JSON)."""
    want = req.expect
    if status != want.status:
        return f"status {status}, expected {want.status}: {data[:160]!r}", {}
    try:
        doc = json.loads(data)
    except ValueError:
        return f"status {status} with a body that is not JSON: {data[:160]!r}", {}
    if not isinstance(doc, dict):
        return f"status {status} with a body that is not an object: {data[:160]!r}", {}
    for key, value in want.fields.items():
        if not _same(doc.get(key), value):
            return f"{key} is {doc.get(key)!r}, expected {value!r}", doc
    if req.player is not None and doc.get("player") != req.player:
        return f"player is {doc.get('player')!r}, expected {req.player!r}", doc
    if want.fields.get("format") == "cruel-error/1" and set(doc) != ERROR_KEYS:
        return f"error keys are {sorted(doc)}, expected {sorted(ERROR_KEYS)}", doc
    if want.reason is not None:
        reason = doc.get("reason")
        if not isinstance(reason, dict):
            return f"reason is {reason!r}, expected {want.reason}", doc
        for key, value in want.reason.items():
            if not _same(reason.get(key), value):
                return f"reason.{key} is {reason.get(key)!r}, expected {value!r}", doc
    if req.kind == "win" and not isinstance(doc.get("submission_id"), int):
        return f"submission_id is {doc.get('submission_id')!r}, expected an id", doc
    return None, doc


# --- the clients ---------------------------------------------------------------------------------


@dataclass
class Tally:
    """What one client saw."""

    samples: list[tuple[str, int, float]] = field(default_factory=list)  # kind, status, seconds
    unexpected: Counter[str] = field(default_factory=Counter)  # by kind
    examples: list[str] = field(default_factory=list)
    created: list[tuple[int, str, str]] = field(default_factory=list)  # 201s: id, puzzle, player
    duplicate_ids: set[int] = field(default_factory=set)

    def miss(self, kind: str, what: str) -> None:
        self.unexpected[kind] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(what)


@dataclass(frozen=True)
class Win:
    """A win this client had accepted: what a duplicate resends."""

    load: PuzzleLoad
    player: str
    spelling: str
    submission_id: int


class Client(threading.Thread):
    """One keep-alive connection sending requests until the deadline."""

    def __init__(
        self, number: int, port: int, loads: list[PuzzleLoad], seed: int, start: threading.Barrier
    ) -> None:
        super().__init__(name=f"client-{number}", daemon=True)
        self.number, self.port, self.loads, self.start_line = number, port, loads, start
        self.rng = random.Random(f"client-{seed}-{number}")
        self.deadline = math.inf  # set by run_clients before the start line opens
        self.tally = Tally()
        self.wins: list[Win] = []
        self.sent = 0
        self.failures = 0  # connection errors in a row

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
        try:
            conn.connect()  # connecting is not part of what is timed
        except OSError as exc:
            self.tally.miss("connect", f"client {self.number}: cannot connect: {exc!r}")
        self.start_line.wait()
        try:
            while time.perf_counter() < self.deadline:
                self._one(conn)
        except Exception as exc:  # a bug of this script: report it, do not hide it in a thread
            self.tally.miss("client", f"client {self.number} crashed: {exc!r}")
        finally:
            conn.close()

    def _next(self) -> tuple[PuzzleLoad, Request]:
        kind = self.rng.choices(KINDS, cum_weights=CUM_WEIGHTS)[0]
        load = self.rng.choice(self.loads)
        if kind == "duplicate" and self.wins:
            return self._duplicate()
        if kind in ("win", "duplicate"):  # no win to repeat yet: make one
            self.sent += 1
            player, spelling = f"w{self.number}-{self.sent}", SPELLINGS[self.sent % 2]
            body = load.win_body(player, spelling)
            return load, Request("win", load.path, body, load.win, player, spelling)
        return load, self.rng.choice(load.canned[kind])

    def _duplicate(self) -> tuple[PuzzleLoad, Request]:
        win = self.rng.choice(self.wins)
        spelling = win.spelling
        if self.rng.random() < 0.5:  # the same game spelled the other way is the same game
            spelling = SPELLINGS[1 - SPELLINGS.index(spelling)]
        fields = win.load.win.fields | {"duplicate": True, "submission_id": win.submission_id}
        body = win.load.win_body(win.player, spelling)
        return win.load, Request("duplicate", win.load.path, body, Expect(200, fields), win.player)

    def _one(self, conn: http.client.HTTPConnection) -> None:
        load, req = self._next()
        began = time.perf_counter()
        try:
            conn.request("POST", req.path, body=req.body, headers=JSON_HEADERS)
            response = conn.getresponse()
            status, data = response.status, response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.tally.samples.append((req.kind, 0, time.perf_counter() - began))
            self.tally.miss(req.kind, f"{req.kind} {req.path} {req.player or ''}: {exc!r}")
            conn.close()  # http.client opens a new connection on the next request
            self.failures += 1
            if self.failures == MAX_FAILURES:  # the server is gone: do not count refusals as load
                self.tally.miss(
                    "client",
                    f"client {self.number}: gave up after {MAX_FAILURES} "
                    "connection errors in a row",
                )
                self.deadline = 0.0
            return
        self.failures = 0
        self.tally.samples.append((req.kind, status, time.perf_counter() - began))
        problem, doc = judge(req, status, data)
        if problem is not None:
            self.tally.miss(req.kind, f"{req.kind} {req.path} {req.player or ''}: {problem}")
        elif req.kind == "win":
            player, sid = req.player or "", doc["submission_id"]
            self.tally.created.append((sid, load.puzzle.id, player))
            self.wins.append(Win(load, player, req.spelling, sid))
        elif req.kind == "duplicate":
            self.tally.duplicate_ids.add(doc["submission_id"])


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _process_cpu_seconds(pid: int) -> float | None:
    """CPU time so far of another process and its children (``serve --workers``): Linux /proc;
    None elsewhere."""
    ticks, found = 0, False
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat = stat_file.read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
        if int(stat_file.parent.name) == pid or int(fields[1]) == pid:
            ticks += int(fields[11]) + int(fields[12])
            found = True
    return ticks / os.sysconf("SC_CLK_TCK") if found else None


@dataclass
class Run:
    """The timed phase: every client's tally, its wall time and the CPU it cost."""

    tallies: list[Tally]
    seconds: float
    client_cpu: float
    server_cpu: float | None


def run_clients(
    ports: Sequence[int],
    server_pids: Sequence[int],
    loads: list[PuzzleLoad],
    concurrency: int,
    duration: float,
    seed: int,
) -> Run:
    """Client ``n`` speaks to ``ports[n % len(ports)]`` (instances share the clients)."""
    start_line = threading.Barrier(concurrency + 1, timeout=60)
    clients = [
        Client(n, ports[n % len(ports)], loads, seed, start_line) for n in range(concurrency)
    ]
    for client in clients:
        client.start()

    def server_seconds() -> float | None:
        used = [_process_cpu_seconds(pid) for pid in server_pids]
        return None if None in used else sum(u for u in used if u is not None)

    cpu, server_cpu = _cpu_seconds(), server_seconds()
    began = time.perf_counter()
    for client in clients:
        client.deadline = began + duration
    start_line.wait()  # every client is connected: go
    for client in clients:
        client.join()
    seconds = time.perf_counter() - began
    server_after = server_seconds()
    server_used = None if server_cpu is None or server_after is None else server_after - server_cpu
    return Run([c.tally for c in clients], seconds, _cpu_seconds() - cpu, server_used)


# --- the server ----------------------------------------------------------------------------------


class ServerError(RuntimeError):
    """The server did not come up."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(port: int, path: str, timeout: float = REQUEST_TIMEOUT) -> dict[str, Any]:
    """GET ``path``; raise ``OSError``/``HTTPException`` if unreachable, ValueError unless 200."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        data = response.read()
    finally:
        conn.close()
    if response.status != 200:
        raise ValueError(f"GET {path}: status {response.status}: {data[:200]!r}")
    doc = json.loads(data)
    if not isinstance(doc, dict):
        raise ValueError(f"GET {path}: not a JSON object")
    return doc


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no server output)"
    return "\n".join(text.splitlines()[-lines:]) or "(no server output)"


def wait_healthy(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(f"the server exited with status {proc.returncode}:\n{_tail(log)}")
        with contextlib.suppress(OSError, http.client.HTTPException, ValueError):
            if get_json(port, "/v1/health", timeout=2).get("format") == "cruel-health/1":
                return
        time.sleep(0.1)
    raise ServerError(f"no answer from /v1/health in {HEALTH_TIMEOUT:.0f} s:\n{_tail(log)}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def store_target(folder: Path, url: str | None) -> Iterator[str]:
    """A new, empty store: an SQLite file in ``folder``, or a new schema of the PostgreSQL
    database at ``url`` (dropped at the end)."""
    if url is None:
        yield str(folder / "load.sqlite")
        return
    import uuid

    import psycopg

    schema = "serve_load_" + uuid.uuid4().hex[:8]
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@contextlib.contextmanager
def running_servers(
    ports: Sequence[int], folder: Path, db: str, workers: int = 1
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``cruel serve`` on 127.0.0.1 at each of ``ports``, all on the store ``db``, until exit."""
    store = KeyStore(db)
    JSON_HEADERS["Authorization"] = f"Bearer {store.add('serve_load', 'site')[1]}"
    store.close()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            log = folder / f"server-{port}.log"
            command = [
                sys.executable,
                "-m",
                "cruel_tools.cli.app",
                "serve",
                *("--host", "127.0.0.1", "--port", str(port)),
                *("--puzzles", str(ROOT / "puzzles"), "--db", db),
                *("--today", TODAY, "--no-access-log", "--workers", str(workers)),
                *("--rate-key", "off", "--rate-player", "off"),
                # The load submits logs at par; since issue #24 those wait for a moderator
                # unless timed live, and the checks below count listed entries.
                "--no-review-par",
            ]
            # Output goes to a file, not a pipe nobody reads while the load runs (a full pipe
            # blocks).
            with log.open("wb") as out:
                procs.append(
                    subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
                )
        for proc, port in zip(procs, ports, strict=True):
            wait_healthy(proc, port, folder / f"server-{port}.log")
        yield procs
    finally:
        for proc in procs:
            stop(proc)


# --- consistency afterwards ----------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def read_board(port: int, puzzle_id: str, page: int) -> tuple[int, list[dict[str, Any]]]:
    """A puzzle's whole leaderboard, page by page: (its total, its entries)."""
    entries: list[dict[str, Any]] = []
    total = 0
    while True:
        # Every entry, not each player's best (the API's default since issue #24).
        query = f"limit={page}&offset={len(entries)}&best_per_player=false"
        path = f"/v1/puzzles/{puzzle_id}/leaderboard?{query}"
        doc = get_json(port, path)
        total, got = doc["total"], doc["entries"]
        entries += got
        if not got or len(entries) >= total:
            return total, entries


def _board_problems(total: int, entries: list[dict[str, Any]]) -> list[str]:
    problems = []
    if total != len(entries):
        problems.append(f"total {total}, {len(entries)} entries read")
    # Competition ranking: 1 + the entries with a strictly better score (ties share a rank).
    scores = [(e["actions"], e["redeals"]) for e in entries]
    if [e["rank"] for e in entries] != [1 + sum(t < s for t in scores) for s in scores]:
        problems.append("ranks are not 1 + the entries with a better score")
    order = [(e["actions"], e["redeals"], e["submission_id"]) for e in entries]
    if order != sorted(order):
        problems.append("not ordered by actions, redeals, id")
    return problems


def _first(items: Sequence[Any], n: int = 5) -> str:
    return ", ".join(map(str, items[:n])) + (" ..." if len(items) > n else "")


def check_store(
    ports: Sequence[int], loads: list[PuzzleLoad], tallies: list[Tally], page: int
) -> list[Check]:
    """Whether the leaderboards and the health count hold exactly the wins answered 201, and
    every instance lists the same boards."""
    port = ports[0]
    answers = [(sid, (puzzle, player)) for t in tallies for sid, puzzle, player in t.created]
    created = dict(answers)
    reused = sorted(s for s, n in Counter(s for s, _ in answers).items() if n > 1)
    duplicates = set().union(*(t.duplicate_ids for t in tallies))
    listed: Counter[int] = Counter()
    where: dict[int, tuple[str, str]] = {}
    problems = []
    try:
        for load in loads:
            total, entries = read_board(port, load.puzzle.id, page)
            problems += [f"{load.puzzle.id}: {p}" for p in _board_problems(total, entries)]
            for e in entries:
                listed[e["submission_id"]] += 1
                where[e["submission_id"]] = (load.puzzle.id, e["player"])
        submissions = get_json(port, "/v1/health")["submissions"]
        differ = [
            f"{load.puzzle.id} on port {other}"
            for other in ports[1:]
            for load in loads
            if read_board(other, load.puzzle.id, page) != read_board(port, load.puzzle.id, page)
        ]
    except (OSError, http.client.HTTPException, ValueError, KeyError) as exc:
        return [Check("leaderboards read", False, repr(exc))]
    missing = reused + sorted(s for s in created if listed[s] != 1 or where[s] != created[s])
    extra = sorted(set(listed) - set(created))
    twice = sorted(s for s, n in listed.items() if n > 1)
    dangling = sorted(duplicates - set(listed))
    return [
        Check(
            "leaderboards consistent",
            not problems,
            f"{len(loads)} boards, {sum(listed.values())} entries, {page} per page"
            + (f": {_first(problems)}" if problems else ""),
        ),
        Check(
            "each 201 listed once, on its puzzle, under its player",
            not missing,
            f"{len(answers)} ids" + (f"; wrong: {_first(missing)}" if missing else ""),
        ),
        Check("no other ids listed", not extra, f"extra: {_first(extra)}" if extra else "none"),
        Check("no id listed twice", not twice, f"twice: {_first(twice)}" if twice else "none"),
        Check(
            "duplicates point at listed ids",
            not dangling,
            f"{len(duplicates)} ids" + (f"; not listed: {_first(dangling)}" if dangling else ""),
        ),
        Check(
            "every instance lists the same boards",
            not differ,
            f"{len(ports)} instance(s)" + (f"; differ: {_first(differ)}" if differ else ""),
        ),
        Check(
            "health submissions = 201s",
            submissions == len(answers),
            f"{submissions} vs {len(answers)}",
        ),
    ]


# --- the summary ---------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpu": cpu,
        "nproc": cores,
        "python": platform.python_version(),
        "system": platform.platform(),
    }


def percentiles(seconds: list[float]) -> dict[str, Any]:
    """n, and p50/p90/p99/max in milliseconds (nearest rank)."""
    ordered = sorted(seconds)
    n = len(ordered)

    def rank(p: float) -> float:
        return round(ordered[max(math.ceil(p / 100 * n) - 1, 0)] * 1000, 2) if n else 0.0

    return {"n": n, "p50": rank(50), "p90": rank(90), "p99": rank(99), "max": rank(100)}


def summarize(args: argparse.Namespace, run: Run, port: int, checks: list[Check]) -> dict[str, Any]:
    samples = [s for t in run.tallies for s in t.samples]
    # Only answered requests make the rate and the latencies: a refused connection is quick.
    answered = [s for s in samples if s[1]]
    by_kind: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for kind, _, took in answered:
        by_kind[kind].append(took)
    unexpected = sum((t.unexpected for t in run.tallies), Counter[str]())
    examples = [e for t in run.tallies for e in t.examples][:MAX_EXAMPLES]
    statuses = Counter(str(status or "no answer") for _, status, _ in samples)
    passed = not unexpected and all(c.ok for c in checks)
    return {
        "format": "cruel-serve-load/1",
        "machine": machine(),
        "settings": {
            "duration": args.duration,
            "concurrency": args.concurrency,
            "workers": args.workers,
            "instances": args.instances,
            "engine": "postgresql" if args.db else "sqlite",
            "puzzles": args.puzzles,
            "seed": args.seed,
            "port": port,
        },
        "requests": len(samples),
        "answered": len(answered),
        "seconds": round(run.seconds, 3),
        "requests_per_second": round(len(answered) / run.seconds, 1),
        "latency_ms": {"all": percentiles([s[2] for s in answered])}
        | {kind: percentiles(took) for kind, took in by_kind.items()},
        "statuses": dict(sorted(statuses.items())),
        "unexpected": sum(unexpected.values()),
        "unexpected_by_kind": dict(unexpected),
        "unexpected_examples": examples,
        "client_cpu_seconds": round(run.client_cpu, 2),
        "server_cpu_seconds": None if run.server_cpu is None else round(run.server_cpu, 2),
        "checks": [dataclasses.asdict(c) for c in checks],
        "passed": passed,
    }


def render(summary: dict[str, Any]) -> str:
    m, s = summary["machine"], summary["settings"]
    seconds = summary["seconds"]
    server = summary["server_cpu_seconds"]
    unanswered = summary["requests"] - summary["answered"]
    lost = f" ({unanswered} more got no answer)" if unanswered else ""
    lines = [
        f"machine     {m['cpu']}, {m['nproc']} CPUs, Python {m['python']}, {m['system']}",
        f"run         {s['duration']:g} s, {s['concurrency']} clients, {s['instances']} "
        f"instance(s) of {s['workers']} worker(s) on {s['engine']}, {s['puzzles']} puzzles, "
        f"seed {s['seed']}, port {s['port']}",
        f"requests    {summary['answered']} answered in {seconds:.2f} s = "
        f"{summary['requests_per_second']:.1f} requests/s{lost}",
        f"CPU         load generator {summary['client_cpu_seconds']:.2f} s "
        f"({summary['client_cpu_seconds'] / seconds:.0%} of a core), server "
        + ("n/a" if server is None else f"{server:.2f} s ({server / seconds:.0%} of a core)"),
        "",
        f"{'latency ms':<14}{'n':>8}{'p50':>9}{'p90':>9}{'p99':>9}{'max':>9}",
    ]
    for kind, p in summary["latency_ms"].items():
        cells = "".join(f"{p[q]:>9.2f}" for q in ("p50", "p90", "p99", "max"))
        lines.append(f"  {kind:<12}{p['n']:>8}{cells}")
    lines += [
        "",
        "statuses    " + ", ".join(f"{k}: {v}" for k, v in summary["statuses"].items()),
        f"unexpected  {summary['unexpected']}"
        + (f" {summary['unexpected_by_kind']}" if summary["unexpected"] else ""),
    ]
    lines += [f"  e.g. {e}" for e in summary["unexpected_examples"]]
    lines += ["", "checks"]
    lines += [
        f"  {'ok  ' if c['ok'] else 'FAIL'} {c['name']}: {c['detail']}" for c in summary["checks"]
    ]
    lines += ["", "PASS" if summary["passed"] else "FAIL"]
    return "\n".join(lines)


# --- main ----------------------------------------------------------------------------------------


def choose_puzzles(count: int, seed: int) -> list[Puzzle]:
    """``count`` puzzles open on the server's date, drawn with the seed: those of that day (a
    later one is not open yet, an earlier one is closed: its solution is public)."""
    today = dt.date.fromisoformat(TODAY)
    everything = sorted(PuzzleSet.load(ROOT / "puzzles").by_id.items())
    open_ = [p for _, p in everything if p.date is None or p.date == today]
    if not 2 <= count <= len(open_):
        raise SystemExit(f"--puzzles must be 2 to {len(open_)} (wrong-puzzle needs two)")
    return random.Random(f"puzzles-{seed}").sample(open_, count)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of load (20)")
    parser.add_argument("--concurrency", type=int, default=8, help="client threads (8)")
    parser.add_argument("--puzzles", type=int, default=4, help="puzzles to spread over (4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of every random choice (1)")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument(
        "--page-size", type=int, default=PAGE, help="leaderboard page size when checking (1000)"
    )
    parser.add_argument("--workers", type=int, default=1, help="server processes (1)")
    parser.add_argument(
        "--db",
        default=None,
        help="a PostgreSQL URL: the servers share a new schema of it (default: an SQLite file)",
    )
    parser.add_argument(
        "--instances",
        type=int,
        default=1,
        help="cruel serve instances on as many ports, sharing the store (1; more need --db)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.concurrency < 1 or not 1 <= args.page_size <= PAGE:
        parser.error("need --duration > 0, --concurrency >= 1, --page-size 1 to 1000")
    if args.instances < 1 or (args.instances > 1 and args.db is None):
        parser.error("--instances N > 1 needs --db postgresql://... (SQLite serves one machine)")
    return args


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    loads = build_workload(choose_puzzles(args.puzzles, args.seed), args.seed)
    port = args.port or free_port()
    ports = [port] + [free_port() for _ in range(args.instances - 1)]
    with tempfile.TemporaryDirectory(prefix="cruel-serve-load-") as tmp:
        try:
            with (
                store_target(Path(tmp), args.db) as db,
                running_servers(ports, Path(tmp), db, args.workers) as servers,
            ):
                where = ", ".join(f"127.0.0.1:{p}" for p in ports)
                _say(f"server(s) up on {where}; {args.duration:g} s of load ...")
                run = run_clients(
                    ports,
                    [s.pid for s in servers],
                    loads,
                    args.concurrency,
                    args.duration,
                    args.seed,
                )
                checks = check_store(ports, loads, run.tallies, args.page_size)
        except ServerError as exc:
            _say(f"serve_load: {exc}")
            return 1
        summary = summarize(args, run, port, checks)
        if not summary["passed"]:
            for p in ports:
                _say(f"server output (last lines):\n{_tail(Path(tmp) / f'server-{p}.log')}")
    print(json.dumps(summary, indent=2) if args.json else render(summary))
    return 0 if summary["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
