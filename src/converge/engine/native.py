"""The native core from Python: a match's state in the core's form, and back.

``converge._native`` (C, in ``src/converge/native/``) is a second implementation of a round's rules, made for
search: a state is one flat value that copies in a few nanoseconds. This engine stays the specification:
``tests/engine/test_native.py`` plays both side by side — the same actions, legal actions, events and state
after every action — on every built-in playset, on fuzzed positions and on decks of every effect and goal kind.

The core knows the built-in effect and goal kinds only, and the full game's sizes; :func:`tables` is None for
a playset with a kind defined in Python (an extension) or of a smaller variant, and such a playset is played and
searched on this engine alone. The core
is also absent where the package was installed without a C compiler; :func:`available` says so.

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=7)
>>> not available() or state_of(m).legal_actions() == m.legal_actions()
True
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias

from converge.engine.effects import EffectState, builtin_effect_kinds
from converge.engine.goals import builtin_goal_kinds
from converge.engine.turn import TurnState
from converge.engine.zones import Zones

if TYPE_CHECKING:
    from converge.engine.playset import Playset
    from converge.engine.state import Match

try:
    import converge._native as core  # type: ignore[import-not-found]  # (a C extension: mypy has no stub of it)
except ImportError:  # installed without a C compiler: the engine and the Python search alone
    core = None  # the extension module: its State type, the search (converge.bots.search), random_rounds

#: The fields of a state as the core reads and writes them (``State(tables, fields)``, ``State.fields()``).
FIELDS = ("hands0", "hands1", "factions0", "factions1", "discard", "goals", "deck", "artifact", "skill", "rank",
          "guard", "recalled", "known", "temp", "round_no", "turn_no", "round_wins", "round_results",
          "first_holders", "holder", "lead", "turn_step", "phase", "player", "active", "winner", "deal_holder",
          "effect_kind", "effect_card", "effect_args", "step", "remaining", "pending", "picked", "revealed",
          "decisions")

#: The fields of a state, in the order of :data:`FIELDS`: lists of cards and of numbers, and numbers.
Fields: TypeAlias = tuple[
    list[int], list[int], list[int], list[int], list[int], list[int], list[int], int,  # hands0 .. artifact
    list[int], list[int], list[int], list[int], list[int], list[int], int, int,  # skill .. turn_no
    list[int], list[int], list[int], int, int, int, int, int, int, int, int,  # round_wins .. deal_holder
    int, int, list[int], int, int, int, list[int], list[int], int]  # effect_kind .. decisions


class NativeState(Protocol):
    """A state in the core (``converge._native.State``, a C type without a stub): the methods used of it."""

    def fields(self) -> Fields: ...

    def legal_actions(self) -> list[int]: ...

    def apply(self, action: int, /) -> None: ...

    def copy(self) -> NativeState: ...

    # a world the player cannot tell from this one, and the random state after drawing it
    def sample(self, player: int, rng: int, /) -> tuple[NativeState, int]: ...

    # play to the end of the round (as the engine's playouts); the random state after it
    def playout(self, rng: int, greedy: float, /) -> int: ...


#: How many of the built-in kinds the core implements (the first ones, in their canonical order).
NATIVE_EFFECT_KINDS = 9
NATIVE_GOAL_KINDS = 15


class SplitMix:
    """The core's random numbers in Python: SplitMix64 (``src/converge/native/rng.h``), whose :meth:`random`
    draws the same doubles as the core's from the same state. A search or a playout given one draws exactly
    as the core does from that state (slower than ``random.Random``: for comparing the two, and for tests).

    >>> r = SplitMix(1); [round(r.random(), 6) for _ in range(2)]
    [0.497418, 0.203839]
    """

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        return (self.next64() >> 11) * 2.0**-53


_MASK = (1 << 64) - 1


def available() -> bool:
    """Whether the native core is installed (it is wherever the package was built with a C compiler)."""
    return core is not None


def _code(kind: object, builtins: Sequence[object], native: int) -> int:
    """The core's number of a kind: its place among the built-ins, when the core has it; else -1."""
    for i, k in enumerate(builtins[:native]):
        if kind is k:
            return i
    return -1


_TABLES: dict[int, tuple[Playset, bytes | None]] = {}


