"""``converge puzzles``: the puzzles played in the terminal, line by line.

A puzzle (:mod:`converge.puzzles`) is shown as its mover saw it at the table, with the terminal game's own
screen, menu, narration and reader (:mod:`.terminal`), made from ``observation(mover)`` only: the opponent's
hand and the artifact card never reach the screen, before the answer or after it. Each step is judged as it is
taken (:func:`converge.puzzles.judge.follow`); the solver's replies are narrated as the mover sees them; the
round's end says how it went, with the solution and why the other plays fail.

The player's puzzle rating (Glicko-2, apart from their match rating), streak and the puzzles tried are kept in
``puzzles.json`` in the user's data directory, beside the saved matches' folder rather than in it (every file
there is read as a saved match), written atomically after each attempt. Only a first attempt is rated and
counts for the streak: an attempt after seeing the solution proves nothing.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from converge.cli.common import UserError, clip, quoted, read_json_file, shown_path
from converge.cli.play_session import Session, narration_lines, their_move
from converge.cli.saves import Seat, default_save_dir, write_atomically
from converge.cli.screen import menu, numbered, render
from converge.cli.terminal import InputFn, QuitGame, TerminalGame, console_for, line_reader
from converge.engine import ConvergeError, Match
from converge.engine.schema import legal_actions_of
from converge.puzzles.judge import Unsolved, follow, options
from converge.puzzles.model import Puzzle, PuzzleError, read_set, shipped
from converge.puzzles.rating import Rated, new_puzzle_rating, rate
from converge.puzzles.themes import theme_name
from converge.ratings import Rating

if TYPE_CHECKING:
    from converge.engine.schema import EventDoc, Observation

INSTRUCTION = "Win this round: find the play that wins whatever they hold and however they reply."
HELP = (f"{INSTRUCTION}\nA case is one way the cards you cannot see (their hand, the artifact) could lie; a "
        "play that wins only in some of them is not the answer.\nAt a prompt type the number of a choice (or "
        "its name, e.g. ALC3, discard, mine), or:\n  rules      how to play, with every effect\n"
        "  quit       leave (your puzzle rating is saved after each puzzle)\n")
PROGRESS_FORMAT = "converge-puzzle-progress"


def progress_path() -> Path:
    """Where the player's puzzle progress is kept: ``$XDG_DATA_HOME/converge/puzzles.json`` (``~/.local/share``
    when it is not set): the folder of the saved matches' folder, which isolates it with them in tests."""
    return default_save_dir().parent / "puzzles.json"


# ---------------------------------------------------------------------- the player's progress


@dataclass
class Standing:
    """The player's puzzle rating, streak (first attempts solved in a row), best streak, and the puzzles
    tried (id → solved at the first attempt)."""

    rating: Rating = field(default_factory=Rating)
    streak: int = 0
    best_streak: int = 0
    tried: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Standing:
        """The progress in ``path`` (a new player's when there is none); a damaged file is a one-line
        :class:`UserError`, never overwritten: it is the player's, to move away or mend."""
        if not path.exists():
            return cls()
        doc = read_json_file(str(path), "puzzle progress")
        name = shown_path(str(path))
        try:
            if not isinstance(doc, dict) or doc.get("format") != PROGRESS_FORMAT:
                raise ValueError("it is not a puzzle progress file")
            r = doc["rating"]
            rating = Rating(float(r["r"]), float(r["rd"]), float(r["vol"]))
            tried = doc["tried"]
            if not isinstance(tried, dict) or not all(isinstance(v, bool) for v in tried.values()):
                raise ValueError("field 'tried' is damaged")
            return cls(rating, int(doc["streak"]), int(doc["best_streak"]), dict(tried))
        except (KeyError, TypeError, ValueError) as exc:
            why = str(exc) if isinstance(exc, ValueError) else "it is damaged"
            raise UserError(f"{name}: your puzzle progress cannot be read ({clip(why, 80)}); move it away to "
                            "start afresh", path=name) from None

    def save(self, path: Path) -> str | None:
        """Write the progress atomically; None, or why it could not be written (for the player)."""
        r = self.rating
        doc = {"format": PROGRESS_FORMAT, "version": 1, "rating": {"r": r.r, "rd": r.rd, "vol": r.vol},
               "streak": self.streak, "best_streak": self.best_streak, "tried": self.tried}
        try:
            write_atomically(path, json.dumps(doc, indent=1) + "\n")
        except OSError as exc:
            return f"Your puzzle progress could not be saved to {path}: {exc.strerror or exc}."
        return None

    def record(self, puzzle: Puzzle, solved: bool) -> Rated | None:
        """Count an attempt: the ratings before and after when it is rated (the first), else None."""
        if puzzle.id in self.tried:
            return None
        self.tried[puzzle.id] = solved
        self.streak = self.streak + 1 if solved else 0
        self.best_streak = max(self.best_streak, self.streak)
        rated = rate(self.rating, new_puzzle_rating(puzzle.rating), solved)
        self.rating = rated.player_after
        return rated


