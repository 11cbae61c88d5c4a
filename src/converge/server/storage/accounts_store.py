"""Accounts in the database: a player's sign-in address, the sign-in links mailed (their hashes, spent once),
a player's other devices, signing out and forgetting a player, and the keys to a seat for other devices. The
functions taking a ``conn`` run inside a transaction; the others open their own read."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, insert, or_, select, tuple_, update

from converge.server.storage.database import Refused
from converge.server.storage.lobby_store import write_name
from converge.server.storage.schema import (
    device_tokens_table,
    match_players_table,
    name_changes_table,
    players_table,
    seat_keys_table,
    seats_table,
    sign_ins_table,
)


def email_of(engine: Engine, player_id: str) -> str | None:
    with engine.connect() as conn:
        found: str | None = conn.execute(select(players_table.c.email).where(players_table.c.id == player_id))\
            .scalar()
    return found


def add_sign_in(conn: Connection, token_hash: str, email: str, asker_id: str | None, now: float,
                expires_at: float) -> None:
    """A sign-in link mailed to ``email`` (its token's hash), asked for by the player ``asker_id`` (None: a
    browser that was no player yet); the expired ones are cleared on the way."""
    s = sign_ins_table.c
    conn.execute(delete(sign_ins_table).where(s.expires_at < now - 86400))
    conn.execute(insert(sign_ins_table).values(token_hash=token_hash, email=email, created_at=now,
                                               expires_at=expires_at, used_at=None, player_id=asker_id))


class BadSignIn(Refused):
    """The link's token is unknown, used already or expired (nothing changed)."""


@dataclass(frozen=True)
class SignIn:
    """A sign-in link not yet expired: its address, who asked for it, and whether it was used."""

    email: str
    asker_id: str | None
    used: bool


def sign_in_of(conn: Connection, token_hash: str, now: float) -> SignIn:
    """The link of this token (:class:`BadSignIn` if there is none, or it expired)."""
    s = sign_ins_table.c
    row = conn.execute(select(s.email, s.player_id, s.used_at).where(s.token_hash == token_hash,
                                                                     s.expires_at > now)).first()
    if row is None:
        raise BadSignIn()
    return SignIn(str(row.email), None if row.player_id is None else str(row.player_id), row.used_at is not None)


def use_sign_in(conn: Connection, token_hash: str, now: float) -> None:
    """Spend a sign-in link, once (a second use, even a simultaneous one, is refused: :class:`BadSignIn`)."""
    s = sign_ins_table.c
    spend = update(sign_ins_table).where(s.token_hash == token_hash, s.used_at.is_(None), s.expires_at > now)
    if conn.execute(spend.values(used_at=now)).rowcount != 1:
        raise BadSignIn()


def has_played(conn: Connection, player_id: str) -> bool:
    """Whether a player has a name or any match (something a browser that left them would lose)."""
    named = conn.execute(select(players_table.c.name).where(players_table.c.id == player_id)).scalar()
    mp = match_players_table.c
    return named is not None or conn.execute(select(mp.match_id).where(mp.player_id == player_id).limit(1))\
        .first() is not None


def is_player(conn: Connection, player_id: str) -> bool:
    return conn.execute(select(players_table.c.id).where(players_table.c.id == player_id)).first() is not None


def email_of_player(conn: Connection, player_id: str) -> str | None:
    """:func:`email_of`, in a transaction."""
    p = players_table.c
    found: str | None = conn.execute(select(p.email).where(p.id == player_id)).scalar()
    return found


def name_of(conn: Connection, player_id: str) -> str | None:
    found: str | None = conn.execute(select(players_table.c.name).where(players_table.c.id == player_id)).scalar()
    return found


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


#: The token hash of a seat whose token was revoked: no token's SHA-256 is this, so no token holds the seat.
REVOKED = "revoked"


def revoke_seats(conn: Connection, player_id: str) -> list[str]:
    """Every token and key to a seat the player plays (in progress or finished: a finished match's seat asks
    for its rematch) holds it no more: the seat's own token, on the device that made or joined the match, and
    the keys of their other devices. Each of their devices gets a new key once signed in again. Returns the
    matches changed."""
    mp, s, k = match_players_table.c, seats_table.c, seat_keys_table.c
    mine = select(mp.match_id, mp.seat).where(mp.player_id == player_id)
    conn.execute(delete(seat_keys_table).where(tuple_(k.match_id, k.seat).in_(mine)))
    conn.execute(update(seats_table).where(tuple_(s.match_id, s.seat).in_(mine), s.token_hash.is_not(None))
                 .values(token_hash=REVOKED))
    return list(dict.fromkeys(str(mid) for mid, _seat in conn.execute(mine)))


def forget_player(conn: Connection, player_id: str) -> None:
    """Delete what is personal of a player: their address, name and names before, their devices and links;
    their matches stay in the others' histories, played by "Anonymous"; no browser names them any more."""
    p, s = players_table.c, sign_ins_table.c
    email = conn.execute(select(p.email).where(p.id == player_id)).scalar()
    sign_out_everywhere(conn, player_id)
    conn.execute(delete(sign_ins_table).where(or_(s.player_id == player_id, s.email == email)))
    write_name(conn, player_id, None, time.time())
    conn.execute(update(players_table).where(p.id == player_id).values(email=None, notify_turns=None))
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
