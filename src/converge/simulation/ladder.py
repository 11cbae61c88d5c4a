"""A strength ladder: a round-robin between bots with fixed seeds, win rates with 95% intervals, Elo.

Every match of every pairing is drawn from the ladder's seed alone (playset, deal, bots' seeds, seats
alternating), so a ladder is reproducible whatever the number of worker processes — exactly so for
bots whose budget is in simulations.

A contestant is a bot name of :data:`converge.bots.BOTS` or ``ismcts:N`` (N simulations a decision), or
``openspiel``: OpenSpiel's own Python ``ISMCTSBot`` playing through the OpenSpiel adapter (needs the ``rl``
extra), given a time per decision.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from converge.bots import BOTS, Bot, is_bot_name, make_bot
from converge.bots.external import is_import_path, load_agent
from converge.engine.playset import all_playsets
from converge.engine.state import Match
from converge.extensions import load_extensions, named_plugins
from converge.simulation.runner import wilson_interval

View = TypeVar("View")

OPENSPIEL = "openspiel"


@dataclass(frozen=True)
class Task:
    """One match of a pairing: contestant ``a`` sits in seat ``a_seat``."""

    pair: int
    index: int
    a: str
    b: str
    playset: tuple[str, ...]
    seed: int
    a_seat: int
    openspiel_seconds: float


@dataclass
class Outcome:
    pair: int
    index: int
    a_won: bool
    rounds: int
    times: dict[str, list[float]]  # seconds per decision, by contestant


@dataclass
class Pairing:
    """The results of one pair of contestants."""

    a: str
    b: str
    matches: int = 0
    a_wins: int = 0
    rounds: int = 0

    @property
    def rate(self) -> float:
        return self.a_wins / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.a_wins, self.matches)


@dataclass
class LadderResult:
    contestants: list[str]
    seed: int
    pairings: list[Pairing]
    times: dict[str, list[float]] = field(default_factory=dict)

    def elo(self) -> dict[str, float]:
        return elo_ratings(self.contestants, [(p.a, p.b, p.a_wins, p.matches) for p in self.pairings])

    def to_dict(self) -> dict[str, object]:
        return {
            "contestants": self.contestants, "seed": self.seed,
            "pairings": [{"a": p.a, "b": p.b, "matches": p.matches, "a_wins": p.a_wins,
                          "a_win_rate": round(p.rate, 4), "ci95": [round(x, 4) for x in p.interval]}
                         for p in self.pairings],
            "elo": {k: round(v, 1) for k, v in self.elo().items()},
            "decision_seconds": {k: time_summary(v) for k, v in self.times.items()},
        }


def time_summary(times: Sequence[float]) -> dict[str, float]:
    if not times:
        return {"decisions": 0, "median": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(times)
    return {"decisions": len(ordered), "median": round(statistics.median(ordered), 4),
            "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 4),
            "max": round(ordered[-1], 4)}


def elo_ratings(names: Sequence[str], results: Iterable[tuple[str, str, int, int]],
                anchor: str = "random") -> dict[str, float]:
    """Elo ratings fitted to pairwise results (Bradley–Terry by minorisation–maximisation).

    Each pairing gets half a win each way as a prior, so a clean sweep stays finite. ``anchor`` (if
    present, else the first name) is rated 1000.

    >>> r = elo_ratings(["random", "greedy"], [("greedy", "random", 90, 100)])
    >>> round(r["greedy"] - r["random"])
    376
    """
    wins = {name: 0.0 for name in names}
    games: dict[tuple[str, str], float] = {}
    for a, b, a_wins, played in results:
        wins[a] += a_wins + 0.5
        wins[b] += played - a_wins + 0.5
        key = (a, b) if a < b else (b, a)
        games[key] = games.get(key, 0.0) + played + 1
    strength = {name: 1.0 for name in names}
    for _ in range(2000):
        new: dict[str, float] = {}
        for name in names:
            denom = sum(g / (strength[name] + strength[other]) for (x, y), g in games.items()
                        for other in ((y,) if x == name else (x,) if y == name else ()))
            new[name] = wins[name] / denom if denom else strength[name]
        scale = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        new = {name: v / scale for name, v in new.items()}
        done = max(abs(new[name] - strength[name]) for name in names) < 1e-10
        strength = new
        if done:
            break
    base = anchor if anchor in strength else names[0]
    return {name: 1000 + 400 * math.log10(strength[name] / strength[base]) for name in names}


def plan(contestants: Sequence[str], n: int, seed: int, playset: Sequence[str] | None = None,
         openspiel_seconds: float = 1.0) -> list[Task]:
    """Every match of the ladder, drawn from ``seed``: each pair plays ``n`` matches, seats alternating."""
    choices = [tuple(playset)] if playset else all_playsets()
    tasks = []
    pair = 0
    for i, a in enumerate(contestants):
        for b in contestants[i + 1:]:
            rng = random.Random(f"converge-ladder:{seed}:{a}:{b}")
            for k in range(n):
                tasks.append(Task(pair, k, a, b, choices[rng.randrange(len(choices))], rng.randrange(2**62),
                                  k % 2, openspiel_seconds))
            pair += 1
    return tasks


def _timed(choose: Callable[[View], int], name: str, times: dict[str, list[float]]) -> Callable[[View], int]:
    def run(view: View) -> int:
        start = time.perf_counter()
        action = choose(view)
        times.setdefault(name, []).append(time.perf_counter() - start)
        return action

    return run


def contestant(name: str, seed: int) -> Bot:
    """A ladder contestant: a bot by name, or an agent by its import path (:mod:`converge.bots.external`)."""
    return load_agent(name, seed) if is_import_path(name) else make_bot(name, seed)


def run_task(task: Task) -> Outcome:
    """Play one match of the ladder (in a worker process or here)."""
    times: dict[str, list[float]] = {}
    names = (task.a, task.b) if task.a_seat == 0 else (task.b, task.a)
    if OPENSPIEL in names:
        from converge.adapters.openspiel_bot import play_with_openspiel

        winner, rounds = play_with_openspiel(task.playset, task.seed, names, task.openspiel_seconds, times)
    else:
        bots = [contestant(name, task.seed + seat) for seat, name in enumerate(names)]
        choosers = [_timed(bot.decide, name, times) for bot, name in zip(bots, names, strict=True)]
        match = Match.new(list(task.playset), seed=task.seed, log_events=False)
        while not match.is_terminal:
            seat = match.current_player
            match.apply(choosers[seat](match.view(seat)), seat)
        winner, rounds = match.winner, match.rounds_finished
    return Outcome(task.pair, task.index, winner == task.a_seat, rounds, times)


def _outcomes(tasks: list[Task], workers: int) -> Iterator[Outcome]:
    if workers <= 1:
        yield from map(run_task, tasks)
        return
    # (the workers load the extensions this process loaded, as every process of converge does)
    with ProcessPoolExecutor(max_workers=workers, initializer=load_extensions,
                             initargs=(named_plugins(),)) as pool:
        yield from pool.map(run_task, tasks, chunksize=1)


def run_ladder(contestants: Sequence[str], n: int, seed: int = 1, workers: int = 1,
               playset: Sequence[str] | None = None, openspiel_seconds: float = 1.0,
               on_outcome: Callable[[int, int], None] | None = None) -> LadderResult:
    """Play the whole round-robin and gather the results (``on_outcome(done, total)`` reports progress)."""
    names = list(contestants)
    for name in names:
        if is_import_path(name):
            load_agent(name)  # (here first: a module that does not import is said once, before any match)
        elif name != OPENSPIEL and not is_bot_name(name):
            raise ValueError(f"unknown contestant {name!r} (known: {', '.join([*sorted(BOTS), OPENSPIEL])}, "
                             "ismcts:N, or an agent's import path such as mypkg.agents:PPOAgent)")
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError("a ladder needs at least two different contestants")
    tasks = plan(names, n, seed, playset, openspiel_seconds)
    pairings = [Pairing(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    result = LadderResult(names, seed, pairings)
    for done, outcome in enumerate(_outcomes(tasks, workers), start=1):
        p = pairings[outcome.pair]
        p.matches += 1
        p.a_wins += outcome.a_won
        p.rounds += outcome.rounds
        for name, t in outcome.times.items():
            result.times.setdefault(name, []).extend(t)
        if on_outcome is not None:
            on_outcome(done, len(tasks))
    return result
