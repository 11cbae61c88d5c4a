"""Card and deck data, as loaded and validated from TOML files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from converge.engine.effects import effect_kind
from converge.engine.goals import goal_kind
from converge.engine.params import ParamValue


@dataclass(frozen=True)
class Goal:
    """A card's goal: a registered kind, its parameters (defaults filled in) and its stars."""

    kind: str
    params: Mapping[str, ParamValue]
    stars: int

    @property
    def text(self) -> str:
        return goal_kind(self.kind).text(self.params)


@dataclass(frozen=True)
class Effect:
    """A card's discard effect: a registered kind and its parameters (defaults filled in)."""

    kind: str
    params: Mapping[str, ParamValue]


@dataclass(frozen=True)
class CardSpec:
    """One printed card."""

    id: str
    name: str
    skillset: str
    rank: int
    goal: Goal
    effect: Effect

    @property
    def effect_text(self) -> str:
        return effect_kind(self.effect.kind).text(self.effect.params, self.skillset)

    @property
    def text(self) -> str:
        """The whole printed text of the card, generated from its data."""
        stars = "★" * self.goal.stars
        return (f"{self.name} ({self.skillset} {self.rank}) — Goal: {self.goal.text} {stars} — "
                f"{self.effect_text}")


@dataclass(frozen=True)
class Deck:
    """A skillset deck: six cards of ranks 1 to 6."""

    skillset: str
    set_name: str
    keyword: str
    color: str
    cards: tuple[CardSpec, ...]
    source: str = field(default="", compare=False)

    @property
    def key(self) -> str:
        return self.skillset.lower()
