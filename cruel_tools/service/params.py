"""Path parameters the routes share, as the routes are documented (``/v1/puzzles/{id}``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path as PathParam

__all__ = ["PuzzleId"]

PuzzleId = Annotated[str, PathParam(max_length=200, description="A puzzle id.")]
