"""What a goal kind is, the per-faction counts goals are judged on, and the registry every module asks.

A *goal kind* ("highest Alchemist", "3 cards with consecutive ranks"...) is one :class:`GoalKind` object
that says everything about it: its parameters, its printed text, how well a faction does at it
(:meth:`GoalKind.value`), the number shown when a score is explained (:meth:`GoalKind.shown`), and
whether it gives its stars to a single strict winner (T5) or to every faction that fulfils it.
A new kind is a subclass registered with :func:`register_goal`; card files may then name it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from mypy_extensions import mypyc_attr

from converge.engine.params import Param, ParamValue, skillset_index
from converge.engine.registry import Registry

#: The value of a single-winner goal for a faction that cannot win it (T5: no card of the skillset).
CANNOT_WIN: Final = -1000

class FactionStats:
    """One faction's counts, computed once per scoring and shared by every goal.

    Per skillset index (0..2): :meth:`count`, :meth:`high` and :meth:`low` rank (0 and 7 when there is
    none); :meth:`per_rank` (cards of rank r, 1..6); ``total`` rank; ``size``; and the faction's ``cards``
    with the current ``skill`` and ``rank`` of every card, for goal kinds that need more.
    """

    __slots__ = ("cards", "skill", "rank", "n", "total", "size")

    cards: list[int]
    skill: list[int]
    rank: list[int]
    n: list[int]  # count[0..2], high[3..5], low[6..8], cards per rank 0..6 at [9..15]: one list, one allocation
    total: int
    size: int

    def __init__(self, faction: list[int], skill: list[int], rank: list[int]) -> None:
        self.cards = faction
        self.skill = skill
        self.rank = rank
        n = [0, 0, 0, 0, 0, 0, 7, 7, 7, 0, 0, 0, 0, 0, 0, 0]
        total = 0
        for c in faction:
            s = skill[c]
            r = rank[c]
            n[s] += 1
            total += r
            n[9 + r] += 1
            if r > n[3 + s]:
                n[3 + s] = r
            if r < n[6 + s]:
                n[6 + s] = r
        self.n = n
        self.total = total
        self.size = len(faction)

    def count(self, skillset: int) -> int:
        """Cards of the skillset (its index in the playset)."""
        return self.n[skillset]

    def high(self, skillset: int) -> int:
        """The highest rank of the skillset's cards (0: none)."""
        return self.n[3 + skillset]

    def low(self, skillset: int) -> int:
        """The lowest rank of the skillset's cards (7: none)."""
        return self.n[6 + skillset]

    def per_rank(self, rank: int) -> int:
        """Cards of rank ``rank`` (1..6)."""
        return self.n[9 + rank]

    def most_of_one_rank(self) -> int:
        n = self.n
        return max(n[10], n[11], n[12], n[13], n[14], n[15])

    def most_of_one_skillset(self) -> int:
        n = self.n
        return max(n[0], n[1], n[2])

    def longest_run(self) -> int:
        """The most cards with consecutive ranks (one per rank)."""
        n = self.n
        run = 0
        best = 0
        for r in range(10, 16):
            run = run + 1 if n[r] else 0
            if run > best:
                best = run
        return best

    def distinct_ranks(self) -> int:
        n = self.n
        out = 0
        for r in range(10, 16):
            if n[r]:
                out += 1
        return out

    def distinct_skillsets(self) -> int:
        n = self.n
        return int(n[0] > 0) + int(n[1] > 0) + int(n[2] > 0)


@mypyc_attr(allow_interpreted_subclasses=True)
class GoalKind:
    """One kind of goal. Subclass it, override ``text``, ``value`` and ``shown``, and register an instance.

    ``single_winner``: the goal's stars go only to a faction that does strictly better than the other
    (most / fewest / highest / lowest, T5); otherwise to every faction whose :meth:`value` is 1.
    """

    name: str
    doc: str
    params: tuple[Param, ...]
    single_winner: bool
    index: int

    def __init__(self, name: str, doc: str, params: tuple[Param, ...] = (), *,
                 single_winner: bool = False) -> None:
        self.name = name
        self.doc = doc
        self.params = params
        self.single_winner = single_winner
        self.index = -1

    def __repr__(self) -> str:
        return f"<goal kind {self.name}>"

    def compile(self, params: Mapping[str, ParamValue], skillsets: tuple[str, ...]) -> int:
        """The one integer the engine runs on: a skillset parameter's index in the playset (-1 when the
        skillset is not in it), else the first integer parameter, else 0."""
        for p in self.params:
            if p.type == "skillset":
                return skillset_index(params[p.name], skillsets)
            if p.type == "int":
                return int(params[p.name])
        return 0

    def check(self, params: Mapping[str, ParamValue]) -> str:
        """A problem between parameters that each are valid, or ""."""
        return ""

    def text(self, params: Mapping[str, ParamValue]) -> str:
        """The printed text of the goal."""
        raise NotImplementedError(f"goal kind {self.name} has no text()")

    def value(self, arg: int, st: FactionStats) -> int:
        """How one faction does: for a single winner, higher is better (:data:`CANNOT_WIN` when it cannot
        win at all); otherwise 1 when the faction fulfils the goal, else 0."""
        raise NotImplementedError(f"goal kind {self.name} has no value()")

    def shown(self, arg: int, st: FactionStats) -> str:
        """The faction's number behind :meth:`value`, for explaining a score ("5", "none", ...)."""
        return str(self.value(arg, st))


_REGISTRY: Registry[GoalKind] = Registry("goal", GoalKind)


def register_builtin_goals(kinds: Iterable[GoalKind]) -> None:
    """Register the package's goal kinds, in their canonical order (:mod:`converge.engine.goals` does)."""
    _REGISTRY.register_builtins(kinds)


def builtin_goal_kinds() -> list[GoalKind]:
    """The package's own goal kinds, in their canonical order (those registered later are extensions)."""
    return list(_REGISTRY.all().values())[:_REGISTRY.builtin]


def register_goal(kind: GoalKind) -> GoalKind:
    """Make ``kind`` available to card files (the public extension point); returns it."""
    return _REGISTRY.register(kind)


def unregister_goal(name: str) -> None:
    """Remove a kind added by :func:`register_goal` (for tests); the built-in kinds stay."""
    _REGISTRY.unregister(name)


def goal_kinds() -> Mapping[str, GoalKind]:
    """Every registered goal kind by name, in registration order (the built-ins first)."""
    return _REGISTRY.all()


def goal_kind(name: str) -> GoalKind:
    """The registered goal kind called ``name``; :class:`UnknownKindError` if there is none."""
    return _REGISTRY.get(name)


def goal_winners(kind: GoalKind, arg: int, st0: FactionStats, st1: FactionStats) -> tuple[int, int]:
    """Whether each player's faction gets the goal's stars (1 or 0), by T5."""
    v0 = kind.value(arg, st0)
    v1 = kind.value(arg, st1)
    if kind.single_winner:
        return int(v0 > v1), int(v1 > v0)
    return int(v0 > 0), int(v1 > 0)
