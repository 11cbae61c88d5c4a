"""Friends and challenges over HTTP: following by name, the friends list (online or not, the matches they
play), challenges made, accepted and played to their end, declined, cancelled and expired; the refusals
(oneself, friends only, banned, one open challenge a pair, bad settings, the rate limit); the challenge's mail;
and no player's id in any answer."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from converge.server.app import create_app
from converge.server.lobby.identity import COOKIE, name_key
from converge.server.people.challenges import ANSWERED_SHOWN_S, CHALLENGES_BURST, LIVE_EXPIRY_S, TURN_EXPIRY_S
from converge.server.people.follows import ONLINE_WINDOW_S
from converge.server.storage import friends_store
from tests.mail_support import Inbox, smtp_fixture  # noqa: F401 (a fixture)
from tests.server.test_accounts import PUBLIC, Device, _settings, _sign_in
from tests.server.test_limits import assert_error
from tests.server_support import FAST, Peer, client_for, hang_guard  # noqa: F401

ADMIN = {"Authorization": "Bearer admin-secret-for-the-test"}


def _named(client: TestClient, name: str) -> Device:
    device = Device(client)
    assert device.put("/api/me", json={"name": name}).status_code == 200
    return device


def _ids(client: TestClient, *names: str) -> list[str]:
    """The players' ids, from the database (never from an answer)."""
    engine = client.app.state.hub.storage.engine  # type: ignore[attr-defined]
    found = [friends_store.person_by_key(engine, name_key(n)) for n in names]
    return [p.id for p in found if p is not None]


def _no_ids(client: TestClient, ids: list[str], *answers: Any) -> None:
    for answer in answers:
        text = answer.text if hasattr(answer, "text") else json.dumps(answer)
        assert not any(i in text for i in ids), text


def _challenge(who: Device, name: str, **settings: Any) -> Any:
    return who.post("/api/challenges", json={"name": name, "playset": "catalysts", **settings})


