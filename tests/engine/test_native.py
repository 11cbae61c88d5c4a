"""The native core against the engine, its specification: both play the same actions side by side, and after
every action they offer the same legal actions, have logged the same events and hold the same state — on every
built-in playset, on fuzzed positions, and on random decks of every effect and goal kind. The worlds a player
cannot tell apart and the playouts of a search are compared draw for draw, on the same random numbers.

``make test`` plays a few thousand rounds; ``make fuzz`` (``CONVERGE_NATIVE_ROUNDS``) a million and more.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from typing import Any

import pytest

from converge import Match
from converge.bots import ISMCTSBot
from converge.cards.model import CardSpec, Deck, Effect, Goal
from converge.engine import native
from converge.engine.effects import builtin_effect_kinds, effect_kinds, register_effect, unregister_effect
from converge.engine.goals import builtin_goal_kinds
from converge.engine.native import FIELDS, SplitMix, fields_of, into_match, state_of
from converge.engine.params import Param
from converge.engine.playset import Playset, all_playsets
from converge.engine.state import shuffled_deal
from tests.engine.test_extension import decks  # noqa: F401  (the fixture: a deck of kinds defined in Python)
from tests.fuzz_support import SEED as fuzz_seed
from tests.fuzz_support import count

pytestmark = pytest.mark.skipif(not native.available(), reason="the native core is not built (no C compiler)")

#: Rounds played side by side by the bulk test (``make fuzz`` sets a million).
ROUNDS = int(os.environ.get("CONVERGE_NATIVE_ROUNDS", "3000"))
PLAYSETS = all_playsets()


def _norm(fields: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(list(v) if isinstance(v, (list, tuple)) else v for v in fields)


def _differences(match: Match, state: Any) -> list[tuple[str, Any, Any]]:
    return [(name, a, b) for name, a, b in zip(FIELDS, _norm(fields_of(match)), _norm(state.fields()), strict=True)
            if a != b]


def side_by_side(match: Match, rng: random.Random, check_every_step: bool = True) -> int:
    """Play ``match`` to its end with random legal actions, and the core beside it (the later rounds dealt as
    the match deals them); assert they never differ. Returns the rounds played."""
    deals = [shuffled_deal(match.seed, r) for r in (1, 2, 3)] if not match.chance else []
    state = state_of(match, deals=deals, log=True)
    logged = len(match.events)
    rounds = match.rounds_finished
    while not match.is_terminal:
        legal = match.legal_actions()
        assert state.legal_actions() == legal, match.position()
        action = legal[rng.randrange(len(legal))]
        match.apply(action)
        state.apply(action)
        if check_every_step or match.rounds_finished != rounds or match.is_terminal:
            rounds = match.rounds_finished
            assert not _differences(match, state), (action, _differences(match, state))
    assert state.legal_actions() == []
    assert [tuple(e) for e in match.events[logged:]] == state.events()
    return match.rounds_finished


def test_the_core_plays_every_builtin_playset_as_the_engine_does() -> None:
    rng = random.Random(1)
    rounds = 0
    for i, names in enumerate(PLAYSETS):
        rounds += side_by_side(Match.new(list(names), seed=i), rng)
    assert rounds >= 2 * len(PLAYSETS)


def test_the_core_and_the_engine_agree_over_many_rounds() -> None:
    """The bulk run: ``ROUNDS`` rounds of random matches, compared at every round's end and at every step of a
    tenth of them, events whole."""
    rng = random.Random(fuzz_seed)  # (make fuzz: a fresh one, printed at the end)
    rounds = matches = 0
    while rounds < ROUNDS:
        names = PLAYSETS[rng.randrange(len(PLAYSETS))]
        rounds += side_by_side(Match.new(list(names), seed=rng.getrandbits(62)), rng, matches % 10 == 0)
        matches += 1
    count("native: rounds side by side", rounds)


# ---------------------------------------------------------------------- random decks of every kind


def _param_value(p: Param, rng: random.Random, skillsets: list[str]) -> Any:
    if p.type == "int":
        return rng.randint(int(p.low if p.low is not None else 0), int(p.high if p.high is not None else 6))
    if p.type == "bool":
        return rng.random() < 0.5
    if p.type == "choice":
        return rng.choice(list(p.choices))
    return rng.choice([*skillsets, "Healer"])  # a skillset: of the playset, or one that is not in it


def random_playset(rng: random.Random) -> Playset:
    """Three decks of random cards: each deck of one effect kind (its keyword) with random parameters, each card
    a random goal kind with random parameters and stars."""
    skillsets = ["Red", "Green", "Blue"]
    kinds = rng.sample(builtin_effect_kinds(), 3)
    made = []
    for s, name in enumerate(skillsets):
        kind = kinds[s]
        cards = []
        for rank in range(1, 7):
            goal = rng.choice(builtin_goal_kinds())
            effect_params = {p.name: _param_value(p, rng, skillsets) for p in kind.params}
            if kind.check(effect_params):  # (a trade must allow something)
                effect_params = {p.name: p.default for p in kind.params}
            goal_params = {p.name: _param_value(p, rng, skillsets) for p in goal.params}
            goal_spec = Goal(goal.name, goal_params, rng.randint(1, 3))
            cards.append(CardSpec(f"{name[:3].upper()}{rank}", f"{name} {rank}", name, rank, goal_spec,
                                  Effect(kind.name, effect_params)))
        made.append(Deck(name, "Test", kind.keyword, "white", tuple(cards)))
    return Playset(made, order=tuple(s.lower() for s in skillsets))


def test_the_core_plays_random_decks_of_every_effect_and_goal_kind_as_the_engine_does() -> None:
    rng = random.Random(3)
    effects_seen: set[str] = set()
    goals_seen: set[str] = set()
    for i in range(150):
        playset = random_playset(rng)
        assert native.tables(playset) is not None
        effects_seen |= {k.name for k in playset.effect_kind}
        goals_seen |= {k.name for k in playset.goal_kind}
        side_by_side(Match.new(playset, seed=i), rng)
    assert effects_seen == {k.name for k in builtin_effect_kinds()}
    assert goals_seen == {k.name for k in builtin_goal_kinds()}


def test_a_playset_with_a_kind_written_in_python_is_left_to_the_engine(decks: str) -> None:  # noqa: F811
    """The extension's deck (a kind of effect and of goal defined in Python) is played and searched on the
    engine alone; so is a kind registered under another name, even one made of a built-in kind's class (the
    core knows the built-in kinds themselves, not their names)."""
    m = Match.new(["gravedigger", "alchemist", "searcher"], seed=1, deck_dirs=[decks])
    assert native.tables(m.playset) is None
    with pytest.raises(ValueError, match="cannot play this playset"):
        state_of(m)
    assert m.view(m.current_player).native_state() is None
    assert ISMCTSBot(1, iterations=40).decide(m.view(m.current_player)) in m.legal_actions()
    other = type(builtin_effect_kinds()[0])()
    other.name = "convert2"
    register_effect(other)
    try:
        alchemist, *others = Playset.from_names(["alchemist", "mechanist", "archivist"]).decks
        changed = replace(alchemist, cards=tuple(replace(c, effect=Effect("convert2", c.effect.params))
                                                 for c in alchemist.cards))
        assert native.tables(Playset([changed, *others])) is None
        assert native.tables(Playset([alchemist, *others])) is not None
    finally:
        unregister_effect("convert2")
    assert "convert2" not in effect_kinds()



# ---------------------------------------------------------------------- fuzzed positions


def random_position(rng: random.Random) -> dict[str, Any]:
    """A position document with the 18 cards thrown into the zones at random, conversions, guards and recalled
    cards at random: many are impossible in play and refused; the rest are played on."""
    names = list(PLAYSETS[rng.randrange(len(PLAYSETS))])
    ids = Playset.from_names(names).card_ids
    cards = list(ids)
    rng.shuffle(cards)
    zones: dict[str, list[str]] = {"h0": [], "h1": [], "f0": [], "f1": [], "discard": [], "goals": [], "deck": []}
    artifact = cards.pop()
    for c in cards:
        zones[rng.choice(list(zones))].append(c)
    player = rng.randrange(2)
    if not zones[f"h{player}"]:
        zones[f"h{player}"].append(zones["deck"].pop() if zones["deck"] else zones["discard"].pop())
    factions = [zones["f0"], zones["f1"]]
    in_factions = factions[0] + factions[1]
    holder = rng.randrange(2)
    doc: dict[str, Any] = {
        "format": "converge-position", "version": 1, "playset": names, "seed": rng.getrandbits(32),
        "round": 1, "round_wins": [0, 0], "turn": rng.randint(1, 5), "artifact_holder": holder, "lead": holder,
        "to_play": player, "hands": [zones["h0"], zones["h1"]], "deck": zones["deck"], "artifact": artifact,
        "discard": zones["discard"], "goals": zones["goals"], "factions": factions,
        "conversions": {c: {"skillset": rng.choice(Playset.from_names(names).skillsets), "rank": rng.randint(1, 6),
                            "until_end_of_turn": rng.random() < 0.3}
                        for c in in_factions if rng.random() < 0.3},
        "guards": {c: (0 if c in factions[0] else 1) for c in in_factions if rng.random() < 0.2},
        "recalled": [c for c in cards if rng.random() < 0.1 and c not in zones["deck"]],
    }
    if player != holder and rng.random() < 0.8:
        doc["lead"] = holder  # the other player's play of the turn
    return doc


def test_the_core_plays_on_from_fuzzed_positions_as_the_engine_does() -> None:
    from converge import PositionError

    rng = random.Random(4)
    played = 0
    for _ in range(600):
        try:
            match = Match.from_position(random_position(rng))
        except PositionError:
            continue
        if match.is_terminal:
            continue
        side_by_side(match, rng)
        played += 1
    assert played >= 100


# ---------------------------------------------------------------------- worlds and playouts, draw for draw


def _random_states(count: int, seed: int) -> list[Match]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        names = PLAYSETS[rng.randrange(len(PLAYSETS))]
        m = Match.new(list(names), seed=rng.getrandbits(32))
        for _ in range(rng.randrange(80)):
            if m.is_terminal:
                break
            legal = m.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
        if not m.is_terminal:
            out.append(m)
    return out


def test_a_world_of_the_core_is_the_engines_world_drawn_from_the_same_numbers() -> None:
    """``Match.sample_world`` and the core's ``sample`` give the same world from the same random numbers, for
    either player and at every kind of decision (the opponent's choice in progress included)."""
    rng = random.Random(5)
    kinds: set[str] = set()
    for m in _random_states(300, 6):
        for p in (0, 1):
            seen = m.redacted(p)  # what the player's view is made of
            seed = rng.getrandbits(64)
            r = SplitMix(seed)
            world = seen.sample_world(p, r, True)
            core_world, after = state_of(seen).sample(p, seed)
            assert not _differences(world, core_world)
            assert after == r.state
            kinds.add(m.decision_kind + ("/theirs" if m.current_player != p else ""))
    assert {"select", "mode", "target", "mode/theirs", "target/theirs"} <= kinds


def test_a_playout_of_the_core_is_the_engines_drawn_from_the_same_numbers() -> None:
    rng = random.Random(7)
    for m in _random_states(200, 8):
        for greedy in (0.5, 0.0, 1.0):
            world = m.clone(chance=True)
            state = state_of(world, log=True)
            logged = len(world.events)
            seed = rng.getrandbits(64)
            r = SplitMix(seed)
            if greedy > 0:
                world.placement_playout(r, greedy)  # type: ignore[arg-type]
            else:
                world.random_playout(r, 1, False)  # type: ignore[arg-type]
            assert state.playout(seed, greedy) == r.state
            assert not _differences(world, state)
            assert [tuple(e) for e in world.events[logged:]] == state.events()


def test_into_match_reads_the_cores_state_back() -> None:
    for m in _random_states(50, 9):
        back = into_match(state_of(m).fields(), m)
        assert _norm(fields_of(back)) == _norm(fields_of(m))
        for p in (0, 1):
            assert back.observation(p, events=False) == m.observation(p, events=False)


def test_the_core_refuses_what_is_not_a_state() -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    blob = native.tables(m.playset)
    assert blob is not None
    good = fields_of(m)
    for bad, message in [((), "36 fields"), ((*good[:7], 99, *good[8:]), "artifact"),
                         ((*good[:8], [0] * 17, *good[9:]), "length")]:
        with pytest.raises(ValueError, match=message):
            native.core.State(blob, bad)
    with pytest.raises(ValueError, match="bytes"):
        native.core.State(blob[:-1], good)
    state = state_of(m)
    with pytest.raises(ValueError, match="not legal"):
        state.apply(25)
    assert state.legal_actions() == m.legal_actions()
