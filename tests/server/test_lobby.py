"""The lobby (issue 16): names and the player cookie, open tables, quick match, ratings exactly once, history,
the leaderboard, rate limits and hostile input — through the HTTP API and the lobby's WebSocket."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from converge.bots import LEVELS
from converge.ratings import Rating, update_pair
from converge.server.lobby.identity import COOKIE, check_name, name_key, named
from converge.server.lobby.matchmaking import QueueSettings, QuickMatchQueue, Waiting
from converge.server.lobby.ratings import BOT_RATINGS, BOT_RD, OFFERED_BOTS, closest_bot
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import lobby_store as store
from converge.server.storage.match_store import Storage
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.storage.schema import matches_table
from tests.server_support import (  # noqa: F401 (hang_guard is a fixture)
    FAST,
    FORBIDDEN,
    Peer,
    client_for,
    from_address,
    hang_guard,
    play_friend_match,
)

# ---------------------------------------------------------------------- helpers


def player(client: TestClient, name: str | None) -> str:
    """A new player (a fresh cookie jar); returns their cookie's token."""
    client.cookies.clear()
    r = client.put("/api/me", json={"name": name})
    assert r.status_code == 200, r.text
    token = r.cookies[COOKIE]
    client.cookies.clear()
    return str(token)


def as_(token: str) -> dict[str, str]:
    return {"cookie": f"{COOKIE}={token}"}


def call(client: TestClient, method: str, path: str, token: str | None, **kw: Any) -> Any:
    client.cookies.clear()
    headers = {**(as_(token) if token else {}), **kw.pop("headers", {})}
    return client.request(method, path, headers=headers, **kw)


class LobbyPeer:
    """A lobby page's WebSocket."""

    def __init__(self, client: TestClient, token: str | None, address: str | None = None) -> None:
        client.cookies.clear()
        headers = {**(as_(token) if token else {}), **(from_address(address) if address else {})}
        self.ctx = client.websocket_connect("/ws/lobby", headers=headers)
        self.ws = self.ctx.__enter__()
        _LOBBY_OPEN.append(self)
        self.texts: list[str] = []
        self.ws.send_text(json.dumps({"type": "hello"}))
        self.welcome = self.until("welcome")

    def send(self, doc: Any) -> None:
        self.ws.send_text(doc if isinstance(doc, str) else json.dumps(doc))

    def until(self, *types: str) -> dict[str, Any]:
        for _ in range(100):
            text = self.ws.receive_text()
            self.texts.append(text)
            msg: dict[str, Any] = json.loads(text)
            if msg["type"] in types:
                return msg
        raise AssertionError(f"no {types}")

    def close(self) -> None:
        if self in _LOBBY_OPEN:
            _LOBBY_OPEN.remove(self)
            self.ctx.__exit__(None, None, None)


_LOBBY_OPEN: list[LobbyPeer] = []


@pytest.fixture(autouse=True)
def close_lobby_peers() -> Iterator[None]:
    """A test that fails with lobby connections open closes them (else the app's shutdown waits on them)."""
    yield
    for peer in list(_LOBBY_OPEN):
        peer.close()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, table_rate=1000.0, table_burst=1000.0, queue_rate=1000.0, queue_burst=1000.0,
                    players_per_hour=0, quick_match_bot_after_s=0.5, lobby_poll_s=0.2) as c:
        try:
            yield c
        finally:
            for peer in list(_LOBBY_OPEN):
                peer.close()


