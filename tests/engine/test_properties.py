"""Property tests: invariants of the engine over random playsets, seeds and legal action sequences.

Every test draws a playset (any of the 84), a seed, and then each action with ``st.data()`` among
``match.legal_actions()``, so hypothesis shrinks a failure to a short, readable action list.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from converge import IllegalActionError, Match
from converge.engine import all_playsets
from converge.engine.actions import NUM_ACTIONS
from converge.engine.events import EventKind
from tests.helpers import zones_of

PLAYSETS = all_playsets()
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

playsets = st.sampled_from(PLAYSETS)
seeds = st.integers(min_value=0, max_value=2**63 - 1)
# Seeds with 13+ digits: their decimal string cannot turn up in an observation by coincidence.
big_seeds = st.integers(min_value=10**12, max_value=2**63 - 1)

#: The state of a Match, part by part (compared field by field for "same state"); listed here rather
#: than read from ``__slots__`` so that the test also runs against the mypyc-compiled engine.
STATE_FIELDS = {
    "": ("seed", "start_setting", "events", "history", "chance", "origin", "log_events"),
    "zones": ("hands", "deck", "discard", "goals", "factions", "artifact", "skill", "rank", "guard", "recalled",
              "temp", "known"),
    "turn": ("round_no", "round_wins", "round_results", "first_holders", "holder", "lead", "turn_step",
             "turn_no", "phase", "player", "active", "winner", "dealt", "deal_holder"),
    "effect": ("kind", "card", "args", "step", "remaining", "pending", "picked", "revealed", "decisions"),
}

#: Event kinds that by the rules (I2) are private to the player they name: dealt or drawn cards, and
#: what a Search showed and gave. A leak that made one of them public must not widen "known".
PRIVATE_EVENT_KINDS = frozenset({"dealt", "drew", "saw", "took"})

#: A bound on the actions of one round (derived in ``test_a_round_ends_within_a_bounded_number_of_actions``).
MAX_PLAYS_PER_ROUND = 16 + 18
MAX_ACTIONS_PER_PLAY = 2 + 1 + 6
MAX_ACTIONS_PER_ROUND = MAX_PLAYS_PER_ROUND * MAX_ACTIONS_PER_PLAY  # 306


def _copy(value: Any) -> Any:
    if isinstance(value, list):  # lists of ints, of lists of ints, or of (immutable) tuples
        return [_copy(v) for v in value] if value and isinstance(value[0], list) else value[:]
    return value


def state_of(match: Match) -> dict[str, Any]:
    """Every field of the state (copied), and the playset's digest."""
    out = {f"{part}.{name}": _copy(getattr(getattr(match, part) if part else match, name))
           for part, names in STATE_FIELDS.items() for name in names}
    out["playset"] = match.playset.digest
    return out


def views(match: Match) -> list[dict[str, Any]]:
    return [match.observation(0), match.observation(1), match.public_observation()]


def playout(data: st.DataObject, match: Match, max_actions: int = 10_000) -> Iterator[int]:
    """Apply legal actions chosen by hypothesis until the match ends; yield each one after applying it."""
    for _ in range(max_actions):
        if match.is_terminal:
            return
        legal = match.legal_actions()
        assert legal, "a match that is not over always has a legal action"
        action = data.draw(st.sampled_from(legal))
        match.apply(action)
        yield action


# ---------------------------------------------------------------------------------------------- zones


@SETTINGS
@given(playsets, seeds, st.data())
def test_every_card_is_in_exactly_one_zone_after_every_action(playset, seed, data):
    match = Match.new(list(playset), seed)
    assert sorted(zones_of(match)) == list(range(18))
    for _ in playout(data, match):
        cards = zones_of(match)
        assert sorted(cards) == list(range(18)), f"zones {cards} after {match.history}"
        ps = match.playset
        in_play = set(match.zones.factions[0]) | set(match.zones.factions[1])
        for c in range(18):
            if c not in in_play:  # C7: out of play a card has its printed characteristics and no guard
                assert (match.zones.skill[c], match.zones.rank[c]) == (ps.printed_skill[c], ps.printed_rank[c])
                assert match.zones.guard[c] == -1
        for c in in_play:  # a guard only ever protects a card in its guarder's faction
            assert match.zones.guard[c] in (-1, 0 if c in match.zones.factions[0] else 1)
        assert len(match.zones.deck) <= 10
    assert match.winner in (0, 1) and max(match.round_wins) == 2 and min(match.round_wins) <= 1


# ---------------------------------------------------------------------------------------------- replay


def assert_same_match(a: Match, b: Match) -> None:
    assert views(a) == views(b)
    assert a.legal_actions() == b.legal_actions()
    assert a.current_player == b.current_player
    if a.turn.phase == 0:  # SELECT: a position can be taken
        assert a.position() == b.position()
    assert state_of(a) == state_of(b)


