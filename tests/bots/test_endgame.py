"""Exact endgames (converge.bots.endgame): checked against a brute force on constructed positions with every
effect kind in play, the native solver against its specification in Python, the claims "wins in every case"
and "loses in every case" as stated, and the search handing an endgame to the solver."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from converge import Match
from converge.bots import endgame, make_bot
from converge.bots.search import Settings, search
from converge.engine import native
from converge.engine.playset import SETS, all_playsets
from tests.bots.test_search import OnTheEngine

needs_native = pytest.mark.skipif(not native.available(), reason="the native core is not built (no C compiler)")


def brute_force(m: Match, me: int, round_index: int, known: dict[str, int] | None = None) -> int:
    """Whether ``me`` wins the round from ``m``, both players seeing everything and playing their best: every
    line of play followed to the end, no pruning (a position met again by another order of play is looked up
    by its whole position document)."""
    if m.rounds_finished > round_index or m.is_terminal:
        return int(m.round_winners[round_index] == me)
    known = {} if known is None else known
    key = json.dumps(m.position(), sort_keys=True)
    if key not in known:
        values = []
        for a in m.legal_actions():
            after = m.clone(False, False)
            after.push(a)
            values.append(brute_force(after, me, round_index, known))
        known[key] = max(values) if m.current_player == me else min(values)
    return known[key]


def constructed(names: tuple[str, ...], rng: random.Random) -> dict[str, Any]:
    """An endgame of the playset: the deck empty, player 0 to lead with a card of each of the first two decks,
    player 1 holding a card of the third (so each deck's effect is in play), one of the other cards the
    artifact, two in each faction, two in the discard pile and the rest goals (so that the effects have a few
    targets each, and the brute force a few thousand positions)."""
    decks = [[f"{n[:3].upper()}{r}" for r in range(1, 7)] for n in names]
    for d in decks:
        rng.shuffle(d)
    mine, theirs = [decks[0].pop(), decks[1].pop()], [decks[2].pop()]
    rest = decks[0] + decks[1] + decks[2]
    rng.shuffle(rest)
    artifact = rest.pop()
    zones = {"f0": rest[0:2], "f1": rest[2:4], "discard": rest[4:6], "goals": rest[6:]}
    return {"playset": list(names), "artifact_holder": 0, "lead": 0, "to_play": 0, "turn": 6,
            "hands": [mine, theirs], "deck": [], "artifact": artifact, "discard": zones["discard"],
            "goals": zones["goals"], "factions": [zones["f0"], zones["f1"]]}


def test_the_solver_agrees_with_a_brute_force_with_every_effect_kind_in_play() -> None:
    """On endgames of the three sets (which hold the nine effect kinds between them), each with the decks' cards
    in both hands: for every option, the worlds it wins are those a brute force wins."""
    rng = random.Random(1)
    kinds: set[str] = set()
    checked = 0
    for names in SETS.values():
        for _ in range(2):
            m = Match.from_position(constructed(names, rng))
            view = m.view(0)
            solved = endgame.solve(view, depth=1, nodes=10**7)
            assert solved is not None and solved.exact
            worlds = view.endgame_worlds()
            assert worlds is not None and solved.worlds == len(worlds) == 2
            for e in solved.estimates:
                wins = 0
                for w in worlds:
                    after = w.clone(False, False)
                    after.push(e.action)
                    wins += brute_force(after, 0, 0)
                assert (e.visits, e.wins) == (len(worlds), wins), (m.position(), e)
                checked += 1
            kinds |= {m.playset.effect_kind[c].name for c in m.zones.hands[0] + m.zones.hands[1]}
    assert len(kinds) == 9 and checked >= 12


def endgames(count: int, seed: int, largest: int = 20_000) -> list[Match]:
    """Decisions once the deck is empty, from matches of a greedy and a random bot, small enough to solve in
    ``largest`` positions."""
    rng = random.Random(seed)
    playsets = all_playsets()
    out: list[Match] = []
    while len(out) < count:
        m = Match.new(list(playsets[rng.randrange(len(playsets))]), seed=rng.getrandbits(32))
        bots = [make_bot("greedy", 1), make_bot("random", 2)]
        while not m.is_terminal and m.zones.deck:
            m.apply(bots[m.current_player].decide(m.view(m.current_player)))
        for _ in range(rng.randrange(5)):
            if m.is_terminal:
                break
            m.apply(bots[m.current_player].decide(m.view(m.current_player)))
        if not m.is_terminal and endgame.solve(m.view(m.current_player), nodes=largest) is not None:
            out.append(m)
    return out


@needs_native
def test_the_native_solver_is_the_python_solver() -> None:
    """The same values, claims and next steps on random endgames (the claims rest on grouping worlds by what
    the player sees: the native core's own reading of it, against the engine's observation)."""
    for m in endgames(25, 2):
        view = m.view(m.current_player)
        fast, spec = endgame.solve(view), endgame.solve(OnTheEngine(view), nodes=10**7)  # type: ignore[arg-type]
        assert fast is not None and spec is not None
        assert fast.estimates == spec.estimates and fast.worlds == spec.worlds


def test_the_claims_are_what_they_say() -> None:
    """Loses in every case: no world won. Wins in every case: every world won, and then each of the player's
    next steps that keeps the claim wins every world too; an option that wins each world but not with one way of
    playing is not claimed."""
    claimed = {1: 0, -1: 0}
    for m in endgames(30, 3):
        found = endgame.solve(m.view(m.current_player))
        assert found is not None
        for e in found.estimates:
            if e.sure == -1:
                assert e.wins == 0
            if e.sure == 1:
                assert e.wins == e.visits
                assert not e.then or any(t.sure == 1 for t in e.then)
            if e.sure:
                claimed[e.sure] += 1
    assert claimed[1] and claimed[-1]


# An endgame where one option wins every world with everything seen, but the winning way on depends on the
# world and player 0 cannot tell which, so no one way of playing wins in every case (found among random
# endgames; the Python solver, whose grouping of worlds is the engine's observation, says the same, in 14 s).
FUSION = {"playset": ["alchemist", "mechanist", "delver"], "round": 1, "turn": 6, "artifact_holder": 0, "lead": 0,
          "to_play": 0, "hands": [["ALC6", "ALC5", "DEL2"], ["ALC4", "MEC1", "MEC5"]], "deck": [],
          "artifact": "MEC4", "discard": ["MEC6", "ALC3", "ALC2", "DEL5"], "goals": ["DEL1", "DEL4"],
          "factions": [["DEL6", "MEC3", "DEL3"], ["ALC1", "MEC2"]],
          "conversions": {"DEL6": {"skillset": "Alchemist", "rank": 6, "until_end_of_turn": False}}}


@needs_native
def test_winning_each_world_is_not_winning_in_every_case() -> None:
    m = Match.from_position(FUSION)
    found = endgame.solve(m.view(0), nodes=10**7)
    assert found is not None
    played = {e.action: e for e in found.estimates}[m.parse_action("DEL2")]
    theirs = {t.action: t for t in played.then}[m.parse_action("theirs")]
    assert (theirs.wins, theirs.visits, theirs.sure) == (4, 4, 0)


def test_a_search_hands_the_endgame_to_the_solver_and_the_rest_to_the_search() -> None:
    m = endgames(1, 4)[0]
    view = m.view(m.current_player)
    assert search(view, Settings(200), 1).exact
    assert not search(view, Settings(200, exact=0), 1).exact
    assert not search(view, Settings(200, exact=1), 1).exact  # too large for one position: searched
    early = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    assert endgame.solve(early.view(early.current_player)) is None and early.view(0).endgame_worlds() is None
