"""The rules engine: one :class:`Match` holds a whole match of Converge and is its only source of truth.

>>> from converge.engine import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=7)
>>> m.current_player in (0, 1), len(m.legal_actions())
(True, 3)
>>> while not m.is_terminal:
...     m.apply(m.legal_actions()[0])
>>> m.winner in (0, 1), max(m.round_wins)
(True, 2)
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable
from typing import Any

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
from converge.engine.errors import IllegalActionError, PlaysetError
from converge.engine.goals import LAST_SINGLE_WINNER, faction_stats, goal_value
from converge.engine.playset import (
    ASSEMBLE,
    CONVERT,
    EXPAND,
    GUARD,
    HEAL,
    NUM_CARDS,
    RECALL,
    SEARCH,
    STUDY,
    TRADE,
    Playset,
)

# Phases
SELECT = 0  # the current player chooses a card from hand
MODE = 1  # ... then how to play it
EFFECT = 2  # ... then the decisions of its discard effect
OVER = 3  # the match is over
DEAL = 4  # chance mode: the next card of the deal order is drawn
START = 5  # chance mode: who holds the artifact in round 1 is drawn

#: The "player" of a chance node (chance mode only; see :meth:`Match.new`).
CHANCE = -2

# Steps inside an effect
STEP_TARGET = 0
STEP_SKILLSET = 1
STEP_FACTION = 2
STEP_SECOND = 3  # Trade: the second card of the exchange

# How a round ended
OUTSCORED = 0  # T6: the lead kept the artifact and scored more
HANDS_EMPTY = 1  # T8: both hands empty, the artifact holder wins
END_REASONS = ("outscored", "hands_empty")

# Event = (kind, visibility, player, card, a, b); visibility -1 is public, 0/1 private to that player.
Event = tuple[str, int, int, int, int, int]

MAX_ROUNDS = 3
ROUNDS_TO_WIN = 2
HAND_SIZE = 3


def shuffled_deal(seed: int, round_no: int) -> list[int]:
    """The seeded order of the 18 cards for a round (Fisher-Yates driven by ``Random.random``)."""
    rand = random.Random(seed * 4 + round_no).random
    order = list(range(NUM_CARDS))
    for i in range(NUM_CARDS - 1, 0, -1):
        j = int(rand() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


class Match:
    """A whole match of Converge: up to three rounds, each dealt afresh from the playset's 18 cards.

    Create one with :meth:`new`; advance it with :meth:`apply`; look at it through
    :meth:`observation`. Every decision, including each choice inside an effect, is one action of
    :attr:`current_player`.

    The attributes below hold the whole state, hidden cards included, as flat lists of card ids for
    speed; they are the engine's and its tests'. Clients — bots, adapters, terminal, server — read a
    match only through :meth:`observation` (and the public facts it repeats: scores, round results,
    whose turn it is); tests hand bots a guarded match that fails if they touch a hidden zone.
    """

    __slots__ = (
        "playset", "seed", "start_setting", "hands", "deck", "discard", "goals", "factions", "artifact",
        "skill", "rank", "guard", "recalled", "temp", "round_no", "round_wins", "round_results", "holder",
        "lead", "turn_step", "turn_no", "phase", "player", "active", "src", "eff", "eff_code", "eff_args",
        "step", "remaining", "pending", "picked", "revealed", "events", "history", "winner",
        "round_first_holder", "log_events", "chance", "dealt", "deal_holder", "known", "origin",
    )

    playset: Playset
    seed: int
    start_setting: str
    hands: list[list[int]]
    deck: list[int]
    discard: list[int]
    goals: list[int]
    factions: list[list[int]]
    artifact: int
    skill: list[int]
    rank: list[int]
    guard: list[int]
    recalled: list[int]
    temp: list[tuple[int, int, int, int, int]]
    round_no: int
    round_wins: list[int]
    round_results: list[tuple[int, int]]
    holder: int
    lead: int
    turn_step: int
    turn_no: int
    phase: int
    player: int
    active: int
    src: int
    eff: int
    eff_code: int
    eff_args: tuple[int, ...]
    step: int
    remaining: int
    pending: int
    picked: list[int]
    revealed: list[int]
    events: list[Event]
    history: list[int]
    winner: int
    round_first_holder: list[int]
    log_events: bool
    chance: bool
    dealt: list[int]
    deal_holder: int
    known: list[int]  # per card, bit p set: player p knows where it is (only read for hidden zones)
    origin: dict[str, Any] | None  # the position a match set up by from_position began at (for its record)

    # ------------------------------------------------------------------ creation

    # Public entry points take ``object`` and check types themselves, so that bad input gets a
    # precise ConvergeError (not a TypeError) also when this module is compiled by mypyc.
    def __init__(self, playset: object = None, seed: object = 0, start: object = "random",
                 deck_dirs: Iterable[str] = (), chance: object = False) -> None:
        """Start a match; see :meth:`new`. ``Match()`` with no playset is a blank for internal use."""
        if playset is None:
            return
        if not isinstance(playset, Playset):
            if (not isinstance(playset, (list, tuple)) or len(playset) != 3
                    or not all(isinstance(n, str) for n in playset)):
                raise PlaysetError("a playset is three skillset names, e.g. alchemist,mechanist,archivist")
            playset = Playset.from_names(playset, deck_dirs)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise PlaysetError(f"the seed must be an integer from 0 to 2**63-1, got {seed!r}")
        setting = str(start)
        if setting not in ("random", "0", "1"):
            raise PlaysetError(f"start must be 'random', 0 or 1, got {start!r}")
        self.playset = playset
        self.seed = seed
        self.start_setting = setting
        self.round_no = 0
        self.round_wins = [0, 0]
        self.round_results = []
        self.round_first_holder = []
        self.events = []
        self.history = []
        self.winner = -1
        self.log_events = True
        self.turn_no = 0
        self.chance = chance is True
        self.dealt = []
        self.deal_holder = -1
        self.origin = None
        self._clear_zones()
        if self.chance and setting == "random":
            self.phase, self.player = START, CHANCE
            return
        first = random.Random(f"converge:{seed}:start").randrange(2) if setting == "random" else int(setting)
        self._start_round(first)

    @classmethod
    def new(cls, playset: object, seed: object = 0, start: object = "random",
            deck_dirs: Iterable[str] = (), chance: object = False) -> Match:
        """Start a match (arguments typed ``object``: bad ones get a PlaysetError, not a TypeError, also
        when compiled by mypyc).

        ``playset`` is a :class:`Playset` or three skillset names. ``start`` says who holds the
        artifact in round 1 (M2): ``"random"`` (drawn from the seed), or ``0``/``1``, the player who
        most recently lost a game.

        With ``chance=True`` the seed is not used: every random event is a *chance node*
        (:attr:`current_player` is :data:`CHANCE`) whose outcome is applied as an action — the
        round-1 artifact holder (when ``start`` is random), then each card of the deal order in turn
        (hands, artifact, discard, deck; the last card is forced). Frameworks such as OpenSpiel use it.

        >>> Match.new(["delver", "astropath", "healer"], seed=3, start=1).holder
        1
        """
        if playset is None:  # Match() with no playset is an internal blank; new() always sets up a match
            raise PlaysetError("a playset is three skillset names, e.g. alchemist,mechanist,archivist")
        return cls(playset, seed, start, deck_dirs, chance)

    def _clear_zones(self) -> None:
        self.hands = [[], []]
        self.deck, self.discard, self.goals, self.factions = [], [], [], [[], []]
        self.artifact = -1
        self.known = [0] * NUM_CARDS
        self.skill = list(self.playset.printed_skill)
        self.rank = list(self.playset.printed_rank)
        self.guard = [-1] * NUM_CARDS
        self.recalled = [0] * NUM_CARDS
        self.temp, self.picked, self.revealed = [], [], []
        self.holder = self.lead = -1
        self.turn_step = 0
        self.active = self.src = self.eff = self.pending = self.eff_code = -1
        self.eff_args = ()
        self.step = self.remaining = 0

    def _start_round(self, holder: int) -> None:
        """M3: shuffle the 18 cards (seeded per round, or drawn at chance nodes) and deal."""
        self.round_no += 1
        if self.chance:
            self._clear_zones()
            self.phase, self.player = DEAL, CHANCE
            self.dealt = []
            self.deal_holder = holder
            return
        self._deal(shuffled_deal(self.seed, self.round_no), holder)

    def _deal(self, order: list[int], holder: int) -> None:
        ps = self.playset
        self.hands = [order[0:3], order[3:6]]
        self.known = [0] * NUM_CARDS
        for p in (0, 1):
            for c in self.hands[p]:
                self.known[c] = 1 << p
        self.artifact = order[6]
        self.discard = [order[7]]
        self.deck = order[8:]  # the top of the deck is the end of the list
        self.goals = []
        self.factions = [[], []]
        self.skill = list(ps.printed_skill)
        self.rank = list(ps.printed_rank)
        self.guard = [-1] * NUM_CARDS
        self.recalled = [0] * NUM_CARDS
        self.temp = []
        self.holder = holder
        self.round_first_holder.append(holder)
        self.picked = []
        self.revealed = []
        self.active = self.src = self.eff = self.pending = -1
        self.eff_code = -1
        self.eff_args = ()
        self.step = self.remaining = 0
        self._log("round_start", -1, holder, -1, self.round_no)
        self._log("start_discard", -1, -1, order[7])
        for p in (0, 1):
            for c in self.hands[p]:
                self._log("dealt", p, p, c)
        self._begin_turn()

    # ------------------------------------------------------------------ public properties

    @property
    def current_player(self) -> int:
        """The player to decide now (0 or 1), or -1 when the match is over."""
        return -1 if self.phase == OVER else self.player

    @property
    def is_chance_node(self) -> bool:
        """True when the next action is a chance outcome (chance mode only)."""
        return self.phase == DEAL or self.phase == START

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the current chance node with their probabilities (all equally likely)."""
        if not self.is_chance_node:
            return []
        legal = self.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]

    @property
    def is_terminal(self) -> bool:
        return self.phase == OVER

    @property
    def round_winners(self) -> list[int]:
        return [w for w, _ in self.round_results]

    def clone(self) -> Match:
        """A cheap independent copy, for search. The playset tables are shared, not copied."""
        m = Match()
        m.playset = self.playset
        m.seed = self.seed
        m.start_setting = self.start_setting
        m.hands = [self.hands[0][:], self.hands[1][:]]
        m.deck = self.deck[:]
        m.discard = self.discard[:]
        m.goals = self.goals[:]
        m.factions = [self.factions[0][:], self.factions[1][:]]
        m.artifact = self.artifact
        m.skill = self.skill[:]
        m.rank = self.rank[:]
        m.guard = self.guard[:]
        m.recalled = self.recalled[:]
        m.temp = self.temp[:]
        m.round_no = self.round_no
        m.round_wins = self.round_wins[:]
        m.round_results = self.round_results[:]
        m.round_first_holder = self.round_first_holder[:]
        m.holder = self.holder
        m.lead = self.lead
        m.turn_step = self.turn_step
        m.turn_no = self.turn_no
        m.phase = self.phase
        m.player = self.player
        m.active = self.active
        m.src = self.src
        m.eff = self.eff
        m.eff_code = self.eff_code
        m.eff_args = self.eff_args
        m.step = self.step
        m.remaining = self.remaining
        m.pending = self.pending
        m.picked = self.picked[:]
        m.revealed = self.revealed[:]
        m.events = self.events[:] if self.log_events else []
        m.history = self.history[:]
        m.winner = self.winner
        m.log_events = self.log_events
        m.chance = self.chance
        m.dealt = self.dealt[:]
        m.deal_holder = self.deal_holder
        m.known = self.known[:]
        m.origin = self.origin
        return m

    def hidden_from(self, player: int) -> list[int]:
        """The cards whose place ``player`` does not know: in the opponent's hand, the deck or the
        artifact (and the opponent's chosen card before its mode is chosen). Sorted."""
        bit = 1 << player
        opp = 1 - player
        out = [c for c in self.hands[opp] if not self.known[c] & bit]
        out += [c for c in self.deck if not self.known[c] & bit]
        if self.artifact >= 0:
            out.append(self.artifact)
        if self.phase == MODE and self.player == opp:
            out.append(self.active)
        out.sort()
        return out

    def sample_world(self, player: int, rng: random.Random) -> Match:
        """A copy in which everything ``player`` does not know is dealt again at random.

        The copy agrees with ``observation(player)``: cards in public zones, the player's hand, and
        every card whose place the player knows (recalled or traded into the opponent's hand, seen by
        a Search) stay; the other hidden cards are shuffled among their places, and the seed of later
        rounds is redrawn. It depends only on what the player knows and on ``rng``, so two matches
        with the same observation give the same worlds. The copy has no event log or history.
        For information-set search (a bot's determinisation, OpenSpiel's resample_from_infostate).
        """
        m = self.clone()
        m.events = []
        m.history = []
        m.log_events = False
        m.seed = int(rng.random() * 2**62)
        hidden = self.hidden_from(player)
        if not hidden:
            return m
        rand = rng.random
        for i in range(len(hidden) - 1, 0, -1):
            j = int(rand() * (i + 1))
            hidden[i], hidden[j] = hidden[j], hidden[i]
        bit = 1 << player
        opp = 1 - player
        k = 0
        hand = m.hands[opp]
        for i in range(len(hand)):
            if not m.known[hand[i]] & bit:
                hand[i] = hidden[k]
                k += 1
        hand.sort()
        for i in range(len(m.deck)):
            if not m.known[m.deck[i]] & bit:
                m.deck[i] = hidden[k]
                k += 1
        if m.artifact >= 0:
            m.artifact = hidden[k]
            k += 1
        if m.phase == MODE and m.player == opp:
            m.active = hidden[k]
        for c in hidden:
            m.known[c] = 0
        for c in m.hands[opp]:
            m.known[c] |= 1 << opp
        return m

    # ------------------------------------------------------------------ turn flow

    def _log(self, kind: str, visibility: int, player: int, card: int = -1, a: int = 0, b: int = 0) -> None:
        if self.log_events:
            self.events.append((kind, visibility, player, card, a, b))

    def _begin_turn(self) -> None:
        self.turn_no += 1
        self.lead = self.holder
        self.turn_step = 0
        self._begin_play()

    def _begin_play(self) -> None:
        p = self.lead if self.turn_step == 0 else 1 - self.lead
        self.player = p
        if not self.hands[p]:  # T2
            self._log("pass", -1, p)
            self._end_play()
            return
        self.phase = SELECT

    def _end_play(self) -> None:
        self.active = self.src = self.eff = self.pending = -1
        if self.turn_step == 0:
            self.turn_step = 1
            self._begin_play()
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        s0, s1 = self.scores()
        self._log("score", -1, -1, -1, s0, s1)
        self._revert_temporary()
        lead, other = self.lead, 1 - self.lead
        mine, theirs = (s0, s1) if lead == 0 else (s1, s0)
        if mine > theirs:  # T6: the lead kept the artifact and scored more
            self._win_round(lead, OUTSCORED)
            return
        if theirs > mine:
            self.holder = other
            self._log("artifact", -1, other)
        for p in (lead, other):  # T7
            if self.deck:
                c = self.deck.pop()
                self.hands[p].append(c)
                self.known[c] |= 1 << p
                self._log("draw", -1, p)
                self._log("drew", p, p, c)
        if not self.hands[0] and not self.hands[1]:  # T8
            self._win_round(self.holder, HANDS_EMPTY)
            return
        self._begin_turn()

    def _win_round(self, winner: int, reason: int) -> None:
        self.round_wins[winner] += 1
        self.round_results.append((winner, reason))
        self._log("round_end", -1, winner, -1, reason, self.round_no)
        if self.round_wins[winner] >= ROUNDS_TO_WIN:
            self.winner = winner
            self.phase = OVER
            self._log("match_end", -1, winner)
            return
        self._start_round(1 - winner)  # M2: the loser of the round starts with the artifact

    def _revert_temporary(self) -> None:
        """C6: conversions "until the end of the turn" revert now (after scoring)."""
        for card, old_skill, old_rank, new_skill, new_rank in reversed(self.temp):
            changed = False
            if self.skill[card] == new_skill and old_skill != new_skill:
                self.skill[card] = old_skill
                changed = True
            if self.rank[card] == new_rank and old_rank != new_rank:
                self.rank[card] = old_rank
                changed = True
            if changed:
                self._log("revert", -1, -1, card, self.skill[card], self.rank[card])
        self.temp = []

    def _leave_play(self, card: int) -> None:
        """C7: a card leaving play returns to its printed characteristics and loses its guard."""
        self.skill[card] = self.playset.printed_skill[card]
        self.rank[card] = self.playset.printed_rank[card]
        self.guard[card] = -1
        if self.temp:
            self.temp = [t for t in self.temp if t[0] != card]

    def _faction_of(self, card: int) -> int:
        if card in self.factions[0]:
            return 0
        if card in self.factions[1]:
            return 1
        return -1

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """The legal actions of :attr:`current_player`, in increasing order (empty when over)."""
        phase = self.phase
        if phase == SELECT:
            return sorted(self.hands[self.player])
        if phase == MODE:
            return [DISCARD, DECLARE, MINE, THEIRS]
        if phase == EFFECT:
            return self._effect_actions()
        if phase == DEAL:
            return [c for c in range(NUM_CARDS) if c not in self.dealt]
        if phase == START:
            return [0, 1]
        return []

    def _movable(self, card: int, player: int) -> bool:
        """Guard: a card guarded by the opponent of ``player`` cannot be moved, removed or converted."""
        g = self.guard[card]
        return g < 0 or g == player

    def _effect_actions(self) -> list[int]:
        code, step, p = self.eff_code, self.step, self.player
        if step == STEP_SKILLSET:
            return [SKILLSET_0, SKILLSET_0 + 1, SKILLSET_0 + 2]
        if step == STEP_FACTION:
            return [MINE, THEIRS]
        targets = self._targets(code, step, p)
        if step == STEP_TARGET and self._optional():
            targets.append(DONE)
        return targets

    def _optional(self) -> bool:
        code, args = self.eff_code, self.eff_args
        if code in (RECALL, GUARD, EXPAND, TRADE):
            return True
        if code in (CONVERT, HEAL):
            return args[0] > 1  # "up to N" when N > 1
        return False

    def _targets(self, code: int, step: int, p: int) -> list[int]:
        """Candidate cards of the current effect step, sorted. Empty: the effect has nothing to do."""
        args = self.eff_args
        out: list[int]
        if code == CONVERT:
            out = [c for f in self.factions for c in f if self.guard[c] < 0 or self.guard[c] == p]
            if self.picked:
                out = [c for c in out if c not in self.picked]
        elif code == RECALL:
            max_rank, printed = args[1], self.playset.printed_rank
            out = [c for c in self.discard if printed[c] <= max_rank and not self.recalled[c]]
            if args[2]:
                out += [c for f in self.factions for c in f
                        if self.rank[c] <= max_rank and not self.recalled[c] and self._movable(c, p)]
        elif code == GUARD:
            out = [c for c in self.factions[p] if self.guard[c] != p]
        elif code == SEARCH:
            out = self.revealed[:]
        elif code == TRADE:
            out = self._trade_targets(step, p)
        elif code == EXPAND:
            out = self.hands[p][:]
        elif code == STUDY:
            ps = self.playset
            own = ps.printed_skill[self.src]
            out = [c for c in self.discard if ps.printed_skill[c] != own and ps.printed_rank[c] <= args[0]
                   and ps.effect_code[c] != STUDY]
        elif code == HEAL:
            printed = self.playset.printed_rank
            out = [c for c in self.discard if printed[c] <= args[1]]
        else:  # ASSEMBLE has no target step
            out = []
        out.sort()
        return out

    def _trade_targets(self, step: int, p: int) -> list[int]:
        with_hand, between = self.eff_args
        hand = self.hands[p]
        movable = [[c for c in f if self._movable(c, p)] for f in self.factions]
        if step == STEP_SECOND:
            first = self.pending
            if first in hand:
                return movable[0] + movable[1]
            f = 0 if first in self.factions[0] else 1
            return (hand[:] if with_hand else []) + (movable[1 - f] if between else [])
        out: list[int] = []
        if with_hand and hand and (movable[0] or movable[1]):
            out += hand
        for f in (0, 1):
            if (with_hand and hand) or (between and movable[1 - f]):
                out += movable[f]
        return out

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: object, player: object = None) -> None:
        """Apply one decision of the current player; raise :class:`IllegalActionError` if it is not legal.

        ``action`` is an id or its readable string. When ``player`` is given it must be the current
        player. On error nothing changes.
        """
        if self.phase == OVER:
            raise IllegalActionError("the match is over; no action is legal")
        if player is not None and player != self.player:
            raise IllegalActionError(f"it is player {self.player}'s decision, not player {player}'s")
        if isinstance(action, str):
            action = self.parse_action(action)
        elif not isinstance(action, int) and hasattr(action, "__index__"):  # e.g. numpy integers
            action = operator.index(action)
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"an action is an integer id or a string, got {type(action).__name__}")
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action {action} is outside the action space 0..{NUM_ACTIONS - 1}")
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(f"{self.action_to_string(action)!r} is not legal now: "
                                     f"{self.decision_prompt()}; legal: "
                                     f"{', '.join(self.action_to_string(a) for a in legal)}")
        self._apply(action)

    def push(self, action: int) -> None:
        """Apply an action taken from :meth:`legal_actions` without checking it again — for search,
        where every action comes from that list. Use :meth:`apply` for anything else."""
        self._apply(action)

    def _apply(self, action: int) -> None:
        """Apply an action already known to be legal (used by search and playouts)."""
        self.history.append(action)
        phase = self.phase
        if phase == SELECT:
            self.hands[self.player].remove(action)
            self.active = action
            self.phase = MODE
        elif phase == MODE:
            self._play_mode(action)
        elif phase == EFFECT:
            self._effect_step(action)
        elif phase == DEAL:
            self.dealt.append(action)
            if len(self.dealt) == NUM_CARDS - 1:
                self.dealt.extend(c for c in range(NUM_CARDS) if c not in self.dealt)
                self._deal(self.dealt[:], self.deal_holder)
        else:  # START
            self._start_round(action)

    def _play_mode(self, mode: int) -> None:
        p, c = self.player, self.active
        if mode == DISCARD:
            self._log("play", -1, p, c, DISCARD, -1)
            self.src = c
            self._start_effect(c)
            return
        if mode == DECLARE:
            self.goals.append(c)
            self._log("play", -1, p, c, DECLARE, -1)
        else:
            owner = p if mode == MINE else 1 - p
            self.factions[owner].append(c)
            self._log("play", -1, p, c, mode, owner)
        self._end_play()

    def _start_effect(self, card: int) -> None:
        """Begin resolving ``card``'s discard effect as the effect of the played card :attr:`src`."""
        self.phase = EFFECT
        self.eff = card
        self.eff_code = code = self.playset.effect_code[card]
        self.eff_args = args = self.playset.effect_args[card]
        self.remaining = args[0] if code in (CONVERT, ASSEMBLE, RECALL, GUARD, EXPAND, HEAL) else 1
        self.picked = []
        self.pending = -1
        self.step = STEP_TARGET
        if code == SEARCH:
            depth = min(args[0], len(self.deck))
            self.revealed = self.deck[len(self.deck) - depth:][::-1]  # top first
            self._log("search", -1, self.player, -1, depth)
            for i, c in enumerate(self.revealed):
                self.known[c] = 1 << self.player  # the opponent no longer knows which one is taken
                self._log("saw", self.player, self.player, c, i)
        self._continue_effect()

    def _continue_effect(self) -> None:
        """Advance to the next decision of the effect, or finish it when nothing is left to decide."""
        code = self.eff_code
        if self.remaining <= 0:
            self._finish_effect()
            return
        if code == ASSEMBLE:
            if not self.deck:
                self._finish_effect()
                return
            self.pending = self.deck[-1]
            self.known[self.pending] = 3  # revealed to both (P10)
            self._log("reveal", -1, self.player, self.pending)
            self.step = STEP_FACTION
            return
        self.step = STEP_TARGET
        if not self._targets(code, STEP_TARGET, self.player):
            self._finish_effect()

    def _finish_effect(self) -> None:
        self.revealed = []
        self.discard.append(self.active)
        self._log("discarded", -1, self.player, self.active)
        self.eff_code = -1
        self.eff_args = ()
        self._end_play()

    def _effect_step(self, action: int) -> None:
        code, p = self.eff_code, self.player
        if action == DONE:
            self._finish_effect()
            return
        if code == CONVERT:
            if self.step == STEP_SKILLSET:
                self._convert(self.pending, action - SKILLSET_0)
                return
            mode = self.eff_args[1]
            if mode == 1:  # C4: the player chooses one of the playset's skillsets
                self.pending = action
                self.step = STEP_SKILLSET
                return
            new_skill = self.playset.printed_skill[self.src] if mode == 0 else self.skill[action]
            self._convert(action, new_skill)
        elif code == ASSEMBLE:
            card = self.deck.pop()
            owner = p if action == MINE else 1 - p
            self.factions[owner].append(card)
            self._log("assemble", -1, p, card, owner)
            self.remaining -= 1
            self._continue_effect()
        elif code == RECALL:
            f = self._faction_of(action)
            if f >= 0:
                self.factions[f].remove(action)
                self._leave_play(action)
            else:
                self.discard.remove(action)
            self.hands[p].append(action)
            self.known[action] = 3
            self.recalled[action] = 1
            self._log("recall", -1, p, action, 0 if f < 0 else 1, f)
            self.remaining -= 1
            self._continue_effect()
        elif code == GUARD:
            self.guard[action] = p
            self._log("guard", -1, p, action)
            self.remaining -= 1
            self._continue_effect()
        elif code == SEARCH:
            self.deck.remove(action)
            self.hands[p].append(action)
            self._log("took", p, p, action)
            self.remaining = 0
            self._continue_effect()
        elif code == TRADE:
            self._trade_step(action)
        elif code == STUDY:
            self._log("study", -1, p, action)
            self._start_effect(action)
        else:  # EXPAND, HEAL: a card, then a faction
            if self.step == STEP_TARGET:
                self.pending = action
                self.step = STEP_FACTION
                return
            card = self.pending
            owner = p if action == MINE else 1 - p
            if code == EXPAND:
                self.hands[p].remove(card)
            else:
                self.discard.remove(card)
            self.factions[owner].append(card)
            self._log("expand" if code == EXPAND else "heal", -1, p, card, owner)
            self.pending = -1
            self.remaining -= 1
            self._continue_effect()

    def _convert(self, card: int, new_skill: int) -> None:
        old_skill, old_rank = self.skill[card], self.rank[card]
        new_rank = min(6, max(1, old_rank + self.eff_args[2]))
        self.skill[card] = new_skill
        self.rank[card] = new_rank
        if self.eff_args[3]:
            self.temp.append((card, old_skill, old_rank, new_skill, new_rank))
        elif self.temp:  # C6: a later permanent conversion is not undone when a temporary one ends
            keep, delta = self.eff_args[1] == 2, self.eff_args[2]
            rebased = [t if t[0] != card else
                       (card, t[1] if keep else new_skill, min(6, max(1, t[2] + delta)),
                        t[3] if keep else new_skill, new_rank) for t in self.temp]
            self.temp = [t for t in rebased if t[1] != t[3] or t[2] != t[4]]
        self._log("convert", -1, self.player, card, new_skill, new_rank)
        self.picked.append(card)
        self.pending = -1
        self.remaining -= 1
        self._continue_effect()

    def _trade_step(self, action: int) -> None:
        if self.step == STEP_TARGET:
            self.pending = action
            self.step = STEP_SECOND
            return
        p, first, second = self.player, self.pending, action
        hand = self.hands[p]
        if second in hand:
            first, second = second, first
        if first in hand:  # a hand card and a faction card change places
            f = self._faction_of(second)
            hand.remove(first)
            self.factions[f].remove(second)
            self._leave_play(second)
            self.factions[f].append(first)
            hand.append(second)
            self.known[second] = 3
            self._log("trade", -1, p, first, second, f)
        else:  # two cards change factions
            fa, fb = self._faction_of(first), self._faction_of(second)
            self.factions[fa].remove(first)
            self.factions[fb].remove(second)
            self.factions[fb].append(first)
            self.factions[fa].append(second)
            for c, now in ((first, fb), (second, fa)):
                if self.guard[c] >= 0 and self.guard[c] != now:  # a guard protects only in its faction
                    self.guard[c] = -1
            self._log("swap", -1, p, first, second, -1)
        self.pending = -1
        self.remaining = 0
        self._continue_effect()

    # ------------------------------------------------------------------ scoring

    def scores(self) -> tuple[int, int]:
        """End-of-turn scores computed afresh from the goal area and factions (T5)."""
        if not self.goals:
            return 0, 0
        f0, f1 = self.factions
        st0, st1 = faction_stats(f0, self.skill, self.rank), faction_stats(f1, self.skill, self.rank)
        ps = self.playset
        s0 = s1 = 0
        for g in self.goals:
            code, arg, stars = ps.goal_code[g], ps.goal_arg[g], ps.goal_stars[g]
            v0 = goal_value(code, arg, st0, len(f0))
            v1 = goal_value(code, arg, st1, len(f1))
            if code <= LAST_SINGLE_WINNER:  # a single strict winner, or nobody
                if v0 > v1:
                    s0 += stars
                elif v1 > v0:
                    s1 += stars
            else:
                s0 += stars * v0
                s1 += stars * v1
        return s0, s1

    def score_breakdown(self, player: int = 0) -> list[dict[str, Any]]:
        """Per goal in the goal area: who fulfils it and why, from ``player``'s point of view.

        Each item: ``{"goal": card id, "text", "stars", "winners": [players], "why": "..."}``.
        """
        from converge.engine.scoring import breakdown

        return breakdown(self, player)

    # ------------------------------------------------------------------ actions as text

    def action_to_string(self, action: object) -> str:
        """The readable form of an action id: a card id, a mode, a skillset or ``done``."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(f"an action id is an integer, got {type(action).__name__}")
        return action_to_string(action, self.playset.card_ids, self.playset.skillsets)

    def parse_action(self, text: object) -> int:
        """The action id of a readable action; raises :class:`IllegalActionError` if unreadable."""
        return string_to_action(text, self.playset.index_of, self.playset.skillsets)

    def decision_kind(self) -> str:
        """The kind of the pending decision: select, mode, target, second, skillset, faction, chance, over."""
        from converge.engine.describe import decision_kind

        return decision_kind(self)

    def decision_prompt(self) -> str:
        """What the current player is deciding, in words (public: it names no hidden card)."""
        from converge.engine.describe import decision_prompt

        return decision_prompt(self)

    # ------------------------------------------------------------------ views

    def observation(self, player: object) -> dict[str, Any]:
        """The redacted, JSON-serialisable view of ``player`` (I1-I3). The only door to the state."""
        from converge.engine.observation import observe

        return observe(self, player)

    def public_observation(self) -> dict[str, Any]:
        """The view of a spectator: public information only."""
        from converge.engine.observation import observe

        return observe(self, -1)

    # ------------------------------------------------------------------ records and positions

    def record(self) -> dict[str, Any]:
        """The match record (playset, seed, settings, actions) that replays to this state."""
        from converge.engine.record import to_record

        return to_record(self, self.origin)

    @staticmethod
    def replay(record: Any, deck_dirs: Iterable[str] = (), upto: int | None = None) -> Match:
        """Replay a record (see :mod:`converge.engine.record`), raising :class:`RecordError` if it fails."""
        from converge.engine.record import replay

        return replay(record, deck_dirs, upto)

    def position(self) -> dict[str, Any]:
        """The position document of this state (at the start of a play)."""
        from converge.engine.position import to_position

        return to_position(self)

    @staticmethod
    def from_position(doc: Any, deck_dirs: Iterable[str] = ()) -> Match:
        """Set up a match from a position document, raising :class:`PositionError` if it is not legal."""
        from converge.engine.position import from_position

        return from_position(doc, deck_dirs)

    def random_playout(self, rng: random.Random, rounds: int = MAX_ROUNDS) -> None:
        """Play uniformly random legal actions until the match ends or ``rounds`` more rounds have
        ended (for benchmarks and search). ``rng.random`` alone drives it, for speed."""
        stop_at = len(self.round_results) + rounds
        rand = rng.random
        while self.phase != OVER and len(self.round_results) < stop_at:
            legal = self.legal_actions()
            self._apply(legal[int(rand() * len(legal))])

    def __repr__(self) -> str:
        return (f"<Match {'/'.join(self.playset.names())} round {self.round_no} wins {self.round_wins} "
                f"turn {self.turn_no} player {self.current_player}>")
