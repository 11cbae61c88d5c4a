"""The server's routes, one module per resource: :mod:`.pages` (HTML), :mod:`.site` (options, rules,
tutorial, status), :mod:`.matches` (the match API), :mod:`.match_ws` (a match's WebSocket) and :mod:`.lobby`
(names, open tables, quick match, ratings, history, and the lobby's WebSocket)."""
