"""A player's archive (issue 46): ``GET /api/me/export`` ("Download my data") and the hosts' ``POST
/api/admin/players/{player}/export`` (``converge admin export``). On a server where three players have played
(a match finished, matches in progress), chatted, reported, followed and muted, challenged, hosted and played an
event, done puzzles, signed in and been renamed by a host, Ada's archive holds every row of every table that
names her — found from the database itself, whatever the table, so that a table added later without export
support fails here — and nothing of Bob's or Cyd's: no address, no id, no key, no hidden card or seed of a
match in progress."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_lobby import call, player
from tests.server_support import Peer, auth, client_for, hang_guard, play_friend_match  # noqa: F401

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sqlalchemy import Column, Engine, Float, Integer, MetaData, String, Table, insert, select, update

from converge.server.storage import export_store
from converge.server.storage import schema as s

TOKEN = "hosts-only-5b1e77c0a9d3"
HOST = {"actor": "Tess", "reason": "the player asked for a copy of their data"}


@dataclass
class World:
    """The server's players and what they did: ids, cookies, addresses, matches."""

    ids: dict[str, str]
    cookies: dict[str, str]
    emails: dict[str, str]
    finished: str  # Ada (seat 0) and Bob, over
    playing: str  # Bob (seat 0) and Ada (seat 1), in progress
    others: str  # Bob and Cyd, in progress: nothing of it is Ada's
    tokens: dict[str, dict[int, str]]


def _engine(client: TestClient) -> Engine:
    engine: Engine = client.app.state.hub.storage.engine  # type: ignore[attr-defined]
    return engine


def admin(client: TestClient, method: str, path: str, **kw: Any) -> Any:
    client.cookies.clear()
    return client.request(method, "/api/admin" + path, headers=auth(TOKEN), **kw)


def _table_match(client: TestClient, host: str, guest: str) -> tuple[str, dict[int, str]]:
    opened = call(client, "POST", "/api/lobby/tables", host, json={"playset": "catalysts", "seat": 0}).json()
    joined = call(client, "POST", f"/api/lobby/tables/{opened['table_id']}/join", guest)
    assert joined.status_code == 201, joined.text
    return opened["match_id"], {0: opened["token"], 1: joined.json()["token"]}


def _play(client: TestClient, mid: str, tokens: dict[int, str], moves: int, resign: int | None = None) -> None:
    peers = {seat: Peer(client, mid, token) for seat, token in tokens.items()}
    play_friend_match(peers, random.Random(5), stop_after=moves)
    if resign is not None:
        peers[resign].send({"type": "resign"})
        peers[1 - resign].until(lambda m: m.get("match", {}).get("status") == "over")
    for peer in peers.values():
        peer.close()


