"""Words for players: what is being decided, each choice, and what happened, from one viewer's side.

Players are named the way the board names them: a seated viewer reads "you" and "they"/"them"/"their",
a spectator "player 0" and "player 1" ("their own" for the player acting). Every card that enters a
faction is said to go into *whose* faction. Everything here reads only what the viewer may know;
nothing names a hidden card.

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
>>> Narrator(m.playset, 0).line(m.events[0])
'Round 1 begins; you hold the artifact.'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from converge.engine.actions import DECLARE, DISCARD, DONE, MINE, SKILLSET_0, THEIRS
from converge.engine.events import (
    ARTIFACT,
    CONVERT,
    DEALT,
    DISCARDED,
    DRAW,
    DREW,
    GUARD,
    HANDS_EMPTY,
    MATCH_END,
    MOVE,
    PASS,
    PLAY,
    RESOLVE,
    REVEAL,
    REVERT,
    ROUND_END,
    ROUND_START,
    SAW,
    SCORE,
    SEARCH,
    START_DISCARD,
    TOOK,
    Event,
    PublicTracker,
)
from converge.engine.turn import START
from converge.engine.zones import DECK, DISCARD_PILE, FACTION, GOAL_AREA, is_faction, is_hand

if TYPE_CHECKING:
    from converge.engine.playset import Playset
    from converge.engine.state import Match


def _third_person(verb: str) -> str:
    """'add' -> 'adds', 'pass' -> 'passes', 'study' -> 'studies' (the first word of a phrase)."""
    word, _, rest = verb.partition(" ")
    if word.endswith(("s", "sh", "ch", "x")):
        word += "es"
    elif word.endswith("y") and word[-2:-1] not in "aeiou":
        word = word[:-1] + "ies"
    else:
        word += "s"
    return f"{word} {rest}" if rest else word


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


class Narrator:
    """Turns events into sentences for one viewer (0 or 1; -1 for a spectator).

    It follows the public events (a :class:`~converge.engine.events.PublicTracker`) to know which effect
    is resolving, so feed it the viewer's events in order with :meth:`line`.
    """

    def __init__(self, playset: Playset, viewer: int, names: tuple[str, str] = ("player 0", "player 1")) -> None:
        self.playset = playset
        self.viewer = viewer
        #: how a spectator's narration names the seats (a client may name them "Player 1" and "Player 2")
        self.names = names
        self.tracker = PublicTracker(playset.printed_skill, playset.printed_rank)

    # ------------------------------------------------------------------ naming

    def subject(self, player: int) -> str:
        """The player as the subject of a sentence: you / they / player N."""
        if self.viewer in (0, 1):
            return "you" if player == self.viewer else "they"
        return self.names[player]

    def object(self, player: int) -> str:
        if self.viewer in (0, 1):
            return "you" if player == self.viewer else "them"
        return self.names[player]

    def possessive(self, player: int, actor: int = -1, own: str = " own") -> str:
        """Whose (hand, faction): your / their; for a spectator, the ``actor``'s (their own) or player N's."""
        if self.viewer in (0, 1):
            return "your" if player == self.viewer else "their"
        return f"their{own}" if player == actor else f"{self.names[player]}'s"

    def pronoun(self, player: int) -> str:
        """The subject named again in the same sentence: you / they."""
        return "you" if player == self.viewer else "they"

    def verb(self, player: int, verb: str) -> str:
        """``verb`` agreeing with the subject ``player``: "you add", "they add", "player 1 adds"."""
        return verb if self.viewer in (0, 1) else _third_person(verb)

    def does(self, player: int, verb: str) -> str:
        return f"{self.subject(player)} {self.verb(player, verb)}"

    def zone(self, zone: int, actor: int) -> str:
        if is_hand(zone):
            return f"{self.possessive(zone, actor, '')} hand"
        if is_faction(zone):
            return f"{self.possessive(zone - FACTION, actor)} faction"
        if zone == DISCARD_PILE:
            return "the discard pile"
        if zone == GOAL_AREA:
            return "the goal area"
        if zone == DECK:
            return "the top of the deck"
        return "nowhere"

    def card(self, card: int) -> str:
        return self.playset.card_ids[card] if card >= 0 else "a card"

    def keyword(self, card: int) -> str:
        return self.playset.effect_kind[card].keyword if card >= 0 else "the effect"

    # ------------------------------------------------------------------ events

    def follow(self, event: Event) -> None:
        """Take ``event`` into account without saying it (the viewer already read it)."""
        self.tracker.step(event)

    def line(self, event: Event) -> str:
        """One event as a sentence (capitalised, with a full stop)."""
        text = self._text(event)
        self.tracker.step(event)
        return text[:1].upper() + text[1:] + "."

    def _text(self, event: Event) -> str:
        kind, _vis, p, card, a, b = event
        name = self.card(card)
        ps = self.playset
        resolving = self.tracker.resolving
        if kind == ROUND_START:
            return f"round {a} begins; {self.does(p, 'hold')} the artifact"
        if kind == START_DISCARD:
            return f"{name} starts the discard pile"
        if kind == DEALT:
            return f"{self.subject(p)} were dealt {name}" if self.viewer == p else f"{self.does(p, 'get')} {name}"
        if kind == PLAY:
            if a == DISCARD:
                return f"{self.does(p, 'discard')} {name} for its effect: {self.keyword(card)}"
            if a == DECLARE:
                goal = ps.cards[card].goal
                return f"{self.does(p, 'declare')} {name} as a shared goal: {goal.text} {'★' * goal.stars}"
            return f"{self.does(p, 'add')} {name} to {self.possessive(b, p)} faction"
        if kind == PASS:
            return f"{self.does(p, 'pass')}: {self.possessive(p, p, '')} hand is empty"
        if kind == RESOLVE:
            return (f"{self.does(p, 'use')} {self.keyword(resolving)} on {name}: its effect, "
                    f"{self.keyword(card)}, resolves now")
        if kind == MOVE:
            verb = "take" if is_hand(b) else "add" if is_hand(a) else "move"
            return (f"{self.does(p, verb)} {name} from {self.zone(a, p)} into {self.zone(b, p)} "
                    f"({self.keyword(resolving)})")
        if kind == CONVERT:
            return f"{self.does(p, 'convert')} {name} to {ps.skillsets[a]} {b}"
        if kind == REVERT:
            return f"{name} reverts to {ps.skillsets[a]} {b}: its conversion lasted until the end of the turn"
        if kind == GUARD:
            return (f"{self.does(p, 'guard')} {name}: {self.subject(1 - p)} cannot move, remove or convert it "
                    "this round")
        if kind == REVEAL:
            return f"{self.does(p, 'reveal')} {name} from the top of the deck"
        if kind == SEARCH:
            if a <= 0:
                return f"{self.does(p, 'search')} the deck, but it is empty"
            cards = "card" if a == 1 else f"{a} cards"
            return (f"{self.does(p, 'search')} the top {cards} of the deck and "
                    f"{self.verb(p, 'take')} one into {self.possessive(p, p, '')} hand")
        if kind == SAW:
            return f"{self.does(p, 'see')} {name}, {_ordinal(a + 1)} from the top"
        if kind == TOOK:
            return f"{self.does(p, 'take')} {name} into {self.possessive(p, p, '')} hand"
        if kind == DISCARDED:
            if b and a == 0:
                how = f"; {self.does(p, 'decline')} its effect"
            elif b:
                how = f"; {self.does(p, 'decline')} the rest of its effect"
            elif a == 0:
                how = "; its effect had nothing to do"
            else:
                how = ""
            return f"{name} goes to the discard pile{how}"
        if kind == SCORE:
            if self.viewer in (0, 1):
                me, them = (a, b) if self.viewer == 0 else (b, a)
                return f"end of turn: you score {me}, they score {them}"
            return f"end of turn: {self.names[0]} scores {a}, {self.names[1]} scores {b}"
        if kind == ARTIFACT:
            return (f"the artifact passes to {self.object(p)}: {self.pronoun(p)} scored more than the lead "
                    "this turn")
        if kind == DRAW:
            return f"{self.does(p, 'draw')} a card"
        if kind == DREW:
            return f"{self.subject(p)} drew {name}"
        if kind == ROUND_END:
            who = self.pronoun(p)
            if a == HANDS_EMPTY:
                why = f"both hands are empty and {who} hold the artifact"
            else:
                why = f"{who} held the artifact and scored more"
            return f"{self.does(p, 'win')} round {b}: {why}"
        if kind == MATCH_END:
            return f"{self.does(p, 'win')} the match"
        return f"event {kind}"


def narrate(match: Match, viewer: int) -> list[str]:
    """Every event ``viewer`` may see, as sentences, oldest first."""
    narrator = Narrator(match.playset, viewer)
    return [narrator.line(e) for e in match.events if e[1] < 0 or e[1] == viewer]


# ---------------------------------------------------------------------- decisions

def decision_prompt(match: Match) -> str:
    """What the current player is deciding, e.g. ``"player 0: choose a card from your hand to play"``."""
    kind = match.decision_kind
    if kind == "over":
        return "the match is over"
    if kind == "chance":
        if match.turn.phase == START:
            return "chance: who holds the artifact in round 1"
        return "chance: the next card of the deal"
    who = f"player {match.current_player}"
    if kind == "select":
        return f"{who}: choose a card from your hand to play"
    if kind == "mode":
        return f"{who}: choose how to play the card (discard, declare, mine, theirs)"
    e = match.effect
    assert e.kind is not None
    return f"{who}: {e.kind.prompt(e.step)}"


def action_label(match: Match, action: int, viewer: int) -> str:
    """A label for one of the current player's legal actions, for menus."""
    ps = match.playset
    if 0 <= action < len(ps.card_ids):
        card = ps.cards[action]
        label = f"{card.id} {card.name} ({card.skillset} {match.zones.rank[action]})"
        return f"play {label}" if match.decision_kind == "select" else label
    if action == DISCARD:
        return f"discard it for its effect ({ps.effect_kind[match.turn.active].keyword})"
    if action == DECLARE:
        return "declare it as a shared goal"
    if action == MINE:
        return "add it to your faction"
    if action == THEIRS:
        return "add it to your opponent's faction"
    if action == DONE:
        return "done: decline the rest of the effect"
    return f"convert to {ps.skillsets[action - SKILLSET_0]}"
