"""The contract between the server and its clients: the error codes and their statuses (:mod:`.errors`) and
the checking of what clients send (:mod:`.parse`)."""
