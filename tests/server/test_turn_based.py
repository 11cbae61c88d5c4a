"""Turn-based matches (a time per move of hours or days, counted from the last move on the wall clock): made
from the API and the lobby, played over a simulated week (the server's wall clock moved on), ended on time
for the player to move whether they are connected or not, never given a stand-in bot, kept by the retention
clean-up while they run, and refused with a clear error for settings that make no sense."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.test_accounts import Device
from tests.server.test_limits import assert_error
from tests.server_support import auth, client_for, create, hang_guard  # noqa: F401

DAY = 86400.0
PLAYSET = ["alchemist", "mechanist", "archivist"]


def _hub(client: TestClient) -> Any:
    return client.app.state.hub  # type: ignore[attr-defined]


class Days:
    """The server's wall clock, moved on by days."""

    def __init__(self, client: TestClient) -> None:
        self.wall = _hub(client).wall

    def __call__(self) -> float:
        return float(self.wall())

    def advance(self, days: float) -> None:
        self.wall.advance(days * DAY)


def _turn_based(client: TestClient, hours: int = 72) -> tuple[str, dict[int, str], Days]:
    doc = create(client, opponent="friend", seat=0, playset=PLAYSET, move_hours=hours)
    return doc["match_id"], {0: doc["token"], 1: doc["invite_token"]}, Days(client)


def _view(client: TestClient, mid: str, token: str | None = None) -> dict[str, Any]:
    got = client.get(f"/api/matches/{mid}", headers=auth(token) if token else {})
    assert got.status_code == 200, got.text
    return dict(got.json())


def _move(client: TestClient, mid: str, tokens: dict[int, str]) -> int:
    """The player to move plays their first legal action; returns who moved."""
    seat = _view(client, mid)["observation"]["current_player"]
    view = _view(client, mid, tokens[seat])
    action = view["observation"]["decision"]["legal_actions"][0]["id"]
    got = client.post(f"/api/matches/{mid}/actions", json={"action": action, "seq": view["match"]["seq"]},
                      headers=auth(tokens[seat]))
    assert got.status_code == 200, got.text
    return int(seat)


def _sweep(client: TestClient) -> int:
    hub = _hub(client)
    ended: int = client.portal.call(hub.turns.sweep)  # type: ignore[union-attr]
    return ended


def test_turn_based_match_played_over_a_week_the_player_who_runs_out_of_time_loses(tmp_path: Path) -> None:
    with client_for(tmp_path, replace_after=1.0, vacation_days=0) as client:
        mid, tokens, wall = _turn_based(client, hours=72)
        meta = _view(client, mid)["match"]
        assert meta["clock"] is None and meta["turn"]["move_s"] == 72 * 3600
        assert meta["turn"]["deadline"] == pytest.approx(time.time() + 72 * 3600, abs=5)
        for _day in range(6):  # a move every day for six days: never late
            wall.advance(1)
            before = _view(client, mid)["match"]["turn"]["deadline"]
            mover = _move(client, mid, tokens)
            after = _view(client, mid)["match"]
            assert after["status"] == "active" and after["turn"]["deadline"] >= before
            assert _sweep(client) == 0, f"a player who moved on time was flagged (seat {mover})"
        waiting = _view(client, mid)["observation"]["current_player"]
        wall.advance(2.9)
        assert _sweep(client) == 0 and _view(client, mid)["match"]["status"] == "active"
        time.sleep(1.5)  # (longer than replace_after: no bot stands in for a turn-based player away)
        assert all(s["kind"] != "bot" for s in _view(client, mid)["match"]["seats"])
        wall.advance(0.2)  # past three days since the last move
        assert _sweep(client) == 1
        over = _view(client, mid)["match"]
        assert over["status"] == "over" and over["result"] == {"winner": 1 - waiting, "reason": "time"}
        assert over["turn"] == {"move_s": 72 * 3600, "deadline": None, "running": -1, "vacation_left_s": [0, 0]}
        assert _sweep(client) == 0  # ended once
        late = client.post(f"/api/matches/{mid}/actions", json={"action": 0}, headers=auth(tokens[waiting]))
        assert_error(late, 409, "over")
        # the rematch is turn-based too, and plays on
        rematch = client.post(f"/api/matches/{mid}/rematch", headers=auth(tokens[0]))
        assert rematch.status_code == 200, rematch.text
        new = rematch.json()["match_id"]
        assert _view(client, new)["match"]["turn"]["move_s"] == 72 * 3600
        _move(client, new, tokens)


def test_a_late_move_loses_on_time_even_before_the_server_looks(tmp_path: Path) -> None:
    with client_for(tmp_path, vacation_days=0) as client:
        mid, tokens, wall = _turn_based(client, hours=24)
        _move(client, mid, tokens)
        seat = _view(client, mid)["observation"]["current_player"]
        wall.advance(1.01)
        view = _view(client, mid, tokens[seat])
        action = view["observation"]["decision"]["legal_actions"][0]["id"]
        got = client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=auth(tokens[seat]))
        assert_error(got, 409, "over")
        assert _view(client, mid)["match"]["result"] == {"winner": 1 - seat, "reason": "time"}


