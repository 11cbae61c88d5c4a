"""Profiles and the history's filters (issue 42), through the API: two named players play rated, unrated,
private and bot matches to their end, and each figure of a profile is checked against what was played; a
hidden profile answers exactly as a name nobody has; each filter of the history narrows it as it says, and a
bad value is refused naming its parameter."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.test_accounts import Device
from tests.server.test_api import play_over_http
from tests.server.test_limits import assert_error
from tests.server_support import client_for, hang_guard  # noqa: F401 (a fixture)

CATALYSTS = ["alchemist", "mechanist", "archivist"]
MIXED = ["alchemist", "protector", "delver"]
TRADERS = ["alchemist", "searcher", "merchant"]
SPARKS = ["delver", "astropath", "healer"]
TWO_DAYS = 2 * 86400


def _named(client: TestClient, name: str | None) -> Device:
    device = Device(client)
    assert device.put("/api/me", json={"name": name}).status_code == 200
    return device


def _table_match(client: TestClient, host: Device, guest: Device, rng: random.Random, **table: Any) -> str:
    """A match from a table ``host`` opens (seat 0) and ``guest`` takes, played to its end; its id."""
    opened = host.post("/api/lobby/tables", json={"seat": 0, **table})
    assert opened.status_code == 201, opened.text
    doc = opened.json()
    if doc["invite_url"]:  # a private table: the guest comes by the invite link, and says they play it
        invite = doc["invite_url"].split("#token=", 1)[1]
        assert guest.post(f"/api/matches/{doc['match_id']}/players",
                          headers={"Authorization": f"Bearer {invite}"}).json() == {"linked": True}
    else:
        joined = guest.post(f"/api/lobby/tables/{doc['table_id']}/join")
        assert joined.status_code == 201, joined.text
        invite = joined.json()["token"]
    play_over_http(client, doc["match_id"], {0: doc["token"], 1: invite}, rng)
    mid: str = doc["match_id"]
    return mid


def _bot_match(client: TestClient, player: Device, rng: random.Random) -> str:
    """A match against the random bot from the home page, linked to ``player`` as its page does."""
    made = client.post("/api/matches", json={"opponent": "bot", "bot": "random", "seat": 0, "playset": "sparks"})
    doc = made.json()
    assert player.post(f"/api/matches/{doc['match_id']}/players",
                       headers={"Authorization": f"Bearer {doc['token']}"}).json() == {"linked": True}
    play_over_http(client, doc["match_id"], {0: doc["token"]}, rng)
    mid: str = doc["match_id"]
    return mid


def _winner(client: TestClient, mid: str) -> int:
    match = client.get(f"/api/matches/{mid}").json()["match"]
    assert match["status"] == "over"
    winner: int = match["result"]["winner"]
    return winner


def _db(tmp_path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(tmp_path / "matches.sqlite3")
    try:
        rows = con.execute(sql, args).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


class Played:
    """The matches of the test's world, as played: who held seat 0, the winner's seat, the playset."""

    def __init__(self) -> None:
        self.matches: dict[str, dict[str, Any]] = {}

    def add(self, client: TestClient, mid: str, seat0: str, seat1: str | None, playset: list[str], rated: bool,
            public: bool) -> None:
        self.matches[mid] = {"seats": (seat0, seat1), "winner": _winner(client, mid), "playset": playset,
                             "rated": rated, "public": public}

    def won(self, mid: str, who: str) -> bool:
        m = self.matches[mid]
        return bool(m["seats"][m["winner"]] == who)

    def of(self, who: str, **want: Any) -> set[str]:
        return {mid for mid, m in self.matches.items() if who in m["seats"]
                and all(m[k] == v for k, v in want.items())}


World = tuple[TestClient, dict[str, Device], Played, Path]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """Ada and Bob play three table matches (two rated, one turn-based unrated), Ada and Cyd a private one
    (finished two days ago), and Ada the random bot; Ada enters an event open to all and a club's."""
    path = tmp_path_factory.mktemp("profiles")
    with client_for(path, table_rate=1000.0, table_burst=1000.0, players_per_hour=0) as client:
        rng = random.Random(42)
        people = {name: _named(client, name) for name in ("Ada", "Bob", "Cyd")}
        ada, bob, cyd = people["Ada"], people["Bob"], people["Cyd"]
        played = Played()
        mid = _table_match(client, ada, bob, rng, playset=CATALYSTS, clock=600, rated=True)
        played.add(client, mid, "Ada", "Bob", CATALYSTS, True, True)
        mid = _table_match(client, bob, ada, rng, playset=MIXED, clock=300, rated=True)
        played.add(client, mid, "Bob", "Ada", MIXED, True, True)
        mid = _table_match(client, ada, bob, rng, playset=TRADERS, move_hours=24, rated=False)
        played.add(client, mid, "Ada", "Bob", TRADERS, False, True)
        mid = _table_match(client, ada, cyd, rng, playset=CATALYSTS, private=True)
        played.add(client, mid, "Ada", "Cyd", CATALYSTS, False, False)
        _db(path, "UPDATE converge_matches SET updated_at = updated_at - ? WHERE id = ?", TWO_DAYS, mid)
        mid = _bot_match(client, ada, rng)
        played.add(client, mid, "Ada", None, SPARKS, False, True)
        for private in (False, True):
            event = cyd.post("/api/tournaments", json={"name": "Club" if private else "Open", "format": "swiss",
                                                       "rounds": 3, "clock": 300, "rated": False,
                                                       "playset": "sets", "private": private}).json()
            joined = ada.post(f"/api/tournaments/{event['id']}/join", json={"link": event["link"]})
            assert joined.status_code == 200, joined.text
        # a match in progress: nothing of it on a profile
        live = ada.post("/api/lobby/tables", json={"seat": 0, "playset": SPARKS, "clock": 600}).json()
        assert bob.post(f"/api/lobby/tables/{live['table_id']}/join").status_code == 201
        yield client, people, played, path


