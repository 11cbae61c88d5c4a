"""``converge balance``: what is flagged, with which thresholds, and the exit codes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from converge.cli.main import main
from converge.simulation import tables
from converge.simulation.balance import Criteria, check, parse_band


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _playset(name: str, rate: float, rounds: int = 1000) -> dict[str, Any]:
    wins = round(rate * rounds)
    return {"playset": name, "skillsets": name.split("/"), "matches": rounds // 2, "rounds": rounds,
            "holder_wins": wins, "holder_win_rate": rate, "holder_win_rate_ci95": [rate - 0.03, rate + 0.03],
            "ends": {"outscored": rounds, "hands_empty": 0}, "end_shares": {"outscored": 1.0, "hands_empty": 0.0},
            "mean_round_turns": 6.0, "mean_match_rounds": 2.5}


def _card(cid: str, rate: float, plays: int = 5000) -> dict[str, Any]:
    return {"id": cid, "name": f"Card {cid}", "stars": 1, "all_win_rate": rate, "all_plays": plays,
            "all_win_rate_ci95": [rate - 0.01, rate + 0.01]}


def _goal(cid: str, stars: int, rate: float, turn_ends: int = 10000) -> dict[str, Any]:
    return {"id": cid, "goal": f"Goal of {cid}", "stars": stars, "fulfilment_rate": rate, "turn_ends": turn_ends}


FAIR: dict[str, Any] = {
    "playsets": [_playset("a/b/c", 0.5), _playset("a/b/d", 0.41), _playset("b/c/d", 0.59)],
    "goals": [_goal("A1", 1, 0.45), _goal("A2", 1, 0.17), _goal("A3", 2, 0.12), _goal("A4", 2, 0.051),
              _goal("A5", 3, 0.03), _goal("A6", 3, 0.001)],
    "cards": [_card("A1", 0.5), _card("A2", 0.42), _card("A3", 0.58)],
}


def test_a_fair_summary_passes() -> None:
    report = check(FAIR)
    assert report.passed and report.flags == [] and report.not_judged == []
    assert report.judged == {"playsets": 3, "goals": 6, "cards": 3, "ways of playing a card": 0}
    assert report.to_dict()["passed"] is True


def test_a_playset_whose_starting_holder_wins_too_often_or_too_rarely_is_flagged() -> None:
    s = copy.deepcopy(FAIR)
    s["playsets"] += [_playset("x/y/z", 0.63, rounds=4000), _playset("u/v/w", 0.36, rounds=4000)]
    report = check(s)
    assert [(f.kind, f.subject) for f in report.flags] == [("playset", "x/y/z"), ("playset", "u/v/w")]
    assert "starting holder wins 63.0% of rounds (95% interval 60." in report.flags[0].message
    assert "for all 14 items judged together; 4000 rounds); expected 40.0%-60.0%" in report.flags[0].message
    assert check(s, Criteria(holder_band=(0.35, 0.65))).passed


def test_a_goal_whose_fulfilment_rate_does_not_match_its_stars_is_flagged() -> None:
    s = copy.deepcopy(FAIR)
    s["goals"] += [_goal("B1", 2, 0.25), _goal("B2", 1, 0.10), _goal("B3", 3, 0.08), _goal("B4", 2, 0.02)]
    report = check(s)
    flags = {f.subject: f for f in report.flags}
    assert sorted(flags) == ["B1", "B2", "B3", "B4"]
    assert "easier than its stars say" in flags["B1"].message and "plays like a 1-star goal" in flags["B1"].message
    assert "harder than its stars say" in flags["B2"].message and "plays like a 2-star goal" in flags["B2"].message
    assert "plays like a 2-star goal" in flags["B3"].message
    assert "plays like a 3-star goal" in flags["B4"].message
    assert Criteria().stars_for(0.2) == 1 and Criteria().stars_for(0.1) == 2 and Criteria().stars_for(0.01) == 3
    assert check(s, Criteria(star_cuts=(0.3, 0.01))).flags[0].subject == "A2"  # 17%: now a 2-star rate


def test_a_card_never_or_always_worth_playing_is_flagged() -> None:
    s = copy.deepcopy(FAIR)
    s["cards"] += [_card("C1", 0.35), _card("C2", 0.66)]
    report = check(s)
    assert [(f.subject, f.value) for f in report.flags] == [("C1", 0.35), ("C2", 0.66)]
    assert "never worth playing" in report.flags[0].message
    assert "always worth playing" in report.flags[1].message


def test_BAL_a_figure_whose_interval_holds_the_line_is_near_it_not_flagged() -> None:
    """A borderline case: 37.5% of 256 rounds, whose 95% interval (31.8-43.6%) holds the 40% line, is not
    flagged but listed as near the line; 4,000 rounds at the same rate clear it."""
    borderline = {"playsets": [_playset("a/b/c", 0.375, rounds=256)], "goals": [], "cards": []}
    report = check(borderline)
    assert report.passed and [f.subject for f in report.near] == ["a/b/c"]
    lo, hi = report.near[0].interval
    assert lo < 0.40 < hi and round(lo, 3) == 0.318 and round(hi, 3) == 0.436
    assert "95% interval 31.8%-43.6%; 256 rounds" in report.near[0].message  # one item: no correction said
    assert not check({**borderline, "playsets": [_playset("a/b/c", 0.375, rounds=4000)]}).passed


def test_BAL_flags_are_corrected_for_the_number_of_items_judged() -> None:
    """A card whose players win 36.5% of 1,000 plays: judged alone, its 95% interval (33.6-39.5%) clears the
    40% line; judged beside 99 fair cards, the wider intervals that hold together for all 100 do not, so it is
    near the line, not flagged."""
    lone = {"playsets": [], "goals": [], "cards": [_card("C1", 0.365, plays=1000)]}
    assert [f.subject for f in check(lone).flags] == ["C1"]
    crowd = {**lone, "cards": lone["cards"] + [_card(f"F{i}", 0.5) for i in range(99)]}
    report = check(crowd)
    assert report.passed and [f.subject for f in report.near] == ["C1"]
    assert "for all 100 items judged together" in report.near[0].message
    assert round(report.z, 2) == 3.48 and report.to_dict()["near_the_line"][0]["subject"] == "C1"


def test_BAL_a_card_fair_over_all_but_a_sure_win_one_way_is_flagged_for_that_way() -> None:
    """Declaring it wins 81% of rounds, though over all its plays the card is fair: the declare is flagged,
    named as such; a way with too few plays is not judged."""
    card = _card("CAR5", 0.52, plays=6000) | {
        "plays": {"discard": 3000, "declare": 1500, "mine": 1400, "theirs": 100},
        "win_rate": {"discard": 0.45, "declare": 0.813, "mine": 0.40, "theirs": 0.9}}
    report = check({**FAIR, "cards": [*FAIR["cards"], card]})
    assert [(f.subject, f.figure) for f in report.flags] == [("CAR5", "win_rate.declare")]
    assert "card CAR5 Card CAR5 declared: its player wins 81.3% of those rounds" in report.flags[0].message
    assert report.judged["ways of playing a card"] == 3  # theirs: 100 plays, fewer than 200
    assert report.judged_text().endswith("4 cards and 3 ways of playing them judged")


def test_too_few_observations_are_not_judged() -> None:
    s = copy.deepcopy(FAIR)
    s["playsets"].append(_playset("x/y/z", 0.9, rounds=20))
    s["goals"].append(_goal("B1", 3, 0.9, turn_ends=100))
    s["cards"].append(_card("C1", 0.1, plays=50))
    report = check(s)
    assert report.passed
    assert len(report.not_judged) == 3 and "x/y/z: 20 rounds" in report.not_judged[0]
    assert not check(s, Criteria(min_rounds=10, min_plays=10, min_samples=10)).passed


def test_criteria_are_checked() -> None:
    with pytest.raises(ValueError, match="holder band"):
        Criteria(holder_band=(0.6, 0.4))
    with pytest.raises(ValueError, match="star cuts"):
        Criteria(star_cuts=(0.05, 0.2))
    assert parse_band("0.4,0.6") == (0.4, 0.6)
    assert parse_band("40, 60") == (0.4, 0.6)
    assert parse_band("45%,55%") == (0.45, 0.55)
    with pytest.raises(ValueError, match="two numbers"):
        parse_band("0.4")
    with pytest.raises(ValueError, match="two numbers"):
        parse_band("a,b")


# ---------------------------------------------------------------------- the command


def test_balance_judges_an_earlier_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sim = tmp_path / "sim"
    code, _, err = run(capsys, "simulate", "--set", "sparks", "-n", "6", "--workers", "1", "--out", str(sim),
                       "--no-report", "--no-progress")
    assert code == 0, err
    summary = str(sim / "summary.json")
    loose = ["--holder-band", "0,1", "--card-band", "0,1", "--star-cuts", "0.99,0.0001"]
    code, out, _ = run(capsys, "balance", "--summary", summary, *loose, "--min-samples", "1")
    assert code == 1  # every goal "plays like" 2 stars with those cuts
    assert "out of line" in out and "plays like a 2-star goal" in out
    code, out, _ = run(capsys, "balance", "--summary", summary, "--holder-band", "0,1", "--card-band", "0,1",
                       "--min-samples", "1000000")
    assert code == 0 and "nothing out of line" in out and "not judged" in out
    code, out, _ = run(capsys, "balance", "--summary", summary, "--holder-band", "0.99,1",
                       "--min-rounds", "1")
    assert code == 1 and "starting holder wins" in out


def test_balance_simulates_then_flags_and_sets_the_exit_code(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "bal"
    code, out, err = run(capsys, "balance", "--set", "catalysts", "-n", "8", "--workers", "2",
                         "--out", str(out_dir), "--min-rounds", "1", "--holder-band", "0.99,1")
    assert code == 1, err
    assert "balance: " in err and "matches/s" in err
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["balance"]["passed"] is False
    assert summary["balance"]["flags"][0]["kind"] == "playset"
    assert summary["balance"]["criteria"]["holder_band"] == [0.99, 1]
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert "out of line" in page and "starting holder wins" in page
    code, out, _ = run(capsys, "balance", "--set", "catalysts", "-n", "8", "--workers", "1", "--out", str(out_dir),
                       "--holder-band", "0,1", "--card-band", "0,1", "--min-samples", "100000", "--no-progress")
    assert code == 0 and "nothing out of line" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--holder-band", "0.6"], "two numbers"),
    (["--holder-band", "0.6,0.4"], "holder band"),
    (["--star-cuts", "0.01,0.2"], "star cuts"),
    (["--min-plays", "0"], "positive whole number"),
    (["--confidence", "1"], "below 1"),
    (["--confidence", "high"], "a number such as 0.95"),
])
def test_balance_bad_criteria_are_user_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              argv: list[str], fragment: str) -> None:
    code, _, err = run(capsys, "balance", "--set", "catalysts", "-n", "1", "--out", str(tmp_path / "x"), *argv)
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("converge: error: ") and fragment in err
    assert not (tmp_path / "x").exists()


def test_balance_summary_file_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"x": 1}', encoding="utf-8")
    for path, fragment in ((tmp_path / "missing.json", "no such file"), (bad, "not valid JSON"),
                           (other, "not a summary.json")):
        code, _, err = run(capsys, "balance", "--summary", str(path))
        assert code == 2 and fragment in err.strip().splitlines()[-1] and "Traceback" not in err


def test_balance_summary_with_impossible_rates_is_a_user_error(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    """A hand-edited summary whose rates cannot be rates (an overflow, a rate above 1) is refused as not one
    of ours, without a traceback."""
    for rate in (1e308, 7.5, -2.0):
        s = copy.deepcopy(FAIR)
        s["cards"][0] |= {"all_win_rate": rate}
        path = tmp_path / "edited.json"
        path.write_text(json.dumps(s), encoding="utf-8")
        code, _, err = run(capsys, "balance", "--summary", str(path))
        assert code == 2 and "is not a summary.json written by converge simulate" in err and "Traceback" not in err


# ---------------------------------------------------------------------- versions compared


def test_BAL_the_difference_interval_is_newcombes() -> None:
    from converge.simulation.compare import difference_interval

    # Newcombe (1998), method 10, its worked examples: 56/70 - 48/80 and 9/10 - 3/10
    lo, hi = difference_interval(56, 70, 48, 80)
    assert round(lo, 4) == 0.0524 and round(hi, 4) == 0.3339
    lo, hi = difference_interval(9, 10, 3, 10)
    assert round(lo, 4) == 0.1705 and round(hi, 4) == 0.8090


def _played(cid: str, plays: dict[str, int], rates: dict[str, float]) -> dict[str, Any]:
    """A card of a summary with each way of playing it (the rate over all plays: their weighted mean)."""
    total = sum(plays.values())
    return _card(cid, sum(rates[m] * plays[m] for m in plays) / total, plays=total) | {
        "rank": 5, "goal": f"Goal of {cid}", "effect": "Convert", "plays": plays, "win_rate": rates}


def test_BAL_a_flag_whose_figure_was_not_judged_on_the_other_side_is_neither_fixed_nor_broken() -> None:
    """Declaring CAR5 won 75.6% of 86 rounds before (too few to judge) and 71.8% of 380 now: out of line now,
    but not broken by the new version. CAR6 lost 30% of 1,000 discards before (flagged) and of 150 now (too
    few): not fixed. CAR7, fair before and out of line now on as many plays, is broken; CAR8 the other way,
    fixed. The exit code still fails on every flag the old version had not."""
    from converge.simulation.compare import compare

    fair = {"discard": 0.5, "declare": 0.5, "mine": 0.5, "theirs": 0.5}
    many = {"discard": 1000, "declare": 1000, "mine": 1000, "theirs": 1000}
    old = {"playsets": [], "goals": [], "cards": [
        _played("CAR5", {"discard": 1000, "declare": 86, "mine": 500, "theirs": 500}, fair | {"declare": 0.756}),
        _played("CAR6", many, fair | {"discard": 0.30}),
        _played("CAR7", many, fair),
        _played("CAR8", many, fair | {"mine": 0.70})]}
    new = {"playsets": [], "goals": [], "cards": [
        _played("CAR5", {"discard": 1000, "declare": 380, "mine": 500, "theirs": 500}, fair | {"declare": 0.718}),
        _played("CAR6", {**many, "discard": 150}, fair | {"discard": 0.30}),
        _played("CAR7", many, fair | {"theirs": 0.30}),
        _played("CAR8", many, fair)]}
    result = compare(old, new)
    assert [m.split(":")[0] for m in result.broke] == ["card CAR7 Card CAR7 added to the opponent's faction"]
    assert [m.split(":")[0] for m in result.fixed] == ["card CAR8 Card CAR8 added to its player's faction"]
    assert [m.split(":")[0] for m in result.new_unjudged_before] == ["card CAR5 Card CAR5 declared"]
    assert [m.split(":")[0] for m in result.old_unjudged_now] == ["card CAR6 Card CAR6 discarded"]
    lines = result.lines()
    assert "flagged now, too few observations before to judge: 1" in lines
    assert "flagged before, too few observations now to judge (simulate more matches): 1" in lines
    assert result.newly_flagged
    assert not compare(old, old).newly_flagged and compare(old, old).lines()[-1].startswith("broke")
    without_car7 = {**new, "cards": [c for c in new["cards"] if c["id"] != "CAR7"]}
    assert compare(old, without_car7).broke == [] and compare(old, without_car7).newly_flagged  # CAR5 declared


def test_balance_compare_two_deck_folders_reports_the_changed_card_with_its_interval(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Two versions of a deck that differ in one card: the comparison names that card first, with each of its
    figures old and new and the interval of the change, and plays both versions on the same seeds."""
    builtin = Path(__file__).resolve().parents[2] / "src" / "converge" / "cards" / "decks" / "alchemist.toml"
    text = builtin.read_text(encoding="utf-8").replace("Alchemist", "Tinker").replace("ALC", "TIN")
    text = text.replace('name = "', 'name = "Tinker ')  # (card names are unique across the decks)
    old, new = tmp_path / "v1", tmp_path / "v2"
    for folder in (old, new):
        folder.mkdir()
    (old / "tinker.toml").write_text(text, encoding="utf-8")
    head, tail = text.split('id = "TIN5"', 1)
    card, rest = tail.split("[[card]]", 1) if "[[card]]" in tail else (tail, "")
    easier = "\n".join('goal = { kind = "most_cards", stars = 3 }' if line.startswith("goal") else line
                       for line in card.splitlines())
    (new / "tinker.toml").write_text(head + 'id = "TIN5"' + easier + ("\n[[card]]" + rest if rest else ""),
                                     encoding="utf-8")
    out_dir = tmp_path / "cmp"
    code, out, err = run(capsys, "balance", "--compare", str(old), str(new), "--playset", "tinker,healer,delver",
                         "-n", "40", "--workers", "2", "--out", str(out_dir), "--no-progress")
    assert code in (0, 1), err
    lines = out.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("cards that differ")))].endswith(": TIN5")
    tin5 = [x for x in lines if x.startswith("  card TIN5 round win rate after a play: ")]
    assert len(tin5) == 1 and "points, interval " in tin5[0]
    head = next(x for x in lines if x.startswith("intervals of the changes: "))
    assert head.startswith("intervals of the changes: 95% for all ")
    assert head.endswith(" figures compared together")
    assert any(x.startswith("  goal TIN5 fulfilment rate: ") for x in lines)
    assert (out_dir / "old" / "summary.json").is_file() and (out_dir / "new" / "summary.json").is_file()
    # the same seeds: the old side's first figures repeat a plain run of the old decks
    again = json.loads((out_dir / "old" / "summary.json").read_text(encoding="utf-8"))
    assert again["settings"]["seed"] == 1 and again["settings"]["playsets"] == 1
    if tables.have("matplotlib"):  # the before-and-after plot, the changed card's figures first
        from converge.simulation.compare import compare
        from converge.simulation.plots import comparison_rows

        assert f"wrote {out_dir / 'compare.png'} (before and after)" in out
        assert (out_dir / "compare.png").read_bytes().startswith(b"\x89PNG")
        new_doc = json.loads((out_dir / "new" / "summary.json").read_text(encoding="utf-8"))
        shown = comparison_rows(compare(again, new_doc))
        assert {c.subject for c in shown[:6]} == {"card TIN5", "goal TIN5"}
        assert all(c.clear for c in shown if c.subject not in ("card TIN5", "goal TIN5"))


