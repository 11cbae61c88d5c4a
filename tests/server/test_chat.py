"""Chat (issue 42): at the table between the two players, among the spectators (whom the players do not read),
in the lobby; quick messages; a player's chat off by default while anonymous; mutes; the safety rules (length,
control characters, blocked words, budgets per player and per address, a ban that silences at once); a report
that carries the reported player's lines to the hosts; and nothing of the game in any line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from tests.server.test_lobby import _LOBBY_OPEN, LobbyPeer, call, player
from tests.server.test_moderation import HOST, TOKEN, admin, table_match
from tests.server_support import Peer, client_for, hang_guard  # noqa: F401 (a fixture)

SAFE = {"admin_token": TOKEN, "table_rate": 1000.0, "table_burst": 1000.0, "players_per_hour": 0,
        "chat_blocked_words": ("gronk",), "chat_per_address_minute": 6000.0}  # (every test client: one address)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, **SAFE) as c:
        try:
            yield c
        finally:  # (before the app stops: it waits for its lobby sockets)
            for peer in list(_LOBBY_OPEN):
                peer.close()


def chat(peer: Peer | LobbyPeer, doc: dict[str, Any]) -> dict[str, Any]:
    """Send a chat message; the connection's own line back, or its error (the others' lines passed over)."""
    peer.send({"type": "chat", **doc})
    while True:
        msg = next_chat(peer, ("chat", "error"))
        if msg["type"] == "error" or msg["line"]["mine"]:
            return msg


def next_chat(peer: Peer | LobbyPeer, kinds: tuple[str, ...] = ("chat",)) -> dict[str, Any]:
    for _ in range(200):
        msg: dict[str, Any] = json.loads(peer.ws.receive_text())
        if msg["type"] in kinds:
            return msg
        assert msg["type"] != "error", msg  # (an error nobody waits for: say so, rather than wait for ever)
    raise AssertionError(f"no {kinds} message")


def history(peer: Peer | LobbyPeer) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = next_chat(peer, ("chat_lines",))["lines"]
    return lines


def seated(client: TestClient, names: tuple[str | None, str | None] = ("Ada", "Grace")) -> tuple[
        str, list[str], list[Peer]]:
    """A rated match between two new players, both at the table: its id, their cookies, their connections (each
    past its chat history)."""
    cookies = [player(client, name) for name in names]
    match_id, tokens = table_match(client, cookies[0], cookies[1]) if all(names) else _friend(client, cookies)
    peers = [Peer(client, match_id, tokens[seat], cookie=cookies[seat]) for seat in (0, 1)]
    return match_id, cookies, peers


def _friend(client: TestClient, cookies: list[str]) -> tuple[str, dict[int, str]]:
    made = call(client, "POST", "/api/matches", cookies[0], json={"opponent": "friend", "playset": "catalysts"})
    assert made.status_code == 201, made.text
    doc = made.json()
    return doc["match_id"], {0: doc["token"], 1: doc["invite_url"].split("#token=", 1)[1]}


def test_a_line_at_the_table_reaches_the_other_player_and_not_the_spectators(client: TestClient) -> None:
    match_id, cookies, (ada, grace) = seated(client)
    watcher_cookie = player(client, "Watcher")
    watcher = Peer(client, match_id, cookie=watcher_cookie)
    mine = chat(ada, {"text": "  good   luck,\n have fun "})
    assert mine["room"] == "players" and mine["line"]["text"] == "good luck, have fun" and mine["line"]["mine"]
    theirs = next_chat(grace)
    assert theirs["line"] == {**mine["line"], "mine": False} and theirs["line"]["name"] == "Ada"
    said = chat(watcher, {"text": "nice opening"})
    assert said["room"] == "spectators"
    other = Peer(client, match_id, cookie=player(client, "Second watcher"))
    assert [line["text"] for line in history(other)] == ["nice opening"]  # (the spectators' room only)
    grace.send({"type": "chat", "quick": "gg"})
    assert next_chat(ada)["line"]["text"] == "Good game"
    for p in (ada, grace):  # (the players never got the spectators' line: the next chat message is Grace's)
        p.close()
    again = Peer(client, match_id, tokens_of(client, match_id, cookies[0]), cookie=cookies[0])
    assert [line["text"] for line in history(again)] == ["good luck, have fun", "Good game"]


def tokens_of(client: TestClient, match_id: str, cookie: str) -> str:
    """A key to the seat the cookie's player holds (as a second device would get one)."""
    r = call(client, "POST", f"/api/matches/{match_id}/seat", cookie)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def test_an_anonymous_players_chat_is_off_until_they_turn_it_on_and_quick_messages_always_work(
        client: TestClient) -> None:
    _match_id, cookies, (one, two) = seated(client, (None, None))
    refused = chat(one, {"text": "hello"})
    assert refused["type"] == "error" and refused["code"] == "chat_off"
    assert chat(one, {"quick": "glhf"})["line"]["text"] == "Good luck"
    assert next_chat(two)["line"]["quick"] == "glhf"
    assert call(client, "GET", "/api/me/chat", cookies[0]).json() == {"on": False, "muted": []}
    assert call(client, "PUT", "/api/me/chat", cookies[0], json={"on": True}).json()["on"] is True
    assert chat(one, {"text": "hello"})["line"]["text"] == "hello"
    two.send({"type": "chat", "quick": "thanks"})  # (two's chat is off: the typed line never reached them)
    assert next_chat(two)["line"]["text"] == "Thanks"


