"""Gymnasium vector environments side by side in one run: Converge's vector entry point against
``SyncVectorEnv`` of the single environment, the same number of matches, the same policy.

    python benchmarks/gym_vector.py --num-envs 16 --steps 20000 --repeats 11

(with the compiled engine that ``make test`` and ``pip install`` build: the vector env's loop is compiled with
it; from a pure-Python engine both are slower and the gap narrower).

Each repeat runs every subject once, one after the other (in turn first and last, so that a machine
getting busier or quieter favours none), so that a busy moment falls on all of them; the table gives each
one's median steps per second and the median over the repeats of its ratio to ``SyncVectorEnv`` in the
same repeat. The policy samples uniformly among each match's legal actions from the batched mask (one
NumPy expression for all matches), against the random bot; a step is one match's decision, and the steps
that only reset a match (next-step autoreset) are not counted, as in
``gymnasium.utils.performance.benchmark_vector_step``.
``--async`` adds ``AsyncVectorEnv`` (one process per match: slower on a small machine).

Rates count this process's CPU time by default (``--clock cpu``), as ``benchmarks/openspiel_rates.py``
does: on a shared machine wall time also counts the moments other processes held the core, which fall on
one subject or another at random. ``--clock wall`` counts wall time; ``AsyncVectorEnv`` needs it (its
matches run in other processes), so ``--async`` implies it.

Issue 28's bar: the vector entry point at least 3x ``SyncVectorEnv`` with 16 matches, in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

# Neither environment multiplies matrices; idle BLAS threads only take a small machine's cores from both.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import gymnasium as gym
import numpy as np

import converge.adapters.gymnasium  # noqa: F401  (registers converge/Converge-v0)
from converge.adapters.gymnasium import ENV_ID

MODES = {"sync": "SyncVectorEnv", "vector_entry_point": "vector entry point", "async": "AsyncVectorEnv"}


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def run(envs: Any, steps: int, seed: int = 0, clock: Callable[[], float] = time.process_time) -> dict[str, float]:
    """Steps per second of ``envs`` over at least ``steps`` counted steps (by ``clock``), and how many of
    the masks it returned were all zero (a masked sampler cannot act on those)."""
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    previous_done = np.zeros(envs.num_envs, dtype=np.bool_)
    counted = empty = 0
    start = clock()
    while counted < steps:
        mask = obs["action_mask"]
        empty += int(np.count_nonzero(~mask.any(axis=1)))
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, _, terminated, truncated, _ = envs.step(actions)
        counted += envs.num_envs - int(np.count_nonzero(previous_done))
        previous_done = terminated | truncated
    elapsed = clock() - start
    return {"steps_per_second": counted / elapsed, "empty_masks": float(empty)}


def subjects(num_envs: int, with_async: bool) -> dict[str, Callable[[], Any]]:
    modes = ["sync", "vector_entry_point", *(["async"] if with_async else [])]
    return {m: (lambda m=m: gym.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode=m)) for m in modes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--steps", type=int, default=20000, help="counted steps per run (default 20000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--async", dest="with_async", action="store_true", help="also AsyncVectorEnv")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default=None,
                        help="what a rate counts: this process's CPU time (default) or wall time "
                             "(the default with --async)")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args(argv)
    if args.num_envs < 1 or args.steps < 1 or args.repeats < 1:
        parser.error("--num-envs, --steps and --repeats must be positive")
    if args.with_async and args.clock == "cpu":
        parser.error("--async needs --clock wall: AsyncVectorEnv's matches run in other processes")
    clock_name = args.clock or ("wall" if args.with_async else "cpu")
    clock = CLOCKS[clock_name]
    makers = subjects(args.num_envs, args.with_async)
    envs = {name: make() for name, make in makers.items()}
    for e in envs.values():  # warm up: imports, first allocations
        run(e, min(args.steps, 500), clock=clock)
    rates: dict[str, list[float]] = {name: [] for name in envs}
    empty: dict[str, float] = dict.fromkeys(envs, 0.0)
    for repeat in range(args.repeats):
        order = list(envs) if repeat % 2 == 0 else list(envs)[::-1]
        for name in order:
            result = run(envs[name], args.steps, seed=repeat, clock=clock)
            rates[name].append(result["steps_per_second"])
            empty[name] += result["empty_masks"]
    for e in envs.values():
        e.close()
    medians = {name: statistics.median(r) for name, r in rates.items()}
    ratios = {name: statistics.median(a / b for a, b in zip(r, rates["sync"], strict=True))
              for name, r in rates.items()}
    if args.json:
        print(json.dumps({"num_envs": args.num_envs, "clock": clock_name, "steps_per_second": medians,
                          "ratio_to_sync": ratios, "empty_masks": empty}))
        return 0
    import converge.engine.state as state

    engine = "compiled" if not str(state.__file__).endswith(".py") else "pure Python (CONVERGE_PURE or src/)"
    print(f"{args.num_envs} matches against the random bot, {args.steps} steps a run, median of "
          f"{args.repeats} interleaved runs; engine {engine}; {clock_name} time")
    print(f"{'':22} {'steps/s':>10} {'x sync':>8} {'all-zero masks':>15}")
    for name, rate in medians.items():
        print(f"{MODES[name]:22} {rate:10,.0f} {ratios[name]:8.2f} {int(empty[name]):15d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
