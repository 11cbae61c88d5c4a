"""``converge puzzles`` in the terminal: a puzzle solved by typing its solution and failed by a listed wrong play
(with the reason), the player's rating moved both ways and saved, the streak, only a first attempt rated, the
choice of the next puzzle, --themes / --theme / --id / --file, bad input (one line, exit code 2, nothing
changed), and nothing of the opponent's hidden cards on screen.

The shipped set will be replaced by a larger one: puzzles are picked from it by their properties, never by id.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from converge.cli.main import main
from converge.cli.puzzle_play import Standing, next_puzzle, why_it_fails
from converge.engine.schema import legal_actions_of
from converge.puzzles.model import Puzzle, Wrong, set_doc, shipped
from converge.puzzles.themes import theme_name
from tests.cli.test_terminal import _run_piped

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Iterator[Run]:
    """``converge puzzles ARGS`` in this process, ``typed`` as its piped input, the data directory in tmp_path:
    (exit code, stdout, stderr)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("COLUMNS", raising=False)

    def go(*args: str, typed: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
        code = main(["puzzles", *args])
        out, err = capsys.readouterr()
        return code, out, err

    yield go


def _progress(tmp_path: Path) -> Path:
    return tmp_path / "converge" / "puzzles.json"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _numbers(puzzle: Puzzle, steps: list[int]) -> list[str]:
    """The menu numbers that play ``steps``, the mover's, from the puzzle's start (the solver replying as in
    its line)."""
    match, typed = puzzle.start(), []
    line = iter(puzzle.line)
    for step in steps:
        while match.current_player != puzzle.mover:
            match.apply(next(line))
        typed.append(str([a["id"] for a in legal_actions_of(match.observation(puzzle.mover))].index(step) + 1))
        match.apply(step)
        next(line, None)
    return typed


def _solution(puzzle: Puzzle) -> list[int]:
    match, steps = puzzle.start(), []
    for action in puzzle.line:
        if match.current_player == puzzle.mover:
            steps.append(action)
        match.apply(action)
    return steps


def _typed_solution(puzzle: Puzzle) -> str:
    return "\n".join(_numbers(puzzle, _solution(puzzle))) + "\n"


def _wrong_steps(w: Wrong) -> list[int]:
    return [w.action] if w.then < 0 else [w.action, w.then]


def _typed_wrong(puzzle: Puzzle, w: Wrong) -> str:
    return "\n".join(_numbers(puzzle, _wrong_steps(w))) + "\n"


def _with_replies() -> Puzzle:
    """A puzzle of more than one play (the solver replies in between)."""
    return next(p for p in shipped() if p.plays > 1)


def _failing_card() -> tuple[Puzzle, Wrong]:
    """A puzzle and a wrong card (however it is placed) on which the opponent can still win some case."""
    return next((p, w) for p in shipped() for w in p.wrong if w.then < 0 and w.lost > 0)


# ---------------------------------------------------------------------- solving and failing


def test_solving_a_puzzle_by_typing_its_solution(run: Run, tmp_path: Path) -> None:
    puzzle = _with_replies()
    code, out, err = run("--id", puzzle.id, typed=_typed_solution(puzzle))
    assert code == 0, err
    flat = _flat(out)
    assert f"Puzzle {puzzle.id} · rating {round(puzzle.rating)} · themes: " \
           f"{', '.join(theme_name(t) for t in puzzle.themes)}" in flat
    assert "Win this round: find the play that wins whatever they hold and however they reply." in flat
    assert "✓ That still wins in every case. Go on." in out
    assert "Solved! You win the round, whatever they hold." in out and "Not quite" not in out
    solution = flat.split("The solution:")[1]
    start = puzzle.start()
    legal = legal_actions_of(start.observation(puzzle.mover))
    first = next(a["label"] for a in legal if a["id"] == puzzle.line[0])
    assert first in solution
    assert "Why the other plays fail:" in solution and puzzle.wrong[0].label in solution
    after = re.search(r"Your puzzle rating: 1500 → (\d+); streak: 1 solved in a row", out)
    assert after and int(after[1]) > 1500
    saved = json.loads(_progress(tmp_path).read_text(encoding="utf-8"))
    assert saved["tried"] == {puzzle.id: True} and saved["streak"] == 1
    assert round(saved["rating"]["r"]) == int(after[1])


def test_failing_a_puzzle_by_a_listed_wrong_play_says_why(run: Run, tmp_path: Path) -> None:
    puzzle, wrong = _failing_card()
    code, out, err = run("--id", puzzle.id, typed=_typed_wrong(puzzle, wrong))
    assert code == 0, err
    flat = _flat(out)
    assert f"Not quite: {wrong.label}: {why_it_fails(wrong.lost, wrong.worlds)}." in flat
    assert "Solved!" not in out and "The solution:" in out
    after = re.search(r"Your puzzle rating: 1500 → (\d+)\n", out)
    assert after and int(after[1]) < 1500
    saved = json.loads(_progress(tmp_path).read_text(encoding="utf-8"))
    assert saved["tried"] == {puzzle.id: False} and saved["streak"] == 0


def test_a_wrong_placement_of_a_winning_card_is_explained_too(run: Run) -> None:
    puzzle, wrong = next((p, w) for p in shipped() for w in p.wrong if w.then >= 0)
    code, out, _ = run("--id", puzzle.id, typed=_typed_wrong(puzzle, wrong))
    assert code == 0
    assert f"Not quite: {wrong.label}: {why_it_fails(wrong.lost, wrong.worlds)}." in _flat(out)


def test_the_reasons_in_words() -> None:
    assert why_it_fails(2, 3) == "in 2 of 3 cases they can still win the round"
    assert why_it_fails(3, 3) == "in all 3 cases they can still win the round"
    assert why_it_fails(1, 1) == "they can still win the round"
    assert why_it_fails(0, 4) == "it could win only by guessing which cards they hold"


def test_streak_and_only_the_first_attempt_rated(run: Run, tmp_path: Path) -> None:
    solvable = [p for p in shipped() if p.id != _failing_card()[0].id][:2]
    for n, p in enumerate(solvable, start=1):
        code, out, _ = run("--id", p.id, typed=_typed_solution(p))
        assert code == 0 and f"streak: {n} solved in a row" in out
    before = _progress(tmp_path).read_text(encoding="utf-8")
    code, out, _ = run("--id", solvable[0].id, typed=_typed_solution(solvable[0]))  # again: not rated
    assert code == 0 and "You had tried this puzzle before: this attempt is not rated." in out
    assert "Your puzzle rating" not in out
    assert _progress(tmp_path).read_text(encoding="utf-8") == before
    puzzle, wrong = _failing_card()
    code, out, _ = run("--id", puzzle.id, typed=_typed_wrong(puzzle, wrong))
    saved = json.loads(_progress(tmp_path).read_text(encoding="utf-8"))
    assert saved["streak"] == 0 and saved["best_streak"] == 2 and len(saved["tried"]) == 3
    assert "streak" not in out.split("Your puzzle rating")[1].splitlines()[0]


def test_next_puzzle_is_the_untried_one_nearest_the_players_rating(run: Run, tmp_path: Path) -> None:
    first = min(shipped(), key=lambda p: (abs(p.rating - 1500), p.id))
    code, out, _ = run(typed=_typed_solution(first) + "\nq\n")  # Enter: the next one; q at its first prompt
    assert code == 0
    assert out.startswith(f"Puzzle {first.id} ·")
    second = next_puzzle(shipped(), Standing.load(_progress(tmp_path)))
    assert second is not None and second.id != first.id
    assert f"Puzzle {second.id} ·" in out
    assert json.loads(_progress(tmp_path).read_text(encoding="utf-8"))["tried"] == {first.id: True}


def test_a_prompt_asks_again_after_what_is_not_a_choice(run: Run) -> None:
    puzzle = _with_replies()
    code, out, _ = run("--id", puzzle.id, typed="abc\n99\n\nhint\n" + _typed_solution(puzzle))
    assert code == 0 and "Solved!" in out
    assert "There is no choice 99" in out and "Type the number of a choice" in out
    assert "No hints or take-backs in a puzzle" in out
    assert "Traceback" not in out


def test_end_of_input_or_quit_leaves_cleanly_and_counts_nothing(run: Run, tmp_path: Path) -> None:
    puzzle = _with_replies()
    for typed in ("", "quit\n", _numbers(puzzle, _solution(puzzle))[0] + "\n"):
        code, out, err = run("--id", puzzle.id, typed=typed)
        assert code == 0 and not err and "Traceback" not in out
    assert not _progress(tmp_path).exists()


def test_piped_play_through_the_command(tmp_path: Path) -> None:
    puzzle, wrong = _failing_card()
    done = _run_piped(["puzzles", "--id", puzzle.id], _typed_wrong(puzzle, wrong), tmp_path, NO_COLOR="1")
    assert done.returncode == 0, done.stderr
    assert "Not quite:" in done.stdout and "Traceback" not in done.stdout + done.stderr
    assert json.loads(_progress(tmp_path).read_text(encoding="utf-8"))["tried"] == {puzzle.id: False}


# ---------------------------------------------------------------------- hidden information


def _hidden_ids(puzzle: Puzzle) -> set[str]:
    """The ids of the cards hidden from the mover at the start and never in their view along the line, to
    the round's end (not the next round's deal, which is no part of the puzzle)."""
    match = puzzle.start()
    ids = match.playset.card_ids
    hidden = {ids[c] for c in match.hidden_from(puzzle.mover)}
    shown = json.dumps(match.observation(puzzle.mover))
    round_index = match.rounds_finished
    for action in puzzle.line:
        match.apply(action)
        if match.rounds_finished == round_index:
            shown += json.dumps(match.observation(puzzle.mover))
    events = match.observation(puzzle.mover)["events"]
    shown += json.dumps(events[:next(i for i, e in enumerate(events) if e["kind"] == "round_end"
                                     and e["round"] == round_index + 1) + 1])
    return {c for c in hidden if not re.search(rf"\b{c}\b", shown)}


@pytest.mark.parametrize("how", ["solved", "failed"])
def test_nothing_hidden_from_the_mover_is_printed(run: Run, how: str) -> None:
    puzzles = [p for p in shipped() if p.wrong][:8]
    seen_hidden = 0
    for puzzle in puzzles:
        hidden = _hidden_ids(puzzle)
        seen_hidden += len(hidden)
        typed = _typed_solution(puzzle) if how == "solved" else _typed_wrong(puzzle, puzzle.wrong[-1])
        code, out, _ = run("--id", puzzle.id, typed=typed)
        assert code == 0 and ("Solved!" in out) == (how == "solved")
        leaked = [c for c in hidden if re.search(rf"\b{c}\b", out)]
        assert not leaked, f"puzzle {puzzle.id} shows hidden cards {leaked}"
    assert seen_hidden  # (the check checked something)


# ---------------------------------------------------------------------- themes, ids, files


def test_themes_lists_each_theme_with_its_count(run: Run) -> None:
    code, out, _ = run("--themes")
    assert code == 0
    for key in {t for p in shipped() for t in p.themes}:
        count = sum(key in p.themes for p in shipped())
        assert re.search(rf"^ +{count}  {re.escape(theme_name(key))} \({re.escape(key)}\)$", out, re.M), key


def test_theme_chooses_among_its_puzzles_by_key_or_words(run: Run) -> None:
    key = min({t for p in shipped() for t in p.themes}, key=lambda k: sum(k in p.themes for p in shipped()))
    for word in (key, theme_name(key).upper()):
        code, out, _ = run("--theme", word, typed="q\n")
        assert code == 0
        shown = re.search(r"^Puzzle (\w+) ·", out, re.M)
        assert shown and key in next(p for p in shipped() if p.id == shown[1]).themes


def test_file_plays_its_own_puzzles(run: Run, tmp_path: Path) -> None:
    puzzle = _with_replies()
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(set_doc([puzzle])), encoding="utf-8")
    code, out, _ = run("--file", str(path), typed=_typed_solution(puzzle))
    assert code == 0 and f"Puzzle {puzzle.id} ·" in out and "Solved!" in out
    code, out, _ = run("--file", str(path), typed="")  # all of its puzzles tried
    assert code == 0 and "You have tried all 1 puzzles" in out


