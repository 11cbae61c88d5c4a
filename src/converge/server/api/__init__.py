"""The server's surface for clients (FastAPI): the routes per resource (:mod:`.routes`), the HTTP bodies they
read and write (:mod:`.models`), what every route depends on (:mod:`.deps`)."""