def next_puzzle(pool: Sequence[Puzzle], standing: Standing, skip: Collection[str] = ()) -> Puzzle | None:
    """The untried puzzle rated nearest the player (ties: the first id), or None when all are tried."""
    untried = [p for p in pool if p.id not in standing.tried and p.id not in skip]
    return min(untried, key=lambda p: (abs(p.rating - standing.rating.r), p.id), default=None)


# ---------------------------------------------------------------------- words


def why_it_fails(lost: int, worlds: int) -> str:
    if lost == 0:
        return "it could win only by guessing which cards they hold"
    if worlds == 1:
        return "they can still win the round"
    return f"in {'all' if lost == worlds else lost} {'' if lost == worlds else 'of '}{worlds} cases they can " \
           "still win the round"


def step_text(obs: Observation, action: int) -> str:
    """One of the mover's steps in words: a card's label as the menu says it; a later step (a target...)
    with what was being chosen ("choose a card to recall into your hand: ARC5 ...")."""
    decision = obs["decision"]
    assert decision is not None
    label = next((str(a["label"]) for a in legal_actions_of(obs) if a["id"] == action), str(action))
    if decision["kind"] in ("select", "mode"):
        return label
    what = str(decision["prompt"]).split(": ", 1)[-1].split(" (", 1)[0]
    return f"{what}: {label}"


def to_round_end(log: Sequence[EventDoc], begin: int) -> int:
    """Where the narration of ``log[begin:]`` stops: after the round's end (and the match's), before the next
    round's deal, which is no part of the puzzle."""
    for i in range(begin, len(log)):
        if log[i]["kind"] == "round_end":
            return i + 2 if i + 1 < len(log) and log[i + 1]["kind"] == "match_end" else i + 1
    return len(log)


# ---------------------------------------------------------------------- one puzzle


