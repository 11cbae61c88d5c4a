"""Moderation (issue 31): the hosts' API behind its token — players found, renamed within the name rules, banned
(refused at every door that plays, their matches in progress ended as losses, their tables closed) and let back;
tables closed, matches deleted; the players' reports; every host action in the audit. And ``converge admin``,
the command that calls it, against a real server."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_lobby import LobbyPeer, as_, call, close_lobby_peers, player  # noqa: F401 (a fixture)
from tests.server_support import (  # noqa: F401 (hang_guard is a fixture)
    Peer,
    Server,
    auth,
    client_for,
    from_address,
    hang_guard,
    play_friend_match,
)

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from converge.server.moderation import service
from converge.server.protocol.errors import CLOSE_FORBIDDEN

TOKEN = "hosts-only-7f3a9c2e5d1b"
HOST = {"actor": "Tess", "reason": "abusive messages in three matches"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, admin_token=TOKEN, table_rate=1000.0, table_burst=1000.0, queue_rate=1000.0,
                    queue_burst=1000.0, players_per_hour=0, quick_match_bot_after_s=600.0,
                    lobby_poll_s=0.2) as c:
        yield c


def admin(client: TestClient, method: str, path: str, **kw: Any) -> Any:
    client.cookies.clear()
    return client.request(method, "/api/admin" + path, headers=auth(TOKEN), **kw)


def table_match(client: TestClient, host: str, guest: str) -> tuple[str, dict[int, str]]:
    """A rated match from a lobby table: its id and the seats' tokens (the host at seat 0)."""
    opened = call(client, "POST", "/api/lobby/tables", host, json={"playset": "catalysts", "seat": 0}).json()
    joined = call(client, "POST", f"/api/lobby/tables/{opened['table_id']}/join", guest)
    assert joined.status_code == 201, joined.text
    return opened["match_id"], {0: opened["token"], 1: joined.json()["token"]}


