"""The revisions, oldest first: ``v0001_baseline`` is the schema of version 4, the last hand-numbered one."""
