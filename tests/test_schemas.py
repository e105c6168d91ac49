"""The JSON Schemas in schemas/ are exactly what the models generate, and they agree with them."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from cruel_tools import schemas
from cruel_tools.game.log import LogFormatError, from_object
from cruel_tools.game.rules import PRESETS
from cruel_tools.game.verify import verify_bytes

from .helpers import log_dict, random_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(schemas.MODELS))
def test_checked_in_schema_matches_the_model(name: str) -> None:
    path = ROOT / "schemas" / name
    assert path.exists(), f"run: cruel schema --out schemas/ ({name} is missing)"
    assert path.read_bytes() == schemas.schema_bytes(schemas.MODELS[name]), (
        f"schemas/{name} is out of date: run `cruel schema --out schemas/`"
    )


def test_checked_in_openapi_document_matches_the_service() -> None:
    path = ROOT / "schemas" / schemas.OPENAPI_FILE
    assert path.read_bytes() == schemas.openapi_bytes(), (
        "schemas/openapi.json is stale: run `cruel schema --out schemas/`"
    )


def test_schema_folder_has_nothing_else() -> None:
    expected = sorted([*schemas.MODELS, schemas.OPENAPI_FILE])
    assert sorted(p.name for p in (ROOT / "schemas").iterdir()) == expected


def test_write_all(tmp_path: Path) -> None:
    written = schemas.write_all(tmp_path / "out")
    assert sorted(p.name for p in written) == sorted([*schemas.MODELS, schemas.OPENAPI_FILE])
    for p in written:
        Draft202012Validator.check_schema(orjson.loads(p.read_bytes()))


LOG_SCHEMA = Draft202012Validator(schemas.schema_of(schemas.MODELS["game-log.schema.json"]))
REPORT_SCHEMA = Draft202012Validator(schemas.schema_of(schemas.MODELS["verify-report.schema.json"]))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32), st.sampled_from(sorted(PRESETS)))
def test_logs_and_reports_satisfy_their_schemas(number: int, seed: int, name: str) -> None:
    piles, steps, _ = random_game(number, random.Random(seed), PRESETS[name], max_steps=30)
    doc = log_dict(piles, steps, name, meta={"player": "x"})
    LOG_SCHEMA.validate(doc)
    bad = dict(doc, moves=doc["moves"] + [{"type": "move", "from": 14, "to": 1}])
    assert not LOG_SCHEMA.is_valid(bad)
    with pytest.raises(LogFormatError):
        from_object(bad)
    REPORT_SCHEMA.validate(orjson.loads(verify_bytes(orjson.dumps(doc)).model_dump_json()))
    REPORT_SCHEMA.validate(orjson.loads(verify_bytes(orjson.dumps(bad)).model_dump_json()))


@pytest.mark.parametrize(
    "doc",
    [
        {
            "format": "cruel-log/1",
            "deal": {"number": 5},
            "moves": ["3F", "3-7", "3-7x2", "r", "12f"],
        },
        {
            "format": "cruel-log/1",
            "rules": {"preset": "perseverance", "max_redeals": 4},
            "deal": {"number": 5},
        },
        {
            "format": "cruel-log/1",
            "deal": {"number": 5},
            "moves": [{"type": "move", "from": 1, "to": 2, "card": "t♥"}],
        },
    ],
)
def test_schema_and_model_accept_the_same_examples(doc: dict) -> None:  # type: ignore[type-arg]
    LOG_SCHEMA.validate(doc)
    from_object(doc)


@pytest.mark.parametrize(
    "doc",
    [
        {"format": "cruel-log/1", "deal": {"number": 5}, "moves": ["3 F"]},
        {"format": "cruel-log/1", "deal": {"number": 5}, "moves": ["14F"]},
        {"format": "cruel-log/1", "deal": {"number": 5}, "extra": 1},
        {
            "format": "cruel-log/1",
            "deal": {"number": 5},
            "moves": [{"type": "move", "from": 1, "to": 2, "card": "1H"}],
        },
        {"format": "cruel-log/1", "deal": {"number": 5}, "moves": [{"type": "redeal", "n": 1}]},
        {"format": "cruel-log/1", "rules": "freecell", "deal": {"number": 5}},
        {"format": "cruel-log/2", "deal": {"number": 5}},
        {"format": "cruel-log/1", "deal": {}},
        {"format": "cruel-log/1", "deal": {"number": None}},
    ],
)
def test_schema_and_model_reject_the_same_examples(doc: dict) -> None:  # type: ignore[type-arg]
    assert not LOG_SCHEMA.is_valid(doc)
    with pytest.raises(LogFormatError):
        from_object(doc)
