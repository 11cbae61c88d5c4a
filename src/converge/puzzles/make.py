"""The generator: puzzles from finished matches' records, or from a bot-vs-bot series.

At each decision of a card (``select``) once the deck is empty, the mover's options are solved exactly
(:mod:`.judge`): a *play* is a card and how it is placed. The decision is a puzzle when

* one or two plays win the round in every case (the solutions, all accepted), on one or two cards;
* at least two other plays do not, and at least one of them loses the round in some world, whatever the mover
  does after it (what a player would try, and why it fails);
* the line that follows — the mover's winning steps and the solver's replies — ends the round within three of
  the mover's plays.

A round gives one puzzle at most (its first: the later decisions of the same round are the same puzzle's
line). Its rating starts from the bots: the weakest level whose play (three seeds, two must find it) wins in
every case sets it (:func:`starting_rating`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from converge.bots import make_bot
from converge.bots.endgame import solve
from converge.engine.playset import all_playsets
from converge.engine.schema import legal_actions_of
from converge.extensions import load_extensions, named_plugins
from converge.puzzles.judge import NODES, Unsolved, follow, main_line
from converge.puzzles.model import Puzzle, Wrong, puzzle_id
from converge.puzzles.themes import themes

if TYPE_CHECKING:
    from converge.engine.schema import RecordDoc
    from converge.engine.state import Match
    from converge.engine.view import PlayerView

#: The levels that set a puzzle's starting rating, weakest first, each with the rating of a puzzle it is the
#: weakest to solve; a puzzle none of them solves starts at :data:`UNSOLVED_RATING`.
LEVEL_RATINGS: tuple[tuple[str, float], ...] = (("easy", 1200.0), ("medium", 1500.0), ("hard", 1800.0))
UNSOLVED_RATING = 2100.0
#: How many of the mover's plays a puzzle's line may take.
MAX_PLAYS = 3


@dataclass(frozen=True)
class Candidate:
    """A decision's plays solved: the winning plays and the failing ones (see the module doc)."""

    solutions: list[tuple[int, ...]]
    wrong: list[Wrong]


def candidate(view: PlayerView) -> Candidate | None:
    """The plays of the view's card decision, if it makes a puzzle (see the module doc), else None."""
    if view.decision_kind != "select":
        return None
    found = solve(view, depth=2, nodes=NODES)
    if found is None:
        return None
    labels = {a["id"]: a["label"] for a in legal_actions_of(view.observation())}
    solutions: list[tuple[int, ...]] = []
    wrong: list[Wrong] = []
    failing = 0
    for card in found.estimates:
        step = view.follow_up(card.action) if card.then else None
        plays = [(card.action, t.action, t) for t in card.then] if step is not None else [(card.action, -1, card)]
        won = [p for p in plays if p[2].sure == 1]
        solutions += [(c,) if m < 0 else (c, m) for c, m, _ in won]
        failing += len(plays) - len(won)
        label = str(labels.get(card.action, card.action))
        if not won:
            wrong.append(Wrong(card.action, label, card.visits, card.visits - int(card.wins)))
        elif step is not None:
            named = {a["id"]: a["label"] for a in legal_actions_of(step.observation())}
            wrong += [Wrong(card.action, f"{label}, then {named.get(m, m)}", t.visits, t.visits - int(t.wins), m)
                      for _, m, t in plays if t.sure != 1]
    cards = {s[0] for s in solutions}
    if not 1 <= len(solutions) <= 2 or len(cards) > 2 or failing < 2 or not any(w.lost for w in wrong):
        return None
    return Candidate(solutions, wrong)


def puzzles_of(record: RecordDoc, source: str = "bots", rate: bool = True) -> list[Puzzle]:
    """The puzzles of one finished match's record (see the module doc)."""
    from converge.engine.state import Match

    match = Match.replay(record, upto=0)
    out: list[Puzzle] = []
    done_rounds: set[int] = set()
    for i, action in enumerate(record["actions"]):
        if match.is_terminal:
            break
        round_index = match.rounds_finished
        if round_index not in done_rounds and match.decision_kind == "select":
            found = _puzzle_at(match, record, i, source, rate)
            if found is not None:
                out.append(found)
                done_rounds.add(round_index)
        match.apply(action)
    return out


