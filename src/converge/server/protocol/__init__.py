"""The contract between the server and its clients, each message declared once as a TypedDict: the
WebSockets' messages both ways and the parts they share (:mod:`.messages`), the HTTP API's answers
(:mod:`.answers`), the error codes with their HTTP statuses, the error a refusal raises and the WebSocket
close codes (:mod:`.errors`), and the checking of what clients send (:mod:`.parse`)."""
