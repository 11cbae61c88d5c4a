"""What the server adds to an observation for the browser's table: end-of-turn and round summaries that
agree with the engine, the choices a client may hold, the rules pages, the tutorial's script, and the
clocks of a replay step by step (with the storage upgrade that keeps them)."""

from __future__ import annotations

import random
import re
import sqlite3
from pathlib import Path
from typing import Any

from converge import Match
from converge.server.learning.tutorial import STEPS, script
from converge.server.play.match.turnlog import TurnLog, follow_ups
from converge.server.storage.match_store import Storage
from converge.server.storage.migrations.schema_4 import VERSION as SCHEMA_VERSION
from converge.texts import glossary
from tests.server_support import Peer, auth, client_for, create, hang_guard, play_friend_match  # noqa: F401

# ------------------------------------------------------------------ summaries


def played(seed: int, playset: list[str], actions: int | None = None) -> Match:
    m = Match.new(playset, seed=seed)
    rng = random.Random(seed)
    while not m.is_terminal and (actions is None or len(m.history) < actions):
        m.apply(rng.choice(m.legal_actions()))
    return m


def test_each_end_of_turn_is_explained_as_it_was_scored() -> None:
    for seed, playset in ((1, ["alchemist", "mechanist", "archivist"]), (2, ["delver", "astropath", "healer"]),
                          (3, ["protector", "searcher", "merchant"])):
        m = played(seed, playset)
        log = TurnLog(m)
        scores = [e for e in m.observation(0)["events"] if e["kind"] == "score"]
        assert len(log.turns) == len(scores) > 0
        for scored, event in zip(log.turns, scores, strict=True):
            for viewer in (0, 1, -1):
                s = log.summary(scored, viewer)
                assert s["scores"] == [event["score0"], event["score1"]]
                for p in (0, 1):  # the points per goal add up to each player's score
                    assert sum(g["stars"] for g in s["goals"] if p in g["winners"]) == s["scores"][p]
                lead = s["scores"][s["lead"]]
                other = s["scores"][1 - s["lead"]]
                assert s["outcome"] == ("lead_wins" if lead > other else "artifact_passes" if other > lead
                                        else "artifact_stays")
                text = " ".join(s["lines"])
                assert ("player 0" in text.lower()) == (viewer == -1) and "None" not in text
        rounds = log.rounds()
        assert [(r.round_end[0], ("outscored", "hands_empty")[r.round_end[1]]) for r in rounds if r.round_end] == \
            [(x["winner"], x["reason"]) for x in m.observation(0)["round_results"]]
        assert rounds[-1].match_winner == m.winner


def test_a_summary_from_the_log_is_the_same_whichever_way_it_was_followed() -> None:
    """Followed action by action (as the server does) or at once (a match loaded from the database)."""
    m = Match.new(["delver", "astropath", "healer"], seed=5)
    live = TurnLog(m)
    rng = random.Random(5)
    while not m.is_terminal:
        m.apply(rng.choice(m.legal_actions()))
        live.follow(m)
    once = TurnLog(m)
    assert [live.summary(s, 0) for s in live.turns] == [once.summary(s, 0) for s in once.turns]


def test_a_round_summary_keeps_the_final_board_the_next_deal_replaces() -> None:
    m = played(7, ["alchemist", "mechanist", "archivist"])
    before_end = Match.new(["alchemist", "mechanist", "archivist"], seed=7)
    log = TurnLog(m)
    first = log.rounds()[0]
    for action in m.history:  # replay to the last decision of round 1
        probe = before_end.clone()
        probe.apply(action)
        if probe.round_no > 1:
            break
        before_end.apply(action)
    board = log.summary(first, 0)["board"]
    # every card on the final board was in the goal area or a faction just before the last move, or was
    # the move itself
    ids = {c for c in board["goals"]} | {c["id"] for f in board["factions"] for c in f}
    obs = before_end.observation(0)
    known = set(obs["goals"]) | {c["id"] for f in obs["factions"] for c in f} | set(obs["hand"] or [])
    assert len(ids - known) <= 2


# ------------------------------------------------------------------ choices a client may hold


def test_a_card_is_held_until_its_mode_and_a_placed_card_until_its_faction() -> None:
    seen = set()
    for seed in range(12):
        m = Match.new(["delver", "alchemist", "healer"], seed=seed)
        rng = random.Random(seed)
        while not m.is_terminal:
            seat = m.current_player
            staged = follow_ups(m, seat)
            if m.decision_kind == "select":
                assert set(staged) == {str(a) for a in m.legal_actions()}
                assert all(f["kind"] == "mode" and [c["id"] for c in f["choices"]] == [18, 19, 20, 21]
                           for f in staged.values())
            for key, f in staged.items():
                seen.add((m.decision_kind, f["kind"]))
                after = m.clone()
                after.apply(int(key))
                assert after.current_player == seat and len(after.events) == len(m.events)
                assert [c["id"] for c in f["choices"]] == after.legal_actions()
            assert follow_ups(m, 1 - seat) == {}  # nothing for the player who is not deciding
            m.apply(rng.choice(m.legal_actions()))
    assert {("select", "mode"), ("target", "faction"), ("target", "skillset")} <= seen


