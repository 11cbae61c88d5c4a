"""Accounts in the database: a player's sign-in address, the sign-in links mailed (their hashes, spent once),
a player's other devices, signing out and forgetting a player, and the keys to a seat for other devices. The
functions taking a ``conn`` run inside a transaction; the others open their own read."""

from __future__ import annotations

import secrets
import time

from sqlalchemy import Connection, Engine, delete, insert, select, update

from converge.server.storage.database import Refused
from converge.server.storage.schema import (
    device_tokens_table,
    match_players_table,
    name_changes_table,
    players_table,
    seat_keys_table,
    sign_ins_table,
)


def email_of(engine: Engine, player_id: str) -> str | None:
    with engine.connect() as conn:
        found: str | None = conn.execute(select(players_table.c.email).where(players_table.c.id == player_id))\
            .scalar()
    return found


def add_sign_in(conn: Connection, token_hash: str, email: str, now: float, expires_at: float) -> None:
    """A sign-in link mailed to ``email`` (its token's hash); the expired ones are cleared on the way."""
    s = sign_ins_table.c
    conn.execute(delete(sign_ins_table).where(s.expires_at < now - 86400))
    conn.execute(insert(sign_ins_table).values(token_hash=token_hash, email=email, created_at=now,
                                               expires_at=expires_at, used_at=None))


class BadSignIn(Refused):
    """The link's token is unknown, used already or expired (nothing changed)."""


def use_sign_in(conn: Connection, token_hash: str, now: float) -> str:
    """Spend a sign-in link: its address, once (a second use, even a simultaneous one, is refused)."""
    s = sign_ins_table.c
    email = conn.execute(select(s.email).where(s.token_hash == token_hash, s.used_at.is_(None),
                                               s.expires_at > now)).scalar()
    if email is None or conn.execute(update(sign_ins_table).where(s.token_hash == token_hash, s.used_at.is_(None))
                                     .values(used_at=now)).rowcount != 1:
        raise BadSignIn()
    return str(email)


def player_id_by_email(conn: Connection, email: str) -> str | None:
    found: str | None = conn.execute(select(players_table.c.id).where(players_table.c.email == email)).scalar()
    return found


def set_email(conn: Connection, player_id: str, email: str) -> None:
    conn.execute(update(players_table).where(players_table.c.id == player_id).values(email=email,
                                                                                     updated_at=time.time()))


def add_device(conn: Connection, player_id: str, token_hash: str) -> None:
    """One more signed-in browser of ``player_id``."""
    conn.execute(insert(device_tokens_table).values(token_hash=token_hash, player_id=player_id,
                                                    created_at=time.time()))


def sign_out(conn: Connection, player_id: str, token_hash: str) -> None:
    """The browser holding this token is signed out: the token no longer names the player."""
    d, p = device_tokens_table.c, players_table.c
    conn.execute(delete(device_tokens_table).where(d.token_hash == token_hash, d.player_id == player_id))
    conn.execute(update(players_table).where(p.id == player_id, p.token_hash == token_hash)
                 .values(token_hash=_nobodys_hash()))


def sign_out_everywhere(conn: Connection, player_id: str) -> None:
    """Every browser of the player is signed out (they sign in again by an emailed link)."""
    conn.execute(delete(device_tokens_table).where(device_tokens_table.c.player_id == player_id))
    conn.execute(update(players_table).where(players_table.c.id == player_id).values(token_hash=_nobodys_hash()))


def forget_player(conn: Connection, player_id: str) -> None:
    """Delete what is personal of a player: their address, name and names before, their devices and links;
    their matches stay in the others' histories, played by "Anonymous"; no browser names them any more."""
    p = players_table.c
    email = conn.execute(select(p.email).where(p.id == player_id)).scalar()
    sign_out_everywhere(conn, player_id)
    if email is not None:
        conn.execute(delete(sign_ins_table).where(sign_ins_table.c.email == email))
    conn.execute(update(players_table).where(p.id == player_id).values(email=None, name=None, name_key=None,
                                                                       notify_turns=None, updated_at=time.time()))
    conn.execute(delete(name_changes_table).where(name_changes_table.c.player_id == player_id))
    conn.execute(update(match_players_table).where(match_players_table.c.player_id == player_id)
                 .values(name=None))


def _nobodys_hash() -> str:
    """A token hash no browser holds (the column is unique and required)."""
    return "signed-out:" + secrets.token_hex(26)


def add_seat_key(conn: Connection, match_id: str, seat: int, token_hash: str) -> None:
    """One more key to a seat (its player's other device)."""
    conn.execute(insert(seat_keys_table).values(token_hash=token_hash, match_id=match_id, seat=seat,
                                                created_at=time.time()))
