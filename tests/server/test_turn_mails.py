""""Your turn" mails of turn-based matches, through a real SMTP server on loopback: a match between two
signed-in players played over a simulated week, each turn's mail arriving once with a working link; none
for a player who moved first or did not ask; a digest when several matches wait; the unsubscribe link works
without signing in; no card in any mail. With two server processes on one PostgreSQL, each mail is sent
once, one process dying holding some."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi.testclient import TestClient

from tests.mail_support import Inbox, smtp_fixture  # noqa: F401 (a fixture)
from tests.server.test_accounts import PUBLIC, Device, _device, _settings, _sign_in
from tests.server.test_limits import assert_error
from tests.server_support import Peer, client_for, hang_guard  # noqa: F401

DAY = 86400.0
#: A card's code as the table shows it (ALC3, PRO5...): never in a mail.
CARD_CODE = re.compile(r"\b[A-Z]{3}\d\b")
MAIL = {"turn_mail_delay_s": 0.0, "turn_mail_every_s": 0.0,  # (the tests send the queue themselves)
        "vacation_days": 0.0}


def _hub(client: TestClient) -> Any:
    return client.app.state.hub  # type: ignore[attr-defined]


def _send(client: TestClient) -> int:
    accounts = client.app.state.accounts  # type: ignore[attr-defined]
    sent: int = client.portal.call(accounts.turn_mails.send_due)  # type: ignore[union-attr]
    return sent


def _players(client: TestClient, inbox: Inbox, mails: tuple[bool, bool] = (True, True)) -> list[Device]:
    devices = []
    for (name, address), on in zip((("Ada", "ada@example.org"), ("Grace", "grace@example.org")), mails,
                                   strict=True):
        d = _device(client)
        assert d.put("/api/me", json={"name": name}).status_code == 200
        _sign_in(d, inbox, address)
        if on:
            assert d.put("/api/me/mails", json={"turn_mails": True}).json()["turn_mails"] is True
        devices.append(d)
    return devices


def _turn_based(host: Device, guest: Device, hours: int = 72) -> tuple[str, dict[int, str]]:
    opened = host.post("/api/lobby/tables", json={"playset": "catalysts", "seat": 0, "rated": False,
                                                  "move_hours": hours}).json()
    joined = guest.post(f"/api/lobby/tables/{opened['table_id']}/join").json()
    return joined["match_id"], {0: opened["token"], 1: joined["token"]}


def _to_move(client: TestClient, mid: str) -> int:
    return int(client.get(f"/api/matches/{mid}").json()["observation"]["current_player"])


def _play_turn(client: TestClient, mid: str, tokens: dict[int, str]) -> int:
    """The player to move plays until the turn passes to the other; returns who moved."""
    seat = _to_move(client, mid)
    bearer = {"Authorization": f"Bearer {tokens[seat]}"}
    while True:
        view = client.get(f"/api/matches/{mid}", headers=bearer).json()
        if view["observation"]["current_player"] != seat or view["match"]["status"] != "active":
            return seat
        action = view["observation"]["decision"]["legal_actions"][0]["id"]
        moved = client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=bearer)
        assert moved.status_code == 200, moved.text


ADDRESS = {0: "ada@example.org", 1: "grace@example.org"}


def test_turn_mails_over_a_simulated_week_come_once_a_turn_with_a_working_link(tmp_path: Path,
                                                                             smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp, **MAIL)) as client:
        ada, grace = _players(client, inbox)
        mid, tokens = _turn_based(ada, grace)
        signed = len(inbox.mails)
        assert _send(client) == 1 and _send(client) == 0  # the first mover is told, once
        first = _to_move(client, mid)
        mail = inbox.mails[-1]
        assert mail["To"] == ADDRESS[first] and len(inbox.mails) == signed + 1
        body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert mail["Subject"] == f"Your turn against {['Ada', 'Grace'][1 - first]} — Converge"
        talker = Peer(client, mid, tokens[first], cookie=(ada if first == 0 else grace).cookie)
        talker.send({"type": "chat", "text": "my secret plan: hold the artifact"})  # (never in a mail)
        talker.until(lambda m: m["type"] == "chat")
        talker.close()
        assert f"{PUBLIC}/m/{mid}" in body and "left to move" in body and not CARD_CODE.search(body)
        wall = _hub(client).wall
        for day in range(5):  # a turn a day: each passing of the turn is one mail, to the player now to move
            wall.advance(DAY)
            mover = _play_turn(client, mid, tokens)
            before = len(inbox.mails)
            assert _send(client) == 1, day
            got = inbox.mails[before:]
            assert [m["To"] for m in got] == [ADDRESS[1 - mover]]
            text = got[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
            assert not CARD_CODE.search(text) and "2 days 23 hours left to move" in text
            assert "secret plan" not in text  # (the mails never quote the chat)
            assert _send(client) == 0
            # the link works: the page of the match, and the seat on this player's device
            link = re.search(rf"{re.escape(PUBLIC)}(/m/{mid})", text)
            assert link and client.get(link.group(1)).status_code == 200
        # a player who moves before the mail goes gets none
        first_mover = _play_turn(client, mid, tokens)
        _play_turn(client, mid, tokens)
        before = len(inbox.mails)
        assert _send(client) == 1 and [m["To"] for m in inbox.mails[before:]] == [ADDRESS[first_mover]]
        # the unsubscribe link at the end of a mail: no sign-in needed; a forged one is refused
        text = inbox.mails[-1].get_body(("plain",)).get_content()  # type: ignore[union-attr]
        stop = re.search(rf"{re.escape(PUBLIC)}/unsubscribe#(\S+)", text)
        assert stop
        args = {k: v[0] for k, v in parse_qs(stop.group(1)).items()}
        stranger = _device(client)
        forged = stranger.post("/api/unsubscribe", json={"player": args["p"], "token": "0" * 40})
        assert_error(forged, 400, "bad_sign_in")
        done = stranger.post("/api/unsubscribe", json={"player": args["p"], "token": args["t"]})
        assert done.status_code == 200, done.text
        waiting = first_mover  # (the mail was theirs)
        assert (ada if waiting == 0 else grace).get("/api/me").json()["turn_mails"] is False
        _play_turn(client, mid, tokens)  # their move: the other player, still asking, is told
        before = len(inbox.mails)
        assert _send(client) == 1 and [m["To"] for m in inbox.mails[before:]] == [ADDRESS[1 - waiting]]
        _play_turn(client, mid, tokens)  # back to the one who stopped the mails: nothing
        before = len(inbox.mails)
        assert _send(client) == 0 and len(inbox.mails) == before
        # running out of time loses the match, and no more mails come for it
        wall.advance(4 * DAY)
        assert client.portal.call(_hub(client).turns.sweep) == 1  # type: ignore[union-attr]
        assert client.get(f"/api/matches/{mid}").json()["match"]["result"]["reason"] == "time"
        before = len(inbox.mails)
        assert _send(client) == 0 and len(inbox.mails) == before


def test_several_matches_waiting_make_one_digest_and_a_player_who_did_not_ask_gets_none(
        tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp, **MAIL)) as client:
        ada, grace = _players(client, inbox, mails=(True, False))
        matches = [_turn_based(ada, grace) for _ in range(3)]
        for mid, tokens in matches:  # each comes to Ada's turn
            if _to_move(client, mid) == 0:
                _play_turn(client, mid, tokens)
                _play_turn(client, mid, tokens)
            else:
                _play_turn(client, mid, tokens)
            assert _to_move(client, mid) == 0
        before = len(inbox.mails)
        assert _send(client) == 1
        got = inbox.mails[before:]
        assert [m["To"] for m in got] == ["ada@example.org"]
        assert got[0]["Subject"] == "Your turn in 3 matches — Converge"
        body = got[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
        assert all(f"{PUBLIC}/m/{mid}" in body for mid, _ in matches) and not CARD_CODE.search(body)
        assert all(m["To"] != "grace@example.org" for m in inbox.mails[before:])


def test_turn_mails_need_an_address(tmp_path: Path, smtp: tuple[str, Inbox]) -> None:
    with client_for(tmp_path, **_settings(smtp, **MAIL)) as client:
        assert client.put("/api/me", json={"name": "Ada"}).status_code == 200
        assert_error(client.put("/api/me/mails", json={"turn_mails": True}), 401, "no_player")
        assert client.get("/api/me").json()["turn_mails"] is False


def test_with_two_processes_each_turn_mail_is_sent_once_one_dying_with_some_taken(
        postgres_url: str, smtp: tuple[str, Inbox]) -> None:
    from converge.server.accounts.turn_mail import LEASE_S
    from converge.server.storage import outbox_store as outbox
    from tests.server.test_cluster import processes

    inbox = smtp[1]
    with processes(postgres_url, 2, **_settings(smtp, **MAIL)) as (a, b):
        ada, grace = _players(a, inbox)
        matches = [_turn_based(ada, grace) for _ in range(6)]
        due = {(mid, 0) for mid, _ in matches}
        signed = len(inbox.mails)
        # process a takes two mails and dies before sending them (its lease is never given back)
        now = _hub(a).wall()
        dead = sorted(due)[:2]
        for mid, idx in dead:
            a.portal.call(_hub(a).writer.write, lambda conn, m=mid, i=idx: outbox.take(conn, m, i, now, LEASE_S))
        sent = _send(b) + _send(a)  # both look at the queue: the others go, once
        assert len(inbox.mails) - signed == sent
        _hub(b).wall.advance(LEASE_S + 1)
        sent += _send(b)
        assert _send(b) == 0 and _send(a) == 0
        got = inbox.mails[signed:]
        listed = [mid for m in got for mid, _ in matches if f"/m/{mid}" in m.get_body(("plain",)).get_content()]
        assert sorted(listed) == sorted(mid for mid, _ in matches)  # every match's first turn told, once
        assert sent == len(got)


def test_a_turn_mail_the_smtp_server_refuses_is_tried_again_then_given_up(tmp_path: Path,
                                                                         smtp: tuple[str, Inbox]) -> None:
    from sqlalchemy import select

    from converge.server.accounts.mailer import Mail, MailError
    from converge.server.accounts.turn_mail import RETRY_S
    from converge.server.storage.schema import outbox_table

    class Refusing:
        def __init__(self) -> None:
            self.tries = 0

        async def send(self, mail: Mail) -> None:
            self.tries += 1
            raise MailError("550 no")

    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp, **MAIL)) as client:
        ada, grace = _players(client, inbox)
        mid, _tokens = _turn_based(ada, grace)
        accounts = client.app.state.accounts  # type: ignore[attr-defined]
        refusing = Refusing()
        accounts.turn_mails.mailer = refusing
        wall = _hub(client).wall

        def row() -> Any:
            with _hub(client).storage.engine.connect() as conn:
                return conn.execute(select(outbox_table).where(outbox_table.c.match_id == mid)).mappings().one()

        for n, wait in enumerate(RETRY_S, 1):
            assert _send(client) == 0 and refusing.tries == n
            assert row()["attempts"] == n and row()["done_at"] is None
            assert _send(client) == 0 and refusing.tries == n  # not before its wait
            wall.advance(wait + 1)
        assert _send(client) == 0 and refusing.tries == len(RETRY_S) + 1
        assert row()["outcome"] == "failed"
        wall.advance(4000)
        assert _send(client) == 0 and refusing.tries == len(RETRY_S) + 1  # given up


def test_a_turn_based_events_next_match_is_mailed_to_both_players_once(tmp_path: Path,
                                                                       smtp: tuple[str, Inbox]) -> None:
    """A turn-based Swiss: once its round is paired, the player who moves first is mailed that their match is
    ready and it is their turn, the other that it is ready and who moves first; each once, with a working
    link, naming the event and its round and no card."""
    import time

    inbox = smtp[1]
    with client_for(tmp_path, **_settings(smtp, **MAIL, tournament_tick_s=0.05)) as client:
        ada, grace = _players(client, inbox)
        tid = ada.post("/api/tournaments", json={"name": "Club Swiss", "format": "swiss", "rounds": 1,
                                                 "move_hours": 24, "rated": False, "playset": "catalysts",
                                                 "max_players": 4}).json()["id"]
        for player in (ada, grace):
            assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
        before = len(inbox.mails)
        assert ada.post(f"/api/tournaments/{tid}/start").status_code == 200
        game = ada.get(f"/api/tournaments/{tid}").json()["pairings"][0]["games"][0]
        mid, first = game["match_id"], ["Ada", "Grace"][game["first"] - 1]
        end = time.monotonic() + 10
        while _send(client) == 0:  # (the match is made just after its round is paired)
            assert time.monotonic() < end
        sent = inbox.mails[before:]
        assert _send(client) == 0 and len(inbox.mails) == before + 2
        by_name = {"ada@example.org": "Ada", "grace@example.org": "Grace"}
        for mail in sent:
            me = by_name[mail["To"]]
            other = "Grace" if me == "Ada" else "Ada"
            body = mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]
            assert f"{PUBLIC}/m/{mid}" in body and not CARD_CODE.search(body)
            if me == first:
                assert mail["Subject"] == "Your match in round 1 of Club Swiss is ready: your turn — Converge"
                assert f"against {other} is ready: it is your turn, 23 hours" in body
            else:
                assert mail["Subject"] == "Your match in round 1 of Club Swiss is ready — Converge"
                assert f"against {other} is ready: {other} moves first" in body
        assert client.get(f"/m/{mid}").status_code == 200
