"""Whether a hint says the same whatever its seed: ``converge stability``.

A hint is one search, and a search draws random numbers; pressing Hint again with another seed should name the
same best option, and a much longer search should not find that option clearly worse. To measure it, decisions
are sampled from matches between two bots (as ``converge calibrate`` samples them: uniformly among a match's
decisions with two options or more); at each, the hint is pressed ``presses`` times with other seeds, on the
hint's budget, and once with a search ``longer`` times as long:

* **agreement**: the decisions at which every press named the same best option (the first a hint shows);
* **inaccurate presses**: the presses whose best option the longer search gives :data:`INACCURATE` (8 points)
  or more below its own best — what the review would mark as an inaccuracy — and **mistakes**, 15 points or
  more;
* the same split by whether the decision was searched or solved exactly (an endgame), and how often a hint
  called options about equal.

Each figure carries its 95% Wilson interval. A sample depends only on its seed and the settings, so a
measurement repeats exactly, on any number of workers.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

from converge.bots.hint import hint, shipped_calibration
from converge.simulation.calibration import bar_lines, sampled_decision, with_bars
from converge.simulation.runner import wilson_interval

#: The chance lost (0..1) from which a press is inaccurate, or a mistake: the review's marks.
INACCURATE, MISTAKE = 0.08, 0.15
#: The bars of the issue that asked for a hint whatever its seed.
MIN_AGREEMENT = 0.90
MAX_INACCURATE = 0.01


@dataclass(frozen=True)
class Setting:
    bots: tuple[str, str] = ("medium", "medium")  # the matches decisions are sampled from
    presses: int = 4
    longer: int = 10  # the longer search's budget, in hints' budgets


@dataclass(frozen=True)
class Sample:
    """One decision: each press's best option, and the chances the longer search gave each option."""

    seed: int
    kind: str
    exact: bool  # solved exactly (the deck was empty)
    picks: tuple[int, ...]  # each press's best option (the first the hint shows)
    equal: tuple[int, ...]  # how many options each press called about equal to the best (1: none)
    chances: dict[int, float]  # the longer search's chance of each option

    def lost(self, action: int) -> float:
        """The chance given up by ``action`` against the longer search's best."""
        return max(self.chances.values()) - self.chances[action]


def sample(seed: int, setting: Setting = Setting(), threads: int = 0) -> Sample:
    """The sample of ``seed``: a decision of a match between ``setting.bots``, the hint pressed there with
    ``setting.presses`` seeds, and the longer search (``threads``: as :func:`~converge.bots.hint.hint`)."""
    rng = random.Random(seed)
    match = sampled_decision(rng, setting.bots)
    view = match.view(match.current_player)
    presses = [hint(view, seed=rng.getrandbits(32), threads=threads) for _ in range(setting.presses)]
    budget = shipped_calibration().budget.simulations
    longer = hint(view, simulations=budget * setting.longer, seed=rng.getrandbits(32), threads=threads)
    equal = tuple(max(1, sum(o.equal for o in p)) for p in presses)
    return Sample(seed, match.decision_kind, presses[0][0].exact, tuple(p[0].action for p in presses), equal,
                  {o.action: o.win_chance for o in longer})


@dataclass(frozen=True)
class Figure:
    count: int
    of: int

    @property
    def share(self) -> float:
        return self.count / self.of if self.of else 0.0

    def text(self) -> str:
        lo, hi = wilson_interval(self.count, self.of)
        return f"{self.share:.1%} ({self.count:,} of {self.of:,}; 95% interval {lo:.1%}-{hi:.1%})"