def test_a_profile_shows_what_was_played(world: World) -> None:
    client, people, played, path = world
    ada_seen_by_bob = people["Bob"].get("/api/players/ada")  # (a name whatever its case)
    assert ada_seen_by_bob.status_code == 200, ada_seen_by_bob.text
    doc = ada_seen_by_bob.json()
    me = people["Ada"].get("/api/me").json()["player"]
    assert (doc["name"], doc["rating"], doc["provisional"], doc["games"]) == ("Ada", me["rating"], True, 2)
    assert doc["own"] is False and doc["hidden"] is False and doc["member_since"] <= time.time()
    # the rating's history: one point per rated match, oldest first, ending at the rating now
    rated = played.of("Ada", rated=True)
    assert len(doc["ratings"]) == len(rated) == 2
    assert doc["ratings"][-1]["rating"] == me["rating"]
    assert [p["at"] for p in doc["ratings"]] == sorted(p["at"] for p in doc["ratings"])
    # recent matches: the public ones and the bot's, not the private table's, nor the match in progress
    public = played.of("Ada", public=True)
    assert {m["match_id"] for m in doc["matches"]} == public and len(public) == 4
    for m in doc["matches"]:
        assert m["result"] == ("won" if played.won(m["match_id"], "Ada") else "lost")
        assert m["replay_url"] == f"/m/{m['match_id']}"
    # the skillsets of those matches, played and won
    count, wins = Counter[str](), Counter[str]()
    for mid in public:
        for skillset in played.matches[mid]["playset"]:
            count[skillset] += 1
            wins[skillset] += played.won(mid, "Ada")
    assert {s["skillset"]: (s["played"], s["won"]) for s in doc["skillsets"]} == {
        k: (count[k], wins[k]) for k in count}
    assert [s["played"] for s in doc["skillsets"]] == sorted((s["played"] for s in doc["skillsets"]), reverse=True)
    assert doc["skillsets"][0]["skillset"] == "alchemist"  # (three of the four playsets hold it)
    # the events: the open one, not the club's
    assert [(e["name"], e["status"]) for e in doc["tournaments"]] == [("Open", "upcoming")]
    # the head-to-head, as Bob reads it: his wins and losses against Ada, the newest first
    h2h = doc["head_to_head"]
    between = played.of("Bob") & played.of("Ada")
    bob_won = sum(played.won(mid, "Bob") for mid in between)
    assert (h2h["won"], h2h["lost"]) == (bob_won, len(between) - bob_won) and len(between) == 3
    assert {m["match_id"] for m in h2h["matches"]} == between
    assert all(m["opponent"]["name"] == "Ada" for m in h2h["matches"])
    # Cyd's head-to-head holds the private match they played; nobody else's does
    cyd_h2h = people["Cyd"].get("/api/players/ADA").json()["head_to_head"]
    assert (cyd_h2h["won"] + cyd_h2h["lost"], len(cyd_h2h["matches"])) == (1, 1)
    # the owner and a visitor get no head-to-head
    own = people["Ada"].get("/api/players/Ada").json()
    assert own["own"] is True and own["head_to_head"] is None
    client.cookies.clear()
    visitor = client.get("/api/players/Ada").json()
    assert visitor["head_to_head"] is None and visitor["own"] is False
    assert {k: v for k, v in visitor.items() if k not in ("head_to_head", "own")} == {
        k: v for k, v in own.items() if k not in ("head_to_head", "own")}
    # nothing private: no player's id or token hash, no seed
    secrets = {str(v) for row in _db(path, "SELECT id, token_hash FROM converge_players") for v in row}
    secrets |= {str(s) for (s,) in _db(path, "SELECT seed FROM converge_matches")}
    text = ada_seen_by_bob.text + json.dumps(cyd_h2h)
    assert not [s for s in secrets if s in text]