def test_a_turn_based_match_not_in_memory_is_ended_on_time_after_a_restart_and_kept_meanwhile(
        tmp_path: Path) -> None:
    with client_for(tmp_path, vacation_days=0) as client:
        mid, tokens, _wall = _turn_based(client, hours=7 * 24)
        _move(client, mid, tokens)
        waiting = _view(client, mid)["observation"]["current_player"]
    with client_for(tmp_path, delete_unstarted_after_hours=1.0, delete_abandoned_after_days=1.0,
                    vacation_days=0) as client:
        hub = _hub(client)
        wall = Days(client)
        wall.advance(6.5)
        # the retention clean-up deletes real-time matches left for a day, never a turn-based one still running
        assert client.portal.call(hub.housekeeping.sweep, wall()) == 0  # type: ignore[union-attr]
        assert _sweep(client) == 0 and mid not in {s.id for s in hub.sessions}
        wall.advance(0.6)
        assert _sweep(client) == 1
        assert _view(client, mid)["match"]["result"] == {"winner": 1 - waiting, "reason": "time"}


def test_a_turn_based_table_in_the_lobby_makes_a_turn_based_match(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        host, guest = Device(client), Device(client)
        for device, name in ((host, "Ada"), (guest, "Grace")):
            assert device.put("/api/me", json={"name": name}).status_code == 200
        opened = host.post("/api/lobby/tables", json={"playset": PLAYSET, "move_hours": 24, "rated": False})
        assert opened.status_code == 201, opened.text
        listed = guest.get("/api/lobby").json()["tables"]
        assert [t["move_hours"] for t in listed] == [24] and listed[0]["clock_s"] is None
        joined = guest.post(f"/api/lobby/tables/{opened.json()['table_id']}/join")
        assert joined.status_code == 201, joined.text
        meta = _view(client, joined.json()["match_id"])["match"]
        assert meta["turn"]["move_s"] == 24 * 3600 and meta["clock"] is None


def test_a_decision_longer_than_its_move_spends_the_players_vacation_then_loses(tmp_path: Path) -> None:
    with client_for(tmp_path, vacation_days=2) as client:
        mid, tokens, wall = _turn_based(client, hours=24)
        turn = _view(client, mid)["match"]["turn"]
        first = turn["running"]
        assert turn["vacation_left_s"] == [2 * 86400, 2 * 86400]
        assert turn["deadline"] == pytest.approx(time.time() + 3 * 86400, abs=5)  # a day, then two of vacation
        wall.advance(2.5)  # a day and a half of vacation spent
        assert _sweep(client) == 0
        while _view(client, mid)["observation"]["current_player"] == first:
            _move(client, mid, tokens)
        turn = _view(client, mid)["match"]["turn"]
        assert turn["vacation_left_s"][first] == pytest.approx(0.5 * 86400, abs=5)
        assert turn["vacation_left_s"][1 - first] == 2 * 86400
        while _view(client, mid)["observation"]["current_player"] != first:  # the other moves at once
            _move(client, mid, tokens)
        turn = _view(client, mid)["match"]["turn"]
        assert turn["deadline"] == pytest.approx(wall() + 1.5 * 86400, abs=5)  # a day and the half left
    with client_for(tmp_path, vacation_days=2) as client:  # kept by a restart
        wall = Days(client)
        wall.advance(2.5 + 1.4)  # (the new process's clock goes on from where the last one's was)
        assert _sweep(client) == 0
        wall.advance(0.2)
        assert _sweep(client) == 1
        assert _view(client, mid)["match"]["result"] == {"winner": 1 - first, "reason": "time"}


@pytest.mark.parametrize(("body", "says"), [
    ({"opponent": "bot", "move_hours": 24}, "between two players"),
    ({"opponent": "friend", "move_hours": 24, "clock": 600}, "not both"),
    ({"opponent": "friend", "move_hours": 0}, "hours per move, 1 to 336"),
    ({"opponent": "friend", "move_hours": 24 * 30}, "hours per move, 1 to 336"),
    ({"opponent": "friend", "move_hours": "a day"}, "move_hours"),
    ({"opponent": "friend", "move_hours": True}, "move_hours"),
])
def test_turn_based_settings_that_make_no_sense_are_refused_and_store_nothing(
        tmp_path: Path, body: dict[str, Any], says: str) -> None:
    with client_for(tmp_path) as client:
        got = client.post("/api/matches", json=body)
        assert got.status_code == 400 and says in got.text, got.text
        assert _hub(client).storage.count() == 0
        options = client.get("/api/options").json()
        assert options["move_hours"] == {"min": 1, "max": 336, "vacation_days": 7.0}
