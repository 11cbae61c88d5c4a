"""Histories consistent with one player's information: what OpenSpiel's ``resample_from_infostate`` returns.

A state of an information-set search must be a *whole history* — every deal and every decision — whose
:meth:`~converge.engine.state.Match.observation` for the player is the one the player has now, event
log included (OpenSpiel's ISMCTS checks that the sampled state has the player's information-state
string). A position cannot give that (it has no past), nor can
:meth:`~converge.engine.state.Match.sample_world` (a world without a history). So this module deals
every round again and replays the same decisions:

* Each round is dealt from 18 *places* (deal positions): hands, artifact, first discard, deck (a smaller
  variant's :mod:`~converge.engine.variant` has fewer, and smaller hands). The
  player's own log tells which places it has seen and what was there (its hand, the first discard, its
  draws, cards revealed by Assemble, the cards its Search showed) and how hidden places move (draws,
  Searches, the opponent's plays from hand). The places it never saw are filled with the cards it
  never saw.
* The only hidden *decisions* of the opponent are which card they take among cards only they were
  shown (Search), a card chosen but not yet played, a choice pending inside an effect, and the order of
  two picks that show only their outcome (a hand trade); these are drawn again too. Every other
  decision of either player is public and is replayed as it was.
* The result is drawn uniformly among all the histories the player cannot tell apart (the chance
  posterior: every deal is equally likely, and an opponent's hidden choice is treated as uniform). The
  places' contents are exchangeable except where the log ties them down, so only a few cases need
  weighting: an opponent's Search over cards the player had seen (which one went to their hand), and
  how many unseen cards their hand held when they played a card — these are counted exactly.

The sampler reads the player's observation (its event log, through the engine's event schema: cards
move between zones, whatever effect moved them) and the public structure of the action list (who acted,
and the chance nodes); the real hidden cards never reach it except through places it overwrites. The
replayed history is checked against the player's observation before it is returned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from converge.adapters.encoding import decision_kind
from converge.engine.actions import DONE
from converge.engine.effects import STEP_NAMES, effect_kinds
from converge.engine.errors import ConvergeError
from converge.engine.events import (
    DEALT,
    DRAW,
    DREW,
    MOVE,
    PLAY,
    REVEAL,
    ROUND_START,
    SAW,
    SEARCH,
    START_DISCARD,
    TOOK,
    Event,
    from_dict,
)
from converge.engine.playset import Playset
from converge.engine.schema import Observation
from converge.engine.state import Match
from converge.engine.turn import CHANCE
from converge.engine.variant import FULL, Variant
from converge.engine.zones import DECK, is_hand

Rand = Callable[[], float]


class ResampleError(RuntimeError):
    """The history could not be resampled consistently (a bug: it should never happen)."""


class _Inconsistent(Exception):
    """This branch of choices contradicts the player's log."""


class _NeedBranch(Exception):
    def __init__(self, options: int) -> None:
        super().__init__(options)
        self.options = options


def _choose(n: int, rand: Rand | None) -> int:
    if n <= 1 or rand is None:
        return 0
    return min(n - 1, int(rand() * n))


