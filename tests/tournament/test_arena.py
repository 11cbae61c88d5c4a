"""Arena (:mod:`converge.tournament.arena`): waiting players paired at once by rating, no immediate rematch
unless both waited, and the streak's double points."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from converge.tournament.arena import REMATCH_AFTER_S, Waiting, on_fire, pair_waiting, points
from converge.tournament.games import Game


def test_the_nearest_ratings_meet_and_the_one_who_waited_longer_moves_first() -> None:
    waiting = [Waiting("a", 2000, since=3), Waiting("b", 1990, since=1), Waiting("c", 1500, since=2),
               Waiting("d", 1480, since=0)]
    assert [(p.first, p.second) for p in pair_waiting(waiting, now=10)] == [("b", "a"), ("d", "c")]


def test_two_who_just_met_wait_for_another_unless_both_waited_long_enough() -> None:
    waiting = [Waiting("a", 2000, "b", since=0), Waiting("b", 1999, "a", since=0), Waiting("c", 1000, since=0)]
    pairs = pair_waiting(waiting, now=1)
    assert len(pairs) == 1 and {pairs[0].first, pairs[0].second} != {"a", "b"}
    alone = [Waiting("a", 2000, "b", since=0), Waiting("b", 1999, "a", since=0)]
    assert pair_waiting(alone, now=REMATCH_AFTER_S - 0.1) == []
    assert len(pair_waiting(alone, now=REMATCH_AFTER_S)) == 1


@given(st.lists(st.tuples(st.integers(800, 2800), st.sampled_from([None, "p0", "p1", "p2"]),
                          st.floats(0, 20)), min_size=0, max_size=30), st.floats(0, 40))
def test_every_waiting_player_is_paired_at_most_once_and_no_two_left_waiting_may_meet(
        rows: list[tuple[int, str | None, float]], now: float) -> None:
    waiting = [Waiting(f"p{i}", r, last, min(since, now)) for i, (r, last, since) in enumerate(rows)]
    pairs = pair_waiting(waiting, now)
    seated = [w for p in pairs for w in (p.first, p.second)]
    assert len(seated) == len(set(seated)) and set(seated) <= {w.ident for w in waiting}
    by = {w.ident: w for w in waiting}
    for p in pairs:
        a, b = by[p.first], by[p.second or ""]
        if a.last_opponent == b.ident or b.last_opponent == a.ident:
            assert now - a.since >= REMATCH_AFTER_S and now - b.since >= REMATCH_AFTER_S
    left = [w for w in waiting if w.ident not in seated]
    for i, a in enumerate(left):
        for b in left[i + 1:]:
            may = (a.last_opponent != b.ident and b.last_opponent != a.ident) or (
                now - a.since >= REMATCH_AFTER_S and now - b.since >= REMATCH_AFTER_S)
            assert not may, (a, b, pairs)


def test_a_win_scores_two_and_from_the_third_in_a_row_four_until_a_loss() -> None:
    results = ["first", "first", "first", "first", "second", "first"]  # a wins 4, loses, wins
    games = [Game(k, "a", f"x{k}", o) for k, o in enumerate(results, 1)]  # type: ignore[arg-type]
    assert points("a", games) == 2 + 2 + 4 + 4 + 0 + 2
    assert points("x5", games) == 2
    assert on_fire("a", games[:2]) and not on_fire("a", games[:5]) and not on_fire("a", games[:1])
