"""What an effect kind is, the effect in progress, and the registry every other module asks.

An *effect kind* (Convert, Recall, ...) is one :class:`EffectKind` object, defined in one module of
this package, that says everything about it: its parameters (types, bounds, defaults), its printed text,
its decisions (targets, steps, prompts, whether it may be declined, how many decisions it can add), what
it does to the cards (through :class:`~converge.engine.state.Match`'s effect toolkit, which logs
``move``, ``convert``... events that every reader understands), and what planners may assume about it.

A new effect kind is a subclass registered with :func:`register_effect`; card files may then name it::

    class Shuffle(EffectKind):
        def __init__(self) -> None:
            super().__init__("shuffle", "Shuffle", "move a card from the goal area to the discard pile", ())
        def text(self, params, own_skillset):
            return "Shuffle: move a goal to the discard pile."
        def targets(self, m, step):
            return list(m.zones.goals)
        def act(self, m, action):
            m.move_card(action, GOAL_AREA, DISCARD_PILE)
            m.effect.remaining -= 1
            m.continue_effect()

    register_effect(Shuffle())

The engine calls a kind's methods through a dispatch table of native classes (compiled by mypyc);
kinds defined in Python (like the one above) work the same, a little slower.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final

from mypy_extensions import mypyc_attr

from converge.engine.params import Param, ParamValue
from converge.engine.registry import Registry
from converge.engine.sizes import RANKS
from converge.engine.zones import FACTION as FACTION_ZONE

if TYPE_CHECKING:
    from converge.engine.state import Match

# The step of an effect's pending decision (EffectState.step): what the player chooses now.
TARGET: Final = 0  # a card among targets(); "done" too when the effect is optional
SKILLSET: Final = 1  # one of the playset's three skillsets (C4)
FACTION: Final = 2  # mine or theirs
SECOND: Final = 3  # a second card among targets() (e.g. the other card of a trade)
STEP_NAMES: Final = ("target", "skillset", "faction", "second")

@mypyc_attr(allow_interpreted_subclasses=True)
class EffectKind:
    """One kind of discard effect. Subclass it, override what differs, and register an instance.

    Attributes set by ``__init__``: ``name`` (what card files write), ``keyword`` (printed on cards),
    ``doc``, ``params``; and hints for planning bots, which are promises about the rules:

    * ``commutes``: picking the same targets in another order gives the same result, so a planner may
      enumerate targets in increasing order only;
    * ``reveals``: resolving it may show a hidden card (the deck), so a planner must stop before its
      decisions and plan again once the card is shown;
    * ``hand_change``: each card picked goes into (+1) or out of (-1) the player's hand, or neither (0).
    """

    name: str
    keyword: str
    doc: str
    params: tuple[Param, ...]
    commutes: bool
    reveals: bool
    hand_change: int
    index: int  # the kind's place in the registry (set on registration; tensors use it)

    def __init__(self, name: str, keyword: str, doc: str, params: tuple[Param, ...], *, commutes: bool = False,
                 reveals: bool = False, hand_change: int = 0) -> None:
        self.name = name
        self.keyword = keyword
        self.doc = doc
        self.params = params
        self.commutes = commutes
        self.reveals = reveals
        self.hand_change = hand_change
        self.index = -1

    def __repr__(self) -> str:
        return f"<effect kind {self.name}>"

    # ------------------------------------------------------------------ card data

    def compile(self, params: Mapping[str, ParamValue]) -> tuple[int, ...]:
        """The integers the engine runs on, from validated parameters: one per declared parameter, in
        order (a bool as 0/1, a choice as its index)."""
        out: list[int] = []
        for p in self.params:
            value = params[p.name]
            if p.type == "choice":
                out.append(p.choices.index(str(value)))
            elif p.type == "skillset":
                raise TypeError(f"effect kind {self.name}: override compile() for skillset parameters")
            else:
                out.append(int(value))
        return tuple(out)

    def check(self, params: Mapping[str, ParamValue]) -> str:
        """A problem between parameters that each are valid (e.g. a trade that allows nothing), or ""."""
        return ""

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        """The printed text of a card's effect, generated from its parameters."""
        raise NotImplementedError(f"effect kind {self.name} has no text()")

    # ------------------------------------------------------------------ resolving

    def picks(self, args: tuple[int, ...]) -> int:
        """How many picks the effect makes at most (its count of remaining picks when it starts)."""
        return 1

    def optional(self, args: tuple[int, ...]) -> bool:
        """Whether the player may decline the rest of the effect ("done") at a target step (T4)."""
        return False

    def begin(self, m: Match) -> None:
        """Called once when the effect starts, before its first decision (e.g. Search looks at the deck)."""

    def next_decision(self, m: Match) -> bool:
        """Set up the next decision (``m.effect.step`` and anything pending); False when nothing is left
        to decide, which ends the effect. By default: a target step when there is a target."""
        m.effect.step = TARGET
        return len(self.targets(m, TARGET)) > 0

    def targets(self, m: Match, step: int) -> list[int]:
        """The cards the player may choose at a TARGET or SECOND step (any order; the engine sorts)."""
        return []

    def act(self, m: Match, action: int) -> None:
        """Apply one decision of the player (never ``done``: the engine ends the effect itself). Updates
        ``m.effect`` and calls ``m.continue_effect()`` when the decision completes a pick."""
        raise NotImplementedError(f"effect kind {self.name} has no act()")

    def prompt(self, step: int) -> str:
        """What the player is choosing at ``step``, in words ("choose a card to ...")."""
        if step == SKILLSET:
            return "choose a skillset"
        if step == FACTION:
            return "choose the faction to add the card to (mine, theirs)"
        if step == SECOND:
            return "choose the second card"
        return f"choose a card for {self.keyword}"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        """An upper bound on the decisions the effect adds to a play; ``borrowed`` is the bound of any
        other effect of the playset (for an effect that resolves another card's, like Study)."""
        return self.picks(args) + 1

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        """An upper bound on the events resolving the effect logs (the reverts of its conversions at the end
        of the turn included); ``borrowed`` is the bound of any other effect of the playset (Study). The
        perfect-recall tensors are sized from it (a match that logs more is refused there), so a kind that
        logs more than two events a decision must say so. By default: two a decision (a card shown, then
        moved)."""
        return 2 * self.max_decisions(args, 0)

    # ------------------------------------------------------------------ what others may know

    def public_choice(self, step: int) -> bool:
        """Whether what the player sees while deciding at ``step`` — the card pending from an earlier step
        and the cards revealed to them — is public (e.g. the card Assemble shows to both players);
        otherwise only the deciding player sees it."""
        return False

    def score_neutral(self, args: tuple[int, ...]) -> bool:
        """Whether no choice of this effect can change a score this turn (a planner may then pick by a
        fixed policy instead of looking ahead)."""
        return False


