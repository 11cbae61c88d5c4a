"""Puzzles (issue 43): every shipped puzzle's solution wins in every world consistent with the mover's view
against every reply, and each listed wrong play fails in at least one; the generator's claims agree with a
brute force on small positions; a puzzle shows nothing the mover could not see; a bad set is refused with
the puzzle and the field named."""

from __future__ import annotations

import json
import random

import pytest

from converge import Match
from converge.puzzles.judge import follow
from converge.puzzles.make import candidate, starting_rating
from converge.puzzles.model import Puzzle, PuzzleError, read_set, set_doc, shipped
from converge.puzzles.rating import rate
from converge.puzzles.themes import THEMES, theme_name
from converge.ratings import Rating
from converge.server.play.match.turnlog import follow_ups

SKILLSETS = {"alchemist", "mechanist", "archivist", "protector", "searcher", "merchant", "delver", "astropath",
             "healer"}


def _wins(m: Match, me: int, round_index: int) -> bool:
    """Brute force, both players seeing everything: whether ``me`` wins the round from ``m`` with best play."""
    if m.is_terminal or m.rounds_finished > round_index:
        return m.round_winners[round_index] == me
    results = []
    for a in m.legal_actions():
        after = m.clone(False, False)
        after.apply(a)
        results.append(_wins(after, me, round_index))
    return any(results) if m.current_player == me else all(results)


def _after(world: Match, steps: list[int]) -> Match:
    m = world.clone(False, False)
    for a in steps:
        m.apply(a)
    return m


def test_every_shipped_puzzle_is_solved_by_its_line_and_every_listed_wrong_play_fails_in_a_world() -> None:
    """The bar: each shipped puzzle solved again now by the exact solver (native where built; the solver is
    checked against a brute force in tests/bots/test_endgame.py, and the generator's claims below): its
    solutions are the plays that win in every world consistent with the mover's view against every reply, each
    wrong play listed fails in as many worlds as it says (or, in none, still does not win in every case), and
    the line, the solver replying, is judged solved step by step."""
    puzzles = shipped()
    assert len(puzzles) >= 200
    for puzzle in puzzles:
        start = puzzle.start()
        assert start.current_player == puzzle.mover and start.decision_kind == "select", puzzle.id
        found = candidate(start.view(puzzle.mover))
        assert found is not None, puzzle.id
        assert sorted({s[0] for s in found.solutions}) == puzzle.solutions, puzzle.id
        assert found.wrong == puzzle.wrong, puzzle.id
        assert follow(start, [a for _, a in puzzle.mover_steps()]).status == "solved", puzzle.id


def test_the_shipped_set_covers_the_nine_skillsets_and_its_themes_have_words() -> None:
    puzzles = shipped()
    assert {s for p in puzzles for s in p.skillsets} == SKILLSETS
    keys = {t for p in puzzles for t in p.themes}
    assert {"take", "keep"} <= keys
    for key in keys:
        assert key in THEMES or key.startswith("effect:"), key
        assert theme_name(key) and theme_name(key) != key
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert len({p.rating for p in puzzles}) >= 3  # (the bots' levels tell them apart)


def _small(puzzle: Puzzle) -> bool:
    obs = puzzle.start().observation(puzzle.mover, events=False)
    return sum(obs["hand_sizes"]) == 2


def test_the_generators_plays_agree_with_a_brute_force_on_small_positions() -> None:
    """On the shipped puzzles with few cards left (a brute force's size), the generator's claims made again:
    a solution wins in every world (brute force, after the play, best play on both sides; the plays it names
    as solutions are the whole set), and a wrong play's count of lost worlds is the brute force's."""
    small = [p for p in shipped() if _small(p)]
    assert len(small) >= 5
    for puzzle in small:
        start = puzzle.start()
        mover, round_index = puzzle.mover, start.rounds_finished
        found = candidate(start.view(mover))
        assert found is not None, puzzle.id
        assert sorted({s[0] for s in found.solutions}) == puzzle.solutions
        worlds = start.view(mover).endgame_worlds()
        assert worlds
        for solution in found.solutions:
            assert all(_wins(_after(w, list(solution)), mover, round_index) for w in worlds), solution
        for w in found.wrong:
            steps = [w.action] + ([w.then] if w.then >= 0 else [])
            assert sum(not _wins(_after(x, steps), mover, round_index) for x in worlds) == w.lost


@pytest.mark.parametrize("which", range(0, 12))
def test_a_puzzle_shows_nothing_the_mover_could_not_see(which: int) -> None:
    """What a page or a terminal is sent of a puzzle — the mover's observation and the follow-ups of their
    choices — is the same in every deal the mover cannot tell from the real one (the hidden cards dealt again)."""
    puzzles = shipped()
    puzzle = puzzles[which * len(puzzles) // 12]
    start = puzzle.start()
    shown = json.dumps([start.observation(puzzle.mover), follow_ups(start, puzzle.mover)], sort_keys=True)
    for seed in range(3):
        other = start.redacted(puzzle.mover, random.Random(seed))
        again = json.dumps([other.observation(puzzle.mover), follow_ups(other, puzzle.mover)], sort_keys=True)
        assert again == shown


def test_a_solve_raises_the_players_rating_and_lowers_the_puzzles_and_a_fail_the_reverse() -> None:
    won = rate(Rating(), Rating(1800.0, 200.0), True)
    assert won.player_after.r > 1500 and won.puzzle_after.r < 1800
    lost = rate(Rating(), Rating(1800.0, 200.0), False)
    assert lost.player_after.r < 1500 and lost.puzzle_after.r > 1800
    assert lost.puzzle_after.rd >= 60


def test_a_bad_puzzle_set_names_the_puzzle_and_the_field() -> None:
    doc = set_doc(shipped()[:2])
    assert [p.id for p in read_set(doc)] == [p.id for p in shipped()[:2]]
    doc["puzzles"][1]["line"] = None
    with pytest.raises(PuzzleError, match=r"puzzle 2: field 'line' must be a list"):
        read_set(doc, "bad.json")
    doc["puzzles"][1] = {"id": "x"}
    with pytest.raises(PuzzleError, match=r"puzzle 2: field 'record' is missing"):
        read_set(doc, "bad.json")
    with pytest.raises(PuzzleError, match="not a puzzle set"):
        read_set({"format": "converge-record"}, "bad.json")


def test_a_shipped_puzzles_starting_rating_is_the_bots_made_again() -> None:
    """A puzzle's starting rating comes from the bots' attempts, seeded: made again, it is the one shipped (of a
    puzzle the easy bot solves and of one only a stronger level, or none, does)."""
    by_rating: dict[float, Puzzle] = {}
    for p in shipped():
        by_rating.setdefault(p.rating, p)
    for puzzle in sorted(by_rating.values(), key=lambda p: p.rating)[:2]:
        assert starting_rating(puzzle.start()) == puzzle.rating, puzzle.id
