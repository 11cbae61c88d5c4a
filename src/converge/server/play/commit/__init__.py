"""Changes to live matches: committed to the database first, then taken in by the session and told as events."""
