"""How far a hint's chances can be trusted: ``converge calibrate``.

A hint gives every option of a decision a chance to win the round. To measure whether those chances are
true, decisions are sampled from matches between two bots (uniformly among the decisions of a match that
have two options or more); at each, the hint is asked from the mover's view alone, one option is played —
chosen at random, so that low and high chances are both tried — and the rest of the round is played out
by a strong search on both sides. The chance the hint gave the option played is then set against whether
the round was won:

* **reliability by tenths**: the decisions whose chance fell in each tenth, their mean chance and the
  share of their rounds won, with its 95% Wilson interval;
* **calibration error**: the mean gap between chance and outcome over the tenths, weighted by their
  decisions (the expected calibration error);
* **over-confidence** on the options given 40% or more: their mean chance minus the share of their rounds
  won (positive: the hint promised more than happened);
* **Brier score**: the mean squared gap between chance and outcome, beside 0.25, the score of always
  saying 50%, and the skill (1 - Brier / 0.25).

Each figure carries a 95% interval from a seeded bootstrap over the decisions. Every sample depends only
on its seed and the settings, so a measurement repeats exactly, on any number of workers.

>>> s = [Sample(seed=i, chance=c, won=w, raw=c, options=2, best=True, kind="select")
...      for i, (c, w) in enumerate([(0.9, True), (0.8, True), (0.2, False), (0.3, True)])]
>>> r = measure(s, resamples=200)
>>> r.decisions, round(r.brier, 4)
(4, 0.145)
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field

from converge.bots import make_bot
from converge.bots.hint import Calibration, hint
from converge.bots.search import Settings
from converge.engine.playset import all_playsets
from converge.engine.state import Match
from converge.simulation.runner import wilson_interval

#: The bars of the issue that asked for calibrated hints, checked by ``converge calibrate``.
MAX_CALIBRATION_ERROR = 0.04
MAX_OVERCONFIDENCE = 0.03  # on the options given 40% or more
CONFIDENT_FROM = 0.4
MAX_TENTH_GAP = 0.08  # for any tenth with at least TENTH_MIN decisions
TENTH_MIN = 50
MIN_BRIER_SKILL = 0.30

#: A match is sampled at one of its decisions; this bounds the search for one with two options or more.
_MAX_DECISIONS = 400


@dataclass(frozen=True)
class Setting:
    """What a measurement samples and how it plays out."""

    bots: tuple[str, str] = ("medium", "medium")  # the matches decisions are sampled from
    hint_simulations: int = 0  # the hint's search (0: its budget, as the doors spend it)
    playout: str = "ismcts:2000"  # both sides, from the option played to the end of the round
    calibrated: bool = True  # the hint's chances as shown (False: the search's own values)


@dataclass(frozen=True)
class Sample:
    """One sampled decision: the chance the hint gave the option played, and what became of the round."""

    seed: int
    chance: float  # the hint's chance for the option played
    won: bool  # the mover won the round, strong play on both sides after the option
    raw: float  # the search's own value of the option (before any calibration)
    options: int  # how many options the decision had
    best: bool  # the option played was the one the hint suggests
    kind: str  # the decision's kind (select, mode, target, skillset, faction, second)


def sampled_decision(rng: random.Random, bots: tuple[str, str]) -> Match:
    """A decision of a match between ``bots`` (seeded from ``rng``, as is the playset): the whole match is played
    once, then played again to one of its decisions with two options or more, chosen uniformly. What
    ``converge calibrate`` and ``converge stability`` sample."""
    playsets = all_playsets()
    playset = playsets[rng.randrange(len(playsets))]
    match_seed = rng.getrandbits(63)
    players = [make_bot(bots[p], rng.getrandbits(32)) for p in (0, 1)]
    match = Match.new(playset, match_seed)
    history: list[int] = []
    choices: list[int] = []
    while not match.is_terminal and len(history) < 10 * _MAX_DECISIONS:
        seat = match.current_player
        if len(match.legal_actions()) > 1:
            choices.append(len(history))
        action = players[seat].decide(match.view(seat))
        match.apply(action, seat)
        history.append(action)
    at = choices[rng.randrange(len(choices))]
    match = Match.new(playset, match_seed)
    for action in history[:at]:
        match.push(action)
    return match


def sample(seed: int, setting: Setting = Setting(), calibration: Calibration | None = None,
           threads: int = 0) -> Sample:
    """The sample of ``seed``: a match between ``setting.bots`` played to one of its decisions, the hint
    there, one option at random, and the round played out by ``setting.playout`` on both sides (``threads``:
    as :func:`~converge.bots.hint.hint`)."""
    rng = random.Random(seed)
    match = sampled_decision(rng, setting.bots)
    mover, round_index = match.current_player, match.rounds_finished
    kind = match.decision_kind
    options = hint(match.view(mover), simulations=setting.hint_simulations or None, seed=rng.getrandbits(32),
                   calibration=calibration if setting.calibrated else Calibration(), threads=threads)
    played = options[rng.randrange(len(options))]
    match.push(played.action)
    playout = [make_bot(setting.playout, rng.getrandbits(32)) for _ in (0, 1)]
    while not match.is_terminal and match.rounds_finished == round_index:
        seat = match.current_player
        match.apply(playout[seat].decide(match.view(seat)), seat)
    won = match.round_winners[round_index] == mover
    return Sample(seed, played.win_chance, won, played.raw, len(options), played is options[0], kind)


# ---------------------------------------------------------------------- figures


def bar_lines(bars: Sequence[tuple[str, bool]]) -> list[str]:
    """A report's bars as it prints them: each met or MISSED."""
    return [f"{'meets' if ok else 'MISSES'}: {text}" for text, ok in bars]


