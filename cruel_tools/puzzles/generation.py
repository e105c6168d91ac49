"""Choosing puzzles: graded deals from a seeded stream of deal numbers, and the daily set.

A puzzle is a deal the solver wins, with its tier, par and par solution
(``cruel_tools.search.grading``).
Choosing is deterministic: a string seed gives a stream of deal numbers (:func:`candidates`), and a
tier's puzzles are the first deals of the stream with that tier. The daily set (puzzles/README.md)
uses the seed ``daily-<date>`` and gives each date one puzzle of each tier.

The stream of a seed is public (anyone can compute it) unless a site's secret is given: then it is
keyed (HMAC-SHA-256 of the seed with the secret), reproducible by whoever holds the secret and
unpredictable to everyone else. A daily set's ``index.json`` records the secret's fingerprint
(never the secret), and :func:`daily` refuses to mix streams in one folder.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import math
import multiprocessing
import os
import re
import secrets
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import count, islice
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Final, TypeVar

import orjson

from ..errors import CruelError
from ..game import deals, duplicates
from ..game.game import Game
from ..game.rules import DEFAULT, Rules
from ..search.grading import GRADER_VERSION, TIERS, Budget, Classified, Grade, Tier, classify, grade
from .files import (
    INDEX_FORMAT,
    Puzzle,
    PuzzleSetError,
    daily_path,
    index_bytes,
    load_puzzle,
    puzzle_bytes,
    puzzle_files,
)

__all__ = [
    "GENERATOR",
    "MAX_CANDIDATES",
    "MIN_SECRET_BITS",
    "WeakSecret",
    "secret_bits",
    "check_secret",
    "new_secret",
    "write_new_secret",
    "candidates",
    "key_fingerprint",
    "grade_deal",
    "puzzle_from_grade",
    "generate",
    "daily_puzzles",
    "daily",
    "write_days",
]

GENERATOR: Final = f"cruel-tools {GRADER_VERSION}"
#: Most candidates graded for one day before its missing tiers are given up.
MAX_CANDIDATES: Final = 1000
#: What a keyed stream hashes before the seed, and what a key's fingerprint hashes: different
#: messages, so that the fingerprint tells nothing about any stream.
_STREAM_LABEL: Final = b"cruel-tools stream "
_FINGERPRINT_MESSAGE: Final = b"cruel-tools key fingerprint"
_T = TypeVar("_T")
_U = TypeVar("_U")


# --- choosing deals ------------------------------------------------------------------------------


def candidates(seed: str, secret: bytes | None = None) -> Iterator[int]:
    """Deal numbers from a string seed, no repeats.

    Without ``secret`` (the public stream): mulberry32 seeded with the seed's CRC-32. With it (a
    keyed stream): block ``k`` (0, 1, ...) is HMAC-SHA-256 with key ``secret`` of
    ``b"cruel-tools stream " + seed (UTF-8) + k`` (8 bytes, big-endian), read as eight 32-bit
    big-endian deal numbers.
    """
    _check_secret(secret)
    numbers = (
        deals.mulberry32(zlib.crc32(seed.encode("utf-8")))
        if secret is None
        else _keyed_numbers(seed, secret)
    )
    seen: set[int] = set()
    for number in numbers:
        if number not in seen:
            seen.add(number)
            yield number


def _check_secret(secret: bytes | None) -> None:
    if secret is not None and not secret:
        raise ValueError("the secret is empty")


# --- the site's secret ---------------------------------------------------------------------------

#: The fewest bits a site's secret must hold as written (:func:`secret_bits`). Issue #24: a
#: 4-digit secret was found from one public deal number in 0.32 s, and with it every future day.
MIN_SECRET_BITS: Final = 128
#: Bits per character of each way a secret can be written, from the characters it uses.
_DIGITS = re.compile(rb"[0-9]+")
_HEX = re.compile(rb"[0-9a-f]+|[0-9A-F]+")
_LETTERS = re.compile(rb"[a-z]+|[A-Z]+")
_ONE_CASE = re.compile(rb"[0-9a-z_+/=-]+|[0-9A-Z_+/=-]+")
_BASE64 = re.compile(rb"[0-9A-Za-z_+/=-]+")
_PRINTABLE = re.compile(rb"[\x21-\x7e]+")


class WeakSecret(CruelError):
    """A site's secret too weak to key the daily stream: under :data:`MIN_SECRET_BITS` bits as
    written, patterned, or a passphrase (:func:`check_secret`)."""

    code = "weak-secret"


def secret_bits(secret: bytes) -> int:
    """The most bits ``secret`` can hold, judged from how it is written (docs/deals.md): its
    length times the bits of one character of the smallest alphabet its characters fit (decimal
    digits 3.3, hex digits 4, letters of one case 4.7, with digits 5.2, base64 or base64url 6,
    printable ASCII 6.6); raw bytes that are not text, 8. An upper bound: words hold far fewer
    bits than their letters, which is why text with spaces is refused outright. (Letters of
    both cases count as base64: a random base64 text has no digit or symbol often enough.)"""
    for pattern, size in (
        (_DIGITS, 10),
        (_HEX, 16),
        (_LETTERS, 26),
        (_ONE_CASE, 36),
        (_BASE64, 64),
        (_PRINTABLE, 94),
    ):
        if pattern.fullmatch(secret):
            return math.floor(len(secret.rstrip(b"=")) * math.log2(size))
    return 8 * len(secret)


def _is_text(secret: bytes) -> bool:
    """Whether ``secret`` reads as text (UTF-8 with a letter, a space or a mark): a phrase, not
    random bytes (which are valid UTF-8 only by a rare chance)."""
    try:
        text = secret.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(ch.isprintable() or ch.isspace() for ch in text)


def check_secret(secret: bytes) -> None:
    """Refuse a secret that could be guessed (:class:`WeakSecret`): text with spaces or
    characters outside printable ASCII (a passphrase, words), under :data:`MIN_SECRET_BITS`
    bits as written (:func:`secret_bits`), or patterned: fewer than 3 in 4 of its runs of three
    characters (bytes) differ from each other (``0000...``, ``abab...``, a block repeated),
    which random text of that length almost never is."""
    make = "make one with `cruel daily --new-secret FILE`"
    if not secret:
        raise WeakSecret(f"the secret is empty: {make}")
    if not _PRINTABLE.fullmatch(secret) and _is_text(secret):
        raise WeakSecret(
            "the secret is text with spaces or letters outside ASCII (a phrase is guessable): "
            f"write random bytes, hex or base64; {make}"
        )
    bits = secret_bits(secret)
    if bits < MIN_SECRET_BITS:
        raise WeakSecret(
            f"the secret holds at most {bits} bits as written, under {MIN_SECRET_BITS} (at "
            f"least 32 hex digits or 22 base64 characters): {make}"
        )
    runs = [secret[i : i + 3] for i in range(len(secret) - 2)]
    if 4 * len(set(runs)) < 3 * len(runs):
        raise WeakSecret(f"the secret repeats itself (a pattern, not random): {make}")


def new_secret() -> bytes:
    """A new random secret of 256 bits, written as 64 hex digits (text: it survives copying),
    one that :func:`check_secret` passes (a random one fails it too rarely to be seen, but the
    tool's own secret must never be refused)."""
    while True:
        secret = secrets.token_hex(32).encode("ascii")
        try:
            check_secret(secret)
        except WeakSecret:
            continue
        return secret


def write_new_secret(path: Path) -> None:
    """Write :func:`new_secret` and a newline to a new file ``path``, readable by its owner only
    (mode 0600 from its creation: never readable by others, even for a moment). An existing
    file is never overwritten (:class:`FileExistsError`): it may be the secret of a set."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(new_secret() + b"\n")


def _keyed_numbers(seed: str, secret: bytes) -> Iterator[int]:
    prefix = _STREAM_LABEL + seed.encode("utf-8")
    for block in count():
        digest = hmac.digest(secret, prefix + block.to_bytes(8, "big"), hashlib.sha256)
        for i in range(0, len(digest), 4):
            yield int.from_bytes(digest[i : i + 4], "big")


def _key_fingerprint(secret: bytes | None) -> str | None:
    """The first 16 hex digits of HMAC-SHA-256 of ``b"cruel-tools key fingerprint"`` with key
    ``secret``: which secret made a set, without telling the secret. None for the public stream."""
    if secret is None:
        return None
    _check_secret(secret)
    return hmac.new(secret, _FINGERPRINT_MESSAGE, hashlib.sha256).hexdigest()[:16]


def key_fingerprint(secret: bytes | None) -> str | None:
    """Which secret made a stream, without telling it (what a set's ``index.json`` records):
    16 hex digits, or None for the public stream."""
    return _key_fingerprint(secret)


def _classified(number: int, rules: Rules, budget: Budget) -> Classified:
    return classify(Game.from_deal(deals.deal_piles(number, rules), rules), budget)


def grade_deal(
    number: int,
    rules: Rules = DEFAULT,
    budget: Budget = Budget(),
    found: Classified | None = None,
) -> Grade:
    return grade(deals.deal_piles(number, rules), number, rules, budget, found)


def _grade_chosen(item: tuple[int, Classified], rules: Rules, budget: Budget) -> Grade:
    return grade_deal(item[0], rules, budget, item[1])


def puzzle_from_grade(
    graded: Grade, date: dt.date | None, tier: Tier | None = None, puzzle_id: str | None = None
) -> Puzzle:
    """The puzzle of a won grade; ``id`` defaults to ``<date>-<tier>``."""
    tier = tier or graded.tier
    if tier is None or graded.tier != tier or graded.metrics is None or graded.solution is None:
        raise ValueError(f"deal {graded.deal.number} is not a won {tier} deal")
    if puzzle_id is None:
        if date is None:
            raise ValueError("a puzzle without a date needs an id")
        puzzle_id = f"{date.isoformat()}-{tier}"
    return Puzzle(
        id=puzzle_id,
        date=date,
        tier=tier,
        rules=graded.rules,
        deal=graded.deal,
        par=graded.metrics.par,
        solution=graded.solution,
        metrics=graded.metrics,
        generator=GENERATOR,
    )


class _Workers:
    """``map`` in order, in this process (jobs 1) or in a pool of ``jobs`` processes."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(jobs, 1)
        self.pool: Pool | None = None
        if self.jobs > 1:
            context = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
            self.pool = context.Pool(self.jobs)

    def map(self, fn: Callable[[_U], _T], items: Iterable[_U]) -> Iterator[_T]:
        """Results in input order, computed in chunks of ``2 * jobs`` (input may be endless)."""
        it = iter(items)
        while chunk := list(islice(it, 2 * self.jobs)):
            if self.pool is None:
                yield from map(fn, chunk)
            else:
                yield from self.pool.imap(fn, chunk)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()


def generate(
    tier: Tier,
    count: int,
    seed: str,
    rules: Rules = DEFAULT,
    jobs: int = 1,
    exclude: Iterable[int] = (),
    budget: Budget = Budget(),
    max_candidates: int | None = None,
    secret: bytes | None = None,
) -> list[Puzzle]:
    """The first ``count`` deals of tier ``tier`` in the stream of ``seed`` (skipping
    ``exclude``), as puzzles ``<seed>-<tier>-1``, ``-2``... The same arguments give the same
    puzzles whatever ``jobs`` is. Fewer come back if ``max_candidates`` runs out first.
    With ``secret`` the stream is the keyed one (:func:`candidates`); a weak one is refused
    (:func:`check_secret`)."""
    if secret is not None:
        check_secret(secret)
    skip = set(exclude)
    stream: Iterator[int] = (n for n in candidates(seed, secret) if n not in skip)
    if max_candidates is not None:
        stream = islice(stream, max_candidates)
    workers = _Workers(jobs)
    try:
        chosen: list[tuple[int, Classified]] = []
        if count > 0:
            for number, found in _tiers(stream, workers, rules, budget):
                if found.tier == tier:
                    chosen.append((number, found))
                    if len(chosen) == count:
                        break
        grades = list(workers.map(partial(_grade_chosen, rules=rules, budget=budget), chosen))
    finally:
        workers.close()
    return [puzzle_from_grade(g, None, tier, f"{seed}-{tier}-{k}") for k, g in enumerate(grades, 1)]


def _tiers(
    numbers: Iterable[int], workers: _Workers, rules: Rules, budget: Budget
) -> Iterator[tuple[int, Classified]]:
    """``(number, classification)`` for each number, in order."""
    return workers.map(partial(_number_and_tier, rules=rules, budget=budget), numbers)


def _number_and_tier(number: int, rules: Rules, budget: Budget) -> tuple[int, Classified]:
    return number, _classified(number, rules, budget)


# --- the daily set -------------------------------------------------------------------------------


def _write_if_changed(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def _check_same_stream(out: Path, fingerprint: str | None) -> None:
    """Refuse (:class:`PuzzleSetError`, code ``secret-mismatch``) a folder whose ``index.json``
    was made with another secret, or with none when one is given now, or the other way round.
    A folder without an index has nothing to check."""
    index = out / "index.json"
    try:
        data = index.read_bytes()
    except FileNotFoundError:
        return
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise PuzzleSetError(
            f"{index}: cannot tell which stream made this set: {reason}", "secret-mismatch"
        ) from None
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        doc = None
    repeated = None if duplicates.surely_unique(data, doc) else duplicates.find(data)
    if repeated is not None:  # two fingerprints: which one made the set?
        at, key = repeated
        raise PuzzleSetError(
            f"{index}: not a {INDEX_FORMAT} file: {duplicates.message(key)} (at "
            f"{duplicates.pointer(at, key)})",
            "secret-mismatch",
        )
    if not isinstance(doc, dict) or doc.get("format") != INDEX_FORMAT:
        raise PuzzleSetError(
            f"{index}: not a {INDEX_FORMAT} file: cannot tell which stream made this set",
            "secret-mismatch",
        )
    before = doc.get("key_fingerprint")
    if before == fingerprint:
        return
    if fingerprint is None:
        why = f"with a secret (key fingerprint {before}): give that secret"
    elif before is None:
        why = "without a secret (the public stream): give no secret"
    else:
        why = f"with another secret (key fingerprint {before}, not {fingerprint}): give that one"
    raise PuzzleSetError(
        f"{out}: this puzzle set was made {why}, or use another folder", "secret-mismatch"
    )


def daily_puzzles(
    date: dt.date,
    used: Iterable[int] = (),
    budget: Budget = Budget(),
    max_candidates: int = MAX_CANDIDATES,
    secret: bytes | None = None,
    jobs: int = 1,
) -> list[Puzzle]:
    """The daily puzzles of one ``date``, easiest tier first: what :func:`daily` writes for that
    date when the puzzles dated before it use the deals ``used`` (the one choice of a day, for
    ``cruel daily`` and for ``cruel serve``'s publishing ahead, so that both give the same
    bytes). A tier not found within ``max_candidates`` deals is left out."""
    if secret is not None:
        check_secret(secret)
    workers = _Workers(jobs)
    try:
        return _day_puzzles(date, set(used), workers, budget, max_candidates, secret)
    finally:
        workers.close()


def _day_puzzles(
    date: dt.date,
    used: set[int],
    workers: _Workers,
    budget: Budget,
    max_candidates: int,
    secret: bytes | None,
) -> list[Puzzle]:
    """:func:`daily_puzzles` in ``workers``: for each tier, the first deal of the stream
    ``daily-<date>`` with that tier that is not in ``used``."""
    open_tiers = set(TIERS)
    chosen: dict[Tier, int] = {}
    stream = islice(
        (n for n in candidates(f"daily-{date.isoformat()}", secret) if n not in used),
        max_candidates,
    )
    found_of: dict[int, Classified] = {}
    for number, found in _tiers(stream, workers, DEFAULT, budget):
        tier = found.tier
        if tier in open_tiers:
            assert tier is not None
            open_tiers.discard(tier)
            chosen[tier] = number
            found_of[number] = found
            if not open_tiers:
                break
    order = [t for t in TIERS if t in chosen]
    grader = partial(_grade_chosen, rules=DEFAULT, budget=budget)
    picks = [(chosen[t], found_of[chosen[t]]) for t in order]
    grades = list(workers.map(grader, picks))
    return [
        puzzle_from_grade(graded, date, tier) for tier, graded in zip(order, grades, strict=True)
    ]


def daily(
    start: dt.date,
    days: int,
    out: Path,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    budget: Budget = Budget(),
    max_candidates: int = MAX_CANDIDATES,
    secret: bytes | None = None,
) -> list[Path]:
    """Write the daily puzzles of ``days`` days from ``start`` into ``out``, and its index.

    Each day takes, for each tier, the first deal of the stream ``daily-<date>`` with that tier
    that no puzzle of an *earlier* date uses (the puzzles in ``out`` dated before ``start``, and
    this run's earlier days). Later dates are never looked at, so rerunning a range rewrites the
    same bytes. A tier not found within ``max_candidates`` deals is left out that day.
    Returns the puzzle files written, then the index.

    With ``secret`` the streams are keyed (:func:`candidates`) and the index records the key's
    fingerprint. A folder whose index was made with another secret, or with none when one is
    given (and the other way round), is refused before anything is written:
    :class:`PuzzleSetError` with code ``secret-mismatch``; a weak secret too
    (:class:`WeakSecret`, :func:`check_secret`).
    """
    if secret is not None:
        check_secret(secret)
    fingerprint = _key_fingerprint(secret)
    _check_same_stream(out, fingerprint)
    used = {
        p.deal.number
        for p in map(load_puzzle, puzzle_files(out))
        if p.date is not None and p.date < start and p.deal.number is not None
    }
    written: list[Path] = []
    workers = _Workers(jobs)
    try:
        for k in range(days):
            date = start + dt.timedelta(days=k)
            found = _day_puzzles(date, used, workers, budget, max_candidates, secret)
            written += _write_day(out, date, found)
            used.update(p.deal.number for p in found if p.deal.number is not None)
            if progress is not None:
                progress(k)
    finally:
        workers.close()
    return [*written, _write_index(out, fingerprint)]


def _write_day(out: Path, date: dt.date, found: list[Puzzle]) -> list[Path]:
    """One day's puzzle files in ``out`` (rewritten only if changed), and a tier the day no
    longer has removed: the files of :func:`daily` and :func:`write_days` alike."""
    written = []
    for puzzle in found:
        path = daily_path(out, date, puzzle.tier)
        _write_if_changed(path, puzzle_bytes(puzzle))
        written.append(path)
    for tier in TIERS:
        stale = daily_path(out, date, tier)
        if all(p.tier != tier for p in found) and stale.exists():
            stale.unlink()
    return written


def _write_index(out: Path, fingerprint: str | None) -> Path:
    """``out``'s ``index.json`` of every puzzle file in it (rewritten only if changed)."""
    index = out / "index.json"
    _write_if_changed(index, index_bytes(out, fingerprint))
    return index


def write_days(out: Path, puzzles: Iterable[Puzzle], fingerprint: str | None) -> list[Path]:
    """Write daily ``puzzles`` made elsewhere (the days ``cruel serve`` published into its
    database) into ``out`` as :func:`daily` writes its own: the same files, a tier a day has
    not removed, the same index, so that a day exported and a day made by ``cruel daily`` are
    the same bytes. ``fingerprint``: the stream's (None: the public one); a folder of another
    stream is refused first (``secret-mismatch``). Returns the files written, then the index."""
    _check_same_stream(out, fingerprint)
    by_date: dict[dt.date, list[Puzzle]] = {}
    for puzzle in puzzles:
        if puzzle.date is None:
            raise PuzzleSetError(f"{puzzle.id}: not a daily puzzle (it has no date)")
        by_date.setdefault(puzzle.date, []).append(puzzle)
    written: list[Path] = []
    for date, found in sorted(by_date.items()):
        written += _write_day(out, date, found)
    return [*written, _write_index(out, fingerprint)]