class _Round:
    """The places of one round as the viewer can follow them.

    A *token* is a place of the deal (0..17: ``order[i]`` of the deal order), or ``-1 - c`` for a card
    ``c`` that entered the opponent's hand in public (Recall, Trade).
    """

    def __init__(self, viewer: int, choices: Sequence[int], rand: Rand | None, variant: Variant = FULL):
        self.viewer = viewer
        hand = variant.hand_size
        self.hand_size = hand
        self.num_cards = variant.num_cards
        #: the places of the artifact and of the first discard, after the two hands
        self.discard_slot = 2 * hand + 1
        self.opp = 1 - viewer
        self.choices = choices
        self.used = 0
        self.rand = rand
        self.own_slots = list(range(0, hand) if viewer == 0 else range(hand, 2 * hand))
        self.dealt = 0
        self.slot_card: dict[int, int] = {}
        self.card_slot: dict[int, int] = {}
        self.deck = list(range(2 * hand + 2, variant.num_cards))  # the top of the deck is the end of the list
        self.opp_hand = list(range(hand, 2 * hand) if viewer == 0 else range(0, hand))
        self.search_top: list[int] = []
        self.pending_draw = -1
        self.opp_search = 0
        self.takes: list[int] = []
        self.weight = 1

    def assign(self, token: int, card: int) -> None:
        if card < 0:
            raise _Inconsistent
        if token < 0:  # a card that entered the place in public
            if -1 - token != card:
                raise _Inconsistent
            return
        known = self.slot_card.get(token)
        if known is not None:
            if known != card:
                raise _Inconsistent
            return
        if card in self.card_slot:
            raise _Inconsistent
        self.slot_card[token] = card
        self.card_slot[card] = token

    def _branch(self, options: int) -> int:
        if options == 1:
            return 0
        if self.used < len(self.choices):
            k = self.choices[self.used]
            self.used += 1
            return k
        raise _NeedBranch(options)

    def opp_plays(self, card: int) -> None:
        """The opponent played ``card`` from their hand (a play, Expand or a hand trade)."""
        for i, tok in enumerate(self.opp_hand):
            if (tok < 0 and -1 - tok == card) or (tok >= 0 and self.slot_card.get(tok) == card):
                del self.opp_hand[i]
                return
        if card in self.card_slot:  # the viewer knows it is somewhere else
            raise _Inconsistent
        unseen = [i for i, tok in enumerate(self.opp_hand) if tok >= 0 and tok not in self.slot_card]
        if not unseen:
            raise _Inconsistent
        self.weight *= len(unseen)
        i = unseen[_choose(len(unseen), self.rand)]
        self.assign(self.opp_hand[i], card)
        del self.opp_hand[i]

    def resolve_opp_search(self) -> None:
        """The opponent's Search took one of the top cards: which one is hidden from the viewer."""
        depth, self.opp_search = self.opp_search, 0
        top = self.deck[len(self.deck) - depth:]
        seen = [t for t in top if t < 0 or t in self.slot_card]  # (t < 0: a card put there in public)
        unseen = [t for t in top if t >= 0 and t not in self.slot_card]
        k = self._branch(len(seen) + (1 if unseen else 0))
        if k < len(seen):
            taken = seen[k]
        else:
            self.weight *= len(unseen)
            taken = unseen[_choose(len(unseen), self.rand)]
        self.deck.remove(taken)
        self.opp_hand.append(taken)
        self.takes.append(taken)

    def step(self, event: Event) -> None:
        if self.opp_search:
            self.resolve_opp_search()
        kind, _vis, player, card, a, b = event
        if kind == START_DISCARD:
            self.assign(self.discard_slot, card)
        elif kind == DEALT:
            if self.dealt >= self.hand_size:
                raise _Inconsistent
            self.assign(self.own_slots[self.dealt], card)
            self.dealt += 1
        elif kind == DRAW:
            if not self.deck:
                raise _Inconsistent
            tok = self.deck.pop()
            if player == self.opp:
                self.opp_hand.append(tok)
            else:
                self.pending_draw = tok
        elif kind == DREW:
            self.assign(self.pending_draw, card)
        elif kind == REVEAL:
            if not self.deck:
                raise _Inconsistent
            self.assign(self.deck[-1], card)
        elif kind == SEARCH:
            if player == self.viewer:
                self.search_top = self.deck[len(self.deck) - a:][::-1] if a > 0 else []
            elif a > 0:
                self.opp_search = a
        elif kind == SAW:
            if not 0 <= a < len(self.search_top):
                raise _Inconsistent
            self.assign(self.search_top[a], card)
        elif kind == TOOK:
            token = -1 - card if -1 - card in self.deck else self.card_slot.get(card)
            if token is None or token not in self.deck:
                raise _Inconsistent
            self.deck.remove(token)
        elif kind == PLAY:
            if player == self.opp:
                self.opp_plays(card)
        elif kind == MOVE:
            self.move(card, a, b)

    def move(self, card: int, source: int, target: int) -> None:
        """A card moved in public between zones: follow the hidden places it leaves or enters."""
        if source == DECK:
            if not self.deck:
                raise _Inconsistent
            self.assign(self.deck.pop(), card)
        elif source == self.opp:  # the opponent's hand
            self.opp_plays(card)
        if target == DECK:
            self.deck.append(-1 - card)
        elif is_hand(target) and target == self.opp:
            self.opp_hand.append(-1 - card)

    def order(self, rand: Rand) -> tuple[list[int], list[int]]:
        """The deal order (places filled, the unseen ones at random) and the cards the opponent's
        Searches took, in order."""
        n = self.num_cards
        order = [-1] * n
        for slot, card in self.slot_card.items():
            order[slot] = card
        free_cards = [c for c in range(n) if c not in self.card_slot]
        free_slots = [s for s in range(n) if s not in self.slot_card]
        _shuffle(free_cards, rand)
        for s, c in zip(free_slots, free_cards, strict=True):
            order[s] = c
        return order, [order[t] for t in self.takes]