def db_rows(tmp_path: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(tmp_path / "matches.sqlite3")
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def scan_lobby(texts: list[str], own_tokens: set[str], tmp_path: Path) -> None:
    """No lobby message holds anything private: no seed or record, no token but the receiver's own seat
    token in the message that gives it, no player id or token hash from the database."""
    secrets_ = {r[0] for r in db_rows(tmp_path, "SELECT id FROM converge_players")}
    secrets_ |= {r[0] for r in db_rows(tmp_path, "SELECT token_hash FROM converge_players")}
    secrets_ |= {r[0] for r in db_rows(tmp_path, "SELECT host_token_hash FROM converge_lobby_tables")}
    secrets_ |= {str(r[0]) for r in db_rows(tmp_path, "SELECT seed FROM converge_matches")}
    for text in texts:
        msg = json.loads(text)
        if msg["type"] in ("matched",):
            assert msg["token"] in own_tokens
            text = text.replace(msg["token"], "")
            text = text.replace('"token"', "")
        for word in FORBIDDEN:
            assert word not in text, (word, text[:200])
        for secret in secrets_:
            assert secret not in text, text[:200]


# ---------------------------------------------------------------------- names


@pytest.mark.parametrize("name", ["Ada", "Ada Lovelace", "zoë_42", "O'Brien", "李小龍", "Grace-H", "Abbott",
                                  "Hardy", "Al Gore", "Kai", "Player One", "日本語テスト", "Мария", "Ελένη",
                                  "Thai"])
def test_good_names_are_accepted(name: str) -> None:
    assert check_name(f"  {name}  ") == name


@pytest.mark.parametrize(("name", "why"), [
    ("", "3 to 20"), ("ab", "3 to 20"), ("x" * 21, "3 to 20"), ("a" * 500, "3 to 20"),
    ("<script>", "letters, digits"), ("Ada\u0000", "letters, digits"), ("_ada", "letters, digits"),
    ("Ada\u202eX", "letters, digits"), ("a..", "two letters"),
    ("bot", "bots"), ("Bot", "bots"), ("hard", "bots"), ("HARD", "bots"), ("easy (bot)", "bots"),
    ("Easy Bot", "bots"), ("hardbot", "bots"), ("H4rd", "bots"), ("medium", "bots"), ("greedy", "bots"),
    ("expert", "bots"), ("beginner", "bots"), ("ismcts", "bots"), ("bot_7", "bots"), ("the bots", "bots"),
    ("m e d i u m", "bots"), ("robot", "bots"), ("Admin", "reserved"), ("Anonymous", "reserved"),
    ("Converge", "reserved"),
    # in capitals, where the skeleton reads a capital I as an l (issue 38)
    ("ADMIN", "reserved"), ("MEDIUM", "bots"), ("ISMCTS", "bots"), ("PLAYER I", "table's words"),
    # look-alikes: homoglyphs of another script, small capitals, fullwidth and mathematical letters
    ("h\u0430rd", "bots"), ("\u029c\u1d00\u0280\u1d05", "bots"), ("med\u0456um", "bots"), ("B\u043et", "bots"),
    ("\u0412\u041e\u0422", "bots"), ("\uff48\uff41\uff52\uff44", "bots"),
    ("\U0001d421\U0001d41a\U0001d42b\U0001d41d", "bots"),
    ("\u0430dmin", "reserved"),
    # words for a bot beside a level or alone
    ("Hard AI", "bots"), ("HardCPU", "bots"), ("Medium-AI", "bots"), ("Hard Al", "bots"), ("AI Gore", "bots"),
    ("the bot", "bots"), ("Easy Computer", "bots"),
    # what the table calls the players
    ("player 0", "table's words"), ("player 1", "table's words"), ("Player 2", "table's words"),
    ("Player O", "table's words"), ("P12", "table's words"), ("They", "table's words"), ("Them", "table's words"),
    ("You", "table's words"), ("Opponent", "table's words"), ("your opponent", "table's words"),
    ("Th\u0435y", "table's words"),
    # one script per name
    ("\u0410da Lovelace", "mixes Cyrillic and Latin letters"),
    ("\u0391laskaJazz", "mixes Greek and Latin letters"),
    ("\u13aada", "mixes Cherokee and Latin letters"),
])
def test_bad_names_are_refused_with_a_reason(name: str, why: str) -> None:
    with pytest.raises(ProtocolError) as info:
        check_name(name)
    assert info.value.code == "bad_name" and why in info.value.message, info.value.message


def test_names_are_unique_whatever_the_case_or_accents(client: TestClient) -> None:
    player(client, "Zoë")
    for clash in ("zoe", "ZOË", "Zo-e"):
        client.cookies.clear()
        r = client.put("/api/me", json={"name": clash})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    assert name_key("Zoë") == name_key("ZOE")


def test_look_alike_names_share_one_key_and_the_second_is_refused(client: TestClient, tmp_path: Path) -> None:
    """The key is the UTS #39 skeleton: a name written with another script's look-alike letters (all
    Cyrillic here: one script, so only the key can tell), small capitals or fullwidth letters is taken."""
    player(client, "Ada")
    player(client, "Ada Lovelace")
    before = db_rows(tmp_path, "SELECT * FROM converge_players")
    for clash in ("\u0410\u0501\u0430", "\u1d00\u1d05\u1d00", "\uff21\uff44\uff41", "Ad4", "ADA"):
        client.cookies.clear()
        r = client.put("/api/me", json={"name": clash})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", (clash, r.text)
        assert "looks the same" in r.json()["error"]["message"]
    client.cookies.clear()
    r = client.put("/api/me", json={"name": "\u0410da Lovelace"})  # Cyrillic А, then Latin
    assert r.status_code == 400 and "mixes Cyrillic and Latin" in r.json()["error"]["message"]
    assert db_rows(tmp_path, "SELECT * FROM converge_players") == before
    assert name_key("\u0410\u0501\u0430") == name_key("Ada") == "ada"
    assert name_key("\u029c\u1d00\u0280\u1d05") == name_key("HARD") == "hard"


def test_the_cookie_is_httponly_samesite_and_only_its_hash_is_stored(client: TestClient, tmp_path: Path) -> None:
    client.cookies.clear()
    r = client.put("/api/me", json={"name": "Ada"})
    header = r.headers["set-cookie"]
    token = r.cookies[COOKIE]
    assert len(token) >= 40
    lowered = header.lower()
    assert "httponly" in lowered and "samesite=lax" in lowered and "path=/" in lowered and "max-age=" in lowered
    assert "secure" not in lowered  # plain http here; https gets Secure
    rows = db_rows(tmp_path, "SELECT token_hash, name FROM converge_players")
    assert rows == [(hashlib.sha256(token.encode()).hexdigest(), "Ada")]
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("matches.sqlite3*"))
    assert token.encode() not in raw
    assert call(client, "GET", "/api/me", token).json()["player"]["name"] == "Ada"
    # a forged or malformed cookie is nobody
    for bad in ("x" * 43, "", "a b", token[:-1] + ("A" if token[-1] != "A" else "B")):
        assert call(client, "GET", "/api/me", bad).json()["player"] is None
    # renaming keeps the player (same cookie, no new one)
    r = call(client, "PUT", "/api/me", token, json={"name": "Ada L"})
    assert r.json()["player"]["name"] == "Ada L" and COOKIE not in r.cookies
    assert len(db_rows(tmp_path, "SELECT id FROM converge_players")) == 1
    # anonymous: a player with no name, who may take a name later
    anon = player(client, None)
    assert call(client, "GET", "/api/me", anon).json()["player"]["name"] is None


