"""``GET /v1/rules/presets`` (issue #35's endpoint, added as CONTRIBUTING.md's "How to add an
endpoint" says): every preset of the spec, with its source and rules, from one library call."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import orjson
from fastapi.testclient import TestClient

from cruel_tools import PRESETS, service
from cruel_tools.game.rules import PRESET_TABLE, PRESETS_FORMAT, PresetList, preset_list
from cruel_tools.service.rules import presets
from cruel_tools.spec import SPEC


def app_settings(tmp: Path) -> service.Settings:
    return service.Settings(db=str(tmp / "cruel.sqlite"), open=True)


def test_the_list_is_the_specs_presets_in_order() -> None:
    listed = preset_list()
    assert listed.format == PRESETS_FORMAT == "cruel-presets/1"
    assert [p.name for p in listed.presets] == [e["name"] for e in SPEC.presets["presets"]]
    assert [p.source for p in listed.presets] == [source for _, _, source in PRESET_TABLE]
    assert all(p.rules == PRESETS[p.name] for p in listed.presets)
    assert listed.presets[0].name == "cruel"


def test_the_route_answers_the_document_and_may_be_cached(tmp_path: Path) -> None:
    with TestClient(service.create_app(app_settings(tmp_path))) as client:
        answer = client.get("/v1/rules/presets")
        slashed = client.get("/v1/rules/presets/")
    assert answer.status_code == 200
    assert answer.headers["cache-control"] == "public, max-age=3600"
    assert PresetList.model_validate_json(answer.content) == preset_list()
    assert slashed.status_code == 404  # paths are matched exactly (docs/service.md)


def test_the_handler_is_a_named_function_a_test_can_call() -> None:
    # In a thread of its own: an earlier test of this worker may leave a loop in this one.
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(anyio.run, presets).result()
    assert orjson.loads(answer.body)["presets"][0]["rules"] == PRESETS["cruel"].model_dump()
