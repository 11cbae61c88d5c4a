"""``converge calibrate``: the figures that say how far a hint's chances can be trusted, the calibration map
fitted from them, and the samples they come from."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

import converge.bots.hint as hint_module
from converge.bots.budgets import HINT
from converge.bots.hint import Calibration, shipped_calibration
from converge.engine.turn import DECISION_KINDS
from converge.simulation.calibration import (
    MAX_CALIBRATION_ERROR,
    Sample,
    Setting,
    fit,
    measure,
    read_samples,
    sample,
)
from tests.helpers import assert_user_error, run

SMALL = Setting(bots=("greedy", "greedy"), hint_simulations=60, playout="ismcts:30")


def synthetic(n: int, truth: float = 1.0, seed: int = 0) -> list[Sample]:
    """Decisions whose chance is drawn at random and whose rounds are won with probability ``truth`` times
    that chance: calibrated at 1.0, over-confident below it."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        chance = rng.random()
        out.append(Sample(i, chance, rng.random() < truth * chance, chance, 3, False, "select"))
    return out


def test_a_calibrated_source_meets_the_bars_and_an_over_confident_one_misses_them() -> None:
    good = measure(synthetic(4000), resamples=200)
    assert good.calibration_error.value < MAX_CALIBRATION_ERROR
    assert abs(good.overconfidence.value) < 0.03
    assert all(ok for _, ok in good.bars()), good.lines()
    lo, hi = good.calibration_error.interval
    assert lo <= good.calibration_error.value <= hi
    bad = measure(synthetic(4000, truth=0.7), resamples=200)
    assert bad.overconfidence.value > 0.15 and bad.overconfidence.interval[0] > 0.1
    assert not dict(bad.bars())[next(t for t, _ in bad.bars() if t.startswith("over-confidence"))]
    worst = bad.worst_tenth()
    assert worst is not None and worst.gap > 0.08


def test_the_reliability_table_counts_each_tenth() -> None:
    samples = [Sample(0, 0.05, False, 0.05, 2, True, "mode"), Sample(1, 0.95, True, 0.95, 2, True, "mode"),
               Sample(2, 0.99, False, 0.99, 2, False, "select"), Sample(3, 1.0, True, 1.0, 2, True, "select")]
    r = measure(samples, resamples=50)
    assert [t.decisions for t in r.tenths] == [1, 0, 0, 0, 0, 0, 0, 0, 0, 3]
    assert r.tenths[9].won == pytest.approx(2 / 3) and r.tenths[0].won == 0.0
    assert r.brier == pytest.approx((0.05 ** 2 + 0.05 ** 2 + 0.99 ** 2 + 0.0) / 4)
    assert r.by_kind == {"mode": (2, 0.5, 0.5), "select": (2, 0.995, 0.5)}
    with pytest.raises(ValueError):
        measure([])


def test_a_fitted_map_rises_and_corrects_an_over_confident_source() -> None:
    """Fitted on one set of over-confident decisions, the map makes another set's chances true."""
    cal = fit(synthetic(6000, truth=0.7, seed=1))
    ys = [y for _, y in cal.knots]
    assert ys == sorted(ys) and cal.fitted_on == 6000
    assert Calibration.from_dict(json.loads(json.dumps(cal.to_dict()))) == cal
    fresh = synthetic(4000, truth=0.7, seed=2)
    before = measure(fresh, resamples=100)
    after = measure(fresh, resamples=100, chance=lambda s: cal(s.raw))
    assert before.calibration_error.value > 0.1
    assert after.calibration_error.value < MAX_CALIBRATION_ERROR
    assert cal(0.9) == pytest.approx(0.63, abs=0.06)


def test_a_calibration_map_that_goes_down_or_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match="rising"):
        Calibration.from_dict({"knots": [[0, 0.5], [1, 0.4]]})
    with pytest.raises(ValueError, match="not a calibration map"):
        Calibration.from_dict({"knots": "no"})
    assert Calibration()(0.37) == pytest.approx(0.37)


def test_a_sample_repeats_from_its_seed_and_plays_one_of_the_hints_options() -> None:
    a, b = sample(11, SMALL), sample(11, SMALL)
    assert a == b
    assert 0.0 <= a.chance <= 1.0 and a.options >= 2 and a.kind in DECISION_KINDS
    assert shipped_calibration()(a.raw) == a.chance  # the chance shown is the shipped map's of the search's value
    others = {sample(seed, SMALL).seed for seed in range(12, 15)}
    assert others == {12, 13, 14}


