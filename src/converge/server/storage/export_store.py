"""A player's data, read from the database for their archive (``converge admin export``, "Download my data"):
every row of every table that names them, and nothing of any other player.

Each table of :mod:`~converge.server.storage.schema` is declared here (:data:`PARTS`): the columns that hold a
player's id, whether its rows belong to a seat of a match, what is withheld; or why it never names a player. A
table the schema gains without a declaration here makes :func:`read` fail, and the tests with it.

What an archive leaves out, and why:

* **Secrets**: every token hash (of a browser, a seat, a sign-in link, a club event's link): of no use to the
  player, a risk in a file that is mailed around and kept.
* **Other players' ids** (never shown anywhere: players are named, not identified): each is replaced by
  :data:`ANOTHER`; where the page shows that player's name (a friend, a muted player, a challenge's other side,
  an opponent), the archive has the name, as the page shows it.
* **Other players' private choices about this player**: who follows them and who muted them (the pages never
  say), who reported them and what the reporter wrote (a report received keeps its match, reason and time).
* **Other addresses**: a sign-in link asked from this player's browser for an address that is not theirs.
* **A match in progress's hidden information**: its seed and the bots' seed (the deal and the deck order follow
  from them), and the other seat's actions (what the player may see of them is in their view, added by
  :mod:`converge.server.accounts.archive`). A finished match's record is public (its replay shows both hands),
  so its every action is there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, Table, false, or_, select, tuple_

from converge.server.storage.schema import (
    lobby_tables_table,
    match_players_table,
    matches_table,
    metadata,
    players_table,
    seats_table,
)

#: In place of another player's id.
ANOTHER = "(another player)"
#: In place of a value withheld (a secret, another player's words or address).
WITHHELD = "(withheld)"


@dataclass(frozen=True)
class Part:
    """How the rows of one table name a player, and what of them an archive leaves out."""

    #: Columns holding a player's id (or a bot's, ``bot:...``): a row with the player's id in one is theirs.
    players: tuple[str, ...] = ()
    #: The rows of the player's seats in their matches (columns ``match_id`` and ``seat``).
    by_seat: bool = False
    #: A finished match's rows of every seat (its record is public).
    whole_when_over: bool = False
    #: The rows of the player's matches (the matches table: column ``id``).
    by_match: bool = False
    #: Columns that hold a mail address: the player's own is kept, any other withheld.
    addresses: tuple[str, ...] = ()
    #: Columns in which the player's id may be mentioned in a text (the audit's detail).
    mentions: tuple[str, ...] = ()
    #: Columns that may name one of the player's matches or lobby tables (the audit's target: a host closed
    #: their table, deleted their match).
    theirs: tuple[str, ...] = ()
    #: Columns always withheld (secrets).
    secrets: tuple[str, ...] = ()
    #: Columns withheld in a match in progress (its hidden information).
    hidden_in_progress: tuple[str, ...] = ()
    #: The column that names the player in another player's private choice: such a row (another's follow or
    #: mute of the player) is left out.
    others_choice: str | None = None
    #: Columns kept only when the given player column is the player's own (a report's note is its reporter's).
    own_only: Mapping[str, str] = field(default_factory=dict)


#: Every table of the schema: its :class:`Part`, or why it never names a player.
PARTS: dict[str, Part | str] = {
    "converge_settings": "the server's own settings",
    "converge_matches": Part(by_match=True, hidden_in_progress=("seed", "bot_seed")),
    "converge_seats": Part(by_seat=True, secrets=("token_hash",)),
    "converge_actions": Part(by_seat=True, whole_when_over=True),
    "converge_reviews": Part(by_seat=True),
    "converge_players": Part(players=("id",), addresses=("email",), secrets=("token_hash",)),
    "converge_name_keys": Part(players=("player_id",)),
    "converge_device_tokens": Part(players=("player_id",), secrets=("token_hash",)),
    "converge_seat_keys": Part(by_seat=True, secrets=("token_hash",)),
    "converge_outbox": Part(by_seat=True),
    "converge_sign_ins": Part(players=("player_id",), addresses=("email",), secrets=("token_hash",)),
    "converge_lobby_tables": Part(players=("host_id", "guest_id"), secrets=("host_token_hash",)),
    "converge_match_players": Part(players=("player_id",)),
    "converge_name_changes": Part(players=("player_id",)),
    "converge_rating_changes": Part(players=("player_id",)),
    "converge_reports": Part(players=("reporter_id", "reported_id"), own_only={"note": "reporter_id"}),
    "converge_audit": Part(players=("target",), mentions=("detail",), theirs=("target",)),
    "converge_tournaments": Part(players=("host_id",), secrets=("link_hash",)),
    "converge_tournament_entrants": Part(players=("player_id",)),
    "converge_tournament_games": Part(players=("first_id", "second_id")),
    "converge_follows": Part(players=("follower_id", "followed_id"), others_choice="followed_id"),
    "converge_mutes": Part(players=("player_id", "muted_id"), others_choice="muted_id"),
    "converge_chat": Part(players=("player_id",)),
    "converge_challenges": Part(players=("from_id", "to_id")),
    "converge_puzzles": "the puzzles, the package's and the server's (made from finished matches, never naming "
                        "their players)",
    "converge_puzzle_players": Part(players=("player_id",)),
    "converge_puzzle_attempts": Part(players=("player_id",)),
    "converge_puzzle_scans": "which finished matches the server looked for puzzles in",
}

#: The extra field of a row that names the other player as the pages show them: (table, their id's column).
NAMED: dict[str, tuple[str, str]] = {
    "converge_follows": ("followed_id", "followed_name"),
    "converge_mutes": ("muted_id", "muted_name"),
    "converge_challenges": ("", "other_name"),  # (either side: the one that is not the player)
}


class UndeclaredTable(Exception):
    """The schema has a table this module does not declare: an archive would miss its rows."""


@dataclass(frozen=True)
class PlayerData:
    """A player's rows, table by table, and the seats they play (for their views of the matches in progress)."""

    player_id: str
    tables: dict[str, list[dict[str, Any]]]
    #: (match id, seat, status "active" or "over", the opponent's name in that match or None, the bot at the
    #: other seat or None, whether another player holds it).
    seats: list[tuple[str, int, str, str | None, str | None, bool]]


