"""The stored names checked and keyed again when the name rules change (:data:`~converge.server.lobby.identity.
NAME_RULES_VERSION`): run by every server as it opens the database, in the opening transaction, one process at a
time (:data:`converge.server.app.AT_OPEN`)."""

from __future__ import annotations

import logging
import time

from sqlalchemy import Connection

from converge.server.lobby.identity import NAME_RULES_VERSION, named
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import lobby_store as store

log = logging.getLogger("converge.server.lobby")


def names_at_open(conn: Connection) -> None:
    """Key the names again if the rules changed since they were last keyed (or never were)."""
    if store.setting(conn, "name_rules_version") == NAME_RULES_VERSION:
        return
    cleared = rekey_names(conn)
    store.set_setting(conn, "name_rules_version", NAME_RULES_VERSION)
    log.info("player names checked and keyed again (%s): %d cleared", NAME_RULES_VERSION, cleared)


def rekey_names(conn: Connection) -> int:
    """Check every stored name against the present rules and store its present keys. Where two names now share
    a key (a case form or a look-alike of each other), the older player (by creation) keeps theirs; a later
    one, or a name the rules now refuse, is cleared: that player plays on anonymous, with their rating and
    history, and may choose another name (a cleared name is not a rename: it does not count against their
    limit); the log names both players of a clash. Returns how many were cleared."""
    players = store.named_players(conn)
    store.forget_name_keys(conn)
    owners: dict[str, tuple[str, str]] = {}  # key -> (player id, name)
    now = time.time()
    cleared = 0
    for pid, name in players:
        why = None
        try:
            checked = named(name)
        except ProtocolError as exc:
            why = f"refused by the name rules: {exc.message}"
        else:
            older = next((owners[k] for k in sorted(checked.keys) if k in owners), None)
            if older is not None:
                why = f"one name with the older player {older[0]}'s {older[1]!r} (a case form or a look-alike)"
        if why is None:
            owners.update(dict.fromkeys(checked.keys, (pid, name)))
            store.write_name(conn, pid, checked, now)
            continue
        log.warning("player %s: name %r cleared: %s", pid, name, why)
        store.clear_name(conn, pid, now)
        cleared += 1
    return cleared
