"""The vocabulary a card file may use: named goal kinds and effect kinds with typed parameters.

A card file can only name what is declared here; the loader validates every parameter against its
declaration, and the printed text of a card is generated from the same declarations, so text and
behaviour can never disagree.

>>> GOAL_KINDS["consecutive_ranks"].params[0].name
'count'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ParamValue = int | bool | str

#: A skillset-valued parameter may name a skillset or say "own": the card's own skillset.
OWN = "own"


@dataclass(frozen=True)
class Param:
    """One parameter of a goal or an effect: its name, type, bounds and default."""

    name: str
    type: str  # "int", "bool", "skillset" or "choice"
    default: ParamValue | None = None  # None: required
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    doc: str = ""


@dataclass(frozen=True)
class Kind:
    """A goal kind or an effect kind: the name a card file uses and the parameters it takes."""

    name: str
    code: int
    params: tuple[Param, ...]
    doc: str
    keyword: str = ""  # effects only: the keyword printed on the card

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def _skillset(doc: str = "the skillset; \"own\" is the card's own") -> Param:
    return Param("skillset", "skillset", OWN, doc=doc)


def _count(low: int, high: int, default: int | None = None, doc: str = "how many") -> Param:
    return Param("count", "int", default, low, high, doc=doc)


_GOALS: tuple[Kind, ...] = (
    Kind("highest_skillset", 0, (_skillset(),), "the single highest-ranked card of a skillset"),
    Kind("lowest_skillset", 1, (_skillset(),), "the single lowest-ranked card of a skillset"),
    Kind("most_skillset", 2, (_skillset(),), "strictly more cards of a skillset"),
    Kind("fewest_skillset", 3, (_skillset(),), "strictly fewer cards of a skillset (zero counts)"),
    Kind("most_skillsets", 4, (), "strictly more different skillsets"),
    Kind("highest_rank_total", 5, (), "strictly higher rank total"),
    Kind("lowest_rank_total", 6, (), "strictly lower rank total (an empty faction cannot win)"),
    Kind("most_cards", 7, (), "strictly more cards"),
    Kind("fewest_cards", 8, (), "strictly fewer cards (zero counts)"),
    Kind("consecutive_ranks", 9, (_count(2, 6),), "N cards with consecutive ranks"),
    Kind("different_ranks", 10, (_count(2, 6),), "N cards with different ranks"),
    Kind("same_rank", 11, (_count(2, 4),), "N cards of the same rank"),
    Kind("one_skillset", 12, (_count(2, 6),), "N cards of one skillset"),
    Kind("each_skillset", 13, (), "one card of each skillset in the playset"),
    Kind("rank_total", 14, (Param("at_least", "int", None, 1, 60, doc="the total to reach"),),
         "a rank total of at least T"),
)

#: Goal kinds that give their stars only to a single strict winner (T5).
SINGLE_WINNER_GOALS = frozenset(k.name for k in _GOALS if k.code <= 8)

_EFFECTS: tuple[Kind, ...] = (
    Kind("convert", 0, (
        _count(1, 2, 1, "how many cards (more than one: up to that many)"),
        Param("skillset", "choice", "own", choices=("own", "choose", "keep"),
              doc="own: this card's skillset (C3); choose: one of the playset's (C4); keep: unchanged"),
        Param("rank_delta", "int", 0, -2, 2, doc="added to the rank, which stays within 1..6"),
        Param("duration", "choice", "permanent", choices=("permanent", "turn"),
              doc="turn: reverts at the end of this turn, after scoring (C6)"),
    ), "change the skillset and/or rank of a card in a faction", keyword="Convert"),
    Kind("assemble", 1, (_count(1, 2, 1, "how many top cards of the deck"),),
         "reveal the top card of the deck and add it to a faction", keyword="Assemble"),
    Kind("recall", 2, (
        _count(1, 2, 1, "how many cards, up to"),
        Param("max_rank", "int", 6, 1, 6, doc="only cards of at most this rank"),
        Param("from_faction", "bool", False, doc="may also take a card from a faction"),
    ), "take a card from the discard pile into your hand", keyword="Recall"),
    Kind("guard", 3, (_count(1, 3, 1, "how many cards, up to"),),
         "cards in your faction cannot be moved, removed or converted by the opponent this round",
         keyword="Guard"),
    Kind("search", 4, (Param("depth", "int", None, 1, 5, doc="how many top cards to look at"),),
         "look at the top N cards of the deck, take one into your hand", keyword="Search"),
    Kind("trade", 5, (
        Param("with_hand", "bool", True, doc="may exchange a card in your hand with one in a faction"),
        Param("between_factions", "bool", False, doc="may exchange two cards between factions"),
    ), "exchange a card in your hand with a card in a faction, or two cards between factions",
         keyword="Trade"),
    Kind("expand", 6, (_count(1, 3, 1, "how many cards, up to"),),
         "add cards from your hand to factions", keyword="Expand"),
    Kind("study", 7, (Param("max_rank", "int", 6, 1, 6, doc="only cards of at most this rank"),),
         "resolve the discard effect of a card of another skillset in the discard pile as this card's",
         keyword="Study"),
    Kind("heal", 8, (
        _count(1, 2, 1, "how many cards"),
        Param("max_rank", "int", 6, 1, 6, doc="only cards of at most this rank"),
    ), "move a card from the discard pile into a faction", keyword="Heal"),
)

GOAL_KINDS: Mapping[str, Kind] = {k.name: k for k in _GOALS}
EFFECT_KINDS: Mapping[str, Kind] = {k.name: k for k in _EFFECTS}
GOALS_BY_CODE: tuple[Kind, ...] = _GOALS
EFFECTS_BY_CODE: tuple[Kind, ...] = _EFFECTS


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def goal_text(kind: str, params: Mapping[str, ParamValue]) -> str:
    """The printed text of a goal, e.g. ``goal_text("most_skillset", {"skillset": "Healer"})``.

    >>> goal_text("consecutive_ranks", {"count": 3})
    '3 cards with consecutive ranks'
    """
    s = params.get("skillset", "")
    n = params.get("count", 0)
    texts = {
        "highest_skillset": f"Highest {s}",
        "lowest_skillset": f"Lowest {s}",
        "most_skillset": f"Most {s}",
        "fewest_skillset": f"Fewest {s}",
        "most_skillsets": "Most different skillsets",
        "highest_rank_total": "Highest rank total",
        "lowest_rank_total": "Lowest rank total",
        "most_cards": "Most cards",
        "fewest_cards": "Fewest cards",
        "consecutive_ranks": f"{n} cards with consecutive ranks",
        "different_ranks": f"{n} cards with different ranks",
        "same_rank": f"{n} cards of the same rank",
        "one_skillset": f"{n} cards of one skillset",
        "each_skillset": "One card of each skillset",
        "rank_total": f"Rank total of {params.get('at_least', 0)} or more",
    }
    return texts[kind]


def effect_text(kind: str, params: Mapping[str, ParamValue], own_skillset: str) -> str:
    """The printed text of a discard effect, generated from its parameters.

    >>> effect_text("search", {"depth": 3}, "Searcher")
    'Search 3: look at the top 3 cards of the deck, take 1 into your hand and put the rest back in order.'
    """
    p = params
    if kind == "convert":
        count = int(p["count"])
        what = "a card" if count == 1 else f"up to {count} cards"
        delta = int(p["rank_delta"])
        until = " until the end of the turn" if p["duration"] == "turn" else ""
        if p["skillset"] == "keep":
            if not delta:
                return f"Convert: {what} in a faction keeps its skillset and rank (no change)."
            direction = "raise" if delta > 0 else "lower"
            return f"Convert: {direction} the rank of {what} in a faction by {abs(delta)}{until}."
        parts = []
        if p["skillset"] == "own":
            parts.append(f"to {own_skillset}")
        else:
            parts.append("to a skillset of your choice in this playset")
        if delta:
            parts.append(f"{'raise' if delta > 0 else 'lower'} its rank by {abs(delta)}")
        return f"Convert: convert {what} in a faction {' and '.join(parts)}{until}."
    if kind == "assemble":
        count = int(p["count"])
        what = "the top card" if count == 1 else f"the top {count} cards, one at a time,"
        return f"Assemble: reveal {what} of the deck and add it to a faction of your choice."
    if kind == "recall":
        count = int(p["count"])
        where = "the discard pile or a faction" if p["from_faction"] else "the discard pile"
        limit = "" if int(p["max_rank"]) >= 6 else f" of rank {p['max_rank']} or lower"
        return f"Recall: take up to {_plural(count, 'card')}{limit} from {where} into your hand."
    if kind == "guard":
        return (f"Guard: choose up to {_plural(int(p['count']), 'card')} in your faction; your opponent "
                "cannot move, remove or convert them this round.")
    if kind == "search":
        d = int(p["depth"])
        if d == 1:
            return "Search 1: take the top card of the deck into your hand."
        return (f"Search {d}: look at the top {d} cards of the deck, take 1 into your hand"
                " and put the rest back in order.")
    if kind == "trade":
        options = []
        if p["with_hand"]:
            options.append("a card in your hand with a card in a faction")
        if p["between_factions"]:
            options.append("a card in your faction with a card in your opponent's")
        return f"Trade: you may exchange {', or '.join(options)}."
    if kind == "expand":
        return f"Expand: add up to {_plural(int(p['count']), 'card')} from your hand to factions."
    if kind == "study":
        limit = "" if int(p["max_rank"]) >= 6 else f" of rank {p['max_rank']} or lower"
        return (f"Study: resolve the discard effect of a card{limit} of another skillset in the discard "
                "pile as if it were this card's.")
    if kind == "heal":
        count = int(p["count"])
        limit = "" if int(p["max_rank"]) >= 6 else f" of rank {p['max_rank']} or lower"
        what = "a card" if count == 1 else f"up to {count} cards"
        return f"Heal: move {what}{limit} from the discard pile into a faction of your choice."
    raise KeyError(kind)