def test_a_muted_player_reaches_the_muter_nowhere_and_is_unmuted_by_key(client: TestClient) -> None:
    _match_id, cookies, (ada, grace) = seated(client)
    line = chat(ada, {"text": "you will lose"})["line"]
    assert next_chat(grace)["line"]["id"] == line["id"]
    settings = call(client, "POST", "/api/me/mutes", cookies[1], json={"line": line["id"]}).json()
    assert settings["muted"][0]["name"] == "Ada" and "Ada" not in settings["muted"][0]["key"]
    chat(ada, {"text": "still here"})
    chat(ada, {"quick": "wp"})
    grace.send({"type": "chat", "quick": "thanks"})
    assert next_chat(grace)["line"]["text"] == "Thanks"  # (Ada's two lines never came)
    lobby = LobbyPeer(client, cookies[1])
    ada_lobby = LobbyPeer(client, cookies[0])
    chat(ada_lobby, {"text": "anyone for a game?"})
    lobby.send({"type": "chat", "quick": "glhf"})
    assert next_chat(lobby)["line"]["name"] == "Grace"  # (not Ada's lobby line either)
    key = settings["muted"][0]["key"]
    assert call(client, "DELETE", f"/api/me/mutes/{key}", cookies[1]).json()["muted"] == []
    chat(ada, {"text": "back"})
    assert next_chat(grace)["line"]["text"] == "back"
    assert call(client, "POST", "/api/me/mutes", cookies[0], json={"line": line["id"]}).status_code == 400
    assert call(client, "POST", "/api/me/mutes", cookies[0], json={"line": 10**9}).status_code == 404
    assert call(client, "DELETE", "/api/me/mutes/nosuchkey", cookies[0]).status_code == 404


@pytest.mark.parametrize(("said", "code", "words"), [
    ({"text": ""}, "malformed", "empty"),
    ({"text": "x" * 201}, "malformed", "at most 200"),
    ({"text": "bell\x07"}, "malformed", "control"),
    ({"text": "hi", "quick": "gg"}, "malformed", "one of the two"),
    ({"quick": "lol"}, "malformed", "quick messages are"),
    ({"text": 7}, "malformed", "string"),
])
def test_a_line_that_is_not_one_is_refused_and_nothing_is_sent(client: TestClient, said: dict[str, Any],
                                                                code: str, words: str) -> None:
    match_id, _cookies, (ada, grace) = seated(client)
    refused = chat(ada, said)
    assert refused["type"] == "error" and refused["code"] == code and words in refused["message"], refused
    grace.send({"type": "chat", "quick": "gg"})
    assert next_chat(grace)["line"]["quick"] == "gg"  # (the refused line never reached Grace)
    assert admin(client, "GET", f"/matches/{match_id}/chat").json()["lines"][0]["quick"] == "gg"


