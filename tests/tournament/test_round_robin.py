"""Round robin (:mod:`converge.tournament.round_robin`): the FIDE Berger tables as published (FIDE Handbook
C.05, Annex 1), everyone meeting everyone once, and a bye each for an odd number of players."""

from __future__ import annotations

from itertools import combinations

import pytest

pytest.importorskip("caissify_pairings")

from converge.tournament.games import Entrant
from converge.tournament.round_robin import MAX_PLAYERS, pair_round, rounds_for

#: The published tables: round by round, "white-black" by pairing number.
BERGER = {
    4: ["1-4 2-3", "4-3 1-2", "2-4 3-1"],
    6: ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"],
    8: ["1-8 2-7 3-6 4-5", "8-5 6-4 7-3 1-2", "2-8 3-1 4-7 5-6", "8-6 7-5 1-4 2-3", "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4", "4-8 5-3 6-2 7-1"],
}


def _entrants(n: int) -> list[Entrant]:
    return [Entrant(f"p{i}", 2000 - i, i) for i in range(1, n + 1)]  # (seeded in number order)


@pytest.mark.parametrize("n", sorted(BERGER))
def test_the_published_berger_tables_reproduce(n: int) -> None:
    for rnd, table in enumerate(BERGER[n], 1):
        made = [f"{p.first[1:]}-{p.second[1:]}" for p in pair_round(_entrants(n), rnd) if p.second]
        assert sorted(made) == sorted(table.split()), (n, rnd)


@pytest.mark.parametrize("n", range(2, MAX_PLAYERS + 1))
def test_everyone_meets_everyone_once_and_an_odd_field_gives_each_player_one_bye(n: int) -> None:
    entrants = _entrants(n)
    met: list[frozenset[str]] = []
    byes: list[str] = []
    firsts = dict.fromkeys((e.ident for e in entrants), 0)
    for rnd in range(1, rounds_for(n) + 1):
        pairs = pair_round(entrants, rnd)
        seated = [w for p in pairs for w in (p.first, p.second) if w]
        assert sorted(seated) == sorted(e.ident for e in entrants)
        for p in pairs:
            if p.second is None:
                byes.append(p.first)
            else:
                met.append(frozenset((p.first, p.second)))
                firsts[p.first] += 1
    assert sorted(met, key=sorted) == sorted((frozenset(c) for c in combinations(firsts, 2)), key=sorted)
    assert sorted(byes) == (sorted(firsts) if n % 2 else [])
    games = n - 1  # (each plays everyone else once; an odd field sits out one round)
    assert all(abs(2 * f - games) <= 1 for f in firsts.values()), firsts  # first moves balanced


def test_a_round_outside_the_table_is_refused() -> None:
    with pytest.raises(ValueError, match="rounds 1 to 3"):
        pair_round(_entrants(4), 4)
