"""The server's routes, one module per resource: :mod:`.pages` (HTML), :mod:`.site` (options, rules,
tutorial, status), :mod:`.matches` (the match API) and :mod:`.live` (the WebSocket)."""
