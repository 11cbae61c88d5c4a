"""Alembic's scripts for the server's database, shipped in the package: the environment (``env.py``), the
revisions (``versions/``) and the template of new ones (``script.py.mako``). They are run by
:func:`converge.server.storage.migrate.upgrade`, configured in code (no ``alembic.ini``);
:mod:`.schema_4` is the schema as version 4 left it, frozen, which the baseline revision creates and the
upgrades of older databases complete (:mod:`.legacy`)."""