def build(client: TestClient) -> World:
    """Three players and a bit of everything, through the API where it is quick, else written as the server
    writes it."""
    cookies = {name: player(client, name) for name in ("Ada", "Bob", "Cyd")}
    ids = {}
    for name in cookies:
        [found] = admin(client, "GET", "/players", params={"q": name}).json()["players"]
        ids[name] = found["id"]
    a, b, c = ids["Ada"], ids["Bob"], ids["Cyd"]
    emails = {"Ada": "ada@example.org", "Bob": "bob.private@example.net", "Cyd": "cyd@example.com"}
    finished, t1 = _table_match(client, cookies["Ada"], cookies["Bob"])
    _play(client, finished, t1, 6, resign=1)
    playing, t2 = _table_match(client, cookies["Bob"], cookies["Ada"])
    _play(client, playing, t2, 5)
    others, t3 = _table_match(client, cookies["Bob"], cookies["Cyd"])
    _play(client, others, t3, 2)
    table = call(client, "POST", "/api/lobby/tables", cookies["Ada"], json={"playset": "catalysts"})
    assert table.status_code == 201, table.text
    closed = admin(client, "POST", f"/tables/{table.json()['table_id']}/close", json=HOST)  # (the audit: Ada's)
    assert closed.status_code == 200, closed.text
    # reports both ways, with notes (Bob's about Ada is his, not hers)
    for who, mid, seat, note in (("Ada", finished, 0, "Ada's note: rude in chat"),
                                 ("Bob", playing, 0, "Bob's private note about Ada"),
                                 ("Cyd", others, 1, "Cyd's note about Bob")):
        tokens = {finished: t1, playing: t2, others: t3}[mid]
        r = call(client, "POST", f"/api/matches/{mid}/report", cookies[who], headers=auth(tokens[seat]),
                 json={"reason": "abuse", "note": note})
        assert r.status_code == 201, r.text
    # a host renames Ada (the audit, a name change) and bans Cyd (the audit, not Ada's)
    assert admin(client, "POST", "/players/Ada/rename", json={**HOST, "name": "Ada L"}).status_code == 200
    assert admin(client, "POST", "/players/Cyd/ban", json=HOST).status_code == 200
    now = 1_790_000_000.0
    with _engine(client).begin() as conn:
        for name, pid in ids.items():
            conn.execute(update(s.players_table).where(s.players_table.c.id == pid).values(email=emails[name]))
            conn.execute(insert(s.device_tokens_table).values(token_hash=f"devicehash-{name}-0123456789abcdef",
                                                              player_id=pid, created_at=now))
        conn.execute(insert(s.sign_ins_table), [
            {"token_hash": "signinhash-ada-0123456789", "email": emails["Ada"], "created_at": now,
             "expires_at": now + 900, "used_at": now + 5, "player_id": None},
            # Ada's browser, before it had an address, asked a link for Bob's: his address, not hers
            {"token_hash": "signinhash-adabob-0123456", "email": emails["Bob"], "created_at": now,
             "expires_at": now + 900, "used_at": None, "player_id": a},
            {"token_hash": "signinhash-bob-0123456789", "email": emails["Bob"], "created_at": now,
             "expires_at": now + 900, "used_at": now + 9, "player_id": b}])
        conn.execute(insert(s.seat_keys_table), [
            {"token_hash": "seatkeyhash-ada-01234567", "match_id": playing, "seat": 1, "created_at": now},
            {"token_hash": "seatkeyhash-bob-01234567", "match_id": playing, "seat": 0, "created_at": now}])
        conn.execute(insert(s.outbox_table), [
            {"match_id": playing, "idx": idx, "seat": seat, "created_at": now, "next_at": now, "attempts": 1,
             "done_at": now, "outcome": "sent"} for idx, seat in ((1, 1), (2, 0))])
        conn.execute(insert(s.reviews_table), [
            {"match_id": finished, "seat": seat, "created_at": now, "doc": json.dumps({"review of": seat})}
            for seat in (0, 1)])
        conn.execute(insert(s.chat_table), [
            {"room": f"{playing}:players", "match_id": playing, "player_id": a, "name": "Ada L", "at": now,
             "text": "Ada says good luck", "quick": None},
            {"room": f"{playing}:players", "match_id": playing, "player_id": b, "name": "Bob", "at": now + 1,
             "text": "Bob's own words", "quick": None},
            {"room": "lobby", "match_id": None, "player_id": a, "name": "Ada L", "at": now + 2,
             "text": "Ada in the lobby", "quick": None},
            {"room": "lobby", "match_id": None, "player_id": c, "name": "Cyd", "at": now + 3,
             "text": "Cyd in the lobby", "quick": None}])
        conn.execute(insert(s.follows_table), [
            {"follower_id": x, "followed_id": y, "at": now} for x, y in ((a, b), (b, a), (c, b))])
        conn.execute(insert(s.mutes_table), [
            {"player_id": x, "muted_id": y, "at": now} for x, y in ((a, c), (b, a))])
        conn.execute(insert(s.challenges_table), [
            {"id": f"challenge{n}", "from_id": x, "to_id": y, "playset": '["a", "b", "c"]', "clock_ms": None,
             "move_s": 86400, "rated": True, "status": "declined", "created_at": now, "expires_at": now + 60,
             "match_id": None} for n, (x, y) in enumerate(((a, b), (c, a), (b, c)))])
        conn.execute(insert(s.tournaments_table), [
            {"id": f"event{n}", "name": f"Event {n}", "format": "swiss", "status": "finished", "host_id": host,
             "rounds": 1, "duration_s": None, "clock_ms": None, "move_s": 86400, "rated": False,
             "playset": '"sets"', "starts_at": None, "max_players": 8, "link_hash": f"clublinkhash-{n}-0123456",
             "round": 1, "first_mover": "first", "created_at": now, "started_at": now, "ended_at": now}
            for n, host in enumerate((a, b))])
        conn.execute(insert(s.tournament_entrants_table), [
            {"tournament_id": "event1", "player_id": pid, "joined": n, "joined_at": now, "rating": 1500.0,
             "name": name, "status": "in"} for n, (pid, name) in enumerate(((a, "Ada L"), (b, "Bob"),
                                                                           ("bot:2:1", "Bot")))])
        conn.execute(insert(s.tournament_games_table), [
            {"tournament_id": "event1", "round": 1, "board": n, "first_id": x, "second_id": y, "match_id": None,
             "outcome": "first", "forfeit": True, "playset": None, "paired_at": now, "ended_at": now}
            for n, (x, y) in enumerate(((b, a), ("bot:2:1", None)))])
        puzzle = "daily-0001"  # (no key to the puzzles: any id)
        conn.execute(insert(s.puzzle_players_table), [
            {"player_id": pid, "r": 1500.0, "rd": 300.0, "vol": 0.06, "streak": 1, "best_streak": 1, "tried": 1,
             "solved": 1, "updated_at": now} for pid in (a, b)])
        conn.execute(insert(s.puzzle_attempts_table), [
            {"player_id": pid, "puzzle_id": puzzle, "solved": True, "at": now, "r_before": 1500.0,
             "r_after": 1520.0, "puzzle_before": 1500.0, "puzzle_after": 1490.0} for pid in (a, b)])
    return World(ids, cookies, emails, finished, playing, others, {finished: t1, playing: t2, others: t3})


