"""``GET /v1/rules/presets``: the rules presets this server plays, with their sources.

Static for a given version (the spec's presets): the document is made once per process and
may be cached by clients and proxies for an hour.
"""

from __future__ import annotations

from functools import cache

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from ..game.rules import PresetList, preset_list

__all__ = ["router", "presets"]

router = APIRouter(prefix="/v1/rules")


@cache
def _body() -> bytes:
    return orjson.dumps(preset_list().model_dump(mode="json"))


@router.get("/presets", response_model=PresetList)
async def presets() -> Response:
    """The rules presets (``cruel-presets/1``): each name, its source and every parameter of
    its profile, ``cruel`` first. A log names one as ``deal.rules.preset``."""
    return Response(
        _body(), media_type="application/json", headers={"Cache-Control": "public, max-age=3600"}
    )
