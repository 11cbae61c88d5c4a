"""Several server processes on one PostgreSQL: who owns which match, and keeping each copy in step."""
