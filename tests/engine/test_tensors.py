"""Tensors written straight from the state are exactly the tensors of the player's observation."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numpy")

from converge import Match
from converge.adapters.encoding import info_state_array, legal_array, observation_array
from converge.engine import all_playsets
from tests.tensor_oracle import Encoder


def _states(count: int, seed: int) -> list[Match]:
    """Random states of random matches (every kind of decision, and finished matches)."""
    playsets = all_playsets()
    rng = random.Random(seed)
    out = []
    for k in range(count):
        m = Match.new(list(playsets[(k * 7 + seed) % len(playsets)]), seed=k + 1000 * seed)
        for _ in range(rng.randrange(0, 160)):
            if m.is_terminal:
                break
            m.apply(rng.choice(m.legal_actions()))
        out.append(m)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_state_tensors_equal_observation_tensors(seed: int) -> None:
    kinds = set()
    for m in _states(120, seed):
        encoder = Encoder(m.playset.card_ids, m.playset.skillsets)
        kinds.add(m.decision_kind)
        for player in (0, 1):
            for public in (False, True):
                obs = m.observation(-1 if public else player)
                fast, slow = observation_array(m, player, public), encoder.observation_tensor(obs, player)
                assert np.array_equal(fast, slow)
                fast, slow = info_state_array(m, player, public), encoder.info_state_tensor(obs, player)
                assert np.array_equal(fast, slow)
            assert np.array_equal(legal_array(m, player), Encoder.legal_mask(m.observation(player), player))
    assert {"select", "mode", "target", "over"} <= kinds


def test_state_tensors_change_with_no_hidden_card() -> None:
    rng = random.Random(4)
    for m in _states(60, 4):
        for player in (0, 1):
            other = m.redacted(player, rng)
            assert np.array_equal(observation_array(m, player), observation_array(other, player))
            assert np.array_equal(info_state_array(m, player), info_state_array(other, player))


def test_each_call_returns_a_new_writable_array() -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    a, b = observation_array(m, 0), observation_array(m, 0)
    a[0] = 5.0
    assert b[0] != 5.0 and a.flags.writeable and a.dtype == np.float32
