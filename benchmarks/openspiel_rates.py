"""Decisions per second of OpenSpiel games under random play, reading each decision's mover information.

Side by side in one run, each subject one after the other in every repeat (so that a busy moment of the
machine falls on all of them), medians reported: ``python_converge``, OpenSpiel's Python Kuhn poker
(``python_kuhn_poker``) and its C++ Leduc poker. Random play with chance nodes: every chance outcome is
drawn by its probability and stepped, but only the players' decisions are counted. Before each decision
the loop reads, for the player to move:

* ``nothing``: the plain stepping rate;
* ``observer (perfect recall)``: ``make_observation(game, IIGObservationType(perfect_recall=True))`` once,
  ``set_from(state, player)`` at each decision (the fast path: it writes into one numpy buffer);
* ``observer (observation)``: the same with ``perfect_recall=False``;
* ``information_state_string``, and the list-returning ``information_state_tensor`` and
  ``observation_tensor``;
* ``rl_environment (information state)`` and ``rl_environment (observation)``: ``env.step`` of OpenSpiel's
  ``rl_environment.Environment`` with random agents, which reads the tensor of that type for both players
  at every step (the first is its default); it draws chance outcomes itself. These run a tenth of
  ``--decisions``.

Rates are per second of this process's CPU time, so that other work on a busy machine counts less; the
ratios to each game's own plain rate are the figures to compare (the machine's speed cancels out)::

    python benchmarks/openspiel_rates.py --decisions 20000 --repeats 5
    python benchmarks/openspiel_rates.py --json   # the medians as JSON

``--previous PYTHON`` measures another installation too (a virtual environment of an earlier version), each
repeat in this one then that one, and gives both tables and this version's rates over the other's::

    python benchmarks/openspiel_rates.py --previous /tmp/prev/bin/python --repeats 5

Issue 28's bars: ``python_converge`` through the perfect-recall observer at least 0.6x its plain rate
(Kuhn poker: 0.85x), and ``information_state_string`` at least 3 x 7,516 decisions/s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pyspiel
from open_spiel.python import games  # noqa: F401  (registers python_kuhn_poker)
from open_spiel.python.observation import make_observation

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)

GAMES = {"python_converge": "python_converge", "python_kuhn_poker": "python_kuhn_poker",
         "leduc_poker (C++)": "leduc_poker"}
READS = ("nothing", "observer (perfect recall)", "observer (observation)", "information_state_string",
         "information_state_tensor", "observation_tensor", "rl_environment (information state)",
         "rl_environment (observation)")
#: The subjects that step OpenSpiel's rl_environment, and the observation type each asks it for.
RL_ENVIRONMENT = {"rl_environment (information state)": "INFORMATION_STATE",
                  "rl_environment (observation)": "OBSERVATION"}

Reader = Callable[[Any, int], object]


def readers(game: Any) -> dict[str, Reader]:
    """What each subject reads before a decision, for ``game``."""
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    current = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    return {
        "nothing": lambda state, player: None,
        "observer (perfect recall)": recall.set_from,
        "observer (observation)": current.set_from,
        "information_state_string": lambda state, player: state.information_state_string(player),
        "information_state_tensor": lambda state, player: state.information_state_tensor(player),
        "observation_tensor": lambda state, player: state.observation_tensor(player),
    }


def rate(game: Any, read: Reader, decisions: int, rng: random.Random) -> float:
    """Decisions per second of random play (chance nodes included, not counted), reading before each."""
    state = game.new_initial_state()
    done = 0
    begin = time.process_time()
    while done < decisions:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            x, k = rng.random(), 0
            while k < len(outcomes) - 1 and x >= outcomes[k][1]:
                x -= outcomes[k][1]
                k += 1
            state.apply_action(outcomes[k][0])
        else:
            read(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            done += 1
    return decisions / (time.process_time() - begin)


def rl_rate(game: Any, observation_type: str, decisions: int, rng: random.Random) -> float:
    """Steps per second of ``rl_environment.Environment(game)`` with random agents (each step one decision,
    chance drawn by the environment), the environment reading ``observation_type`` for both players."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType[observation_type],
                                     chance_event_sampler=rl_environment.ChanceEventSampler(rng.randrange(2**31)))
    done = 0
    begin = time.process_time()
    time_step = env.reset()
    while done < decisions:
        if time_step.last():
            time_step = env.reset()
            continue
        legal = time_step.observations["legal_actions"][time_step.observations["current_player"]]
        time_step = env.step([legal[int(rng.random() * len(legal))]])
        done += 1
    return decisions / (time.process_time() - begin)


