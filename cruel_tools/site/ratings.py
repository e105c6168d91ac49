"""Ratings from play (issue #26), as lichess rates its puzzles: each rated live attempt is a game
between the player and the puzzle, and both keep a Glicko-2 rating.

The algorithm is Glickman's "Example of the Glicko-2 system" (2013), written out here
(:func:`update`; its worked example is a test). A rated attempt is a rating period of one game
for each side (lichess does the same): the player's and the puzzle's updates each use the other's
rating from before the game. The player scores 1 for ``won`` and 0 for ``blocked``, ``given-up``
and ``expired`` (the puzzle scores the opposite). Every player and every puzzle starts at
:data:`START` (1500, deviation 350, volatility 0.06): puzzles have no tier prior, so what
``cruel ratings`` says about the tiers comes from play alone. A rating is shown once its
deviation is under :data:`SHOWN_BELOW`.

What is rated (:func:`rate`, called in the transaction that ends a live attempt, in
:mod:`cruel_tools.site.attempts`): a live attempt that ends with at least one step of the player's,
once (the table ``rated_attempts``: a retry or a second read of an ended attempt changes
nothing). A win whose timing was flagged for a moderator is not rated, neither then nor when a
moderator decides (a late update would be made against ratings that moved since).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..formats import PlayRating, document_config
from ..search.grading import TIERS, Tier
from .database import Connection
from .tables import Store

__all__ = [
    "RATINGS_FORMAT",
    "TAU",
    "SCALE",
    "START",
    "SHOWN_BELOW",
    "SCORES",
    "LOCK",
    "EPSILON",
    "Kind",
    "Glicko",
    "expected",
    "update",
    "game",
    "median_interval",
    "Standing",
    "TierRow",
    "TierTable",
    "tier_table",
    "table_lines",
    "rate",
    "forget_player",
    "Ratings",
]

RATINGS_FORMAT: Final = "cruel-ratings/1"
#: Glicko-2's system constant: how much a volatility may change (Glickman suggests 0.3 to 1.2).
TAU: Final = 0.5
#: Glicko-2's scale: a rating of 1500 + 173.7178 x is x on its own scale.
SCALE: Final = 173.7178
#: Convergence tolerance of the volatility's iteration (the paper's epsilon).
EPSILON: Final = 1e-6
#: A rating is shown (``rating`` in the API, counted by ``cruel ratings``) once its deviation is
#: under this: lichess's bound for a provisional rating. From the start (350), about ten games
#: against opponents of known rating.
SHOWN_BELOW: Final = 110.0
#: The player's score for each end of a live attempt (the puzzle's is 1 minus it).
SCORES: Final[Mapping[str, float]] = {"won": 1.0, "blocked": 0.0, "given-up": 0.0, "expired": 0.0}
#: The lock every rating update holds (PostgreSQL: instances take turns; SQLite's write lock
#: covers it), so that two attempts ending at once never update one rating from the same value.
LOCK: Final = "cruel-tools ratings"

Kind = Literal["player", "puzzle"]


@dataclass(frozen=True)
class Glicko:
    """A Glicko-2 rating on the Glicko scale: rating, deviation (RD), volatility (sigma)."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