# ---------------------------------------------------------------------- ratings, exactly once


def _finish_twice(storage: Storage, match_id: str) -> None:
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def attempt() -> None:
        barrier.wait()
        try:
            with storage.engine.begin() as conn:
                # a write first, as the transaction storing a match's last action does (Storage.finish
                # itself would refuse the second attempt: the rating's own guard is what is tested here)
                conn.execute(update(matches_table).where(matches_table.c.id == match_id)
                             .values(updated_at=time.time()))
                store.record_result(conn, match_id, 0, {}, update_pair)
        except Exception as exc:  # the loser of a race may fail: what matters is one update
            errors.append(exc)

    threads = [threading.Thread(target=attempt) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)


def _rated_match(storage: Storage) -> tuple[str, str, str]:
    mid = "m" + str(random.randrange(10**9))
    with storage.engine.begin() as conn:
        Storage.create_match(conn, MatchRow(mid, "friend", ["alchemist", "mechanist", "archivist"], 1, "random",
                                            "d", 2, seats=[SeatRow(0, "h0", None), SeatRow(1, "h1", None)]))
        store.create_player(conn, mid + "a", mid + "ha")
        store.create_player(conn, mid + "b", mid + "hb")
        store.add_match_players(conn, mid, {0: mid + "a", 1: mid + "b"}, True, "quick")
    return mid, mid + "a", mid + "b"


def _check_once(storage: Storage, mid: str, a: str, b: str) -> None:
    with storage.engine.connect() as conn:
        from sqlalchemy import select

        rc = store.rating_changes_table.c
        changes = conn.execute(select(rc.player_id).where(rc.match_id == mid)).all()
    assert sorted(r[0] for r in changes) == [a, b]
    pa, pb = store.player_by_id(storage.engine, a), store.player_by_id(storage.engine, b)
    assert pa is not None and pb is not None and pa.games == 1 and pb.games == 1
    want_a, want_b = update_pair(Rating(), Rating(), 1.0)
    assert pa.rating.r == pytest.approx(want_a.r) and pb.rating.r == pytest.approx(want_b.r)


def test_a_rating_changes_once_when_two_finish_at_once_sqlite(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "r.sqlite3"))
    for _ in range(5):
        mid, a, b = _rated_match(storage)
        _finish_twice(storage, mid)
        _check_once(storage, mid, a, b)
        with storage.engine.begin() as conn:  # a third, late attempt changes nothing either
            assert store.record_result(conn, mid, 0, {}, update_pair) == 0
        _check_once(storage, mid, a, b)
    storage.close()


