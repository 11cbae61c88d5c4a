"""Every one of the 84 playsets plays 200 greedy-vs-random matches to the end without an error.

The 16,800 matches are spread over the machine's cores (each playset is independent and seeded, so the
result does not depend on how they are spread).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

from converge.bots import GreedyBot, RandomBot
from converge.engine import Playset, all_playsets
from converge.engine.sizes import MAX_ROUNDS, ROUNDS_TO_WIN
from converge.simulation.runner import play_match

MATCHES = 200


def play_playset(names: tuple[str, ...]) -> tuple[tuple[str, ...], int, int, list[str]]:
    """Play the matches of one playset; return (names, greedy wins, rounds, problems found)."""
    playset = Playset.from_names(names)
    greedy, rand = GreedyBot(seed=17), RandomBot(seed=18)
    wins = rounds = 0
    problems: list[str] = []
    for i in range(MATCHES):
        seats = (greedy, rand) if i % 2 == 0 else (rand, greedy)
        try:
            m = play_match(playset, seed=i, bots=seats)
        except Exception as exc:  # report every failing match, not just the first
            problems.append(f"{'/'.join(names)} seed {i}: {type(exc).__name__}: {exc}")
            continue
        results = m.round_results
        if not (m.is_terminal and m.winner in (0, 1) and m.round_wins[m.winner] == ROUNDS_TO_WIN
                and ROUNDS_TO_WIN <= len(results) <= MAX_ROUNDS and sum(m.round_wins) == len(results)):
            problems.append(f"{'/'.join(names)} seed {i}: bad end {m.round_wins} {results}")
        wins += m.winner == i % 2
        rounds += len(results)
    return names, wins, rounds, problems


def test_all_84_playsets_play_200_greedy_vs_random_matches() -> None:
    playsets = all_playsets()
    assert len(playsets) == 84
    workers = max(1, min(len(playsets), os.cpu_count() or 1))
    if workers == 1:
        outcomes = [play_playset(names) for names in playsets]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            outcomes = list(pool.map(play_playset, playsets, chunksize=1))
    problems = [p for *_, found in outcomes for p in found]
    assert not problems, "\n".join(problems[:20])
    assert [o[0] for o in outcomes] == playsets
    total_wins = sum(o[1] for o in outcomes)
    assert total_wins > 0.8 * MATCHES * len(playsets)
    # the greedy bot wins the majority on every playset: none is broken so that skill does not matter
    weakest = min(outcomes, key=lambda o: o[1])
    assert weakest[1] > MATCHES // 2, weakest[:3]
