"""Snapshots of the full-screen game (pytest-textual-snapshot): the screens a player reads, at 80×24 and
120×40, compared with the reviewed SVGs in tests/cli/__snapshots__/. After a deliberate change of the screen,
look at the new pictures and accept them with ``pytest tests/cli/test_terminal_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.tui_support import make_app, play_to_end, settle

Compare = Callable[..., bool]


async def _settled(pilot: Pilot[Any]) -> None:
    await settle(pilot)


def _after(*keys: str) -> Callable[[Pilot[Any]], Any]:
    """Press ``keys`` one by one, letting the bot answer after each."""
    async def run(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


async def _to_round_summary(pilot: Pilot[Any]) -> None:
    app = pilot.app
    for _ in range(300):
        await settle(pilot)
        if app.mode == "summary" and app.session.match.round_results:  # type: ignore[attr-defined]
            return
        await pilot.press("1")
    raise AssertionError("no round ended")


async def _to_match_end(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await play_to_end(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_first_decision(snap_compare: Compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=size, run_before=_settled)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_how_to_play_the_card(snap_compare: Compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=size, run_before=_after("1"))


def test_turn_summary(snap_compare: Compare) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=(80, 24), run_before=_after("1", "2"))


def test_effect_choice_names_the_card_and_its_effect(snap_compare: Compare) -> None:
    # Searcher 1: the revealed cards, each with its text, are the choices
    app = make_app(seed=5)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after("3", "1"))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_round_summary_with_the_final_board(snap_compare: Compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=size, run_before=_to_round_summary)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_match_summary(snap_compare: Compare, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=size, run_before=_to_match_end)


def test_hint(snap_compare: Compare) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=(120, 40), run_before=_after("h"))


def test_help(snap_compare: Compare) -> None:
    assert snap_compare(make_app(seed=5), terminal_size=(80, 24), run_before=_after("question_mark"))


def test_pass_the_device(snap_compare: Compare) -> None:
    assert snap_compare(make_app(seed=5, hotseat=True), terminal_size=(80, 24), run_before=_settled)