def test_calibrate_plays_writes_its_samples_measures_them_again_and_fits_a_map(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out, fitted = tmp_path / "samples.json", tmp_path / "map.json"
    argv = ["calibrate", "-n", "4", "--bots", "greedy,greedy", "--hint-simulations", "60", "--playout",
            "ismcts:30", "--no-progress"]
    code, text, err = run(capsys, *argv, "--out", str(out), "--fit", str(fitted))
    assert code in (0, 1), err
    assert "4 decisions; Brier score" in text and "calibration error" in text and "reliability by tenths" in text
    assert any(line.startswith(("meets: ", "MISSES: ")) for line in text.splitlines())
    assert "fitted on 4 decisions" in err
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert len(read_samples(doc)) == 4 and doc["setting"]["playout"] == "ismcts:30"
    Calibration.from_dict(json.loads(fitted.read_text(encoding="utf-8")))
    code, again, _ = run(capsys, "calibrate", "--samples", str(out))
    assert code in (0, 1) and again.splitlines() == text.splitlines()
    # samples of a run that judged the search's own values are judged again with the map, as the hint shows
    raw = tmp_path / "raw.json"
    code, text_raw, err = run(capsys, *argv, "--raw", "--out", str(raw))
    assert text_raw.startswith("judged: the search's own values"), text_raw
    code, mapped, _ = run(capsys, "calibrate", "--samples", str(raw))
    assert mapped.startswith("judged: the chances the hint shows") and mapped.splitlines() == text.splitlines()
    code, unmapped, _ = run(capsys, "calibrate", "--samples", str(raw), "--raw")
    assert unmapped.splitlines() == text_raw.splitlines()
    # kept samples are measured with the chances the hint shows now (the map read at each kept value), and
    # several files are pooled
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({**doc, "samples": [{**x, "chance": 0.5} for x in doc["samples"]]}),
                     encoding="utf-8")
    code, now, _ = run(capsys, "calibrate", "--samples", str(stale))
    assert now.splitlines()[1:] == text.splitlines()[1:]
    code, pooled, _ = run(capsys, "calibrate", "--samples", str(out), str(stale))
    assert "8 decisions; Brier score" in pooled
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**doc, "setting": {**doc["setting"], "playout": "ismcts:31"}}), encoding="utf-8")
    code, _, err = run(capsys, "calibrate", "--samples", str(out), str(other))
    assert_user_error(code, err, "measured with different settings")


def test_a_fitted_map_records_the_budget_its_samples_were_searched_on(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that judges the shipped map searches on that map's budget, a run of the search's own values on
    the budget a new map is fitted on (``budgets.HINT``): each map fitted records the one its samples had."""
    shipped = shipped_calibration()
    monkeypatch.setattr(hint_module, "_SHIPPED", [replace(shipped, budget=replace(shipped.budget, parts=3))])
    argv = ["calibrate", "-n", "2", "--bots", "greedy,greedy", "--hint-simulations", "60", "--playout",
            "ismcts:30", "--no-progress"]
    for extra, budget in (((), replace(shipped.budget, parts=3)), (("--raw",), HINT)):
        fitted = tmp_path / "map.json"
        code, _, err = run(capsys, *argv, *extra, "--fit", str(fitted))
        assert code in (0, 1), err
        assert Calibration.from_dict(json.loads(fitted.read_text(encoding="utf-8"))).budget == \
            replace(budget, simulations=60)


def test_calibrate_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"samples": [{"seed": 1}]}', encoding="utf-8")
    code, _, err = run(capsys, "calibrate", "--samples", str(bad))
    assert_user_error(code, err, "is not a samples file written by converge calibrate --out")
    code, _, err = run(capsys, "calibrate", "--bots", "greedy")
    assert code == 2 and "expected two bots" in err
    code, _, err = run(capsys, "calibrate", "--playout", "wizard")
    assert code == 2 and "unknown bot 'wizard'" in err


def test_the_shipped_map_meets_every_bar_on_the_measured_decisions_it_was_not_fitted_on(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The decisions kept in ``benchmarks/calibration`` (2,000 a seed; the map was fitted on those in
    ``fitted/``), judged with the chances the hint shows now: every bar met, and the figures are those the docs
    give."""
    root = Path(__file__).resolve().parents[2]
    files = sorted(str(p) for p in (root / "benchmarks" / "calibration").glob("seed*.json"))
    fitted = {p.name for p in (root / "benchmarks" / "calibration" / "fitted").glob("seed*.json")}
    assert files and not fitted & {Path(f).name for f in files}  # (out of sample only)
    code, text, err = run(capsys, "calibrate", "--samples", *files)
    assert code == 0, text + err
    assert f"{2000 * len(files):,} decisions" in text and "MISSES" not in text
    assert text.startswith("judged: the chances the hint shows")
    skill = re.search(r"skill (\d\.\d{3})", text)
    error = re.search(r"calibration error (\d\.\d{3})", text)
    over = re.search(r"or more: ([+-]\d+\.\d) points", text)
    assert skill and error and over
    said = (root / "docs" / "bots.md").read_text(encoding="utf-8").replace("\n", " ")
    assert error[1] in said and f"{over[1].lstrip('+')} points" in said
    said = (root / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    way = "less often" if float(over[1]) > 0 else "more often"  # (over-confident: won less often than said)
    assert error[1] in said and f"{abs(float(over[1])):.1f} points {way} than said" in said
    assert f"skill {skill[1]}" in (root / "docs" / "bots.md").read_text(encoding="utf-8")
    assert f"{100 * float(skill[1]):.1f}% better" in (root / "README.md").read_text(encoding="utf-8")


def test_the_shipped_map_is_the_fit_of_the_kept_decisions_it_was_fitted_on(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``converge calibrate --samples benchmarks/calibration/fitted/seed*.json --fit FILE`` makes the shipped
    map again, knot for knot: the map is reproducible from the decisions kept with it."""
    root = Path(__file__).resolve().parents[2]
    files = sorted(str(p) for p in (root / "benchmarks" / "calibration" / "fitted").glob("seed*.json"))
    again = tmp_path / "map.json"
    code, _, err = run(capsys, "calibrate", "--samples", *files, "--fit", str(again))
    assert code in (0, 1) and f"fitted on {2000 * len(files):,} decisions" in err, err
    assert Calibration.from_dict(json.loads(again.read_text(encoding="utf-8"))) == shipped_calibration()
