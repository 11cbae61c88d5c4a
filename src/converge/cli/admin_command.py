"""``converge admin``: the hosts' moderation of a running server, through its hosts' API
(:mod:`converge.server.api.routes.admin`), so that a ban ends the player's matches as the server ends any match.

* ``converge admin players TEXT`` — players by id, name, or part of a name (with their reports and bans);
* ``converge admin rename PLAYER NAME`` / ``--anonymous``; ``ban PLAYER``; ``unban PLAYER`` — each with
  ``--reason``; PLAYER is an id or a whole name (look-alikes count as the same name);
* ``converge admin close-table TABLE``, ``delete-match MATCH``, ``close-report REPORT`` — with ``--reason``;
* ``converge admin reports [--all]``, ``converge admin audit [--limit N] [--target ID]``;
* ``converge admin export PLAYER [-o FILE] [--force]`` — the player's archive, every row that names them (as
  "Download my data" gives it them), written to ``converge-export-<player>.json``;
* ``converge admin mail-test ADDRESS`` — a test mail through the server's mailer: sent, or what failed.

The server is ``--server URL``, else the ``--config`` file's host with ``--port`` or the file's port (8000 by
default: a process started with a ``--port`` of its own, as the systemd unit starts each, needs ``--port``); the
admin token comes from ``CONVERGE_ADMIN_TOKEN`` (or the file's ``admin.token``). Every action is written to the
server's audit with ``--as`` (default: the login name) and the reason. Like ``serve``, it needs the ``web``
extra.
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from converge.cli.common import Subcommands, UserError, add_command, path_text, positive_int, shown_path
from converge.cli.serve_command import port_number, web_command

DEFAULT_SERVER = "http://127.0.0.1:8000"


def _connection(args: argparse.Namespace) -> tuple[str, str]:
    """The server's base URL and the admin token."""
    from converge.server.settings import SettingsError, load_file, resolve

    try:
        tables = load_file(args.config) if args.config is not None else {}
        effective = resolve(tables, where=str(args.config))
    except SettingsError as exc:
        raise UserError(*exc.problems) from None
    token = effective["admin.token"].value
    if not token:
        raise UserError("no admin token: set CONVERGE_ADMIN_TOKEN to the server's admin token (or give --config "
                        "with the server's settings file)")
    base = args.server
    if base is not None and args.port is not None:
        raise UserError("give --server URL or --port N (a process on this machine), not both")
    if base is None:
        host = effective["server.host"].value
        host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        if ":" in host:
            host = f"[{host}]"
        port = args.port if args.port is not None else effective["server.port"].value
        base = f"http://{host}:{port}"
    if not base.startswith(("http://", "https://")):
        raise UserError(f"--server takes a URL such as {DEFAULT_SERVER}, got {base!r}")
    return base.rstrip("/"), str(token)


def _call(args: argparse.Namespace, method: str, path: str, body: dict[str, object] | None = None,
          params: dict[str, str | int] | None = None) -> Any:
    """One request to the hosts' API; its JSON answer (read by key: the hosts' API declares its shape), or a
    UserError that says what went wrong."""
    import httpx2 as httpx

    base, token = _connection(args)
    try:
        r = httpx.request(method, base + path, json=body, params=params, timeout=60,
                          headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise UserError(f"cannot reach the server at {base} ({type(exc).__name__}): is it running? "
                        "(--server URL)") from None
    try:
        doc = r.json()
    except ValueError:
        doc = None
    message = doc["error"]["message"] if isinstance(doc, dict) and "error" in doc else f"HTTP {r.status_code}"
    if r.status_code == 404 and message == "no such page or API endpoint":
        raise UserError(f"the server at {base} does not serve the hosts' API: set its admin token "
                        "(CONVERGE_ADMIN_TOKEN, or [admin] token) and restart it")
    if r.status_code == 401:
        raise UserError(f"the server at {base} refused the admin token (CONVERGE_ADMIN_TOKEN)")
    if r.status_code >= 400:
        raise UserError(message)
    return doc


def _action(args: argparse.Namespace) -> dict[str, object]:
    return {"actor": args.actor or getpass.getuser() or "admin", "reason": args.reason}


def _when(at: float | None) -> str:
    return "-" if at is None else dt.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


def _print(args: argparse.Namespace, doc: object, lines: list[str]) -> None:
    if args.json:
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines))