def test_a_rating_changes_once_when_two_processes_finish_at_once_postgresql(postgres_url: str) -> None:
    storage = Storage(postgres_url)
    for _ in range(5):
        mid, a, b = _rated_match(storage)
        _finish_twice(storage, mid)
        _check_once(storage, mid, a, b)
    storage.close()



# ---------------------------------------------------------------------- the queue


def test_the_queue_pairs_close_ratings_and_widens_with_the_wait() -> None:
    q = QuickMatchQueue(QueueSettings(base_range=100, widen_per_s=25, max_range=1000, bot_after_s=30))
    q.join(Waiting("a", 1500, None, 0.0))
    q.join(Waiting("b", 1800, None, 0.0))
    q.join(Waiting("c", 1550, 300, 0.0))  # another clock: never with a or b
    assert q.step(0.0) == ([], [])
    assert q.window(q.waiting["a"], 4.0) == 200
    assert q.step(7.9)[0] == []  # 300 apart: windows of 100 + 25 * 7.9 = 297.5
    pairs, _ = q.step(8.0)
    assert [(x.player_id, y.player_id) for x, y in pairs] == [("a", "b")]
    assert "a" not in q and "b" not in q and "c" in q
    assert q.window(q.waiting["c"], 1e6) == 1000  # capped


def test_the_queue_prefers_the_closest_rating_and_serves_the_longest_waiting_first() -> None:
    q = QuickMatchQueue(QueueSettings(base_range=200, widen_per_s=0, bot_after_s=1e9))
    q.join(Waiting("old", 1500, None, 0.0))
    q.join(Waiting("far", 1690, None, 1.0))
    q.join(Waiting("near", 1520, None, 2.0))
    pairs, _ = q.step(3.0)
    assert [(x.player_id, y.player_id) for x, y in pairs] == [("old", "near")]


def test_one_entry_per_player_a_bot_offered_once_and_nobody_paired_with_themselves() -> None:
    q = QuickMatchQueue(QueueSettings(bot_after_s=5))
    q.join(Waiting("a", 1500, None, 0.0, conn="tab1"))
    q.join(Waiting("a", 1500, None, 3.0, conn="tab2"))  # another tab: keeps the place
    assert len(q) == 1 and q.waiting["a"].since == 0.0 and q.waiting["a"].conn == "tab2"
    assert q.step(4.0) == ([], [])  # alone: never paired with itself
    _, offers = q.step(5.0)
    assert [o.player_id for o in offers] == ["a"]
    assert q.step(6.0) == ([], [])  # offered once
    assert q.leave("a", conn="tab1") is None and "a" in q  # an old tab closing does not remove it
    assert q.leave("a", conn="tab2") is not None and "a" not in q


def test_the_offered_bot_is_the_closest_rated_level() -> None:
    assert closest_bot(900) == "beginner"
    assert closest_bot(1850) == "easy"
    assert closest_bot(2500) == "hard"


def test_many_random_players_in_the_queue_are_each_paired_at_most_once() -> None:
    rng = random.Random(5)
    q = QuickMatchQueue(QueueSettings(base_range=50, widen_per_s=40, bot_after_s=10))
    paired: list[str] = []
    now = 0.0
    for _ in range(400):
        now += rng.random() * 0.2
        q.join(Waiting(f"p{rng.randrange(150)}", rng.gauss(1500, 300), rng.choice([None, 300]), now))
        pairs, _ = q.step(now)
        for a, b in pairs:
            assert a.player_id != b.player_id and a.clock_s == b.clock_s
            assert abs(a.rating - b.rating) <= min(q.window(a, now), q.window(b, now))
            paired += [a.player_id, b.player_id]
            for p in (a.player_id, b.player_id):
                assert p not in q
    assert paired


# ---------------------------------------------------------------------- tables, end to end


