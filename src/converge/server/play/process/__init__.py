"""One server process's life: closing, its jobs, its wall clock, eviction from memory and the retention
clean-up."""