def _player_path(ref: str, action: str) -> str:
    return f"/api/admin/players/{quote(ref, safe='')}/{action}"


def cmd_players(args: argparse.Namespace) -> int:
    doc = _call(args, "GET", "/api/admin/players", params={"q": args.text})
    lines = []
    for p in doc["players"]:
        name = p["name"] if p["name"] is not None else "(anonymous)"
        state = f"BANNED since {_when(p['banned_at'])}: {p['ban_reason']}" if p["banned"] else "allowed"
        lines.append(f"{p['id']}  {name}  rating {p['rating']}, {p['games']} rated matches, since "
                     f"{_when(p['created_at'])}; {p['open_reports']} open report(s); {state}")
    _print(args, doc, lines or [f"no player has an id or a name holding {args.text!r}"])
    return 0


def _done(args: argparse.Namespace, doc: Any, what: str) -> int:
    detail = doc["detail"]
    lines = [what]
    if doc["action"] == "ban":
        lines.append(f"  matches ended as losses: {len(detail['ended'])}"
                     + (f" ({', '.join(detail['ended'])})" if detail["ended"] else ""))
        if detail["not_ended"]:
            lines.append("  not ended (over meanwhile, or the database was away): "
                         + ", ".join(detail["not_ended"]))
        if detail["tables_closed"]:
            lines.append(f"  open tables closed: {', '.join(detail['tables_closed'])}")
    lines.append("  (written to the audit)")
    _print(args, doc, lines)
    return 0


def cmd_tournaments(args: argparse.Namespace) -> int:
    doc = _call(args, "GET", "/api/admin/tournaments")
    lines = []
    for e in doc["tournaments"]:
        kind = {"swiss": f"Swiss of {e['rounds']} rounds", "arena": f"arena of {e['minutes']} minutes",
                "round_robin": "round robin"}[e["format"]]
        club = ", a club's (by link)" if e["private"] else ""
        lines.append(f"{e['id']}  {e['name']}: {kind}{club}; {e['status']}, round {e['round']}, "
                     f"{e['players']} of {e['max_players']} players")
    _print(args, doc, lines or ["no event yet"])
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", f"/api/admin/tournaments/{quote(args.tournament, safe='')}/{args.what}",
                _action(args))
    return _done(args, doc, f"{args.what}: {doc['detail']['name']} ({doc['target']})")


def cmd_rename(args: argparse.Namespace) -> int:
    if (args.name is None) == (not args.anonymous):
        raise UserError("give the new NAME, or --anonymous")
    doc = _call(args, "POST", _player_path(args.player, "rename"), {**_action(args), "name": args.name})
    shown = "anonymous" if doc["detail"]["to"] is None else repr(doc["detail"]["to"])
    return _done(args, doc, f"renamed {doc['target']} from {doc['detail']['from']!r} to {shown}")


