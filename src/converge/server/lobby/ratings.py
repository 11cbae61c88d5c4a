"""Ratings on finish: a rated match changes its players' Glicko-2 ratings in the transaction that finishes it,
exactly once (the maths here, stored by :func:`converge.server.storage.lobby_store.record_result`); bots have
fixed ratings."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from converge.bots import BOTS, LEVELS
from converge.ratings import DEFAULT_VOL, Rating, update_pair
from converge.server.play.match.session import Session
from converge.server.storage import lobby_store as store
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server.lobby")

#: The bots' fixed ratings (docs/bots.md): random = 1000 by definition; greedy 1869 from `converge ladder`
#: (400 matches a pair). Medium and hard are rated from 400 matches each against their earlier selves
#: (`benchmarks/versus_previous.py`), whose ratings were measured: the earlier hard was 2239 (`converge
#: ladder`), the earlier medium 2110 (it beat greedy in 194 of 230 matches, greedy + 292 = 2161, and lost
#: 22 of 30 to the earlier hard, 2239 - 176 = 2063: the mean). With their half-greedy playouts medium beat
#: the earlier medium in 244 of 400 matches (+78: 2188) and hard the earlier hard in 264 of 400 (+115: 2354).
#: On the native search (issue 39) medium beat that medium in 101 of 200 (as strong: kept) and hard, at the
#: hint's budget, that hard at full strength in 277 of 400 (69.2%, 95% CI 64.6-73.6%: +141, at least +104):
#: 2354 + 141 = 2495.
#: Expert has no measured rating, so quick match never offers it and no match against it is rated.
BOT_RATINGS: dict[str, float] = {"beginner": 1000.0, "random": 1000.0, "easy": 1869.0, "greedy": 1869.0,
                                 "medium": 2188.0, "hard": 2495.0}
#: A bot's deviation: its rating is measured (``converge ladder``), fixed, and fairly certain.
BOT_RD = 50.0
#: The levels quick match may offer, weakest first.
OFFERED_BOTS = ("beginner", "easy", "medium", "hard")


def level_ratings(ratings: Mapping[str, float] = BOT_RATINGS) -> dict[str, int | None]:
    """Each level's fixed rating as players read it, weakest first; None where it was never measured."""
    return {level: round(ratings[level]) if level in ratings else None for level in LEVELS}


def closest_bot(rating: float) -> str:
    """The quick-match bot whose fixed rating is closest to ``rating``."""
    return min(OFFERED_BOTS, key=lambda b: (abs(BOT_RATINGS[b] - rating), BOT_RATINGS[b]))


def fixed_rating(bot: str, ratings: Mapping[str, float] = BOT_RATINGS) -> Rating | None:
    """A bot's fixed rating as an opponent's in Glicko-2 (None: never measured, as expert's)."""
    return Rating(float(ratings[bot]), BOT_RD, DEFAULT_VOL) if bot in ratings else None


def rate_on_finish(conn: Tx, session: Session, winner: int | None) -> None:
    """The hub's finish hook (inside the finishing transaction): rate the match if it is rated. A stand-in for
    a player who left does not count: the result is the player's. A tournament's match its loser never moved
    in (a no-show) is no game played, and rated no more than a forfeit is in chess."""
    if session.seating.event and winner is not None and not any(seat == 1 - winner
                                                                 for seat, _clock in session.row.action_clocks):
        return
    bots = {s.seat: fixed_rating(s.bot) for s in session.row.seats if s.bot is not None and not s.replaced}
    try:
        with conn.begin_nested():
            store.record_result(conn, session.id, winner, bots, update_pair)
        session.know_seating(*store.seat_players(conn, session.id))  # (the table shows the ratings' change)
    except (ArithmeticError, ValueError, KeyError, TypeError) as exc:  # a bug must not lose the end
        log.error("match %s: ratings not updated: %s", session.id, exc)


def _check_bot_ratings() -> None:
    unknown = [b for b in BOT_RATINGS if b not in BOTS]
    assert not unknown, unknown


_check_bot_ratings()
