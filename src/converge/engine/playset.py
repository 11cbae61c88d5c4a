"""A playset: three skillset decks compiled into the flat integer tables the engine runs on.

Card ids 0..17 are ``skillset index * 6 + rank - 1``, the skillsets in catalogue order, so a
card's printed skillset and rank are arithmetic and every table is a plain list indexed by id.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence

from converge.cards.loader import load_catalog
from converge.cards.model import CardSpec, Deck
from converge.cards.registry import EFFECT_KINDS, GOAL_KINDS
from converge.engine.errors import PlaysetError

NUM_CARDS = 18
SKILLSETS_PER_PLAYSET = 3

# Effect codes (registry order) and goal codes, as the engine dispatches on them.
CONVERT, ASSEMBLE, RECALL, GUARD, SEARCH, TRADE, EXPAND, STUDY, HEAL = range(9)

BUILTIN_ORDER = ("alchemist", "mechanist", "archivist", "protector", "searcher", "merchant",
                 "delver", "astropath", "healer")
SETS = {
    "catalysts": ("alchemist", "mechanist", "archivist"),
    "engines": ("protector", "searcher", "merchant"),
    "sparks": ("delver", "astropath", "healer"),
}


def _effect_args(card: CardSpec) -> tuple[int, ...]:
    p = card.effect.params
    kind = card.effect.kind
    if kind == "convert":
        mode = ("own", "choose", "keep").index(str(p["skillset"]))
        return (int(p["count"]), mode, int(p["rank_delta"]), 1 if p["duration"] == "turn" else 0)
    if kind == "recall":
        return (int(p["count"]), int(p["max_rank"]), int(bool(p["from_faction"])))
    if kind == "search":
        return (int(p["depth"]),)
    if kind == "trade":
        return (int(bool(p["with_hand"])), int(bool(p["between_factions"])))
    if kind == "study":
        return (int(p["max_rank"]),)
    if kind == "heal":
        return (int(p["count"]), int(p["max_rank"]))
    return (int(p["count"]),)  # assemble, guard, expand


class Playset:
    """Three decks, ready for play. Immutable and shared by every state of a match.

    >>> ps = Playset.from_names(["healer", "alchemist", "searcher"])
    >>> ps.skillsets
    ('Alchemist', 'Searcher', 'Healer')
    >>> ps.card_ids[0], ps.card_ids[17]
    ('ALC1', 'HEA6')
    """

    __slots__ = ("decks", "skillsets", "cards", "card_ids", "index_of", "printed_skill", "printed_rank",
                 "goal_code", "goal_arg", "goal_stars", "effect_code", "effect_args", "single_winner",
                 "digest")

    def __init__(self, decks: Sequence[Deck], order: Sequence[str] = BUILTIN_ORDER):
        if len(decks) != SKILLSETS_PER_PLAYSET:
            raise PlaysetError(f"a playset is exactly 3 skillsets, got {len(decks)}")
        keys = [d.key for d in decks]
        if len(set(keys)) != SKILLSETS_PER_PLAYSET:
            raise PlaysetError(f"a playset needs 3 different skillsets, got {', '.join(keys)}")
        rank_of = {k: i for i, k in enumerate(order)}
        self.decks: tuple[Deck, ...] = tuple(sorted(decks, key=lambda d: (rank_of.get(d.key, 99), d.key)))
        self.skillsets: tuple[str, ...] = tuple(d.skillset for d in self.decks)
        self.cards: tuple[CardSpec, ...] = tuple(c for d in self.decks for c in d.cards)
        self.card_ids: tuple[str, ...] = tuple(c.id for c in self.cards)
        self.index_of: dict[str, int] = {cid.upper(): i for i, cid in enumerate(self.card_ids)}
        lower = [s.lower() for s in self.skillsets]
        self.printed_skill: tuple[int, ...] = tuple(i // 6 for i in range(NUM_CARDS))
        self.printed_rank: tuple[int, ...] = tuple(c.rank for c in self.cards)
        self.goal_code: tuple[int, ...] = tuple(GOAL_KINDS[c.goal.kind].code for c in self.cards)
        self.goal_arg: tuple[int, ...] = tuple(self._goal_arg(c, lower) for c in self.cards)
        self.goal_stars: tuple[int, ...] = tuple(c.goal.stars for c in self.cards)
        self.effect_code: tuple[int, ...] = tuple(EFFECT_KINDS[c.effect.kind].code for c in self.cards)
        self.effect_args: tuple[tuple[int, ...], ...] = tuple(_effect_args(c) for c in self.cards)
        self.single_winner: tuple[bool, ...] = tuple(code <= 8 for code in self.goal_code)
        blob = json.dumps([[c.id, c.name, c.skillset, c.rank, c.goal.kind, dict(c.goal.params), c.goal.stars,
                            c.effect.kind, dict(c.effect.params)] for c in self.cards], sort_keys=True)
        self.digest: str = hashlib.sha256(blob.encode()).hexdigest()[:16]

    @staticmethod
    def _goal_arg(card: CardSpec, lower_skillsets: list[str]) -> int:
        p = card.goal.params
        if "skillset" in p:
            name = str(p["skillset"]).lower()
            return lower_skillsets.index(name) if name in lower_skillsets else -1
        if "count" in p:
            return int(p["count"])
        if "at_least" in p:
            return int(p["at_least"])
        return 0

    @classmethod
    def from_names(cls, names: Iterable[str], deck_dirs: Iterable[str] = ()) -> Playset:
        """Build a playset from skillset names (any case), using the built-in and user decks."""
        catalog = load_catalog(deck_dirs)
        decks = []
        for name in names:
            key = name.strip().lower()
            if key not in catalog:
                raise PlaysetError(f"unknown skillset {name!r} (known: {', '.join(catalog_order(catalog))})")
            decks.append(catalog[key])
        return cls(decks, catalog_order(catalog))

    def card(self, card: int) -> CardSpec:
        return self.cards[card]

    def names(self) -> list[str]:
        return [s.lower() for s in self.skillsets]

    def __repr__(self) -> str:
        return f"Playset({', '.join(self.skillsets)})"


def catalog_order(catalog: Mapping[str, Deck]) -> list[str]:
    """Skillset keys: the built-ins in their canonical order, then user decks alphabetically."""
    builtin = [k for k in BUILTIN_ORDER if k in catalog]
    return builtin + sorted(k for k in catalog if k not in BUILTIN_ORDER)


def all_playsets(catalog: Mapping[str, Deck] | None = None) -> list[tuple[str, str, str]]:
    """Every combination of 3 skillsets of the catalogue (84 for the nine built-ins)."""
    keys = catalog_order(catalog if catalog is not None else load_catalog())
    return [tuple(c) for c in itertools.combinations(keys, 3)]  # type: ignore[misc]
