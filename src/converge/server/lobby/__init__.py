"""Finding opponents: players and their names (:mod:`.identity`), the lobby's tables and quick match
(:mod:`.service`, :mod:`.matchmaking`), ratings on finish."""
