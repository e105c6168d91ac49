"""Players' own tokens: a browser claims a name once and gets a secret token; later writes under
that name need it (docs/service.md, Players and tokens).

A token is ``cruelp_`` and 32 random bytes (:mod:`secrets`), shown once; the store keeps its
SHA-256 (as :mod:`cruel_tools.site.keys` keeps API keys), never the token. A second device is linked
with a one-time **link code**: 8 characters of Crockford's base 32 (no I, L, O or U), valid
10 minutes, used once, kept as a slow salted hash (scrypt), and void after
:data:`MAX_TRIES` wrong codes for its player. A lost token is a moderator's matter: the admin
route revokes the player's tokens and hands out a link code. A player can export all the store
holds about them and delete it.

Tables (:data:`cruel_tools.site.tables.PLAYERS`): ``player_claims`` (a claimed name),
``player_tokens`` (hashes and dates), ``link_codes`` (hashes, dates, wrong tries).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..constants import LINK_CODE_MAX_WRONG, MAX_TOKENS
from ..errors import CruelError
from ..formats import document_config
from .database import Connection
from .judging import PlayerName, read_document
from .keys import ApiKey, key_hash
from .leaderboard import Tallies
from .moderation import AuditEntry, record_act
from .names import skeleton
from .ratings import forget_player
from .registry import CONFUSABLE, register
from .tables import Store

__all__ = [
    "TOKEN_PREFIX",
    "CLAIM_FORMAT",
    "TOKEN_FORMAT",
    "LINK_CODE_FORMAT",
    "LINK_FORMAT",
    "DATA_FORMAT",
    "DELETED_FORMAT",
    "REVOKED_FORMAT",
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "LINK_TTL",
    "MODERATOR_LINK_TTL",
    "MAX_TRIES",
    "VOIDED",
    "EXPORT_BATCH",
    "USED_EVERY",
    "PlayerRefused",
    "TooManyTokens",
    "PlayerClaim",
    "PlayerToken",
    "LinkCode",
    "LinkRequest",
    "TokenRecord",
    "LinkCodeRecord",
    "EntryRecord",
    "StepRecord",
    "AttemptRecord",
    "ModerationRecord",
    "PlayerData",
    "PlayerDeleted",
    "TokensRevoked",
    "TokenInfo",
    "parse_claim",
    "parse_link",
    "new_token",
    "new_code",
    "normal_code",
    "code_hash",
    "Players",
]

TOKEN_PREFIX: Final = "cruelp_"
CLAIM_FORMAT: Final = "cruel-player-claim/1"
TOKEN_FORMAT: Final = "cruel-player-token/1"
LINK_CODE_FORMAT: Final = "cruel-link-code/1"
LINK_FORMAT: Final = "cruel-link/1"
DATA_FORMAT: Final = "cruel-player-data/1"
DELETED_FORMAT: Final = "cruel-player-deleted/1"
REVOKED_FORMAT: Final = "cruel-player-tokens-revoked/1"
#: Crockford's base 32: digits and capitals without I, L, O and U, so that a code read aloud
#: or copied by hand has no two characters that look alike (I, L and O typed are read as 1, 1
#: and 0).
CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: Characters of a link code: 40 random bits.
CODE_LENGTH: Final = 8
#: How long a player's link code is valid.
LINK_TTL: Final = dt.timedelta(minutes=10)
#: How long a moderator's link code (a lost token, a name from before tokens) is valid: long
#: enough to reach the player by mail.
MODERATOR_LINK_TTL: Final = dt.timedelta(hours=24)
#: Wrong codes sent for one player, from all addresses, before every live code of theirs is
#: void (:data:`~cruel_tools.constants.LINK_CODE_MAX_WRONG`): with 2^40 codes, an online guess
#: succeeds with odds of about 1 in 10^10 per code made. Each address has a much smaller count
#: of its own (``cruel serve --link-guesses``), so that one stranger cannot void a code.
MAX_TRIES: Final = LINK_CODE_MAX_WRONG
#: The refusal of a right code that wrong guesses voided: the player learns what happened.
VOIDED: Final = "link-code-voided"
#: A token's ``used_at`` is written at most this often (not a write per request).
USED_EVERY: Final = dt.timedelta(hours=1)


def _voided(failures: int) -> bool:
    """Whether a link code with ``failures`` wrong codes counted against it is void: the one
    statement of the rule, for its redemption and the player's data (the store stops counting
    at :data:`MAX_TRIES`)."""
    return failures >= MAX_TRIES


_TOKEN_SHAPE: Final = re.compile(rf"{TOKEN_PREFIX}[A-Za-z0-9_-]{{43}}")
_SCRYPT: Final = {"n": 2**14, "r": 8, "p": 1, "dklen": 32, "maxmem": 64 * 1024 * 1024}
_TYPED: Final = str.maketrans({"I": "1", "L": "1", "O": "0", "-": None, " ": None})


class PlayerRefused(CruelError):
    """A player's request about their name that the store refuses: the name is someone's
    already, looks like another player's, has games from before tokens (a moderator's matter),
    or a link code is wrong, used or expired (or voided by others' wrong guesses)."""

    code = "name-taken"
    codes = ("name-taken", CONFUSABLE, "name-needs-moderator", "bad-link-code", VOIDED)

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class TooManyTokens(CruelError):
    """The player name holds the most valid tokens a name may (:attr:`Players.max_tokens`,
    ``cruel serve --max-tokens``): no link code is made or redeemed until a moderator revokes
    them (issue #33: ten linked tokens were one attacker's ten rate-limit buckets)."""

    code = "too-many-tokens"


# --- formats -------------------------------------------------------------------------------------


class PlayerClaim(BaseModel):
    """The body of ``POST /v1/players``: the name a browser claims."""

    model_config = document_config("Cruel player claim v1", "player-claim")

    format: Literal["cruel-player-claim/1"] = Field(
        CLAIM_FORMAT, description="Optional: the format and version of this document."
    )
    player: PlayerName


class PlayerToken(BaseModel):
    """A player's new token: shown once, kept by the browser; the server keeps only its hash.
    Send it as ``Authorization: Player <token>`` with every write under the name."""

    model_config = document_config("Cruel player token v1", "player-token")

    format: Literal["cruel-player-token/1"] = TOKEN_FORMAT
    player: str
    token: str = Field(description="cruelp_ and 43 url-safe characters (32 random bytes).")


class LinkCode(BaseModel):
    """A one-time code that gives a second device a token of the player."""

    model_config = document_config("Cruel link code v1", "link-code")

    format: Literal["cruel-link-code/1"] = LINK_CODE_FORMAT
    player: str
    code: str = Field(
        description=f"{CODE_LENGTH} characters of {CODE_ALPHABET}; typed in any case, with "
        "spaces or dashes, I and L read as 1, O as 0."
    )
    expires_at: dt.datetime = Field(description="Valid until then (UTC), and used once.")


class LinkRequest(BaseModel):
    """The body of ``POST /v1/players/{name}/tokens``: a link code for a new token."""

    model_config = document_config("Cruel link v1", "link-request")

    format: Literal["cruel-link/1"] = Field(
        LINK_FORMAT, description="Optional: the format and version of this document."
    )
    code: str = Field(min_length=1, max_length=32)


class TokenRecord(BaseModel):
    """A token as the store describes it: never the token, nor its hash."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: int
    created_at: dt.datetime
    used_at: dt.datetime | None = Field(description="Last write it authenticated, to the hour.")
    revoked_at: dt.datetime | None


class LinkCodeRecord(BaseModel):
    """A link code as the store describes it: never the code, nor its hash."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    created_at: dt.datetime
    expires_at: dt.datetime
    used_at: dt.datetime | None
    wrong_tries: int = Field(description="Wrong codes sent for the player while it was live.")
    voided: bool = Field(
        False,
        description="Wrong codes from others voided it (MAX_TRIES of them, from all addresses): "
        "make a new one.",
    )


class EntryRecord(BaseModel):
    """One of the player's entries, all of it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    submission_id: int
    puzzle: str
    moves: int
    redeals: int
    submitted_at: dt.datetime
    elapsed_ms: int | None
    game: str = Field(description="The game's id: SHA-256 of its moves in compact form.")
    log: str = Field(description="Its moves in compact form.")
    listed: bool = Field(description="On its leaderboard (not hidden, player not banned).")


class StepRecord(BaseModel):
    """One step of a live attempt, as the server received or made it, and when."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    at: dt.datetime
    step: str = Field(description="Compact log notation, or undo.")
    auto: bool = Field(description="An automatic move of the server.")


class AttemptRecord(BaseModel):
    """One of the player's attempts: its start, the entry it timed, and for a live attempt its
    end and every step with its time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    attempt: str
    puzzle: str
    started_at: dt.datetime
    submission_id: int | None
    sender: str = Field(description="Who started it: a site key's id, a token's or none (open).")
    status: str | None = Field(None, description="A live attempt's: playing, won, blocked, ...")
    ended_at: dt.datetime | None = None
    elapsed_ms: int | None = Field(None, description="A live win's time, the server's clock.")
    steps: list[StepRecord] = Field(default_factory=list)


class ModerationRecord(BaseModel):
    """A moderator's act on the player or one of their entries (the moderator not named)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    at: dt.datetime
    action: str
    submission_id: int | None
    reason: str | None


class PlayerData(BaseModel):
    """Everything the store holds about one player (``GET /v1/players/{name}/data``)."""

    model_config = document_config("Cruel player data v1", "player-data")

    format: Literal["cruel-player-data/1"] = DATA_FORMAT
    player: str
    exported_at: dt.datetime
    names: list[str] = Field(description="The player's names (one: a name is one player).")
    claimed_at: dt.datetime | None
    banned: bool
    entries: list[EntryRecord]
    attempts: list[AttemptRecord]
    tokens: list[TokenRecord]
    link_codes: list[LinkCodeRecord]
    moderation: list[ModerationRecord]


class PlayerDeleted(BaseModel):
    """What ``DELETE /v1/players/{name}`` removed."""

    model_config = document_config("Cruel player deleted v1", "player-deleted")

    format: Literal["cruel-player-deleted/1"] = DELETED_FORMAT
    player: str
    entries: int
    attempts: int
    tokens: int
    link_codes: int
    banned: bool = Field(
        description="The name stays banned (a moderator's act, kept with the audit log)."
    )


class TokensRevoked(BaseModel):
    """A moderator's revocation of a player's tokens, with a link code for the player."""

    model_config = document_config("Cruel player tokens revoked v1", "tokens-revoked")

    format: Literal["cruel-player-tokens-revoked/1"] = REVOKED_FORMAT
    player: str
    revoked: int = Field(description="Tokens revoked now.")
    code: str = Field(description="A link code for the player, to be handed over privately.")
    expires_at: dt.datetime
    audit: AuditEntry


@dataclass(frozen=True)
class TokenInfo:
    """A valid or revoked token, found by its hash."""

    id: int
    player: str
    revoked_at: dt.datetime | None


def parse_claim(data: bytes) -> PlayerClaim:
    """Read a claim (``bad-player-name`` at ``/player`` for a refused name)."""
    return read_document(PlayerClaim, data, "a claim", "player and optional format")


def parse_link(data: bytes) -> LinkRequest:
    """Read a link request."""
    return read_document(LinkRequest, data, "a link request", "code and optional format")


def new_token() -> str:
    """A new random token: ``cruelp_`` and 32 bytes from :mod:`secrets`, url-safe base64."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_code() -> str:
    """A new link code: :data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A typed code as it was made (capitals, no spaces or dashes, I and L as 1, O as 0);
    None when it cannot be one."""
    code = text.upper().translate(_TYPED)
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def code_hash(player: str, code: str) -> str:
    """What the store keeps of a link code: scrypt, salted with the player's name. A code has
    only 40 bits, so, unlike a token, a fast hash of it could be reversed by trying them all;
    scrypt makes each try cost about 40 ms and 16 MiB, 2^40 of them far more than its 10
    minutes."""
    salt = b"cruel-link/" + player.encode()
    return hashlib.scrypt(code.encode(), salt=salt, **_SCRYPT).hex()


def _iso(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).isoformat()


def _iso_time(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def _time(text: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(text) if text else None


def _now() -> dt.datetime:
    """Server time, UTC (a test sets the clock here)."""
    return dt.datetime.now(dt.UTC)


#: The tables of live attempts' state and steps, by attempt (:data:`cruel_tools.site.tables.LIVE`).
_LIVE_TABLES: Final = ("attempt_steps", "live_attempts")
#: Rows read a transaction when a player's data is streamed (:meth:`Players.export_parts`).
EXPORT_BATCH: Final = 2000
#: Where the streamed entries and attempts go in the document's head.
_EXPORT_GAP: Final = b'"entries":[],"attempts":[],'
_AT: Final = TypeAdapter(dt.datetime)


def _joined(parts: Iterator[bytes]) -> Iterator[bytes]:
    """``parts`` as the items of a JSON array: a comma between two (empty parts skipped)."""
    first = True
    for part in parts:
        if not part:
            continue
        yield part if first else b"," + part
        first = False


def _step_json(at: str, step: str, auto: Any) -> str:
    """A :class:`StepRecord` as its model dumps it, without making one (a player may have
    100,000 steps, and a bytes object from ``orjson.dumps`` each would hold kilobytes): its time
    as pydantic writes a UTC time, with ``Z``."""
    when = at[:-6] + "Z" if at.endswith("+00:00") else _AT.dump_python(_iso_time(at), mode="json")
    return f'{{"at":{_quoted(when)},"step":{_quoted(step)},"auto":{"true" if auto else "false"}}}'


@lru_cache(maxsize=256)
def _quoted(text: str) -> str:
    """``text`` as a JSON string (steps are a few hundred texts; times are cached briefly)."""
    return orjson.dumps(text).decode()


# --- the store -----------------------------------------------------------------------------------


class Players(Store):
    """Claimed names, players' tokens and link codes (:class:`~cruel_tools.site.tables.Store`), and
    a
    player's export and deletion. Names are enforced already
    (:func:`cruel_tools.site.names.enforce`). Each write is one transaction holding the name's
    skeleton lock (PostgreSQL), the lock of its submissions."""

    #: Valid tokens a name may hold (``cruel serve --max-tokens``).
    max_tokens: int = MAX_TOKENS

    # -- claims and tokens --

    def claim(self, player: str, now: dt.datetime | None = None) -> PlayerToken:
        """Claim ``player`` for whoever asks first: the name is registered
        (:func:`cruel_tools.site.registry.register`: a lookalike of a player is refused) and a first
        token made.

        :raises PlayerRefused: ``name-taken``, ``player-name-confusable``, or
            ``name-needs-moderator`` (the name has games from before tokens).
        """
        when = now or _now()
        token = new_token()
        with self.database.write(lock=skeleton(player)) as db:
            if self._claimed(db, player):
                raise PlayerRefused("name-taken", f"player name {player!r} is taken")
            # A name with games or attempts and no claim was played before tokens (with a site's
            # key, or keyless under --open): whoever claims it first would get those games, and
            # could delete them. Its player asks a moderator for a link code instead.
            if self._history(db, player):
                raise PlayerRefused(
                    "name-needs-moderator",
                    f"player {player!r} has games from before tokens: a moderator can give "
                    "its player a link code",
                )
            refused = register(db, player)
            if refused is not None:
                raise PlayerRefused(refused.code, refused.message)
            db.execute(
                "INSERT INTO player_claims (player, claimed_at) VALUES (?, ?)", (player, _iso(when))
            )
            self._add_token(db, player, token, when)
        return PlayerToken(player=player, token=token)

    def is_claimed(self, player: str) -> bool:
        """Whether ``player`` is claimed: every write under it then needs one of its tokens."""
        with self.database.read() as db:
            return self._claimed(db, player)

    def find(self, token: str, now: dt.datetime | None = None) -> TokenInfo | None:
        """The token's player, revoked or not; None for a token never made. Looked up by its
        hash (an index), as API keys are. Its ``used_at`` is written at most every
        :data:`USED_EVERY`."""
        if not _TOKEN_SHAPE.fullmatch(token):
            return None
        digest = key_hash(token)
        with self.database.read() as db:
            row = db.execute(
                "SELECT id, player, used_at, revoked_at FROM player_tokens WHERE hash = ?",
                (digest,),
            ).fetchone()
        if row is None:
            return None
        token_id, player, used, revoked = row
        when = now or _now()
        if revoked is None and (
            used is None or when - dt.datetime.fromisoformat(used) >= USED_EVERY
        ):
            hour = when.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
            with self.database.write() as db:
                db.execute(
                    "UPDATE player_tokens SET used_at = ? WHERE id = ?", (_iso(hour), token_id)
                )
        return TokenInfo(int(token_id), str(player), _time(revoked))

    # -- link codes --

    def link_code(
        self,
        player: str,
        now: dt.datetime | None = None,
        ttl: dt.timedelta = LINK_TTL,
    ) -> LinkCode:
        """A new one-time link code of ``player``; their earlier live codes are void (one at a
        time, so a guesser never has several targets)."""
        when = now or _now()
        code = new_code()
        digest = code_hash(player, code)  # before the transaction: it takes ~50 ms
        with self.database.write(lock=skeleton(player)) as db:
            self._room_for_a_token(db, player)
            self._new_code(db, player, digest, when, ttl)
        return LinkCode(player=player, code=code, expires_at=when + ttl)

    def redeem(self, player: str, typed: str, now: dt.datetime | None = None) -> PlayerToken:
        """A new token of ``player`` for a live link code of theirs, which is used up. A wrong
        code counts against every live code of the player: after :data:`MAX_TRIES`, none is
        valid any more, and the right code sent then is told so (``link-code-voided``).

        :raises PlayerRefused: ``bad-link-code``, ``link-code-voided``.
        """
        when = now or _now()
        wrong = PlayerRefused(
            "bad-link-code",
            f"this link code is wrong, used or expired; make a new one on a device of {player!r}",
        )
        code = normal_code(typed)
        # Voided codes are read too: the player who sends one is told it was voided.
        live = (
            "SELECT id, hash, failures FROM link_codes WHERE player = ? AND used_at IS NULL"
            " AND expires_at > ?"
        )
        with self.database.read() as db:
            found = db.execute(live, (player, _iso(when))).fetchall()
        if not found:
            raise wrong
        digest = code_hash(player, code) if code else ""
        token = new_token()
        with self.database.write(lock=skeleton(player)) as db:
            rows = db.execute(live, (player, _iso(when))).fetchall()
            match = [
                (cid, tries)
                for cid, stored, tries in rows
                if code and secrets.compare_digest(stored, digest)
            ]
            if not match:
                db.execute(
                    "UPDATE link_codes SET failures = failures + 1 WHERE player = ?"
                    " AND used_at IS NULL AND failures < ?",
                    (player, MAX_TRIES),
                )
                refused: PlayerRefused | None = wrong
            elif _voided(match[0][1]):
                refused = PlayerRefused(
                    VOIDED,
                    f"this link code was voided after {match[0][1]} wrong codes were sent for "
                    f"{player!r}; make a new one on a device of theirs",
                )
            else:
                db.execute(
                    "UPDATE link_codes SET used_at = ? WHERE id = ?", (_iso(when), match[0][0])
                )
                self._add_token(db, player, token, when)
                refused = None
        if refused is not None:  # raised after the transaction: the count of wrong tries is kept
            raise refused
        return PlayerToken(player=player, token=token)

    def revoke(
        self, player: str, key: ApiKey, reason: str | None = None, now: dt.datetime | None = None
    ) -> TokensRevoked:
        """A moderator's act for a player who lost their token, or whose name has games from
        before tokens: revoke every token of ``player``, void their link codes, claim the name
        for them if it was not, and make a link code valid :data:`MODERATOR_LINK_TTL` to hand
        to them. Recorded in the moderation audit log (action ``revoke-tokens``)."""
        when = now or _now()
        code = new_code()
        digest = code_hash(player, code)
        with self.database.write(lock=skeleton(player)) as db:
            refused = register(db, player)
            if refused is not None:  # never a lookalike's way in
                raise PlayerRefused(refused.code, refused.message)
            db.execute(
                "INSERT INTO player_claims (player, claimed_at) VALUES (?, ?)"
                " ON CONFLICT DO NOTHING",
                (player, _iso(when)),
            )
            revoked = db.execute(
                "UPDATE player_tokens SET revoked_at = ? WHERE player = ? AND revoked_at IS NULL",
                (_iso(when), player),
            ).rowcount
            self._new_code(db, player, digest, when, MODERATOR_LINK_TTL)
            audit = record_act(
                db, when, key, "revoke-tokens", revoked > 0, None, player, reason, None
            )
        return TokensRevoked(
            player=player,
            revoked=int(revoked),
            code=code,
            expires_at=when + MODERATOR_LINK_TTL,
            audit=audit,
        )

    # -- a player's rights: export and deletion --

    def export(self, player: str, now: dt.datetime | None = None) -> PlayerData:
        """Everything the store holds about ``player``: never a token's or a code's hash. The
        document :meth:`export_parts` streams, read whole (for a library's caller; the service
        streams it)."""
        return PlayerData.model_validate_json(b"".join(self.export_parts(player, now)))

    def export_parts(self, player: str, now: dt.datetime | None = None) -> Iterator[bytes]:
        """:meth:`export`'s document as JSON, in parts (issue #33: 132,000 steps took 2.8 s and
        100 MB built whole): the same bytes as the whole document's ``orjson`` dump, read
        :data:`EXPORT_BATCH` rows a transaction, so memory stays flat however many steps a
        player has, and no read holds a snapshot (SQLite's checkpoints, PostgreSQL's vacuum)
        while a slow client reads. Entries are those stored when the export began; an attempt
        played during it shows its steps as they were when its row was read."""
        when = now or _now()
        with self.database.read() as db:
            head, last_entry = self._export_head(db, player, when)
        text = orjson.dumps(head.model_dump(mode="json"))
        before, after = text.split(_EXPORT_GAP, 1)
        yield before + b'"entries":['
        yield from _joined(self._entry_parts(player, last_entry))
        yield b'],"attempts":['
        yield from self._attempt_parts(player)
        yield b"]," + after

    def _export_head(
        self, db: Connection, player: str, when: dt.datetime
    ) -> tuple[PlayerData, int]:
        """The document without its entries and attempts (each bounded: tokens by
        :attr:`max_tokens`, link codes one at a time, moderators' acts by moderators), and the
        last entry's id then."""
        one = db.execute
        claimed = one("SELECT claimed_at FROM player_claims WHERE player = ?", (player,)).fetchone()
        banned = one("SELECT 1 FROM banned_players WHERE player = ?", (player,)).fetchone()
        last = one("SELECT MAX(id) FROM submissions WHERE player = ?", (player,)).fetchone()[0]
        played = one("SELECT 1 FROM attempts WHERE player = ? LIMIT 1", (player,)).fetchone()
        known = one("SELECT 1 FROM players WHERE player = ?", (player,)).fetchone()
        tokens = one(
            "SELECT id, created_at, used_at, revoked_at FROM player_tokens WHERE player = ?"
            " ORDER BY id",
            (player,),
        ).fetchall()
        codes = one(
            "SELECT created_at, expires_at, used_at, failures FROM link_codes"
            " WHERE player = ? ORDER BY id",
            (player,),
        ).fetchall()
        acts = one(
            "SELECT at, action, submission, reason FROM moderation_audit WHERE player = ?"
            " ORDER BY id",
            (player,),
        ).fetchall()
        head = PlayerData(
            player=player,
            exported_at=when,
            names=[player] if known or claimed or last is not None or played else [],
            claimed_at=_time(claimed[0]) if claimed else None,
            banned=banned is not None,
            entries=[],
            attempts=[],
            tokens=[
                TokenRecord(
                    id=tid,
                    created_at=dt.datetime.fromisoformat(made),
                    used_at=_time(used),
                    revoked_at=_time(revoked),
                )
                for tid, made, used, revoked in tokens
            ],
            link_codes=[
                LinkCodeRecord(
                    created_at=dt.datetime.fromisoformat(made),
                    expires_at=dt.datetime.fromisoformat(expires),
                    used_at=_time(used),
                    wrong_tries=failures,
                    voided=used is None and _voided(failures),
                )
                for made, expires, used, failures in codes
            ],
            moderation=[
                ModerationRecord(
                    at=dt.datetime.fromisoformat(at), action=a, submission_id=s, reason=r
                )
                for at, a, s, r in acts
            ],
        )
        return head, -1 if last is None else int(last)

    def _entry_parts(self, player: str, last: int) -> Iterator[bytes]:
        """The player's entries up to id ``last``, each as JSON, a batch a transaction."""
        after = 0
        while after < last:
            with self.database.read() as db:
                rows = db.execute(
                    "SELECT id, puzzle, moves, redeals, submitted_at, elapsed_ms, game, log,"
                    " EXISTS (SELECT 1 FROM visible_submissions AS v WHERE v.id = s.id)"
                    " FROM submissions AS s WHERE player = ? AND id > ? AND id <= ?"
                    " ORDER BY id LIMIT ?",
                    (player, after, last, EXPORT_BATCH),
                ).fetchall()
            for sid, puzzle, moves, redeals, at, elapsed, game, log, listed in rows:
                record = EntryRecord(
                    submission_id=sid,
                    puzzle=puzzle,
                    moves=moves,
                    redeals=redeals,
                    submitted_at=dt.datetime.fromisoformat(at),
                    elapsed_ms=elapsed,
                    game=game,
                    log=log,
                    listed=bool(listed),
                )
                yield orjson.dumps(record.model_dump(mode="json"))
            if len(rows) < EXPORT_BATCH:
                return
            after = int(rows[-1][0])

    def _attempt_parts(self, player: str) -> Iterator[bytes]:
        """The player's attempts in order of their start, as the items of a JSON array, each
        with its steps streamed in: a batch of attempts (and of each one's steps) a
        transaction."""
        live = self.database.read
        with live() as db:
            has_live = db.has_table("live_attempts") and db.has_table("attempt_steps")
        joined = (
            " l.status, l.ended_at, l.elapsed_ms, l.recorded FROM attempts AS a"
            " LEFT JOIN live_attempts AS l ON l.attempt = a.id"
            if has_live
            else " NULL, NULL, NULL, NULL FROM attempts AS a"
        )
        key: tuple[str, str] = ("", "")
        comma = b""  # before every attempt but the first
        while True:
            with live() as db:
                rows = db.execute(
                    "SELECT a.id, a.puzzle, a.started_at, a.submission_id, a.sender,"
                    + joined
                    + " WHERE a.player = ? AND (a.started_at > ? OR (a.started_at = ?"
                    " AND a.id > ?)) ORDER BY a.started_at, a.id LIMIT ?",
                    (player, key[0], key[0], key[1], EXPORT_BATCH // 10),
                ).fetchall()
            for aid, puzzle, at, sid, sender, status, ended, elapsed, recorded in rows:
                record = AttemptRecord(
                    attempt=aid,
                    puzzle=puzzle,
                    started_at=dt.datetime.fromisoformat(at),
                    submission_id=sid,
                    sender=sender,
                    status=status,
                    ended_at=_time(ended),
                    elapsed_ms=elapsed,
                )
                text = comma + orjson.dumps(record.model_dump(mode="json"))
                comma = b","
                if not recorded:
                    yield text
                    continue
                yield text.removesuffix(b"]}")  # its steps go in the empty list it ends with
                yield from _joined(self._step_parts(aid, int(recorded)))
                yield b"]}"
            if len(rows) < EXPORT_BATCH // 10:
                return
            key = (rows[-1][2], rows[-1][0])

    def _step_parts(self, attempt: str, recorded: int) -> Iterator[bytes]:
        """The attempt's steps up to ``recorded`` (its count when its row was read), as JSON."""
        seq = 0
        while seq < recorded:
            with self.database.read() as db:
                rows = db.execute(
                    "SELECT seq, at, step, auto FROM attempt_steps WHERE attempt = ?"
                    " AND seq >= ? AND seq < ? ORDER BY seq LIMIT ?",
                    (attempt, seq, recorded, EXPORT_BATCH),
                ).fetchall()
            yield ",".join([_step_json(at, step, auto) for _, at, step, auto in rows]).encode()
            if len(rows) < EXPORT_BATCH:
                return
            seq = int(rows[-1][0]) + 1

    def delete(self, player: str) -> PlayerDeleted:
        """Delete ``player``'s entries (the boards' tallies follow in the same transaction),
        attempts, tokens, link codes, claim and name. Kept: the moderation audit log (a
        moderator's acts stay accountable) and a ban (the name cannot escape it by being
        deleted and claimed again)."""
        with self.database.write(lock=skeleton(player)) as db:
            # Moderators' acts on this player wait, as they take the same lock after theirs.
            tallies = Tallies.of_player(db, player)
            entries_of = "SELECT id FROM submissions WHERE player = ?"
            for table in ("hidden_submissions", "review_queue"):  # what refers to the entries
                if db.has_table(table):
                    db.execute(f"DELETE FROM {table} WHERE submission IN ({entries_of})", (player,))
            entries = db.execute("DELETE FROM submissions WHERE player = ?", (player,)).rowcount
            tallies.settle()
            mine = "SELECT id FROM attempts WHERE player = ?"
            for table in _LIVE_TABLES:  # live attempts' state and steps (when laid out)
                if db.has_table(table):
                    db.execute(f"DELETE FROM {table} WHERE attempt IN ({mine})", (player,))
            attempts = db.execute("DELETE FROM attempts WHERE player = ?", (player,)).rowcount
            forget_player(db, player)  # the player's rating (puzzles keep theirs)
            tokens = db.execute("DELETE FROM player_tokens WHERE player = ?", (player,)).rowcount
            codes = db.execute("DELETE FROM link_codes WHERE player = ?", (player,)).rowcount
            db.execute("DELETE FROM player_claims WHERE player = ?", (player,))
            db.execute("DELETE FROM players WHERE player = ?", (player,))
            banned = db.execute(
                "SELECT 1 FROM banned_players WHERE player = ?", (player,)
            ).fetchone()
        return PlayerDeleted(
            player=player,
            entries=int(entries),
            attempts=int(attempts),
            tokens=int(tokens),
            link_codes=int(codes),
            banned=banned is not None,
        )

    # -- inside --

    @staticmethod
    def _claimed(db: Connection, player: str) -> bool:
        found = db.execute("SELECT 1 FROM player_claims WHERE player = ?", (player,))
        return found.fetchone() is not None

    @staticmethod
    def _history(db: Connection, player: str) -> bool:
        """Whether ``player`` has played: an entry (a name in ``players``) or an attempt."""
        for table in ("players", "attempts"):
            found = db.execute(f"SELECT 1 FROM {table} WHERE player = ? LIMIT 1", (player,))
            if found.fetchone() is not None:
                return True
        return False

    def _room_for_a_token(self, db: Connection, player: str) -> None:
        """Refuse a new token (or a code for one) when ``player`` holds :attr:`max_tokens`."""
        held = db.execute(
            "SELECT COUNT(*) FROM player_tokens WHERE player = ? AND revoked_at IS NULL",
            (player,),
        ).fetchone()[0]
        if held >= self.max_tokens:
            raise TooManyTokens(
                f"player {player!r} holds {held} tokens, the most a name may: a moderator can "
                "revoke them and give a link code"
            )

    def _add_token(self, db: Connection, player: str, token: str, when: dt.datetime) -> None:
        self._room_for_a_token(db, player)
        db.execute(
            "INSERT INTO player_tokens (hash, player, created_at) VALUES (?, ?, ?)",
            (key_hash(token), player, _iso(when)),
        )

    @staticmethod
    def _new_code(
        db: Connection, player: str, digest: str, when: dt.datetime, ttl: dt.timedelta
    ) -> None:
        # Earlier codes that were never used are of no interest to anyone: they go.
        db.execute("DELETE FROM link_codes WHERE player = ? AND used_at IS NULL", (player,))
        db.execute(
            "INSERT INTO link_codes (player, hash, created_at, expires_at) VALUES (?, ?, ?, ?)",
            (player, digest, _iso(when), _iso(when + ttl)),
        )