def tables(playset: Playset) -> bytes | None:
    """The playset compiled for the core (its ``Tables``), or None when the core is absent or the playset has
    a kind the core does not implement."""
    if core is None:
        return None
    known = _TABLES.get(id(playset))
    if known is not None and known[0] is playset:
        return known[1]
    if not playset.variant.is_full:  # the core's sizes are the full game's constants (core.h)
        return None
    effects, goals = builtin_effect_kinds(), builtin_goal_kinds()
    effect_codes = [_code(k, effects, NATIVE_EFFECT_KINDS) for k in playset.effect_kind]
    goal_codes = [_code(k, goals, NATIVE_GOAL_KINDS) for k in playset.goal_kind]
    blob: bytes | None = None
    if min(effect_codes) >= 0 and min(goal_codes) >= 0 and all(len(a) <= 4 for a in playset.effect_args):
        args = [v for a in playset.effect_args for v in (*a, 0, 0, 0, 0)[:4]]
        blob = array("b", [*playset.printed_skill, *playset.printed_rank, *goal_codes, *playset.goal_arg,
                           *playset.goal_stars, *effect_codes, *args]).tobytes()
        assert len(blob) == core.TABLES_SIZE
    if len(_TABLES) > 256:
        _TABLES.clear()
    _TABLES[id(playset)] = (playset, blob)
    return blob


def fields_of(match: Match) -> Fields:
    """The match's state as the core's fields (see :data:`FIELDS`)."""
    z, t, e = match.zones, match.turn, match.effect
    kind = -1 if e.kind is None else _code(e.kind, builtin_effect_kinds(), NATIVE_EFFECT_KINDS)
    return (z.hands[0], z.hands[1], z.factions[0], z.factions[1], z.discard, z.goals, z.deck, z.artifact, z.skill,
            z.rank, z.guard, z.recalled, z.known, [v for tp in z.temp for v in tp], t.round_no, t.turn_no,
            t.round_wins, [v for r in t.round_results for v in r], t.first_holders, t.holder, t.lead, t.turn_step,
            t.phase, t.player, t.active, t.winner, t.deal_holder, kind, e.card, list(e.args), e.step, e.remaining,
            e.pending, e.picked, e.revealed, e.decisions)


def state_of(match: Match, deals: list[list[int]] | None = None, log: bool = False) -> NativeState:
    """The match's state in the core (a ``converge._native.State``); ``deals``: the orders of the rounds the
    state will deal (indexed by round, from round 1), without which a round that ends waits for its deal;
    ``log``: keep the events. ``ValueError`` when the core is absent or cannot play this playset."""
    blob = tables(match.playset)
    if blob is None:
        raise ValueError("the native core cannot play this playset (or is not installed)")
    state: NativeState = core.State(blob, fields_of(match), deals or [], log)  # (the extension is untyped)
    return state


def into_match(fields: Fields, like: Match) -> Match:
    """A match holding the core's ``fields``, with ``like``'s playset and settings (for the tests, which compare
    it with the engine's own, and for reading a world of the core as a match)."""
    m = like.clone(history=False, events=False)
    ps = m.playset
    (h0, h1, f0, f1, discard, goals, deck, artifact, skill, rank, guard, recalled, known, temp, round_no, turn_no,
     round_wins, results, first_holders, holder, lead, turn_step, phase, player, active, winner, deal_holder, kind,
     card, args, step, remaining, pending, picked, revealed, decisions) = fields
    z = Zones(ps.printed_skill, ps.printed_rank)
    z.hands, z.factions = [list(h0), list(h1)], [list(f0), list(f1)]
    z.discard, z.goals, z.deck, z.artifact = list(discard), list(goals), list(deck), artifact
    z.skill, z.rank, z.guard = list(skill), list(rank), list(guard)
    z.recalled, z.known = list(recalled), list(known)
    z.temp = [(temp[i], temp[i + 1], temp[i + 2], temp[i + 3], temp[i + 4]) for i in range(0, len(temp), 5)]
    t = TurnState()
    t.round_no, t.turn_no, t.round_wins = round_no, turn_no, list(round_wins)
    t.round_results = [(results[i], results[i + 1]) for i in range(0, len(results), 2)]
    t.first_holders = list(first_holders)
    t.holder, t.lead, t.turn_step, t.phase, t.player, t.active = holder, lead, turn_step, phase, player, active
    t.winner, t.deal_holder = winner, deal_holder
    e = EffectState()
    e.kind = None if kind < 0 else builtin_effect_kinds()[kind]
    e.card, e.args, e.step, e.remaining, e.pending = card, tuple(args), step, remaining, pending
    e.picked, e.revealed, e.decisions = list(picked), list(revealed), decisions
    m.zones, m.turn, m.effect = z, t, e
    return m


__all__ = ["FIELDS", "SplitMix", "available", "core", "fields_of", "into_match", "state_of", "tables"]