@SETTINGS
@given(playsets, seeds, st.sampled_from(["random", 0, 1]), st.data())
def test_replaying_the_record_gives_the_same_state(playset, seed, start, data):
    match = Match.new(list(playset), seed, start=start)
    stop = data.draw(st.integers(min_value=0, max_value=200), label="actions to play")
    for _ in playout(data, match, stop):
        pass
    record = json.loads(json.dumps(match.record()))
    assert record["actions"] == match.history
    assert len(record["moves"]) == len(record["actions"])
    again = Match.replay(record)
    assert_same_match(match, again)
    assert again.record() == match.record()


@SETTINGS
@given(playsets, seeds, st.data())
def test_same_seed_and_same_actions_give_the_same_match(playset, seed, data):
    a = Match.new(list(playset), seed)
    b = Match.new(list(playset), seed)
    assert_same_match(a, b)
    for action in playout(data, a):
        b.apply(action)
        assert a.legal_actions() == b.legal_actions()
        assert (a.zones.hands, a.zones.deck, a.zones.factions) == (b.zones.hands, b.zones.deck, b.zones.factions)
        assert a.events == b.events
        if len(a.history) % 10 == 0 or a.is_terminal:
            assert_same_match(a, b)


# ---------------------------------------------------------------------------------------------- hidden information


def current_round_events(match: Match) -> list[tuple[Any, ...]]:
    starts = [i for i, e in enumerate(match.events) if e[0] == EventKind.ROUND_START]
    return list(match.events[starts[-1]:]) if starts else list(match.events)


def known_cards(match: Match, viewer: int) -> set[int]:
    """The cards whose whereabouts ``viewer`` (-1: a spectator) may legitimately know this round.

    Public zones; the viewer's own hand; every card named by a public move of this round (a card
    recalled into a hand, traded from a faction into a hand...); and what the viewer's own private
    events showed (dealt, drawn, seen by Search). A card chosen but not yet played (MODE phase) is
    known only to its player.
    """
    z = match.zones
    known = set(z.discard) | set(z.goals) | set(z.factions[0]) | set(z.factions[1])
    if viewer >= 0:
        known |= set(match.zones.hands[viewer])
    for kind, visibility, player, card, _a, _b in current_round_events(match):
        if EventKind(kind).label in PRIVATE_EVENT_KINDS:
            if player != viewer:
                continue
        elif visibility >= 0 and visibility != viewer:
            continue
        if card >= 0:
            known.add(card)
    if match.turn.active >= 0 and (match.turn.phase != 1 or match.turn.player == viewer):
        known.add(match.turn.active)
    return known


def relabelled(match: Match, viewer: int, permutation: dict[int, int]) -> Match:
    """A copy of ``match`` in which the cards hidden from ``viewer`` are permuted: same public state,
    same events, different hidden information."""
    def f(c: int) -> int:
        return permutation.get(c, c)

    q = match.clone()
    for p in (0, 1):
        if p != viewer:
            q.zones.hands[p] = [f(c) for c in q.zones.hands[p]]
    q.zones.deck = [f(c) for c in q.zones.deck]
    q.zones.artifact = f(q.zones.artifact)
    q.effect.revealed = [f(c) for c in q.effect.revealed]
    if q.turn.active >= 0:
        q.turn.active = f(q.turn.active)
    if q.effect.pending >= 0:
        q.effect.pending = f(q.effect.pending)
    return q


def this_round_view(obs: dict[str, Any]) -> dict[str, Any]:
    """The observation with the event log cut to the current round (earlier rounds were dealt apart)."""
    events = obs["events"]
    starts = [i for i, e in enumerate(events) if e["kind"] == "round_start"]
    return {**obs, "events": events[starts[-1]:] if starts else events}


def assert_no_hidden_card(match: Match, viewer: int, rng: random.Random) -> None:
    ids = match.playset.card_ids
    obs = match.observation(viewer)
    text = json.dumps(obs)
    assert '"seed":' not in text and str(match.seed) not in text
    known = known_cards(match, viewer)
    hidden = [c for c in range(18) if c not in known]
    assert match.zones.artifact in hidden
    now = json.dumps(this_round_view(obs))
    leak = re.search(r"\b(" + "|".join(re.escape(ids[c]) for c in hidden) + r")\b", now)
    assert leak is None, f"viewer {viewer} sees hidden card {leak and leak.group()} after {match.history}"
    # A match that differs only in what the viewer cannot know looks exactly the same to the viewer.
    shuffled = rng.sample(hidden, len(hidden))
    other = relabelled(match, viewer, dict(zip(hidden, shuffled, strict=True)))
    assert other.observation(viewer) == obs, f"viewer {viewer}'s observation depends on hidden cards"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(playsets, big_seeds, st.data())
def test_no_observation_holds_a_hidden_card(playset, seed, data):
    match = Match.new(list(playset), seed)
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed of the hidden-card permutations"))
    for viewer in (0, 1, -1):
        assert_no_hidden_card(match, viewer, rng)
    for _ in playout(data, match, 150):
        for viewer in (0, 1, -1):
            assert_no_hidden_card(match, viewer, rng)


