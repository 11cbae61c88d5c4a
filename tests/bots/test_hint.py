"""The hint at every step of a play: a card's chance is the best chance of how it can be played, and the
next step's options come from the same search."""

from __future__ import annotations

import random

from converge import Match
from converge.bots.hint import follow_on, hint
from converge.engine.playset import all_playsets


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
        options = hint(view, simulations=300, seconds=None, seed=1)
        assert [o.win_chance for o in options] == sorted((o.win_chance for o in options), reverse=True)
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
