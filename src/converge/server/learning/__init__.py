"""What the site teaches: the rules rendered as pages (:mod:`.rulebook`) and the tutorial (:mod:`.tutorial`)."""