def subject_rate(game: Any, reader: dict[str, Reader], read: str, decisions: int, rng: random.Random) -> float:
    if read in RL_ENVIRONMENT:  # a tenth of the decisions: python_converge's default runs at hundreds a second
        return rl_rate(game, RL_ENVIRONMENT[read], max(decisions // 10, 100), rng)
    return rate(game, reader[read], decisions, rng)


def measure(decisions: int, repeats: int, reads: tuple[str, ...] = READS) -> dict[str, dict[str, list[float]]]:
    """Rates by game and read, ``repeats`` each, interleaved (every subject once, then again)."""
    loaded = {name: pyspiel.load_game(spec) for name, spec in GAMES.items()}
    subjects = {name: readers(game) for name, game in loaded.items()}
    out: dict[str, dict[str, list[float]]] = {name: {r: [] for r in reads} for name in GAMES}
    rng = random.Random(0)
    for name in GAMES:  # warm up
        for r in reads:
            subject_rate(loaded[name], subjects[name], r, min(decisions, 500), rng)
    for _ in range(repeats):
        for name in GAMES:
            for r in reads:
                out[name][r].append(subject_rate(loaded[name], subjects[name], r, decisions, rng))
    return out


def report(results: dict[str, dict[str, list[float]]]) -> str:
    reads = list(next(iter(results.values())))
    lines = ["| decisions/s (median; x its plain rate) | " + " | ".join(reads) + " |",
             "| --- |" + " --- |" * len(reads)]
    for name, by_read in results.items():
        plain = statistics.median(by_read["nothing"])
        cells = []
        for r in reads:
            median = statistics.median(by_read[r])
            cells.append(f"{median:,.0f}" + ("" if r == "nothing" else f" ({median / plain:.2f}x)"))
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def versus(previous: str, decisions: int, repeats: int, reads: tuple[str, ...]) -> str:
    """This installation and ``previous`` (a Python executable), a repeat of each in turn."""
    runs: dict[str, dict[str, dict[str, list[float]]]] = {"this version": {}, "previous": {}}
    for _ in range(repeats):
        for name, python in (("this version", sys.executable), ("previous", previous)):
            out = subprocess.run([python, __file__, "--json", "--repeats", "1", "--decisions", str(decisions),
                                  "--reads", *reads], capture_output=True, text=True, check=True)
            for game, by_read in json.loads(out.stdout.strip().splitlines()[-1]).items():
                for r, value in by_read.items():
                    runs[name].setdefault(game, {}).setdefault(r, []).append(value)
    parts = [f"### {name}\n\n{report(results)}" for name, results in runs.items()]
    lines = ["| this version / previous (medians) | " + " | ".join(reads) + " |",
             "| --- |" + " --- |" * len(reads)]
    now, before = runs["this version"], runs["previous"]
    for game in now:
        cells = [f"{statistics.median(now[game][r]) / statistics.median(before[game][r]):.2f}x" for r in reads]
        lines.append(f"| `{game}` | " + " | ".join(cells) + " |")
    return "\n\n".join([*parts, "### ratio\n\n" + "\n".join(lines)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=20000, help="decisions per run (default 20000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    parser.add_argument("--reads", nargs="+", choices=READS, default=list(READS),
                        help="what to read before each decision (default: all; nothing is always measured)")
    parser.add_argument("--previous", help="the python of another installation to measure beside this one")
    args = parser.parse_args(argv)
    reads = tuple(dict.fromkeys(["nothing", *args.reads]))
    if args.previous:
        print(versus(args.previous, args.decisions, args.repeats, reads))
        return 0
    results = measure(args.decisions, args.repeats, reads)
    if args.json:
        print(json.dumps({g: {r: statistics.median(v) for r, v in by.items()} for g, by in results.items()}))
    else:
        print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