def undeclared() -> list[str]:
    """The tables of the schema that :data:`PARTS` does not declare (none, unless the schema gained one)."""
    return sorted(set(metadata.tables) - set(PARTS))


def _plain(value: Any) -> Any:
    """A database value as JSON takes it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


class _Reader:
    """One read of a player's rows (one connection: the tables as they were at one moment)."""

    def __init__(self, conn: Connection, player_id: str) -> None:
        self.conn = conn
        self.pid = player_id
        p = players_table.c
        found = conn.execute(select(p.email).where(p.id == player_id)).first()
        if found is None:
            raise LookupError(player_id)
        self.email: str | None = found[0]
        mp, m = match_players_table.c, matches_table.c
        rows = conn.execute(select(mp.match_id, mp.seat, m.status).join(matches_table, m.id == mp.match_id)
                            .where(mp.player_id == player_id).order_by(m.created_at, mp.seat)).all()
        self.seats = [(str(r.match_id), int(r.seat)) for r in rows]
        self.status = {str(r.match_id): str(r.status) for r in rows}
        self.names: dict[str, str | None] = {}

    def name_of(self, player_id: str) -> str | None:
        """Another player's name now (None: anonymous, or no such player)."""
        if player_id not in self.names:
            p = players_table.c
            self.names[player_id] = self.conn.execute(select(p.name).where(p.id == player_id)).scalar()
        return self.names[player_id]

    def rows(self, table: Table, part: Part) -> list[dict[str, Any]]:
        c = table.c
        wheres: list[Any] = [c[col] == self.pid for col in part.players]
        wheres += [c[col] == self.email for col in part.addresses if self.email is not None]
        wheres += [c[col].contains(self.pid, autoescape=True) for col in part.mentions]  # (ids hold "_")
        mp, m, t = match_players_table.c, matches_table.c, lobby_tables_table.c
        mine = select(mp.match_id).where(mp.player_id == self.pid)
        tables = select(t.id).where(or_(t.host_id == self.pid, t.guest_id == self.pid))
        wheres += [or_(c[col].in_(mine), c[col].in_(tables)) for col in part.theirs]
        if part.by_match:
            wheres.append(c.id.in_(mine))
        if part.by_seat:
            seats = select(mp.match_id, mp.seat).where(mp.player_id == self.pid)
            wheres.append(tuple_(c.match_id, c.seat).in_(seats))
            if part.whole_when_over:
                wheres.append(c.match_id.in_(select(m.id).where(m.id.in_(mine), m.status == "over")))
        where = or_(*wheres) if wheres else false()
        q = select(table).where(where).order_by(*table.primary_key.columns)
        out = []
        for row in self.conn.execute(q).mappings():
            if part.others_choice is not None and row[part.others_choice] == self.pid \
                    and not any(row[col] == self.pid for col in part.players if col != part.others_choice):
                continue  # (another player's follow or mute of this one: theirs)
            out.append(self.shown(table, part, dict(row)))
        return out

    def shown(self, table: Table, part: Part, row: dict[str, Any]) -> dict[str, Any]:
        """A row as the archive shows it (see the module doc)."""
        in_progress = part.by_match and row["status"] != "over"
        shown: dict[str, Any] = {}
        for col, value in row.items():
            if col in part.players and isinstance(value, str) and value != self.pid \
                    and not value.startswith("bot:"):
                value = ANOTHER
            elif value is not None and (col in part.secrets
                                        or (col in part.addresses and value != self.email)
                                        or (in_progress and col in part.hidden_in_progress)
                                        or (col in part.own_only and row[part.own_only[col]] != self.pid)):
                value = WITHHELD
            shown[col] = _plain(value)
        named = NAMED.get(table.name)
        if named is not None:
            column, label = named
            other = row[column] if column else next(
                (row[c] for c in part.players if row[c] != self.pid), None)
            shown[label] = None if other is None else self.name_of(str(other))
        return shown

    def opponents(self) -> list[tuple[str, int, str, str | None, str | None, bool]]:
        """Each seat the player plays, with who sat at the other: the name the match showed (as its page shows
        it), or the bot."""
        if not self.seats:
            return []
        mp, s = match_players_table.c, seats_table.c
        mine = select(mp.match_id).where(mp.player_id == self.pid)
        named = {(str(r.match_id), int(r.seat)): (r.name, r.player_id)
                 for r in self.conn.execute(select(mp.match_id, mp.seat, mp.name, mp.player_id)
                                            .where(mp.match_id.in_(mine)))}
        bots = {(str(r.match_id), int(r.seat)): r.bot
                for r in self.conn.execute(select(s.match_id, s.seat, s.bot).where(s.match_id.in_(mine)))}
        out = []
        for match_id, seat in self.seats:
            other = (match_id, 1 - seat)
            name, holder = named.get(other, (None, None))
            out.append((match_id, seat, self.status[match_id], None if name is None else str(name),
                        bots.get(other), holder is not None))
        return out


def read(engine: Engine, player_id: str) -> PlayerData:
    """Every row that names ``player_id``, table by table, as the archive shows it (LookupError: no such player;
    :class:`UndeclaredTable`: the schema has a table this module does not know)."""
    missing = undeclared()
    if missing:
        raise UndeclaredTable(f"the archive does not declare the tables {', '.join(missing)}")
    with engine.connect() as conn:
        reader = _Reader(conn, player_id)
        tables = {name: reader.rows(metadata.tables[name], part)
                  for name, part in PARTS.items() if isinstance(part, Part)}
        return PlayerData(player_id, tables, reader.opponents())


__all__ = ["ANOTHER", "NAMED", "PARTS", "WITHHELD", "Part", "PlayerData", "UndeclaredTable", "read", "undeclared"]