@dataclass
class Report:
    decisions: int
    agreement: Figure
    inaccurate: Figure
    mistakes: Figure
    by_kind: dict[str, tuple[Figure, Figure]]  # searched / solved exactly: (agreement, inaccurate presses)
    equal: Figure  # presses that called two options or more about equal

    def bars(self) -> list[tuple[str, bool]]:
        return [(f"every press names the same best option in {MIN_AGREEMENT:.0%} of decisions or more",
                 self.agreement.share >= MIN_AGREEMENT),
                (f"at most {MAX_INACCURATE:.0%} of presses name an option the longer search gives "
                 f"{100 * INACCURATE:g} points or more below its best", self.inaccurate.share <= MAX_INACCURATE)]

    def lines(self) -> list[str]:
        out = [f"{self.decisions:,} decisions",
               f"every press names the same best option: {self.agreement.text()}",
               f"presses whose best option the longer search gives {100 * INACCURATE:g} points or more below "
               f"its best: {self.inaccurate.text()}",
               f"... {100 * MISTAKE:g} points or more: {self.mistakes.text()}",
               f"presses that call options about equal: {self.equal.text()}"]
        for kind, (agree, inaccurate) in sorted(self.by_kind.items()):
            out.append(f"  {kind}: agreement {agree.text()}; inaccurate presses {inaccurate.text()}")
        return out + bar_lines(self.bars())

    def to_dict(self) -> dict[str, object]:
        return with_bars(asdict(self), self.bars())


def measure(samples: Sequence[Sample]) -> Report:
    """The figures of ``samples`` (see the module doc)."""
    if not samples:
        raise ValueError("no samples to measure")

    def figures(group: Sequence[Sample]) -> tuple[Figure, Figure, Figure]:
        presses = [(s, a) for s in group for a in s.picks]
        return (Figure(sum(len(set(s.picks)) == 1 for s in group), len(group)),
                Figure(sum(s.lost(a) >= INACCURATE - 1e-9 for s, a in presses), len(presses)),
                Figure(sum(s.lost(a) >= MISTAKE - 1e-9 for s, a in presses), len(presses)))

    agreement, inaccurate, mistakes = figures(samples)
    by_kind = {}
    for name, exact in (("searched", False), ("solved exactly", True)):
        group = [s for s in samples if s.exact == exact]
        if group:
            a, i, _ = figures(group)
            by_kind[name] = (a, i)
    equal = Figure(sum(n > 1 for s in samples for n in s.equal), sum(len(s.equal) for s in samples))
    return Report(len(samples), agreement, inaccurate, mistakes, by_kind, equal)


def run(seeds: Sequence[int], setting: Setting, workers: int = 1,
        progress: Callable[[int, int], None] | None = None) -> list[Sample]:
    """The samples of ``seeds``, in seed order, on ``workers`` processes (each hint's parts in one thread
    then, the cores being the workers')."""
    out: list[Sample] = []
    if progress is not None:
        progress(0, len(seeds))
    for s in _map(seeds, setting, workers):
        out.append(s)
        if progress is not None:
            progress(len(out), len(seeds))
    return out


def _map(seeds: Sequence[int], setting: Setting, workers: int) -> Iterator[Sample]:
    if workers <= 1:
        for seed in seeds:
            yield sample(seed, setting)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from converge.extensions import named_plugins
    from converge.simulation.backends import start_worker

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=start_worker, initargs=(named_plugins(),)) as pool:
        yield from pool.map(_sample_of, [(seed, setting) for seed in seeds], chunksize=2)


def _sample_of(task: tuple[int, Setting]) -> Sample:
    return sample(*task, threads=1)


def write_samples(path: str, samples: Sequence[Sample], setting: Setting) -> None:
    doc = {"format": 1, "setting": asdict(setting), "budget": asdict(shipped_calibration().budget),
           "samples": [asdict(s) for s in samples]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
        f.write("\n")


def read_samples(doc: object) -> list[Sample]:
    """The samples of a file written by :func:`write_samples` (``KeyError``/``TypeError``/``ValueError`` when it
    is not one)."""
    if not isinstance(doc, dict):
        raise TypeError("a samples file holds a JSON object")
    return [Sample(int(s["seed"]), str(s["kind"]), bool(s["exact"]), tuple(int(a) for a in s["picks"]),
                   tuple(int(n) for n in s["equal"]), {int(a): float(c) for a, c in s["chances"].items()})
            for s in doc["samples"]]


__all__ = ["Report", "Sample", "Setting", "measure", "read_samples", "run", "sample", "write_samples"]
