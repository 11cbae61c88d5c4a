"""Finding opponents: the players and their names (:mod:`.identity`, :mod:`.players`), the lobby's tables
(:mod:`.tables`) and the matches made for players (:mod:`.seating`), quick match (:mod:`.quick`, its queue
:mod:`.matchmaking`), ratings on finish (:mod:`.ratings`), the lobby's live pages (:mod:`.room`); composed by
:class:`~converge.server.lobby.service.Lobby`."""
