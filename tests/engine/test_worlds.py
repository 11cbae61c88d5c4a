"""Every sampled world can be played to its end, from either seat, at any decision.

``make test`` samples a few thousand worlds; ``CONVERGE_WORLDS=100000 pytest tests/engine/test_worlds.py`` (run by
``make fuzz``) samples that many."""

from __future__ import annotations

import os
import random

from converge import Match
from converge.engine import all_playsets

WORLDS = int(os.environ.get("CONVERGE_WORLDS", "5000"))


def test_sampled_worlds_from_either_seat_at_any_decision_play_to_the_end() -> None:
    rng = random.Random(2026)
    playsets = all_playsets()
    done = kinds = 0
    seen: set[str] = set()
    k = 0
    while done < WORLDS:
        match = Match.new(list(playsets[k % len(playsets)]), seed=k, log_events=False)
        k += 1
        while not match.is_terminal and done < WORLDS:
            if rng.random() < 0.35:
                for seat in (0, 1):
                    world = match.sample_world(seat, rng, chance=seat == 1)
                    assert world.observation(seat) == {**match.observation(seat), "events": []}
                    while not world.is_terminal:
                        legal = world.legal_actions()
                        assert legal, world.position() if not world.is_chance_node else "chance"
                        world.apply(legal[int(rng.random() * len(legal))])
                    done += 1
                seen.add(match.decision_kind)
            match.apply(rng.choice(match.legal_actions()))
    kinds = len(seen)
    assert kinds >= 5, seen  # select, mode, target, faction, second (and skillset) were all sampled
