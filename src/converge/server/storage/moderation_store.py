"""Moderation in the database: players found and banned, renamed by the hosts, players' reports of other players,
and the audit of every host action (:mod:`converge.server.moderation`).

Each host action writes its change and its audit row in one transaction: the audit holds exactly what was done.
The functions taking a ``conn`` run inside the writer's transaction; the others open their own read.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, Engine, and_, func, insert, select, update

from converge.server.protocol.answers import AuditEntry, ChatRecord, FoundPlayer, ReportEntry
from converge.server.storage import chat_store
from converge.server.storage.lobby_store import Named, write_name
from converge.server.storage.schema import (
    audit_table,
    lobby_tables_table,
    match_players_table,
    name_changes_table,
    name_keys_table,
    players_table,
    reports_table,
)


def _found(row: Any, reports: int) -> FoundPlayer:
    return {"id": row.id, "name": row.name, "rating": round(row.r), "games": int(row.games),
            "created_at": round(float(row.created_at), 3), "signed_in": row.email is not None,
            "banned": row.banned_at is not None, "ban_reason": row.ban_reason,
            "banned_at": None if row.banned_at is None else round(float(row.banned_at), 3),
            "open_reports": reports}


def find_players(engine: Engine, ref: str, keys: frozenset[str], limit: int = 20) -> list[FoundPlayer]:
    """The players ``ref`` names: its id, else the name that has one of ``keys`` (a name's keys: its case forms
    and look-alikes share one), else the names that contain it (case ignored), at most ``limit``, most played
    first."""
    p, r = players_table.c, reports_table.c
    open_reports = (select(func.count()).where(r.reported_id == p.id, r.closed_at.is_(None))
                    .correlate(players_table).scalar_subquery())
    base = select(p.id, p.name, p.r, p.games, p.created_at, p.email, p.banned_at, p.ban_reason,
                  open_reports.label("reports"))
    with engine.connect() as conn:
        named = select(name_keys_table.c.player_id).where(name_keys_table.c.key.in_(sorted(keys)))
        for where in (p.id == ref, p.id.in_(named) if keys else None):
            if where is not None:
                rows = conn.execute(base.where(where)).all()
                if rows:
                    return [_found(row, int(row.reports)) for row in rows]
        like = "%" + ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_").lower() + "%"
        rows = conn.execute(base.where(func.lower(p.name).like(like, escape="\\"))
                            .order_by(p.games.desc(), p.created_at).limit(limit)).all()
    return [_found(row, int(row.reports)) for row in rows]


def audit(conn: Connection, actor: str, action: str, target: str, reason: str, detail: Mapping[str, object],
          at: float | None = None) -> None:
    """Write one host action to the audit, in the transaction that makes it."""
    conn.execute(insert(audit_table).values(at=time.time() if at is None else at, actor=actor, action=action,
                                            target=target, reason=reason,
                                            detail=json.dumps(detail, sort_keys=True)))


def audit_log(engine: Engine, limit: int = 100, target: str | None = None) -> list[AuditEntry]:
    """The newest host actions first (of one target, if given)."""
    a = audit_table.c
    q = select(audit_table).order_by(a.id.desc()).limit(limit)
    if target is not None:
        q = q.where(a.target == target)
    with engine.connect() as conn:
        rows = conn.execute(q).mappings().all()
    return [{"id": int(row["id"]), "at": round(float(row["at"]), 3), "actor": row["actor"],
             "action": row["action"], "target": row["target"], "reason": row["reason"],
             "detail": json.loads(row["detail"])} for row in rows]


def set_ban(conn: Connection, player_id: str, reason: str | None, at: float) -> bool:
    """Ban ``player_id`` for ``reason`` (None: lift the ban); False when nothing changed (no such player, or
    already so)."""
    p = players_table.c
    if reason is None:
        where = and_(p.id == player_id, p.banned_at.is_not(None))
        values: dict[str, object] = {"banned_at": None, "ban_reason": None}
    else:
        where = and_(p.id == player_id, p.banned_at.is_(None))
        values = {"banned_at": at, "ban_reason": reason}
    return conn.execute(update(players_table).where(where).values(**values, updated_at=at)).rowcount == 1


def rename_by_host(conn: Connection, player_id: str, named: Named | None, at: float) -> str | None:
    """Give ``player_id`` a name (None: anonymous) whatever the player's own rename limits; noted in the name
    changes as the hosts'. Returns the name it replaced."""
    p = players_table.c
    old = conn.execute(select(p.name).where(p.id == player_id).with_for_update()).scalar_one()
    write_name(conn, player_id, named, at)
    conn.execute(insert(name_changes_table).values(player_id=player_id, at=at,
                                                   name=None if named is None else named.name, reason="admin"))
    return None if old is None else str(old)


