"""The strong search (converge.bots.search): the native search against its specification in Python, draw for
draw; every option estimated on the same worlds; the answer the same whatever the number of threads; and the
information boundary: a search sees its player's view only."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from converge import Match
from converge.bots.estimates import ABSENT, paired_difference
from converge.bots.search import Settings, search
from converge.engine import native
from converge.engine.playset import all_playsets

PLAYSETS = all_playsets()
needs_native = pytest.mark.skipif(not native.available(), reason="the native core is not built (no C compiler)")


class OnTheEngine:
    """The same view, searched by the Python search (its native state hidden)."""

    def __init__(self, view: Any) -> None:
        self.view, self.player = view, view.player

    @property
    def round_results(self) -> list[tuple[int, int]]:
        return self.view.round_results  # type: ignore[no-any-return]

    def legal_actions(self) -> list[int]:
        return self.view.legal_actions()  # type: ignore[no-any-return]

    def sample_world(self, rng: Any, chance: bool = False) -> Match:
        return self.view.sample_world(rng, chance)  # type: ignore[no-any-return]

    def endgame_worlds(self) -> list[Match] | None:
        return self.view.endgame_worlds()  # type: ignore[no-any-return]

    def native_state(self) -> None:
        return None


def decisions(count: int, seed: int, players: str = "random") -> list[Match]:
    """Matches stopped at a decision with two options or more, at random points of random matches."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        m = Match.new(list(PLAYSETS[rng.randrange(len(PLAYSETS))]), seed=rng.getrandbits(32))
        for _ in range(rng.randrange(70)):
            if m.is_terminal:
                break
            legal = m.legal_actions()
            m.apply(legal[rng.randrange(len(legal))])
        if not m.is_terminal and len(m.legal_actions()) > 1:
            out.append(m)
    return out


@needs_native
def test_the_native_search_is_the_python_search_draw_for_draw() -> None:
    """Same seed, same budget: the same estimates (to the simulation and the win), the same outcome of every
    option in every sweep, the same finalists — with and without greedy playouts, in one part or several."""
    rng = random.Random(1)
    for m in decisions(30, 2):
        view = m.view(m.current_player)
        settings = Settings(rng.choice([9, 40, 100]), rng.choice([1, 3]), greedy=rng.choice([0.0, 0.5]), exact=0)
        seed = rng.getrandbits(40)
        fast, spec = search(view, settings, seed), search(OnTheEngine(view), settings, seed)
        assert fast.estimates == spec.estimates
        assert fast.outcomes == spec.outcomes
        assert fast.finalists == spec.finalists and fast.simulations == spec.simulations > 0


