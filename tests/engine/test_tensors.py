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


def test_no_match_shows_a_player_more_events_than_its_playsets_bound() -> None:
    """The perfect-recall history's length, ``Playset.max_events_seen()``, is a bound: random matches of
    every playset stay within it, and each discard effect within ``max_effect_events()``."""
    from converge.engine.actions import DISCARD
    from converge.engine.events import DISCARDED, PLAY, RESOLVE

    rng = random.Random(7)
    most = 0
    for k, names in enumerate(all_playsets()):
        for seed in range(3):
            m = Match.new(list(names), seed=1000 * k + seed)
            while not m.is_terminal:
                m.apply(rng.choice(m.legal_actions()))
            bound, per_effect = m.playset.max_events_seen(), m.playset.max_effect_events()
            for viewer in (0, 1):
                seen = [e for e in m.events if e[1] < 0 or e[1] == viewer]
                assert len(seen) <= bound
                most = max(most, len(seen))
            start = -1
            for i, e in enumerate(m.events):
                if e[0] == PLAY and e[4] == DISCARD:
                    start = i
                elif e[0] == DISCARDED:  # the effect's events lie between (a Study's resolve included)
                    assert i - start - 1 <= per_effect, (names, m.events[start:i + 1])
                assert e[0] != RESOLVE or start >= 0
    assert most > 100  # the matches were real ones


@pytest.mark.parametrize("seed", [5, 6])
def test_state_texts_equal_the_texts_of_the_observation(seed: int) -> None:
    """The information-state strings written from the state are those of the viewer's observation."""
    from converge.adapters.encoding import event_token, observation_string
    from converge.engine.events import to_dict
    from converge.engine.texts import event_text, view_text

    kinds = set()
    for m in _states(100, seed):
        kinds.add(m.decision_kind)
        for viewer in (-1, 0, 1):
            assert view_text(m, viewer) == observation_string(m.observation(viewer))
        ids, skillsets = m.playset.card_ids, m.playset.skillsets
        assert [event_text(e, ids, skillsets) for e in m.events] == \
            [event_token(to_dict(e, ids, skillsets)) for e in m.events]
    assert {"select", "mode", "target", "over"} <= kinds


def test_a_history_longer_than_its_bound_is_refused_not_cut() -> None:
    """A perfect-recall history never drops an event: past its rows (an effect kind that logs more than its
    max_events says), writing raises."""
    import array

    from converge.engine.tensors import EVENT_FEATURES, write_events

    m = Match.new(["alchemist", "mechanist", "archivist"], seed=3)
    seen = len([e for e in m.events if e[1] < 0 or e[1] == 0])
    buf = array.array("f", bytes(4 * EVENT_FEATURES * seen))
    assert write_events(m, 0, 0, buf, 0, 0, 0, seen) == (len(m.events), seen)
    with pytest.raises(ValueError, match=f"more than {seen - 1} events"):
        write_events(m, 0, 0, array.array("f", bytes(4 * EVENT_FEATURES * seen)), 0, 0, 0, seen - 1)


@pytest.mark.parametrize("seed", [7, 8])
def test_a_views_tensors_are_the_adapters_tensors_of_its_player(seed: int) -> None:
    """``view_arrays(view)``, what an agent on the ladder can compute from its ``decide(view)``, equals what
    the environments give that player from the real match, in every kind of state and from both seats."""
    from converge.adapters.encoding import view_arrays

    for m in _states(60, seed):
        for player in (0, 1):
            obs, info = view_arrays(m.view(player))
            assert np.array_equal(obs, observation_array(m, player))
            assert np.array_equal(info, info_state_array(m, player))
