"""A match review: each decision judged from the player's view then, marked by the chance lost; the same
review for matches the player cannot tell apart; ``converge review`` and its practice."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from converge import Match
from converge.bots import make_bot
from converge.bots.review import BLUNDER, INACCURACY, MISTAKE, Judged, review, whole_points
from converge.engine.playset import Playset
from converge.simulation.runner import play_match
from tests.bots.test_ismcts import _Peeking
from tests.engine.test_indistinguishable import chance_pairs
from tests.helpers import assert_user_error, run


def _judged(best: float, played: float) -> Judged:
    return Judged(0, 1, 1, "select", 1, "play A", played, 2, "play B", best, ((2, "play B", best),))


def test_marks_follow_the_chance_lost_as_shown() -> None:
    """The marks go by the points shown (the loss rounded once): 7.9 points lost is shown as 8, an inaccuracy
    (the page says "an inaccuracy from 8 points"); 7.4 is shown as 7, not marked."""
    assert _judged(0.6, 0.6).mark == "" and _judged(0.6, 0.6).lost == 0.0
    assert _judged(0.6, 0.6 - 0.074).mark == "" and _judged(0.6, 0.6 - 0.074).lost_points == 7
    assert _judged(0.6, 0.6 - 0.079).mark == "inaccuracy" and _judged(0.6, 0.6 - 0.079).lost_points == 8
    assert _judged(0.6, 0.6 - INACCURACY).mark == "inaccuracy"
    assert _judged(0.6, 0.6 - MISTAKE).mark == "mistake"
    assert _judged(0.6, 0.6 - BLUNDER).mark == "blunder"


def test_the_figures_shown_agree_44_and_40_lose_4_points() -> None:
    """44.4% against 39.6%: the loss is rounded once from the unrounded chances (4.8: 5 points), and the played
    option is shown as the best's points less it (39%), never "44%, 40%, 5 points"."""
    d = _judged(0.444, 0.396)
    assert (d.points(d.best_chance), d.points(d.played_chance), d.lost_points) == (44, 39, 5)
    doc = d.to_dict()
    assert (doc["best"]["points"], doc["played"]["points"], doc["lost_points"]) == (44, 39, 5)
    assert _judged(0.444, 0.436).lost_points == 1  # ("1 point": the page and the terminal say it so)


@given(st.floats(0, 1), st.floats(0, 1))
def test_the_whole_points_always_agree_with_each_other(a: float, b: float) -> None:
    best, played = max(a, b), min(a, b)
    d = _judged(best, played)
    shown_best, shown_played = d.points(best), d.points(played)
    assert shown_best - shown_played == d.lost_points == whole_points(best - played)  # rounded once
    assert 0 <= shown_played <= shown_best <= 100
    assert abs(shown_best - 100 * best) <= 0.5 + 1e-6 and abs(shown_played - 100 * played) <= 1 + 1e-6
    assert (d.mark != "") == (d.lost_points >= whole_points(INACCURACY))


def test_turns_are_counted_in_each_round_as_the_log_counts_them() -> None:
    """ "Round 2, turn 2" is the second turn of round 2 (one turn of it scored before), as the log and the
    replay say, not the match's fourth turn."""
    m = play_match(["alchemist", "mechanist", "archivist"], 11, [make_bot("random", 1), make_bot("greedy", 2)])
    start = Match.replay(m.record(), upto=0)
    r = review(start, m.history, seat=0, simulations=40)
    assert {d.round_no for d in r.decisions} >= {1, 2}
    for d in r.decisions:
        then = Match.replay(m.record(), upto=d.index)
        since = [e for e in then.observation(-1, events_from=0)["events"]]
        start_of_round = max(i for i, e in enumerate(since) if e["kind"] == "round_start")
        scored = sum(e["kind"] == "score" for e in since[start_of_round:])
        assert d.turn_no == scored + 1, (d.round_no, d.turn_no, scored)


