"""Live matches: the game's services of one server process (:class:`~converge.server.play.hub.Hub` composes
them)."""
