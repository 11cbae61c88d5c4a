"""What keeps players' seats and the server safe: tokens (:mod:`.tokens`), rate limits and connection counts
(:mod:`.limits`), the origin check (:mod:`.origins`) and the headers and checks in front of every route
(:mod:`.middleware`)."""
