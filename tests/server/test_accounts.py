"""Accounts without passwords: a player signs in on another device by a link mailed through a real SMTP
server on loopback, and the name, rating and history follow; forged, reused and expired links, bad and
hostile addresses and floods are refused and store nothing; signing out, everywhere, and deleting the
account."""

from __future__ import annotations

import contextlib
import email
import email.policy
import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect

from converge.server.lobby.identity import COOKIE
from converge.server.protocol.errors import CLOSE_UNAUTHORIZED
from converge.server.storage import accounts_store
from converge.server.storage.schema import device_tokens_table, match_players_table, players_table, sign_ins_table
from tests.mail_support import Inbox, link_token, smtp_fixture  # noqa: F401 (a fixture)
from tests.server.test_limits import assert_error
from tests.server.test_lobby import LobbyPeer, close_lobby_peers  # noqa: F401 (a fixture)
from tests.server_support import Peer, client_for, hang_guard, play_friend_match  # noqa: F401

PUBLIC = "https://play.example.org"


def _hub(client: TestClient) -> Any:
    return client.app.state.hub  # type: ignore[attr-defined]


def _count(client: TestClient, table: Any) -> int:
    with _hub(client).storage.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


class Device:
    """Another browser of the same server: its own player cookie, sent on the one test client (whose jar is
    kept empty), and kept from the answers that set or delete it."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.cookie: str | None = None

    def request(self, method: str, path: str, **kw: Any) -> Any:
        self.client.cookies.clear()
        headers = dict(kw.pop("headers", None) or {})
        if self.cookie is not None:
            headers["cookie"] = f"{COOKIE}={self.cookie}"
        r = self.client.request(method, path, headers=headers, **kw)
        if COOKIE in r.cookies or f"{COOKIE}=" in r.headers.get("set-cookie", ""):
            self.cookie = r.cookies.get(COOKIE) or None
        self.client.cookies.clear()
        return r

    def get(self, path: str, **kw: Any) -> Any:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Any:
        return self.request("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> Any:
        return self.request("PUT", path, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self.request("DELETE", path, **kw)


def _device(client: TestClient) -> Device:
    """Another browser (its own cookie) of the same server."""
    return Device(client)


def _sign_in(device: Device, inbox: Inbox, address: str, n: int = 1) -> dict[str, Any]:
    asked = device.post("/api/auth/email", json={"email": address})
    assert asked.status_code == 200 and asked.json() == {"sent": True, "minutes": 15}, asked.text
    mail = inbox.wait(address, n)[-1]
    assert mail["Subject"] == "Sign in to Converge" and mail["From"] == "Converge <converge@play.example.org>"
    body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert body.count(PUBLIC + "/signin#token=") == 1
    got = device.post("/api/auth/verify", json={"token": link_token(mail)})
    assert got.status_code == 200, got.text
    return dict(got.json())


def _settings(smtp: tuple[str, Inbox], **more: Any) -> dict[str, Any]:
    return {"smtp_url": smtp[0], "public_url": PUBLIC, "mail_from": "Converge <converge@play.example.org>",
            **more}


def test_signing_in_by_an_emailed_link_on_a_second_device_brings_the_name_rating_and_history(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        phone, laptop, friend = _device(client), _device(client), _device(client)
        assert phone.put("/api/me", json={"name": "Ada"}).status_code == 200
        assert friend.put("/api/me", json={"name": "Grace"}).status_code == 200
        # Ada plays a match from her phone (an invite: her history lists it)
        made = phone.post("/api/lobby/tables", json={"playset": "catalysts", "private": True, "seat": 0})
        mid, tokens = made.json()["match_id"], {0: made.json()["token"],
                                                 1: made.json()["invite_url"].split("#token=")[1]}
        assert friend.post(f"/api/matches/{mid}/players", headers={"Authorization": f"Bearer {tokens[1]}"})\
            .status_code == 200
        play_friend_match({s: Peer(client, mid, t) for s, t in tokens.items()}, random.Random(1))
        history = phone.get("/api/me/history").json()["matches"]
        assert [m["match_id"] for m in history] == [mid]
        me = _sign_in(phone, inbox, "Ada@Example.org")  # the phone's own player takes the address
        assert me["player"]["name"] == "Ada" and me["email"] == "ada@example.org"
        assert _count(client, device_tokens_table) == 0
        on_laptop = _sign_in(laptop, inbox, "ada@example.org", 2)  # "on another device"
        assert on_laptop == {**me, "tables": on_laptop["tables"]}
        assert laptop.get("/api/me/history").json() == phone.get("/api/me/history").json()
        assert laptop.get("/api/me").json()["player"] == phone.get("/api/me").json()["player"]
        # a rename on one device is the other's too
        assert laptop.put("/api/me", json={"name": "Ada L"}).status_code == 200
        assert phone.get("/api/me").json()["player"]["name"] == "Ada L"
        assert friend.get("/api/me").json()["email"] is None
        # signing out one device leaves the other signed in; everywhere signs out both
        assert laptop.post("/api/auth/signout").json() == {"player": None, "tables": [], "email": None,
                                                     "turn_mails": False}
        assert laptop.get("/api/me").json()["player"] is None
        assert phone.get("/api/me").json()["player"]["name"] == "Ada L"
        again = _sign_in(laptop, inbox, "ada@example.org", 3)
        assert again["player"]["name"] == "Ada L"
        assert phone.post("/api/auth/signout-everywhere").status_code == 200
        assert phone.get("/api/me").json()["player"] is None and laptop.get("/api/me").json()["player"] is None
        back = _sign_in(phone, inbox, "ada@example.org", 4)  # and back, with everything
        assert back["player"]["name"] == "Ada L"
        assert [m["match_id"] for m in phone.get("/api/me/history").json()["matches"]] == [mid]


def test_a_sign_in_link_works_once_within_its_minutes_and_a_forged_one_never(
        tmp_path: Path, smtp: tuple[str, Inbox], monkeypatch: pytest.MonkeyPatch) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        a, b = _device(client), _device(client)
        assert a.post("/api/auth/email", json={"email": "ada@example.org"}).status_code == 200
        token = link_token(inbox.wait("ada@example.org")[0])
        assert a.post("/api/auth/verify", json={"token": token}).status_code == 200
        assert_error(b.post("/api/auth/verify", json={"token": token}), 400, "bad_sign_in")  # reused
        assert b.get("/api/me").json()["player"] is None
        for forged in (token[:-2] + "xy", "x" * 43, "../../etc", "", "a" * 150):
            got = b.post("/api/auth/verify", json={"token": forged})
            assert got.status_code in (400, 422) and "error" in got.json(), got.text
        assert b.get("/api/me").json()["player"] is None
        players = _count(client, players_table)
        # an expired link
        assert b.post("/api/auth/email", json={"email": "grace@example.org"}).status_code == 200
        late = link_token(inbox.wait("grace@example.org")[0])
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + 16 * 60)
        assert_error(b.post("/api/auth/verify", json={"token": late}), 400, "bad_sign_in")
        monkeypatch.setattr(time, "time", real)
        assert _count(client, players_table) == players and b.get("/api/me").json()["player"] is None


@pytest.mark.parametrize("address", [
    "ada@example.org\r\nBcc: eve@example.org", "ada@example.org, eve@example.org", "Ada <ada@example.org>",
    "ada", "ada@localhost", "@example.org", "ada@[127.0.0.1]", '"a b"@example.org', "a" * 250 + "@example.org",
    "ada@exa\nmple.org", "ada\x00@example.org", "",
])
def test_bad_and_hostile_addresses_are_refused_with_nothing_stored_or_mailed(
        tmp_path: Path, smtp: tuple[str, Inbox], address: str) -> None:
    with client_for(tmp_path, **_settings(smtp)) as client:
        got = client.post("/api/auth/email", json={"email": address})
        assert got.status_code in (400, 422), got.text
        if got.status_code == 400:
            assert_error(got, 400, "bad_email")
        time.sleep(0.2)
        assert _count(client, sign_ins_table) == 0 and smtp[1].mails == []


def test_sign_in_floods_are_refused_per_address_and_per_client(tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    limits = {"sign_ins_per_address_hour": 2, "sign_ins_per_client_hour": 4}
    with client_for(tmp_path, **_settings(smtp, **limits)) as client:
        for _ in range(2):
            assert client.post("/api/auth/email", json={"email": "ada@example.org"}).status_code == 200
        assert_error(client.post("/api/auth/email", json={"email": "ADA@example.org"}), 429, "rate_limited")
        for who in ("grace", "alan"):
            assert client.post("/api/auth/email", json={"email": f"{who}@example.org"}).status_code == 200
        assert_error(client.post("/api/auth/email", json={"email": "edsger@example.org"}), 429, "rate_limited")
        assert _count(client, sign_ins_table) == 4
        smtp[1].wait("alan@example.org")
        assert len(smtp[1].mails) == 4


def test_signing_out_needs_an_address_and_deleting_the_account_forgets_it(tmp_path: Path,
                                                                          smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        a, b = _device(client), _device(client)
        assert a.put("/api/me", json={"name": "Ada"}).status_code == 200
        assert_error(a.post("/api/auth/signout"), 401, "no_player")  # would lose the player for good
        assert a.get("/api/me").json()["player"]["name"] == "Ada"
        _sign_in(a, inbox, "ada@example.org")
        _sign_in(b, inbox, "ada@example.org", 2)
        assert a.delete("/api/me").json()["player"] is None
        assert a.get("/api/me").json()["player"] is None and b.get("/api/me").json()["player"] is None
        with _hub(client).storage.engine.connect() as conn:
            assert conn.execute(select(players_table.c.email, players_table.c.name)).all() == [(None, None)]
        assert _count(client, device_tokens_table) == 0
        assert b.put("/api/me", json={"name": "Ada"}).status_code == 200  # the name is free again
        fresh = _sign_in(b, inbox, "ada@example.org", 3)  # the address makes no link to the old player
        assert fresh["player"]["games"] == 0 and fresh["email"] == "ada@example.org"


def test_without_an_smtp_server_the_mail_goes_to_a_file_not_the_log_and_mailing_needs_a_public_address(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "mail"
    with caplog.at_level("DEBUG"), client_for(tmp_path) as client:
        assert _hub(client).config.resolved_mail_dir() == folder  # beside the SQLite database
        assert client.post("/api/auth/email", json={"email": "ada@example.org"}).status_code == 200
        end = time.monotonic() + 5
        # (the mail is written, then its line logged: wait for both)
        while not (folder.exists() and list(folder.glob("*.eml")) and "a…@example.org" in caplog.text):
            assert time.monotonic() < end, caplog.text
            time.sleep(0.02)
        (mail,) = folder.glob("*.eml")
        message = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
        text = message.get_body().get_content()  # type: ignore[union-attr]
        token = text.split("signin#token=")[1].split()[0]
        assert message["To"] == "ada@example.org" and "http://testserver/signin#token=" in text
        assert mail.stat().st_mode & 0o077 == 0  # only its owner may read it
        # the log says where the mail is, never what it says: the link signs in whoever has it
        assert str(mail) in caplog.text and "a…@example.org" in caplog.text
        assert token not in caplog.text and "ada@example.org" not in caplog.text
        assert client.post("/api/auth/verify", json={"token": token}).status_code == 200  # the file's link works
    with pytest.raises(ValueError, match="--public-url"), client_for(tmp_path, smtp_url="smtp://127.0.0.1:25"):
        pass


def test_a_player_signed_in_on_a_second_device_plays_their_matches_in_progress_there(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        laptop, phone, rival, stranger = (_device(client) for _ in range(4))
        for device, name in ((laptop, "Ada"), (rival, "Grace"), (stranger, "Eve")):
            assert device.put("/api/me", json={"name": name}).status_code == 200
        opened = laptop.post("/api/lobby/tables", json={"playset": "catalysts", "seat": 0, "rated": False,
                                                        "move_hours": 72})
        joined = rival.post(f"/api/lobby/tables/{opened.json()['table_id']}/join")
        mid, rival_token = joined.json()["match_id"], joined.json()["token"]
        _sign_in(laptop, inbox, "ada@example.org")
        _sign_in(phone, inbox, "ada@example.org", 2)
        assert phone.get("/api/me/matches").json() == {"matches": [{"match_id": mid, "seat": 0}]}
        key = phone.post(f"/api/matches/{mid}/seat")
        assert key.status_code == 200 and key.json()["seat"] == 0, key.text
        token = key.json()["token"]
        assert token != opened.json()["token"]
        view = phone.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {token}"}).json()
        assert view["seat"] == 0 and view["observation"]["viewer"] == 0 and view["observation"]["hand"]
        tokens = {0: token, 1: rival_token}
        for _ in range(4):  # both play on: Ada from her phone
            seat = client.get(f"/api/matches/{mid}").json()["observation"]["current_player"]
            bearer = {"Authorization": f"Bearer {tokens[seat]}"}
            mine = client.get(f"/api/matches/{mid}", headers=bearer).json()
            action = mine["observation"]["decision"]["legal_actions"][0]["id"]
            moved = client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=bearer)
            assert moved.status_code == 200, moved.text
        assert_error(stranger.post(f"/api/matches/{mid}/seat"), 401, "unauthorized")  # not her match
        assert_error(client.post(f"/api/matches/{mid}/seat"), 401, "no_player")  # not a player
        assert stranger.get("/api/me/matches").json() == {"matches": []}
    with client_for(tmp_path, **_settings(smtp)) as client:  # the key is stored (hashed), like the seat's token
        got = client.get(f"/api/matches/{mid}", headers={"Authorization": f"Bearer {token}"})
        assert got.json()["seat"] == 0


# ------------------------------------------------------------------ issue 38: the account belongs to who asked


def _browsers(client: TestClient, *names: str | None) -> list[Device]:
    """A browser of the same server per name: a player of that name, or (None) no player yet."""
    devices = [_device(client) for _ in names]
    for device, name in zip(devices, names, strict=True):
        if name is not None:
            assert device.put("/api/me", json={"name": name}).status_code == 200
    return devices


def _friend_match(host: Device, guest: Device) -> tuple[str, str, str]:
    """A private table's match, the guest at seat 1 by its invite (both players recorded): its id, the host's
    seat token and the invite's."""
    made = host.post("/api/lobby/tables", json={"playset": "catalysts", "private": True, "seat": 0}).json()
    invite = made["invite_url"].split("#token=")[1]
    assert guest.post(f"/api/matches/{made['match_id']}/players", headers={"Authorization": f"Bearer {invite}"})\
        .json() == {"linked": True}
    return made["match_id"], made["token"], invite


