"""The JSON documents the engine gives out, typed once: an observation and its parts, its events, and the
printed cards of a playset.

:meth:`~converge.engine.state.Match.observation` builds an :class:`Observation`; the terminal, the adapters
and the server read it through these types (mypy checks every key), and the server's OpenAPI description
is generated from them. An event's fields beyond ``kind``, ``player``, ``card`` and ``text`` are those its
kind's schema names (:data:`converge.engine.events.SCHEMA`, listed in docs/events.md).

The types come from ``typing_extensions`` so that Pydantic (the server's models) can read them on every
Python the package supports.
"""

# No ``from __future__ import annotations`` here: which keys are NotRequired must be known at run time (tests
# and Pydantic read ``__required_keys__``), and string annotations would hide it.
from typing import NotRequired, Required

from typing_extensions import TypedDict


class CardInPlay(TypedDict):
    """A card in a faction: what it is now and what is printed on it (C8), and who guards it."""

    id: str
    skillset: str
    rank: int
    printed_skillset: str
    printed_rank: int
    converted: bool
    until_end_of_turn: bool
    guarded_by: int | None


class LegalAction(TypedDict):
    """One legal action of the deciding player: its id, its word in the action language, and a label."""

    id: int
    action: str
    label: str


class Decision(TypedDict):
    """What is being decided, by whom; the rest only when it applies (and only what the viewer may know)."""

    player: int
    kind: str  # one of converge.engine.turn.DECISION_KINDS
    prompt: str
    card: NotRequired[str]  # the card being played (its player's; everyone's once its mode is chosen)
    effect: NotRequired[str]  # the kind of the effect resolving
    studied: NotRequired[str]  # the card whose effect resolves as the played card's (Study)
    revealed: NotRequired[list[str]]  # cards the effect shows (the searcher's, or in public)
    pending: NotRequired[str]  # a card picked at an earlier step of the effect
    legal_actions: NotRequired[list[LegalAction]]  # the viewer's, when the decision is theirs


class RoundResult(TypedDict):
    winner: int
    reason: str  # converge.engine.events.END_REASONS


class KnownDeckCard(TypedDict):
    """A card of the deck whose place the viewer knows (they saw it, or it was put there in public)."""

    id: str
    from_top: int


class GoalScore(TypedDict):
    """A goal in the goal area: who fulfils it and why, from the viewer's side (T5)."""

    goal: str
    text: str
    stars: int
    winners: list[int]
    why: str


#: An event as a viewer sees it, with its sentence for that viewer.
EventDoc = TypedDict("EventDoc", {
    "kind": Required[str],
    "player": Required[int | None],
    "card": Required[str | None],
    "text": str,
    # the fields of the kinds that have them (SCHEMA)
    "round": int, "mode": str | None, "faction": int | None, "from": str | None, "to": str | None,
    "skillset": str | None, "rank": int, "depth": int, "from_top": int, "decisions": int, "declined": int,
    "score0": int, "score1": int, "reason": str | None,
}, total=False)


class Observation(TypedDict):
    """What one player (or a spectator, ``viewer`` -1) may know of a match (I1-I3)."""

    version: int
    viewer: int
    playset: list[str]
    num_actions: int
    round: int
    turn: int
    round_wins: list[int]
    round_results: list[RoundResult]
    artifact_holder: int
    lead: int
    current_player: int
    is_terminal: bool
    winner: int | None
    decision: Decision | None
    hand: list[str] | None  # None for a spectator
    hand_sizes: list[int]
    deck_size: int
    discard: list[str]
    goals: list[str]
    factions: list[list[CardInPlay]]
    recalled: list[str]
    known_opponent_hand: list[str]
    known_deck: list[KnownDeckCard]
    scores: list[int]
    score_breakdown: list[GoalScore]
    events: list[EventDoc]


class Board(TypedDict):
    """The public board: what an observation shows of the table, and what a round's final board (rebuilt from
    the public events once the next round is dealt) holds."""

    round: int
    goals: list[str]
    factions: list[list[CardInPlay]]
    discard: list[str]
    deck_size: int
    hand_sizes: list[int]
    scores: list[int]
    score_breakdown: list[GoalScore]


class FinalBoard(Board):
    """The board at the last scoring of a round (``final`` is always true: it is not the board now)."""

    final: bool


class CardFace(TypedDict):
    """What is printed on a card: its id, name, skillset, rank, goal with its stars, and effect keyword."""

    id: str
    name: str
    skillset: str
    rank: int
    goal: str
    stars: int
    effect: str


class PrintedCard(CardFace):
    """A card of the playset as printed (public: everyone knows the decks in play)."""

    keyword: str
    text: str


class Reverts(TypedDict):
    skillset: str
    rank: int


class Conversion(TypedDict):
    """A converted card in a position: what it is now, and whether (and to what) it reverts at the end of the
    turn (C6)."""

    skillset: str
    rank: int
    until_end_of_turn: bool
    reverts_to: NotRequired[Reverts]


class PositionEffect(TypedDict):
    """An effect half-resolved at a position's decision."""

    card: str
    step: str
    remaining: int
    pending: str | None
    picked: list[str]
    revealed: list[str]
    decisions: int


class PositionDecision(TypedDict):
    card: str  # the card being played
    effect: NotRequired[PositionEffect]


class Position(TypedDict):
    """A position (:mod:`converge.engine.position`): every card's place, hidden ones too, at a decision. It
    names every hidden card, so it is private to whoever set the match up."""

    format: str  # "converge-position"
    version: int
    playset: list[str]
    seed: int
    start: str
    round: int
    round_wins: list[int]
    round_results: list[RoundResult]
    turn: int
    artifact_holder: int
    lead: int
    to_play: NotRequired[int]  # (not once the match is over)
    hands: list[list[str]]
    deck: list[str]  # top first
    artifact: str
    discard: list[str]
    goals: list[str]
    factions: list[list[str]]
    conversions: dict[str, Conversion]
    guards: dict[str, int]
    recalled: list[str]
    known: dict[str, list[int]]
    variant: NotRequired[str]  # a smaller variant's name (see converge.engine.variant); absent: the full game
    decision: NotRequired[PositionDecision]
    winner: NotRequired[int]


class RecordDoc(TypedDict):
    """A match record: what replays to the same match (:mod:`converge.engine.record`). It holds the seed, so
    it is private until the match is over."""

    format: str  # "converge-record"
    version: int
    playset: list[str]
    seed: int
    start: str
    decks: str  # the digest of the decks played with
    chance: bool
    actions: list[int]
    position: NotRequired[Position]  # the position it started at, if not a fresh deal
    moves: NotRequired[list[str]]  # the actions' readable forms
    variant: NotRequired[str]  # a smaller variant's name (see converge.engine.variant); absent: the full game


def legal_actions_of(observation: Observation) -> list[LegalAction]:
    """The viewer's legal actions in ``observation``: empty unless the decision is theirs."""
    decision = observation["decision"]
    return decision.get("legal_actions", []) if decision is not None else []


__all__ = ["Board", "CardFace", "CardInPlay", "Decision", "EventDoc", "FinalBoard", "GoalScore", "KnownDeckCard",
           "LegalAction", "Observation", "PrintedCard", "RecordDoc", "RoundResult", "legal_actions_of"]
