"""The rules engine: one :class:`Match` holds a whole match of Converge and is its only source of truth.

>>> from converge.engine import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=7)
>>> m.current_player in (0, 1), len(m.legal_actions())
(True, 3)
>>> while not m.is_terminal:
...     m.apply(m.legal_actions()[0])
>>> m.winner in (0, 1), max(m.round_wins)
(True, 2)

A match's state is three parts that each copy themselves: :class:`~converge.engine.zones.Zones` (where
the cards are and what they are now), :class:`TurnState` (rounds, turns, whose decision) and
:class:`~converge.engine.effects.EffectState` (the discard effect in progress). What an effect does is
defined by its kind, in :mod:`converge.engine.effects`; the engine only runs the turn and dispatches.
"""

from __future__ import annotations

import _random
import operator
import random
from collections.abc import Callable, Iterable
from typing import Final

from converge.engine.actions import (
    DECLARE,
    DISCARD,
    DONE,
    MINE,
    NUM_ACTIONS,
    SKILLSET_0,
    THEIRS,
    action_to_string,
    string_to_action,
)
from converge.engine.effects import FACTION, SKILLSET, TARGET, EffectKind, EffectState
from converge.engine.errors import IllegalActionError, PlaysetError, quote
from converge.engine.events import (
    ARTIFACT,
    DEALT,
    DISCARDED,
    DRAW,
    DREW,
    HANDS_EMPTY,
    MATCH_END,
    MOVE,
    OUTSCORED,
    PASS,
    PLAY,
    PUBLIC,
    RESOLVE,
    REVERT,
    ROUND_END,
    ROUND_START,
    SCORE,
    START_DISCARD,
    Event,
)
from converge.engine.goals import FactionStats, goal_winners
from converge.engine.narration import decision_prompt as prompt_of
from converge.engine.observation import observe
from converge.engine.playset import Playset
from converge.engine.position import set_up, to_position
from converge.engine.record import replay as replay_record
from converge.engine.record import to_record
from converge.engine.schema import GoalScore, Observation, Position, RecordDoc
from converge.engine.scoring import breakdown
from converge.engine.sizes import MAX_ROUNDS
from converge.engine.turn import (
    CHANCE,
    DEAL,
    EFFECT,
    MODE,
    OVER,
    SELECT,
    START,
    TurnState,
    seat,
)
from converge.engine.variant import FULL, variant_named
from converge.engine.view import PlayerView
from converge.engine.zones import BOTH_KNOW, DECK, Zones, is_hand


def shuffled_deal(seed: int, round_no: int, num_cards: int = 18) -> list[int]:
    """The seeded order of the 18 cards for a round (Fisher-Yates driven by ``Random.random``); of
    ``num_cards`` cards in a smaller variant.

    Seeding the generator costs most of a deal (the Mersenne Twister's whole state is built), so the
    orders of recent ``(seed, round)`` pairs are kept: replays and playouts from one start deal the same
    rounds again and again.
    """
    key = (seed * 4 + round_no) * 32 + num_cards
    known = _DEALS.get(key)
    if known is not None:
        return list(known)
    # The same generator as random.Random(key), seeded without its Python-level wrapper (which adds
    # nothing for an integer seed).
    dealer = _new_random(random.Random)
    _seed_random(dealer, seed * 4 + round_no)
    rand = dealer.random
    order = list(range(num_cards))
    for i in range(num_cards - 1, 0, -1):
        j = int(rand() * (i + 1))
        order[i], order[j] = order[j], order[i]
    if len(_DEALS) >= 4096:
        _DEALS.clear()
    _DEALS[key] = tuple(order)
    return order


_DEALS: Final[dict[int, tuple[int, ...]]] = {}


_new_random: Final = random.Random.__new__
_seed_random: Final = _random.Random.seed


class FixedDraws:
    """A fixed sequence of draws in [0, 1), for a redacted copy's deal: deterministic, and much cheaper
    than seeding a ``random.Random`` for every copy."""

    __slots__ = ("i",)

    def __init__(self) -> None:
        self.i = 0

    def __call__(self) -> float:
        self.i += 1
        return _FIXED_DRAWS[self.i % len(_FIXED_DRAWS)]


_FIXED_DRAWS: Final = tuple(random.Random(0).random() for _ in range(97))


