"""Puzzles through the API (issue 43): a fresh server has the package's puzzles at once; a puzzle is shown as its
mover saw it and nothing more; an attempt is judged step by step, the solver's replies played in between; the
first finished attempt is rated (both the player and the puzzle move), a second is not, a double send is judged
the same and rated once; the daily puzzle is the same all day; the dashboard counts by theme; the server adds
puzzles from its own finished matches and never from one in progress."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from converge.puzzles.model import Puzzle, shipped
from tests.server.test_accounts import Device
from tests.server.test_api import play_over_http
from tests.server.test_limits import assert_error
from tests.server_support import client_for, create, hang_guard  # noqa: F401 (a fixture)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, puzzle_scan_s=0) as c:
        yield c


def _named(client: TestClient, name: str | None) -> Device:
    device = Device(client)
    assert device.put("/api/me", json={"name": name}).status_code == 200
    return device


def _solve(device: Device, puzzle: Puzzle) -> dict[str, Any]:
    """Send the mover's steps one by one, as a page does (each time the whole list so far)."""
    steps = [a for _, a in puzzle.mover_steps()]
    answer: dict[str, Any] = {}
    for k in range(1, len(steps) + 1):
        r = device.post(f"/api/puzzles/{puzzle.id}/attempt", json={"actions": steps[:k]})
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["status"] == ("solved" if k == len(steps) else "playing"), (k, answer["status"])
    return answer


def _wrong_play(puzzle: Puzzle) -> list[int]:
    """The steps of a listed wrong play that loses in some world: its card (and its placement, if it is the
    winning card placed otherwise)."""
    w = next(w for w in puzzle.wrong if w.lost)
    return [w.action] + ([w.then] if w.then >= 0 else [])


def test_a_fresh_server_has_the_shipped_puzzles_and_shows_one_as_its_mover_saw_it(client: TestClient) -> None:
    themes = client.get("/api/puzzles/themes").json()["themes"]
    assert sum(t["count"] for t in themes) >= len(shipped())  # (each puzzle has two themes at least)
    doc = client.get("/api/puzzles/next").json()
    puzzle = next(p for p in shipped() if p.id == doc["id"])
    start = puzzle.start()
    assert doc["seat"] == puzzle.mover and doc["me"] is None and doc["tried"] is False
    assert doc["state"]["observation"] == json.loads(json.dumps(start.observation(puzzle.mover)))
    said = json.dumps(doc)
    assert "seed" not in said and "record" not in said and '"line"' not in said
    hidden = {start.playset.card_ids[c] for c in start.hidden_from(puzzle.mover)}
    seen = json.dumps(start.observation(puzzle.mover))
    for card_id in hidden:  # a hidden card is named only as the printed catalog names every card
        assert said.count(f'"{card_id}"') == seen.count(f'"{card_id}"') + 1, card_id


def test_a_solved_puzzle_moves_both_ratings_once_and_a_second_attempt_is_not_rated(client: TestClient) -> None:
    me = _named(client, "Solver")
    first = me.get("/api/puzzles/next").json()
    puzzle = next(p for p in shipped() if p.id == first["id"])
    assert first["me"]["rating"] == 1500 and first["me"]["tried"] == 0
    done = _solve(me, puzzle)
    result = done["result"]
    assert result["rated"] and result["streak"] == 1
    assert result["me"]["after"] > result["me"]["before"] == 1500
    assert result["puzzle"]["after"] < result["puzzle"]["before"] == round(puzzle.rating)
    assert result["solution"] and all(isinstance(s, str) for s in result["solution"])
    assert me.get(f"/api/puzzles/{puzzle.id}").json()["tried"] is True
    again = me.post(f"/api/puzzles/{puzzle.id}/attempt", json={"actions": _wrong_play(puzzle)}).json()
    assert again["status"] == "failed" and again["result"]["rated"] is False
    assert again["result"]["me"] == result["me"]  # (the first attempt's change, shown again)
    board = me.get("/api/puzzles/dashboard").json()
    assert board["me"]["solved"] == 1 and board["me"]["tried"] == 1 and board["me"]["streak"] == 1
    assert {t["key"] for t in board["themes"]} == set(puzzle.themes)
    assert me.get("/api/puzzles/next").json()["id"] != puzzle.id  # (the next one is one not tried)


