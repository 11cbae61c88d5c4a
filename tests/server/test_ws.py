"""The WebSocket protocol: whole matches, every kind of bad message, and a scan of everything sent."""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server_support import (  # noqa: F401 (hang_guard is a fixture)
    Peer,
    auth,
    client_for,
    create,
    hang_guard,
    play_friend_match,
    scan,
)

pytest.importorskip("fastapi")

from converge import Match
from converge.server.protocol.errors import ERROR_STATUS


def test_a_whole_match_between_two_seats_with_a_spectator(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend")
        mid = doc["match_id"]
        p0 = Peer(client, mid, doc["token"])
        p1 = Peer(client, mid, doc["invite_token"])
        watcher = Peer(client, mid)
        assert (p0.seat, p1.seat, watcher.seat) == (0, 1, -1)
        assert p0.obs and p0.obs["hand"] and watcher.obs and watcher.obs["hand"] is None
        played = play_friend_match({0: p0, 1: p1}, random.Random(1), (watcher,))
        record = client.get(f"/api/matches/{mid}/record").json()
        assert len(record["actions"]) == played == p0.seq
        final = Match.replay(record)
        assert final.is_terminal and p0.meta and p0.meta["result"] == {"winner": final.winner, "reason": "match"}
        # The views kept from deltas are the full observations, as the HTTP API gives them.
        for peer, token in ((p0, doc["token"]), (p1, doc["invite_token"]), (watcher, None)):
            got = client.get(f"/api/matches/{mid}", headers=auth(token) if token else {}).json()
            assert peer.obs == got["observation"] == final.observation(peer.seat)
        for peer in (p0, p1, watcher):
            peer.close()


def test_each_seat_and_spectator_receives_only_its_own_observation(tmp_path: Path) -> None:
    """Over whole matches (friends; a bot; a reconnect half-way), every message to a seat or a spectator
    holds only that viewer's observation: no hidden card, no seed, no record."""
    with client_for(tmp_path) as client:
        checked = 0
        for seed in range(5):
            doc = create(client, opponent="friend", playset="random")
            mid = doc["match_id"]
            p0, p1, w = Peer(client, mid, doc["token"]), Peer(client, mid, doc["invite_token"]), Peer(client, mid)
            rng = random.Random(seed)
            play_friend_match({0: p0, 1: p1}, rng, (w,), stop_after=25)
            p1.close()  # drops out and comes back with its token: it gets its current view
            p1b = Peer(client, mid, doc["invite_token"])
            play_friend_match({0: p0, 1: p1b}, rng, (w,))
            record = client.get(f"/api/matches/{mid}/record").json()
            for peer, viewer in ((p0, 0), (p1, 1), (p1b, 1), (w, -1)):
                checked += scan(peer.texts, viewer, record)
                peer.close()
        # Against a bot: the bot's moves arrive as state messages too.
        doc = create(client, opponent="bot", bot="random", seat=1)
        mid = doc["match_id"]
        me, w = Peer(client, mid, doc["token"]), Peer(client, mid)
        rng = random.Random(9)
        while me.meta and me.meta["status"] == "active":
            assert me.obs is not None
            decision = me.obs["decision"]
            if decision["player"] == 1 and "legal_actions" in decision:
                ack = me.act(rng.choice(decision["legal_actions"])["id"], me.seq)
                assert ack["type"] == "ack"
            me.until(lambda m: m["type"] == "state")
        record = client.get(f"/api/matches/{mid}/record").json()
        w.until(lambda m: m["type"] == "state" and m["seq"] == len(record["actions"]))
        checked += scan(me.texts, 1, record) + scan(w.texts, -1, record)
        assert checked > 500


def bad_messages() -> list[tuple[str, str | bytes, str]]:
    return [
        ("not JSON", "{oops", "malformed"),
        ("a JSON array", "[1, 2]", "malformed"),
        ("a JSON string", '"action"', "malformed"),
        ("no type", '{"action": 3}', "malformed"),
        ("an unknown type", '{"type": "cheat"}', "malformed"),
        ("an action without action", '{"type": "action"}', "malformed"),
        ("a boolean action", '{"type": "action", "action": true}', "malformed"),
        ("an action id out of range", '{"type": "action", "action": 26}', "malformed"),
        ("a negative action id", '{"type": "action", "action": -1}', "malformed"),
        ("a float action", '{"type": "action", "action": 1.5}', "malformed"),
        ("an object action", '{"type": "action", "action": {"id": 1}}', "malformed"),
        ("a long action name", json.dumps({"type": "action", "action": "x" * 100}), "malformed"),
        ("an unprintable action name", json.dumps({"type": "action", "action": "ALC1\n"}), "malformed"),
        ("a negative seq", '{"type": "action", "action": 0, "seq": -1}', "malformed"),
        ("a string seq", '{"type": "action", "action": 0, "seq": "0"}', "malformed"),
        ("an extra field", '{"type": "action", "action": 0, "player": 1}', "malformed"),
        ("a second hello", '{"type": "hello"}', "malformed"),
        ("deeply nested JSON", "[" * 2000 + "]" * 2000, "malformed"),
        ("an oversized message", json.dumps({"type": "ping", "pad": "x" * 5000}), "too_large"),
        ("a binary frame", b'{"type": "ping"}', "malformed"),
        ("an unknown action name", '{"type": "action", "action": "ZZZ9"}', "illegal"),
        ("a card not in hand", '{"type": "action", "action": "discard"}', "illegal"),
        ("a stale seq", '{"type": "action", "action": 0, "seq": 5}', "stale"),
        ("a rematch before the end", '{"type": "rematch"}', "not_over"),
    ]


def test_every_kind_of_bad_message_gets_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=0)
        mid = doc["match_id"]
        peers = {0: Peer(client, mid, doc["token"]), 1: Peer(client, mid, doc["invite_token"])}
        watcher = Peer(client, mid)
        mover = peers[peers[0].obs["current_player"]]  # type: ignore[index]
        other = peers[1 - mover.seat]  # type: ignore[operator]
        before = {s: client.get(f"/api/matches/{mid}", headers=auth(t)).json()
                  for s, t in ((0, doc["token"]), (1, doc["invite_token"]))}
        seq = before[0]["seq"]
        for label, raw, code in bad_messages():
            if isinstance(raw, bytes):
                mover.ws.send_bytes(raw)
            else:
                mover.send(raw.replace('"seq": 5', f'"seq": {seq + 5}') if code == "stale" else raw)
            reply = mover.until(lambda m: m["type"] != "meta")
            assert reply["type"] == "error" and reply["code"] == code, (label, reply)
            assert reply["code"] in ERROR_STATUS and reply["message"], label
        # Out of turn (even with a legal-looking action), and a spectator acting.
        legal_for_mover = mover.obs["decision"]["legal_actions"]  # type: ignore[index]
        reply = other.act(legal_for_mover[0]["id"], seq)
        assert reply["code"] == "not_your_turn"
        assert "legal" not in reply["message"]  # the mover's options (their hand) are not told
        reply = watcher.act(legal_for_mover[0]["id"], seq)
        assert reply["code"] == "spectator"
        for s, t in ((0, doc["token"]), (1, doc["invite_token"])):
            assert client.get(f"/api/matches/{mid}", headers=auth(t)).json() == before[s]
        # The connection still works after all that.
        assert mover.act(legal_for_mover[0]["id"], seq)["type"] == "ack"


