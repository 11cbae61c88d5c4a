"""People around the table: the players a player follows (their friends), and challenges between players."""
