"""Moderation: what the server's hosts do about abuse (``converge admin``: rename or ban a player, close a table,
delete a match, read the players' reports and the audit of every host action), and the players' reports of
each other (:mod:`.service`)."""

#: Why a player may report another, with what the report form says of each (the page lists them in this order).
REPORT_REASONS: dict[str, str] = {
    "name": "an offensive or misleading name",
    "abuse": "abuse or harassment",
    "chat": "offensive chat",
    "cheating": "cheating",
    "other": "something else",
}
