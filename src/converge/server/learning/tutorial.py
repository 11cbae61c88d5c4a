"""The tutorial: a scripted first round from a fixed position, played in the browser.

The newcomer (player 0) holds the artifact and leads; a scripted opponent answers. In three turns they
declare a goal, add a card to their faction and discard a card for its effect; they see the end-of-turn
scoring, the artifact pass to the opponent and back, and win the round by outscoring while holding it.

Every state the page shows is the engine's: :func:`script` replays the position move by move and takes
``observation(0)`` and the table's extras (:mod:`converge.server.play.match.turnlog`) after each move. The page
lets the player take only the move the instruction asks for. Each instruction names what to press in quotes, in
the words on the screen (a card's or a choice's label, or a button), so it can be followed to the letter.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from converge.cards.palette import COLOR_NAMES
from converge.engine.observation import card_catalog
from converge.engine.state import Match
from converge.server.play.match.turnlog import TurnLog, follow_ups

PLAYSET = ["alchemist", "mechanist", "archivist"]

#: A fresh deal, fixed: player 0 (the newcomer) holds the artifact. Deck: top card first.
POSITION: dict[str, object] = {
    "format": "converge-position", "version": 1, "playset": PLAYSET, "seed": 7, "round": 1,
    "round_wins": [0, 0], "turn": 1, "artifact_holder": 0, "lead": 0, "to_play": 0,
    "hands": [["MEC4", "MEC6", "ALC1"], ["MEC2", "ARC5", "ALC3"]],
    "deck": ["MEC3", "ARC1", "ALC4", "ALC5", "ARC3", "ALC2", "ALC6", "MEC1", "MEC5", "ARC2"],
    "artifact": "ARC6", "discard": ["ARC4"], "goals": [], "factions": [[], []],
}


@dataclass(frozen=True)
class Step:
    """One step of the script: a move (``action``, by ``player``) or, with no action, a pause in which
    the page explains and waits for "Next". ``text`` is what the page says while the step is current."""

    text: str
    action: str | None = None
    player: int = 0


YOU, THEM = 0, 1

STEPS: tuple[Step, ...] = (
    Step("Welcome to Converge! This tutorial plays one round with you against a scripted opponent. The "
         "cards in your hand are at the bottom; the goals, the factions and the artifact are above them. "
         "Press “Next” to begin."),
    Step("You hold the artifact, so you lead: you play first this turn. There are three ways to play a card. "
         "First, make one a shared goal. Choose “MEC4 Piston Smith” in your hand.", "MEC4"),
    Step("Nothing is played yet: you can still take the card back. Its goal is Highest Mechanist ★. "
         "Choose “declare it as a shared goal”.", "declare"),
    Step("Your goal is in the goal area, for both players. Now your opponent plays.", "MEC2", THEM),
    Step("They add MEC2 to their own faction.", "mine", THEM),
    Step("The turn is over, and goals are scored at the end of every turn. Their faction has the highest "
         "Mechanist (a 2; you have none), so they score 1 star and you score 0. They outscored you, the "
         "lead, so the artifact passes to them: they lead the next turn. Each player has drawn a card. "
         "Press “Next”."),
    Step("They hold the artifact and lead 1 to 0: if they still have more points at the end of this turn, "
         "they win the round.", "ARC5", THEM),
    Step("They declare ARC5, a second goal: Most different skillsets ★.", "declare", THEM),
    Step("The second way to play: add a card to a faction. A Mechanist 6 beats their 2. "
         "Choose “MEC6 Master Artificer” in your hand.", "MEC6"),
    Step("Choose “add it to your faction”.", "mine"),
    Step("You have the highest Mechanist now, so you score 1 and they score 0 (you each have one skillset: "
         "nobody has the most different ones). You outscored the lead, so the artifact passes back to you. "
         "Press “Next”."),
    Step("You lead again, ahead 1 to 0. Hold that lead to the end of this turn and you win the round. "
         "The third way to play: discard a card for its effect. Your MEC3 can Assemble: reveal the top card "
         "of the deck and add it to a faction. Choose “MEC3 Gear Wright” in your hand.", "MEC3"),
    Step("Choose “discard it for its effect (Assemble)”.", "discard"),
    Step("The top card of the deck is ARC3, an Archivist. A second skillset in your faction guards the goal "
         "Most different skillsets. Choose “add it to your faction”.", "mine"),
    Step("Now they answer.", "ARC1", THEM),
    Step("They add ARC1 to their faction: two skillsets each.", "mine", THEM),
    Step("You won the round! You held the artifact and scored more at the end of the turn: 1 to 0, with "
         "the highest Mechanist (two skillsets each is a tie, so nobody scores that goal). The first player "
         "to win two rounds wins the match. The round's summary is on the table. Press “Finish” to end the "
         "tutorial."),
)


def _action_id(match: Match, text: str) -> int:
    return match.parse_action(text)


@lru_cache(maxsize=1)
def script() -> dict[str, object]:
    """The tutorial as the page plays it: the cards, and for each step the instruction, the move the
    player must make (``expect``, an action id; None for the opponent's moves and the pauses) and the
    state after the step's move, as the server would send it to player 0."""
    match = Match.from_position(POSITION)
    log = TurnLog(match)
    colors = {d.skillset: COLOR_NAMES.get(d.color, d.color) for d in match.playset.decks}
    steps: list[dict[str, object]] = []
    seq = 0
    for step in STEPS:
        entry: dict[str, object] = {"text": step.text, "player": step.player, "expect": None, "state": None}
        if step.action is not None:
            if match.current_player != step.player:
                raise ValueError(f"tutorial step {step.text[:40]!r}: player {step.player} is not to play")
            aid = _action_id(match, step.action)
            if aid not in match.legal_actions():
                raise ValueError(f"tutorial step {step.text[:40]!r}: {step.action} is not legal")
            entry["expect"] = aid
            match.apply(aid)
            seq += 1
            new = log.follow(match)
            entry["state"] = {"seq": seq, "observation": match.observation(YOU), "next": follow_ups(match, YOU),
                              "turns": [log.summary(s, YOU) for s in new]}
        steps.append(entry)
    start = Match.from_position(POSITION)
    return {"cards": card_catalog(start), "colors": colors, "seat": YOU,
            "start": {"seq": 0, "observation": start.observation(YOU), "next": follow_ups(start, YOU)},
            "steps": steps}