def test_nothing_hidden_is_held_after_an_action_that_shows_a_card() -> None:
    """Assemble shows the top card of the deck before its faction is chosen: that mode is never held."""
    for seed in range(6):
        m = Match.new(["mechanist", "searcher", "astropath"], seed=seed)
        rng = random.Random(seed)
        while not m.is_terminal:
            for key in follow_ups(m, m.current_player):
                after = m.clone()
                after.apply(int(key))
                assert "revealed" not in (after.observation(m.current_player)["decision"] or {})
            m.apply(rng.choice(m.legal_actions()))


# ------------------------------------------------------------------ rules pages


def test_the_rules_page_is_for_players_and_links_the_developer_rulebook(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        page = client.get("/rules")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        html = page.text
        assert "<script" not in html and "style=" not in html and "<style" not in html
        assert "How to play Converge" in html and "An example" in html  # the rulebook's scoring example
        assert not re.search(r"\b[MTICP]\d{1,2}\b", html), "a ruling code on the players' page"
        assert "test_" not in html and "tests/" not in html
        for keyword, _text in glossary():
            assert f'id="glossary-{keyword.lower()}"' in html
        assert 'href="/rules/developer"' in html
        dev = client.get("/rules/developer")
        assert dev.status_code == 200 and "M1" in dev.text and "<script" not in dev.text
        assert client.head("/rules").status_code == 200
        assert client.get("/favicon.ico").headers["content-type"].startswith("image/svg")


# ------------------------------------------------------------------ the tutorial


def test_the_tutorial_script_plays_a_card_three_ways_and_wins_a_round(tmp_path: Path) -> None:
    doc = script()
    steps = doc["steps"]
    mine = [s for s, step in zip(steps, STEPS, strict=True) if step.action and step.player == 0]
    modes = {s["expect"] for s in mine}
    assert {18, 19, 20} <= modes  # discard, declare, add to a faction
    turns = [t for s in steps if s["state"] for t in s["state"]["turns"]]
    assert [t["outcome"] for t in turns] == ["artifact_passes", "artifact_passes", "lead_wins"]
    assert turns[-1]["round_end"] == {"winner": 0, "reason": "outscored", "round": 1}
    # every instruction names in quotes what to press, as the page labels it
    previous: dict[str, Any] = doc["start"]
    for entry, step in zip(steps, STEPS, strict=True):
        names = re.findall(r"“([^”]+)”", entry["text"])
        if step.action is None:
            assert names in (["Next"], ["Finish"]), entry["text"]
        elif step.player == 0:
            decision = previous["observation"]["decision"]
            labels = [a["label"] for a in decision["legal_actions"]]
            held = [c["label"] for f in previous["next"].values() for c in f["choices"]]
            assert len(names) == 1 and any(names[0] in label for label in labels + held), (names, labels)
        else:
            assert names == []
        if entry["state"]:
            previous = entry["state"]
    with client_for(tmp_path) as client:
        assert client.get("/api/tutorial").json()["steps"][1]["expect"] == steps[1]["expect"]
        assert client.get("/tutorial").status_code == 200


# ------------------------------------------------------------------ replays: the clocks of each step


def test_a_replay_shows_the_clocks_as_they_were_at_each_step(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=0, clock=300)
        mid = doc["match_id"]
        peers = {0: Peer(client, mid, doc["token"]), 1: Peer(client, mid, doc["invite_token"])}
        play_friend_match(peers, random.Random(3))
        record = client.get(f"/api/matches/{mid}/record").json()
        total = len(record["actions"])
        lefts = []
        for step in (0, total // 3, 2 * total // 3, total):
            clock = client.get(f"/api/matches/{mid}/replay?step={step}").json()["clock"]
            assert clock["initial_ms"] == 300_000
            lefts.append(clock["left_ms"])
        assert lefts[0] == [300_000, 300_000]
        for seat in (0, 1):  # time only runs down
            assert [x[seat] for x in lefts] == sorted((x[seat] for x in lefts), reverse=True)
        final = client.get(f"/api/matches/{mid}", headers=auth(doc["token"])).json()["match"]["clock"]["left_ms"]
        assert lefts[-1] == final
        for p in peers.values():
            p.close()


def test_a_database_of_the_first_schema_is_upgraded_in_place(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    with client_for(tmp_path) as client:
        doc = create(client, opponent="bot", bot="greedy", seat=0)
    (tmp_path / "matches.sqlite3").rename(db)
    con = sqlite3.connect(db)  # back to version 1: without the columns version 2 added
    con.execute("ALTER TABLE converge_actions DROP COLUMN clock_left_ms")
    con.execute("ALTER TABLE converge_matches DROP COLUMN hints")
    con.execute("UPDATE converge_settings SET value = '1' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    storage = Storage(f"sqlite:///{db}")
    row = storage.load(doc["match_id"])
    assert row is not None and row.hints == 0
    assert all(clock is None for _seat, clock in row.action_clocks)
    storage.close()
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM converge_settings WHERE key = 'schema_version'").fetchone()[0] == \
        SCHEMA_VERSION
    con.close()
