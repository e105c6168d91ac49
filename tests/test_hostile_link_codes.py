"""A stranger cannot void a player's link code (issue #33, finding 9).

The attack: five wrong codes sent for a known name (``POST /v1/players/{name}/tokens``) voided
the player's live code, and one address could send ten at once. Wrong codes are now counted per
client address (``cruel serve --link-guesses``, 5 by default), and only many more from all
addresses (:data:`~cruel_tools.site.players.MAX_TRIES`, 100) void the code; the player who then sends
the right code is told it was voided (``link-code-voided``), and their data shows it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient

from cruel_tools import service
from cruel_tools.constants import LINK_CODE_MAX_WRONG, LINK_GUESSES
from cruel_tools.site import players as players_module
from cruel_tools.site.players import CODE_ALPHABET, MAX_TRIES, VOIDED, PlayerRefused, Players

ROOT = Path(__file__).parent.parent
ATTACKER = ("203.0.113.7", 40000)
PLAYER = ("198.51.100.9", 40000)


def _settings(db: Path, **fields: Any) -> service.Settings:
    return service.Settings(
        puzzles=ROOT / "puzzles",
        db=db,
        fixed_today=dt.date(2027, 1, 5),
        clock=lambda: 1000.0,  # buckets never refill within a test
        **fields,
    )


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return service.create_app(_settings(tmp_path / "db.sqlite"))


@pytest.fixture
def player(app: Any) -> Iterator[TestClient]:
    with TestClient(app, client=PLAYER) as client:
        yield client


def _wrong(code: str) -> str:
    return next(c for c in CODE_ALPHABET if c != code[0]) + code[1:]


def _redeem(client: TestClient, code: str) -> Any:
    return client.post("/v1/players/ada/tokens", content=orjson.dumps({"code": code}))


def test_a_strangers_wrong_codes_do_not_void_the_players_code(app: Any, player: TestClient) -> None:
    token = player.post("/v1/players", json={"player": "ada"}).json()["token"]
    made = player.post("/v1/players/ada/link-codes", headers={"Authorization": f"Player {token}"})
    code = made.json()["code"]
    attacker = TestClient(app, client=ATTACKER)  # the app's lifespan is the player's client's
    answers = [_redeem(attacker, _wrong(code)).status_code for _ in range(10)]  # at once
    # Five wrong codes from one address, then that address is refused before it guesses.
    assert answers == [403] * LINK_GUESSES + [429] * (10 - LINK_GUESSES)
    linked = _redeem(player, code)
    assert linked.status_code == 201, linked.text  # the old code: 403, voided by the stranger
    assert linked.json()["token"].startswith("cruelp_")


def test_right_codes_cost_an_address_nothing(app: Any, player: TestClient) -> None:
    token = player.post("/v1/players", json={"player": "ada"}).json()["token"]
    auth = {"Authorization": f"Player {token}"}
    for _ in range(LINK_GUESSES + 1):  # more links than wrong guesses allowed
        code = player.post("/v1/players/ada/link-codes", headers=auth).json()["code"]
        assert _redeem(player, code).status_code == 201


def test_codes_voided_from_many_addresses_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert MAX_TRIES == LINK_CODE_MAX_WRONG >= 20 * LINK_GUESSES  # a crowd, not a stranger
    monkeypatch.setattr(players_module, "MAX_TRIES", 3)  # each wrong try costs a scrypt
    store = Players(tmp_path / "db.sqlite")
    try:
        store.claim("ada")
        code = store.link_code("ada").code
        for _ in range(3):
            with pytest.raises(PlayerRefused) as wrong:
                store.redeem("ada", _wrong(code))
            assert wrong.value.code == "bad-link-code"
        with pytest.raises(PlayerRefused) as voided:
            store.redeem("ada", code)
        assert voided.value.code == VOIDED and "voided after 3 wrong codes" in str(voided.value)
        shown = store.export("ada").link_codes[-1]
        assert (shown.voided, shown.wrong_tries, shown.used_at) == (True, 3, None)
        fresh = store.link_code("ada").code  # a new code is live again
        assert store.redeem("ada", fresh).player == "ada"
        assert store.export("ada").link_codes[-1].voided is False
    finally:
        store.close()
