"""The server's routes, one module per resource: :mod:`.pages` (HTML), :mod:`.site` (options, rules,
tutorial, status), :mod:`.matches` (the match API), :mod:`.match_ws` (a match's WebSocket), :mod:`.lobby`
(names, open tables, ratings, history) and :mod:`.lobby_ws` (the lobby's WebSocket: the tables live, quick
match)."""
