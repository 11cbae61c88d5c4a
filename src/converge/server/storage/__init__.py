"""The database, in SQLite or PostgreSQL through SQLAlchemy Core: the schema (:mod:`.schema`, every table in
one module) and its migrations (:mod:`.migrate`, Alembic's revisions in :mod:`.migrations`), opening a
database (:mod:`.database`), the matches' reads and writes (:mod:`.match_store`, on the rows of :mod:`.rows`),
the lobby's (:mod:`.lobby_store`), the writer thread that commits them in groups (:mod:`.writer`), and a
throwaway PostgreSQL cluster for tests and benchmarks (:mod:`.pgcluster`)."""
