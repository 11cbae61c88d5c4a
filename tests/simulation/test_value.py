"""``converge balance --value``: what holding a card is worth, against a plain stand-in of its deck."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converge.cards.loader import builtin_sources, load_decks
from converge.simulation.balance import Criteria
from converge.simulation.summary_doc import Summary
from converge.simulation.value import (
    FAIR,
    NEAR,
    NOT_JUDGED,
    OVERPOWERED,
    STAND_IN_GOAL_AT_LEAST,
    USELESS,
    card_values,
    stand_in,
)
from tests.helpers import ROOT, assert_user_error
from tests.simulation.test_sweep import run

ALL_CARDS = [c.id for deck in load_decks(builtin_sources()).values() for c in deck.cards]


@settings(deadline=None, max_examples=20)  # (a deck catalogue loaded per example)
@given(st.sampled_from(ALL_CARDS))
def test_a_stand_in_is_the_same_card_with_the_plainest_goal_and_effect(card: str) -> None:
    """Only that card changes, and only its goal (one no faction reaches, the same stars) and its effect (the
    deck's keyword with no options): its id, name, rank and skillset stay, so the deal is the same."""
    before, after = load_decks(builtin_sources()), load_decks(stand_in(builtin_sources(), card))
    for key, deck in before.items():
        for old, new in zip(deck.cards, after[key].cards, strict=True):
            if old.id != card:
                assert new == old
                continue
            assert (new.name, new.rank, new.skillset) == (old.name, old.rank, old.skillset)
            assert new.goal.kind == "rank_total" and new.goal.params["at_least"] == STAND_IN_GOAL_AT_LEAST
            assert new.goal.stars == old.goal.stars
            assert new.effect.kind == old.effect.kind and new.effect_text.startswith(deck.keyword)


def _summary(counts: dict[str, tuple[int, int]], skillset: str = "Tinker") -> Summary:
    return cast(Summary, {"cards": [{"id": c, "skillset": skillset, "dealt": n, "dealt_wins": w}
                                    for c, (n, w) in counts.items()]})


def _values(printed: dict[str, tuple[int, int]], plain: dict[str, tuple[int, int]],
            criteria: Criteria | None = None) -> dict[str, str]:
    """Each card's verdict: ``printed`` the (rounds dealt, won) with every card as printed, ``plain`` those
    of each card in the run with its own stand-in."""
    base = _summary(printed)
    runs = {c: _summary({**printed, c: plain[c]}) for c in plain}
    return {v.card: v.verdict for v in card_values(base, runs, criteria or Criteria())}


def test_a_card_worth_no_more_than_a_plain_one_is_useless() -> None:
    """Its whole interval below the margin: worth less than a plain card, or no more than 3 points over it."""
    verdicts = _values({"T1": (20000, 9000), "T2": (20000, 10200), "T3": (20000, 10400)},
                       {"T1": (20000, 10000), "T2": (20000, 10000), "T3": (20000, 10000)})
    assert verdicts == {"T1": USELESS, "T2": USELESS, "T3": FAIR}  # -5, +1 and +2 points (+/-1.2)


def test_a_card_far_above_its_decks_other_cards_is_overpowered() -> None:
    """Worth more than a plain card is fair; worth clearly more (by the margin) than its deck-mates' mean is
    overpowered, judged only with two deck-mates measured."""
    printed = {"T1": (20000, 12400), "T2": (20000, 11000), "T3": (20000, 11000)}
    plain = {c: (20000, 10000) for c in printed}  # +12, +5 and +5 points
    assert _values(printed, plain) == {"T1": OVERPOWERED, "T2": FAIR, "T3": FAIR}
    assert _values(printed, {"T1": plain["T1"], "T2": plain["T2"]}) == {"T1": FAIR, "T2": FAIR}  # one mate only
    close = {**printed, "T1": (20000, 11600)}  # +8: 3 above its mates, within the interval of the margin
    assert _values(close, plain)["T1"] == FAIR


def test_a_card_with_too_few_rounds_or_an_unclear_value_is_not_flagged() -> None:
    verdicts = _values({"T1": (150, 90), "T2": (400, 220), "T3": (20000, 10000)},
                       {"T1": (20000, 10000), "T2": (400, 200), "T3": (150, 60)})
    assert verdicts == {"T1": NOT_JUDGED, "T2": NEAR, "T3": NOT_JUDGED}
    strict = Criteria(min_plays=100, value_margin=0.2)  # a 20-point margin: +5 is no longer enough
    assert _values({"T1": (20000, 11000)}, {"T1": (20000, 10000)}, strict) == {"T1": USELESS}


def test_more_cards_measured_together_widen_each_interval() -> None:
    """The confidence holds for all the cards together (Bonferroni): a value clear alone is unclear among
    many."""
    one = card_values(_summary({"T1": (1500, 825)}), {"T1": _summary({"T1": (1500, 750)})}, Criteria())
    many_plain = {f"T{i}": _summary({"T1": (1500, 750), **{f"T{i}": (1500, 750)}}) for i in range(1, 30)}
    many = card_values(_summary({"T1": (1500, 825), **{f"T{i}": (1500, 750) for i in range(2, 30)}}),
                       many_plain, Criteria())
    assert one[0].interval and many[0].interval and one[0].value == many[0].value
    assert many[0].interval[0] < one[0].interval[0] and many[0].interval[1] > one[0].interval[1]
    assert one[0].verdict == FAIR and many[0].verdict == NEAR


def test_balance_value_plays_each_card_against_its_stand_in(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The example deck of docs/balance.md, on the same seeds: its overpowered TIN2 is clearly worth more to its
    holder than a plain card (the greedy bot declares its three-star goal); value.json holds both runs' counts
    and how they were made."""
    monkeypatch.setenv("COLUMNS", "200")
    decks = ROOT / "examples" / "decks" / "tinker"
    code, out, err = run(capsys, "balance", "--value", "TIN2", "--deck-dir", str(decks), "--playset",
                         "tinker,mechanist,protector", "-n", "1500", "--seed", "1", "--workers", "2",
                         "--no-progress", "--out", str(tmp_path / "v"))
    assert code == 0, err
    assert "the value of 1 card" in err
    doc = json.loads((tmp_path / "v" / "value.json").read_text(encoding="utf-8"))
    (tin2,) = doc["cards"]
    assert tin2["card"] == "TIN2" and tin2["verdict"] == FAIR
    assert tin2["interval"][0] > 0 and tin2["rate"] > tin2["rate_plain"]
    assert tin2["dealt"] >= 1000 and tin2["dealt_plain"] >= 1000
    assert doc["settings"]["bots"] == ["greedy", "greedy"] and doc["settings"]["matches_per_playset"] == 1500
    row = next(line for line in out.splitlines() if line.strip("│ ").startswith("TIN2"))
    assert f"{100 * tin2['value']:+.1f}" in row and "fair" in row


@pytest.mark.parametrize("argv, fragment", [
    (["--value"], "--value alone measures the cards of your decks"),
    (["--value", "NOPE1"], "no card 'NOPE1'"),
    (["--value", "ALC2", "--set", "sparks"], "none of the playsets asked for holds"),
    (["--value", "ALC2", "--sweep", "ALC6.goal.at_least=14,15"], "leave out --summary, --compare and --sweep"),
    (["--value", "ALC2", "--value-margin", "0"], "above 0 and below 100"),
])
def test_balance_value_refuses_bad_input_before_playing(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        argv: list[str], fragment: str) -> None:
    code, _, err = run(capsys, "balance", *argv, "-n", "10", "--no-progress", "--out", str(tmp_path / "v"))
    assert_user_error(code, err, fragment)
    assert not (tmp_path / "v").exists()
