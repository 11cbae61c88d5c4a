"""The connections of live matches: admitted, welcomed and leaving, and the send path (each its own view)."""
