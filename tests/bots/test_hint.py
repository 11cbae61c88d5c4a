"""The hint at every step of a play: a card's chance is the best chance of how it can be played, and the
next step's options come from the same search."""

from __future__ import annotations

import math
import random
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from converge import Match
from converge.bots.hint import Option, follow_on, hint, points
from converge.engine.playset import all_playsets
from tests.engine.test_extension import decks  # noqa: F401  (the fixture: a deck of kinds defined in Python)


def _positions(n: int, seed: int) -> list[Match]:
    rng = random.Random(seed)
    playsets = all_playsets()
    out = []
    while len(out) < n:
        m = Match.new(playsets[rng.randrange(len(playsets))], seed=rng.getrandbits(32))
        for _ in range(rng.randrange(30)):
            if m.is_terminal:
                break
            m.apply(rng.choice(m.legal_actions()))
        if not m.is_terminal and m.decision_kind == "select" and len(m.legal_actions()) > 1:
            out.append(m)
    return out

def test_a_cards_chance_is_its_best_placements_and_the_next_step_is_the_same_searchs() -> None:
    steps = 0
    for m in _positions(8, 5):
        me = m.current_player
        view = m.view(me)
        options = hint(view, simulations=300, seed=1)
        ranked = [o for o in options if not o.equal]  # (those about equal to the best come first, in fixed order)
        assert [o.win_chance for o in ranked] == sorted((o.win_chance for o in ranked), reverse=True)
        for o in options:
            step = view.follow_up(o.action)
            if not o.then:
                continue
            assert step is not None  # a next step only where nothing comes to light in between
            assert o.win_chance == o.then[0].win_chance == max(t.win_chance for t in o.then)
            legal = step.legal_actions()
            assert {t.action for t in o.then} <= set(legal)
            labels = {a["id"]: a["label"] for a in step.observation()["decision"]["legal_actions"]}
            assert all(t.label == labels[t.action] for t in o.then)
            after = m.clone()
            after.apply(o.action)
            assert after.current_player == me and sorted(after.legal_actions()) == sorted(legal)
            if sorted(t.action for t in o.then) == sorted(legal):
                assert follow_on(options, o.action, legal) == list(o.then)
                steps += 1
    assert steps >= 5  # the check met cards whose every placement the search tried


def test_the_package_ships_a_calibration_map_fitted_on_measured_decisions() -> None:
    """The map ``converge calibrate --fit`` wrote is in the package and read: rising, from 0 to 1, fitted on
    2,000 decisions or more; so a hint's chance is said as a frequency."""
    from converge.bots.hint import Calibration, in_words, shipped_calibration

    cal = shipped_calibration()
    assert cal != Calibration() and cal.fitted_on >= 2000
    ys = [y for _, y in cal.knots]
    assert ys == sorted(ys) and ys[0] >= 0.0 and ys[-1] <= 1.0
    assert in_words(0.55).endswith("in 10 rounds like this are won")


def test_an_options_value_is_the_mean_of_its_own_simulations_before_the_map() -> None:
    """Little-searched options are not drawn towards their decision's mean (measured worse): the raw value of
    an option that is not a step of a longer play is its simulations' mean."""
    from converge.bots.hint import Calibration
    from converge.bots.search import search

    for m in _positions(3, 9):
        view = m.view(m.current_player)
        budget = replace(Calibration().budget, simulations=300)
        found = {e.action: e for e in search(view, budget, 4).estimates}
        for o in hint(view, simulations=300, seed=4, calibration=Calibration()):
            e = found[o.action]
            if not o.then and e.visits:
                assert o.raw == e.wins / e.visits and o.win_chance == o.raw  # (the identity map)


def test_the_shipped_map_was_fitted_on_the_budget_a_new_map_is_fitted_on() -> None:
    """One budget: the doors spend the shipped map's, and ``budgets.HINT`` is what the next map will be fitted
    on; a release whose two differ shows chances measured on a search it no longer runs by default."""
    from converge.bots.budgets import HINT
    from converge.bots.hint import shipped_calibration

    assert shipped_calibration().budget == HINT


def test_chances_are_said_to_be_measured_only_on_the_budget_and_the_core_they_were_measured_on(
        decks: str) -> None:  # noqa: F811
    """The map's chances are a frequency only for the search it was fitted on: another budget, or a search on the
    engine (a deck with a mechanic written in Python), gives the bot's estimates, and the hint says so."""
    from converge.bots.hint import measured, shipped_calibration, verdict
    from converge.engine import native

    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    view = m.view(m.current_player)
    assert shipped_calibration().fitted_on > 0
    assert measured(None, view) == native.available()
    assert not measured(shipped_calibration().budget.simulations + 1, view)
    own = Match.new(["gravedigger", "alchemist", "searcher"], seed=1, deck_dirs=[decks])
    assert not measured(None, own.view(own.current_player))
    options = hint(own.view(own.current_player), simulations=200, seed=1)
    assert "the strong bot estimates" in verdict(options, measured(200, own.view(own.current_player)))
    assert "rounds like this are won" in verdict(options, True)


def test_a_hint_names_up_to_three_options_about_equal_and_counts_more() -> None:
    """Three options about equal are named in the sentence; four or more are counted and said to be listed
    first (a sentence quoting six options pushed the board out of a laptop's window), in every form."""
    from converge.bots.hint import NAMED_EQUAL, Option, verdict

    def options(n: int, **kw: int) -> list[Option]:
        return [Option(k, f"play {k}", 0.6 - k / 100, 900, equal=True, **kw) for k in range(n)]

    for n in range(2, 7):
        for kw in ({}, {"sure": 1}, {"sure": -1}):
            said = verdict(options(n, **kw))
            assert said.count("“") == (n if n <= NAMED_EQUAL else 0), said
            assert (f"{n} best choices, listed first," in said) == (n > NAMED_EQUAL), said
            assert (said[0] == "“" or said[0].isupper()) and said.endswith("."), said


@given(st.floats(min_value=0.0, max_value=1.0))
def test_the_chance_sent_to_the_page_rounds_there_to_the_verdicts_points(chance: float) -> None:
    """The page shows ``Math.round(win_chance * 100)``%; the verdict says ``points(chance)``%. A chance sent to
    three places (0.515 for 0.51496) was rounded twice and said 52% beside a sentence's 51%."""
    held = Option(7, "discard it", chance, 10)
    sent = Option(3, "play ARC5", chance, 10, then=(held,)).to_dict()
    as_the_page_rounds = math.floor(sent["win_chance"] * 100 + 0.5)  # JavaScript's Math.round
    assert as_the_page_rounds == points(chance)
    assert math.floor(sent["then"][0]["win_chance"] * 100 + 0.5) == points(chance)