def test_an_anonymous_player_has_no_profile(world: World) -> None:
    client = world[0]
    _named(client, None)
    for name in ("Anonymous", "anonymous", "None", "null", ""):
        assert_error(client.get(f"/api/players/{name}") if name else client.get("/api/players/%20"), 404,
                     "not_found")


def test_a_hidden_profile_answers_as_a_name_nobody_has(
        world: World) -> None:
    client, people, _played, _path = world
    ada, bob = people["Ada"], people["Bob"]
    assert ada.put("/api/me/profile", json={"hidden": True}).json() == {"hidden": True}
    try:
        missing = bob.get("/api/players/Nobody")
        for asker in (bob, people["Cyd"], Device(client)):
            for name in ("Ada", "ADA", "ada"):
                hidden = asker.get(f"/api/players/{name}")
                assert (hidden.status_code, hidden.json()) == (missing.status_code, missing.json()) == (
                    404, {"error": {"code": "not_found", "message": missing.json()["error"]["message"]}})
                assert hidden.headers["content-type"] == missing.headers["content-type"]
        mine = ada.get("/api/players/Ada")  # its owner still sees it, marked hidden
        assert mine.status_code == 200 and mine.json()["hidden"] is True and mine.json()["own"] is True
    finally:
        assert ada.put("/api/me/profile", json={"hidden": False}).json() == {"hidden": False}
    assert bob.get("/api/players/Ada").json()["hidden"] is False
    # the setting is the player's: refused without one, and for a body that is not the setting
    assert_error(Device(client).put("/api/me/profile", json={"hidden": True}), 401, "no_player")
    for body in ({}, {"hidden": "yes"}, {"hidden": 1}, {"hidden": True, "name": "x"}, []):
        assert_error(ada.put("/api/me/profile", json=body), 400, "malformed")