def _bad_set(tmp_path: Path, field: str, value: object) -> str:
    """A set whose second puzzle's ``field`` is ``value``."""
    doc = set_doc(shipped()[:2])
    doc["puzzles"][1][field] = value
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


BAD_FILES: dict[str, Callable[[Path], str]] = {
    "{bad-mover}": lambda tmp: _bad_set(tmp, "mover", "one"),
    "{bad-record}": lambda tmp: _bad_set(tmp, "record", {**shipped()[1].record, "actions": [999]}),
    "{other-mover}": lambda tmp: _bad_set(tmp, "mover", 1 - shipped()[1].mover),
    "{not-a-set}": lambda tmp: _bad_json(tmp, "[]"),
    "{not-json}": lambda tmp: _bad_json(tmp, "{"),
}


def _bad_json(tmp_path: Path, text: str) -> str:
    (tmp_path / "bad.json").write_text(text, encoding="utf-8")
    return str(tmp_path / "bad.json")


@pytest.mark.parametrize(("args", "said"), [
    (["--theme", "nonsense"], "unknown theme 'nonsense': converge puzzles --themes lists them (declare, "),
    (["--id", "zzzzzzzz"], "no puzzle 'zzzzzzzz' in the puzzles that come with converge"),
    (["--id", "x", "--theme", "take"], "--id plays one puzzle"),
    (["--file", "missing.json"], "no such file: missing.json"),
    (["--file", "{bad-mover}"], "bad.json, puzzle 2: field 'mover' must hold integers"),
    (["--file", "{bad-record}"], "bad.json, puzzle 2 ("),
    (["--file", "{other-mover}"], "field 'mover' is not the player choosing a card"),
    (["--file", "{not-a-set}"], "bad.json is not a puzzle set"),
    (["--file", "{not-json}"], "bad.json is not valid JSON"),
])
def test_bad_input_is_one_line_exit_2_and_changes_nothing(run: Run, tmp_path: Path, args: list[str],
                                                         said: str) -> None:
    if args[-1] in BAD_FILES:
        args = [*args[:-1], BAD_FILES[args[-1]](tmp_path)]
    code, out, err = run(*args, typed=_typed_solution(shipped()[0]))
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("converge: error: ") and said in err, err
    assert not out
    assert not _progress(tmp_path).exists()


def test_missing_field_is_named(run: Run, tmp_path: Path) -> None:
    doc = set_doc(shipped()[:2])
    del doc["puzzles"][1]["line"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run("--file", str(path))
    assert code == 2 and "puzzle 2: field 'line' is missing" in err


def test_a_damaged_progress_file_is_refused_and_kept(run: Run, tmp_path: Path) -> None:
    path = _progress(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "converge-puzzle-progress", "rating": 3}', encoding="utf-8")
    code, _, err = run(typed=_typed_solution(shipped()[0]))
    assert code == 2 and len(err.splitlines()) == 1 and "your puzzle progress cannot be read" in err
    assert path.read_text(encoding="utf-8") == '{"format": "converge-puzzle-progress", "rating": 3}'


def test_progress_stays_out_of_the_saved_matches_folder(run: Run, tmp_path: Path) -> None:
    puzzle = _with_replies()
    run("--id", puzzle.id, typed=_typed_solution(puzzle))
    assert _progress(tmp_path).exists()
    assert not list((tmp_path / "converge").glob("matches/*.json"))  # (each is read as a saved match)
