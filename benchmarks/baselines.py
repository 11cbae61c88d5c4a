"""Baselines: the bot levels and the learned agents that can run here, each against each, written to
docs/baselines.md (the whole page, made again from scratch by this one command).

    python benchmarks/baselines.py --out docs/baselines.md

Run from the checkout's root (the learned agents are the examples': ``examples.ppo_agent:PPOAgent``,
``examples.dqn_agent:DQNAgent``). First the learned agents are trained for a fixed budget and saved in a
temporary folder — MaskablePPO (examples/train_maskable_ppo.py, ``--ppo-steps``) when torch,
Stable-Baselines3 and sb3-contrib are installed (the ``learn`` extra), OpenSpiel's DQN
(examples/openspiel_dqn.py, ``--dqn-episodes``) when torch and dm-tree are; then ``converge ladder``'s
round-robin (:mod:`converge.simulation.ladder`) plays every pair ``--per-pair`` matches, seats alternating,
each match drawn from ``--seed`` alone. The wins repeat exactly from the seed (and the packages' versions);
the CPU times are of the run. A learned agent whose packages are missing is left out, and the page says so.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # (the examples' agents and trainers import as examples.*)
    sys.path.insert(0, str(ROOT))

from converge import __version__  # noqa: E402
from converge.simulation.ladder import Outcome, Pairing, Task, elo_ratings, plan, run_task  # noqa: E402
from converge.simulation.runner import wilson_interval  # noqa: E402

#: The bot levels, weakest first (converge.bots.BOTS: random and greedy are beginner and easy).
LEVELS = ["random", "greedy", "medium", "hard", "expert"]

#: The learned agents: their name on the page, their import path on the ladder, what they need.
LEARNED = {
    "ppo": ("examples.ppo_agent:PPOAgent", ("torch", "stable_baselines3", "sb3_contrib")),
    "dqn": ("examples.dqn_agent:DQNAgent", ("torch", "tree", "pyspiel")),
}

#: What is not on the page, and why (the issue asks for NFSP or MCCFR).
LEFT_OUT = [
    "MCCFR (examples/openspiel_mccfr.py): its average policy is keyed by OpenSpiel's perfect-recall "
    "information-state string, which an agent on the ladder (`decide(view)`) does not get; and at a budget that "
    "runs here (2,000 iterations, about a minute of CPU, left 210,958 information states: nearly every state it "
    "walked was new) it plays uniformly at random nearly everywhere — the example's +6 over 50 matches against "
    "random is within noise.",
    "NFSP: not written as an example yet; OpenSpiel's PyTorch NFSP would play on the ladder as the DQN does "
    "(from the observation tensor).",
]

PAGE_PATH = "benchmarks/baselines.py"


@dataclass
class PairResult(Pairing):
    """The ladder's pairing, and the CPU its matches took."""

    cpu: float = 0.0


@dataclass
class Learned:
    name: str
    path: str
    setting: str
    cpu: float


@dataclass
class Run:
    argv: list[str]
    args: argparse.Namespace
    contestants: list[str]
    learned: list[Learned]
    missing: dict[str, str]
    pairs: list[PairResult]
    decisions: dict[str, int] = field(default_factory=dict)
    ladder_cpu: float = 0.0
    wall: float = 0.0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PAGE_PATH, description=__doc__.split("\n\n")[0])
    p.add_argument("--bots", default=",".join([*LEVELS, *LEARNED]),
                   help=f"comma-separated, of {', '.join([*LEVELS, *LEARNED])} (default all; a learned agent "
                        "whose packages are missing is left out)")
    p.add_argument("--per-pair", type=int, default=6, help="matches per pair (default 6)")
    p.add_argument("--seed", type=int, default=1, help="the ladder's and the trainings' seed (default 1)")
    p.add_argument("--workers", type=int, default=2, help="processes playing the matches (default 2)")
    p.add_argument("--ppo-steps", type=int, default=10_000,
                   help="MaskablePPO's training steps (default 10000)")
    p.add_argument("--dqn-episodes", type=int, default=200,
                   help="DQN's self-play matches (default 200, as examples/openspiel_dqn.py)")
    p.add_argument("--out", default="docs/baselines.md", help="the page to write (default docs/baselines.md)")
    return p


