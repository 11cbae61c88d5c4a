"""Puzzles: "win this round" positions taken from finished matches, solved exactly.

A puzzle is a decision of a finished match, late in a round (the deck empty), where one play — a card and how
to play it, with its targets — wins the round *in every world consistent with the mover's view*, whatever the
opponent replies, while the other cards do not (:mod:`.judge`). It is shown as the mover saw it at the table
and nothing more: the puzzle's record, which replays the whole deal, stays with whoever serves it.

* :mod:`.model` — a puzzle and a set of them as data (``shipped.json`` is the package's set);
* :mod:`.judge` — what wins at a decision, the opponent's replies, and an attempt judged step by step;
* :mod:`.themes` — what a solution does, in words (take the artifact, declare a goal, convert...);
* :mod:`.make` — the generator: puzzles from match records, or from a bot-vs-bot series;
* :mod:`.rating` — an attempt as a rated game between the player and the puzzle (Glicko-2, both move).
"""
