"""The engine benchmark: random-playout throughput and the cost of the calls search makes most.

Throughput is measured on one core in complete rounds per second of CPU time: each playout starts from a copy
(without event log or history) of a fresh match at the start of round 1 and plays uniformly random legal
actions to the end of the match; rounds are counted from ``round_results``. It is measured twice: on the
native core (:mod:`converge.engine.native`, what searches and simulations play on), and on the engine, its
specification (what a match is played on). Each figure is the median of several runs. The strong search's
rate is its simulations per second of CPU time, in one part (one core), on the native core where it is built.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import converge.engine.state as state_module
from converge.engine.playset import SETS, Playset
from converge.engine.state import Match

if TYPE_CHECKING:
    from converge.engine.native import NativeState

#: How many different fresh deals the playouts cycle through.
START_STATES = 8


@dataclass
class BenchResult:
    playset: tuple[str, ...]
    compiled: bool
    rounds_per_run: int
    runs: list[float]  # rounds per second, one per run
    clone_us: float
    legal_actions_us: float
    greedy_us: float | None = None
    ismcts_rate: float | None = None
    native_runs: list[float] | None = None  # rounds per second on the native core (None: not built)

    @property
    def engine_rounds_per_second(self) -> float:
        return statistics.median(self.runs)

    @property
    def rounds_per_second(self) -> float:
        """The fastest path's: the native core's where it is built, else the engine's."""
        return statistics.median(self.native_runs) if self.native_runs else self.engine_rounds_per_second

    def to_dict(self) -> dict[str, object]:
        return {"playset": list(self.playset), "compiled_engine": self.compiled,
                "native_core": bool(self.native_runs),
                "rounds_per_run": self.rounds_per_run, "rounds_per_second": round(self.rounds_per_second),
                "engine_rounds_per_second": round(self.engine_rounds_per_second),
                "native_runs": [round(r) for r in self.native_runs or []],
                "runs": [round(r) for r in self.runs], "clone_us": round(self.clone_us, 3),
                "legal_actions_us": round(self.legal_actions_us, 3),
                "greedy_decision_us": None if self.greedy_us is None else round(self.greedy_us, 1),
                "ismcts_simulations_per_second": None if self.ismcts_rate is None else round(self.ismcts_rate),
                "python": sys.version.split()[0]}


def engine_is_compiled() -> bool:
    """True when the engine's hot module is the mypyc-compiled one."""
    return not str(state_module.__file__).endswith(".py")


def playout_run(starts: Sequence[Match], rounds: int, rng: random.Random) -> float:
    """Rounds per second (of CPU time) of random playouts on the engine until at least ``rounds`` rounds are
    complete."""
    done = 0
    i = 0
    begin = time.process_time()
    while done < rounds:
        m = starts[i % len(starts)].clone(history=False, events=False)
        m.random_playout(rng)
        done += m.rounds_finished
        i += 1
    return done / (time.process_time() - begin)


def native_playout_run(starts: Sequence[NativeState], rounds: int, seed: int) -> float:
    """The same on the native core (``starts``: native states carrying their later deals)."""
    from converge.engine.native import core

    begin = time.process_time()
    done = core.random_rounds(starts, rounds, seed)
    return float(done) / (time.process_time() - begin)


def native_starts(matches: Sequence[Match]) -> list[NativeState] | None:
    """The matches in the native core, each with the deals of its later rounds (None: the core is not built)."""
    from converge.engine import native
    from converge.engine.state import shuffled_deal

    if not native.available():
        return None
    return [native.state_of(m, deals=[shuffled_deal(m.seed, r) for r in (1, 2, 3)]) for m in matches]


def _per_call_us(fn: Callable[[], object], repeats: int, number: int) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeats)) / number * 1e6


def mid_game(playset: Playset, seed: int = 1, actions: int = 14) -> Match:
    """A typical state for per-call timings: a few random plays into round 1 (goals and factions in play)."""
    m = Match.new(playset, seed, log_events=False)
    rng = random.Random(seed)
    for _ in range(actions):
        legal = m.legal_actions()
        if m.is_terminal or not legal:
            break
        m.apply(legal[rng.randrange(len(legal))])
    return m


def greedy_decision_us(playset: Playset, matches: int = 20) -> float:
    """Mean time of one greedy-bot decision in greedy-vs-random matches."""
    from converge.bots import GreedyBot, RandomBot

    spent, decisions = 0.0, 0
    for seed in range(matches):
        m = Match.new(playset, seed, log_events=False)
        bots = (GreedyBot(seed), RandomBot(seed))
        seat = seed % 2
        while not m.is_terminal:
            p = m.current_player
            if p == seat:
                t = time.perf_counter()
                a = bots[0].decide(m.view(p))
                spent += time.perf_counter() - t
                decisions += 1
            else:
                a = bots[1].decide(m.view(p))
            m.apply(a)
    return spent / max(1, decisions) * 1e6


def ismcts_rate(playset: Playset, positions: int = 12, simulations: int = 3000) -> float:
    """The strong search's simulations per second of CPU time, in one part, over decisions at a few positions a
    few random plays into matches."""
    from converge.bots import ISMCTSBot

    done, spent = 0, 0.0
    for k in range(positions):
        m = Match.new(playset, seed=k)
        rng = random.Random(k)
        for _ in range(rng.randrange(20)):
            m.apply(rng.choice(m.legal_actions()))
        if m.is_terminal or len(m.legal_actions()) < 2:
            continue
        bot = ISMCTSBot(k, iterations=simulations)
        view = m.view(m.current_player)
        begin = time.process_time()
        bot.decide(view)
        spent += time.process_time() - begin
        done += bot.last_iterations
    return done / spent if spent else 0.0


def run_bench(rounds: int = 20000, repeats: int = 5, names: Sequence[str] = SETS["catalysts"],
              greedy: bool = True) -> BenchResult:
    """Run the benchmark: ``repeats`` playout runs of at least ``rounds`` rounds each, and the timings."""
    playset = Playset.from_names(names)
    starts = []
    for seed in range(START_STATES):
        starts.append(Match.new(playset, seed, log_events=False))
    rng = random.Random(0)
    playout_run(starts, min(rounds, 200), rng)  # warm up
    runs = [playout_run(starts, rounds, rng) for _ in range(repeats)]
    fast = native_starts(starts)
    native_runs = None if fast is None else [native_playout_run(fast, 10 * rounds, k) for k in range(repeats)]
    state = mid_game(playset)
    clone_us = _per_call_us(state.clone, repeats, 20000)
    legal_us = _per_call_us(state.legal_actions, repeats, 20000)
    greedy_us = greedy_decision_us(playset) if greedy else None
    rate = ismcts_rate(playset) if greedy else None
    return BenchResult(tuple(playset.names()), engine_is_compiled(), rounds, runs, clone_us, legal_us, greedy_us,
                       rate, native_runs)