@pytest.fixture(name="client")
def client_fixture(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(tmp_path, admin_token=TOKEN, table_rate=1000.0, table_burst=1000.0, players_per_hour=0,
                    quick_match_bot_after_s=600.0) as c:
        yield c


@pytest.fixture(name="world")
def world_fixture(client: TestClient) -> World:
    return build(client)


# ---------------------------------------------------------------------- the checks, from the database alone


def _cell(value: Any) -> Any:
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def names_player(table: Table, row: Mapping[str, Any], pid: str, email: str | None,
                 seats: set[tuple[str, int]]) -> bool:
    """Whether a row names the player, by its values alone: their id in any column (the audit's detail too),
    their address, a seat they play (a row with ``match_id`` and ``seat``), or a match they play (the
    matches)."""
    for value in row.values():
        if isinstance(value, str) and (pid in value or (email is not None and value == email)):
            return True
    if "match_id" in row and "seat" in row and (row["match_id"], row["seat"]) in seats:
        return True
    return table.name == s.matches_table.name and any(row["id"] == mid for mid, _ in seats)


def _others_choice(table: Table, row: Mapping[str, Any], pid: str) -> bool:
    """Another player's follow or mute of the player: theirs, left out (declared in export_store.PARTS)."""
    part = export_store.PARTS.get(table.name)
    if not isinstance(part, export_store.Part) or part.others_choice is None:
        return False
    return row[part.others_choice] == pid and not any(row[c] == pid for c in part.players
                                                      if c != part.others_choice)


def _shown_as(exported: Mapping[str, Any], row: Mapping[str, Any]) -> bool:
    """Whether an exported row is this database row (a value withheld or another player's id replaced counts
    as the same)."""
    return all(exported.get(col, "(absent)") in (_cell(value), export_store.WITHHELD, export_store.ANOTHER)
               for col, value in row.items())


def rows_naming(engine: Engine, meta: MetaData, pid: str) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table of ``meta`` that names the player (other players' private choices about them
    apart), table by table."""
    with engine.connect() as conn:
        email = conn.execute(select(s.players_table.c.email).where(s.players_table.c.id == pid)).scalar()
        mp = s.match_players_table.c
        seats = {(str(m), int(seat)) for m, seat in conn.execute(select(mp.match_id, mp.seat)
                                                                 .where(mp.player_id == pid))}
        found: dict[str, list[dict[str, Any]]] = {}
        for table in meta.sorted_tables:
            for row in conn.execute(select(table)).mappings():
                if names_player(table, row, pid, email, seats) and not _others_choice(table, row, pid):
                    found.setdefault(table.name, []).append(dict(row))
    return found


def missing_rows(engine: Engine, meta: MetaData, doc: Mapping[str, Any], pid: str) -> list[str]:
    """What the archive ``doc`` lacks: each row that names the player and is not in it, as one line."""
    problems = []
    for name, rows in rows_naming(engine, meta, pid).items():
        exported = list(doc["tables"].get(name, []))
        for row in rows:
            match = next((e for e in exported if _shown_as(e, row)), None)
            if match is None:
                problems.append(f"{name}: a row naming the player is not in the archive: {row}")
            else:
                exported.remove(match)
    return problems


# ---------------------------------------------------------------------- every row that names the player


def test_the_archive_holds_every_row_of_every_table_that_names_the_player(client: TestClient,
                                                                        world: World) -> None:
    r = admin(client, "POST", "/players/Ada L/export", json=HOST)
    assert r.status_code == 200, r.text
    doc = r.json()
    a = world.ids["Ada"]
    assert doc["player_id"] == a and doc["format"] == "converge-player-archive"
    assert export_store.undeclared() == []  # every table of the schema is declared, one way or the other
    assert set(doc["tables"]) | set(doc["not_about_players"]) == set(s.metadata.tables)
    assert missing_rows(_engine(client), s.metadata, doc, a) == []
    # the fixture leaves no table that can name a player without a row that names Ada: each is checked
    naming = rows_naming(_engine(client), s.metadata, a)
    assert sorted(set(doc["tables"]) - set(naming)) == []
    assert not set(naming) & set(doc["not_about_players"])
    # and what the archive holds is Ada's: her match in progress has only her own moves, her follows name
    # their player as her friends list does, what others chose about her is not there
    tables = doc["tables"]
    assert {row["seat"] for row in tables["converge_actions"] if row["match_id"] == world.playing} == {1}
    assert {row["seat"] for row in tables["converge_actions"] if row["match_id"] == world.finished} == {0, 1}
    assert [(f["followed_id"], f["followed_name"]) for f in tables["converge_follows"]] == [
        (export_store.ANOTHER, "Bob")]
    assert [(m["muted_id"], m["muted_name"]) for m in tables["converge_mutes"]] == [(export_store.ANOTHER, "Cyd")]
    assert sorted(c["other_name"] for c in tables["converge_challenges"]) == ["Bob", "Cyd"]
    [mine] = [m for m in doc["matches"] if m["match_id"] == world.playing]
    assert (mine["seat"], mine["status"], mine["opponent"], mine["view"]["seat"]) == (1, "active", "Bob", 1)
    [over] = [m for m in doc["matches"] if m["match_id"] == world.finished]
    assert (over["opponent"], over["view"]) == ("Bob", None)
    assert [m["match_id"] for m in doc["matches"]] == [world.finished, world.playing]
    # the audit's entries about her: the hosts' export (first: the archive holds it), the rename, and the
    # table of hers a host closed (its target is the table, not her id)
    assert [e["action"] for e in tables["converge_audit"]] == ["close_table", "rename", "export"]
    audit = admin(client, "GET", "/audit", params={"target": a}).json()["entries"]
    assert (audit[0]["action"], audit[0]["actor"]) == ("export", "Tess")


def test_on_postgresql_too_the_archive_holds_every_row_that_names_the_player_and_no_other(
        postgres_url: str) -> None:
    from converge.server.app import create_app
    from tests.server_support import FAST

    settings = {**FAST, "admin_token": TOKEN, "table_rate": 1000.0, "table_burst": 1000.0, "players_per_hour": 0,
                "quick_match_bot_after_s": 600.0}
    with TestClient(create_app(db_url=postgres_url, **settings)) as client:
        assert _engine(client).dialect.name == "postgresql"
        world = build(client)
        doc = admin(client, "POST", "/players/Ada L/export", json=HOST).json()
        assert missing_rows(_engine(client), s.metadata, doc, world.ids["Ada"]) == []
        text = json.dumps(doc)
        assert [x for name in ("Bob", "Cyd") for x in (world.ids[name], world.emails[name]) if x in text] == []


def test_the_check_finds_a_table_left_out_or_added_to_the_schema_without_export(
        client: TestClient, world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant a violation: an archive without the follows, and a table the schema gains (a player's notes)
    that the archive does not know: the check names both."""
    doc = admin(client, "POST", "/players/Ada L/export", json=HOST).json()
    a = world.ids["Ada"]
    del doc["tables"]["converge_follows"]
    missing = missing_rows(_engine(client), s.metadata, doc, a)
    assert len(missing) == 1 and missing[0].startswith("converge_follows: ")
    doc = admin(client, "POST", "/players/Ada L/export", json=HOST).json()
    meta = MetaData()
    for table in s.metadata.sorted_tables:
        table.to_metadata(meta)
    notes = Table("converge_notes", meta, Column("id", Integer, primary_key=True),
                  Column("author_id", String(32)), Column("text", String(100)), Column("at", Float))
    with _engine(client).begin() as conn:
        notes.create(conn)
        conn.execute(insert(notes).values(id=1, author_id=a, text="remember the rematch", at=1.0))
    assert [m.split(":")[0] for m in missing_rows(_engine(client), meta, doc, a)] == ["converge_notes"]
    # and the server makes no archive that would miss a table it does not know
    monkeypatch.setattr(export_store, "metadata", meta)
    assert export_store.undeclared() == ["converge_notes"]
    with pytest.raises(export_store.UndeclaredTable, match="converge_notes"):
        export_store.read(_engine(client), a)


# ---------------------------------------------------------------------- nothing of any other player


def test_the_archive_holds_nothing_of_any_other_player(client: TestClient, world: World) -> None:
    r = call(client, "GET", "/api/me/export", world.cookies["Ada"])
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"] == 'attachment; filename="converge-export-Ada-L.json"'
    text = r.text
    doc = r.json()
    assert doc["player_id"] == world.ids["Ada"] and world.emails["Ada"] in text
    for name in ("Bob", "Cyd"):
        assert world.ids[name] not in text  # (players are named, never identified)
        assert world.emails[name] not in text
    engine = _engine(client)
    with engine.connect() as conn:
        kept = ((s.players_table, "token_hash"), (s.device_tokens_table, "token_hash"),
                (s.seats_table, "token_hash"), (s.seat_keys_table, "token_hash"), (s.sign_ins_table, "token_hash"),
                (s.lobby_tables_table, "host_token_hash"), (s.tournaments_table, "link_hash"))
        secrets = [str(v) for t, col in kept
                   for v in conn.execute(select(t.c[col])).scalars() if v is not None and v != "revoked"]
        m = s.matches_table.c
        seed, bot_seed = conn.execute(select(m.seed, m.bot_seed).where(m.id == world.playing)).one()
    assert len(secrets) > 15 and [x for x in secrets if x in text] == []
    # the match in progress: no seed, none of Bob's moves, none of his hidden cards; Ada's view is her page's
    for number in (seed, bot_seed):
        assert not re.search(rf"(?<![0-9]){number}(?![0-9])", text), number
    [mine] = [m for m in doc["matches"] if m["match_id"] == world.playing]
    page = call(client, "GET", f"/api/matches/{world.playing}", None,
                headers=auth(world.tokens[world.playing][1])).json()
    assert mine["view"]["observation"] == page["observation"]
    bob = call(client, "GET", f"/api/matches/{world.playing}", None,
               headers=auth(world.tokens[world.playing][0])).json()["observation"]
    hidden = set(bob["hand"]) - set(mine["view"]["observation"]["known_opponent_hand"])
    assert hidden and mine["view"]["observation"]["hand_sizes"][0] == len(bob["hand"])
    assert not hidden & set(mine["view"]["observation"]["hand"])
    # outside her view (which names a card where her page does: the printed cards, an earlier public event),
    # no card of Bob's hand is anywhere
    outside = json.dumps({**doc, "matches": [{**m, "view": None} for m in doc["matches"]]})
    assert [card for card in hidden if f'"{card}"' in outside] == []
    assert "Bob's own words" not in text and "Bob's private note about Ada" not in text
    assert "Cyd's note about Bob" not in text and "Cyd in the lobby" not in text
    reports = doc["tables"]["converge_reports"]
    received = [r for r in reports if r["reporter_id"] != world.ids["Ada"]]
    assert [(r["reporter_id"], r["note"], r["reason"]) for r in received] == [
        (export_store.ANOTHER, export_store.WITHHELD, "abuse")]
    assert [r["note"] for r in reports if r["reporter_id"] == world.ids["Ada"]] == ["Ada's note: rude in chat"]
    [sign_in] = [x for x in doc["tables"]["converge_sign_ins"] if x["player_id"] == world.ids["Ada"]]
    assert sign_in["email"] == export_store.WITHHELD  # (the address Ada's browser asked a link for: Bob's)
    # nothing of the match Bob and Cyd play
    assert world.others not in text


def test_a_player_downloads_their_own_archive_a_few_times_and_no_one_elses(client: TestClient,
                                                                          world: World) -> None:
    mine = call(client, "GET", "/api/me/export", world.cookies["Bob"]).json()
    assert mine["player_id"] == world.ids["Bob"] and world.ids["Ada"] not in json.dumps(mine)
    nobody = call(client, "GET", "/api/me/export", None)
    assert nobody.status_code == 401 and nobody.json()["error"]["code"] == "no_player"
    # Cyd is banned: his data is still his to have
    banned = call(client, "GET", "/api/me/export", world.cookies["Cyd"])
    assert banned.status_code == 200 and banned.json()["player_id"] == world.ids["Cyd"]
    for _ in range(2):
        assert call(client, "GET", "/api/me/export", world.cookies["Bob"]).status_code == 200
    flood = call(client, "GET", "/api/me/export", world.cookies["Bob"])
    assert flood.status_code == 429 and flood.json()["error"]["code"] == "rate_limited"
    assert call(client, "GET", "/api/me/export", world.cookies["Ada"]).status_code == 200  # (per player)


def test_the_hosts_export_names_one_player_or_says_why_not(client: TestClient, world: World) -> None:
    r = admin(client, "POST", "/players/Nobody/export", json=HOST)
    assert r.status_code == 404 and "no player has the id or the name 'Nobody'" in r.json()["error"]["message"]
    r = admin(client, "POST", f"/players/{world.ids['Bob']}/export", json=HOST)
    assert r.status_code == 200 and r.json()["player_id"] == world.ids["Bob"]


def test_converge_admin_export_writes_the_archive_and_never_over_a_file_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx2 as httpx

    from tests.helpers import assert_user_error, run
    from tests.server_support import Server

    monkeypatch.setenv("CONVERGE_ADMIN_TOKEN", TOKEN)
    server = Server(tmp_path / "matches.sqlite3", None, env={"CONVERGE_ADMIN_TOKEN": TOKEN})
    server.start()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    try:
        assert httpx.put(f"{server.base}/api/me", json={"name": "Ada Lovelace"}).status_code == 200
        code, out, err = run(capsys, "admin", "--server", server.base, "export", "ada lovelace")
        assert code == 0, err
        written = work / "converge-export-ada-lovelace.json"
        doc = json.loads(written.read_text(encoding="utf-8"))
        [me] = doc["tables"]["converge_players"]
        assert me["name"] == "Ada Lovelace" and doc["player_id"] == me["id"]
        assert written.stat().st_mode & 0o077 == 0  # (only its owner may read it: the player's address...)
        assert out.startswith(f"wrote {written.name}: ") and f"of player {me['id']}" in out
        code, _out, err = run(capsys, "admin", "--server", server.base, "export", "Ada Lovelace", "-o",
                              written.name)
        assert_user_error(code, err, f"{written.name} already exists: give another name (-o FILE), or --force")
        written.write_text("old", encoding="utf-8")
        code, _out, err = run(capsys, "admin", "--server", server.base, "export", me["id"], "-o", written.name,
                              "--force")
        assert code == 0 and json.loads(written.read_text(encoding="utf-8"))["player_id"] == me["id"], err
        code, _out, err = run(capsys, "admin", "--server", server.base, "export", "Nobody")
        assert_user_error(code, err, "no player has the id or the name 'Nobody'")
        assert err.count("\n") == 1 and not (work / "converge-export-Nobody.json").exists()
        code, _out, err = run(capsys, "admin", "--server", server.base, "export", "Ada Lovelace", "-o",
                              "missing/ada.json")
        assert_user_error(code, err, "no folder missing to write the archive in")
        code, out, err = run(capsys, "admin", "--server", server.base, "audit")
        assert out.count(": export ") == 2, out
        assert sorted(p.name for p in work.iterdir()) == [written.name]  # (no partial file left)
    finally:
        server.stop()
