"""What the process that owns a match does by itself for it: its clock, its bots, stand-ins for players who
left, the turn-based time checks, and the bot workers that think off the event loop."""
