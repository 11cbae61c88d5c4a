"""Tournaments, as rules on paper: who plays whom each round and who stands where, from the games played.

Nothing here knows the server, a clock or a database: a tournament's games go in, pairings and standings come
out, the same on every process and in every test. The formats:

* :mod:`.swiss` — N rounds; each round pairs players of equal score, never twice the same two, balancing who
  moves first (the game's "colour": who starts with the artifact), by the FIDE Dutch rules;
* :mod:`.round_robin` — everyone meets everyone, by the FIDE Berger tables;
* :mod:`.arena` — a fixed duration; whoever is free is paired at once with someone of near rating;

and :mod:`.standings`, the table each format ranks by (points, then its tie-breaks)."""