def with_bars(doc: dict[str, object], bars: Sequence[tuple[str, bool]]) -> dict[str, object]:
    """A report's figures (``doc``) as JSON with its bars, each met or not."""
    doc["bars"] = [{"bar": text, "met": ok} for text, ok in bars]
    return doc


@dataclass(frozen=True)
class Tenth:
    low: float
    decisions: int
    mean_chance: float
    won: float  # share of the rounds won
    interval: tuple[float, float]  # 95% Wilson interval of ``won``

    @property
    def gap(self) -> float:
        return self.mean_chance - self.won


@dataclass(frozen=True)
class Figure:
    value: float
    interval: tuple[float, float]  # 95%, from the bootstrap

    def text(self, points: bool = False) -> str:
        scale, unit = (100, " points") if points else (1, "")
        lo, hi = self.interval
        fmt = "+.1f" if points else ".3f"
        return f"{scale * self.value:{fmt}}{unit} (95% interval {scale * lo:{fmt}} to {scale * hi:{fmt}})"


@dataclass
class Report:
    """The figures of a measurement (see the module doc)."""

    decisions: int
    brier: float
    tenths: list[Tenth]
    calibration_error: Figure
    overconfidence: Figure  # on the options given CONFIDENT_FROM or more
    confident: int  # how many of those
    skill: Figure  # 1 - Brier / 0.25
    by_kind: dict[str, tuple[int, float, float]] = field(default_factory=dict)  # kind -> (n, chance, won)

    def worst_tenth(self) -> Tenth | None:
        """The tenth with TENTH_MIN decisions or more furthest from its outcome."""
        judged = [t for t in self.tenths if t.decisions >= TENTH_MIN]
        return max(judged, key=lambda t: abs(t.gap)) if judged else None

    def bars(self) -> list[tuple[str, bool]]:
        """Each bar of a trustworthy hint, and whether this measurement meets it."""
        worst = self.worst_tenth()
        return [
            (f"calibration error at most {MAX_CALIBRATION_ERROR}", self.calibration_error.value
             <= MAX_CALIBRATION_ERROR),
            (f"over-confidence on options given {CONFIDENT_FROM:.0%} or more at most {100 * MAX_OVERCONFIDENCE:g}"
             " points", self.overconfidence.value <= MAX_OVERCONFIDENCE),
            (f"no tenth with {TENTH_MIN} decisions or more off by more than {100 * MAX_TENTH_GAP:g} points",
             worst is None or abs(worst.gap) <= MAX_TENTH_GAP),
            (f"Brier score at least {MIN_BRIER_SKILL:.0%} better than always saying 50%",
             self.skill.value >= MIN_BRIER_SKILL),
        ]

    def lines(self) -> list[str]:
        out = [f"{self.decisions:,} decisions; Brier score {self.brier:.4f} (always 50%: 0.2500), skill "
               f"{self.skill.text()}",
               f"calibration error {self.calibration_error.text()}",
               f"over-confidence on the {self.confident:,} options given {CONFIDENT_FROM:.0%} or more: "
               f"{self.overconfidence.text(points=True)}",
               "reliability by tenths (chance given, rounds won, 95% interval):"]
        for t in self.tenths:
            if t.decisions:
                lo, hi = t.interval
                out.append(f"  {100 * t.low:3.0f}-{100 * t.low + 10:3.0f}%: {t.decisions:5,} decisions, "
                           f"chance {100 * t.mean_chance:5.1f}%, won {100 * t.won:5.1f}% "
                           f"({100 * lo:.1f}-{100 * hi:.1f}%), gap {100 * t.gap:+.1f} points")
        if self.by_kind:
            out.append("by decision kind (decisions, mean chance, rounds won):")
            out += [f"  {k}: {n:,}, {100 * c:.1f}%, {100 * w:.1f}%"
                    for k, (n, c, w) in sorted(self.by_kind.items())]
        return out + bar_lines(self.bars())

    def to_dict(self) -> dict[str, object]:
        return with_bars(asdict(self), self.bars())