def _shuffle(items: list[int], rand: Rand) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = _choose(i + 1, rand)
        items[i], items[j] = items[j], items[i]


def _run(events: Sequence[Event], viewer: int, choices: Sequence[int], rand: Rand | None,
         variant: Variant = FULL) -> _Round:
    r = _Round(viewer, choices, rand, variant)
    for event in events:
        r.step(event)
    return r


def sample_round(events: Sequence[Event], viewer: int, rand: Rand,
                 variant: Variant = FULL) -> tuple[list[int], list[int]]:
    """One round's deal order and the opponent's Search takes, drawn uniformly among those that give
    ``viewer`` the log ``events`` (the round's events, as the viewer sees them) in a match of ``variant``."""
    paths: list[tuple[list[int], int]] = []
    stack: list[list[int]] = [[]]
    while stack:
        choices = stack.pop()
        try:
            weight = _run(events, viewer, choices, None, variant).weight
        except _NeedBranch as need:
            stack.extend([*choices, k] for k in range(need.options))
            continue
        except _Inconsistent:
            continue
        paths.append((choices, weight))
        if len(paths) > 100_000:
            raise ResampleError("too many ways to explain the opponent's Searches")
    if not paths:
        raise ResampleError("no deal is consistent with the player's log")
    total = sum(w for _, w in paths)
    x = rand() * total
    chosen = paths[-1][0]
    for choices, weight in paths:
        if x < weight:
            chosen = choices
            break
        x -= weight
    return _run(events, viewer, chosen, rand, variant).order(rand)


def _two_picks(world: Match, action: int) -> bool:
    """Whether ``action`` is the first of two picks of one exchange (a target, then a second card)."""
    probe = world.clone(False, False)
    probe.apply(action)
    return probe.decision_kind == "second"


def _pick_order(world: Match, first: int, second: int, viewer: int, rand: Rand) -> tuple[int, int]:
    """Two picks of the opponent in an order drawn uniformly among those the viewer cannot tell apart
    (a hand trade gives the same exchange in both orders)."""
    if rand() < 0.5:
        return first, second
    alt = world.clone()
    try:
        alt.apply(second)
        alt.apply(first)
    except ConvergeError:
        return first, second
    same = world.clone()
    same.apply(first)
    same.apply(second)
    if alt.observation(viewer) == same.observation(viewer):
        return second, first
    return first, second


def _rounds(events: Sequence[Event]) -> list[list[Event]]:
    rounds: list[list[Event]] = []
    for event in events:
        if event[0] == ROUND_START:
            rounds.append([])
        if rounds:
            rounds[-1].append(event)
    return rounds