def test_every_option_is_played_in_the_same_worlds_and_the_better_half_goes_on() -> None:
    """Each sweep plays every option still in the running (an outcome 0 or 1) and no other (ABSENT); the
    running options halve from phase to phase, the first phase has them all, and the finalists are among the
    last sweep's; the best has the most simulations."""
    for m in decisions(12, 3):
        view = m.view(m.current_player)
        legal = view.legal_actions()
        found = search(view, Settings(600, exact=0), 7)
        sweeps = len(found.outcomes[legal[0]])
        running = [sum(found.outcomes[a][k] != ABSENT for a in legal) for k in range(sweeps)]
        assert running[0] == len(legal)
        assert all(b <= a for a, b in itertools.pairwise(running))
        phases, counts, c = max(1, (len(legal) - 1).bit_length()), [], len(legal)
        for _ in range(phases):
            counts.append(c)
            c = (c + 1) // 2
        assert sorted(set(running), reverse=True) == counts
        assert set(found.finalists) == {a for a in legal if found.outcomes[a][-1] != ABSENT}
        visits = {e.action: e.visits for e in found.estimates}
        assert visits[found.best()] == max(visits.values())
        assert all(v >= 600 // (len(legal) * max(1, (len(legal) - 1).bit_length())) for v in visits.values())
        for e in found.estimates:  # an option's outcomes are its simulations
            assert sum(o != ABSENT for o in found.outcomes[e.action]) == e.visits
            assert sum(o == 1 for o in found.outcomes[e.action]) == e.wins


def test_the_paired_difference_of_two_options() -> None:
    n, mean, se = paired_difference(bytes([1, 0, 1, ABSENT, 1]), bytes([0, 0, 1, 1, ABSENT]))
    assert (n, mean) == (3, pytest.approx(1 / 3)) and 0 < se < 1
    assert paired_difference(bytes([ABSENT]), bytes([1]))[0] == 0


@needs_native
def test_the_answer_is_the_same_whatever_the_number_of_threads() -> None:
    for m in decisions(4, 5):
        view = m.view(m.current_player)
        settings = Settings(2000, parts=4, exact=0)
        one, many = search(view, settings, 11, threads=1), search(view, settings, 11)
        assert one.estimates == many.estimates and one.outcomes == many.outcomes


def test_a_search_sees_its_players_view_only() -> None:
    """Two matches that player 0 cannot tell apart get the same search; a planted peek (a native state of the
    live match in which player 0 knows where every card is, so that no world deals them again) gets different
    ones, so the check can fail."""
    from tests.helpers import setup

    a = setup(hands=(["ALC1", "MEC2", "ARC5"], ["ARC3", "ARC4"]), factions=(["MEC1"], ["ALC4"]),
              goals=["MEC4"], deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
    b = setup(hands=(["ALC1", "MEC2", "ARC5"], ["MEC6", "MEC5"]), factions=(["MEC1"], ["ALC4"]),
              goals=["MEC4"], deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    assert a.observation(0) == b.observation(0)
    settings = Settings(3000, parts=2)
    assert search(a.view(0), settings, 3).estimates == search(b.view(0), settings, 3).estimates
    if native.available():
        class Peeking(OnTheEngine):
            def __init__(self, match: Match) -> None:
                super().__init__(match.view(0))
                self.live = match

            def native_state(self) -> Any:
                fields = list(native.fields_of(self.live))
                fields[native.FIELDS.index("known")] = [3] * 18
                return native.core.State(native.tables(self.live.playset), tuple(fields))

        seen = [search(Peeking(m), settings, 3).estimates for m in (a, b)]
        assert seen[0] != seen[1]


def test_on_the_engine_a_search_spends_its_engine_share() -> None:
    """Where the native core cannot search, a budget with an engine share spends that share of its simulations
    on the engine (about as long, less deep); a budget without one spends them all."""
    m = decisions(1, 6)[0]
    view = OnTheEngine(m.view(m.current_player))
    assert search(view, Settings(400, parts=2, engine_share=10, exact=0), 1).simulations <= 40
    assert search(view, Settings(400, parts=2, exact=0), 1).simulations >= 380


def test_on_the_engine_an_endgame_gets_the_engine_share_of_its_positions() -> None:
    """An endgame that fits a budget's positions is solved exactly on the engine only when it fits their engine
    share (on the engine each position costs as much more as a simulation does)."""
    from converge.bots import endgame
    from tests.bots.test_endgame import endgames

    m = endgames(1, 5, largest=5_000)[0]
    view = OnTheEngine(m.view(m.current_player))
    low, size = 0, 5_000  # the fewest positions that solve it: more than low, at most size
    while size - low > 1:
        mid = (low + size) // 2
        low, size = (low, mid) if endgame.solve(view, nodes=mid) is not None else (mid, size)
    assert search(view, Settings(40, exact=size), 1).exact
    assert not search(view, Settings(40, exact=size, engine_share=2), 1).exact
    assert search(view, Settings(40, exact=2 * size, engine_share=2), 1).exact


def test_a_budget_is_checked() -> None:
    for bad in ({"simulations": 0}, {"simulations": 5, "parts": 0}, {"simulations": 5, "greedy": 1.5}):
        with pytest.raises(ValueError):
            Settings(**bad)  # type: ignore[arg-type]
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    with pytest.raises(ValueError, match="no decision"):
        search(m.view(1 - m.current_player), Settings(10), 1)
