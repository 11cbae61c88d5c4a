"""Round robin: everyone meets everyone once, by the FIDE Berger tables (FIDE Handbook C.05, Annex 1), through
``caissify-pairings`` (checked against the published tables in ``tests/tournament/test_round_robin.py``).

The players are numbered by seed (:func:`~converge.tournament.games.seeded`); with an odd number, a phantom
player completes the table and whoever meets it has the round's bye. The first-named player of each pair moves
first (white in the tables)."""

from __future__ import annotations

from collections.abc import Sequence

from converge.tournament.games import Entrant, seeded
from converge.tournament.swiss import Pairing

#: Up to this many players: a round robin of more is a long evening (n - 1 rounds).
MAX_PLAYERS = 10


def rounds_for(players: int) -> int:
    """How many rounds a round robin of ``players`` takes."""
    return players - 1 if players % 2 == 0 else players


def pair_round(entrants: Sequence[Entrant], round_no: int) -> list[Pairing]:
    """The pairings of round ``round_no`` (from 1) among ``entrants`` (fixed when the event started: a
    round robin's table does not change with results)."""
    from caissify_pairings.engines.round_robin import berger_round

    order = seeded(entrants)
    n = len(order) + len(order) % 2
    if n < 2 or not 1 <= round_no <= n - 1:
        raise ValueError(f"a round robin of {len(order)} players has rounds 1 to {rounds_for(len(order))}")
    table: list[Pairing] = []
    bye: Pairing | None = None
    for white, black in berger_round(n, round_no):
        a = order[white - 1].ident if white <= len(order) else None
        b = order[black - 1].ident if black <= len(order) else None
        if a is None or b is None:
            bye = Pairing(a or b or "", None)
        else:
            table.append(Pairing(a, b))
    return table + ([bye] if bye is not None else [])
