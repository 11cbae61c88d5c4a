"""Seeds that reach a player or a bot never lead to a match's seed (I2: it deals every card)."""

from __future__ import annotations

import argparse
import doctest

from converge.cli.common import bot_seed
from converge.engine import seeds


def test_docstring_examples() -> None:
    result = doctest.testmod(seeds)
    assert result.failed == 0 and result.attempted > 0


def test_a_bots_seed_is_fresh_unless_the_user_gave_the_match_a_seed() -> None:
    given, drawn = argparse.Namespace(seed=7), argparse.Namespace(seed=None)
    assert bot_seed(given, 7, 1) == bot_seed(given, 7, 1)  # the match can be played again from --seed 7
    assert bot_seed(given, 7, 1) != bot_seed(given, 7, 0)
    assert bot_seed(given, 7, 1) not in range(0, 1000)  # not the match's seed give or take a little
    assert len({bot_seed(drawn, 7, 1) for _ in range(5)}) == 5  # no --seed: nothing to derive it from


def test_a_random_match_seed_has_63_bits() -> None:
    """A seed of a few billion could be found by dealing every one and comparing with one's own hand."""
    assert max(seeds.new_seed() for _ in range(50)) > 2**60
