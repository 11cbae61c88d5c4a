"""A playset: three skillset decks compiled into the flat integer tables the engine runs on.

Card ids 0..17 are ``skillset index * 6 + rank - 1``, the skillsets in catalogue order, so a
card's printed skillset and rank are arithmetic and every table is a plain list indexed by id.
A playset of a smaller :class:`~converge.engine.variant.Variant` holds that variant's number of decks and, of
each, the cards of its ranks: ids ``0 .. num_cards - 1``, ``skillset index * deck_size + place of the rank``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from converge.engine.effects import EffectKind, effect_kind
from converge.engine.errors import PlaysetError, quote
from converge.engine.goals import GoalKind, goal_kind
from converge.engine.variant import FULL, Variant

if TYPE_CHECKING:
    from converge.cards.model import CardSpec, Deck


BUILTIN_ORDER = ("alchemist", "mechanist", "archivist", "protector", "searcher", "merchant",
                 "delver", "astropath", "healer")
SETS = {
    "catalysts": ("alchemist", "mechanist", "archivist"),
    "engines": ("protector", "searcher", "merchant"),
    "sparks": ("delver", "astropath", "healer"),
}


class Playset:
    """Three decks, ready for play. Immutable and shared by every state of a match.

    >>> ps = Playset.from_names(["healer", "alchemist", "searcher"])
    >>> ps.skillsets
    ('Alchemist', 'Searcher', 'Healer')
    >>> ps.card_ids[0], ps.card_ids[17]
    ('ALC1', 'HEA6')
    """

    __slots__ = ("decks", "skillsets", "cards", "card_ids", "index_of", "printed_skill", "printed_rank",
                 "goal_kind", "goal_arg", "goal_stars", "goal_text", "effect_kind", "effect_args", "digest",
                 "deck_dirs", "variant")

    def __init__(self, decks: Sequence[Deck], order: Sequence[str] = BUILTIN_ORDER,
                 deck_dirs: Sequence[str] = (), variant: Variant = FULL) -> None:
        n = variant.skillsets
        if len(decks) != n:
            raise PlaysetError(f"a playset is exactly {n} skillsets, got {len(decks)}")
        keys = [d.key for d in decks]
        if len(set(keys)) != n:
            raise PlaysetError(f"a playset needs {n} different skillsets, got {', '.join(keys)}")
        rank_of = {k: i for i, k in enumerate(order)}
        #: The sizes of its matches (the full game unless a smaller variant was asked for).
        self.variant: Variant = variant
        self.decks: tuple[Deck, ...] = tuple(sorted(decks, key=lambda d: (rank_of.get(d.key, 99), d.key)))
        self.skillsets: tuple[str, ...] = tuple(d.skillset for d in self.decks)
        ranks = set(variant.ranks)
        self.cards: tuple[CardSpec, ...] = tuple(c for d in self.decks for c in d.cards if c.rank in ranks)
        self.card_ids: tuple[str, ...] = tuple(c.id for c in self.cards)
        self.index_of: dict[str, int] = {cid.upper(): i for i, cid in enumerate(self.card_ids)}
        self.printed_skill: tuple[int, ...] = tuple(i // variant.deck_size for i in range(variant.num_cards))
        self.printed_rank: tuple[int, ...] = tuple(c.rank for c in self.cards)
        self.goal_kind: tuple[GoalKind, ...] = tuple(goal_kind(c.goal.kind) for c in self.cards)
        self.goal_arg: tuple[int, ...] = tuple(k.compile(c.goal.params, self.skillsets)
                                               for k, c in zip(self.goal_kind, self.cards, strict=True))
        self.goal_stars: tuple[int, ...] = tuple(c.goal.stars for c in self.cards)
        self.goal_text: tuple[str, ...] = tuple(c.goal.text for c in self.cards)
        self.effect_kind: tuple[EffectKind, ...] = tuple(effect_kind(c.effect.kind) for c in self.cards)
        self.effect_args: tuple[tuple[int, ...], ...] = tuple(
            k.compile(c.effect.params) for k, c in zip(self.effect_kind, self.cards, strict=True))
        #: The deck folders the decks were loaded from (besides the built-ins), to load them again.
        self.deck_dirs: tuple[str, ...] = tuple(deck_dirs)
        cards = [[c.id, c.name, c.skillset, c.rank, c.goal.kind, dict(c.goal.params), c.goal.stars,
                  c.effect.kind, dict(c.effect.params)] for c in self.cards]
        # (the full game's digest is what it always was; a variant's names the variant: a record played with
        # hands of one must not replay with hands of three)
        blob = json.dumps(cards if variant.is_full else [variant.name, cards], sort_keys=True)
        self.digest: str = hashlib.sha256(blob.encode()).hexdigest()[:16]

    @classmethod
    def from_names(cls, names: Iterable[str], deck_dirs: Iterable[object] = (),
                   variant: Variant = FULL) -> Playset:
        """Build a playset from skillset names (any case), using the built-in and user decks; of ``variant``'s
        size (the full game by default).

        The card ids of a playset are known before any match exists:

        >>> Playset.from_names(["delver", "astropath", "healer"]).card_ids[:3]
        ('DEL1', 'DEL2', 'DEL3')
        """
        from converge.cards.loader import load_catalog

        dirs = tuple(str(d) for d in deck_dirs)
        catalog = load_catalog(dirs)
        decks = []
        for name in names:
            key = name.strip().lower()
            if key not in catalog:
                raise PlaysetError(f"unknown skillset {quote(name)} (known: {', '.join(catalog_order(catalog))})")
            decks.append(catalog[key])
        return cls(decks, catalog_order(catalog), dirs, variant)

    def max_effect_decisions(self) -> int:
        """An upper bound on the decisions one discard effect of this playset can take (an effect that
        resolves another card's, like Study, counts that card's too)."""
        kinds, args = self.effect_kind, self.effect_args
        own = max(k.max_decisions(a, 0) for k, a in zip(kinds, args, strict=True))
        return max(k.max_decisions(a, own) for k, a in zip(kinds, args, strict=True))

    def max_effect_events(self) -> int:
        """An upper bound on the events one discard effect of this playset can log (Study's counts the
        studied card's)."""
        kinds, args = self.effect_kind, self.effect_args
        own = max(k.max_events(a, 0) for k, a in zip(kinds, args, strict=True))
        return max(k.max_events(a, own) for k, a in zip(kinds, args, strict=True))

    def max_events_seen(self) -> int:
        """An upper bound on the events of a match one player sees (a spectator sees fewer): the length of
        the perfect-recall history.

        A round shows a player at most: round start, first discard and its 3 dealt cards (5); in each turn
        the score, the artifact passing, two draws and the card it drew (5), and a pass for each play
        missing from the turn's two; in each play the play and, for a discard, the discarded event and the
        effect's events (:meth:`max_effect_events`); the round's end. A turn has at least one play (a turn
        starts with a card in some hand, T8), so with ``T <= P <= MAX_PLAYS_PER_ROUND`` turns and plays a
        round shows at most ``6 + 5T + (2T - P) + P(2 + E) <= 6 + P(8 + E)``; then the match's end.
        """
        per_round = 6 + self.variant.max_plays_per_round * (8 + self.max_effect_events())
        return self.variant.max_rounds * per_round + 1

    def card(self, card: int) -> CardSpec:
        return self.cards[card]

    def names(self) -> list[str]:
        return [s.lower() for s in self.skillsets]

    def __repr__(self) -> str:
        size = "" if self.variant.is_full else f", variant={self.variant.name}"
        return f"Playset({', '.join(self.skillsets)}{size})"


def catalog_order(catalog: Mapping[str, Deck]) -> list[str]:
    """Skillset keys: the built-ins in their canonical order, then user decks alphabetically."""
    builtin = [k for k in BUILTIN_ORDER if k in catalog]
    return builtin + sorted(k for k in catalog if k not in BUILTIN_ORDER)


def all_playsets(catalog: Mapping[str, Deck] | None = None) -> list[tuple[str, str, str]]:
    """Every combination of 3 skillsets of the catalogue (84 for the nine built-ins)."""
    from converge.cards.loader import load_catalog

    keys = catalog_order(catalog if catalog is not None else load_catalog())
    return [tuple(c) for c in itertools.combinations(keys, 3)]  # type: ignore[misc]