class PuzzleRun:
    """One attempt at a puzzle, on the terminal game's screen: a :class:`TerminalGame` over a session that
    is never saved, whose match is moved on by the judge (the mover's steps and the solver's replies)."""

    def __init__(self, puzzle: Puzzle, start: Match, console: Console, read: InputFn):
        self.puzzle, self.start, self.mover = puzzle, start, puzzle.mover
        seats = (Seat("you"), Seat("them"))
        self.session = Session(start.clone(), seats if self.mover == 0 else (seats[1], seats[0]))
        self.game = TerminalGame(self.session, console, read)
        self.steps: list[int] = []

    def say(self, text: str | Text, style: str = "") -> None:
        self.game.say(text, style)

    def narrate(self, begin: int) -> None:
        """The mover's events from ``log[begin:]`` to the round's end, as the terminal game tells them (with
        the round's final board when it ends)."""
        log = self.session.log[self.mover]
        end = to_round_end(log, begin)
        for line, kind in narration_lines(log, begin, end, self.mover, "them", self.session.match.holder):
            self.say(Text(line if kind == "round_start" else f"  · {line}", style="bold" if kind else "dim"))
        ended = [e for e in log[begin:end] if e["kind"] == "round_end"]
        if ended:
            self.game.round_summary(self.mover, ended[0])

    def play(self) -> bool | None:
        """Play the puzzle to its end: whether it was solved (None: a step could not be judged); the solution
        and why the other plays fail are told either way. :class:`QuitGame` when the player leaves."""
        p = self.puzzle
        themes = ", ".join(theme_name(t) for t in p.themes) or "none"
        self.say(f"Puzzle {p.id} · rating {round(p.rating)} · themes: {themes}", style="bold")
        self.say(INSTRUCTION)
        s = self.session
        s.fetch(self.mover)
        # what the terminal game would have told before this decision: since the mover's last play this round
        log, begin = s.log[self.mover], s.round_start(self.mover)
        begin = max([begin] + [i for i in range(begin, len(log))
                               if log[i]["kind"] in ("play", "pass") and log[i]["player"] == self.mover])
        if begin < len(log):
            self.say(Text("Since your last play:" if log[begin]["kind"] != "round_start" else "This round so far:",
                          style="bold"))
            self.narrate(begin)
        solved = self.attempt()
        if solved:
            self.say(Text("Solved! You win the round, whatever they hold.", style="bold green"))
        self.explain()
        return solved

    def attempt(self) -> bool | None:
        s = self.session
        while True:
            obs = s.match.observation(self.mover, events_from=s.seen[self.mover])
            decision = obs["decision"]
            assert decision is not None  # the judge hands back the mover's decisions only
            if decision["kind"] == "select":  # a new play: the whole screen, as the terminal game shows it
                self.game.console.print(render(obs, self.game.style, other="them", show_hand=False))
            self.game.console.print(menu(obs, self.game.style))
            action = self.choose(obs)
            try:  # judged from here, not from the start again: the same verdict, without re-solving the past
                progress = follow(s.match, [action])
            except Unsolved:
                self.say("This step cannot be judged exactly (the endgame is too large); this attempt is not "
                         "counted.", style="yellow")
                return None
            if progress.wrong is not None:
                self.say(Text(f"Not quite: {self.failure(obs, action)}.", style="bold red"))
                return False
            self.steps.append(action)
            begin = len(s.log[self.mover])
            s.match = progress.match
            s.fetch(self.mover)
            self.narrate(begin)
            if progress.status == "failed":  # (not met on a puzzle's own terms: each step won in every case)
                self.say(Text("Not quite: the round is lost.", style="bold red"))
            if progress.status != "playing":
                return progress.status == "solved"
            if progress.match.decision_kind == "select":  # a play done: say so before the next one
                self.say(Text("✓ That still wins in every case. Go on.", style="green"))

    def choose(self, obs: Observation) -> int:
        """The mover's choice, read as the terminal game reads one (a number or a name; anything else asks
        again). No hint and no undo: either would give the answer away."""
        legal = legal_actions_of(obs)
        while True:
            raw = self.game.prompt(f"Your choice (1-{len(legal)}, or help, rules, quit): ")
            word = " ".join(raw.strip().lower().split())
            if word in ("help", "?", "h"):
                self.say(HELP)
            elif word == "rules":
                self.game.show_rules()
            elif word in ("quit", "q"):
                raise QuitGame
            elif word in ("hint", "undo", "undo turn"):
                self.say("No hints or take-backs in a puzzle: the answer is yours to find.", style="yellow")
            else:
                action = self.game.parse(word, legal)
                if action is not None:
                    return action

    def failure(self, obs: Observation, action: int) -> str:
        """Why the step ``action`` at ``obs`` fails: the puzzle's own word for its first play (the card, or
        the winning card placed otherwise), else the solver's at this step."""
        placing = len(self.steps) == 1 and obs["decision"] is not None and obs["decision"]["kind"] == "mode"
        key = (action, -1) if not self.steps else (self.steps[0], action) if placing else None
        known = next((w for w in self.puzzle.wrong if (w.action, w.then) == key), None)
        if known is not None:
            return f"{known.label}: {why_it_fails(known.lost, known.worlds)}"
        found = next((e for e in options(self.session.match.view(self.mover)) if e.action == action), None)
        why = why_it_fails(found.visits - int(found.wins), found.visits) if found else "it does not always win"
        return f"{step_text(obs, action)}: {why}"

    def explain(self) -> None:
        """The solution (the line's steps of the mover, a play a line, with the replies they saw) and why the
        other first plays fail; all from the mover's observation as the line is replayed."""
        match, mover = self.start.clone(), self.mover
        round_index = match.rounds_finished
        seen = len(match.observation(mover)["events"])
        plays: list[list[str]] = []
        for action in self.puzzle.line:
            if match.is_terminal or match.rounds_finished != round_index:
                break
            if match.current_player == mover:
                obs = match.observation(mover, events_from=seen)
                seen += len(obs["events"])
                replies = their_move(obs["events"], 0, mover)
                if plays:
                    plays[-1] += replies
                if obs["decision"] is not None and obs["decision"]["kind"] == "select":
                    plays.append([step_text(obs, action)])
                else:
                    plays[-1][0] += f", then {step_text(obs, action)}"
            match.apply(action)
        log = match.observation(mover, events_from=seen)["events"]
        if plays:  # their replies to the last play, to the round's end
            plays[-1] += their_move(log[:to_round_end(log, 0)], 0, mover)
        print_ = self.game.console.print  # (numbered: wrapped lines indented under their text, as in the menu)
        self.say(Text("The solution:", style="bold"))
        for n, (play, *replies) in enumerate(plays, start=1):
            print_(numbered(n, Text(play)))
            for reply in replies:
                print_(numbered(None, Text(reply, style="dim")))
        first = self.start.observation(mover, events=False)
        others = [step_text(first, a) for a in self.puzzle.solutions if a != self.puzzle.line[0]]
        if others:
            print_(numbered(None, Text(f"({' and '.join(others)} {'wins' if len(others) == 1 else 'win'} too.)")))
        if self.puzzle.wrong:
            self.say(Text("Why the other plays fail:", style="bold"))
            for w in self.puzzle.wrong:
                print_(numbered(None, Text(f"{w.label}: {why_it_fails(w.lost, w.worlds)}.")))