def test_balance_compare_of_two_summaries_without_a_change_draws_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The same summary twice: no card differs, no change is clear, so there is no plot to draw."""
    code, _, err = run(capsys, "simulate", "--playset", "alchemist,healer,delver", "-n", "2", "--workers", "1",
                       "--out", str(tmp_path / "run"), "--no-report", "--no-progress")
    assert code == 0, err
    path = tmp_path / "run" / "summary.json"
    code, out, err = run(capsys, "balance", "--compare", str(path), str(path), "--out", str(tmp_path / "o"))
    assert code == 0, err
    assert "cards that differ: none" in out and "other clear changes" in out and ": 0 of" in out
    assert "wrote" not in out and not (tmp_path / "o" / "compare.png").exists()


# ---------------------------------------------------------------------- the designer's verdict


def test_BAL_ways_of_playing_a_card_with_too_few_plays_are_named_as_not_judged() -> None:
    """A way of playing a judged card with fewer plays than needed is listed with its plays and the plays it
    needs (it used to vanish without a word)."""
    s = copy.deepcopy(FAIR)
    s["cards"] = [_played("CAR1", {"discard": 1000, "declare": 12, "mine": 500, "theirs": 0},
                          {"discard": 0.5, "declare": 0.9, "mine": 0.5, "theirs": 0.5})]
    report = check(s)
    assert "card CAR1 Card CAR1 declared: 12 plays (at least 200 needed)" in report.not_judged
    theirs = "card CAR1 Card CAR1 added to the opponent's faction: 0 plays (at least 200 needed)"
    assert theirs in report.not_judged
    verdict = {v.figure: v for v in report.verdicts if v.subject == "CAR1"}
    assert verdict["win_rate.declare"].status == "not judged" and verdict["win_rate.declare"].interval is None
    assert verdict["win_rate.discard"].status == "fair" and verdict["win_rate.discard"].interval is not None
    assert report.judged["ways of playing a card"] == 2


def _yours(summary: dict[str, Any], skillset: str) -> dict[str, Any]:
    out = copy.deepcopy(summary)
    out["settings"] = {"yours": {"skillsets": [skillset], "playsets": 1, "of_playsets": 1}}
    out["skillsets"] = [{"skillset": skillset, "key": skillset.lower()}]
    for card in out["cards"]:
        card["skillset"] = skillset if card["id"].startswith("MY") else "Other"
    return out


def test_BAL_with_the_users_decks_the_exit_code_counts_their_flags_alone_unless_strict_all() -> None:
    s = copy.deepcopy(FAIR)
    s["cards"] += [_card("MY1", 0.5), _card("PUB1", 0.2)]  # the published card is out of line
    s["playsets"].append(_playset("my/b/c", 0.5))
    s = _yours(s, "My")
    report = check(s)
    assert [f.subject for f in report.flags] == ["PUB1"]
    assert report.passed and report.counted == []
    assert not check(s, strict_all=True).passed
    assert {(v.subject, v.figure) for v in report.your_verdicts()} == {("MY1", "all_win_rate"),
                                                                       ("my/b/c", "holder_win_rate")}
    s["cards"][-2]["all_win_rate"] = 0.2  # now the user's card is out of line too
    mine = check(s)
    assert not mine.passed and [f.subject for f in mine.counted] == ["MY1"]
    doc: Any = mine.to_dict()["yours"]
    assert {v["subject"]: v["status"] for v in doc["verdicts"]} == {"my/b/c": "fair", "MY1": "flagged"}


def test_BAL_a_flag_that_crossed_the_line_without_a_clear_change_is_neither_fixed_nor_broken() -> None:
    """A published card near the line (38% of 400 plays before, 36% now) that crosses it when the designer
    edits another card: the change is no clear change, so the edit did not break it; it is listed apart and
    the exit code does not fail on it."""
    from converge.simulation.compare import compare

    fair = {"discard": 0.5, "declare": 0.5, "mine": 0.5, "theirs": 0.5}
    plays = {"discard": 2000, "declare": 2000, "mine": 2000, "theirs": 2000}
    old = {"playsets": [], "goals": [], "cards": [_played("PUB1", {**plays, "theirs": 600},
                                                          fair | {"theirs": 0.38})]}
    new = {"playsets": [], "goals": [], "cards": [_played("PUB1", {**plays, "theirs": 600},
                                                          fair | {"theirs": 0.31})]}
    assert [f.figure for f in check(old).near] == ["win_rate.theirs"] and check(old).flags == []
    assert [f.figure for f in check(new).flags] == ["win_rate.theirs"]
    result = compare(old, new)
    assert result.broke == [] and not result.newly_flagged
    assert len(result.crossed) == 1 and result.crossed[0].endswith("(flagged now)")
    assert any(line.startswith("crossed the line without a clear change") for line in result.lines())
    far = {"playsets": [], "goals": [], "cards": [_played("PUB1", {**plays, "theirs": 600},
                                                          fair | {"theirs": 0.5})]}
    assert len(compare(far, new).broke) == 1 and compare(far, new).newly_flagged  # a clear change: broken


def _tinker(tmp_path: Path, name: str, goals: dict[str, str]) -> Path:
    """The Alchemist deck as a designer's Tinker deck, with some cards' goals replaced."""
    builtin = Path(__file__).resolve().parents[2] / "src" / "converge" / "cards" / "decks" / "alchemist.toml"
    text = builtin.read_text(encoding="utf-8").replace("Alchemist", "Tinker").replace("ALC", "TIN")
    text = text.replace('name = "', 'name = "Tinker ').replace('color = "magenta"', 'color = "cyan"')
    for old, new in goals.items():
        assert old in text
        text = text.replace(old, new)
    folder = tmp_path / name
    folder.mkdir()
    (folder / "tinker.toml").write_text(text, encoding="utf-8")
    return folder


def test_BAL_a_designers_deck_is_judged_first_and_alone(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's bar: a new deck with an overpowered card (TIN2: a 1-star goal printed with three stars) and
    a useless one (TIN5: a goal no faction reaches, one star): balance's first table names both and the exit
    code is 1; the deck fixed, the exit code is 0 while the published cards keep their flags (counted with
    --strict-all)."""
    strong = {'goal = { kind = "different_ranks", count = 4, stars = 2 }':
              'goal = { kind = "most_cards", stars = 3 }'}
    useless = {'goal = { kind = "each_skillset", stars = 2 }':
               'goal = { kind = "rank_total", at_least = 30, stars = 1 }'}
    ranks = {'goal = { kind = "rank_total", at_least = 18, stars = 3 }':  # Alchemist's own ALC6 plays as 2 stars
             'goal = { kind = "rank_total", at_least = 18, stars = 2 }'}
    broken = _tinker(tmp_path, "broken", strong | useless | ranks)
    fixed = _tinker(tmp_path, "fixed", {**ranks,
                                        **{k: 'goal = { kind = "most_cards", stars = 1 }' for k in strong},
                                        **{k: 'goal = { kind = "highest_skillset", stars = 1 }' for k in useless}})
    monkeypatch.setenv("COLUMNS", "200")  # a table row on one line
    args = ["--playset", "tinker,mechanist,protector", "-n", "1500", "--seed", "1", "--workers", "2",
            "--no-progress", "--no-report"]
    code, out, err = run(capsys, "balance", "--deck-dir", str(broken), *args, "--out", str(tmp_path / "b"))
    assert code == 1, err
    first = out.index("Your decks:")
    assert first < out.index("starting holder wins") and first < out.index("Skillsets")
    table = out[first:out.index("Skillsets")]
    rows = [line for line in table.splitlines() if "OUT OF LINE" in line]
    assert any("goal 'Most cards' (★★★)" in line for line in rows), table
    assert any("goal 'Rank total of 30 or more' (★)" in line for line in rows), table
    summary = json.loads((tmp_path / "b" / "summary.json").read_text(encoding="utf-8"))
    flagged = {v["subject"] for v in summary["balance"]["yours"]["verdicts"] if v["status"] == "flagged"}
    assert {"TIN2", "TIN5"} <= flagged

    code, out, err = run(capsys, "balance", "--deck-dir", str(fixed), *args, "--out", str(tmp_path / "f"))
    assert code == 0, out
    summary = json.loads((tmp_path / "f" / "summary.json").read_text(encoding="utf-8"))
    published = [f for f in summary["balance"]["flags"] if not f["subject"].startswith("TIN")]
    assert published and all(f["subject"][:3] in ("MEC", "PRO") for f in published)
    assert "not counted in the exit code" in out
    code, out, _ = run(capsys, "balance", "--summary", str(tmp_path / "f" / "summary.json"), "--strict-all")
    assert code == 1 and "counts every deck's flags" in out
