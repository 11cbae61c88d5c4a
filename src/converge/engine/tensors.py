"""Fixed-size tensors of what one player may know, written straight from a match's state.

The layout is defined here once; :mod:`converge.adapters.encoding` documents it and builds the same
tensors from an observation dict (the reference, and a test checks both agree on many random states from
both seats and a spectator). This module is compiled with the engine and writes into any preallocated
float buffer (an ``array.array("f")`` the adapters wrap as NumPy arrays without copying), reading only
what :meth:`~converge.engine.state.Match.observation` would show the viewer: the viewer's hand, the public
zones, the opponent's hand and deck cards the viewer knows of, the viewer's own decision, and the events
the viewer sees.

The tensors are relative to a player ``me``: ``viewer`` is ``me`` for a player's view, or -1 for the
public (spectator's) view oriented to ``me``.
"""

from __future__ import annotations

import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from converge.engine.actions import DISCARD, MINE, NUM_ACTIONS, SKILLSET_0, THEIRS
from converge.engine.effects import FACTION as STEP_FACTION
from converge.engine.effects import SKILLSET as STEP_SKILLSET
from converge.engine.events import MODES, NUM_EVENT_KINDS, SCHEMA, Event, EventKind
from converge.engine.goals import FactionStats, goal_winners
from converge.engine.sizes import NUM_CARDS
from converge.engine.turn import DECISION_KINDS, EFFECT, MODE, OVER, SELECT
from converge.engine.zones import FACTION, NUM_ZONES, is_faction, is_hand

if TYPE_CHECKING:
    from converge.engine.buffers import FloatBuffer
    from converge.engine.state import Match

# Card features (columns of the ``cards`` part)
C_MY_HAND: Final = 0
C_MY_FACTION: Final = 1
C_THEIR_FACTION: Final = 2
C_GOAL: Final = 3
C_DISCARD: Final = 4
C_HIDDEN: Final = 5
C_ACTIVE: Final = 6
C_PENDING: Final = 7
C_REVEALED: Final = 8
C_STUDIED: Final = 9
C_KNOWN_THEIR_HAND: Final = 10
C_KNOWN_DECK: Final = 11
C_DECK_DEPTH: Final = 12
C_RECALLED: Final = 13
C_GUARDED_BY_ME: Final = 14
C_GUARDED_BY_THEM: Final = 15
C_SKILL_0: Final = 16
C_RANK: Final = 19
C_CONVERTED: Final = 20
C_UNTIL_END_OF_TURN: Final = 21
C_GOAL_MINE: Final = 22
C_GOAL_THEIRS: Final = 23
CARD_FEATURES: Final = 24

MATCH_FEATURES: Final = 26
#: What is being decided: a slot for each kind of a player's decision, then ``other`` (a chance node, or
#: nothing: the match is over).
DECISION_SLOTS: Final = (*(k for k in DECISION_KINDS if k not in ("chance", "over")), "other")
_SLOT_OF: Final = {kind: i for i, kind in enumerate(DECISION_SLOTS)}
#: Slots for the kind of the effect being resolved (the nine built-ins and room for new kinds).
EFFECT_SLOTS: Final = 16
DECISION_FEATURES: Final = len(DECISION_SLOTS) + EFFECT_SLOTS
CARDS_SIZE: Final = NUM_CARDS * CARD_FEATURES
MATCH_START: Final = CARDS_SIZE
DECISION_START: Final = CARDS_SIZE + MATCH_FEATURES
LEGAL_START: Final = DECISION_START + DECISION_FEATURES
OBSERVATION_SIZE: Final = LEGAL_START + NUM_ACTIONS

HISTORY_EVENTS: Final = 32
# valid, kind, who (me, them, nobody), card, from zone, to zone, mode (4), player (me, them), skillset (3),
# 2 numbers
E_KIND: Final = 1
E_WHO: Final = E_KIND + NUM_EVENT_KINDS
E_CARD: Final = E_WHO + 3
E_ZONES: Final = E_CARD + NUM_CARDS
E_MODE: Final = E_ZONES + 2 * NUM_ZONES
E_PLAYER: Final = E_MODE + 4
E_SKILLSET: Final = E_PLAYER + 2
E_NUMBERS: Final = E_SKILLSET + 3
EVENT_FEATURES: Final = E_NUMBERS + 2
INFO_STATE_SIZE: Final = OBSERVATION_SIZE + HISTORY_EVENTS * EVENT_FEATURES