def test_a_table_is_listed_live_joined_played_rated_and_in_both_histories(client: TestClient,
                                                                          tmp_path: Path) -> None:
    ada, bob = player(client, "Ada"), player(client, "Bob")
    watcher = LobbyPeer(client, None)
    ada_lobby = LobbyPeer(client, ada)
    bob_lobby = LobbyPeer(client, bob)
    assert bob_lobby.welcome["tables"] == [] and bob_lobby.welcome["player"]["name"] == "Bob"
    r = call(client, "POST", "/api/lobby/tables", ada, json={"playset": "catalysts", "clock": 600, "seat": 0})
    assert r.status_code == 201, r.text
    table = r.json()
    listed = bob_lobby.until("tables")["tables"]
    assert [t["id"] for t in listed] == [table["table_id"]]
    assert listed[0]["host"] == {"name": "Ada", "rating": 1500, "provisional": True}
    assert listed[0]["clock_s"] == 600 and listed[0]["rated"] is True
    assert call(client, "GET", "/api/me", ada).json()["tables"][0]["id"] == table["table_id"]
    # the host cannot join their own table
    own = call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", ada)
    assert own.status_code == 409 and own.json()["error"]["code"] == "own_table"
    joined = call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", bob)
    assert joined.status_code == 201, joined.text
    ready = joined.json()
    started = ada_lobby.until("table_started")
    assert started["match_id"] == ready["match_id"] == table["match_id"] and started["opponent"]["name"] == "Bob"
    assert bob_lobby.until("tables")["tables"] == []
    # a second joiner is too late
    cy = player(client, "Cyd")
    late = call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", cy)
    assert late.status_code == 409 and late.json()["error"]["code"] == "table_gone"
    # play it out
    mid = ready["match_id"]
    peers = {0: Peer(client, mid, table["token"]), 1: Peer(client, mid, ready["token"])}
    assert peers[0].seat == 0 and peers[1].seat == 1
    play_friend_match(peers, random.Random(3))
    result = client.get(f"/api/matches/{mid}").json()["match"]["result"]
    winner = result["winner"]
    hist = {who: call(client, "GET", "/api/me/history", tok).json() for who, tok in (("Ada", ada), ("Bob", bob))}
    for who, other, seat in (("Ada", "Bob", 0), ("Bob", "Ada", 1)):
        [row] = hist[who]["matches"]
        assert row["opponent"] == {"kind": "human", "name": other, "display": other}
        assert row["result"] == ("won" if winner == seat else "lost") and row["rated"]
        assert row["rating_before"] == 1500 and row["replay_url"] == f"/m/{mid}" and row["event"] is None
        assert (row["rating_change"] > 0) == (winner == seat)
        assert hist[who]["player"]["games"] == 1
    board = client.get("/api/leaderboard").json()
    assert [p["name"] for p in board["players"]] == (["Ada", "Bob"] if winner == 0 else ["Bob", "Ada"])
    assert {b["name"]: b["rating"] for b in board["bots"]} == {b: round(BOT_RATINGS[b]) for b in OFFERED_BOTS} | {
        "expert": None}  # (never measured: quick match never offers it)
    assert [b["display"] for b in board["bots"]] == [f"{b.capitalize()} bot" for b in LEVELS]
    assert len(db_rows(tmp_path, "SELECT * FROM converge_rating_changes")) == 2
    for lp in (watcher, ada_lobby, bob_lobby):
        scan_lobby(lp.texts, set(), tmp_path)
        lp.close()


def test_a_private_table_is_not_listed_and_its_invite_links_the_guest(client: TestClient) -> None:
    ada, bob = player(client, "Ada"), player(client, "Bob")
    r = call(client, "POST", "/api/lobby/tables", ada, json={"private": True, "playset": "engines"})
    doc = r.json()
    assert r.status_code == 201 and doc["invite_url"] and doc["rated"] is False
    assert client.get("/api/lobby").json()["tables"] == []
    invite = doc["invite_url"].split("#token=")[1]
    linked = call(client, "POST", f"/api/matches/{doc['match_id']}/players", bob,
                  headers={**as_(bob), "Authorization": f"Bearer {invite}"})
    assert linked.json() == {"linked": True}
    again = call(client, "POST", f"/api/matches/{doc['match_id']}/players", bob,
                 headers={**as_(bob), "Authorization": f"Bearer {doc['token']}"})  # the host's seat: taken
    assert again.json() == {"linked": False}
    peers = {doc["seat"]: Peer(client, doc["match_id"], doc["token"]),
             1 - doc["seat"]: Peer(client, doc["match_id"], invite)}
    play_friend_match(peers, random.Random(4))
    [row] = call(client, "GET", "/api/me/history", bob).json()["matches"]
    assert row["opponent"]["name"] == "Ada" and row["rated"] is False and row["rating_change"] is None


def test_closing_a_table_and_its_host_leaving(client: TestClient) -> None:
    ada = player(client, "Ada")
    t = call(client, "POST", "/api/lobby/tables", ada, json={}).json()
    bob = player(client, "Bob")
    refused = call(client, "DELETE", f"/api/lobby/tables/{t['table_id']}", bob)
    assert refused.json()["error"]["code"] == "table_gone"
    assert len(client.get("/api/lobby").json()["tables"]) == 1
    assert call(client, "DELETE", f"/api/lobby/tables/{t['table_id']}", ada).status_code == 200
    assert client.get("/api/lobby").json()["tables"] == []


