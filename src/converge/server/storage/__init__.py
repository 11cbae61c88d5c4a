"""The database: matches (:mod:`.match_store`) and the lobby's tables (:mod:`.lobby_store`) in SQLite or
PostgreSQL, through SQLAlchemy Core; a throwaway PostgreSQL cluster for tests and benchmarks
(:mod:`.pgcluster`)."""