class Match:
    """A whole match of Converge: up to three rounds, each dealt afresh from the playset's 18 cards.

    Create one with :meth:`new`; advance it with :meth:`apply`; look at it through
    :meth:`observation` or hand a player its :meth:`view`. Every decision, including each choice inside
    an effect, is one action of :attr:`current_player`.

    The parts ``zones``, ``turn`` and ``effect`` hold the whole state, hidden cards included: they are
    the engine's, its effect kinds' and its tests'. Clients — bots, adapters, terminal, server — read a
    match through :meth:`observation`, :meth:`view` and the public properties below, and change it only
    with :meth:`apply` (or :meth:`push`, :meth:`restore`).
    """

    __slots__ = ("playset", "seed", "start_setting", "zones", "turn", "effect", "_events", "_history",
                 "_logging", "_keep_history", "chance", "origin")

    playset: Playset
    seed: int
    start_setting: str
    zones: Zones
    turn: TurnState
    effect: EffectState
    _events: list[Event]
    _history: list[int]
    _logging: bool
    _keep_history: bool
    chance: bool
    origin: Position | None  # the position a match set up by from_position began at (for its record)

    # ------------------------------------------------------------------ creation

    # Public entry points take ``object`` and check types themselves, so that bad input gets a
    # precise ConvergeError (not a TypeError) also when this module is compiled by mypyc.
    def __init__(self, playset: object = None, seed: object = 0, start: object = "random",
                 deck_dirs: Iterable[str] = (), chance: object = False, log_events: object = True,
                 variant: object = None) -> None:
        """Start a match; see :meth:`new`. ``Match()`` with no playset is a blank for internal use."""
        if playset is None:
            return
        if not isinstance(playset, Playset):
            size = variant_named(FULL if variant is None else variant)
            if (not isinstance(playset, (list, tuple)) or len(playset) != size.skillsets
                    or not all(isinstance(n, str) for n in playset)):
                if size.is_full:
                    raise PlaysetError("a playset is three skillset names, e.g. alchemist,mechanist,archivist")
                raise PlaysetError(f"a playset of the {size.name} variant is {size.skillsets} skillset names, "
                                   f"got {quote(playset)}")
            playset = Playset.from_names(playset, deck_dirs, size)
        elif variant is not None and variant_named(variant) != playset.variant:
            raise PlaysetError(f"the playset is of the {playset.variant.name} variant, not {quote(variant)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise PlaysetError(f"the seed must be an integer from 0 to 2**63-1, got {quote(seed)}")
        setting = str(start) if isinstance(start, (str, int)) and not isinstance(start, bool) else "?"
        if setting not in ("random", "0", "1"):
            raise PlaysetError(f"start must be 'random', 0 or 1, got {quote(start)}")
        self.playset = playset
        self.seed = seed
        self.start_setting = setting
        self.zones = Zones(playset.printed_skill, playset.printed_rank)
        self.turn = TurnState()
        self.effect = EffectState()
        self._events = []
        self._history = []
        self._logging = log_events is not False
        self._keep_history = True
        self.chance = chance is True
        self.origin = None
        if self.chance and setting == "random":
            self.turn.phase, self.turn.player = START, CHANCE
            return
        first = random.Random(f"converge:{seed}:start").randrange(2) if setting == "random" else int(setting)
        self._start_round(first)

    @classmethod
    def new(cls, playset: object, seed: object = 0, start: object = "random",
            deck_dirs: Iterable[str] = (), chance: object = False, log_events: object = True,
            variant: object = None) -> Match:
        """Start a match (arguments typed ``object``: bad ones get a PlaysetError, not a TypeError, also
        when compiled by mypyc).

        ``playset`` is a :class:`Playset` or three skillset names. ``start`` says who holds the
        artifact in round 1 (M2): ``"random"`` (drawn from the seed), or ``0``/``1``, the player who
        most recently lost a game. ``log_events=False`` keeps no event log (for simulations that need
        none; observations then show no events). ``variant`` (a name or a
        :class:`~converge.engine.variant.Variant`; the full game by default) plays the same rules on a smaller
        game; a :class:`Playset` brings its own.

        With ``chance=True`` the seed is not used: every random event is a *chance node*
        (:attr:`current_player` is :data:`CHANCE`) whose outcome is applied as an action — the
        round-1 artifact holder (when ``start`` is random), then each card of the deal order in turn
        (hands, artifact, discard, deck; the last card is forced). Frameworks such as OpenSpiel use it.

        >>> Match.new(["delver", "astropath", "healer"], seed=3, start=1).holder
        1
        """
        if playset is None:  # Match() with no playset is an internal blank; new() always sets up a match
            raise PlaysetError("a playset is three skillset names, e.g. alchemist,mechanist,archivist")
        return cls(playset, seed, start, deck_dirs, chance, log_events, variant)

    def _start_round(self, holder: int) -> None:
        """M3: shuffle the 18 cards (seeded per round, or drawn at chance nodes) and deal."""
        t = self.turn
        t.round_no += 1
        if self.chance:
            self.zones = Zones(self.playset.printed_skill, self.playset.printed_rank)
            self.effect = EffectState()
            t.phase, t.player = DEAL, CHANCE
            t.dealt = []
            t.deal_holder = holder
            return
        self._deal(shuffled_deal(self.seed, t.round_no, self.playset.variant.num_cards), holder)

    def _deal(self, order: list[int], holder: int) -> None:
        z = Zones(self.playset.printed_skill, self.playset.printed_rank)
        hand = self.playset.variant.hand_size
        dealt = 2 * hand  # a hand each, then the artifact, the first discard and the deck
        z.hands = [order[0:hand], order[hand:dealt]]
        for p in (0, 1):
            for c in z.hands[p]:
                z.known[c] = 1 << p
        z.artifact = order[dealt]
        z.discard = [order[dealt + 1]]
        z.deck = order[dealt + 2:]  # the top of the deck is the end of the list
        self.zones = z
        self.effect = EffectState()
        t = self.turn
        t.holder = holder
        t.first_holders.append(holder)
        t.active = -1
        self.log_event(ROUND_START, PUBLIC, holder, -1, t.round_no)
        self.log_event(START_DISCARD, PUBLIC, -1, z.discard[0])
        for p in (0, 1):
            for c in z.hands[p]:
                self.log_event(DEALT, p, p, c)
        self._begin_turn()

    # ------------------------------------------------------------------ public properties

    @property
    def current_player(self) -> int:
        """The player to decide now (0 or 1), :data:`CHANCE` at a chance node, or -1 when the match is over."""
        return -1 if self.turn.phase == OVER else self.turn.player

    @property
    def is_chance_node(self) -> bool:
        """True when the next action is a chance outcome (chance mode only)."""
        return self.turn.phase in (DEAL, START)

    @property
    def is_terminal(self) -> bool:
        return self.turn.phase == OVER

    @property
    def round_no(self) -> int:
        """The current round, from 1."""
        return self.turn.round_no

    @property
    def turn_no(self) -> int:
        """Turns begun in the match so far (the current one included)."""
        return self.turn.turn_no

    @property
    def round_wins(self) -> list[int]:
        """Rounds won by each player (a copy)."""
        return self.turn.round_wins[:]

    @property
    def round_results(self) -> list[tuple[int, int]]:
        """``(winner, reason)`` of each finished round; reasons are ``events.OUTSCORED`` / ``HANDS_EMPTY``."""
        return self.turn.round_results[:]

    @property
    def rounds_finished(self) -> int:
        """How many rounds have ended (cheaper than ``len(round_results)``, for search)."""
        return len(self.turn.round_results)

    @property
    def round_winners(self) -> list[int]:
        return [w for w, _ in self.turn.round_results]

    @property
    def round_first_holders(self) -> list[int]:
        """Who held the artifact at the start of each round dealt so far."""
        return self.turn.first_holders[:]

    @property
    def winner(self) -> int:
        """The match winner, or -1 while it is not over."""
        return self.turn.winner

    @property
    def holder(self) -> int:
        """Who holds the artifact."""
        return self.turn.holder

    @property
    def lead(self) -> int:
        """The lead of the current turn: who held the artifact when it began (T1)."""
        return self.turn.lead

    @property
    def events(self) -> list[Event]:
        """The event log, every player's private events included (the engine's; never show it whole)."""
        return self._events

    @property
    def history(self) -> list[int]:
        """The actions applied so far (private while the match is in progress: it decides hidden cards)."""
        return self._history

    @property
    def log_events(self) -> bool:
        """Whether this match keeps an event log."""
        return self._logging

    @property
    def decision_kind(self) -> str:
        """What is being decided: one of :data:`DECISION_KINDS` (select, mode, target, skillset, faction,
        second, chance, over). Public: it names no card."""
        phase = self.turn.phase
        if phase == OVER:
            return "over"
        if phase in (DEAL, START):
            return "chance"
        if phase == SELECT:
            return "select"
        if phase == MODE:
            return "mode"
        return ("target", "skillset", "faction", "second")[self.effect.step]

    @property
    def effect_kind(self) -> EffectKind | None:
        """The kind of the discard effect being resolved, or None."""
        return self.effect.kind

    @property
    def effect_card(self) -> int:
        """The card whose discard effect is resolving (the played card, or the card it studies), or -1."""
        return self.effect.card

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the current chance node with their probabilities (all equally likely)."""
        if not self.is_chance_node:
            return []
        legal = self.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]

    # ------------------------------------------------------------------ copies

    def clone(self, history: bool = True, events: bool = True, chance: bool = False) -> Match:
        """An independent copy; the playset tables are shared, not copied.

        For search, ``history=False`` and ``events=False`` skip copying (and later keeping) the action
        list and the event log; ``chance=True`` turns the copy into chance mode, so that a round that
        ends leaves it waiting for the next deal instead of dealing from the seed.
        """
        m = Match()
        m.playset = self.playset
        m.seed = self.seed
        m.start_setting = self.start_setting
        m.zones = self.zones.copy()
        m.turn = self.turn.copy()
        m.effect = self.effect.copy()
        m._logging = self._logging and events
        m._events = self._events[:] if m._logging else []
        m._keep_history = self._keep_history and history
        m._history = self._history[:] if m._keep_history else []
        m.chance = self.chance or chance
        m.origin = self.origin
        return m

    def snapshot(self) -> Match:
        """A copy to :meth:`restore` later: the public undo.

        >>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
        >>> before = m.snapshot()
        >>> m.apply(m.legal_actions()[0])
        >>> m.restore(before)
        >>> len(m.history)
        0
        """
        return self.clone()

    def restore(self, snapshot: object) -> None:
        """Put this match back in the state of ``snapshot`` (taken from this match by :meth:`snapshot`);
        the snapshot stays usable."""
        if not isinstance(snapshot, Match) or snapshot.playset is not self.playset:
            raise IllegalActionError("restore takes a snapshot of this match")
        self.seed = snapshot.seed
        self.start_setting = snapshot.start_setting
        self.zones = snapshot.zones.copy()
        self.turn = snapshot.turn.copy()
        self.effect = snapshot.effect.copy()
        self._logging = snapshot._logging
        self._events = snapshot._events[:]
        self._keep_history = snapshot._keep_history
        self._history = snapshot._history[:]
        self.chance = snapshot.chance
        self.origin = snapshot.origin

    # ------------------------------------------------------------------ information

    def hidden_from(self, player: object) -> list[int]:
        """The cards whose place ``player`` does not know, sorted: unknown cards of the opponent's hand
        (the card they chose but have not played yet counts as one of their hand), the deck's unknown
        cards and the artifact."""
        player = seat(player)
        z = self.zones
        bit = 1 << player
        out = [c for c in self._opponent_pool(player) if not z.known[c] & bit]
        out += [c for c in z.deck if not z.known[c] & bit]
        if z.artifact >= 0:
            out.append(z.artifact)
        out.sort()
        return out

    def _opponent_pool(self, player: int) -> list[int]:
        """The opponent's hand as ``player`` sees it: with the card they are about to play (before its mode
        is chosen, nobody else knows which card of their hand it is)."""
        t = self.turn
        opp = 1 - player
        pool = self.zones.hands[opp][:]
        if t.phase == MODE and t.player == opp:
            pool.append(t.active)
        return pool

    def sample_world(self, player: object, rng: random.Random, chance: bool = False) -> Match:
        """A copy in which everything ``player`` does not know is dealt again at random.

        The copy agrees with ``observation(player)``: cards in public zones, the player's hand, and
        every card whose place the player knows (recalled or traded into the opponent's hand, seen by a
        Search) stay; the other hidden cards are shuffled among their places, the seed of later rounds
        is redrawn, and a choice of the opponent the player cannot see (the card they are playing, a card
        pending inside their effect, the cards their Search shows them) is drawn again among the cards
        it could be. It depends only on what the player knows and on ``rng``, so two matches with the same
        observation give the same worlds, and every world can be played on to the end.
        The copy has no event log, history or start position (``chance=True``: it is in chance mode, see
        :meth:`clone`).
        For information-set search (a bot's determinisation, OpenSpiel's resample_from_infostate).
        """
        p = seat(player)
        m = self.clone(False, False, chance)
        m.seed = int(rng.random() * 2**62)
        m.origin = None  # a start position names every hidden card
        m._redeal_hidden(p, rng.random)
        return m

    def _redeal_hidden(self, player: int, rand: Callable[[], float]) -> None:
        z, t, e = self.zones, self.turn, self.effect
        if t.dealt:  # in the middle of a deal (chance mode): the cards dealt so far are nobody's to know
            num_cards = self.playset.variant.num_cards
            order = list(range(num_cards))
            for i in range(num_cards - 1, 0, -1):
                j = int(rand() * (i + 1))
                order[i], order[j] = order[j], order[i]
            t.dealt = order[:len(t.dealt)]
        bit = 1 << player
        opp = 1 - player
        choosing = t.phase == MODE and t.player == opp
        pending_in_hand = e.pending >= 0 and e.pending in z.hands[opp]
        hidden = self.hidden_from(player)
        for i in range(len(hidden) - 1, 0, -1):
            j = int(rand() * (i + 1))
            hidden[i], hidden[j] = hidden[j], hidden[i]
        # The opponent's hand: the cards the player knows, then as many hidden cards as it holds besides
        # (in an order that depends on nothing hidden, not even on how the real cards sort).
        pool = self._opponent_pool(player)
        known = [c for c in pool if z.known[c] & bit]
        k = len(pool) - len(known)
        pool = known + hidden[:k]
        pool.sort()
        for i in range(len(z.deck)):
            if not z.known[z.deck[i]] & bit:
                z.deck[i] = hidden[k]
                k += 1
        if z.artifact >= 0:
            z.artifact = hidden[k]
        for c in hidden:
            z.known[c] = 0
        if choosing:  # which card of their hand they chose is theirs to know
            t.active = pool.pop(int(rand() * len(pool)))
        z.hands[opp] = pool
        for c in pool:
            z.known[c] |= 1 << opp
        if pending_in_hand:  # a card picked from their hand at an earlier step of their effect
            e.pending = pool[int(rand() * len(pool))]
        if e.revealed and t.player == opp and e.kind is not None and not e.kind.public_choice(e.step):
            depth = len(e.revealed)  # their Search shows them the top cards of the (re-dealt) deck
            e.revealed = z.deck[len(z.deck) - depth:][::-1]
            for c in e.revealed:
                z.known[c] = 1 << opp

    def endgame_worlds(self, player: object) -> list[Match] | None:
        """Once the deck is empty, every world ``player`` cannot tell from this one, each as likely: every way of
        dealing the cards hidden from them (the opponent's unknown cards and the artifact) into those places,
        as copies like :meth:`sample_world`'s (in chance mode, without log or history). None while the deck has
        cards, or when the opponent is in the middle of a choice (a world is then more than a deal). For exact
        endgames; ``src/converge/native/solve.c``'s ``endgame_worlds`` is the same, in the same order."""
        p = seat(player)
        z, t = self.zones, self.turn
        opp, bit = 1 - p, 1 << p
        if z.deck or t.phase not in (SELECT, MODE, EFFECT) or (t.player == opp and t.phase != SELECT):
            return None
        known = [c for c in z.hands[opp] if z.known[c] & bit]
        hidden = sorted([c for c in z.hands[opp] if not z.known[c] & bit]
                        + ([z.artifact] if z.artifact >= 0 else []))
        k = len(z.hands[opp]) - len(known)
        if len(hidden) - k != (1 if z.artifact >= 0 else 0):
            return None
        out = []
        for pick in range(1 << len(hidden)):
            if pick.bit_count() != k:
                continue
            m = self.clone(False, False, True)
            m.origin = None
            mz = m.zones
            hand = list(known)
            for i, c in enumerate(hidden):
                mz.known[c] = 0
                if pick >> i & 1:
                    hand.append(c)
                else:
                    mz.artifact = c
            hand.sort()
            mz.hands[opp] = hand
            for c in hand:
                mz.known[c] |= 1 << opp
            out.append(m)
        return out

    def redacted(self, player: object, rng: random.Random | None = None) -> Match:
        """A copy holding only what ``player`` may know: the cards hidden from them dealt again (by a
        fixed draw, or by ``rng``), only the events they see, no history, no seed and no start position. Its
        ``observation(player)`` is this match's; it is what a :class:`~converge.engine.view.PlayerView` is
        made of."""
        p = seat(player)
        m = self.clone(False, False)
        m.seed = 0
        m.origin = None
        m._redeal_hidden(p, rng.random if rng is not None else FixedDraws())
        if self._logging:
            m._logging = True
            m._events = [e for e in self._events if e[1] < 0 or e[1] == p]
        return m

    def view(self, player: object) -> PlayerView:
        """What ``player`` may know, for a bot: see :class:`~converge.engine.view.PlayerView`."""
        return PlayerView(self, player)

    # ------------------------------------------------------------------ the effect toolkit
    # For effect kinds (converge.engine.effects): the operations a discard effect is made of. They log
    # the events every reader of a match understands. Clients never call them.

    def log_event(self, kind: int, visibility: int, player: int, card: int = -1, a: int = 0, b: int = 0) -> None:
        """Log an event (see :mod:`converge.engine.events`), when this match keeps a log."""
        if self._logging:
            self._events.append((kind, visibility, player, card, a, b))

    def move_card(self, card: int, source: int, target: int) -> None:
        """Move ``card`` between zones in public, as the current player's doing (a ``move`` event). A card
        that enters a hand or the deck this way is known to both players there."""
        self.zones.move(card, source, target)
        if is_hand(target) or target == DECK:
            self.zones.known[card] = BOTH_KNOW
        self.log_event(MOVE, PUBLIC, self.turn.player, card, source, target)

    def owner_of(self, action: int) -> int:
        """The player a faction choice (``mine``/``theirs``) names, from the current player's side."""
        p = self.turn.player
        return p if action == MINE else 1 - p

    def continue_effect(self) -> None:
        """Advance to the effect's next decision, or finish it when nothing is left to decide."""
        e = self.effect
        kind = e.kind
        if kind is None:
            return
        if e.remaining <= 0 or not kind.next_decision(self):
            self._finish_effect(False)

    def resolve_effect_of(self, card: int) -> None:
        """Resolve ``card``'s discard effect now, as the played card's (Study): a ``resolve`` event."""
        self.log_event(RESOLVE, PUBLIC, self.turn.player, card)
        self._start_effect(card)

    # ------------------------------------------------------------------ turn flow

    def _begin_turn(self) -> None:
        t = self.turn
        t.turn_no += 1
        t.lead = t.holder
        t.turn_step = 0
        self._begin_play()

    def _begin_play(self) -> None:
        t = self.turn
        p = t.lead if t.turn_step == 0 else 1 - t.lead
        t.player = p
        if not self.zones.hands[p]:  # T2
            self.log_event(PASS, PUBLIC, p)
            self._end_play()
            return
        t.phase = SELECT

    def _end_play(self) -> None:
        t = self.turn
        t.active = -1
        if t.turn_step == 0:
            t.turn_step = 1
            self._begin_play()
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        s0, s1 = self.scores()
        self.log_event(SCORE, PUBLIC, -1, -1, s0, s1)
        self._revert_temporary()
        t, z = self.turn, self.zones
        lead, other = t.lead, 1 - t.lead
        mine, theirs = (s0, s1) if lead == 0 else (s1, s0)
        if mine > theirs:  # T6: the lead kept the artifact and scored more
            self._win_round(lead, OUTSCORED)
            return
        if theirs > mine:
            t.holder = other
            self.log_event(ARTIFACT, PUBLIC, other)
        for p in (lead, other):  # T7
            if z.deck:
                c = z.deck.pop()
                z.hands[p].append(c)
                z.known[c] |= 1 << p
                self.log_event(DRAW, PUBLIC, p)
                self.log_event(DREW, p, p, c)
        if not z.hands[0] and not z.hands[1]:  # T8
            self._win_round(t.holder, HANDS_EMPTY)
            return
        self._begin_turn()

    def _win_round(self, winner: int, reason: int) -> None:
        t = self.turn
        t.round_wins[winner] += 1
        t.round_results.append((winner, reason))
        self.log_event(ROUND_END, PUBLIC, winner, -1, reason, t.round_no)
        if t.round_wins[winner] >= self.playset.variant.rounds_to_win:
            t.winner = winner
            t.phase = OVER
            self.log_event(MATCH_END, PUBLIC, winner)
            return
        self._start_round(1 - winner)  # M2: the loser of the round starts with the artifact

    def _revert_temporary(self) -> None:
        """C6: conversions "until the end of the turn" revert now (after scoring)."""
        z = self.zones
        for card, old_skill, old_rank, new_skill, new_rank in reversed(z.temp):
            changed = False
            if z.skill[card] == new_skill and old_skill != new_skill:
                z.skill[card] = old_skill
                changed = True
            if z.rank[card] == new_rank and old_rank != new_rank:
                z.rank[card] = old_rank
                changed = True
            if changed:
                self.log_event(REVERT, PUBLIC, -1, card, z.skill[card], z.rank[card])
        z.temp = []

    # ------------------------------------------------------------------ effects

    def _start_effect(self, card: int) -> None:
        """Begin resolving ``card``'s discard effect as the effect of the played card."""
        kind = self.playset.effect_kind[card]
        args = self.playset.effect_args[card]
        e = self.effect
        e.kind = kind
        e.card = card
        e.args = args
        e.remaining = kind.picks(args)
        if e.picked:
            e.picked.clear()
        if e.revealed:
            e.revealed.clear()
        e.pending = -1
        e.step = TARGET
        self.turn.phase = EFFECT
        kind.begin(self)
        self.continue_effect()

    def _finish_effect(self, declined: bool) -> None:
        e = self.effect
        card = self.turn.active
        self.zones.discard.append(card)
        self.log_event(DISCARDED, PUBLIC, self.turn.player, card, e.decisions, int(declined))
        e.clear()
        self._end_play()

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """The legal actions of :attr:`current_player`, in increasing order (empty when over)."""
        t = self.turn
        phase = t.phase
        if phase == SELECT:
            return sorted(self.zones.hands[t.player])
        if phase == MODE:
            return [DISCARD, DECLARE, MINE, THEIRS]
        if phase == EFFECT:
            e = self.effect
            step = e.step
            if step == SKILLSET:
                return list(range(SKILLSET_0, SKILLSET_0 + len(self.playset.skillsets)))
            if step == FACTION:
                return [MINE, THEIRS]
            kind = e.kind
            assert kind is not None
            out = kind.targets(self, step)
            out.sort()
            if step == TARGET and kind.optional(e.args):
                out.append(DONE)
            return out
        if phase == DEAL:
            dealt = t.dealt
            return [c for c in range(self.playset.variant.num_cards) if c not in dealt]
        if phase == START:
            return [0, 1]
        return []

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: object, player: object = None) -> None:
        """Apply one decision of the current player; raise :class:`IllegalActionError` if it is not legal.

        ``action`` is an id or its readable string. When ``player`` is given it must be the current
        player. On error nothing changes.
        """
        if self.turn.phase == OVER:
            raise IllegalActionError("the match is over; no action is legal")
        if player is not None and player != self.turn.player:
            raise IllegalActionError(f"it is player {self.turn.player}'s decision, not player {quote(player)}'s")
        action_id = _action_id(self, action)
        if not 0 <= action_id < NUM_ACTIONS:
            raise IllegalActionError(f"action {quote(action_id)} is outside the action space 0..{NUM_ACTIONS - 1}")
        if not self._is_legal(action_id):
            legal = self.legal_actions()
            raise IllegalActionError(f"{self.action_to_string(action_id)!r} is not legal now: "
                                     f"{self.decision_prompt()}; legal: "
                                     f"{', '.join(self.action_to_string(a) for a in legal)}")
        self._apply(action_id)

    def _is_legal(self, action: int) -> bool:
        """``action in legal_actions()``, without building the list when the choices are a range."""
        t = self.turn
        phase = t.phase
        if phase == SELECT:
            return action in self.zones.hands[t.player]
        if phase == MODE:
            return DISCARD <= action <= THEIRS
        if phase == EFFECT:
            step = self.effect.step
            if step == SKILLSET:
                return SKILLSET_0 <= action < SKILLSET_0 + len(self.playset.skillsets)
            if step == FACTION:
                return action in (MINE, THEIRS)
        return action in self.legal_actions()

    def push(self, action: int) -> None:
        """Apply an action taken from :meth:`legal_actions` without checking it again — for search,
        where every action comes from that list. Use :meth:`apply` for anything else."""
        self._apply(action)

    def _apply(self, action: int) -> None:
        if self._keep_history:
            self._history.append(action)
        t = self.turn
        phase = t.phase
        if phase == SELECT:
            self.zones.hands[t.player].remove(action)
            t.active = action
            t.phase = MODE
        elif phase == MODE:
            self._play_mode(action)
        elif phase == EFFECT:
            e = self.effect
            if action == DONE:
                self._finish_effect(True)
                return
            e.decisions += 1
            kind = e.kind
            assert kind is not None
            kind.act(self, action)
        elif phase == DEAL:
            t.dealt.append(action)
            num_cards = self.playset.variant.num_cards
            if len(t.dealt) == num_cards - 1:
                t.dealt.extend(c for c in range(num_cards) if c not in t.dealt)
                order = t.dealt
                t.dealt = []  # the order is in the zones now: kept, it would tell every copy the hidden cards
                self._deal(order, t.deal_holder)
        else:  # START
            self._start_round(action)

    def _play_mode(self, mode: int) -> None:
        t, z = self.turn, self.zones
        p, c = t.player, t.active
        if mode == DISCARD:
            self.log_event(PLAY, PUBLIC, p, c, DISCARD, -1)
            self._start_effect(c)
            return
        if mode == DECLARE:
            z.goals.append(c)
            self.log_event(PLAY, PUBLIC, p, c, DECLARE, -1)
        else:
            owner = self.owner_of(mode)
            z.factions[owner].append(c)
            self.log_event(PLAY, PUBLIC, p, c, mode, owner)
        self._end_play()

    # ------------------------------------------------------------------ scoring

    def scores(self) -> tuple[int, int]:
        """End-of-turn scores computed afresh from the goal area and factions (T5)."""
        z = self.zones
        if not z.goals:
            return 0, 0
        ps = self.playset
        st0 = FactionStats(z.factions[0], z.skill, z.rank)
        st1 = FactionStats(z.factions[1], z.skill, z.rank)
        s0 = s1 = 0
        for g in z.goals:
            w0, w1 = goal_winners(ps.goal_kind[g], ps.goal_arg[g], st0, st1)
            stars = ps.goal_stars[g]
            s0 += stars * w0
            s1 += stars * w1
        return s0, s1

    def score_breakdown(self, player: object = 0) -> list[GoalScore]:
        """Per goal in the goal area: who fulfils it and why, from ``player``'s point of view.

        Each item: ``{"goal": card id, "text", "stars", "winners": [players], "why": "..."}``.
        """
        return breakdown(self, -1 if player == -1 else seat(player))

    # ------------------------------------------------------------------ actions as text

    def action_to_string(self, action: object) -> str:
        """The readable form of an action id: a card id, a mode, a skillset or ``done``."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"an action id is an integer, got {type(action).__name__}")
        return action_to_string(action, self.playset.card_ids, self.playset.skillsets)

    def parse_action(self, text: object) -> int:
        """The action id of a readable action; raises :class:`IllegalActionError` if unreadable."""
        return string_to_action(text, self.playset.index_of, self.playset.skillsets)

    def decision_prompt(self) -> str:
        """What the current player is deciding, in words (public: it names no hidden card)."""
        return prompt_of(self)

    # ------------------------------------------------------------------ views

    def observation(self, player: object, events_from: object = 0, events: bool = True) -> Observation:
        """The redacted, JSON-serialisable view of ``player`` (I1-I3). The only door to the state.

        ``events_from=k`` lists the viewer's events from the ``k``-th on (incremental: what is new since a
        client's last view); ``events=False`` lists none (the current view alone, cheaper)."""
        return observe(self, player, events_from, events is not False)

    def public_observation(self) -> Observation:
        """The view of a spectator: public information only."""
        return observe(self, -1)

    # ------------------------------------------------------------------ records and positions

    def record(self, moves: bool = True) -> RecordDoc:
        """The match record (playset, seed, settings, actions) that replays to this state; ``moves=False``
        leaves out the readable form of the actions (cheaper: for a program that only replays it)."""
        return to_record(self, moves)

    @staticmethod
    def replay(record: object, deck_dirs: Iterable[str] = (), upto: object = None) -> Match:
        """Replay a record (see :mod:`converge.engine.record`), raising :class:`RecordError` if it fails."""
        return replay_record(record, Match, deck_dirs, upto)

    def position(self) -> Position:
        """The position document of this state (see :mod:`converge.engine.position`)."""
        return to_position(self)

    @staticmethod
    def from_position(doc: object, deck_dirs: Iterable[str] = (), playset: Playset | None = None) -> Match:
        """Set up a match from a position document, raising :class:`PositionError` if it is not legal.
        ``playset``: these decks, already loaded, instead of loading the document's."""
        m = Match()
        set_up(m, doc, deck_dirs, playset)
        return m

    def random_playout(self, rng: random.Random, rounds: int = MAX_ROUNDS, decline: bool = True) -> None:
        """Play uniformly random legal actions until the match ends or ``rounds`` more rounds have
        ended (for benchmarks and search). ``rng.random`` alone drives it, for speed. ``decline=False``:
        never ``done`` while something else is legal (a playout policy for search)."""
        results = self.turn.round_results
        stop_at = len(results) + rounds
        rand = rng.random
        while self.turn.phase != OVER and len(results) < stop_at:
            self._apply(self._random_action(rand(), decline))

    def placement_playout(self, rng: random.Random, greedy: float) -> None:
        """Play to the end of the current round (a search's playout policy). When a card is to be chosen,
        with probability ``greedy`` it plays the card and placement — declare it, or add it to its own or
        the other faction — with the best end-of-turn standing for its player (for the second player of a
        turn: whether the lead would win the round, keep or lose the artifact, then the margin; for the
        lead, the margin), ties broken at random; otherwise as :meth:`random_playout` with ``decline=False``."""
        rand = rng.random
        t, z = self.turn, self.zones
        round_index = len(t.round_results)
        while t.phase != OVER and len(t.round_results) == round_index:
            if t.phase == SELECT and rand() < greedy:
                p = t.player
                second = t.turn_step == 1
                best_card, best_mode, best_v = -1, -1, -(10**9)
                for card in z.hands[p]:
                    for mode in (DECLARE, MINE, THEIRS):
                        target = z.goals if mode == DECLARE else z.factions[p if mode == MINE else 1 - p]
                        target.append(card)  # scored in place, then taken back
                        s0, s1 = self.scores()
                        target.pop()
                        margin = s0 - s1 if p == 0 else s1 - s0
                        v = margin
                        if second:  # the turn ends: behind loses the round, ahead takes the artifact
                            v += -1000 if margin < 0 else 1000 if margin > 0 else 0
                        v = v * 8 + int(rand() * 8)  # ties broken at random
                        if v > best_v:
                            best_card, best_mode, best_v = card, mode, v
                self._apply(best_card)
                self._apply(best_mode)
            else:
                self._apply(self._random_action(rand(), False))

    def _random_action(self, x: float, decline: bool) -> int:
        """The legal action at ``x`` (in [0, 1)) of a uniform draw, without building the list when the
        choices are a range (a card of the hand, a mode, a skillset, a faction)."""
        t = self.turn
        phase = t.phase
        if phase == SELECT:
            hand = self.zones.hands[t.player]
            return hand[int(x * len(hand))]
        if phase == MODE:
            return DISCARD + int(x * 4)
        if phase == EFFECT:
            step = self.effect.step
            if step == SKILLSET:
                return SKILLSET_0 + int(x * len(self.playset.skillsets))
            if step == FACTION:
                return MINE + int(x * 2)
        legal = self.legal_actions()
        n = len(legal)
        if not decline and n > 1 and legal[n - 1] == DONE:
            n -= 1
        return legal[int(x * n)]

    def __repr__(self) -> str:
        return (f"<Match {'/'.join(self.playset.names())} round {self.turn.round_no} wins {self.turn.round_wins} "
                f"turn {self.turn.turn_no} player {self.current_player}>")


def _action_id(match: Match, action: object) -> int:
    """The integer id of an action given as an id, a readable string or an integer-like object (numpy)."""
    if isinstance(action, str):
        return match.parse_action(action)
    if isinstance(action, bool):
        raise IllegalActionError("an action is an integer id or a string, got bool")
    if isinstance(action, int):
        return action
    if hasattr(action, "__index__") and not hasattr(action, "__len__"):  # numpy integers, not arrays
        try:
            value = operator.index(action)
        except Exception:
            raise IllegalActionError("an action is an integer id or a string, got "
                                     f"{type(action).__name__}") from None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise IllegalActionError(f"an action is an integer id or a string, got {type(action).__name__}")