def _history(device: Device, **params: Any) -> list[dict[str, Any]]:
    r = device.get("/api/me/history", params=params)
    assert r.status_code == 200, r.text
    rows: list[dict[str, Any]] = r.json()["matches"]
    return rows


def test_each_history_filter_narrows_the_list(world: World) -> None:
    _client, people, played, _path = world
    ada = people["Ada"]
    every = _history(ada)
    ids = {m["match_id"] for m in every}
    assert ids == played.of("Ada") and len(ids) == 5
    by_id = {m["match_id"]: m for m in every}
    # each row carries its clock and its playset
    clocks = {(m["clock_s"], m["move_hours"]) for m in every}
    assert {(600, None), (300, None), (None, 24), (None, None)} <= clocks
    assert all(m["playset"] == played.matches[m["match_id"]]["playset"] for m in every)

    def kept(**params: Any) -> set[str]:
        rows = _history(ada, **params)
        assert [r["finished_at"] for r in rows] == sorted((r["finished_at"] for r in rows), reverse=True)
        return {r["match_id"] for r in rows}

    with_bob = played.of("Bob")
    assert kept(opponent="Bob") == kept(opponent="bob") == kept(opponent=" BOB ") == with_bob
    assert kept(opponent="Cyd") == played.of("Cyd")
    assert kept(opponent="random") == kept(opponent="Random bot") == {
        mid for mid, m in played.matches.items() if m["seats"][1] is None}
    assert kept(opponent="Nobody") == set()
    won = {mid for mid in ids if played.won(mid, "Ada")}
    assert kept(result="won") == won and kept(result="lost") == ids - won
    assert kept(rated="true") == played.of("Ada", rated=True) and len(played.of("Ada", rated=True)) == 2
    assert kept(rated="false") == ids - played.of("Ada", rated=True)
    assert kept(playset="alchemist") == kept(playset="Alchemist") == {
        mid for mid in ids if "alchemist" in played.matches[mid]["playset"]}
    assert kept(playset="healer") == {mid for mid in ids if "healer" in played.matches[mid]["playset"]}
    # the dates: the private match finished two days ago, the others today
    old = {mid for mid in ids if not played.matches[mid]["public"]}
    newest = max(m["finished_at"] for m in every)
    day_ago = int(newest) - 86400
    assert kept(since=day_ago) == ids - old and kept(until=day_ago) == old
    assert kept(since=day_ago - 3 * 86400, until=day_ago) == old
    assert kept(since=int(newest) + 1) == set()
    # filters combine
    assert kept(opponent="Bob", rated="true", result="won") == {
        mid for mid in with_bob if played.matches[mid]["rated"] and played.won(mid, "Ada")}
    assert kept(opponent="Bob", playset="delver") == {mid for mid in with_bob if "delver" in
                                                      played.matches[mid]["playset"]}
    assert by_id  # (the rows read above are the ones filtered)


@pytest.mark.parametrize(("params", "parameter"), [
    ({"result": "draw"}, "result"), ({"result": ""}, "result"), ({"rated": "yes"}, "rated"),
    ({"rated": "1"}, "rated"), ({"playset": "chess"}, "playset"), ({"playset": ""}, "playset"),
    ({"playset": "x" * 40}, "playset"), ({"since": "yesterday"}, "since"), ({"since": "-1"}, "since"),
    ({"since": "1.5"}, "since"), ({"since": "nan"}, "since"), ({"until": str(10**12)}, "until"),
    ({"since": "200", "until": "100"}, "until"), ({"since": "100", "until": "100"}, "until"),
    ({"opponent": ""}, "opponent"), ({"opponent": "x" * 65}, "opponent"), ({"opponent": "a\x01b"}, "opponent"),
])
def test_a_bad_history_filter_is_refused_naming_it(world: World,
                                                   params: dict[str, str], parameter: str) -> None:
    message = assert_error(world[1]["Ada"].get("/api/me/history", params=params), 400, "malformed")
    assert f"'{parameter}'" in message, message