def test_blocked_words_are_masked_and_links_stay_text(client: TestClient) -> None:
    _match_id, _cookies, (ada, grace) = seated(client)
    line = chat(ada, {"text": "GRONK! see https://example.org/x?y=<b>"})["line"]
    assert line["text"] == "*****! see https://example.org/x?y=<b>"
    assert next_chat(grace)["line"]["text"] == line["text"]


def test_a_flood_from_one_player_or_one_address_is_throttled_while_others_chat_and_play(
        tmp_path: Path) -> None:
    with client_for(tmp_path, **{**SAFE, "chat_per_minute": 6.0, "chat_burst": 3.0}) as client:
        match_id, _cookies, (ada, grace) = seated(client)
        answers = [chat(ada, {"text": f"spam {n}"})["type"] for n in range(6)]
        assert answers[:3] == ["chat"] * 3 and answers[3:] == ["error"] * 3
        assert chat(grace, {"text": "I can still talk"})["type"] == "chat"
        for peer in (ada, grace):  # the match's moves still flow: each player to move plays
            assert peer.obs is not None
            peer.state_at(peer.seq)
            if peer.obs["current_player"] == peer.seat:
                acted = peer.act(peer.obs["decision"]["legal_actions"][0]["id"], peer.seq)
                assert acted["type"] == "ack", acted
                break
        else:
            raise AssertionError("nobody was to move")
        lines = admin(client, "GET", f"/matches/{match_id}/chat").json()["lines"]
        assert [x["text"] for x in lines] == ["spam 0", "spam 1", "spam 2", "I can still talk"]


def test_a_flood_from_one_address_is_throttled_while_another_address_chats(tmp_path: Path) -> None:
    """Two players behind one address (each within their own budget) together pass the address's budget: its
    next lines are refused, while a spectator from another address still speaks."""
    with client_for(tmp_path, **{**SAFE, "chat_per_minute": 60.0, "chat_burst": 5.0,
                                 "chat_per_address_minute": 8.0}) as client:
        cookies = [player(client, name) for name in ("Ada", "Grace")]
        match_id, tokens = table_match(client, cookies[0], cookies[1])
        ada, grace = (Peer(client, match_id, tokens[s], cookie=cookies[s], address="203.0.113.9") for s in (0, 1))
        said = [chat(peer, {"text": f"line {n}"})["type"] for n in range(3) for peer in (ada, grace)]
        assert said == ["chat"] * 5 + ["error"]  # (the address's 5 at once: the sixth line, Grace's third)
        watcher = Peer(client, match_id, cookie=player(client, "Watcher"), address="198.51.100.4")
        assert chat(watcher, {"text": "calm here"})["type"] == "chat"


def test_a_ban_silences_at_once_and_a_report_carries_the_reported_players_lines(client: TestClient) -> None:
    match_id, cookies, (ada, grace) = seated(client)
    chat(ada, {"text": "you are terrible at this"})
    next_chat(grace)
    made = call(client, "POST", f"/api/matches/{match_id}/report", cookies[1], json={"reason": "chat"},
                headers={"Authorization": f"Bearer {tokens_of(client, match_id, cookies[1])}"})
    assert made.status_code == 201, made.text
    report = admin(client, "GET", "/reports").json()["reports"][0]
    assert report["reason"] == "chat" and [s["text"] for s in report["said"]] == ["you are terrible at this"]
    who = admin(client, "GET", "/players", params={"q": "Ada"}).json()["players"][0]["id"]
    assert admin(client, "POST", f"/players/{who}/ban", json=HOST).status_code == 200
    spectating = Peer(client, match_id, cookie=cookies[0])  # (a banned player may still watch: not speak)
    refused = chat(spectating, {"quick": "gg"})
    assert refused["type"] == "error" and refused["code"] == "banned"
    lobby = LobbyPeer(client, cookies[0])
    assert chat(lobby, {"text": "hello?"})["code"] == "banned"