def test_a_failed_puzzle_lowers_the_rating_breaks_the_streak_and_says_why(client: TestClient) -> None:
    me = _named(client, None)
    puzzle = next(p for p in shipped() if p.id == me.get("/api/puzzles/next").json()["id"])
    _solve(me, puzzle)
    other = next(p for p in shipped() if p.id == me.get("/api/puzzles/next").json()["id"])
    answer = me.post(f"/api/puzzles/{other.id}/attempt", json={"actions": _wrong_play(other)}).json()
    assert answer["status"] == "failed"
    result = answer["result"]
    assert result["rated"] and result["streak"] == 0 and result["me"]["after"] < result["me"]["before"]
    assert result["puzzle"]["after"] > result["puzzle"]["before"]
    labels = {w.label for w in other.wrong}
    assert {w["label"] for w in result["why"]} == labels and all(w["text"] for w in result["why"])
    assert "does not win in every case" in result["explanation"]


def test_the_same_finished_attempt_sent_twice_is_rated_once(client: TestClient) -> None:
    me = _named(client, "Twice")
    puzzle = next(p for p in shipped() if p.id == me.get("/api/puzzles/next").json()["id"])
    body = {"actions": _wrong_play(puzzle)}
    one = me.post(f"/api/puzzles/{puzzle.id}/attempt", json=body).json()
    two = me.post(f"/api/puzzles/{puzzle.id}/attempt", json=body).json()
    assert one["result"]["rated"] and not two["result"]["rated"]
    assert one["result"]["me"] == two["result"]["me"]
    assert me.get("/api/puzzles/dashboard").json()["me"]["tried"] == 1


def test_a_visitor_is_judged_but_not_rated(client: TestClient) -> None:
    puzzle = shipped()[0]
    answer = client.post(f"/api/puzzles/{puzzle.id}/attempt", json={"actions": _wrong_play(puzzle)}).json()
    assert answer["status"] == "failed" and answer["result"]["rated"] is False and answer["result"]["me"] is None


def test_bad_attempts_are_refused_and_change_nothing(client: TestClient) -> None:
    me = _named(client, "Careful")
    puzzle = shipped()[0]
    start = puzzle.start()
    illegal = next(a for a in range(22) if a not in start.legal_actions())
    assert_error(me.post(f"/api/puzzles/{puzzle.id}/attempt", json={"actions": [illegal]}), 422, "illegal")
    assert_error(me.post(f"/api/puzzles/{puzzle.id}/attempt", json={"actions": ["x"]}), 400, "malformed")
    assert_error(me.post("/api/puzzles/nosuch/attempt", json={"actions": [0]}), 404, "not_found")
    assert_error(me.get("/api/puzzles/next?theme=nosuch"), 400, "malformed")
    assert me.get("/api/puzzles/dashboard").json()["me"]["tried"] == 0


def test_the_daily_puzzle_is_one_of_the_shipped_and_the_same_all_day(client: TestClient) -> None:
    one = client.get("/api/puzzles/daily").json()
    two = _named(client, "Daily").get("/api/puzzles/daily").json()
    assert one["id"] == two["id"] and one["daily"] == two["daily"] and one["daily"]
    assert one["id"] in {p.id for p in shipped()}


def test_a_theme_picks_a_puzzle_of_that_theme(client: TestClient) -> None:
    theme = client.get("/api/puzzles/themes").json()["themes"][-1]["key"]
    doc = client.get(f"/api/puzzles/next?theme={theme}").json()
    assert theme in {t["key"] for t in doc["themes"]}


def test_the_server_adds_puzzles_from_finished_matches_never_from_one_in_progress(tmp_path: Path) -> None:
    with client_for(tmp_path, puzzle_scan_s=0, bot_delay=0) as client:
        service = client.app.state.puzzles  # type: ignore[attr-defined]
        rng = random.Random(5)
        going = create(client, opponent="friend", seat=0)
        finished = []
        for _ in range(6):
            doc = create(client, opponent="friend", seat=0)
            play_over_http(client, doc["match_id"], {0: doc["token"], 1: doc["invite_token"]}, rng)
            finished.append(doc["match_id"])
        found = client.portal.call(service.scan)  # type: ignore[attr-defined]
        found += client.portal.call(service.scan)  # type: ignore[attr-defined]
        from converge.server.storage import puzzle_store as store

        engine = service.engine
        assert going["match_id"] not in store.unscanned(engine, 100)
        assert store.unscanned(engine, 100) == []
        server_made = store.ids(engine, "server")
        assert len(server_made) == found
        for pid in server_made:
            row = store.puzzle(engine, pid)
            assert row is not None and row.puzzle.source == "server"
            assert client.get(f"/api/puzzles/{pid}").status_code == 200