def rank_limit(max_rank: ParamValue) -> str:
    """A ``max_rank`` parameter as a card prints it after "a card": nothing when every rank is allowed.

    >>> rank_limit(6), rank_limit(3), rank_limit(1)
    ('', ' of rank 3 or lower', ' of rank 1')
    """
    rank = int(max_rank)
    if rank >= RANKS[-1]:
        return ""
    return f" of rank {rank}" if rank <= RANKS[0] else f" of rank {rank} or lower"


def pick_then_place(m: Match, action: int, source: int) -> None:
    """One decision of "choose a card from ``source``, then the faction it goes into" (Expand, Heal): a
    card (kept pending), then mine or theirs, which moves it and completes the pick."""
    e = m.effect
    if e.step == TARGET:
        e.pending = action
        e.step = FACTION
        return
    m.move_card(e.pending, source, FACTION_ZONE + m.owner_of(action))
    e.pending = -1
    e.step = TARGET
    e.remaining -= 1
    m.continue_effect()


class EffectState:
    """The discard effect in progress: which kind, whose card, the pending decision and its picks.

    ``card`` is the card whose effect resolves (the played card, or the card it studies); ``pending`` a
    card chosen at an earlier step of the same pick; ``picked`` the cards already picked; ``revealed``
    cards of the deck shown to the player; ``decisions`` how many decisions the effect took so far.
    """

    __slots__ = ("kind", "card", "args", "step", "remaining", "pending", "picked", "revealed", "decisions")

    kind: EffectKind | None
    card: int
    args: tuple[int, ...]
    step: int
    remaining: int
    pending: int
    picked: list[int]
    revealed: list[int]
    decisions: int

    def __init__(self) -> None:
        self.picked = []
        self.revealed = []
        self.clear()

    def clear(self) -> None:
        """No effect in progress (in place: the state owns its lists, and a play that ends is frequent)."""
        self.kind = None
        self.card = -1
        self.args = ()
        self.step = TARGET
        self.remaining = 0
        self.pending = -1
        if self.picked:
            self.picked.clear()
        if self.revealed:
            self.revealed.clear()
        self.decisions = 0

    def copy(self) -> EffectState:
        e = EffectState()
        e.kind = self.kind
        e.card = self.card
        e.args = self.args
        e.step = self.step
        e.remaining = self.remaining
        e.pending = self.pending
        e.picked = self.picked[:]
        e.revealed = self.revealed[:]
        e.decisions = self.decisions
        return e


_REGISTRY: Registry[EffectKind] = Registry("effect", EffectKind)


def register_builtin_effects(kinds: Iterable[EffectKind]) -> None:
    """Register the package's effect kinds, in their canonical order (:mod:`converge.engine.effects` does)."""
    _REGISTRY.register_builtins(kinds)


def builtin_effect_kinds() -> list[EffectKind]:
    """The package's own effect kinds, in their canonical order (those registered later are extensions)."""
    return list(_REGISTRY.all().values())[:_REGISTRY.builtin]


def register_effect(kind: EffectKind) -> EffectKind:
    """Make ``kind`` available to card files (the public extension point); returns it.

    Raises ``ValueError`` for a malformed or already registered name.
    """
    return _REGISTRY.register(kind)


def unregister_effect(name: str) -> None:
    """Remove a kind added by :func:`register_effect` (for tests); the built-in kinds stay."""
    _REGISTRY.unregister(name)


def effect_kinds() -> Mapping[str, EffectKind]:
    """Every registered effect kind by name, in registration order (the built-ins first)."""
    return _REGISTRY.all()


def effect_kind(name: str) -> EffectKind:
    """The registered effect kind called ``name``; :class:`UnknownKindError` if there is none."""
    return _REGISTRY.get(name)