def _puzzle_at(match: Match, record: RecordDoc, upto: int, source: str, rate: bool) -> Puzzle | None:
    mover = match.current_player
    view = match.view(mover)
    if view.endgame_worlds() is None or len(view.legal_actions()) < 1:
        return None
    try:
        found = candidate(view)
    except Unsolved:
        return None
    if found is None:
        return None
    start = match.clone()
    line = main_line(start, MAX_PLAYS)
    if line is None:
        return None
    cut: RecordDoc = {"format": record["format"], "version": record["version"], "playset": record["playset"],
                      "seed": record["seed"], "start": record["start"], "decks": record["decks"],
                      "chance": record.get("chance", False), "actions": list(record["actions"][:upto])}
    steps, plays = line
    if tuple(steps[:len(found.solutions[0])]) not in found.solutions:  # (the line's first play is a solution)
        return None
    rating = starting_rating(start) if rate else UNSOLVED_RATING
    return Puzzle(id=puzzle_id(cut), record=cut, mover=mover, line=steps, plays=plays,
                  solutions=sorted({s[0] for s in found.solutions}), wrong=found.wrong,
                  themes=themes(start, steps, plays), rating=rating, source=source,
                  skillsets=list(record["playset"]))


def solved_by(start: Match, bot_name: str, seed: int) -> bool:
    """Whether the bot ``bot_name`` (seeded) solves the puzzle at ``start``: every step of its own it plays, to the
    round's end, wins in every case."""
    bot = make_bot(bot_name, seed=seed)
    match = start
    while True:  # (each step judged from where the last one left the match: the same verdicts as from the start)
        try:
            progress = follow(match, [bot.decide(match.view(start.current_player))])
        except Unsolved:  # (a step off the line met an endgame too large to judge: not a solve)
            return False
        if progress.status != "playing":
            return progress.status == "solved"
        match = progress.match


def starting_rating(start: Match) -> float:
    """A puzzle's first rating: the rating of the weakest level that solves it with two of three seeds."""
    for level, rating in LEVEL_RATINGS:
        solves = misses = 0
        for seed in range(3):  # (two of three decide: the third is tried only after a split)
            if solved_by(start, level, seed):
                solves += 1
            else:
                misses += 1
            if solves == 2 or misses == 2:
                break
        if solves == 2:
            return rating
    return UNSOLVED_RATING


def _bot_record(seed: int, i: int, bots: tuple[str, str]) -> RecordDoc:
    """The ``i``-th match of a seeded bot-vs-bot series, on a playset drawn at random."""
    from converge.engine.state import Match

    rng = random.Random(seed * 1_000_003 + i)
    playsets = all_playsets()
    match = Match.new(playsets[rng.randrange(len(playsets))], seed=rng.getrandbits(32))
    players = [make_bot(bots[0], seed=rng.getrandbits(31)), make_bot(bots[1], seed=rng.getrandbits(31))]
    while not match.is_terminal:
        p = match.current_player
        match.apply(players[p].decide(match.view(p)))
    return match.record(moves=False)


def _series_part(job: tuple[int, int, int, tuple[str, str], bool]) -> list[Puzzle]:
    seed, start, stop, bots, rate = job
    out: list[Puzzle] = []
    for i in range(start, stop):
        out += puzzles_of(_bot_record(seed, i, bots), "bots", rate)
    return out


def from_series(matches: int, seed: int = 0, workers: int = 1, bots: tuple[str, str] = ("medium", "medium"),
                rate: bool = True, progress: Callable[[int, int], None] | None = None) -> list[Puzzle]:
    """The puzzles of a bot-vs-bot series of ``matches``, on ``workers`` processes, in the
    series' order whatever the workers (the same seed makes the same set); ``progress(done, found)`` after each
    part."""
    size = 20
    jobs = [(seed, a, min(a + size, matches), bots, rate) for a in range(0, matches, size)]
    found: list[Puzzle] = []
    if workers <= 1:
        parts: Iterable[list[Puzzle]] = map(_series_part, jobs)
        for job, part in zip(jobs, parts, strict=True):
            found += part
            if progress:
                progress(job[2], len(found))
        return unique(found)
    # (the workers load the extensions this process loaded, as every process of converge does)
    with ProcessPoolExecutor(workers, initializer=load_extensions, initargs=(named_plugins(),)) as pool:
        for job, part in zip(jobs, pool.map(_series_part, jobs), strict=True):
            found += part
            if progress:
                progress(job[2], len(found))
    return unique(found)


def unique(puzzles: Iterable[Puzzle]) -> list[Puzzle]:
    """The puzzles, each position once (the first met)."""
    seen: set[str] = set()
    out = []
    for p in puzzles:
        if p.id not in seen:
            seen.add(p.id)
            out.append(p)
    return out
