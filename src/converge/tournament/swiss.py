"""Swiss pairings by the FIDE Dutch system (FIDE Handbook C.04.3), through ``caissify-pairings``, a Python
implementation cross-checked against bbpPairings, the FIDE-endorsed one (tested here against tournaments
bbpPairings paired: ``tests/tournament/test_swiss.py``).

The game's "colour" is who moves first in the match (and so starts with the artifact): white is the first
player. What the rules read from the games so far is derived here, as the endorsed programs derive it from a
tournament report: a player's score (a bye scores its points, a forfeit counts for the winner), their colours
in games played, their floats (a game against a higher score is an up-float, a lower one a down-float, a bye
or a forfeit won a down-float), their byes, and the pairs that have played (a forfeit is no meeting: the two
may be paired again). In short, by the rules' priorities: no two players meet twice; players of equal score
meet where they can, the fewest players pulled to another score group; nobody gets a second bye, and the bye
goes to the lowest-ranked player who had none; and colours alternate, so that each player's count of first
moves and second moves differs by at most one wherever the pairing allows."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from converge.tournament.games import Entrant, Game, scores, seeded

#: Who moves first in round one at the top seed's table (the Dutch rules' "initial colour"; it alternates
#: down the tables).
FirstMover = Literal["top", "other"]


class PairingError(ValueError):
    """No pairing exists under the rules (e.g. every remaining pair has met): the round cannot be paired."""


@dataclass(frozen=True)
class History:
    """What the Dutch rules read of one player before a round: ``number`` is their pairing number (their
    seed, from 1)."""

    number: int
    ident: str
    rating: float
    score: float
    colours: tuple[str, ...]  #: "white" (moved first) or "black", one per game played
    floats: tuple[str, ...]  #: "up", "down" or "none", one per round with a game, a bye or a forfeit
    byes: int
    forfeits_won: int

    def doc(self) -> dict[str, object]:
        """As the pairing library reads a player."""
        return {"id": self.number, "name": self.ident, "score": self.score, "rating": self.rating,
                "starting_number": self.number, "color_hist": list(self.colours),
                "float_history": list(self.floats), "bye_count": self.byes,
                "forfeit_win_count": self.forfeits_won}

    @property
    def difference(self) -> int:
        """First moves less second moves."""
        return self.colours.count("white") - self.colours.count("black")

    def preference(self) -> tuple[int, str | None]:
        """The colour this player should get (the Dutch rules' A.6): its strength (3 absolute, 2 strong,
        1 mild, 0 none) and the colour."""
        if not self.colours:
            return 0, None
        last_two = self.colours[-2:]
        if self.difference > 1 or last_two == ("white", "white"):
            return 3, "black"
        if self.difference < -1 or last_two == ("black", "black"):
            return 3, "white"
        if self.difference in (1, -1):
            return 2, "black" if self.difference == 1 else "white"
        return 1, "black" if self.colours[-1] == "white" else "white"

    def outranks(self, other: History) -> bool:
        """Ranked above ``other`` (the Dutch rules' ranking: the higher score, then the lower number)."""
        return (-self.score, self.number) < (-other.score, other.number)


@dataclass(frozen=True)
class Pairing:
    """One table of a round: ``first`` moves first; ``second`` None is a bye."""

    first: str
    second: str | None


def pair_round(entrants: Sequence[Entrant], games: Sequence[Game], round_no: int, rounds: int,
               initial: FirstMover = "top") -> list[Pairing]:
    """The pairings of round ``round_no`` of ``rounds`` among ``entrants`` (those still in the event), from
    the ``games`` of the rounds before it (byes and forfeits included), tables in order."""
    from caissify_pairings import generate_pairings  # (the server's extra: imported where it is needed)

    order = seeded(entrants)
    if len(order) < 2:
        raise PairingError("a round needs two players or more")
    number = {e.ident: n for n, e in enumerate(order, 1)}
    earlier = [g for g in games if g.round < round_no]
    history = {n: _history(e, n, earlier) for e, n in zip(order, number.values(), strict=True)}
    met = {(number[g.first], number[g.second]) for g in earlier
           if g.played and g.second is not None and g.first in number and g.second in number}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (its warning of empty float histories: ours are derived, and empty)
        try:
            made = generate_pairings("dutch", [h.doc() for h in history.values()], met, round_no, rounds,
                                     initial_color="white" if initial == "top" else "black",
                                     max_byes_per_player=1)
        except Exception as exc:
            raise PairingError(f"round {round_no} cannot be paired: {exc}") from None
    byes = [history[int(table["white_id"])] for table in made if table.get("black_id") is None]
    if len(byes) > len(order) % 2 or any(h.byes for h in byes):  # (the library's way out when none is legal)
        raise PairingError(f"round {round_no} cannot be paired: every way of pairing the players would pair two "
                           "of them again, give one a second bye or break the rules of who moves first")
    tables: list[Pairing] = []
    for table in sorted(made, key=lambda p: int(p["table"])):
        a, b = history[int(table["white_id"])], table.get("black_id")
        if b is None:
            tables.append(Pairing(a.ident, None))
            continue
        first, second = _first_mover(a, history[int(b)], initial)
        tables.append(Pairing(first.ident, second.ident))
    return tables


def _first_mover(a: History, b: History, initial: FirstMover) -> tuple[History, History]:
    """Who of a pair moves first (white), by the Dutch rules' colour allocation (E.1–E.5): both preferences
    granted; else the stronger one (both absolute: the wider colour difference); else alternate from the last
    game where their colours differed; else the higher-ranked player's preference; else by the higher-ranked
    player's pairing number (odd: the initial colour)."""
    (sa, ca), (sb, cb) = a.preference(), b.preference()

    def give(player: History, colour: str | None) -> tuple[History, History]:
        other = b if player is a else a
        return (player, other) if colour == "white" else (other, player)

    if ca != cb:
        return give(a, ca) if ca is not None else give(b, cb)
    if sa != sb:
        return give(a, ca) if sa > sb else give(b, cb)
    if sa == 3 and abs(a.difference) != abs(b.difference):
        return give(a, ca) if abs(a.difference) > abs(b.difference) else give(b, cb)
    for x, y in zip(reversed(a.colours), reversed(b.colours), strict=False):
        if x != y:  # alternate from the last time they had different colours
            return give(a, "black" if x == "white" else "white")
    higher = a if a.outranks(b) else b
    if ca is not None:
        return give(higher, ca)
    return give(higher, "white" if (higher.number % 2 == 1) == (initial == "top") else "black")


def _history(entrant: Entrant, number: int, games: Sequence[Game]) -> History:
    """What the Dutch rules read of one player from the ``games`` before the round to pair."""
    me = entrant.ident
    before: dict[int, dict[str, float]] = {}  # round -> everyone's score before it (for the floats)
    colours: list[str] = []
    floats: list[str] = []
    byes = forfeits_won = 0
    score = 0.0
    for game in sorted((g for g in games if me in (g.first, g.second)), key=lambda g: g.round):
        other = game.opponent(me)
        got = game.points(me)
        if game.bye:
            byes += 1
            floats.append("down")
        elif game.forfeit:
            forfeits_won += got > 0
            floats.append("down" if got > 0 else "none")
        elif game.outcome != "pending" and other is not None:
            colours.append("white" if game.first == me else "black")
            table = before.setdefault(game.round, _scores_before(games, game.round))
            mine, theirs = table.get(me, 0.0), table.get(other, 0.0)
            floats.append("down" if mine > theirs else "up" if mine < theirs else "none")
        score += got
    return History(number, me, entrant.rating, score, tuple(colours), tuple(floats), byes, forfeits_won)


def _scores_before(games: Sequence[Game], round_no: int) -> dict[str, float]:
    everyone = {p for g in games for p in (g.first, g.second) if p is not None}
    return scores((Entrant(p, 0) for p in everyone), [g for g in games if g.round < round_no])
