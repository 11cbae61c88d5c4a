"""Puzzles on the server (:mod:`.service`): stored, shown as their mover saw them, judged, rated, made anew from
finished matches."""