# ---------------------------------------------------------------------- the command


def puzzle_set(path: str | None) -> list[Puzzle]:
    """The puzzles of ``--file`` (each checked to replay to its mover's decision), or the shipped ones."""
    if path is None:
        return list(shipped())
    name = shown_path(path)
    try:
        puzzles = read_set(read_json_file(path, "puzzle set"), name)
    except PuzzleError as exc:
        raise UserError(clip(str(exc)), path=name) from None
    if not puzzles:
        raise UserError(f"{name} holds no puzzles", path=name)
    for i, p in enumerate(puzzles):
        position(p, f"{name}, puzzle {i + 1} ({p.id})")
    return puzzles


def position(puzzle: Puzzle, where: str) -> Match:
    """The puzzle's start, or a one-line :class:`UserError` when its record does not replay to a decision of
    its mover's."""
    try:
        start = puzzle.start()
    except ConvergeError as exc:
        raise UserError(f"{where}: field 'record' does not replay: {clip(str(exc), 120)}") from None
    except (KeyError, TypeError, ValueError, IndexError):
        raise UserError(f"{where}: field 'record' does not replay: it is damaged") from None
    if start.is_terminal or start.current_player != puzzle.mover or start.decision_kind != "select":
        raise UserError(f"{where}: field 'mover' is not the player choosing a card at its position")
    return start


