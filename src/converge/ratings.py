"""Glicko-2 ratings, as described in Mark Glickman's "Example of the Glicko-2 system" (2012).

A :class:`Rating` is a rating ``r``, a rating deviation ``rd`` (how uncertain ``r`` is) and a volatility
``vol`` (how erratic the player's results are). :func:`update` gives a player's rating after a rating
period from the results of the games they played in it; online play updates after every rated match (a
rating period of one game), which is what most online game sites do.

>>> me = Rating(1500.0, 200.0, 0.06)
>>> new = update(me, [(Rating(1400.0, 30.0), 1.0), (Rating(1550.0, 100.0), 0.0), (Rating(1700.0, 300.0), 0.0)])
>>> round(new.r, 2), round(new.rd, 2), round(new.vol, 6)
(1464.05, 151.52, 0.059996)

(Glickman prints r' = 1464.06 and sigma' = 0.05999: he converts the rounded mu' = -0.2069 back to the
Glicko scale, and cuts sigma' rather than rounding it.)

The scale is Elo's: 1500 is a newcomer, and 400 points are odds of about 10 to 1 between two players
whose ratings are both certain.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: Glickman's conversion between the Glicko scale and the Glicko-2 scale (400 / ln 10).
SCALE = 173.7178
#: A newcomer's rating, deviation and volatility (Glickman's suggestions).
DEFAULT_R = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOL = 0.06
#: The system constant: how much the volatility may change (Glickman: between 0.3 and 1.2).
TAU = 0.5
#: Convergence tolerance of the volatility iteration (Glickman's value).
EPSILON = 0.000001
#: A deviation never grows above a newcomer's.
MAX_RD = DEFAULT_RD


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the Glicko (Elo-like) scale."""

    r: float = DEFAULT_R
    rd: float = DEFAULT_RD
    vol: float = DEFAULT_VOL

    @property
    def mu(self) -> float:
        return (self.r - DEFAULT_R) / SCALE

    @property
    def phi(self) -> float:
        return self.rd / SCALE

    def expected(self, other: Rating) -> float:
        """The expected score (0..1) of this player against ``other``."""
        return _expected(self.mu, other.mu, other.phi)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, vol: float, delta: float, v: float, tau: float) -> float:
    """Step 5 of the algorithm: the Illinois iteration for the new volatility."""
    a = math.log(vol * vol)

    def f(x: float) -> float:
        ex = math.exp(x)
        spread = phi * phi + v + ex
        return ex * (delta * delta - spread) / (2.0 * spread * spread) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: Iterable[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after a rating period in which they scored ``score`` (1 win, 0.5 draw, 0 loss)
    against each ``opponent`` of ``results`` (opponents' ratings as they were before the period). With no
    results the deviation grows, as Glickman's step 6 says for a player who did not compete."""
    games = list(results)
    mu, phi = player.mu, player.phi
    if not games:
        rd = min(math.sqrt(phi * phi + player.vol * player.vol) * SCALE, MAX_RD)
        return Rating(player.r, rd, player.vol)
    inv_v = 0.0
    total = 0.0
    for opponent, score in games:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"a score is between 0 and 1, got {score}")
        g = _g(opponent.phi)
        e = _expected(mu, opponent.mu, opponent.phi)
        inv_v += g * g * e * (1.0 - e)
        total += g * (score - e)
    v = 1.0 / inv_v
    delta = v * total
    vol = _new_volatility(phi, player.vol, delta, v, tau)
    phi_star = math.sqrt(phi * phi + vol * vol)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * total
    return Rating(new_mu * SCALE + DEFAULT_R, min(new_phi * SCALE, MAX_RD), vol)


def update_pair(a: Rating, b: Rating, score_a: float, tau: float = TAU) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them in which ``a`` scored ``score_a``.

    >>> a, b = update_pair(Rating(), Rating(), 1.0)
    >>> round(a.r), round(b.r)
    (1662, 1338)
    """
    return update(a, [(b, score_a)], tau), update(b, [(a, 1.0 - score_a)], tau)
