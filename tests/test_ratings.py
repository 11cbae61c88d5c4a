"""Glicko-2 (converge.ratings): Glickman's worked example to its published precision, and invariants."""

from __future__ import annotations

import doctest
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from converge import ratings
from converge.ratings import Rating, update, update_pair


def test_glickman_worked_example_to_published_precision() -> None:
    """Glickman, "Example of the Glicko-2 system" (2012): a player rated 1500, RD 200, volatility 0.06
    beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300), with tau = 0.5."""
    before = Rating(1500.0, 200.0, 0.06)
    after = update(
        before, [(Rating(1400.0, 30.0), 1.0), (Rating(1550.0, 100.0), 0.0), (Rating(1700.0, 300.0), 0.0)], tau=0.5
    )
    # Published on the Glicko-2 scale: mu' = -0.2069, phi' = 0.8722, sigma' = 0.05999.
    assert round(after.mu, 4) == -0.2069
    assert round(after.phi, 4) == 0.8722
    assert abs(after.vol - 0.05999) < 0.00001  # Glickman cuts the fifth decimal (0.059996)
    # Published on the Glicko scale: r' = 1464.06 (from the rounded mu'), RD' = 151.52.
    assert round(after.rd, 2) == 151.52
    assert abs(after.r - 1464.06) <= 0.01
    assert round(-0.2069 * ratings.SCALE + 1500, 2) == 1464.06


def test_module_examples() -> None:
    failed, tried = doctest.testmod(ratings)
    assert tried >= 2 and failed == 0


def test_no_games_widens_the_deviation_up_to_a_newcomers() -> None:
    quiet = update(Rating(1700.0, 50.0, 0.06), [])
    # Step 6 of the paper: phi* = sqrt(phi^2 + sigma^2), on the Glicko-2 scale.
    expected = ratings.SCALE * math.sqrt((50.0 / ratings.SCALE) ** 2 + 0.06**2)
    assert quiet.r == 1700.0 and quiet.rd == pytest.approx(expected, abs=1e-9)
    assert 51.0 < quiet.rd < 51.2
    assert update(Rating(1500.0, 349.0, 0.5), []).rd == ratings.MAX_RD


def test_scores_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        update(Rating(), [(Rating(), 2.0)])


finite = st.floats(min_value=800.0, max_value=2400.0)
deviation = st.floats(min_value=30.0, max_value=350.0)
volatility = st.floats(min_value=0.03, max_value=0.1)


@given(finite, deviation, volatility, finite, deviation, volatility)
def test_winner_rises_loser_falls_and_both_become_surer(
    ra: float, da: float, va: float, rb: float, db: float, vb: float
) -> None:
    a, b = Rating(ra, da, va), Rating(rb, db, vb)
    a2, b2 = update_pair(a, b, 1.0)
    assert a2.r > a.r and b2.r < b.r
    assert a2.rd <= max(a.rd, ratings.MAX_RD) and b2.rd <= max(b.rd, ratings.MAX_RD)
    assert 0.0 < a.expected(b) < 1.0
    # Equal certainty: the two expectations add up to one.
    assert abs(Rating(ra, da).expected(Rating(rb, da)) + Rating(rb, da).expected(Rating(ra, da)) - 1.0) < 1e-12


@given(finite, deviation, finite, deviation)
def test_a_draw_moves_ratings_toward_each_other(ra: float, da: float, rb: float, db: float) -> None:
    a, b = Rating(ra, da), Rating(rb, db)
    a2, b2 = update_pair(a, b, 0.5)
    if ra < rb:
        assert a2.r >= a.r and b2.r <= b.r
    elif ra > rb:
        assert a2.r <= a.r and b2.r >= b.r