def test_the_same_view_with_other_hidden_cards_gives_the_same_review() -> None:
    """Pairs of matches one player cannot tell apart (other hidden cards, other seeds): the same review;
    a planted peek at the live match reviews them differently, so the comparison can fail."""
    rng = random.Random(8)
    told_apart = compared = 0
    for k in range(4):
        playset = Playset.from_names(["alchemist", "searcher", "merchant"] if k % 2 else
                                     ["protector", "delver", "healer"])
        *_, pair = chance_pairs(playset, k % 2, rng, 60)
        starts = [Match.new(playset, seed=m.seed, start=pair.start, chance=True) for m in (pair.a, pair.b)]
        runs = [(starts[0], pair.actions), (starts[1], pair.renamed)]
        a, b = (review(s, acts, pair.viewer, simulations=80) for s, acts in runs)
        assert a.decisions and [d.choices for d in a.decisions] == [d.choices for d in b.decisions]
        compared += 1
        peeked = [review(s, acts, pair.viewer, simulations=80, view_of=lambda m, p: _Peeking(m, p))
                  for s, acts in runs]
        told_apart += [d.choices for d in peeked[0].decisions] != [d.choices for d in peeked[1].decisions]
    assert compared == 4 and told_apart >= 2


def test_a_random_player_is_marked_and_a_time_budget_stops_the_review() -> None:
    m = play_match(["alchemist", "mechanist", "archivist"], 11, [make_bot("random", 1), make_bot("greedy", 2)])
    start = Match.replay(m.record(), upto=0)
    r = review(start, m.history, seat=0, simulations=300)
    assert r.complete and r.marked() and sum(r.counts().values()) == len(r.marked())
    assert all(d.best_chance == max(c for _, _, c in d.choices) for d in r.decisions)
    assert [d.index for d in r.decisions] == sorted(d.index for d in r.decisions)
    assert all(m.history[d.index] == d.played for d in r.decisions)
    cut = review(start, m.history, seat=0, simulations=300, seconds=1e-9)
    assert not cut.complete and len(cut.decisions) < len(r.decisions)


@pytest.fixture
def record(tmp_path: Path) -> Path:
    m = play_match(["alchemist", "mechanist", "archivist"], 11, [make_bot("random", 1), make_bot("greedy", 2)])
    path = tmp_path / "match.json"
    path.write_text(json.dumps(m.record()), encoding="utf-8")
    return path


def test_review_prints_each_decision_the_marks_the_chart_and_the_totals(
        capsys: pytest.CaptureFixture[str], record: Path) -> None:
    code, out, err = run(capsys, "review", str(record), "--simulations", "200")
    assert code == 0, err
    assert "Review of Player 1's decisions" in out and "never the cards revealed later" in out
    assert "inaccuracy from 8 points, mistake from 15, blunder from 25" in out
    assert "R1 T1" in out and "played " in out and "round 1: " in out
    for line in out.splitlines():  # the figures agree, and one point is "1 point"
        said = re.search(r"\((\d+)%\); best .* \((\d+)%\), (\d+) (points?) lost", line)
        if said:
            played, best, lost = (int(x) for x in said.groups()[:3])
            assert best - played == lost and (said.group(4) == "point") == (lost == 1), line
    totals = out.strip().splitlines()[-1]
    assert totals.startswith("Totals: ") and "decisions with a choice" in totals
    assert " — mistake" in out or " — blunder" in out or " — inaccuracy" in out


def test_review_practise_puts_the_player_back_at_each_marked_decision(
        capsys: pytest.CaptureFixture[str], record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter(["x", "1", "skip"])

    def read(prompt: str = "") -> str:
        print(prompt)
        for answer in answers:
            return answer
        raise EOFError

    monkeypatch.setattr("builtins.input", read)
    code, out, err = run(capsys, "review", str(record), "--simulations", "200", "--practise")
    assert code == 0, err
    assert "Practice 1 of " in out and "Type a number from 1 to" in out
    assert "to win the round — " in out and "In the match you played" in out  # the retry was judged
    # and the next marked decision came up after it (or the practice ended there)
    assert out.count("Practice ") >= 2 or "Practice 1 of 1" in out


def test_review_of_an_unfinished_match_or_a_bad_file_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=2)
    for _ in range(6):
        m.apply(m.legal_actions()[0])
    path = tmp_path / "unfinished.json"
    path.write_text(json.dumps(m.record()), encoding="utf-8")
    code, _, err = run(capsys, "review", str(path))
    assert_user_error(code, err, "this match is not finished")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    code, _, err = run(capsys, "review", str(bad))
    assert_user_error(code, err, "is not valid JSON")
    code, _, err = run(capsys, "review", str(path), "--seat", "3")
    assert code == 2 and "expected 1 or 2" in err