# ---------------------------------------------------------------------- quick match over the WebSocket


def test_quick_match_pairs_two_players_each_with_their_own_seat(client: TestClient, tmp_path: Path) -> None:
    ada, bob = player(client, "Ada"), player(client, "Bob")
    a, b = LobbyPeer(client, ada), LobbyPeer(client, bob)
    a.send({"type": "queue", "clock": None})
    assert a.until("queued", "error")["type"] == "queued"
    b.send({"type": "queue", "clock": None})
    ma, mb = a.until("matched"), b.until("matched")
    assert ma["match_id"] == mb["match_id"] and {ma["seat"], mb["seat"]} == {0, 1}
    assert ma["token"] != mb["token"] and ma["opponent"]["name"] == "Bob" and mb["opponent"]["name"] == "Ada"
    pa, pb = Peer(client, ma["match_id"], ma["token"]), Peer(client, mb["match_id"], mb["token"])
    assert pa.seat == ma["seat"] and pb.seat == mb["seat"]
    play_friend_match({ma["seat"]: pa, mb["seat"]: pb}, random.Random(8))
    for tok in (ada, bob):
        [row] = call(client, "GET", "/api/me/history", tok).json()["matches"]
        assert row["kind"] == "quick" and row["rated"] and row["rating_change"] != 0
    scan_lobby(a.texts, {ma["token"]}, tmp_path)
    scan_lobby(b.texts, {mb["token"]}, tmp_path)
    a.close()
    b.close()


def test_a_bot_is_offered_after_the_wait_and_its_match_is_rated_against_its_fixed_rating(
        client: TestClient) -> None:
    ada = player(client, "Ada")
    a = LobbyPeer(client, ada)
    a.send({"type": "accept_bot"})
    assert a.until("error")["code"] == "no_offer"
    a.send({"type": "queue", "clock": None})
    offer = a.until("bot_offer")
    assert offer["bot"] == "easy" and offer["bot_rating"] == 1869  # the closest to 1500
    a.send({"type": "accept_bot"})
    ready = a.until("matched")
    peer = Peer(client, ready["match_id"], ready["token"])
    seat = ready["seat"]
    rng = random.Random(2)
    while peer.meta is not None and peer.meta["status"] == "active":
        obs = peer.obs
        assert obs is not None
        if obs["current_player"] == seat and obs["decision"]["player"] == seat:
            ack = peer.act(rng.choice(obs["decision"]["legal_actions"])["id"], peer.seq)
            if ack["type"] == "error" and ack["code"] == "stale":  # the bot moved meanwhile: read on
                peer.until(lambda m: m["type"] == "state")
                continue
            assert ack["type"] == "ack", ack
            peer.state_at(ack["seq"])
        else:
            peer.until(lambda m: m["type"] in ("state", "meta"))
    [row] = call(client, "GET", "/api/me/history", ada).json()["matches"]
    assert row["opponent"] == {"kind": "bot", "name": "easy", "display": "Easy bot"} and row["rated"]
    won = row["result"] == "won"
    want = update_pair(Rating(), Rating(1869.0, BOT_RD), 1.0 if won else 0.0)[0]
    assert row["rating_after"] == round(want.r)
    a.close()


# ---------------------------------------------------------------------- limits and hostile input