#: Where every player and every puzzle starts.
START: Final = Glicko()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def expected(a: Glicko, b: Glicko) -> float:
    """The expected score of ``a`` against ``b`` (Glicko-2's E, with ``b``'s deviation)."""
    mu, mu_j, phi_j = (a.rating - 1500) / SCALE, (b.rating - 1500) / SCALE, b.deviation / SCALE
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(own: Glicko, games: Sequence[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """``own`` after one rating period of ``games`` (each: the opponent's rating before the
    period, and ``own``'s score, 1 win, 0.5 draw, 0 loss): Glickman (2013), steps 2 to 8.
    No game: only the deviation grows (step 6)."""
    mu, phi, sigma = (own.rating - 1500) / SCALE, own.deviation / SCALE, own.volatility
    if not games:
        return Glicko(own.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    v_inverse = 0.0
    gain = 0.0  # sum of g(phi_j) (s_j - E_j)
    for opponent, score in games:
        mu_j, phi_j = (opponent.rating - 1500) / SCALE, opponent.deviation / SCALE
        g = _g(phi_j)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        v_inverse += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / v_inverse
    delta = v * gain
    # Step 5: the new volatility, by the Illinois algorithm on f.
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gain
    return Glicko(1500 + SCALE * new_mu, SCALE * new_phi, new_sigma)


def game(player: Glicko, puzzle: Glicko, score: float, tau: float = TAU) -> tuple[Glicko, Glicko]:
    """One game as one rating period for each side, each against the other's rating before the
    game: the player's and the puzzle's new ratings (``score``: the player's)."""
    return update(player, [(puzzle, score)], tau), update(puzzle, [(player, 1.0 - score)], tau)


# --- the tier table ------------------------------------------------------------------------------


def median_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """A distribution-free interval for the median of the population ``values`` come from: the
    order statistics x(l) and x(n+1-l) with the largest l whose coverage, from the binomial(n,
    1/2) distribution of the values below the median, is at least ``level``. None for fewer
    than 6 values (no pair covers 95 %)."""
    xs = sorted(values)
    n = len(xs)
    tail = (1.0 - level) / 2.0
    below = 0.0  # P(B <= l - 1), B ~ binomial(n, 1/2)
    best: int | None = None
    for low in range(1, n // 2 + 1):
        below += math.comb(n, low - 1) / 2.0**n
        if below > tail:
            break
        best = low
    if best is None:
        return None
    return xs[best - 1], xs[n - best]


@dataclass(frozen=True)
class Standing:
    """A stored rating and its rated games."""

    glicko: Glicko
    games: int

    def shown(self) -> PlayRating | None:
        """What the API shows: None until the deviation is under :data:`SHOWN_BELOW`."""
        if self.glicko.deviation >= SHOWN_BELOW:
            return None
        return PlayRating(
            rating=round(self.glicko.rating, 1),
            deviation=round(self.glicko.deviation, 1),
            games=self.games,
        )


class TierRow(BaseModel):
    """One tier of ``cruel ratings``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tier: Tier
    puzzles: int = Field(description="Puzzles of the tier whose rating is shown (counted).")
    rated: int = Field(description="Puzzles of the tier with any rated game.")
    median: float | None = Field(description="Median rating of the counted puzzles.")
    low: float | None = Field(description="95 % interval for the median (order statistics).")
    high: float | None


class TierTable(BaseModel):
    """``cruel ratings --json``: the median puzzle rating of each tier, and whether play orders
    the tiers as the solver grades them."""

    model_config = document_config("Cruel ratings v1", "ratings")

    format: Literal["cruel-ratings/1"] = RATINGS_FORMAT
    shown_below: float = Field(description="A puzzle counts once its deviation is under this.")
    tiers: list[TierRow] = Field(description="Easiest tier first.")
    order: Literal["same", "different", "unknown"] = Field(
        description="same: the medians rise from easy to expert, as the solver grades; "
        "different: they do not; unknown: a tier has no counted puzzle."
    )
    separated: bool = Field(
        description="Every tier's interval lies wholly above the one before it."
    )


def tier_table(standings: Mapping[str, Standing], tier_of: Mapping[str, Tier]) -> TierTable:
    """The tier table of the puzzles' ``standings`` (by puzzle id), each puzzle's tier from
    ``tier_of`` (puzzles not there are left out)."""
    rows: list[TierRow] = []
    for tier in TIERS:
        mine = [s for pid, s in standings.items() if tier_of.get(pid) == tier]
        shown = [s.glicko.rating for s in mine if s.shown() is not None]
        interval = median_interval(shown)
        rows.append(
            TierRow(
                tier=tier,
                puzzles=len(shown),
                rated=len(mine),
                median=round(_median(shown), 1) if shown else None,
                low=round(interval[0], 1) if interval else None,
                high=round(interval[1], 1) if interval else None,
            )
        )
    medians = [r.median for r in rows]
    order: Literal["same", "different", "unknown"]
    if any(m is None for m in medians):
        order = "unknown"
    else:
        rising = all(a < b for a, b in zip(medians, medians[1:], strict=False))  # type: ignore[operator]
        order = "same" if rising else "different"
    separated = order == "same" and all(
        a.high is not None and b.low is not None and a.high < b.low
        for a, b in zip(rows, rows[1:], strict=False)
    )
    return TierTable(shown_below=SHOWN_BELOW, tiers=rows, order=order, separated=separated)


def _median(values: Sequence[float]) -> float:
    xs = sorted(values)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


# --- the store -----------------------------------------------------------------------------------


def _load(db: Connection, kind: Kind, subject: str) -> Standing:
    row = db.execute(
        "SELECT rating, deviation, volatility, games FROM ratings WHERE kind = ? AND subject = ?",
        (kind, subject),
    ).fetchone()
    if row is None:
        return Standing(START, 0)
    return Standing(Glicko(float(row[0]), float(row[1]), float(row[2])), int(row[3]))


def _keep(db: Connection, kind: Kind, subject: str, standing: Standing, at: str) -> None:
    g = standing.glicko
    db.execute(
        "INSERT INTO ratings (kind, subject, rating, deviation, volatility, games, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, subject) DO UPDATE SET"
        " rating = excluded.rating, deviation = excluded.deviation,"
        " volatility = excluded.volatility, games = excluded.games,"
        " updated_at = excluded.updated_at",
        (kind, subject, g.rating, g.deviation, g.volatility, standing.games, at),
    )


def forget_player(db: Connection, player: str) -> None:
    """A deleted player's rating and rated attempts go, in the transaction ``db`` that deletes
    the player (the puzzles keep what they learnt)."""
    db.execute("DELETE FROM ratings WHERE kind = 'player' AND subject = ?", (player,))
    db.execute("DELETE FROM rated_attempts WHERE player = ?", (player,))


def rate(
    db: Connection,
    attempt: str,
    puzzle: str,
    player: str,
    status: str,
    at: dt.datetime,
    player_steps: int = 1,
    flags: Sequence[str] = (),
) -> bool:
    """Rate an ended live attempt in the write transaction ``db`` that ends it: one game of
    ``player`` against ``puzzle``, scored by :data:`SCORES`. Once per attempt (a second call
    changes nothing); not an attempt still playing, one with no step of the player's, or a
    win flagged for a moderator. Whether it was rated now."""
    score = SCORES.get(status)
    if score is None or player_steps < 1 or (status == "won" and flags):
        return False
    db.lock(LOCK)
    when = at.astimezone(dt.UTC).isoformat()
    added = db.execute(
        "INSERT INTO rated_attempts (attempt, puzzle, player, score, rated_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (attempt) DO NOTHING",
        (attempt, puzzle, player, score, when),
    )
    if added.rowcount == 0:
        return False
    before_player, before_puzzle = _load(db, "player", player), _load(db, "puzzle", puzzle)
    after_player, after_puzzle = game(before_player.glicko, before_puzzle.glicko, score)
    _keep(db, "player", player, Standing(after_player, before_player.games + 1), when)
    _keep(db, "puzzle", puzzle, Standing(after_puzzle, before_puzzle.games + 1), when)
    return True


class Ratings(Store):
    """The ratings of players and puzzles, in the tables ``ratings`` and ``rated_attempts`` of
    the store (:class:`~cruel_tools.site.tables.Store`); written by :func:`rate` only."""

    def of(self, kind: Kind, subjects: Iterable[str]) -> dict[str, Standing]:
        """The standings of ``subjects`` that have a rated game."""
        wanted = list(dict.fromkeys(subjects))
        found: dict[str, Standing] = {}
        with self.database.read() as db:
            for k in range(0, len(wanted), 500):
                chunk = wanted[k : k + 500]
                marks = ", ".join("?" * len(chunk))
                rows = db.execute(
                    "SELECT subject, rating, deviation, volatility, games FROM ratings"
                    f" WHERE kind = ? AND subject IN ({marks})",
                    (kind, *chunk),
                ).fetchall()
                for subject, rating, deviation, volatility, games in rows:
                    glicko = Glicko(float(rating), float(deviation), float(volatility))
                    found[str(subject)] = Standing(glicko, int(games))
        return found

    def shown(self, kind: Kind, subject: str) -> PlayRating | None:
        """What the API shows of one player's or puzzle's rating (None: not enough games)."""
        standing = self.of(kind, [subject]).get(subject)
        return None if standing is None else standing.shown()

    def puzzles(self) -> dict[str, Standing]:
        """Every rated puzzle's standing."""
        with self.database.read() as db:
            rows = db.execute(
                "SELECT subject, rating, deviation, volatility, games FROM ratings"
                " WHERE kind = 'puzzle'"
            ).fetchall()
        return {
            str(s): Standing(Glicko(float(r), float(d), float(v)), int(g)) for s, r, d, v, g in rows
        }


def table_lines(table: TierTable) -> list[str]:
    """``cruel ratings``' text: one row a tier, then whether play orders the tiers as the solver
    grades them."""

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}"

    lines = [f"{'TIER':<7} {'PUZZLES':>7} {'MEDIAN':>6}  {'95% INTERVAL':<12}  {'RATED':>5}"]
    for row in table.tiers:
        interval = f"{number(row.low)}-{number(row.high)}" if row.low is not None else "-"
        lines.append(
            f"{row.tier:<7} {row.puzzles:>7} {number(row.median):>6}  {interval:<12}  "
            f"{row.rated:>5}"
        )
    answer = {"same": "yes", "different": "no", "unknown": "unknown"}[table.order]
    why = {
        "same": "the medians rise from easy to expert"
        + (
            "; each interval is above the one before"
            if table.separated
            else "; some intervals overlap"
        ),
        "different": "the medians do not rise from easy to expert",
        "unknown": f"a tier has no puzzle whose deviation is under {table.shown_below:.0f}",
    }[table.order]
    lines += [f"people order the tiers as the solver does: {answer}", f"  {why}"]
    return lines