def settings_line(args: argparse.Namespace) -> str:
    """The run's settings in one line the page prints and the tests parse back."""
    return (f"Settings: seed {args.seed}, {args.per_pair} matches per pair, {args.workers} workers, "
            f"MaskablePPO {args.ppo_steps} steps, DQN {args.dqn_episodes} episodes.")


def _missing(modules: Sequence[str]) -> list[str]:
    import importlib.util

    return [m for m in modules if importlib.util.find_spec(m) is None]


def _cpu() -> float:
    """This process's CPU seconds so far, every thread (the search's parts and torch run in threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def train_learned(name: str, args: argparse.Namespace, folder: str) -> Learned:
    """Train a learned agent for its fixed budget, save it in ``folder`` and point its agent class at it."""
    start = _cpu()
    if name == "ppo":
        from examples import train_maskable_ppo

        model_path = os.path.join(folder, "maskable_ppo.zip")
        train_maskable_ppo.train(args.ppo_steps, args.seed).save(model_path)
        os.environ["CONVERGE_PPO_MODEL"] = model_path
        setting = f"MaskablePPO, 64x64 MLP, {args.ppo_steps} steps against random (examples/train_maskable_ppo.py)"
    else:
        from examples import openspiel_dqn

        model_path = os.path.join(folder, "dqn.pt")
        env, agents = openspiel_dqn.train(args.dqn_episodes, args.seed)
        openspiel_dqn.save(env, agents, model_path)
        os.environ["CONVERGE_DQN_MODEL"] = model_path
        setting = (f"OpenSpiel's DQN, 64-unit MLP per seat, {args.dqn_episodes} self-play matches "
                   "(examples/openspiel_dqn.py)")
    return Learned(name, LEARNED[name][0], setting, _cpu() - start)


def _timed(task: Task) -> tuple[Outcome, float]:
    start = _cpu()
    outcome = run_task(task)
    return outcome, _cpu() - start


def _outcomes(tasks: list[Task], workers: int) -> Iterator[tuple[Outcome, float]]:
    if workers <= 1:
        yield from map(_timed, tasks)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_timed, tasks, chunksize=1)


def run(argv: Sequence[str], progress: Callable[[str], None] = lambda _: None) -> Run:
    args = parser().parse_args(list(argv))
    asked = [n.strip() for n in args.bots.split(",") if n.strip()]
    unknown = [n for n in asked if n not in LEVELS and n not in LEARNED]
    if unknown or len(set(asked)) != len(asked) or len(asked) < 2:
        raise SystemExit(f"{PAGE_PATH}: --bots takes two or more different names of "
                         f"{', '.join([*LEVELS, *LEARNED])}, got {args.bots!r}")
    missing = {n: ", ".join(_missing(LEARNED[n][1])) for n in asked if n in LEARNED and _missing(LEARNED[n][1])}
    contestants = [n for n in asked if n not in missing]
    started = time.monotonic()
    learned = []
    with tempfile.TemporaryDirectory() as folder:
        for name in contestants:
            if name in LEARNED:
                progress(f"training {name}")
                learned.append(train_learned(name, args, folder))
        paths = {name: LEARNED[name][0] if name in LEARNED else name for name in contestants}
        tasks = plan([paths[n] for n in contestants], args.per_pair, args.seed)
        names = {path: name for name, path in paths.items()}
        pairs = [PairResult(a, b) for i, a in enumerate(contestants) for b in contestants[i + 1:]]
        result = Run(list(argv), args, contestants, learned, missing, pairs)
        ladder_start = time.monotonic()
        for done, (outcome, cpu) in enumerate(_outcomes(tasks, args.workers), start=1):
            pair = pairs[outcome.pair]
            pair.matches += 1
            pair.a_wins += outcome.a_won
            pair.cpu += cpu
            for path, times in outcome.times.items():
                result.decisions[names[path]] = result.decisions.get(names[path], 0) + len(times)
            if done % max(1, len(tasks) // 20) == 0 or done == len(tasks):
                progress(f"{done}/{len(tasks)} matches, {time.monotonic() - ladder_start:.0f} s")
    result.ladder_cpu = sum(p.cpu for p in pairs)
    result.wall = time.monotonic() - started
    return result


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _interval(a_wins: int, matches: int) -> str:
    lo, hi = wilson_interval(a_wins, matches)
    return f"{lo:.1%}–{hi:.1%}"


def render(r: Run) -> str:
    """The page: the command, the settings, the machine and versions, every pair, the matrix and Elo."""
    args = r.args
    command = shlex.join(["python", PAGE_PATH, *r.argv])
    versions = [f"converge {__version__}", f"Python {platform.python_version()}"]
    for dist in ("open_spiel", "torch", "stable-baselines3", "sb3-contrib", "numpy"):
        version = _version(dist)
        if version:
            versions.append(f"{dist} {version}")
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    lines = [
        "# Baselines",
        "",
        f"<!-- generated by {PAGE_PATH}: run the command below to make this page again, do not edit it -->",
        "",
        "How strong each bot level is, and where agents trained for a fixed budget stand among them: every bot "
        "played every other, seats alternating, on playsets and deals drawn from the seed (the round-robin of "
        "`converge ladder`, which also takes your own agent by its import path: [Bots](bots.md)). A rate is "
        "the first bot's share of the pair's matches, with its 95% Wilson interval.",
        "",
        f"Command: `{command}`",
        "",
        settings_line(args),
        "",
        f"Made on {today} with {', '.join(versions)}; on {os.cpu_count()} cores ({_cpu_model()}), measured on a "
        "shared machine (other work ran beside it). The wins repeat exactly from the seed with these versions "
        "(the trainings run seeded on one torch thread; a test plays the cheap pairs again and compares); the "
        f"CPU times are this run's and vary by a few tens of percent. CPU, all pairs: {r.ladder_cpu:.0f} s; "
        f"training: {sum(x.cpu for x in r.learned):.0f} s; wall clock, all of it: {r.wall / 60:.1f} min.",
        "",
        "## Each against each",
        "",
        "| bot | opponent | bot's wins | win rate | 95% interval | CPU s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for p in r.pairs:
        lines.append(f"| {p.a} | {p.b} | {p.a_wins}/{p.matches} | {p.rate:.1%} | {_interval(p.a_wins, p.matches)} "
                     f"| {p.cpu:.1f} |")
    lines += ["", "The row's win rate against the column:", "",
              "| | " + " | ".join(r.contestants) + " |", "| --- |" + " --- |" * len(r.contestants)]
    by_pair = {(p.a, p.b): (p.a_wins, p.matches) for p in r.pairs}
    by_pair.update({(p.b, p.a): (p.matches - p.a_wins, p.matches) for p in r.pairs})
    for row in r.contestants:
        cells = []
        for col in r.contestants:
            wins, matches = by_pair.get((row, col), (0, 0))
            cells.append("—" if row == col else f"{wins / matches:.0%}" if matches else "")
        lines.append(f"| **{row}** | " + " | ".join(cells) + " |")
    elo = elo_ratings(r.contestants, [(p.a, p.b, p.a_wins, p.matches) for p in r.pairs])
    lines += ["", "## Elo", "",
              "Fitted to all the pairs at once (random = 1000; 400 points = 10:1 odds).", "",
              "| bot | Elo | decisions |", "| --- | --- | --- |"]
    for name in sorted(r.contestants, key=lambda n: -elo[n]):
        lines.append(f"| {name} | {elo[name]:.0f} | {r.decisions.get(name, 0)} |")
    if r.learned:
        lines += ["", "## The learned agents", "", "| bot | on the ladder as | trained | training CPU s |",
                  "| --- | --- | --- | --- |"]
        for x in r.learned:
            lines.append(f"| {x.name} | `{x.path}` | {x.setting} | {x.cpu:.0f} |")
    lines += ["", "## Left out", ""]
    for name, modules in r.missing.items():
        lines.append(f"- {name}: not installed here ({modules}); `pip install 'converge-game[rl,learn]'` "
                     "brings it.")
    lines += [f"- {text}" for text in LEFT_OUT]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    result = run(argv, progress=lambda text: print(text, file=sys.stderr, flush=True))
    Path(result.args.out).write_text(render(result), encoding="utf-8")
    print(f"wrote {result.args.out}: {len(result.pairs)} pairs, {result.ladder_cpu:.0f} s CPU in the matches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
