"""The contract between the server and its clients: every message both ways, on the WebSockets and over HTTP,
declared once as a TypedDict (:mod:`.messages`); the error codes with their HTTP statuses, the error a
refusal raises and the WebSocket close codes (:mod:`.errors`); the checking of what clients send
(:mod:`.parse`)."""