def test_rate_limits_on_tables_queue_joins_and_new_players(tmp_path: Path) -> None:
    with client_for(tmp_path, table_rate=0.001, table_burst=2, queue_rate=0.001, queue_burst=2,
                    players_per_hour=3, open_tables_per_player=5) as c:
        ada = player(c, "Ada")
        codes = [call(c, "POST", "/api/lobby/tables", ada, json={}).status_code for _ in range(3)]
        assert codes == [201, 201, 429]
        lp = LobbyPeer(c, ada)
        for _ in range(2):
            lp.send({"type": "queue", "clock": None})
            assert lp.until("queued", "error")["type"] == "queued"
        lp.send({"type": "queue", "clock": None})
        err = lp.until("queued", "error")
        assert err["type"] == "error" and err["code"] == "rate_limited"
        lp.close()
        player(c, "Bob")
        player(c, None)
        c.cookies.clear()
        r = c.put("/api/me", json={"name": "Cyd"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    with client_for(tmp_path / "b", open_tables_per_player=2, table_rate=1000.0, table_burst=1000.0) as c:
        ada = player(c, "Ada")
        codes = [call(c, "POST", "/api/lobby/tables", ada, json={}).status_code for _ in range(3)]
        assert codes == [201, 201, 429]
        assert call(c, "POST", "/api/lobby/tables", ada, json={}).json()["error"]["code"] == "too_many_tables"


HOSTILE_HTTP = [
    ("PUT", "/api/me", {"name": "Ada", "admin": True}, "malformed"),
    ("PUT", "/api/me", {"name": ["Ada"]}, "malformed"),
    ("PUT", "/api/me", {"name": "x" * 300}, "malformed"),
    ("PUT", "/api/me", {"name": "hard"}, "bad_name"),
    ("PUT", "/api/me", {"name": "a\nb\nc"}, "bad_name"),
    ("POST", "/api/lobby/tables", {"playset": ["alchemist", "alchemist", "mechanist"]}, "malformed"),
    ("POST", "/api/lobby/tables", {"playset": ["nope", "alchemist", "mechanist"]}, "malformed"),
    ("POST", "/api/lobby/tables", {"playset": "x" * 1000}, "malformed"),
    ("POST", "/api/lobby/tables", {"clock": 1}, "malformed"),
    ("POST", "/api/lobby/tables", {"clock": "600"}, "malformed"),
    ("POST", "/api/lobby/tables", {"seat": 2}, "malformed"),
    ("POST", "/api/lobby/tables", {"private": "yes"}, "malformed"),
    ("POST", "/api/lobby/tables", {"host": "someone else"}, "malformed"),
    ("POST", "/api/lobby/tables/nope/join", None, "table_gone"),
    ("POST", "/api/lobby/tables/../../x/join", None, "not_found"),
    ("POST", "/api/lobby/tables/" + "a" * 40 + "/join", None, "table_gone"),
    ("DELETE", "/api/lobby/tables/nope", None, "table_gone"),
]


def _state(tmp_path: Path) -> list[Any]:
    return [db_rows(tmp_path, f"SELECT * FROM {t}") for t in
            ("converge_players", "converge_lobby_tables", "converge_matches", "converge_match_players")]


def test_hostile_lobby_input_gets_a_clear_error_and_changes_nothing(client: TestClient, tmp_path: Path) -> None:
    ada = player(client, "Ada")
    before = _state(tmp_path)
    for method, path, body, code in HOSTILE_HTTP:
        r = call(client, method, path, ada, **({"json": body} if body is not None else {}))
        assert r.status_code >= 400 and r.json()["error"]["code"] == code, (method, path, body, r.text)
        assert r.json()["error"]["message"]
        assert _state(tmp_path) == before, (method, path, body)
    # without a player: the lobby can be read, nothing else
    assert call(client, "POST", "/api/lobby/tables", None, json={}).json()["error"]["code"] == "no_player"
    assert call(client, "GET", "/api/me/history", None).json()["error"]["code"] == "no_player"
    assert call(client, "POST", "/api/lobby/tables", "forged" * 8, json={}).status_code == 401
    r = client.post("/api/lobby/tables", content=b"{not json",
                    headers={**as_(ada), "content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
    assert _state(tmp_path) == before
    lp = LobbyPeer(client, ada)
    for bad, code in [("not json", "malformed"), ("[]", "malformed"),
                      ('{"type": "queue", "clock": "soon"}', "malformed"),
                      ('{"type": "queue", "clock": 5}', "malformed"),
                      ('{"type": "queue", "who": "x"}', "malformed"),
                      ('{"type": "launch"}', "malformed"), ('{"type": "hello"}', "malformed"),
                      ('{"type": "accept_bot"}', "no_offer"), ("x" * 5000, "too_large")]:
        lp.send(bad)
        err = lp.until("error")
        assert err["code"] == code and err["message"], (bad, err)
    lp.send({"type": "ping"})
    assert lp.until("pong")["type"] == "pong"
    anon = LobbyPeer(client, None)
    anon.send({"type": "queue", "clock": None})
    assert anon.until("error")["code"] == "no_player"
    assert _state(tmp_path) == before
    lp.close()
    anon.close()


def test_a_version_2_database_gains_the_lobby_tables(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    Storage(str(path)).close()
    con = sqlite3.connect(path)
    for table in ("converge_players", "converge_lobby_tables", "converge_match_players",
                  "converge_rating_changes"):
        con.execute(f"DROP TABLE {table}")
    con.execute("UPDATE converge_settings SET value = '2' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    Storage(str(path)).close()
    con = sqlite3.connect(path)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"converge_players", "converge_rating_changes"} <= names
    assert con.execute("SELECT value FROM converge_settings WHERE key = 'schema_version'").fetchone()[0] == "4"
    con.close()


def test_a_table_joined_through_another_server_process_reaches_its_host(postgres_url: str) -> None:
    """Two server processes on one PostgreSQL database (two apps here): the host's lobby page, served by the
    first, learns from the database that a player of the second joined their table, and the first's lobby
    list shows the tables the second opened."""
    from tests.server_support import FromAddress

    settings = {**FAST, "lobby_poll_s": 0.1, "players_per_hour": 0}
    from converge.server.app import create_app

    with TestClient(FromAddress(create_app(db_url=postgres_url, **settings))) as one, \
            TestClient(FromAddress(create_app(db_url=postgres_url, **settings))) as two:
        ada, bob = player(one, "Ada"), player(two, "Bob")
        host = LobbyPeer(one, ada)
        t = call(one, "POST", "/api/lobby/tables", ada, json={}).json()
        carl = player(two, "Carl")
        other = call(two, "POST", "/api/lobby/tables", carl, json={}).json()
        assert {x["id"] for x in host.until("tables")["tables"]} >= {t["table_id"]}
        for _ in range(20):  # the second process's table appears in the first's list
            listed = {x["id"] for x in host.until("tables")["tables"]}
            if other["table_id"] in listed:
                break
        assert other["table_id"] in listed
        joined = call(two, "POST", f"/api/lobby/tables/{t['table_id']}/join", bob).json()
        started = host.until("table_started")
        assert started["match_id"] == joined["match_id"] == t["table_id"]
        host.close()


def test_hints_are_off_in_a_rated_match_even_against_a_bot(tmp_path: Path) -> None:
    """A hint would play a rated match for its player: hints are on against a bot only when it is unrated."""
    with client_for(tmp_path) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        unrated = client.post("/api/matches", json={"opponent": "bot", "bot": "random", "seat": 0}).json()
        assert client.get(f"/api/matches/{unrated['match_id']}").json()["match"]["hints"]["on"] is True
        doc = client.post("/api/matches", json={"opponent": "bot", "bot": "random", "seat": 0}).json()
        mid = doc["match_id"]
        with hub.storage.engine.begin() as conn:  # rated, as a quick match against the offered bot is
            store.create_player(conn, "p-rated", hashlib.sha256(b"t").hexdigest(), named("Rated"))
            store.add_match_players(conn, mid, {0: "p-rated"}, rated=True, kind="quick")
        client.portal.call(hub.housekeeping.evict, hub.sessions[mid])  # type: ignore[union-attr]  # loaded again
        view = client.get(f"/api/matches/{mid}").json()
        assert view["match"]["hints"]["on"] is False
        r = client.post(f"/api/matches/{mid}/hint", headers={"Authorization": f"Bearer {doc['token']}"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "hints_off"


def test_the_table_names_both_players_with_ratings_and_a_rated_resign_is_a_loss_that_moves_them(
        client: TestClient) -> None:
    ada, bob = player(client, "Ada"), player(client, "Bob")
    r = call(client, "POST", "/api/lobby/tables", ada, json={"playset": "catalysts", "clock": 600, "seat": 0})
    table = r.json()
    ready = call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", bob).json()
    mid = ready["match_id"]
    peers = {0: Peer(client, mid, table["token"]), 1: Peer(client, mid, ready["token"])}
    watcher = Peer(client, mid)
    for peer in (*peers.values(), watcher):
        assert peer.meta is not None and peer.meta["rated"] is True
        names = [(s["name"], s["rating"], s["provisional"], s["rating_change"]) for s in peer.meta["seats"]]
        assert names == [("Ada", 1500, True, None), ("Bob", 1500, True, None)]
    # a spectator cannot resign for anyone; Ada resigns: Bob wins, and both ratings move
    watcher.send({"type": "resign"})
    assert watcher.until(lambda m: m["type"] == "error")["code"] == "spectator"
    peers[0].send({"type": "resign"})
    end = peers[1].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
    assert end["match"]["result"] == {"winner": 1, "reason": "resign"}
    changes = [s["rating_change"] for s in end["match"]["seats"]]
    assert changes[0] is not None and changes[1] is not None and changes[0] < 0 < changes[1]
    assert [s["rating"] for s in end["match"]["seats"]] == [1500 + changes[0], 1500 + changes[1]]
    # nothing more can be done in it, a second resign included; the histories say who resigned
    peers[1].send({"type": "resign"})
    assert peers[1].until(lambda m: m["type"] == "error")["code"] == "over"
    [row] = call(client, "GET", "/api/me/history", ada).json()["matches"]
    assert row["result"] == "lost" and row["reason"] == "resign" and row["rating_change"] == changes[0]
    assert call(client, "GET", "/api/me", bob).json()["player"]["rating"] == 1500 + changes[1]