# The field types of each event kind's two numbers, by kind (0: none, then the types below).
F_NONE: Final = 0
F_NUMBER: Final = 1
F_MODE: Final = 2
F_PLAYER: Final = 3
F_ZONE: Final = 4
F_SKILLSET: Final = 5
_TYPES: Final = {"int": F_NUMBER, "reason": F_NUMBER, "mode": F_MODE, "player": F_PLAYER, "zone": F_ZONE,
                 "skillset": F_SKILLSET}
FIELD_A: Final = tuple(_TYPES[SCHEMA[k].a.type] if SCHEMA[k].a is not None else F_NONE  # type: ignore[union-attr]
                       for k in EventKind)
FIELD_B: Final = tuple(_TYPES[SCHEMA[k].b.type] if SCHEMA[k].b is not None else F_NONE  # type: ignore[union-attr]
                       for k in EventKind)
# The largest value of each kind's numbers (``Field.scale``): a number is written as ``value / scale``.
SCALE_A: Final = tuple(max(1, SCHEMA[k].a.scale) if SCHEMA[k].a is not None else 1  # type: ignore[union-attr]
                       for k in EventKind)
SCALE_B: Final = tuple(max(1, SCHEMA[k].b.scale) if SCHEMA[k].b is not None else 1  # type: ignore[union-attr]
                       for k in EventKind)


#: 1.0 as one boxed object: compiled code boxes a float literal anew at each write into an untyped buffer.
ONE: Final[object] = 1.0