def _rated_match(client: TestClient, host: Device, guest: Device, rng: random.Random) -> str:
    """A rated match from a lobby table, played out (the host at seat 0): both ratings change."""
    opened = host.post("/api/lobby/tables", json={"playset": "catalysts", "seat": 0})
    assert opened.status_code == 201, opened.text
    joined = guest.post(f"/api/lobby/tables/{opened.json()['table_id']}/join")
    assert joined.status_code == 201, joined.text
    mid = opened.json()["match_id"]
    play_friend_match({0: Peer(client, mid, opened.json()["token"]), 1: Peer(client, mid, joined.json()["token"])},
                      rng)
    return str(mid)


def _ask(device: Device, inbox: Inbox, address: str, n: int) -> str:
    """``device`` asks for a sign-in link to ``address`` (the ``n``-th mailed there): the link's token."""
    asked = device.post("/api/auth/email", json={"email": address})
    assert asked.status_code == 200, asked.text
    return link_token(inbox.wait(address, n)[-1])


def _open(device: Device, token: str, **more: Any) -> Any:
    return device.post("/api/auth/verify", json={"token": token, **more})


def test_a_link_asked_on_the_laptop_and_opened_on_the_phone_signs_the_phone_in_to_the_laptops_player(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    """docs/browser.md's "Play on other devices too": asked on the laptop, opened on the phone. The phone
    becomes the laptop's player (never the other way round), and every later link, wherever it is opened,
    keeps to that player."""
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        laptop, phone, grace = _browsers(client, "Ada", None, "Grace")
        played = [_rated_match(client, laptop, grace, random.Random(s)) for s in (1, 2)]
        ada = laptop.get("/api/me").json()["player"]
        assert ada["rating"] != 1500 and ada["games"] == 2, ada
        history = laptop.get("/api/me/history").json()
        assert sorted(m["match_id"] for m in history["matches"]) == sorted(played)

        opened = _open(phone, _ask(laptop, inbox, "ada@example.org", 1))
        assert opened.status_code == 200, opened.text
        assert opened.json()["player"] == ada and opened.json()["email"] == "ada@example.org"
        for device in (laptop, phone):
            me = device.get("/api/me").json()
            assert me["player"] == ada and me["email"] == "ada@example.org", me
            assert device.get("/api/me/history").json() == history
        # a new link asked on the laptop and opened there: the laptop stays Ada
        assert _open(laptop, _ask(laptop, inbox, "ada@example.org", 2)).json()["player"] == ada
        # one asked on the phone and opened on the laptop, and one asked and opened on the phone: Ada still
        assert _open(laptop, _ask(phone, inbox, "ada@example.org", 3)).json()["player"] == ada
        assert _open(phone, _ask(phone, inbox, "ada@example.org", 4)).json()["player"] == ada
        for device in (laptop, phone):
            assert device.get("/api/me").json()["player"] == ada
        assert _count(client, players_table) == 2  # Ada and Grace: nobody new


def test_every_order_of_asking_and_opening_keeps_the_account_with_the_player_who_asked(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    """A link opened twice, in a browser that has a player of its own with matches, in a fresh browser, asked
    by a browser that is no player yet; and a player with an address asks for links to that one only."""
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        laptop, phone, tablet, grace = _browsers(client, "Ada", "Pip", None, "Grace")  # Pip: the phone's own...
        _rated_match(client, phone, grace, random.Random(3))  # ...with a match: leaving Pip loses it
        ada, pip = laptop.get("/api/me").json()["player"], phone.get("/api/me").json()["player"]
        token = _ask(laptop, inbox, "ada@example.org", 1)
        asked = _open(phone, token)  # asked first: nothing is spent, nothing changes
        assert_error(asked, 409, "would_leave")
        assert "Pip" in asked.json()["error"]["message"]
        assert phone.get("/api/me").json()["player"] == pip and laptop.get("/api/me").json()["email"] is None
        opened = _open(phone, token, leave=True)  # the page said so: the phone is Ada's now
        assert opened.status_code == 200 and opened.json()["player"] == ada, opened.text
        assert laptop.get("/api/me").json()["email"] == "ada@example.org"
        again = _open(phone, token)  # opened again where it signed in: it says so, nothing changes
        assert again.status_code == 200 and again.json()["player"] == ada
        assert_error(_open(tablet, token), 400, "bad_sign_in")  # anywhere else: spent
        assert tablet.get("/api/me").json()["player"] is None
        # a fresh browser (no player) opening a link of an address that has one: it becomes Ada's
        assert _open(tablet, _ask(laptop, inbox, "ada@example.org", 2)).json()["player"] == ada
        # a player with an address asks for links to it only (the answer says which)
        other = laptop.post("/api/auth/email", json={"email": "ada.l@example.org"})
        assert_error(other, 400, "bad_email")
        assert "ada@example.org" in other.json()["error"]["message"]
        # asked by a browser that is no player yet ("Played here before? Sign in"), opened elsewhere: a new
        # address goes to the opening browser's own player; an address with a player signs it in there
        fresh, named = _browsers(client, None, "Zed")
        assert _open(named, _ask(fresh, inbox, "zed@example.org", 1)).json()["player"]["name"] == "Zed"
        assert fresh.get("/api/me").json()["player"] is None
        assert _open(fresh, _ask(fresh, inbox, "zed@example.org", 2)).json()["player"]["name"] == "Zed"
        # a new address asked by a browser with no player and opened by one with none: a new player
        newcomer = _open(_device(client), _ask(_device(client), inbox, "new@example.org", 1)).json()
        assert newcomer["player"]["name"] is None and newcomer["email"] == "new@example.org"


def test_signing_out_everywhere_signs_every_device_out_of_its_matches_and_the_lobby(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    """After "Sign out everywhere" no device of the player holds a seat: not the one that made the match (its
    seat token), not another signed in (its key), not for a finished match's rematch, not through a lobby
    page opened before; each connection is told why and closed; every device plays again once signed in."""
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp)) as client:
        laptop, phone, grace = _browsers(client, "Ada", None, "Grace")
        done_id, done_token, _ = _friend_match(laptop, grace)  # a finished match...
        resigns = Peer(client, done_id, done_token)
        resigns.send({"type": "resign"})
        assert resigns.until(lambda m: m.get("match", {}).get("status") == "over")
        resigns.close()
        mid, seat_token, invite = _friend_match(laptop, grace)  # ...and one in progress
        _open(laptop, _ask(laptop, inbox, "ada@example.org", 1))
        _open(phone, _ask(laptop, inbox, "ada@example.org", 2))
        assert phone.get("/api/me/matches").json() == {"matches": [{"match_id": mid, "seat": 0}]}
        key = phone.post(f"/api/matches/{mid}/seat").json()["token"]
        lobby_page = laptop.post("/api/lobby/tables", json={"playset": "catalysts"})  # an open table, too
        assert lobby_page.status_code == 201
        on_laptop, on_phone, on_grace = (Peer(client, mid, t) for t in (seat_token, key, invite))
        assert on_laptop.seat == 0 and on_phone.seat == 0 and on_grace.seat == 1
        client.cookies.clear()
        with client.websocket_connect("/ws/lobby", headers={"cookie": f"{COOKIE}={laptop.cookie}"}) as queue:
            queue.send_json({"type": "hello"})
            assert queue.receive_json()["type"] == "welcome"
            assert phone.post("/api/auth/signout-everywhere").status_code == 200
            queue.send_json({"type": "queue", "clock": None})  # a lobby page opened before: no more
            refused = queue.receive_json()
            while refused["type"] == "tables":  # (the table list: the open table closed)
                assert refused["tables"] == []
                refused = queue.receive_json()
            assert refused["type"] == "error" and refused["code"] == "no_player", refused

        for peer in (on_laptop, on_phone):  # told why, then closed
            said = peer.until(lambda m: m["type"] == "error")
            assert said["code"] == "signed_out" and "Sign out everywhere" in said["message"], said
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(20):
                    peer.recv()
            assert closed.value.code == CLOSE_UNAUTHORIZED
        for token in (seat_token, key):  # no door takes the seat any more
            assert Peer(client, mid, token).welcome["code"] == "unauthorized"  # type: ignore[index]
            for method, path, body in (("GET", f"/api/matches/{mid}", None),
                                       ("POST", f"/api/matches/{mid}/actions", {"action": 0}),
                                       ("POST", f"/api/matches/{mid}/hints", {"allow": True})):
                r = client.request(method, path, headers={"Authorization": f"Bearer {token}"}, json=body)
                assert_error(r, 401, "unauthorized")
        rematch = client.post(f"/api/matches/{done_id}/rematch", headers={"Authorization": f"Bearer {done_token}"})
        assert_error(rematch, 401, "unauthorized")  # (a finished match's seat asks for its rematch: no more)
        for device in (laptop, phone):
            assert_error(device.get("/api/me/matches"), 401, "no_player")
            assert_error(device.post(f"/api/matches/{mid}/seat"), 401, "no_player")
        assert client.get("/api/lobby").json()["tables"] == []  # the open table closed
        assert on_grace.meta is not None and on_grace.meta["status"] == "active"  # Grace plays on
        # signed in again, a device gets a new key to the seat and plays on
        _open(phone, _ask(phone, inbox, "ada@example.org", 3))
        assert phone.get("/api/me/matches").json() == {"matches": [{"match_id": mid, "seat": 0}]}
        fresh = Peer(client, mid, phone.post(f"/api/matches/{mid}/seat").json()["token"])
        assert fresh.seat == 0


def test_a_page_queued_before_its_player_signed_out_on_another_process_is_never_paired(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    """The quick-match queue lives in the lobby page's process; a sign-out everywhere written by another one
    (here: straight to the database) reaches it through the database when the page is paired: the page is
    taken out of the queue and told why, no match is made, and the other player waits on."""
    with client_for(tmp_path, **_settings(smtp), queue_rate=1000.0, queue_burst=1000.0) as client, \
            contextlib.ExitStack() as pages:  # (closed first, whatever happens: the app waits for them)
        ada, grace = _browsers(client, "Ada", "Grace")
        _open(ada, _ask(ada, smtp[1], "ada@example.org", 1))
        waiting = LobbyPeer(client, ada.cookie)
        pages.callback(waiting.close)
        waiting.send({"type": "queue", "clock": None})
        assert waiting.until("queued", "error")["type"] == "queued"
        with _hub(client).storage.engine.begin() as conn:  # (another process's sign-out)
            pid = conn.execute(select(players_table.c.id).where(players_table.c.name == "Ada")).scalar_one()
            accounts_store.sign_out_everywhere(conn, pid)
        other = LobbyPeer(client, grace.cookie)
        pages.callback(other.close)
        other.send({"type": "queue", "clock": None})
        assert other.until("queued", "error")["type"] == "queued"
        assert waiting.until("unqueued", "matched")["type"] == "unqueued"
        said = waiting.until("error")
        assert said["code"] == "no_player" and "signed out" in said["message"]
        assert "matched" not in "".join(other.texts)
        assert _count(client, match_players_table) == 0
