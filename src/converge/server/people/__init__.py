"""People around the table: chat, follows, challenges (issue 42)."""
