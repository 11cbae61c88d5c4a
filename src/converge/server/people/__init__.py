"""People around the table (issue 42): chat, the players a player follows (their friends), and challenges
between players."""