def test_the_hosts_api_is_not_served_without_a_token_and_refuses_a_wrong_one(tmp_path: Path,
                                                                              client: TestClient) -> None:
    for headers in ({}, auth("wrong-token-0123456789"), auth(TOKEN + "x"), {"Authorization": f"Basic {TOKEN}"}):
        client.cookies.clear()
        r = client.get("/api/admin/players", params={"q": "a"}, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        assert TOKEN not in r.text
    paths = client.app.app.openapi()["paths"]  # type: ignore[attr-defined]  (the app in the address wrapper)
    assert not [p for p in paths if p.startswith("/api/admin")]  # (not in the public schema)
    assert "/api/matches/{match_id}/report" in paths
    with client_for(tmp_path / "none") as bare:
        r = bare.get("/api/admin/audit", headers=auth(TOKEN))
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_wrong_host_tokens_from_one_address_are_throttled_and_then_the_right_one_too(client: TestClient) -> None:
    """Guessing the admin token: a few wrong ones, then every try from that address is refused for a minute,
    the right token included (else the right guess would still get through at once); other addresses are not
    concerned. (It was 60 wrong tokens in a row, each answered.)"""
    burst = 10  # (converge.server.api.deps.WRONG_SECRETS_BURST)
    guesser = from_address("203.0.113.7")
    client.cookies.clear()
    for n in range(burst):
        r = client.get("/api/admin/audit", headers={**auth(f"guess-{n:016d}"), **guesser})
        assert r.status_code == 401, (n, r.text)
    for token in ("guess-again-0123456789", TOKEN):
        r = client.get("/api/admin/audit", headers={**auth(token), **guesser})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", r.text
    other = client.get("/api/admin/audit", headers={**auth(TOKEN), **from_address("203.0.113.8")})
    assert other.status_code == 200, other.text


def test_a_banned_player_is_refused_at_every_door_and_the_audit_holds_the_ban(client: TestClient) -> None:
    ada, mal, bob = player(client, "Ada"), player(client, "Mallory"), player(client, "Bob")
    mid, seats = table_match(client, ada, mal)  # a rated match in progress, Mallory at seat 1
    peers = {0: Peer(client, mid, seats[0]), 1: Peer(client, mid, seats[1])}
    play_friend_match(peers, random.Random(1), stop_after=4)
    peers[0].close()
    open_table = call(client, "POST", "/api/lobby/tables", mal, json={"playset": "catalysts"}).json()
    lobby = LobbyPeer(client, mal)
    lobby.send({"type": "queue", "clock": None})
    assert lobby.until("queued", "error")["type"] == "queued"
    found = admin(client, "GET", "/players", params={"q": "MALLORY"}).json()["players"]
    assert [p["name"] for p in found] == ["Mallory"] and not found[0]["banned"]
    mal_id = found[0]["id"]

    done = admin(client, "POST", "/players/Mallory/ban", json=HOST)
    assert done.status_code == 200, done.text
    detail = done.json()["detail"]
    assert detail["ended"] == [mid] and detail["not_ended"] == []
    assert detail["tables_closed"] == [open_table["table_id"]]
    assert lobby.until("unqueued")  # taken out of the queue, told so
    # Mallory's seat connection is told why and closed: she may come back to watch, not to play
    assert peers[1].until(lambda m: m["type"] == "error")["code"] == "banned"
    with pytest.raises(WebSocketDisconnect) as shut:
        for _ in range(20):
            peers[1].recv()
    assert shut.value.code == CLOSE_FORBIDDEN
    peers[1].close()
    # the match in progress ended as Mallory's loss, rated
    meta = client.get(f"/api/matches/{mid}").json()["match"]
    assert meta["status"] == "over" and meta["result"] == {"winner": 0, "reason": "banned"}
    assert call(client, "GET", "/api/me", ada).json()["player"]["rating"] > 1500
    history = call(client, "GET", "/api/me/history", mal).json()["matches"]  # (a banned player may read it)
    assert [(m["result"], m["reason"]) for m in history] == [("lost", "banned")]

    # every door that plays refuses Mallory, with the hosts' reason
    def refused(r: Any) -> None:
        assert r.status_code == 403, r.text
        assert r.json()["error"]["code"] == "banned" and HOST["reason"] in r.json()["error"]["message"]

    refused(call(client, "PUT", "/api/me", mal, json={"name": "Mallory2"}))
    refused(call(client, "POST", "/api/lobby/tables", mal, json={"playset": "catalysts"}))
    theirs = call(client, "POST", "/api/lobby/tables", bob, json={"playset": "catalysts"}).json()
    refused(call(client, "POST", f"/api/lobby/tables/{theirs['table_id']}/join", mal))
    refused(call(client, "POST", "/api/matches", mal, json={"opponent": "bot", "bot": "random"}))
    friend = call(client, "POST", "/api/matches", bob, json={"opponent": "friend"}).json()
    invite = friend["invite_url"].split("#token=", 1)[1]
    refused(call(client, "POST", f"/api/matches/{friend['match_id']}/players", mal, headers=auth(invite)))
    refused(call(client, "POST", f"/api/matches/{mid}/seat", mal))
    refused(call(client, "POST", f"/api/matches/{mid}/rematch", mal, headers=auth(seats[1])))
    refused(call(client, "POST", f"/api/matches/{mid}/report", mal, headers=auth(seats[1]),
                 json={"reason": "other"}))
    lobby.send({"type": "queue", "clock": None})
    error = lobby.until("error", "queued")
    assert error["code"] == "banned"
    lobby.send({"type": "accept_bot"})
    assert lobby.until("error")["code"] == "banned"
    client.cookies.clear()
    with client.websocket_connect(f"/ws/{friend['match_id']}", headers=as_(mal)) as ws:  # the invite's seat
        ws.send_text(json.dumps({"type": "hello", "token": invite}))
        assert json.loads(ws.receive_text())["code"] == "banned"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == CLOSE_FORBIDDEN
    watching = Peer(client, friend["match_id"])  # watching is allowed
    assert watching.welcome is not None and watching.welcome["type"] == "welcome"
    assert call(client, "GET", "/api/me", mal).status_code == 200
    lobby.close()

    # the audit holds the ban, with who, why and what it did
    [entry] = admin(client, "GET", "/audit", params={"target": mal_id}).json()["entries"]
    assert (entry["actor"], entry["action"], entry["reason"]) == ("Tess", "ban", HOST["reason"])
    assert entry["detail"]["matches_in_progress"] == [mid] and entry["detail"]["name"] == "Mallory"
    again = admin(client, "POST", f"/players/{mal_id}/ban", json=HOST)
    assert again.status_code == 400 and "already" in again.json()["error"]["message"]

    # let back: Mallory opens a table and plays again
    assert admin(client, "POST", f"/players/{mal_id}/unban", json={**HOST, "reason": "appeal heard"}).status_code \
        == 200
    back = call(client, "POST", "/api/lobby/tables", mal, json={"playset": "catalysts"})
    assert back.status_code == 201, back.text
    joined = call(client, "POST", f"/api/lobby/tables/{back.json()['table_id']}/join", bob)
    assert joined.status_code == 201
    actions = [e["action"] for e in admin(client, "GET", "/audit", params={"target": mal_id}).json()["entries"]]
    assert actions == ["unban", "ban"]


def test_a_host_renames_a_player_within_the_name_rules_whatever_their_limits(client: TestClient) -> None:
    rude, ada = player(client, "Rude Name"), player(client, "Ada")
    for name, code in (("h\u0430rd", "bad_name"), ("ADA", "name_taken"), ("x", "bad_name")):
        r = admin(client, "POST", "/players/Rude Name/rename", json={**HOST, "name": name})
        assert r.status_code in (400, 409) and r.json()["error"]["code"] == code, (name, r.text)
    for old, new in (("Rude Name", "Gentle One"), ("Gentle One", "Gentle Two"), ("Gentle Two", None)):
        r = admin(client, "POST", f"/players/{old}/rename", json={**HOST, "name": new})  # beyond their own limit
        assert r.status_code == 200, r.text
    assert call(client, "GET", "/api/me", rude).json()["player"]["name"] is None
    own = call(client, "PUT", "/api/me", rude, json={"name": "My Own"})  # the player's own limit is untouched
    assert own.status_code == 200, own.text
    entries = admin(client, "GET", "/audit").json()["entries"]
    assert [(e["detail"]["from"], e["detail"]["to"]) for e in entries] == [
        ("Gentle Two", None), ("Gentle One", "Gentle Two"), ("Rude Name", "Gentle One")]
    missing = admin(client, "POST", "/players/Nobody Here/rename", json={**HOST, "name": "Fine"})
    assert missing.status_code == 404
    assert ada


def test_a_host_closes_a_table_and_deletes_a_match_whose_pages_are_told(client: TestClient) -> None:
    ada, bob = player(client, "Ada"), player(client, "Bob")
    table = call(client, "POST", "/api/lobby/tables", ada, json={"playset": "catalysts"}).json()
    r = admin(client, "POST", f"/tables/{table['table_id']}/close", json=HOST)
    assert r.status_code == 200 and r.json()["detail"]["host"] is not None
    assert client.get("/api/lobby").json()["tables"] == []
    assert admin(client, "POST", f"/tables/{table['table_id']}/close", json=HOST).status_code == 409

    mid, seats = table_match(client, ada, bob)
    peer = Peer(client, mid, seats[0])
    r = admin(client, "POST", f"/matches/{mid}/delete", json=HOST)
    assert r.status_code == 200 and r.json()["detail"] == {"status": "active", "actions": 0}
    with pytest.raises(WebSocketDisconnect):  # told to reconnect: the match is gone
        for _ in range(20):
            peer.recv()
    peer.close()
    assert client.get(f"/api/matches/{mid}").status_code == 404
    again = Peer(client, mid, seats[0])
    assert again.welcome is not None and again.welcome["code"] == "not_found"
    assert [e["action"] for e in admin(client, "GET", "/audit").json()["entries"]] == ["delete_match",
                                                                                        "close_table"]


def test_a_report_reaches_the_hosts_once_and_a_flood_is_refused(client: TestClient,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ada, bob = player(client, "Ada"), player(client, "Bob")
    mid, seats = table_match(client, ada, bob)
    body = {"reason": "abuse", "note": "  called me   names  "}
    made = call(client, "POST", f"/api/matches/{mid}/report", ada, headers=auth(seats[0]), json=body)
    assert made.status_code == 201 and made.json() == {"reported": True, "new": True}
    twice = call(client, "POST", f"/api/matches/{mid}/report", ada, headers=auth(seats[0]), json=body)
    assert twice.status_code == 200 and twice.json()["new"] is False
    for headers, kw, code in ((auth(seats[1]), {"json": {"reason": "abuse"}}, None),  # Bob reports Ada: fine
                              ({}, {"json": body}, "unauthorized"),  # no seat
                              (auth(seats[0]), {"json": {"reason": "rude"}}, "malformed"),
                              (auth(seats[0]), {"json": {"reason": "abuse", "note": "\x00"}}, "malformed")):
        r = call(client, "POST", f"/api/matches/{mid}/report", bob if code is None else ada, headers=headers, **kw)
        assert (r.json().get("error", {}).get("code") if code else r.status_code) == (code or 201), r.text
    no_player = client.post(f"/api/matches/{mid}/report", headers=auth(seats[0]), json=body)
    assert no_player.json()["error"]["code"] == "no_player"

    [first, second] = admin(client, "GET", "/reports").json()["reports"]
    assert first["reporter"]["name"] == "Ada" and first["reported"]["name_in_match"] == "Bob"
    assert first["reason"] == "abuse" and first["note"] == "called me names" and first["open"]
    assert second["reporter"]["name"] == "Bob"
    closed = admin(client, "POST", f"/reports/{first['id']}/close", json=HOST)
    assert closed.status_code == 200
    assert [r["id"] for r in admin(client, "GET", "/reports").json()["reports"]] == [second["id"]]
    assert len(admin(client, "GET", "/reports", params={"all": "true"}).json()["reports"]) == 2

    monkeypatch.setattr(service, "REPORTS_PER_HOUR", 2)  # Ada has made one: one more, then no more
    other, more = table_match(client, ada, player(client, "Cyd"))
    third, more3 = table_match(client, ada, player(client, "Dee"))
    assert call(client, "POST", f"/api/matches/{other}/report", ada, headers=auth(more[0]),
                json={"reason": "name"}).status_code == 201
    flood = call(client, "POST", f"/api/matches/{third}/report", ada, headers=auth(more3[0]),
                 json={"reason": "name"})
    assert flood.status_code == 429 and flood.json()["error"]["code"] == "rate_limited"


def test_a_report_comes_only_from_the_player_of_the_seat(client: TestClient) -> None:
    """Issue 38: player X's cookie with Ada's seat token filed a report as X on a match X never played. The
    reporter must be the player the match has at that seat; nothing is stored otherwise."""
    ada, bob, mal = player(client, "Ada"), player(client, "Bob"), player(client, "Mallory")
    mid, seats = table_match(client, ada, bob)
    body = {"reason": "abuse", "note": "not my match"}
    for who, seat in ((mal, 0), (mal, 1), (bob, 0), (ada, 1)):  # a stranger, or a player with the other's seat
        r = call(client, "POST", f"/api/matches/{mid}/report", who, headers=auth(seats[seat]), json=body)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", r.text
        assert "only the player of a seat" in r.json()["error"]["message"]
    assert admin(client, "GET", "/reports").json()["reports"] == []
    made = call(client, "POST", f"/api/matches/{mid}/report", ada, headers=auth(seats[0]), json=body)
    assert made.status_code == 201
    [report] = admin(client, "GET", "/reports").json()["reports"]
    assert report["reporter"]["name"] == "Ada" and report["reported"]["name_in_match"] == "Bob"


def test_converge_admin_against_a_running_server(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx2 as httpx

    from tests.helpers import assert_user_error, run

    server = Server(tmp_path / "matches.sqlite3", None, env={"CONVERGE_ADMIN_TOKEN": TOKEN})
    server.start()
    try:
        r = httpx.put(f"{server.base}/api/me", json={"name": "Spammer"})
        assert r.status_code == 200
        monkeypatch.delenv("CONVERGE_ADMIN_TOKEN", raising=False)
        code, _out, err = run(capsys, "admin", "--server", server.base, "players", "spam")
        assert_user_error(code, err, "CONVERGE_ADMIN_TOKEN")
        monkeypatch.setenv("CONVERGE_ADMIN_TOKEN", "not-the-token-0123456789")
        code, _out, err = run(capsys, "admin", "--server", server.base, "players", "spam")
        assert_user_error(code, err, "refused the admin token")
        monkeypatch.setenv("CONVERGE_ADMIN_TOKEN", TOKEN)
        code, out, err = run(capsys, "admin", "--server", server.base, "players", "spam")
        assert code == 0 and "Spammer" in out and "allowed" in out, err
        code, out, err = run(capsys, "admin", "--server", server.base, "--as", "Tess", "ban", "SPAMMER",
                             "--reason", "spam")
        assert code == 0 and "banned" in out and "matches ended as losses: 0" in out, err
        code, out, err = run(capsys, "admin", "--server", server.base, "ban", "Nobody", "--reason", "x")
        assert_user_error(code, err, "no player has the id or the name 'Nobody'")
        code, out, err = run(capsys, "admin", "--server", server.base, "audit")
        assert code == 0 and "Tess: ban" in out and "spam" in out, err
        code, out, err = run(capsys, "admin", "--server", server.base, "--json", "players", "Spammer")
        assert code == 0 and json.loads(out)["players"][0]["banned"] is True
        code, _out, err = run(capsys, "admin", "--server", server.base, "ban", "Spammer")
        assert code == 2 and "--reason" in err
        code, out, err = run(capsys, "admin", "--server", server.base, "chat", "abcdefghijkl")
        assert code == 0 and "no chat in match abcdefghijkl" in out, err
        code, out, err = run(capsys, "admin", "--server", server.base, "chat", "not-a-match!")
        assert_user_error(code, err, "no such match")
    finally:
        server.stop()
    code, _out, err = run(capsys, "admin", "--server", server.base, "reports")
    assert_user_error(code, err, "cannot reach the server")