def _tenths(chances: Sequence[float], wins: Sequence[bool]) -> list[Tenth]:
    counts = [0] * 10
    sums = [0.0] * 10
    won = [0] * 10
    for c, w in zip(chances, wins, strict=True):
        b = min(9, int(c * 10))
        counts[b] += 1
        sums[b] += c
        won[b] += w
    return [Tenth(b / 10, counts[b], sums[b] / counts[b] if counts[b] else 0.0,
                  won[b] / counts[b] if counts[b] else 0.0, wilson_interval(won[b], counts[b]))
            for b in range(10)]


def _ece(chances: Sequence[float], wins: Sequence[bool]) -> float:
    n = len(chances)
    return sum(t.decisions * abs(t.gap) for t in _tenths(chances, wins)) / n if n else 0.0


def _overconfidence(chances: Sequence[float], wins: Sequence[bool]) -> tuple[float, int]:
    picked = [(c, w) for c, w in zip(chances, wins, strict=True) if c >= CONFIDENT_FROM]
    if not picked:
        return 0.0, 0
    return sum(c for c, _ in picked) / len(picked) - sum(w for _, w in picked) / len(picked), len(picked)


def _brier(chances: Sequence[float], wins: Sequence[bool]) -> float:
    return sum((c - w) ** 2 for c, w in zip(chances, wins, strict=True)) / len(chances) if chances else 0.0


def measure(samples: Sequence[Sample], resamples: int = 1000, seed: int = 0,
            chance: Callable[[Sample], float] = lambda s: s.chance) -> Report:
    """The figures of ``samples`` (``chance`` says which estimate is judged), each with a 95% bootstrap
    interval (``resamples`` draws, seeded)."""
    if not samples:
        raise ValueError("no samples to measure")
    chances = [chance(s) for s in samples]
    wins = [s.won for s in samples]
    rng = random.Random(seed)
    n = len(samples)
    boot: dict[str, list[float]] = {"ece": [], "over": [], "skill": []}
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        c = [chances[i] for i in idx]
        w = [wins[i] for i in idx]
        boot["ece"].append(_ece(c, w))
        boot["over"].append(_overconfidence(c, w)[0])
        boot["skill"].append(1 - _brier(c, w) / 0.25)

    def figure(value: float, key: str) -> Figure:
        draws = sorted(boot[key])
        if not draws:
            return Figure(value, (value, value))
        last = len(draws) - 1
        return Figure(value, (draws[int(0.025 * last)], draws[math.ceil(0.975 * last)]))

    brier = _brier(chances, wins)
    over, confident = _overconfidence(chances, wins)
    kinds: dict[str, list[float]] = {}  # kind -> [decisions, sum of chances, rounds won]
    for one, given in zip(samples, chances, strict=True):
        tally = kinds.setdefault(one.kind, [0.0, 0.0, 0.0])
        tally[0] += 1
        tally[1] += given
        tally[2] += one.won
    by_kind = {k: (int(v[0]), v[1] / v[0], v[2] / v[0]) for k, v in kinds.items()}
    return Report(n, brier, _tenths(chances, wins), figure(_ece(chances, wins), "ece"), figure(over, "over"),
                  confident, figure(1 - brier / 0.25, "skill"), by_kind)


