"""How bytes move: the WebSockets' send queues (:mod:`.connections`), uvicorn's protocols as the server runs
them (:mod:`.serving`), the ASGI types (:mod:`.asgi`)."""