def trailing_hidden(obs: Observation, viewer: int) -> bool:
    """Whether the last decision was the opponent's and is still hidden from ``viewer``: a card chosen
    but not yet played, or a pick pending inside an effect (a target before its skillset or faction, the
    first of two picks)."""
    decision = obs.get("decision")
    if not decision or decision.get("player") != 1 - viewer:
        return False
    kind = decision_kind(decision)
    if kind == "mode":
        return True
    effect = effect_kinds().get(str(decision.get("effect")))
    return kind in STEP_NAMES[1:] and effect is not None and not effect.public_choice(STEP_NAMES.index(kind))


def resample_history(playset: Playset, start: str, moves: Sequence[tuple[int, int]], viewer: int,
                     obs: Observation, rand: Rand) -> tuple[list[tuple[int, int]], Match]:
    """A history the player ``viewer`` cannot tell from the real one, drawn uniformly among those.

    ``moves`` is the real history as ``(player, action)`` pairs (``player`` is :data:`CHANCE` for chance
    outcomes) of a chance-mode match of ``playset`` and ``start``; ``obs`` is the real
    ``observation(viewer)``. Only the public structure of ``moves`` and the public or viewer's own
    decisions in it are used. Returns the new moves and the replayed match.
    """
    if viewer not in (0, 1):
        raise ValueError(f"a viewer is player 0 or 1, got {viewer!r}")
    opp = 1 - viewer
    index_of = {cid: i for i, cid in enumerate(playset.card_ids)}
    events = [from_dict(e, index_of, playset.skillsets) for e in obs.get("events") or []]
    deals = [sample_round(r, viewer, rand, playset.variant) for r in _rounds(events)]
    hidden_last = trailing_hidden(obs, viewer)
    world = Match.new(playset, seed=0, start=start, chance=True)
    out: list[tuple[int, int]] = []
    n = len(moves) - (1 if hidden_last else 0)
    round_idx, deal_pos, takes_used, in_deal = -1, 0, 0, False
    partial: list[int] = []
    i = 0
    while i < n:
        player, action = moves[i]
        if player == CHANCE:
            if i == 0 and start == "random":  # the round-1 artifact holder is public
                a = action
            else:
                if not in_deal:
                    round_idx, deal_pos, takes_used, in_deal = round_idx + 1, 0, 0, True
                if round_idx < len(deals):
                    a = deals[round_idx][0][deal_pos]
                else:  # a deal in progress: nobody has seen any of it yet
                    if not partial:
                        partial = list(range(playset.variant.num_cards))
                        _shuffle(partial, rand)
                    a = partial[deal_pos]
                deal_pos += 1
        else:
            in_deal = False
            a = action
            effect = world.effect_kind
            if player == opp and effect is not None and world.decision_kind == "target":
                if effect.reveals and not effect.public_choice(0):  # a pick among cards only they saw
                    takes = deals[round_idx][1] if 0 <= round_idx < len(deals) else []
                    if takes_used >= len(takes):
                        raise ResampleError("an opponent's Search take the log does not show")
                    a = takes[takes_used]
                    takes_used += 1
                elif action != DONE and i + 1 < n and _two_picks(world, action):
                    # A hand trade shows which two cards changed places, not the order of the picks.
                    first, second = _pick_order(world, action, moves[i + 1][1], viewer, rand)
                    for b in (first, second):
                        try:
                            world.apply(b)
                        except ConvergeError as exc:
                            raise ResampleError(f"resampled move #{i} ({b}) is not legal: {exc}") from exc
                        out.append((player, b))
                    i += 2
                    continue
        try:
            world.apply(a)
        except ConvergeError as exc:
            raise ResampleError(f"resampled move #{i} ({a}) is not legal: {exc}") from exc
        out.append((player, a))
        i += 1
    if hidden_last:
        player = moves[-1][0]
        fits = []
        for a in world.legal_actions():
            trial = world.clone()
            trial.apply(a)
            if trial.observation(viewer) == obs:
                fits.append(a)
        if not fits:
            raise ResampleError("no hidden last decision of the opponent fits the player's observation")
        a = fits[_choose(len(fits), rand)]
        world.apply(a)
        out.append((player, a))
    elif world.observation(viewer) != obs:
        raise ResampleError("the resampled history does not give the player's observation")
    return out, world