# ---------------------------------------------------------------------- fitting


#: The search's values are clipped to this distance from 0 and 1 before their logit is taken: a value of 0 or
#: 1 (every simulation lost or won) is not a certainty.
CLIP = 0.02


def _logit(value: float) -> float:
    p = min(1.0 - CLIP, max(CLIP, value))
    return math.log(p / (1.0 - p))


def fit(samples: Sequence[Sample], budget: Settings | None = None, points: int = 21) -> Calibration:
    """The calibration map of the search's own values (``raw``) to chances, fitted on ``samples``: a logistic
    regression of the outcomes on the logit of the raw value (Platt scaling: two parameters, by Newton's
    method), read at ``points`` evenly spaced raw values. Two parameters, not a step per block of values (an
    isotonic fit, tried first): on measured decisions the logistic map met the bars out of sample where the
    isotonic one, which follows its sample's noise at the ends, did not. The map records ``budget``, the search
    the samples were measured with (default: the hint's), which every door then spends."""
    if not samples:
        raise ValueError("no samples to fit")
    xs = [_logit(s.raw) for s in samples]
    ys = [1.0 if s.won else 0.0 for s in samples]
    a, b = 1.0, 0.0
    for _ in range(100):
        g0 = g1 = h00 = h01 = h11 = 0.0
        for x, y in zip(xs, ys, strict=True):
            p = 1.0 / (1.0 + math.exp(-(a * x + b)))
            w = p * (1.0 - p)
            g0 += (p - y) * x
            g1 += p - y
            h00 += w * x * x
            h01 += w * x
            h11 += w
        det = h00 * h11 - h01 * h01
        if det <= 1e-12:
            break
        da, db = (h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-10:
            break
    a = max(a, 0.0)  # (a map that goes down is no map: a value that says nothing gives the mean)
    grid = [i / (points - 1) for i in range(points)]
    knots = [(x, round(1.0 / (1.0 + math.exp(-(a * _logit(x) + b))), 4)) for x in grid]
    return Calibration(tuple(knots), len(samples), budget or Calibration().budget)


# ---------------------------------------------------------------------- running


def run(seeds: Sequence[int], setting: Setting, calibration: Calibration | None, workers: int = 1,
        progress: Callable[[int, int], None] | None = None) -> list[Sample]:
    """The samples of ``seeds``, in seed order, on ``workers`` processes."""
    out: list[Sample] = []
    if progress is not None:
        progress(0, len(seeds))
    for s in _map(seeds, setting, calibration, workers):
        out.append(s)
        if progress is not None:
            progress(len(out), len(seeds))
    return out


def _map(seeds: Sequence[int], setting: Setting, calibration: Calibration | None,
         workers: int) -> Iterator[Sample]:
    if workers <= 1:
        for seed in seeds:
            yield sample(seed, setting, calibration)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from converge.extensions import named_plugins
    from converge.simulation.backends import start_worker

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=start_worker, initargs=(named_plugins(),)) as pool:
        yield from pool.map(_sample_of, [(seed, setting, calibration) for seed in seeds], chunksize=4)


def _sample_of(task: tuple[int, Setting, Calibration | None]) -> Sample:
    return sample(*task, threads=1)  # (the cores are the workers')


def write_samples(path: str, samples: Sequence[Sample], setting: Setting) -> None:
    doc = {"format": 1, "setting": asdict(setting), "samples": [asdict(s) for s in samples]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
        f.write("\n")


def read_samples(doc: object) -> list[Sample]:
    """The samples of a file written by :func:`write_samples` (``KeyError``/``TypeError`` when it is not one)."""
    if not isinstance(doc, dict):
        raise TypeError("a samples file holds a JSON object")
    return [Sample(int(s["seed"]), float(s["chance"]), bool(s["won"]), float(s["raw"]), int(s["options"]),
                   bool(s["best"]), str(s["kind"])) for s in doc["samples"]]


__all__ = ["Report", "Sample", "Setting", "fit", "measure", "read_samples", "run", "sample", "sampled_decision",
           "write_samples"]