def cmd_ban(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", _player_path(args.player, "ban"), _action(args))
    return _done(args, doc, f"banned {doc['target']} ({doc['detail']['name'] or 'anonymous'})")


def cmd_unban(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", _player_path(args.player, "unban"), _action(args))
    return _done(args, doc, f"lifted the ban of {doc['target']} ({doc['detail']['name'] or 'anonymous'})")


def cmd_close_table(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", f"/api/admin/tables/{quote(args.table, safe='')}/close", _action(args))
    return _done(args, doc, f"closed the table {doc['target']}")


def cmd_delete_match(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", f"/api/admin/matches/{quote(args.match, safe='')}/delete", _action(args))
    return _done(args, doc, f"deleted the match {doc['target']} ({doc['detail']['status']}, "
                            f"{doc['detail']['actions']} actions)")


def cmd_reports(args: argparse.Namespace) -> int:
    doc = _call(args, "GET", "/api/admin/reports", params={"all": "true" if args.all else "false"})
    lines = []
    for r in doc["reports"]:
        who = r["reported"]
        shown = who["name_in_match"] or "anonymous"
        now = f", now {who['name']!r}" if who["name"] != who["name_in_match"] else ""
        lines.append(f"{r['id']}  {_when(r['at'])}  {'open' if r['open'] else 'closed'}: "
                     f"{r['reporter']['name'] or r['reporter']['id']} reports {shown} ({who['id']}{now}"
                     f"{', banned' if who['banned'] else ''}) in match {r['match_id']}: {r['reason']}"
                     + (f" - {r['note']}" if r["note"] else ""))
        lines += [f"    said {_when(s['at'])} ({s['room']}): {s['text']}" for s in r["said"]]
    _print(args, doc, lines or ["no open report" if not args.all else "no report"])
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    doc = _call(args, "GET", f"/api/admin/matches/{quote(args.match, safe='')}/chat")
    lines = [f"{_when(s['at'])}  {s['room']}  {s['name'] or 'anonymous'} ({s['player']}): {s['text']}"
             for s in doc["lines"]]
    _print(args, doc, lines or [f"no chat in match {args.match}"])
    return 0


def cmd_close_report(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", f"/api/admin/reports/{quote(args.report, safe='')}/close", _action(args))
    return _done(args, doc, f"closed the report {doc['target']}")


def _export_path(args: argparse.Namespace) -> Path:
    """Where the archive goes: ``-o FILE``, else ``converge-export-<player>.json`` here; refused (before the
    server is asked) when it exists, unless ``--force``, or when its folder does not."""
    from converge.server.accounts.archive import archive_name

    path = Path(args.output) if args.output is not None else Path(archive_name(args.player, "player"))
    name = shown_path(str(path))
    if path.is_dir():
        raise UserError(f"{name} is a folder: give the file to write (-o FILE)", path=str(path))
    if path.exists() and not args.force:
        raise UserError(f"{name} already exists: give another name (-o FILE), or --force to overwrite it",
                        path=str(path))
    if not path.parent.is_dir():
        raise UserError(f"no folder {shown_path(str(path.parent))} to write the archive in", path=str(path))
    return path


def cmd_export(args: argparse.Namespace) -> int:
    path = _export_path(args)
    doc = _call(args, "POST", _player_path(args.player, "export"), _action(args))
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    # (whole or not there: a half-written archive would look like a player with less data; only its owner may
    # read it: it holds the player's address and every line they wrote)
    partial = path.with_name(f".{path.name}.partial")
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise UserError(f"cannot write {shown_path(str(path))}: {exc.strerror or exc}", path=str(path)) from None
    rows = sum(len(r) for r in doc["tables"].values())
    active = sum(1 for m in doc["matches"] if m["status"] == "active")
    print(f"wrote {path}: {rows} rows from {sum(1 for r in doc['tables'].values() if r)} tables, "
          f"{len(doc['matches'])} matches ({active} in progress, with the player's own view of each) "
          f"of player {doc['player_id']}; other players' ids, secrets and hidden information are left out "
          "(its \"about\" says what); the audit notes the export")
    return 0


def cmd_mail_test(args: argparse.Namespace) -> int:
    doc = _call(args, "POST", "/api/admin/mail-test", {"to": args.address})
    if args.json:
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    if not doc["sent"]:
        raise UserError(f"the test mail to {doc['to']} was not sent: {doc['failure']}")
    if not args.json:
        print(f"sent a test mail to {doc['to']} through {doc['via']}: it was accepted for delivery (look in the "
              "inbox, and in the spam folder)")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    params: dict[str, str | int] = {"limit": args.limit}
    if args.target is not None:
        params["target"] = args.target
    doc = _call(args, "GET", "/api/admin/audit", params=params)
    lines = [f"{_when(e['at'])}  {e['actor']}: {e['action']} {e['target']} - {e['reason']}  "
             f"{json.dumps(e['detail'], ensure_ascii=False)}" for e in doc["entries"]]
    _print(args, doc, lines or ["the audit is empty"])
    return 0


def register(sub: Subcommands) -> None:
    """Add ``admin`` and its actions to the ``converge`` command."""
    p = add_command(sub, "admin")
    p.add_argument("--server", metavar="URL", default=None,
                   help=f"the server (default: the --config file's address, else {DEFAULT_SERVER})")
    p.add_argument("--config", metavar="FILE", type=path_text, default=None,
                   help="the server's settings file: its address and its admin token (CONVERGE_ADMIN_TOKEN wins)")
    p.add_argument("--port", metavar="N", type=port_number, default=None,
                   help="the port of the process to talk to, on the --config file's host (default: the file's "
                        "port, else 8000); a process started with --port, as the systemd unit starts each, needs "
                        "it")
    p.add_argument("--as", dest="actor", metavar="NAME", default=None,
                   help="who you are, for the audit (default: your login name)")
    p.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    actions = p.add_subparsers(dest="admin_command", metavar="ACTION", required=True)

    def reason(q: argparse.ArgumentParser) -> None:
        q.add_argument("--reason", required=True, help="why (kept in the audit; a ban's is shown to the player)")

    q = actions.add_parser("players", help="find players by id, name or part of a name")
    q.add_argument("text", metavar="TEXT")
    q.set_defaults(func=web_command(cmd_players))
    q = actions.add_parser("rename", help="give a player another name (or none), whatever their rename limits")
    q.add_argument("player", metavar="PLAYER", help="an id, or a whole name")
    q.add_argument("name", metavar="NAME", nargs="?", default=None)
    q.add_argument("--anonymous", action="store_true", help="take the player's name away")
    reason(q)
    q.set_defaults(func=web_command(cmd_rename))
    q = actions.add_parser("ban", help="ban a player: they cannot open, join or queue, and their matches in "
                                       "progress end as losses")
    q.add_argument("player", metavar="PLAYER", help="an id, or a whole name")
    reason(q)
    q.set_defaults(func=web_command(cmd_ban))
    q = actions.add_parser("unban", help="lift a player's ban")
    q.add_argument("player", metavar="PLAYER", help="an id, or a whole name")
    reason(q)
    q.set_defaults(func=web_command(cmd_unban))
    q = actions.add_parser("close-table", help="close an open lobby table, whoever its host")
    q.add_argument("table", metavar="TABLE")
    reason(q)
    q.set_defaults(func=web_command(cmd_close_table))
    q = actions.add_parser("delete-match", help="delete a match and its record (one in progress ends with it)")
    q.add_argument("match", metavar="MATCH")
    reason(q)
    q.set_defaults(func=web_command(cmd_delete_match))
    q = actions.add_parser("reports", help="the players' reports, open ones first")
    q.add_argument("--all", action="store_true", help="the closed ones too")
    q.set_defaults(func=web_command(cmd_reports))
    q = actions.add_parser("chat", help="every chat line of a match (a reported one's), its players' and "
                                        "its spectators'")
    q.add_argument("match", metavar="MATCH")
    q.set_defaults(func=web_command(cmd_chat))
    q = actions.add_parser("close-report", help="mark a report as handled")
    q.add_argument("report", metavar="REPORT")
    reason(q)
    q.set_defaults(func=web_command(cmd_close_report))
    q = actions.add_parser("tournaments", help="every event, a club's too")
    q.set_defaults(func=web_command(cmd_tournaments))
    q = actions.add_parser("tournament", help="start, pause, resume or cancel an event, whoever hosts it")
    q.add_argument("what", choices=("start", "pause", "resume", "cancel"))
    q.add_argument("tournament", metavar="EVENT", help="the event's id (`converge admin tournaments`)")
    reason(q)
    q.set_defaults(func=web_command(cmd_tournament))
    q = actions.add_parser("export", help="write a player's archive: every row of the database that names "
                                          "them, and nothing of any other player")
    q.add_argument("player", metavar="PLAYER", help="an id, or a whole name")
    q.add_argument("-o", "--output", metavar="FILE", type=path_text, default=None,
                   help="the file to write (default: converge-export-<player>.json here)")
    q.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    q.add_argument("--reason", default="a copy of the player's data", help="why (kept in the audit)")
    q.set_defaults(func=web_command(cmd_export))
    q = actions.add_parser("mail-test", help="send a test mail through the server's mailer and say whether it "
                                             "was accepted, or exactly what failed")
    q.add_argument("address", metavar="ADDRESS")
    q.set_defaults(func=web_command(cmd_mail_test))
    q = actions.add_parser("audit", help="every host action, newest first")
    q.add_argument("--limit", type=positive_int, default=100, metavar="N", help="at most N entries (100)")
    q.add_argument("--target", default=None, metavar="ID", help="only the actions on this player, table...")
    q.set_defaults(func=web_command(cmd_audit))