def test_an_illegal_action_error_names_only_the_movers_own_options(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=0)
        mid = doc["match_id"]
        peers = {0: Peer(client, mid, doc["token"]), 1: Peer(client, mid, doc["invite_token"])}
        mover = peers[peers[0].obs["current_player"]]  # type: ignore[index]
        other = peers[1 - mover.seat]  # type: ignore[operator]
        assert other.obs is not None and mover.obs is not None
        theirs = other.obs["hand"][0]  # a card of the other player's hand, hidden from the mover
        reply = mover.act(theirs, 0)
        assert reply["code"] == "illegal"
        assert not re.search(r"\b(" + "|".join(other.obs["hand"]) + r")\b", reply["message"].split("legal:")[1])
        assert set(re.findall(r"[A-Z]{3}\d", reply["message"].split("legal:")[1])) <= set(mover.obs["hand"])


def test_hello_problems_close_the_connection_with_a_reason(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend")
        mid = doc["match_id"]
        cases = [
            (mid, {"type": "ping"}, "hello_required", 4400),
            (mid, {"type": "hello", "token": "x" * 43}, "unauthorized", 4401),
            (mid, {"type": "hello", "token": 5}, "malformed", 4400),
            (mid, {"type": "hello", "token": doc["token"], "acks": "no"}, "malformed", 4400),
            ("nosuchmatch", {"type": "hello"}, "not_found", 4404),
            ("bad$id", {"type": "hello"}, "not_found", 4404),
        ]
        for match_id, hello, code, close in cases:
            peer = Peer(client, match_id, hello=False)
            peer.send(hello)
            msg = peer.recv()
            assert msg["type"] == "error" and msg["code"] == code, (hello, msg)
            end = peer.ws.receive()
            assert end["type"] == "websocket.close" and end["code"] == close
        # A token of another match holds no seat here.
        other = create(client, opponent="friend")
        peer = Peer(client, mid, other["token"])
        assert peer.welcome and peer.welcome["code"] == "unauthorized"


def test_a_seat_that_asks_for_no_separate_acks_gets_each_in_its_state_message(tmp_path: Path) -> None:
    """``"acks": false`` in the hello (the browser's): no ack message; the state message after each of the
    seat's own actions carries ``ack`` — never the other seat's or a spectator's — and play goes on."""
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend")
        mid = doc["match_id"]
        lean = Peer(client, mid, hello=False)
        lean.send({"type": "hello", "token": doc["token"], "acks": False})
        lean.welcome = lean.until(lambda m: m["type"] == "welcome")
        other, watcher = Peer(client, mid, doc["invite_token"]), Peer(client, mid)
        rng = random.Random(4)
        mine = 0
        while lean.meta is not None and lean.meta["status"] == "active" and mine < 12:
            assert lean.obs is not None and other.obs is not None
            seat = lean.obs["current_player"]
            if seat == 0:
                action = rng.choice(lean.obs["decision"]["legal_actions"])["id"]
                lean.send({"type": "action", "action": action, "seq": lean.seq})
                state = lean.until(lambda m: m["type"] in ("state", "ack", "error"))
                assert state["type"] == "state" and state["ack"] == {"seq": lean.seq, "action": action}
                mine += 1
            else:
                ack = other.act(rng.choice(other.obs["decision"]["legal_actions"])["id"], other.seq)
                assert ack["type"] == "ack"  # the other seat asked for nothing: separate acks as before
                lean.state_at(ack["seq"])
            for peer in (other, watcher):
                peer.state_at(lean.seq)
        # (the deal is the server's secret, so a match may end before its 12th action of seat 0)
        assert mine == 12 or (lean.meta is not None and lean.meta["status"] != "active" and mine >= 4)
        for peer, viewer in ((lean, 0), (other, 1), (watcher, -1)):
            sent = [json.loads(t) for t in peer.texts]
            assert not [m for m in sent if m["type"] == "ack"] or viewer == 1
            with_ack = [m for m in sent if "ack" in m and m["type"] == "state"]
            assert len(with_ack) == (mine if viewer == 0 else 0)  # (one for each of seat 0's actions)
        assert other.seq == watcher.seq == lean.seq
        public = ("round", "turn", "goals", "factions", "discard", "scores", "hand_sizes", "current_player")
        assert lean.obs and other.obs and watcher.obs
        assert [lean.obs[k] for k in public] == [other.obs[k] for k in public] == [watcher.obs[k] for k in public]


def _replies_until_closed(peer: Peer) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every message but meta updates that ``peer`` receives until the server closes it, and the close."""
    replies = []
    while True:
        msg = peer.ws.receive()
        if msg["type"] == "websocket.close":
            return replies, msg
        doc = json.loads(msg["text"])
        if doc["type"] != "meta":
            replies.append(doc)


def test_a_connection_over_its_rate_limit_gets_one_error_then_silence_then_is_closed(tmp_path: Path) -> None:
    with client_for(tmp_path, rate=0.001, burst=3.0) as client:  # max_strikes: the default, 200
        doc = create(client, opponent="friend")
        peer = Peer(client, doc["match_id"], doc["token"])
        for _ in range(3 + 200 + 1):
            peer.send({"type": "ping"})
        replies, close = _replies_until_closed(peer)
        assert [r["type"] for r in replies] == ["pong"] * 3 + ["error"]  # one reply for 201 messages over
        assert replies[3]["code"] == "rate_limited" and "without a reply" in replies[3]["message"]
        assert close["code"] == 1008 and close.get("reason") == "too many messages"
        assert client.get(f"/api/matches/{doc['match_id']}").json()["seq"] == 0


def test_a_connection_that_slows_down_is_served_again_and_told_again(tmp_path: Path) -> None:
    with client_for(tmp_path, rate=1.0, burst=2.0) as client:  # a token a second: ten pings take far less
        doc = create(client, opponent="friend")
        peer = Peer(client, doc["match_id"], doc["token"])

        def burst() -> list[str]:
            time.sleep(2.1)  # a full bucket (two tokens)
            for _ in range(10):
                peer.send({"type": "ping"})
            time.sleep(1.1)  # a token again
            peer.send({"type": "cheat"})  # let through now, so answered: the end marker
            got = []
            while not got or got[-1] != "malformed":
                msg = peer.until(lambda m: m["type"] in ("pong", "error"))
                got.append(msg.get("code", "pong"))
                if len(got) > 12:
                    break
            return got

        first = burst()
        assert first == ["pong", "pong", "rate_limited", "malformed"]
        second = burst()
        assert second == ["pong", "pong", "rate_limited", "malformed"]  # told once again for the new run


def test_seq_makes_a_resent_action_harmless(tmp_path: Path) -> None:
    """A client that resends its last action (say, after reconnecting) cannot apply it twice."""
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=0)
        mid = doc["match_id"]
        peers = {0: Peer(client, mid, doc["token"]), 1: Peer(client, mid, doc["invite_token"])}
        mover = peers[peers[0].obs["current_player"]]  # type: ignore[index]
        action = mover.obs["decision"]["legal_actions"][0]["id"]  # type: ignore[index]
        assert mover.act(action, 0)["type"] == "ack"
        mover.state_at(1)
        assert mover.act(action, 0)["code"] == "stale"
        assert len(client.get(f"/api/matches/{mid}").json()["observation"]["events"]) > 0
        assert client.get(f"/api/matches/{mid}").json()["seq"] == 1


def test_a_bot_match_over_websockets_and_a_rematch(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="bot", bot="greedy", seat=0)
        mid = doc["match_id"]
        me = Peer(client, mid, doc["token"])
        assert me.meta and me.meta["seats"][1] == {"seat": 1, "kind": "bot", "bot": "greedy", "replaced": False,
                                                   "connected": False, "name": "Greedy bot", "rating": 1869,
                                                   "provisional": False, "rating_change": None}
        rng = random.Random(4)
        while me.meta["status"] == "active":
            decision = me.obs["decision"]  # type: ignore[index]
            if decision["player"] == 0 and "legal_actions" in decision:
                assert me.act(rng.choice(decision["legal_actions"])["id"], me.seq)["type"] == "ack"
            me.until(lambda m: m["type"] == "state")
        me.send({"type": "rematch"})
        msg = me.until(lambda m: m["type"] == "rematch")
        new_id = msg["match_id"]
        winner = me.meta["result"]["winner"]
        again = Peer(client, new_id, doc["token"])  # the same token holds the same seat in the rematch
        assert again.seat == 0 and again.meta and again.meta["rematch_of"] == mid
        start = Match.replay(client.get(f"/api/matches/{mid}/record").json())
        assert again.obs and again.obs["round"] == 1 and start.winner == winner
        first_holder = next(e for e in again.obs["events"] if e["kind"] == "round_start")["player"]
        assert first_holder == 1 - winner  # M2: in a rematch the loser of the previous match starts
        me.send({"type": "rematch"})  # asking again gives the same rematch
        assert me.until(lambda m: m["type"] == "rematch")["match_id"] == new_id


def test_a_player_who_leaves_is_replaced_by_a_bot_and_can_come_back(tmp_path: Path) -> None:
    with client_for(tmp_path, replace_after=0.2, replacement_bot="random") as client:
        doc = create(client, opponent="friend", seat=0)
        mid = doc["match_id"]
        peers = {0: Peer(client, mid, doc["token"]), 1: Peer(client, mid, doc["invite_token"])}
        play_friend_match(peers, random.Random(5), stop_after=3)
        peers[1].close()
        stay = peers[0]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            stay.until(lambda m: m["type"] in ("meta", "state"))
            if stay.meta and stay.meta["seats"][1]["replaced"]:
                break
        assert stay.meta and stay.meta["seats"][1] == {"seat": 1, "kind": "human", "bot": "random",
                                                       "replaced": True, "connected": False, "name": None,
                                                       "rating": None, "provisional": False, "rating_change": None}
        # The stand-in plays player 1's decisions; player 0 plays on.
        rng = random.Random(6)
        for _ in range(12):
            decision = stay.obs["decision"]  # type: ignore[index]
            if stay.meta["status"] != "active":
                break
            if decision["player"] == 0 and "legal_actions" in decision:
                assert stay.act(rng.choice(decision["legal_actions"])["id"], stay.seq)["type"] == "ack"
            stay.until(lambda m: m["type"] == "state")
        back = Peer(client, mid, doc["invite_token"])
        assert back.meta and back.meta["seats"][1]["replaced"] is False and back.meta["seats"][1]["bot"] is None


def test_a_player_whose_clock_runs_out_loses_the_match(tmp_path: Path) -> None:
    with client_for(tmp_path, clock_min_s=1) as client:
        doc = create(client, opponent="friend", seat=0, clock=1)
        mid = doc["match_id"]
        p0, p1 = Peer(client, mid, doc["token"]), Peer(client, mid, doc["invite_token"])
        assert p0.meta and p0.meta["clock"]["initial_ms"] == 1000
        mover = p0.obs["current_player"]  # type: ignore[index]
        peer = p0 if mover == 0 else p1
        msg = peer.until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        assert msg["match"]["result"] == {"winner": 1 - mover, "reason": "time"}
        assert msg["match"]["clock"]["left_ms"][mover] == 0
        reply = peer.act(peer.obs["decision"]["legal_actions"][0]["id"])  # type: ignore[index]
        assert reply["code"] == "over"
        record = client.get(f"/api/matches/{mid}/record").json()
        assert record["actions"] == [] and record["result"] == {"winner": 1 - mover, "reason": "time"}


def test_a_clock_read_back_from_the_database_runs_out_on_time(tmp_path: Path) -> None:
    """A match dropped from memory and loaded again goes on where its clock was: the decision's time counts from
    the last move, so the player to move loses when their time is out, not a whole clock after the reload."""
    with client_for(tmp_path, clock_min_s=1) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        doc = create(client, opponent="friend", seat=0, clock=3)
        mid = doc["match_id"]
        p0, p1 = Peer(client, mid, doc["token"]), Peer(client, mid, doc["invite_token"])
        mover = p0.obs["current_player"]  # type: ignore[index]
        first = p0 if mover == 0 else p1
        assert first.act(_legal(first), first.seq)["type"] == "ack"
        to_move = client.get(f"/api/matches/{mid}").json()["observation"]["current_player"]
        client.portal.call(hub.housekeeping.evict, hub.sessions[mid])  # type: ignore[union-attr]
        time.sleep(2.0)  # (of the next player's 3 s, on no server's clock)
        reloaded = time.monotonic()
        assert client.get(f"/api/matches/{mid}").json()["match"]["status"] == "active"
        while client.get(f"/api/matches/{mid}").json()["match"]["status"] == "active":
            assert time.monotonic() - reloaded < 2.5, "the time left was counted again from the reload"
            time.sleep(0.05)
        result = client.get(f"/api/matches/{mid}/record").json()["result"]
        assert result == {"winner": 1 - to_move, "reason": "time"}


def test_the_scan_catches_a_leak(tmp_path: Path) -> None:
    """The scan above is not vacuous: a message with the opponent's card, the seed, or a view that is not
    the viewer's observation fails it."""
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend")
        mid = doc["match_id"]
        p0, p1 = Peer(client, mid, doc["token"]), Peer(client, mid, doc["invite_token"])
        seat = p0.seat
        play_friend_match({0: p0, 1: p1} if seat == 0 else {0: p1, 1: p0}, random.Random(4))
        record = client.get(f"/api/matches/{mid}/record").json()
        assert scan(p0.texts, seat, record) > 0  # type: ignore[arg-type]
        welcome = json.loads(p0.texts[0])
        their_card = Match.replay(record, upto=0).observation(1 - seat)["hand"][0]  # type: ignore[operator]
        tampered = [
            {**welcome, "match": {**welcome["match"], "note": their_card}},  # a hidden card
            {**welcome, "match": {**welcome["match"], "seed": 1}},  # the seed
            {**welcome, "observation": {**welcome["observation"], "deck_size": 99}},  # not its observation
        ]
        for bad in tampered:
            with pytest.raises(AssertionError):
                scan([json.dumps(bad), *p0.texts[1:]], seat, record)  # type: ignore[arg-type]


# ------------------------------------------------------------------ seats always get in; spectators are limited


def _refused(peer: Peer, code: str) -> None:
    hello = peer.welcome
    assert hello is not None and hello["type"] == "error" and hello["code"] == code, hello
    assert peer.ws.receive()["type"] == "websocket.close"


def _legal(peer: Peer) -> int:
    assert peer.obs is not None
    return int(peer.obs["decision"]["legal_actions"][0]["id"])


def test_spectators_over_their_limit_never_lock_a_seat_out(tmp_path: Path) -> None:
    """The issue's case, at the default limits: the player to move is away while spectators fill the match
    (and more try); the player comes back at once and plays on."""
    with client_for(tmp_path, max_spectators_per_address=1000) as client:
        limit = client.app.state.hub.config.max_spectators_per_match  # type: ignore[attr-defined]
        doc = create(client, opponent="friend", seat=0)
        mid = doc["match_id"]
        first = Peer(client, mid, doc["token"])
        assert first.obs is not None
        mover_token = doc["token"] if first.obs["current_player"] == 0 else doc["invite_token"]
        other_token = doc["invite_token"] if mover_token == doc["token"] else doc["token"]
        first.close()
        watchers = [Peer(client, mid) for _ in range(limit)]
        assert all(w.seat == -1 for w in watchers)
        for _ in range(3):
            _refused(Peer(client, mid), "busy")
        started = time.monotonic()
        mover = Peer(client, mid, mover_token)
        other = Peer(client, mid, other_token)
        assert mover.welcome is not None and mover.welcome["type"] == "welcome", mover.welcome
        assert other.welcome is not None and other.welcome["type"] == "welcome"
        assert time.monotonic() - started < 5
        ack = mover.act(_legal(mover), mover.seq)
        assert ack["type"] == "ack" and ack["seq"] == 1
        assert watchers[0].state_at(1)["events"]  # the spectators saw the move
        assert mover.meta is not None and mover.meta["spectators"] == limit


def test_a_seat_with_too_many_connections_keeps_its_newest(tmp_path: Path) -> None:
    with client_for(tmp_path, max_connections_per_seat=2, max_spectators_per_match=1) as client:
        doc = create(client, opponent="bot", bot="random", seat=0)
        mid = doc["match_id"]
        Peer(client, mid)  # the one spectator there is room for
        tabs = [Peer(client, mid, doc["token"]) for _ in range(4)]
        assert all(t.welcome is not None and t.welcome["type"] == "welcome" for t in tabs)
        for old in tabs[:2]:  # each replaced as a newer one came: told why, then closed
            msg = old.until(lambda m: m["type"] == "error")
            assert msg["code"] == "replaced" and msg["code"] in ERROR_STATUS
            assert old.ws.receive() == {"type": "websocket.close", "code": 4409,
                                        "reason": "replaced by a newer connection of this seat"}
        newest = tabs[-1]
        assert newest.obs is not None
        if newest.obs["current_player"] != 0:
            newest.until(lambda m: m["type"] == "state" and m["observation"]["current_player"] == 0)
        assert newest.act(_legal(newest), newest.seq)["type"] == "ack"


def test_spectators_are_limited_per_address_over_every_match(tmp_path: Path) -> None:
    with client_for(tmp_path, max_spectators_per_address=3) as client:
        a = create(client, opponent="friend")["match_id"]
        b = create(client, opponent="friend")["match_id"]
        mine = [Peer(client, a, address="203.0.113.5"), Peer(client, a, address="203.0.113.5"),
                Peer(client, b, address="203.0.113.5")]
        assert all(p.seat == -1 for p in mine)
        _refused(Peer(client, b, address="203.0.113.5"), "busy")
        # an IPv6 address counts by its /64: another address of the same network is the same client
        for _ in range(3):
            assert Peer(client, b, address="2001:db8:1:2::10").seat == -1
        _refused(Peer(client, a, address="2001:db8:1:2:ffff::1"), "busy")
        assert Peer(client, a, address="198.51.100.7").seat == -1  # others still get in
        mine[0].close()  # one leaves: room again for that address
        time.sleep(0.2)
        assert Peer(client, b, address="203.0.113.5").seat == -1
