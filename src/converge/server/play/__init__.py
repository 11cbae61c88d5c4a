"""Live matches: the game's services of one server process, each unit with its own job and state, composed by
:class:`~converge.server.play.hub.Hub` (whose docstring lists them)."""
