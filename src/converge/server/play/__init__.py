"""Live matches: the game's services of one server process, each unit with its own job and state, composed by
:class:`~converge.server.play.hub.Hub` (whose docstring lists them), grouped by what they do:

* :mod:`.match` — one live match's session (the one writer of its state), its views and turn log; the matches
  made live, acted in, reviewed;
* :mod:`.commit` — changes committed to the database, then taken in and told;
* :mod:`.owner` — what the owning process does by itself: clocks, bots, stand-ins, turn-based time;
* :mod:`.cluster` — several processes on one PostgreSQL;
* :mod:`.viewers` — the connections and the send path;
* :mod:`.process` — the process's life, wall clock, eviction and retention.

Beside them, what every unit shares: :mod:`.ground` and the :mod:`.events` by which units hear of each other."""