def theme_key(word: str, puzzles: Sequence[Puzzle]) -> str:
    """The theme ``word`` names (its key, or its words for players, in any case)."""
    keys = sorted({t for p in puzzles for t in p.themes})
    wanted = " ".join(word.lower().split())
    for key in keys:
        if wanted in (key.lower(), theme_name(key).lower()):
            return key
    # (the list last: a long one is cut at the line's end, the way to see it all still said)
    raise UserError(f"unknown theme {quoted(word)}: converge puzzles --themes lists them ({', '.join(keys)})")


def list_themes(puzzles: Sequence[Puzzle], console: Console) -> None:
    counts: dict[str, int] = {}
    for p in puzzles:
        for t in p.themes:
            counts[t] = counts.get(t, 0) + 1
    console.print(f"Themes of the {len(puzzles)} puzzles (play one with: converge puzzles --theme KEY):",
                  markup=False, highlight=False)
    for key in sorted(counts, key=lambda k: (-counts[k], theme_name(k))):
        console.print(f"  {counts[key]:>4}  {theme_name(key)} ({key})", markup=False, highlight=False)


def play_puzzles(args: argparse.Namespace) -> int:
    puzzles = puzzle_set(args.file)
    console = console_for()
    if args.themes:
        list_themes(puzzles, console)
        return 0
    chosen: Puzzle | None = None
    if args.puzzle_id is not None:
        if args.theme is not None:
            raise UserError("--id plays one puzzle: --theme chooses among them; give one or the other")
        chosen = next((p for p in puzzles if p.id == args.puzzle_id.strip().lower()), None)
        if chosen is None:
            where = shown_path(args.file) if args.file else "the puzzles that come with converge"
            raise UserError(f"no puzzle {quoted(args.puzzle_id)} in {where}")
    pool = puzzles
    if args.theme is not None:
        key = theme_key(args.theme, puzzles)
        pool = [p for p in puzzles if key in p.themes]
    path = progress_path()
    standing = Standing.load(path)  # (before anything is shown: a damaged file stops here, untouched)
    read = line_reader(console)
    unjudged: set[str] = set()  # (tried, but a step could not be judged: not offered again in this sitting)
    try:
        while True:
            puzzle = chosen or next_puzzle(pool, standing, unjudged)
            if puzzle is None:
                console.print(f"You have tried all {len(pool)} puzzles{' of this theme' if args.theme else ''}: "
                              "converge puzzles --id ID plays one again.", markup=False, highlight=False)
                return 0
            done = attempt(puzzle, standing, path, console, read)
            if done is None:
                unjudged.add(puzzle.id)
            if done is False or chosen is not None:
                return 0
            answer = read("Next puzzle: press Enter (or q to quit): ").strip().lower()
            while answer not in ("", "q", "quit"):
                answer = read("Press Enter for the next puzzle, or q to quit: ").strip().lower()
            if answer:
                return 0
    except (EOFError, KeyboardInterrupt, QuitGame):  # (the progress is saved after each puzzle)
        console.print()
        return 0


def attempt(puzzle: Puzzle, standing: Standing, path: Path, console: Console, read: InputFn) -> bool | None:
    """One puzzle played and counted: True; False when the player left it, None when a step could not be
    judged (nothing counted either way)."""
    start = position(puzzle, f"puzzle {puzzle.id}")
    try:
        solved = PuzzleRun(puzzle, start, console, read).play()
    except QuitGame:
        return False
    if solved is None:
        return None
    rated = standing.record(puzzle, solved)
    problem = standing.save(path)
    if rated is None:
        console.print("You had tried this puzzle before: this attempt is not rated.", markup=False)
    else:
        streak = f"; streak: {standing.streak} solved in a row" if standing.streak else ""
        before, after = round(rated.player_before.r), round(rated.player_after.r)
        console.print(f"Your puzzle rating: {before} → {after}{streak}", markup=False, highlight=False)
    if problem:
        console.print(Text(problem, style="yellow"))
    return True
