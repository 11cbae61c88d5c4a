"""Hints through the server: the strong bot's options for the asking seat's decision, worked out from that
seat's view alone — the same view with other hidden cards gives the same hint — on against a bot, and in a
friend match only once both players allow them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from converge import Match
from tests.server_support import Peer, auth, client_for, create, hang_guard  # noqa: F401 (hang_guard is a fixture)

#: A search with no time limit: the same view always gives the same hint.
EXACT = {"hint_simulations": 400}


def session_of(client: Any, match_id: str) -> Any:
    return client.app.state.hub.sessions[match_id]


def my_decision(client: Any, match_id: str, token: str) -> None:
    """Wait until seat 0 decides (the bot may lead)."""
    peer = Peer(client, match_id, token)
    if peer.obs is None or peer.obs["current_player"] != 0:
        peer.until(lambda m: m["type"] == "state" and m["observation"]["current_player"] == 0)
    peer.close()


def hidden_cards(match: Match, seat: int) -> tuple[list[int], list[int]]:
    """The opponent's hand and the deck, in order: what ``seat`` cannot see."""
    return (sorted(match.zones.hands[1 - seat]), list(match.zones.deck))


def test_the_same_view_with_other_hidden_cards_gives_the_same_hint(tmp_path: Path) -> None:
    with client_for(tmp_path, **EXACT) as client:
        doc = create(client, opponent="bot", bot="greedy", seat=0, playset=["alchemist", "searcher", "healer"])
        mid, token = doc["match_id"], doc["token"]
        my_decision(client, mid, token)
        session = session_of(client, mid)
        real = session.match
        assert real.current_player == 0
        first = client.post(f"/api/matches/{mid}/hint", headers=auth(token))
        assert first.status_code == 200, first.text
        hint = first.json()
        assert sorted(o["action"] for o in hint["options"]) == real.legal_actions()
        assert all(0.0 <= o["win_chance"] <= 1.0 for o in hint["options"])
        worlds = 0
        for k in range(4):
            other = real.redacted(0, random.Random(k))  # what seat 0 sees is the same, the rest dealt again
            assert other.observation(0) == real.observation(0)
            if hidden_cards(other, 0) == hidden_cards(real, 0):
                continue
            worlds += 1
            session.match = other
            session.hints.clear()
            again = client.post(f"/api/matches/{mid}/hint", headers=auth(token)).json()
            assert again == hint, f"world {k}: a hint changed with cards seat 0 cannot see"
        assert worlds >= 3
        session.match = real


def test_a_hint_that_saw_hidden_cards_would_be_caught(tmp_path: Path, monkeypatch: Any) -> None:
    """The check above can fail: a hint function that peeks at the match (not the view) answers differently
    from one world to the next."""
    from converge.bots.hint import HintAnswer, Option
    from converge.server.play.owner import botpool

    with client_for(tmp_path, **EXACT) as client:
        doc = create(client, opponent="bot", bot="greedy", seat=0, playset=["alchemist", "searcher", "healer"])
        mid, token = doc["match_id"], doc["token"]
        my_decision(client, mid, token)
        session = session_of(client, mid)
        real = session.match

        def peeking(view: Any, *_settings: Any) -> HintAnswer:
            hand = sorted(session.match.zones.hands[1])  # what the opponent holds: hidden from seat 0
            options = [Option(a, str(a), (sum(hand) % 7) / 7, 1) for a in view.legal_actions()]
            return {"options": [o.to_dict() for o in options], "verdict": "", "calibrated": False}

        monkeypatch.setattr(botpool, "hint_answer", peeking)
        answers = set()
        for k in range(6):
            session.match = real.redacted(0, random.Random(k))
            session.hints.clear()
            answers.add(str(client.post(f"/api/matches/{mid}/hint", headers=auth(token)).json()))
        session.match = real
        assert len(answers) > 1


def test_hints_are_on_against_a_bot_and_answer_over_the_websocket(tmp_path: Path) -> None:
    with client_for(tmp_path, **EXACT) as client:
        doc = create(client, opponent="bot", bot="greedy", seat=0)
        my_decision(client, doc["match_id"], doc["token"])
        peer = Peer(client, doc["match_id"], doc["token"])
        assert peer.meta is not None and peer.meta["hints"]["on"] is True
        peer.send({"type": "hint"})
        reply = peer.until(lambda m: m["type"] in ("hint", "error"))
        assert reply["type"] == "hint" and reply["seq"] == peer.seq and reply["options"]
        labels = {a["id"]: a["label"] for a in peer.obs["decision"]["legal_actions"]}  # type: ignore[index]
        assert all(labels[o["action"]] == o["label"] for o in reply["options"])


