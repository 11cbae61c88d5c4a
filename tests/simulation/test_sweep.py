"""``converge balance --sweep``: one card's parameter played at each value on the same seeds."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from converge.cards.loader import builtin_sources, load_decks
from converge.cli.main import main
from converge.simulation.sweep import deck_toml, parse_sweep, with_value


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_sweep_is_a_card_a_part_a_parameter_and_its_values() -> None:
    s = parse_sweep("GAR6.goal.at_least=2..6")
    assert (s.card, s.part, s.param, s.values) == ("GAR6", "goal", "at_least", (2, 3, 4, 5, 6))
    assert parse_sweep("ALC3.effect.skillset=own,choose").values == ("own", "choose")
    assert parse_sweep("ALC3.effect.count=1, 2").values == (1, 2)
    assert parse_sweep("X1.goal.stars=1..3").name == "X1.goal.stars"


@pytest.mark.parametrize("text, fragment", [
    ("GAR6.at_least=2..6", "CARD.goal.PARAM=VALUES"),
    ("GAR6.rank.x=1..2", "CARD.goal.PARAM=VALUES"),
    ("GAR6.goal.at_least=6..2", "empty"),
    ("GAR6.goal.at_least=4", "at least two values"),
    ("GAR6.goal.at_least=1..40", "at most 20 values"),
    ("GAR6.goal.at_least=3,3", "twice"),
])
def test_a_malformed_sweep_says_what_is_wrong(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_sweep(text)


@given(st.sampled_from(builtin_sources()))
def test_a_deck_written_again_reads_as_the_same_data(source: tuple[str, str]) -> None:
    data = tomllib.loads(source[1])
    assert tomllib.loads(deck_toml(data)) == data


@given(st.integers(min_value=10, max_value=30))
def test_a_value_changes_that_parameter_of_that_card_alone(value: int) -> None:
    sources = builtin_sources()
    changed = with_value(sources, parse_sweep("ALC6.goal.at_least=1,2"), value)
    before, after = load_decks(sources), load_decks(changed)
    for key, deck in before.items():
        for old, new in zip(deck.cards, after[key].cards, strict=True):
            if old.id == "ALC6":
                assert new.goal.params["at_least"] == value and new.goal.stars == old.goal.stars
                assert new.effect == old.effect and new.name == old.name
            else:
                assert new == old


def test_balance_sweep_plays_each_value_and_says_which_fit(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    """Grand Transmuter's 3-star goal "Rank total of 18 or more" swept from 14 to 22 on one playset: the
    higher the total, the rarer the goal (the same seeds for every value); each value's verdict follows
    the star bands, and sweep.json and the plot are written."""
    pytest.importorskip("matplotlib")
    out_dir = tmp_path / "sweep"
    code, out, err = run(capsys, "balance", "--sweep", "ALC6.goal.at_least=14,18,22", "--playset",
                         "alchemist,mechanist,archivist", "-n", "60", "--seed", "3", "--workers", "2",
                         "--no-progress", "--out", str(out_dir), "--min-samples", "500")
    assert code == 0, err
    doc = json.loads((out_dir / "sweep.json").read_text(encoding="utf-8"))
    assert doc["sweep"] == "ALC6.goal.at_least"
    assert doc["settings"]["playsets"] == ["alchemist/mechanist/archivist"]
    rates = [p["rate"] for p in doc["points"]]
    assert [p["value"] for p in doc["points"]] == [14, 18, 22]
    assert rates[0] > rates[1] > rates[2]
    for p in doc["points"]:
        lo, hi = p["band"]
        inside = lo <= p["rate"] <= hi
        assert (p["verdict"] == "fits") == inside
        if not inside:
            clear = p["interval"][1] < lo or p["interval"][0] > hi
            assert p["verdict"] == ("does not fit" if clear else "near the line")
    assert "values that fit:" in out and "ALC6.goal.at_least" in out
    assert (out_dir / "sweep.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("sweep, fragment", [
    ("ZZZ9.goal.at_least=1,2", "no card 'ZZZ9'"),
    ("ALC6.goal.at_least=60,61", "ALC6.goal.at_least=61"),
    ("ALC6.goal.nonsense=1,2", "nonsense"),
    ("ALC6.goal.at_least=18", "at least two values"),
    ("HEA6.goal.count=3,4 --set catalysts", "none of the playsets asked for holds"),
])
def test_balance_sweep_refuses_a_bad_sweep_before_playing(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          sweep: str, fragment: str) -> None:
    spec, *more = sweep.split()
    code, _, err = run(capsys, "balance", "--sweep", spec, *more, "-n", "5", "--out", str(tmp_path / "s"),
                       "--no-progress")
    assert code == 2 and fragment in err and "Traceback" not in err
    assert not (tmp_path / "s" / "sweep.json").exists()