def clip(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x


def _fractions(d: int) -> tuple[object, ...]:
    return tuple(clip(k / float(d)) for k in range(d + 1))


# clip(k / d) for the observation's counts, each value boxed once (as ONE): see share()
SIXTHS: Final = _fractions(6)
TENTHS: Final = _fractions(10)
EIGHTEENTHS: Final = _fractions(NUM_CARDS)
THIRTIETHS: Final = _fractions(30)


#: The positions 0..OBSERVATION_SIZE-1 as objects made once (``out[AT[i]]``): compiled code boxes an
#: index above 256 anew at each write into an untyped buffer, a third of the write's cost.
AT: Final[tuple[object, ...]] = tuple(range(OBSERVATION_SIZE))


def share(table: tuple[object, ...], k: int) -> object:
    """``clip(k / d)`` for a whole number ``k``, from the table of ``d`` (``TENTHS``...)."""
    return table[0] if k <= 0 else table[k] if k < len(table) else table[-1]


def relative_zone(zone: int, me: int) -> int:
    """A zone as ``me`` sees it: my hand, their hand, my faction, their faction, then the rest."""
    if is_hand(zone):
        return 0 if zone == me else 1
    if is_faction(zone):
        return 2 if zone - FACTION == me else 3
    return zone


# ``out`` is left untyped in write_observation and write_legal: they index it with the boxed positions of
# AT and write boxed values (ONE, share()), objects no buffer type's item assignment accepts.
def write_observation(m: Match, viewer: int, me: int, out: Any) -> tuple[int, int]:
    """Write the observation tensor of ``viewer`` (oriented to ``me``) into ``out``, which holds zeros
    (``OBSERVATION_SIZE`` floats). Returns the scores it computed on the way, players 0's and 1's (those of
    :meth:`~converge.engine.state.Match.scores`: a vector environment's infos need them too)."""
    z, t, e, ps = m.zones, m.turn, m.effect, m.playset
    one = ONE
    at = AT
    them = 1 - me
    located = [False] * NUM_CARDS
    # cards
    if viewer >= 0:
        for c in z.hands[viewer]:
            out[at[c * CARD_FEATURES + C_MY_HAND]] = one
            located[c] = True
    # (range loops, not loops over tuple displays: compiled, those build a tuple of boxed ints and
    # iterate it generically, which took a twelfth of a vector env's write)
    for owner in range(2):
        where = C_MY_FACTION if owner == me else C_THEIR_FACTION
        for c in z.factions[owner]:
            row = c * CARD_FEATURES
            out[at[row + where]] = one
            located[c] = True
            out[at[row + C_SKILL_0 + z.skill[c]]] = one
            out[at[row + C_RANK]] = share(SIXTHS, z.rank[c])
            if z.skill[c] != ps.printed_skill[c] or z.rank[c] != ps.printed_rank[c]:
                out[at[row + C_CONVERTED]] = one
            g = z.guard[c]
            if g >= 0:
                out[at[row + (C_GUARDED_BY_ME if g == me else C_GUARDED_BY_THEM)]] = one
    for tmp in z.temp:
        if z.faction_of(tmp[0]) >= 0:
            out[at[tmp[0] * CARD_FEATURES + C_UNTIL_END_OF_TURN]] = one
    for c in z.goals:
        out[at[c * CARD_FEATURES + C_GOAL]] = one
        located[c] = True
    for c in z.discard:
        out[at[c * CARD_FEATURES + C_DISCARD]] = one
        located[c] = True
    n_cards = len(ps.card_ids)  # 18, or a smaller variant's (whose rows past its cards stay zero)
    for c in range(n_cards):
        if z.recalled[c]:
            out[at[c * CARD_FEATURES + C_RECALLED]] = one
    if viewer >= 0:
        bit = 1 << viewer
        for c in m._opponent_pool(viewer):
            if z.known[c] & bit:
                out[at[c * CARD_FEATURES + C_KNOWN_THEIR_HAND]] = one
        top = len(z.deck) - 1
        for i in range(top, -1, -1):
            c = z.deck[i]
            if z.known[c] & bit:
                out[at[c * CARD_FEATURES + C_KNOWN_DECK]] = one
                out[at[c * CARD_FEATURES + C_DECK_DEPTH]] = share(TENTHS, top - i + 1)
    s0 = s1 = 0
    if z.goals:
        st0 = FactionStats(z.factions[0], z.skill, z.rank)
        st1 = FactionStats(z.factions[1], z.skill, z.rank)
        for g in z.goals:
            w0, w1 = goal_winners(ps.goal_kind[g], ps.goal_arg[g], st0, st1)
            mine, theirs = (w0, w1) if me == 0 else (w1, w0)
            if mine:
                out[at[g * CARD_FEATURES + C_GOAL_MINE]] = one
            if theirs:
                out[at[g * CARD_FEATURES + C_GOAL_THEIRS]] = one
            s0 += ps.goal_stars[g] * w0
            s1 += ps.goal_stars[g] * w1
    deciding = t.phase != OVER and t.player == viewer
    if t.phase != OVER:
        if t.active >= 0 and (deciding or t.phase != MODE):
            out[at[t.active * CARD_FEATURES + C_ACTIVE]] = one
            located[t.active] = True
        kind = e.kind
        if t.phase == EFFECT and kind is not None:
            if e.card != t.active:
                out[at[e.card * CARD_FEATURES + C_STUDIED]] = one
            if deciding or kind.public_choice(e.step):
                if e.pending >= 0:
                    out[at[e.pending * CARD_FEATURES + C_PENDING]] = one
                for c in e.revealed:
                    out[at[c * CARD_FEATURES + C_REVEALED]] = one
    for c in range(n_cards):
        if not located[c]:
            out[at[c * CARD_FEATURES + C_HIDDEN]] = one
    # match
    i = MATCH_START
    if 1 <= t.round_no <= 3:
        out[at[i + t.round_no - 1]] = one
    i += 3
    out[at[i]] = share(THIRTIETHS, t.turn_no)
    i += 1
    for k in range(2):  # my round wins, then theirs
        w = t.round_wins[me if k == 0 else them]
        if 0 <= w <= 2:
            out[at[i + w]] = one
        i += 3
    for k in range(2):  # the artifact holder, then the lead
        v = t.holder if k == 0 else t.lead
        if v == me:
            out[at[i]] = one
        elif v == them:
            out[at[i + 1]] = one
        i += 2
    current = m.current_player
    out[at[i + (0 if current == me else 1 if current == them else 2)]] = one
    i += 3
    if t.phase == OVER:
        out[at[i]] = one
        if t.winner == me:
            out[at[i + 1]] = one
        elif t.winner == them:
            out[at[i + 2]] = one
    i += 3
    mine_s, their_s = (s0, s1) if me == 0 else (s1, s0)
    out[at[i]] = share(TENTHS, mine_s)
    out[at[i + 1]] = share(TENTHS, their_s)
    i += 2
    out[at[i]] = share(TENTHS, len(z.hands[me]))
    out[at[i + 1]] = share(TENTHS, len(z.hands[them]))
    i += 2
    out[at[i]] = share(TENTHS, len(z.deck))
    out[at[i + 1]] = share(EIGHTEENTHS, len(z.discard))
    # decision
    if t.phase == OVER:
        return s0, s1
    out[at[DECISION_START + _SLOT_OF.get(m.decision_kind, len(DECISION_SLOTS) - 1)]] = one
    if t.phase == EFFECT and e.kind is not None:
        index = e.kind.index
        out[at[DECISION_START + len(DECISION_SLOTS) + min(index, EFFECT_SLOTS - 1)]] = one
    if viewer == me and t.player == me:
        write_legal(m, out, LEGAL_START)
    return s0, s1


def write_legal(m: Match, out: Any, start: int) -> None:
    """1 at ``start + a`` for each legal action ``a`` of the player to decide."""
    t = m.turn
    at = AT
    if t.phase == SELECT:
        for c in m.zones.hands[t.player]:
            out[at[start + c]] = 1
    elif t.phase == MODE:
        for a in range(DISCARD, THEIRS + 1):
            out[at[start + a]] = 1
    elif t.phase == EFFECT and m.effect.step == STEP_SKILLSET:
        for a in range(SKILLSET_0, SKILLSET_0 + len(m.playset.skillsets)):
            out[at[start + a]] = 1
    elif t.phase == EFFECT and m.effect.step == STEP_FACTION:
        out[at[start + MINE]] = 1
        out[at[start + THEIRS]] = 1
    else:
        for a in m.legal_actions():
            out[at[start + a]] = 1


def legal_for(m: Match, me: int, out: Any) -> None:
    """``out`` (26 zeros) gets 1 for each of ``me``'s legal actions (none when the decision is not theirs)."""
    if m.current_player == me:
        write_legal(m, out, 0)


def write_history(m: Match, viewer: int, me: int, out: FloatBuffer, start: int) -> None:
    """The :data:`HISTORY_EVENTS` most recent events ``viewer`` sees, oldest first, as rows of
    :data:`EVENT_FEATURES` from ``start`` (which holds zeros)."""
    rows: list[int] = []
    events = m.events
    i = len(events) - 1
    while i >= 0 and len(rows) < HISTORY_EVENTS:
        vis = events[i][1]
        if vis < 0 or vis == viewer:
            rows.append(i)
        i -= 1
    rows.reverse()
    for n in range(len(rows)):
        write_event(out, start + n * EVENT_FEATURES, events[rows[n]], me)


def write_events(m: Match, viewer: int, me: int, out: FloatBuffer, start: int, read: int, rows: int, capacity: int,
                 private: bool = False) -> tuple[int, int]:
    """Append the events of ``m.events[read:]`` that ``viewer`` sees (``private``: only those private to
    ``viewer``) to a history at ``start`` that holds ``rows`` rows and zeros after them, one row of
    :data:`EVENT_FEATURES` each; return the new ``(read, rows)`` for the next call.

    This is how the perfect-recall tensor is kept up to date: a state one step on from the one written
    last costs the row or two of its new events. Raises ``ValueError`` past ``capacity`` rows (a match
    that logged more events than :meth:`~converge.engine.playset.Playset.max_events_seen` allows)."""
    events = m.events
    n = len(events)
    i = read
    while i < n:
        e = events[i]
        vis = e[1]
        if vis == viewer if private else (vis < 0 or vis == viewer):
            if rows >= capacity:
                raise ValueError(f"the match shows more than {capacity} events, the bound of its history "
                                 "(an effect kind's max_events is too small)")
            write_event(out, start + rows * EVENT_FEATURES, e, me)
            rows += 1
        i += 1
    return n, rows


class RecallRows:
    """Each player's perfect-recall history, kept from the state read last for them, shown in ``out``.

    A player's rows live in their own buffer, written by :func:`write_events` from the events of the state
    read last for them: ``read`` events of its log read, ``rows`` rows written, ``last`` the last event
    read. A state continues that line when its log holds that very event at that place (logs are copied,
    never rewritten, so it then holds all those before): only its new events are written; otherwise the
    player's rows are written again from the first. ``out`` (a memoryview of floats) shows the rows of
    the player read last: it gets the new rows, or all of them when the player changes.
    """

    def __init__(self, out: memoryview[float], capacity: int, private: bool) -> None:
        self.out = out
        self.capacity = capacity
        self.private = private
        width = capacity * EVENT_FEATURES
        self.buffers = [array.array("f", bytes(4 * width)), array.array("f", bytes(4 * width))]
        # rows are written through memoryviews: their item assignment costs half an array's
        self.views: list[memoryview[float]] = [memoryview(self.buffers[0]), memoryview(self.buffers[1])]
        self.zeros = memoryview(array.array("f", bytes(4 * width)))
        self.read = [0, 0]
        self.rows = [0, 0]
        self.last: list[object] = [None, None]
        self.shown = -1
        self.shown_rows = 0
        #: How many times a player's rows were written again from the first (another line of play).
        self.restarts = 0

    def update(self, m: Match, player: int, viewer: int) -> None:
        """Show ``player``'s rows of ``m`` (the events ``viewer`` sees; private: only theirs)."""
        # typed as a sequence of objects so that an event stays the object in the log: compiled, an item
        # of a list of tuples is unpacked and boxed anew, and the identity test would never hold
        events: Sequence[object] = m.events
        read, rows = self.read[player], self.rows[player]
        cache = self.views[player]
        fresh = read > len(events) or (read > 0 and events[read - 1] is not self.last[player])
        if fresh:
            cache[0:rows * EVENT_FEATURES] = self.zeros[0:rows * EVENT_FEATURES]
            read = rows = 0
            self.restarts += 1
        read, new_rows = write_events(m, viewer, player, cache, 0, read, rows, self.capacity, self.private)
        self.read[player], self.rows[player] = read, new_rows
        self.last[player] = events[read - 1] if read > 0 else None
        a, b = rows * EVENT_FEATURES, new_rows * EVENT_FEATURES
        if self.shown == player and not fresh:
            if b > a:
                self.out[a:b] = cache[a:b]
        else:
            self.out[0:b] = cache[0:b]
            c = self.shown_rows * EVENT_FEATURES
            if c > b:
                self.out[b:c] = self.zeros[0:c - b]
        self.shown = player
        self.shown_rows = new_rows


def write_event(out: FloatBuffer, base: int, event: Event, me: int) -> None:
    """One event as a row of :data:`EVENT_FEATURES` at ``base`` (which holds zeros), relative to ``me``."""
    kind, _vis, player, card, a, b = event
    out[base] = 1.0
    out[base + E_KIND + kind] = 1.0
    out[base + E_WHO + (0 if player == me else 1 if player == 0 or player == 1 else 2)] = 1.0
    if card >= 0:
        out[base + E_CARD + card] = 1.0
    _field(out, base, 0, FIELD_A[kind], SCALE_A[kind], a, me)
    _field(out, base, 1, FIELD_B[kind], SCALE_B[kind], b, me)


def _field(out: FloatBuffer, base: int, slot: int, ftype: int, scale: int, value: int, me: int) -> None:
    if ftype == F_NONE or value < 0:
        return
    if ftype == F_ZONE:
        out[base + E_ZONES + slot * NUM_ZONES + relative_zone(value, me)] = 1.0
    elif ftype == F_MODE:
        for k in range(4):
            if MODES[k] == value:
                out[base + E_MODE + k] = 1.0
    elif ftype == F_PLAYER:
        out[base + E_PLAYER + (0 if value == me else 1)] = 1.0
    elif ftype == F_SKILLSET:
        out[base + E_SKILLSET + value] = 1.0
    elif value > 0:
        out[base + E_NUMBERS + slot] = clip(value / float(scale))


__all__ = ["CARD_FEATURES", "DECISION_FEATURES", "DECISION_SLOTS", "EFFECT_SLOTS", "EVENT_FEATURES",
           "HISTORY_EVENTS", "INFO_STATE_SIZE", "MATCH_FEATURES", "OBSERVATION_SIZE", "RecallRows", "legal_for",
           "write_event", "write_events", "write_history", "write_observation"]
