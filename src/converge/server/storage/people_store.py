"""What the lobby shows of people, read from the database: a player's finished matches (their history, with its
filters) and a player's profile (their rating's history, matches, skillsets and events).

A profile is public, so it shows only what its player did in public: matches found at a public table, by
quick match, by a challenge to a named player or in an event open to all, and matches against a bot. A
private table's match, a friend's match reached by its link and a club's event stay the players' own: their
histories list them, their profiles do not (a finished match's replay is open to anyone with its id, so its
id is not given out here).

The functions taking a ``conn`` run inside a transaction (the
:class:`~converge.server.storage.writer.Writer`'s); the others open their own read.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal, cast

from sqlalchemy import ColumnElement, Connection, Engine, Select, and_, false, func, or_, select, update

from converge.bots import bot_display_name
from converge.server.protocol.answers import Opponent, Played
from converge.server.protocol.people_answers import EventEntered, RatingPoint, SkillsetRecord
from converge.server.storage.schema import (
    match_players_table,
    matches_table,
    players_table,
    rating_changes_table,
    seats_table,
    tournament_entrants_table,
    tournament_games_table,
    tournaments_table,
)

Status = Literal["upcoming", "running", "paused", "finished", "cancelled"]

#: The points of a rating's history a profile gives (the last ones).
RATING_POINTS = 1000

_mine = match_players_table.alias("mine")
_other = match_players_table.alias("other")
_oseat = seats_table.alias("oseat")
_m, _rc = matches_table.c, rating_changes_table.c
_g, _t = tournament_games_table.c, tournaments_table.c


@dataclass(frozen=True)
class HistoryFilter:
    """Which of a player's finished matches to list (None: any). ``opponent_ids``, ``opponent_name`` and
    ``bot`` name the opponent (a match is kept when any of them does): players by id, a name as the match
    showed it (compared whatever its case), a bot by its level."""

    opponent_ids: tuple[str, ...] = ()
    opponent_name: str | None = None
    bot: str | None = None
    result: Literal["won", "lost"] | None = None
    rated: bool | None = None
    skillset: str | None = None  #: the playset holds it
    since: float | None = None  #: finished at or after (Unix seconds)
    until: float | None = None  #: finished before

    def names_opponent(self) -> bool:
        return bool(self.opponent_ids) or self.opponent_name is not None or self.bot is not None


def _played_query() -> Select[Any]:
    """Every finished match with one of its players (``mine``), its opponent, its rating change and its event."""
    mine, other, s = _mine.c, _other.c, _oseat.c
    return (select(_m.id, _m.updated_at, _m.winner, _m.reason, _m.playset, _m.clock_ms, _m.move_s, mine.seat,
                   mine.rated, mine.kind, other.name, other.player_id, s.bot, _rc.r_before, _rc.r_after, _t.id,
                   _t.name)
            .select_from(_mine.join(matches_table, _m.id == mine.match_id)
                         .outerjoin(_other, and_(other.match_id == mine.match_id, other.seat != mine.seat))
                         .outerjoin(_oseat, and_(s.match_id == mine.match_id, s.seat != mine.seat))
                         .outerjoin(rating_changes_table, and_(_rc.match_id == mine.match_id,
                                                               _rc.player_id == mine.player_id))
                         .outerjoin(tournament_games_table, _g.match_id == mine.match_id)
                         .outerjoin(tournaments_table, _t.id == _g.tournament_id))
            .where(_m.status == "over"))


def _public() -> ColumnElement[bool]:
    """A match its players' profiles may show: found in public (a public table, a quick match, a challenge by
    name, an event open to all), or against a bot (see the module doc)."""
    mine, other, s = _mine.c, _other.c, _oseat.c
    return or_(mine.kind.in_(("table", "quick", "duel")),
               and_(mine.kind == "event", _t.id.is_not(None), _t.link_hash.is_(None)),
               and_(other.player_id.is_(None), s.bot.is_not(None)))


def _filtered(q: Select[Any], f: HistoryFilter) -> Select[Any]:
    mine, other, s = _mine.c, _other.c, _oseat.c
    if f.names_opponent():
        who: list[ColumnElement[bool]] = []
        if f.opponent_ids:
            who.append(other.player_id.in_(f.opponent_ids))
        if f.opponent_name is not None:
            who.append(func.lower(other.name) == f.opponent_name.lower())
        if f.bot is not None:
            who.append(and_(other.player_id.is_(None), s.bot == f.bot))
        q = q.where(or_(*who) if who else false())
    if f.result == "won":
        q = q.where(_m.winner == mine.seat)
    elif f.result == "lost":
        q = q.where(or_(_m.winner.is_(None), _m.winner != mine.seat))
    if f.rated is not None:
        q = q.where(mine.rated.is_(f.rated))
    if f.skillset is not None:  # (the playset is stored as a JSON list: its names each between quotes)
        q = q.where(_m.playset.contains(json.dumps(f.skillset), autoescape=True))
    if f.since is not None:
        q = q.where(_m.updated_at >= f.since)
    if f.until is not None:
        q = q.where(_m.updated_at < f.until)
    return q


def _row(row: Any) -> Played:
    (mid, at, winner, reason, playset, clock_ms, move_s, seat, rated, kind, opp_name, opp_id, bot, r_before,
     r_after, event_id, event_name) = row
    opponent: Opponent = ({"kind": "human", "name": opp_name, "display": opp_name or "Anonymous"}
                          if opp_id is not None or bot is None else
                          {"kind": "bot", "name": bot, "display": bot_display_name(bot)})
    return {"match_id": mid, "finished_at": round(float(at), 3), "seat": int(seat), "playset": json.loads(playset),
            "opponent": opponent, "result": "won" if winner == seat else "lost", "reason": reason,
            "rated": bool(rated), "kind": kind,
            "rating_before": None if r_before is None else round(r_before),
            "rating_after": None if r_after is None else round(r_after),
            "rating_change": None if r_before is None else round(r_after) - round(r_before),
            "replay_url": f"/m/{mid}",
            "event": None if event_id is None else {"id": event_id, "name": event_name},
            "clock_s": None if clock_ms is None else int(clock_ms) // 1000,
            "move_hours": None if move_s is None else int(move_s) // 3600}


def history(engine: Engine, player_id: str, f: HistoryFilter | None = None, limit: int | None = 50,
            public: bool = False) -> list[Played]:
    """A player's finished matches, newest first, as ``f`` filters them (``public``: only those their profile may
    show): opponent (by the name they had when the match started), result, rating change, clock, replay link."""
    q = _filtered(_played_query().where(_mine.c.player_id == player_id), f or HistoryFilter())
    if public:
        q = q.where(_public())
    q = q.order_by(_m.updated_at.desc(), _m.id)
    if limit is not None:
        q = q.limit(limit)
    with engine.connect() as conn:
        return [_row(r) for r in conn.execute(q).all()]


# ---------------------------------------------------------------------- profiles


@dataclass(frozen=True)
class ProfileRow:
    """A named player as their profile starts: who, since when, and whether they hid it."""

    id: str
    name: str
    r: float
    rd: float
    games: int
    created_at: float
    hidden: bool


def named_player(engine: Engine, key: str) -> ProfileRow | None:
    """The named player whose name has this key (:func:`converge.server.lobby.identity.name_key`), or None."""
    p = players_table.c
    with engine.connect() as conn:
        row = conn.execute(select(p.id, p.name, p.r, p.rd, p.games, p.created_at, p.profile_hidden)
                           .where(p.name_key == key, p.name.is_not(None))).first()
    if row is None:
        return None
    pid, name, r, rd, games, created, hidden = row
    return ProfileRow(str(pid), str(name), float(r), float(rd), int(games), float(created), bool(hidden))


def player_ids_named(engine: Engine, key: str) -> tuple[str, ...]:
    """The id of the player whose name has this key now, if any (a history's opponent filter)."""
    with engine.connect() as conn:
        found = conn.execute(select(players_table.c.id).where(players_table.c.name_key == key)).scalars().all()
    return tuple(str(pid) for pid in found)


def rating_points(engine: Engine, player_id: str, limit: int = RATING_POINTS) -> list[RatingPoint]:
    """The player's rating after each of their last ``limit`` rated matches, oldest first."""
    q = (select(_rc.at, _rc.r_after).where(_rc.player_id == player_id)
         .order_by(_rc.at.desc(), _rc.match_id).limit(limit))
    with engine.connect() as conn:
        rows = conn.execute(q).all()
    return [{"at": round(float(at), 3), "rating": round(r)} for at, r in reversed(rows)]


def skillset_records(engine: Engine, player_id: str) -> list[SkillsetRecord]:
    """The player's public finished matches (see the module doc) by skillset of their playset: played and won,
    the most played first (then the most won, then by name)."""
    mine = _mine.c
    q = _played_query().with_only_columns(_m.playset, _m.winner, mine.seat).where(mine.player_id == player_id,
                                                                                  _public())
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    with engine.connect() as conn:
        for playset, winner, seat in conn.execute(q):
            for skillset in set(json.loads(playset)):
                played[skillset] += 1
                won[skillset] += winner == seat
    return [{"skillset": k, "played": played[k], "won": won[k]}
            for k in sorted(played, key=lambda k: (-played[k], -won[k], k))]


def events_entered(engine: Engine, player_id: str, limit: int = 20) -> list[EventEntered]:
    """The events open to all the player entered, the newest first (a club's event is its members' own)."""
    e = tournament_entrants_table.c
    q = (select(_t.id, _t.name, _t.status)
         .select_from(tournament_entrants_table.join(tournaments_table, _t.id == e.tournament_id))
         .where(e.player_id == player_id, _t.link_hash.is_(None))
         .order_by(func.coalesce(_t.started_at, _t.created_at).desc(), _t.id).limit(limit))
    with engine.connect() as conn:
        return [{"id": str(tid), "name": str(name), "status": cast(Status, status)}
                for tid, name, status in conn.execute(q)]


def set_profile_hidden(conn: Connection, player_id: str, hidden: bool) -> None:
    """Hide the player's profile from everyone but them (False: show it), in the caller's transaction."""
    conn.execute(update(players_table).where(players_table.c.id == player_id).values(profile_hidden=hidden))


__all__ = ["RATING_POINTS", "HistoryFilter", "ProfileRow", "events_entered", "history", "named_player",
           "player_ids_named", "rating_points", "set_profile_hidden", "skillset_records"]