def test_two_matches_a_player_cannot_tell_apart_send_the_same_chat_messages(tmp_path: Path) -> None:
    """Chat is no door to what the game hides: two matches whose hidden parts differ (other seeds: other hands,
    other deck orders, another artifact card) carry the same exchange, and Ada's chat messages are the same in
    both, but for the lines' numbers and times; none names a card."""
    received: list[list[dict[str, Any]]] = []
    for n in range(2):
        with client_for(tmp_path / str(n), **SAFE) as client:
            match_id, cookies, (ada, grace) = seated(client)
            got = [chat(ada, {"quick": "glhf"})]
            grace.send({"type": "chat", "text": "you too, have fun"})
            got.append(next_chat(ada))
            got.append(chat(ada, {"text": "thanks!"}))
            ada.close()
            grace.close()
            again = Peer(client, match_id, tokens_of(client, match_id, cookies[0]), cookie=cookies[0])
            got.append(next_chat(again, ("chat_lines",)))
            received.append(got)

    def plain(doc: Any) -> Any:
        if isinstance(doc, dict):
            return {k: plain(v) for k, v in doc.items() if k not in ("id", "at")}
        return [plain(v) for v in doc] if isinstance(doc, list) else doc

    assert plain(received[0]) == plain(received[1])
    assert not re.search(r"\b[A-Z]{3}\d\b", json.dumps(received))  # (a card's code, as the table shows it)


def test_a_line_said_on_one_process_reaches_the_other_and_a_ban_silences_on_both(postgres_url: str) -> None:
    """Two server processes on PostgreSQL: Ada at the table on one, Grace on the other; each reads the other's
    lines (the other process's are read every second); once the hosts ban Ada through one process, the other
    refuses her next line at once."""
    pytest.importorskip("psycopg")
    from tests.server.test_cluster import processes

    with processes(postgres_url, 2, **SAFE, chat_poll_s=0.2) as (one, two):
        cookies = [player(one, "Ada"), player(one, "Grace")]
        match_id, tokens = table_match(one, cookies[0], cookies[1])
        ada = Peer(one, match_id, tokens[0], cookie=cookies[0])
        grace = Peer(two, match_id, tokens[1], cookie=cookies[1])
        said = chat(ada, {"text": "hello from the first process"})
        assert next_chat(grace)["line"] == {**said["line"], "mine": False}
        said = chat(grace, {"quick": "glhf"})
        assert next_chat(ada)["line"]["quick"] == "glhf"
        who = admin(one, "GET", "/players", params={"q": "Ada"}).json()["players"][0]["id"]
        assert admin(one, "POST", f"/players/{who}/ban", json=HOST).status_code == 200
        watching = Peer(two, match_id, cookie=cookies[0])
        assert chat(watching, {"quick": "gg"})["code"] == "banned"


def test_a_players_changes_have_a_budget_of_their_own_whatever_their_address(client: TestClient) -> None:
    """Chat on and off, mutes, follows, a profile's switch: each write pays its address's budget and its
    player's, so one player cannot flood from many addresses (20 at once, then 30 a minute)."""
    from tests.server_support import from_address

    cookie = player(client, "Ada")
    answers = [call(client, "PUT", "/api/me/chat", cookie, json={"on": n % 2 == 0},
                    headers=from_address(f"198.51.100.{n}")).status_code for n in range(22)]
    assert answers[:20] == [200] * 20 and answers[20:] == [429, 429], answers
    refused = call(client, "PUT", "/api/me/profile", cookie, json={"hidden": True},
                   headers=from_address("198.51.100.99"))
    assert refused.status_code == 429 and "too many changes" in refused.json()["error"]["message"]
    other = player(client, "Grace")  # (another player on those addresses is not held up)
    assert call(client, "PUT", "/api/me/chat", other, json={"on": False},
                headers=from_address("198.51.100.1")).status_code == 200
