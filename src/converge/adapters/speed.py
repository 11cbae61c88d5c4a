"""Steps per second of the research adapters, beside the engine and PettingZoo's own board games.

A step is one decision. Every environment is driven the same way, by uniformly random legal actions: the
PettingZoo environments (raw, without wrappers) are asked for the acting agent's observation before each
step, the Gymnasium environment returns one with each step, the engine and the OpenSpiel game are stepped
bare. Each figure is the median of several runs, measured in one process one after the other, so that the
figures beside each other share the machine's state.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

SUBJECTS = ("engine", "openspiel", "pettingzoo", "gymnasium", "connect_four_v3", "tictactoe_v3")


def _engine(steps: int, rng: random.Random) -> float:
    from converge import Match

    match = Match.new(["alchemist", "mechanist", "archivist"], seed=1, log_events=False)
    begin = time.perf_counter()
    for k in range(steps):
        if match.is_terminal:
            match = Match.new(["alchemist", "mechanist", "archivist"], seed=k, log_events=False)
        legal = match.legal_actions()
        match.apply(legal[int(rng.random() * len(legal))])
    return steps / (time.perf_counter() - begin)


def _openspiel(steps: int, rng: random.Random) -> float:
    import pyspiel

    import converge.adapters.openspiel  # noqa: F401  (registers python_converge)

    game = pyspiel.load_game("python_converge")
    state = game.new_initial_state()
    begin = time.perf_counter()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
    return steps / (time.perf_counter() - begin)


def _aec(make: Callable[[], Any], steps: int, rng: random.Random) -> float:
    env = make()
    env.reset(seed=1)
    done = 0
    begin = time.perf_counter()
    while done < steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset(seed=done)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
        done += 1
    return steps / (time.perf_counter() - begin)


def _pettingzoo(steps: int, rng: random.Random) -> float:
    from converge.adapters import converge_v0

    return _aec(converge_v0.raw_env, steps, rng)


def _classic(name: str) -> Callable[[int, random.Random], float]:
    def run(steps: int, rng: random.Random) -> float:
        import importlib

        module = importlib.import_module(f"pettingzoo.classic.{name}")
        return _aec(module.raw_env, steps, rng)

    return run


def _gymnasium(steps: int, rng: random.Random) -> float:
    import gymnasium as gym

    import converge.adapters.gymnasium  # noqa: F401  (registers converge/Converge-v0)

    env = gym.make("converge/Converge-v0", opponent="random").unwrapped
    obs, _ = env.reset(seed=1)
    begin = time.perf_counter()
    for k in range(steps):
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, terminated, truncated, _ = env.step(int(legal[int(rng.random() * len(legal))]))
        if terminated or truncated:
            obs, _ = env.reset(seed=k)
    return steps / (time.perf_counter() - begin)


RUNNERS: dict[str, Callable[[int, random.Random], float]] = {
    "engine": _engine, "openspiel": _openspiel, "pettingzoo": _pettingzoo, "gymnasium": _gymnasium,
    "connect_four_v3": _classic("connect_four_v3"), "tictactoe_v3": _classic("tictactoe_v3"),
}
LABELS = {
    "engine": "converge engine, Match.apply", "openspiel": "OpenSpiel python_converge",
    "pettingzoo": "PettingZoo converge_v0 raw env, with observations",
    "gymnasium": "Gymnasium Converge-v0, against random",
    "connect_four_v3": "PettingZoo connect_four_v3 raw env", "tictactoe_v3": "PettingZoo tictactoe_v3 raw env",
}


def run_adapter_bench(steps: int = 20000, repeats: int = 3,
                      subjects: tuple[str, ...] = SUBJECTS) -> dict[str, list[float]]:
    """Steps per second of each subject: ``repeats`` runs each, interleaved (one of each, then again)."""
    rng = random.Random(0)
    out: dict[str, list[float]] = {s: [] for s in subjects}
    for name in subjects:  # warm up (imports, first compilations)
        RUNNERS[name](min(steps, 500), rng)
    for _ in range(repeats):
        for name in subjects:
            out[name].append(RUNNERS[name](steps, rng))
    return out


def report(results: dict[str, list[float]]) -> str:
    lines = ["| what | steps/s (median) | runs |", "| --- | --- | --- |"]
    for name, runs in results.items():
        lines.append(f"| {LABELS[name]} | {statistics.median(runs):,.0f} | "
                     f"{', '.join(f'{r:,.0f}' for r in runs)} |")
    return "\n".join(lines)