def close_any_table(conn: Connection, table_id: str, at: float) -> str | None:
    """Close an open lobby table, whoever its host; its host's id, or None if it was not open."""
    t = lobby_tables_table.c
    host = conn.execute(select(t.host_id).where(t.id == table_id, t.status == "open")).scalar()
    if host is None:
        return None
    conn.execute(update(lobby_tables_table).where(t.id == table_id, t.status == "open")
                 .values(status="closed", updated_at=at))
    return str(host)


def open_tables_of(conn: Connection, host_id: str, at: float) -> list[str]:
    """Close every open table ``host_id`` hosts; their ids."""
    t = lobby_tables_table.c
    ids = [str(i) for i in conn.execute(select(t.id).where(t.host_id == host_id, t.status == "open")).scalars()]
    if ids:
        conn.execute(update(lobby_tables_table).where(t.id.in_(ids)).values(status="closed", updated_at=at))
    return ids


# ---------------------------------------------------------------------- reports


def seat_holder(engine: Engine, match_id: str, seat: int) -> tuple[str, str | None] | None:
    """The player recorded at ``seat`` of a match and the name the match showed, or None (a bot, or a seat
    played without a player)."""
    mp = match_players_table.c
    with engine.connect() as conn:
        row = conn.execute(select(mp.player_id, mp.name).where(mp.match_id == match_id, mp.seat == seat)).first()
    return None if row is None else (str(row[0]), None if row[1] is None else str(row[1]))


def add_report(conn: Connection, values: Mapping[str, object]) -> None:
    conn.execute(insert(reports_table).values(**values))


def reports_made(engine: Engine, reporter_id: str, since: float) -> int:
    """How many reports ``reporter_id`` made since ``since``."""
    r = reports_table.c
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).where(r.reporter_id == reporter_id, r.at >= since))
                   .scalar_one())


def already_reported(engine: Engine, reporter_id: str, match_id: str, seat: int) -> bool:
    r = reports_table.c
    with engine.connect() as conn:
        return conn.execute(select(r.id).where(r.reporter_id == reporter_id, r.match_id == match_id,
                                               r.seat == seat).limit(1)).first() is not None


def reports(engine: Engine, include_closed: bool = False, limit: int = 100) -> list[ReportEntry]:
    """The reports, open ones only unless ``include_closed``, oldest first: who reported whom (their names
    now, and the reported player's name in that match), where, why."""
    r = reports_table.c
    reporter, reported = players_table.alias("reporter"), players_table.alias("reported")
    q = (select(r.id, r.at, r.match_id, r.seat, r.reason, r.note, r.closed_at, r.reported_name,
                r.reporter_id, reporter.c.name.label("reporter_name"), r.reported_id,
                reported.c.name.label("reported_now"), reported.c.banned_at)
         .select_from(reports_table.outerjoin(reporter, reporter.c.id == r.reporter_id)
                      .outerjoin(reported, reported.c.id == r.reported_id))
         .order_by(r.at).limit(limit))
    if not include_closed:
        q = q.where(r.closed_at.is_(None))
    with engine.connect() as conn:
        rows = conn.execute(q).all()
    said: dict[tuple[str, str], list[ChatRecord]] = {}
    for line in chat_store.of_matches(engine, sorted({row.match_id for row in rows})):
        said.setdefault((line.match_id or "", line.player_id), []).append(chat_store.record(line))
    return [{"id": row.id, "at": round(float(row.at), 3), "match_id": row.match_id, "seat": int(row.seat),
             "reason": row.reason, "note": row.note, "open": row.closed_at is None,
             "reporter": {"id": row.reporter_id, "name": row.reporter_name},
             "reported": {"id": row.reported_id, "name": row.reported_now, "name_in_match": row.reported_name,
                          "banned": row.banned_at is not None},
             "said": said.get((row.match_id, row.reported_id), [])} for row in rows]


def close_report(conn: Connection, report_id: str, at: float) -> bool:
    r = reports_table.c
    return conn.execute(update(reports_table).where(r.id == report_id, r.closed_at.is_(None))
                        .values(closed_at=at)).rowcount == 1


__all__ = ["add_report", "already_reported", "audit", "audit_log", "close_any_table", "close_report",
           "find_players", "open_tables_of", "rename_by_host", "reports", "reports_made", "seat_holder", "set_ban"]
