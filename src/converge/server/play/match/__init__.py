"""One live match: its session (the one writer of its state), what its viewers see, its turn log; the matches
made live, loaded, acted in and reviewed; what a match may be and how many an address may make."""