def _play_to_end(client: TestClient, mid: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Both seats play their first legal action until the match is over; returns its meta."""
    for _ in range(2000):
        view = client.get(f"/api/matches/{mid}").json()
        if view["match"]["status"] != "active":
            return dict(view["match"])
        seat = view["observation"]["current_player"]
        bearer = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = client.get(f"/api/matches/{mid}", headers=bearer).json()
        action = mine["observation"]["decision"]["legal_actions"][0]["id"]
        moved = client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=bearer)
        assert moved.status_code == 200, moved.text
    raise AssertionError("the match did not end")


def test_following_by_name_and_the_friends_list(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        ada, bob, cy = _named(client, "Ada"), _named(client, "Bob"), _named(client, "Cyd")
        ids = _ids(client, "Ada", "Bob", "Cyd")
        assert ada.get("/api/me/follows").json() == {"friends": []}
        followed = ada.post("/api/me/follows", json={"name": "BOB"})  # (any case of the name)
        assert followed.status_code == 200 and followed.json() == {"name": "Bob", "following": True}
        assert ada.post("/api/me/follows", json={"name": "bob"}).status_code == 200  # (again: nothing changes)
        assert ada.post("/api/me/follows", json={"name": "Cyd"}).status_code == 200
        assert_error(ada.post("/api/me/follows", json={"name": "Ada"}), 400, "malformed")
        assert_error(ada.post("/api/me/follows", json={"name": "Nobody"}), 404, "not_found")
        assert_error(ada.post("/api/me/follows", json={"name": 3}), 400, "malformed")
        assert_error(Device(client).get("/api/me/follows"), 401, "no_player")
        listed = ada.get("/api/me/follows")
        friends = listed.json()["friends"]
        assert [(f["name"], f["online"], f["playing"]) for f in friends] == [("Bob", False, []),
                                                                             ("Cyd", False, [])]
        assert friends[0]["rating"] == 1500 and friends[0]["profile"] == "/@/Bob"
        # Bob opens a lobby page: online; Cyd plays a match: online, and it can be watched
        client.cookies.clear()
        with client.websocket_connect("/ws/lobby", headers={"cookie": f"{COOKIE}={bob.cookie}"}) as page:
            page.send_json({"type": "hello"})
            assert page.receive_json()["type"] == "welcome"
            made = _challenge(cy, "Ada")
            assert made.status_code == 201, made.text
            mid = ada.post(f"/api/challenges/{made.json()['challenge']['id']}/accept").json()["match_id"]
            friends = ada.get("/api/me/follows").json()["friends"]
            assert [(f["name"], f["online"]) for f in friends] == [("Bob", True), ("Cyd", True)]
            assert friends[1]["playing"] == [{"match_id": mid, "url": f"/m/{mid}"}]
            assert client.get(f"/m/{mid}").status_code == 200
        # the page closed; the match unchanged for longer than the window: both offline, Cyd still playing it
        client.app.state.hub.wall.advance(ONLINE_WINDOW_S + 1)  # type: ignore[attr-defined]
        friends = ada.get("/api/me/follows").json()["friends"]
        assert [(f["name"], f["online"], len(f["playing"])) for f in friends] == [("Bob", False, 0),
                                                                                  ("Cyd", False, 1)]
        # Cyd opens his match's page (its socket holds his seat): online while it is open
        peer = Peer(client, mid, cy.post(f"/api/matches/{mid}/seat").json()["token"])
        online = [(f["name"], f["online"]) for f in ada.get("/api/me/follows").json()["friends"]]
        assert online == [("Cyd", True), ("Bob", False)]  # (online first)
        peer.close()
        deadline = time.monotonic() + 10  # (the server hears of the closed socket a moment later)
        while (online := [(f["name"], f["online"]) for f in ada.get("/api/me/follows").json()["friends"]]) \
                != [("Bob", False), ("Cyd", False)] and time.monotonic() < deadline:
            time.sleep(0.02)
        assert online == [("Bob", False), ("Cyd", False)]
        gone = ada.delete("/api/me/follows/bob")
        assert gone.json() == {"name": "Bob", "following": False}
        assert_error(ada.delete("/api/me/follows/bob"), 404, "not_found")
        assert [f["name"] for f in ada.get("/api/me/follows").json()["friends"]] == ["Cyd"]
        _no_ids(client, ids, listed, followed, gone, ada.get("/api/me/follows"))
        # following is not mutual: Cyd follows nobody
        assert cy.get("/api/me/follows").json() == {"friends": []}


def test_a_challenge_accepted_is_a_match_both_play_to_its_end(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        ada, bob = _named(client, "Ada"), _named(client, "Bob")
        ids = _ids(client, "Ada", "Bob")
        made = _challenge(ada, "Bob", clock=300, rated=True)
        assert made.status_code == 201, made.text
        view = made.json()["challenge"]
        assert (view["challenger"], view["challenged"], view["playset"], view["clock"], view["move_hours"],
                view["rated"], view["status"]) == ("Ada", "Bob", ["alchemist", "mechanist", "archivist"], 300,
                                                   None, True, "open")
        cid = view["id"]
        mine, theirs = ada.get("/api/challenges").json(), bob.get("/api/challenges").json()
        assert [c["id"] for c in mine["outgoing"]] == [cid] and mine["incoming"] == []
        assert [c["id"] for c in theirs["incoming"]] == [cid] and theirs["outgoing"] == []
        assert_error(_challenge(ada, "Bob"), 409, "challenge_closed")  # one open challenge a pair
        assert_error(_challenge(bob, "Ada"), 409, "challenge_closed")  # (either way)
        assert_error(ada.post(f"/api/challenges/{cid}/accept"), 404, "not_found")  # not the challenger's to accept
        assert_error(Device(client).post(f"/api/challenges/{cid}/accept"), 401, "no_player")
        stranger = _named(client, "Cyd")
        assert_error(stranger.post(f"/api/challenges/{cid}/decline"), 404, "not_found")
        accepted = bob.post(f"/api/challenges/{cid}/accept")
        assert accepted.status_code == 200, accepted.text
        mid = accepted.json()["match_id"]
        assert accepted.json() == {"match_id": mid, "url": f"/m/{mid}"}
        assert_error(bob.post(f"/api/challenges/{cid}/accept"), 409, "challenge_closed")  # once
        # the challenger's page learns it on its next look
        answered = ada.get("/api/challenges").json()
        assert answered["outgoing"] == [] and answered["answered"][0]["status"] == "accepted"
        assert answered["answered"][0]["match_id"] == mid
        tokens = {}
        for who in (ada, bob):
            seated = who.post(f"/api/matches/{mid}/seat")
            assert seated.status_code == 200, seated.text
            tokens[seated.json()["seat"]] = seated.json()["token"]
        assert set(tokens) == {0, 1}
        meta = client.get(f"/api/matches/{mid}").json()["match"]
        assert meta["clock"] is not None
        end = _play_to_end(client, mid, tokens)
        assert end["status"] == "over"
        games = [who.get("/api/me").json()["player"]["games"] for who in (ada, bob)]
        assert games == [1, 1]  # (rated: both ratings changed)
        for who, other in ((ada, "Bob"), (bob, "Ada")):  # on both profiles: asked for by name, not by a link
            profile = who.get(f"/api/players/{other}").json()
            assert [m["match_id"] for m in profile["matches"]] == [mid] and len(profile["ratings"]) == 1
        _no_ids(client, ids, made, accepted, ada.get("/api/challenges"), bob.get("/api/challenges"))


def test_declined_cancelled_and_expired_challenges(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        ada, bob = _named(client, "Ada"), _named(client, "Bob")
        cid = declined = _challenge(ada, "Bob").json()["challenge"]["id"]
        assert_error(ada.post(f"/api/challenges/{cid}/decline"), 404, "not_found")  # the challenged declines
        assert bob.post(f"/api/challenges/{cid}/decline").json() == {"status": "declined"}
        assert_error(bob.post(f"/api/challenges/{cid}/accept"), 409, "challenge_closed")
        assert ada.get("/api/challenges").json()["answered"][0]["status"] == "declined"
        cid = _challenge(ada, "Bob").json()["challenge"]["id"]  # (answered: a new one may be sent)
        assert_error(bob.post(f"/api/challenges/{cid}/cancel"), 404, "not_found")  # the challenger cancels
        assert ada.post(f"/api/challenges/{cid}/cancel").json() == {"status": "cancelled"}
        assert bob.get("/api/challenges").json() == {"incoming": [], "outgoing": [], "answered": [],
                                                     "friends_only": False}
        assert_error(bob.post(f"/api/challenges/{cid}/accept"), 409, "challenge_closed")
        # a live challenge expires after its wait; a turn-based one waits a day
        live = _challenge(ada, "Bob", clock=300).json()["challenge"]
        wall = client.app.state.hub.wall  # type: ignore[attr-defined]
        assert abs(live["expires_at"] - (wall() + LIVE_EXPIRY_S)) < 5
        wall.advance(LIVE_EXPIRY_S + 1)
        assert bob.get("/api/challenges").json()["incoming"] == []
        assert ada.get("/api/challenges").json()["answered"][0]["status"] == "expired"
        assert_error(bob.post(f"/api/challenges/{live['id']}/accept"), 409, "challenge_closed")
        assert_error(ada.post(f"/api/challenges/{live['id']}/cancel"), 409, "challenge_closed")
        wall.advance(ANSWERED_SHOWN_S)  # an expiry long past is no news
        assert [c["id"] for c in ada.get("/api/challenges").json()["answered"]] == [declined]
        turns = _challenge(ada, "Bob", move_hours=24).json()["challenge"]  # (the expired one no longer counts)
        assert turns["move_hours"] == 24 and abs(turns["expires_at"] - (wall() + TURN_EXPIRY_S)) < 5
        wall.advance(TURN_EXPIRY_S - 60)
        accepted = bob.post(f"/api/challenges/{turns['id']}/accept")
        assert accepted.status_code == 200, accepted.text
        meta = client.get(f"/api/matches/{accepted.json()['match_id']}").json()["match"]
        assert meta["turn"]["move_s"] == 24 * 3600
        assert_error(bob.post("/api/challenges/not-an-id!/accept"), 404, "not_found")


def test_challenges_refused_to_oneself_strangers_of_friends_only_players_and_banned_ones(tmp_path: Path) -> None:
    with client_for(tmp_path, admin_token="admin-secret-for-the-test") as client:
        ada, bob, cy = _named(client, "Ada"), _named(client, "Bob"), _named(client, "Cyd")
        assert_error(_challenge(ada, "Ada"), 400, "malformed")
        assert_error(_challenge(ada, "Nobody"), 404, "not_found")
        assert_error(_challenge(ada, "Bob", clock=1), 400, "malformed")
        assert_error(_challenge(ada, "Bob", clock=300, move_hours=24), 400, "malformed")
        assert_error(ada.post("/api/challenges", json={"name": "Bob", "playset": ["alchemist"]}), 400, "malformed")
        assert_error(ada.post("/api/challenges", json={"name": "Bob", "extra": 1}), 400, "malformed")
        anonymous = Device(client)
        assert anonymous.put("/api/me", json={"name": None}).status_code == 200
        assert_error(_challenge(anonymous, "Bob"), 401, "no_player")
        # Bob takes challenges from his friends only: Ada is refused until Bob follows her
        assert bob.put("/api/me/challenges", json={"friends_only": True}).json() == {"friends_only": True}
        assert bob.get("/api/challenges").json()["friends_only"] is True
        message = assert_error(_challenge(ada, "Bob"), 403, "friends_only")
        assert message == "Bob takes challenges only from the players they follow"
        assert bob.post("/api/me/follows", json={"name": "Ada"}).status_code == 200
        assert _challenge(ada, "Bob").status_code == 201  # (Ada need not follow Bob)
        assert_error(_challenge(cy, "Bob"), 403, "friends_only")
        assert bob.put("/api/me/challenges", json={"friends_only": False}).status_code == 200
        from_cyd = _challenge(cy, "Bob")
        assert from_cyd.status_code == 201
        assert bob.post(f"/api/challenges/{from_cyd.json()['challenge']['id']}/decline").status_code == 200
        # a banned player neither sends nor receives, nor accepts
        cid = _challenge(cy, "Ada").json()["challenge"]["id"]
        to_cyd = _challenge(bob, "Cyd").json()["challenge"]["id"]
        client.cookies.clear()
        assert client.post("/api/admin/players/Cyd/ban", json={"actor": "Tess", "reason": "cheating"},
                           headers=ADMIN).status_code == 200
        assert_error(_challenge(cy, "Ada", clock=300), 403, "banned")
        assert_error(_challenge(ada, "Cyd"), 403, "banned")
        assert_error(ada.post(f"/api/challenges/{cid}/accept"), 409, "challenge_closed")  # (the challenger is)
        assert_error(cy.post(f"/api/challenges/{to_cyd}/accept"), 403, "banned")


def test_challenges_are_rate_limited_per_player(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        ada = _named(client, "Ada")
        names = [f"Rival {chr(ord('a') + n) * 3}" for n in range(CHALLENGES_BURST + 1)]
        others = [_named(client, name) for name in names]
        for name in names[:-1]:
            assert _challenge(ada, name).status_code == 201
        assert_error(_challenge(ada, names[-1]), 429, "rate_limited")
        assert _challenge(others[0], "Ada").status_code == 409  # (another player's budget: only the pair's rule)


def test_the_challenged_player_is_mailed_a_link_if_they_asked_for_turn_mails(tmp_path: Path,
                                                                          smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        ada, bob, cy = _named(client, "Ada"), _named(client, "Bob"), _named(client, "Cyd")
        for who, address in ((bob, "bob@example.org"), (cy, "cyd@example.org")):
            _sign_in(who, inbox, address)
        assert bob.put("/api/me/mails", json={"turn_mails": True}).status_code == 200
        before = len(inbox.mails)
        cid = _challenge(ada, "Bob", move_hours=48).json()["challenge"]["id"]
        mail = inbox.wait("bob@example.org", 2)[-1]
        assert mail["Subject"] == "Ada challenges you — Converge"
        body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert f"{PUBLIC}/challenges#id={cid}" in body and "48 hours a move" in body
        assert client.get("/challenges").status_code == 200  # (the link's page)
        assert _challenge(ada, "Cyd").status_code == 201  # Cyd did not ask for mails: none
        assert len(inbox.mails) == before + 1


def test_a_mail_that_cannot_be_sent_does_not_fail_the_challenge(tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        ada, bob = _named(client, "Ada"), _named(client, "Bob")
        _sign_in(bob, inbox, "bob@example.org")
        assert bob.put("/api/me/mails", json={"turn_mails": True}).status_code == 200

        class Broken:
            async def send(self, mail: Any) -> None:
                raise OSError("the SMTP server is away")

        client.app.state.challenges.mailer = Broken()  # type: ignore[attr-defined]
        made = _challenge(ada, "Bob")
        assert made.status_code == 201, made.text
        assert [c["challenger"] for c in bob.get("/api/challenges").json()["incoming"]] == ["Ada"]


def test_friends_and_challenges_across_two_processes_on_postgresql(postgres_url: str) -> None:
    """Two server processes on one PostgreSQL database: a challenge made on one is accepted on the other, once
    (a second acceptance on the first process is refused), and each reads the other's follows."""
    with TestClient(create_app(db_url=postgres_url, **FAST)) as one, \
            TestClient(create_app(db_url=postgres_url, **FAST)) as two:
        assert one.app.state.hub.storage.engine.dialect.name == "postgresql"  # type: ignore[attr-defined]
        ada, bob = _named(one, "Ada"), _named(two, "Bob")
        assert ada.post("/api/me/follows", json={"name": "Bob"}).status_code == 200
        cid = _challenge(ada, "Bob", clock=300).json()["challenge"]["id"]
        assert [c["id"] for c in bob.get("/api/challenges").json()["incoming"]] == [cid]
        accepted = bob.post(f"/api/challenges/{cid}/accept")
        assert accepted.status_code == 200, accepted.text
        mid = accepted.json()["match_id"]
        bob_on_one = Device(one)
        bob_on_one.cookie = bob.cookie
        assert_error(bob_on_one.post(f"/api/challenges/{cid}/accept"), 409, "challenge_closed")
        friends = ada.get("/api/me/follows").json()["friends"]
        assert [(f["name"], f["online"], f["playing"]) for f in friends] == [
            ("Bob", True, [{"match_id": mid, "url": f"/m/{mid}"}])]  # (his match was made a moment ago)
