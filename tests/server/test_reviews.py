"""Reviews through the server: a finished match's review of a seat's decisions, asked by that seat, made once
by the bot workers and stored with the match (a restarted server reads it back); refused while the match is
in progress; public once made, as the record is."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from converge import Match
from converge.bots.review import MARKS
from tests.server_support import Peer, auth, client_for, create, hang_guard, play_friend_match  # noqa: F401

FAST_REVIEW = {"review_simulations": 60, "review_seconds": 60.0}


def _friend_match(client: Any) -> tuple[str, dict[int, str], dict[int, Peer]]:
    doc = create(client, opponent="friend", seat=0, playset=["alchemist", "mechanist", "archivist"])
    mid = doc["match_id"]
    tokens = {0: doc["token"], 1: doc["invite_token"]}
    return mid, tokens, {s: Peer(client, mid, t) for s, t in tokens.items()}


def _until_done(client: Any, mid: str, token: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got = client.get(f"/api/matches/{mid}/review", headers=auth(token))
        assert got.status_code == 200, got.text
        if got.json()["status"] not in ("running",):
            return dict(got.json())
        time.sleep(0.05)
    raise AssertionError("the review did not finish in 60 s")


def test_a_finished_match_is_reviewed_once_for_the_asking_seat_and_kept(tmp_path: Path) -> None:
    with client_for(tmp_path, **FAST_REVIEW) as client:
        mid, tokens, peers = _friend_match(client)
        play_friend_match(peers, random.Random(4), stop_after=5)
        refused = client.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "not_over"
        play_friend_match(peers, random.Random(5))
        before = client.get(f"/api/matches/{mid}/review", headers=auth(tokens[1]))
        assert before.json()["status"] == "none"
        assert client.post(f"/api/matches/{mid}/review").status_code == 401  # a spectator cannot ask
        started = client.post(f"/api/matches/{mid}/review", headers=auth(tokens[1]))
        assert started.status_code == 200, started.text
        assert started.json()["status"] in ("running", "done") and started.json()["seat"] == 1
        got = _until_done(client, mid, tokens[1])
        assert got["status"] == "done"
        review = got["review"]
        record = client.get(f"/api/matches/{mid}/record").json()
        replayed = Match.replay(record, upto=0)
        mine = []  # seat 1's decisions with a choice, by their index in the record
        for i, action in enumerate(record["actions"]):
            if replayed.current_player == 1 and len(replayed.legal_actions()) > 1:
                mine.append(i)
            replayed.apply(action)
        assert review["seat"] == 1 and review["complete"] and review["simulations"] == 60
        assert [d["index"] for d in review["decisions"]] == mine
        for d in review["decisions"]:
            assert d["played"]["action"] == record["actions"][d["index"]]
            assert d["best"] == d["choices"][0]
            lost = max(0.0, d["best"]["chance"] - d["played"]["chance"])
            assert abs(d["lost"] - lost) < 0.0011  # (each rounded)
        assert review["counts"] == {m: sum(d["mark"] == m for d in review["decisions"]) for m in MARKS}
        assert set(review["thresholds"]) == set(MARKS)
        # asked again: the stored one, not made again; public once made
        again = client.post(f"/api/matches/{mid}/review", headers=auth(tokens[1])).json()
        assert again == got
        assert client.get(f"/api/matches/{mid}/review?seat=1").json() == got
        assert client.get(f"/api/matches/{mid}/review?seat=0").json()["status"] == "none"
        assert client.get(f"/api/matches/{mid}/review?seat=2").status_code == 400
        assert client.get(f"/api/matches/{mid}/review").status_code == 401  # whose? a spectator must say
    with client_for(tmp_path, **FAST_REVIEW) as client:  # a restarted server reads it back
        assert client.get(f"/api/matches/{mid}/review?seat=1").json() == got
        # and the other seat's review is made there, then the match goes on being replayable
        assert client.post(f"/api/matches/{mid}/review", headers=auth(tokens[0])).status_code == 200
        other = _until_done(client, mid, tokens[0])
        assert other["status"] == "done" and other["review"]["seat"] == 0
        assert client.get(f"/api/matches/{mid}/replay?step=1&view=0").status_code == 200


def test_a_review_that_fails_says_so_and_can_be_asked_again(tmp_path: Path, monkeypatch: Any) -> None:
    from converge.server.play.owner import botpool

    with client_for(tmp_path, **FAST_REVIEW) as client:
        mid, tokens, peers = _friend_match(client)
        play_friend_match(peers, random.Random(6))
        real = botpool.review_match

        def broken(*_args: Any) -> Any:
            raise RuntimeError("worker died")

        monkeypatch.setattr(botpool, "review_match", broken)
        client.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
        assert _until_done(client, mid, tokens[0])["status"] == "failed"
        monkeypatch.setattr(botpool, "review_match", real)
        client.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
        assert _until_done(client, mid, tokens[0])["status"] == "done"


def test_a_review_stored_in_an_older_format_is_made_again_when_asked(tmp_path: Path) -> None:
    """Reviews stored before turns were counted in each round (and before the whole points shown) are made
    again when asked, and replace the stored one: nobody reads "Round 2, turn 4" from an old review."""
    from converge.bots.review import VERSION
    from converge.server.storage.schema import reviews_table

    with client_for(tmp_path, **FAST_REVIEW) as client:
        mid, tokens, peers = _friend_match(client)
        play_friend_match(peers, random.Random(7))
        client.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
        made = _until_done(client, mid, tokens[0])["review"]
        assert made["version"] == VERSION and all("lost_points" in d for d in made["decisions"])
        old = json.dumps({k: v for k, v in made.items() if k != "version"})  # as an older server stored it
        with client.app.state.hub.storage.engine.begin() as conn:  # type: ignore[attr-defined]
            conn.execute(reviews_table.update().where(reviews_table.c.match_id == mid).values(doc=old))
        assert client.get(f"/api/matches/{mid}/review?seat=0").json()["status"] == "none"
        client.post(f"/api/matches/{mid}/review", headers=auth(tokens[0]))
        again = _until_done(client, mid, tokens[0])
        assert again["status"] == "done" and again["review"]["version"] == VERSION
        with client.app.state.hub.storage.engine.begin() as conn:  # type: ignore[attr-defined]
            stored = conn.execute(reviews_table.select().where(reviews_table.c.match_id == mid)).all()
        assert len(stored) == 1 and json.loads(stored[0].doc)["version"] == VERSION