def test_in_a_friend_match_hints_are_off_until_both_players_allow_them(tmp_path: Path) -> None:
    with client_for(tmp_path, **EXACT) as client:
        doc = create(client, opponent="friend", seat=0)
        mid = doc["match_id"]
        tokens = {0: doc["token"], 1: doc["invite_token"]}
        meta = client.get(f"/api/matches/{mid}").json()["match"]
        until_both = "hints are off in this match until both players allow them"
        assert meta["hints"] == {"on": False, "allowed": [False, False], "why_off": until_both}
        mover = client.get(f"/api/matches/{mid}", headers=auth(tokens[0])).json()["observation"]["current_player"]
        r = client.post(f"/api/matches/{mid}/hint", headers=auth(tokens[mover]))
        assert r.status_code == 403 and r.json()["error"]["code"] == "hints_off"
        r = client.post(f"/api/matches/{mid}/hints", headers=auth(tokens[0]), json={"allow": True})
        assert r.json()["match"]["hints"] == {"on": False, "allowed": [True, False], "why_off": until_both}
        assert client.post(f"/api/matches/{mid}/hint", headers=auth(tokens[mover])).status_code == 403
        peer = Peer(client, mid, tokens[1])
        peer.send({"type": "hints", "allow": True})
        meta = peer.until(lambda m: m["type"] == "meta")["match"]
        assert meta["hints"] == {"on": True, "allowed": [True, True], "why_off": None}
        assert client.post(f"/api/matches/{mid}/hint", headers=auth(tokens[mover])).status_code == 200
        # only for one's own decision, only with a seat's token, and the consent is stored
        wrong = client.post(f"/api/matches/{mid}/hint", headers=auth(tokens[1 - mover]))
        assert wrong.status_code == 409 and wrong.json()["error"]["code"] == "not_your_turn"
        assert client.post(f"/api/matches/{mid}/hint").status_code == 401
        bad = client.post(f"/api/matches/{mid}/hints", headers=auth(tokens[0]), json={"allow": "yes"})
        assert bad.status_code == 400 and "Traceback" not in bad.text
        peer.send({"type": "hints", "allow": "yes"})
        assert peer.until(lambda m: m["type"] == "error")["code"] == "malformed"
        peer.close()
    with client_for(tmp_path, **EXACT) as client:  # a restarted server remembers who allowed hints
        assert client.get(f"/api/matches/{mid}").json()["match"]["hints"]["on"] is True


def test_in_a_rated_match_hints_cannot_be_allowed_and_both_players_are_told_why(tmp_path: Path) -> None:
    """A rated table match has no hints: allowing them is refused with the reason (nothing stored), and the
    match's facts say why they are off, for the page to say so (not "until your opponent allows them")."""
    from tests.server.test_lobby import call, player

    with client_for(tmp_path, **EXACT) as client:
        ada, bob = player(client, "Ada"), player(client, "Bob")
        table = call(client, "POST", "/api/lobby/tables", ada, json={"playset": "catalysts", "seat": 0}).json()
        joined = call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", bob).json()
        mid, tokens = joined["match_id"], (table["token"], joined["token"])
        rated = "hints are off in a rated match: a hint would play for you"
        assert client.get(f"/api/matches/{mid}").json()["match"]["hints"]["why_off"] == rated
        r = client.post(f"/api/matches/{mid}/hints", headers=auth(tokens[0]), json={"allow": True})
        assert r.status_code == 403 and r.json()["error"] == {"code": "hints_off", "message": rated}
        peer = Peer(client, mid, tokens[1])
        peer.send({"type": "hints", "allow": True})
        assert peer.until(lambda m: m["type"] == "error")["message"] == rated
        meta = client.get(f"/api/matches/{mid}").json()["match"]
        assert meta["hints"] == {"on": False, "allowed": [False, False], "why_off": rated}
        mover = client.get(f"/api/matches/{mid}", headers=auth(tokens[0])).json()["observation"]["current_player"]
        r = client.post(f"/api/matches/{mid}/hint", headers=auth(tokens[mover]))
        assert r.status_code == 403 and r.json()["error"]["message"] == rated
        peer.close()
