"""The one name policy of every path that takes a player name (submissions, attempts, tokens):
a new name is registered in the table ``players`` unless it looks like an existing player's.

:func:`cruel_tools.site.names.enforce` decides what a name is; :func:`register` decides whether a
*new* name may join the players already there (docs/service.md, Player names). Called inside the
caller's write transaction, so two lookalikes sent at once cannot both get in (on PostgreSQL the
writers of one skeleton hold its advisory lock: ``database.write(lock=skeleton(name))``).
"""

from __future__ import annotations

from typing import Final

from ..game.traversal import ErrorInfo
from .database import Connection
from .names import lookalike_message, skeleton

__all__ = ["CONFUSABLE", "register"]

#: The error code of a name refused because it looks like another player's.
CONFUSABLE: Final = "player-name-confusable"


def register(db: Connection, player: str) -> ErrorInfo | None:
    """Why ``player`` may not be used: its name looks like an existing player's (another
    spelling with the same skeleton). None: a player already, or now one (it is registered in
    the transaction ``db``)."""
    if db.execute("SELECT 1 FROM players WHERE player = ?", (player,)).fetchone():
        return None
    key = skeleton(player)
    other = db.execute(
        "SELECT player FROM players WHERE skeleton = ? ORDER BY player LIMIT 1", (key,)
    ).fetchone()
    if other is None:
        db.execute("INSERT INTO players (player, skeleton) VALUES (?, ?)", (player, key))
        return None
    message = lookalike_message(player, other[0])
    return ErrorInfo(index=None, path="/player", code=CONFUSABLE, message=message)
