"""JSON Schemas of every format we read or write, generated from the pydantic models.

The files in ``schemas/`` are these, written by ``cruel schema``; a test fails when they drift.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from .advice.analysis import Analysis
from .advice.hints import Hint
from .api import ErrorResponse, Health
from .game.log import GameLog
from .game.proofcheck import Certificate
from .game.render import ReplayDocument
from .game.rules import PresetList
from .game.stats import Record
from .game.verify import VerifyReport
from .puzzles import DailyPuzzles, PastDays, PublicPuzzle, Puzzle, PuzzleSolution
from .search.grading import Grade
from .search.solver import SolveReport
from .search.study import StudyHeader, StudyRecord, StudyReport
from .site.attempts import AttemptRequest, AttemptState, StepsRequest
from .site.judging import Submission, SubmissionResult
from .site.leaderboard import Leaderboard
from .site.moderation import AuditLog, ModerationRequest, ModerationResult, ReviewQueue
from .site.players import (
    LinkCode,
    LinkRequest,
    PlayerClaim,
    PlayerData,
    PlayerDeleted,
    PlayerToken,
    TokensRevoked,
)
from .site.ratings import TierTable
from .site.statefile import DatabaseState

__all__ = ["MODELS", "schema_of", "schema_bytes", "OPENAPI_FILE", "openapi_bytes", "write_all"]

#: File name of each schema, by the model it describes.
MODELS: dict[str, type[BaseModel]] = {
    "game-log.schema.json": GameLog,
    "verify-report.schema.json": VerifyReport,
    "stats.schema.json": Record,
    "solve-report.schema.json": SolveReport,
    "certificate.schema.json": Certificate,
    # cruel study: its results file (a header line, then a record per line) and its report
    "study.schema.json": StudyHeader,
    "study-record.schema.json": StudyRecord,
    "study-report.schema.json": StudyReport,
    "puzzle.schema.json": Puzzle,
    "grade.schema.json": Grade,
    "analysis.schema.json": Analysis,
    "hint.schema.json": Hint,
    "replay.schema.json": ReplayDocument,
    "ratings.schema.json": TierTable,
    "presets.schema.json": PresetList,
    # the HTTP service (docs/service.md)
    "puzzle-public.schema.json": PublicPuzzle,
    "daily.schema.json": DailyPuzzles,
    "past.schema.json": PastDays,
    "solution.schema.json": PuzzleSolution,
    "submission.schema.json": Submission,
    "submission-result.schema.json": SubmissionResult,
    "leaderboard.schema.json": Leaderboard,
    "attempt.schema.json": AttemptRequest,
    "attempt-steps.schema.json": StepsRequest,
    "attempt-state.schema.json": AttemptState,
    "health.schema.json": Health,
    "error.schema.json": ErrorResponse,
    # moderation, with an admin key (docs/service.md, Moderation)
    "moderation-request.schema.json": ModerationRequest,
    "moderation.schema.json": ModerationResult,
    "audit.schema.json": AuditLog,
    "review-queue.schema.json": ReviewQueue,
    # players' own tokens (docs/service.md, Players and tokens)
    "player-claim.schema.json": PlayerClaim,
    "player-token.schema.json": PlayerToken,
    "link-code.schema.json": LinkCode,
    "link-request.schema.json": LinkRequest,
    "player-data.schema.json": PlayerData,
    "player-deleted.schema.json": PlayerDeleted,
    "tokens-revoked.schema.json": TokensRevoked,
    # the state file beside an SQLite database (cruel_tools.site.statefile)
    "db-state.schema.json": DatabaseState,
}


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of what ``model`` accepts."""
    body = model.model_json_schema(by_alias=True, mode="validation")
    for sub in body.get("$defs", {}).values():
        # A document embedded in another (a certificate in a solve report): with its own $id it
        # would be a resource of its own, where the "#/$defs/..." of its fields resolve to nothing.
        sub.pop("$id", None)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **body}


def schema_bytes(model: type[BaseModel]) -> bytes:
    """The schema file's exact bytes (sorted keys, 2-space indent, final newline)."""
    return orjson.dumps(schema_of(model), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


#: The HTTP service's OpenAPI document, beside the schemas (what /v1/openapi.json serves).
OPENAPI_FILE = "openapi.json"


def openapi_bytes() -> bytes:
    """The service's OpenAPI document, as written into ``schemas/`` (sorted keys, indented)."""
    import tempfile

    from .service import Settings, create_app  # the web stack, only when asked for

    with tempfile.TemporaryDirectory() as empty:  # the document does not depend on the data
        doc = create_app(Settings(puzzles=Path(empty), db=":memory:")).openapi()
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def write_all(folder: Path) -> list[Path]:
    """Write every schema, and the OpenAPI document, into ``folder``; return the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in MODELS.items():
        path = folder / name
        path.write_bytes(schema_bytes(model))
        written.append(path)
    path = folder / OPENAPI_FILE
    path.write_bytes(openapi_bytes())
    written.append(path)
    return written