def test_the_hidden_card_check_catches_a_leak():
    """The relabelling check is not vacuous: an observation that showed the opponent's hand fails it."""
    match = Match.new(["alchemist", "mechanist", "archivist"], seed=10**13)
    hidden = [c for c in range(18) if c not in known_cards(match, 0)]
    z = match.zones
    assert set(z.hands[1]) <= set(hidden) and z.artifact in hidden and set(z.deck) <= set(hidden)
    # Exchanging a card of player 1's hand with a deck card: invisible to player 0 and to a spectator,
    # but player 1 sees their own hand change, so the comparison does detect what a viewer can see.
    a, b = match.zones.hands[1][0], match.zones.deck[0]
    other = relabelled(match, 0, {a: b, b: a})
    assert other.zones.hands[1] != match.zones.hands[1]
    assert other.observation(0) == match.observation(0)
    assert other.public_observation() == match.public_observation()
    assert other.observation(1) != match.observation(1)


# ---------------------------------------------------------------------------------------------- legality


@SETTINGS
@given(playsets, seeds, st.data())
def test_every_legal_action_applies_and_every_other_raises(playset, seed, data):
    match = Match.new(list(playset), seed)
    for _ in playout(data, match, 300):
        if match.is_terminal:
            break
        legal = match.legal_actions()
        assert legal == sorted(set(legal)) and all(0 <= a < NUM_ACTIONS for a in legal)
        for a in legal:  # each legal action applies without error (on a copy)
            trial = match.clone()
            trial.apply(a, player=match.current_player)
            assert trial.history[-1] == a
        before = state_of(match)
        for a in range(NUM_ACTIONS):
            if a not in legal:
                with pytest.raises(IllegalActionError):
                    match.apply(a)
        assert state_of(match) == before
    if match.is_terminal:
        assert match.legal_actions() == []
        for a in range(NUM_ACTIONS):
            with pytest.raises(IllegalActionError):
                match.apply(a)


@SETTINGS
@given(playsets, seeds, st.data())
def test_a_round_ends_within_a_bounded_number_of_actions(playset, seed, data):
    """A round takes at most 306 actions.

    Let P = cards in both hands + cards in the deck; P = 6 + 10 = 16 after the deal. Every play takes
    its card out of a hand (P - 1); a draw or a Search moves a card from the deck to a hand, a Trade
    with the hand exchanges one card for another, a Heal moves a card between public zones (P + 0);
    Assemble and Expand move cards to factions (P - 1 each); only Recall adds to P (+1), and each card
    can be recalled at most once a round (18). A turn where both hands are empty ends the round (T8),
    so every turn has a play, and a round has at most 16 + 18 = 34 plays.
    A play is a card choice and a mode (2 actions) plus its effect: Study (1) resolving the longest
    other effect, Expand 3 (3 x card + faction = 6); so at most 9 actions. 34 x 9 = 306.
    """
    match = Match.new(list(playset), seed)
    round_no, actions, plays, longest = match.round_no, 0, 0, 0
    for _ in playout(data, match):
        actions += 1
        if match.turn.phase == 1:  # MODE: a card was just chosen; that is one play
            plays += 1
        assert actions <= MAX_ACTIONS_PER_ROUND, f"round {round_no} still going after {actions} actions"
        assert plays <= MAX_PLAYS_PER_ROUND
        if match.round_no != round_no or match.is_terminal:
            longest = max(longest, actions)
            round_no, actions, plays = match.round_no, 0, 0
    assert match.is_terminal
    assert 0 < longest <= MAX_ACTIONS_PER_ROUND


# ---------------------------------------------------------------------------------------------- clone


@SETTINGS
@given(playsets, seeds, st.data())
def test_clone_is_equal_and_independent(playset, seed, data):
    match = Match.new(list(playset), seed)
    stop = data.draw(st.integers(min_value=0, max_value=120), label="actions before cloning")
    for _ in playout(data, match, stop):
        pass
    twin = match.clone()
    assert views(twin) == views(match)
    assert twin.legal_actions() == match.legal_actions()
    assert state_of(twin) == state_of(match)
    before = state_of(match)
    before_views = views(match)
    # Playing on the clone leaves the original alone ...
    for _ in playout(data, twin, 40):
        pass
    # ... and so does scribbling on every list the clone holds.
    for p in (0, 1):
        twin.zones.hands[p].append(99)
        twin.zones.factions[p].append(99)
    for part, names in STATE_FIELDS.items():
        for name in names:
            value = getattr(getattr(twin, part) if part else twin, name)
            if isinstance(value, list):
                value.append(99)
    assert state_of(match) == before
    assert views(match) == before_views
    # The original can still play on, unaffected, and so can a fresh clone of it.
    again = match.clone()
    for action in playout(data, match, 40):
        again.apply(action)
    assert state_of(again) == state_of(match)
