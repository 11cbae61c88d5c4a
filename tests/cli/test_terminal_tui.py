"""The full-screen game, driven by Textual's own harness (``App.run_test()`` and Pilot) at 80×24 and
120×40: whole matches by keys and by mouse, undo of a decision and of a whole turn then playing on, hint,
help, rules, the turn, round and match summaries, rematch, quit, and hot-seat privacy frame by frame."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from converge import Match
from converge.bots import bot_display_name
from converge.cli.play_session import Session, round_final_board
from converge.cli.saves import Seat
from converge.cli.tui import GameApp, HelpScreen, Narration, PassScreen, RulesScreen
from converge.engine.schema import legal_actions_of
from tests.tui_support import (
    ALL_SIZES,
    SIZES,
    FrameRecorder,
    make_app,
    one_size,
    play_to_end,
    screen_text,
    settle,
    until,
)

CARD_ID = re.compile(r"\b[A-Z]{3}[1-6]\b")


def run(app: GameApp, size: tuple[int, int], body: Callable[[Pilot[int]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await body(pilot)

    asyncio.run(main())


# ---------------------------------------------------------------------- whole matches


@pytest.mark.parametrize("size", one_size(0))
def test_whole_match_by_number_keys_with_summaries_and_the_record(tmp_path: Path, size: tuple[int, int]) -> None:
    save = tmp_path / "m.json"  # (however long the runner's folder: the next test)
    app = make_app(seed=5, save=save)
    seen: list[str] = []

    async def body(pilot: Pilot[int]) -> None:
        for _ in range(600):
            await settle(pilot)
            text = screen_text(app)
            seen.append(text)
            lines = text.splitlines()
            assert len(lines) <= size[1] and max(len(line.rstrip()) for line in lines) <= size[0]
            if app.mode == "over":
                break
            await pilot.press("1")
        assert app.mode == "over"

    run(app, size, body)
    m = app.session.match
    assert m.is_terminal
    everything = "\n".join(seen)
    # every turn ends with a summary kept until "Continue"; rounds with their final board and reason
    assert everything.count("End of the turn.") >= 3 and "Continue" in everything
    assert "Round 1 is over." in everything and "Continue to round 2" in everything
    assert "(end of round 1)" in everything  # the round's final board, goals scored and why
    assert re.search(r"(win|wins) round 1: ", everything)
    final = seen[-1]
    won = m.winner == 0
    assert f"You {'win' if won else 'lose'} the match, " in final
    assert "Rematch" in final and "Quit" in final
    for _, reason in m.round_results:  # the match summary lists each round and its reason
        assert ("scored more" if reason == 0 else "both hands are empty") in final
    assert Match.replay(json.loads(save.read_text(encoding="utf-8"))).history == m.history


@pytest.mark.parametrize("size", one_size(0, ALL_SIZES))
def test_the_end_screen_shows_a_long_record_path_whole_and_rematch_and_quit(tmp_path: Path,
                                                                            size: tuple[int, int]) -> None:
    """The record's path, over three lines at 80 columns, is on the end screen whole, and so are Rematch and
    Quit below it: the summary's text gives up its first lines (it scrolls), never the choices."""
    save = tmp_path / ("saved-matches-" + "x" * 70) / ("from-the-laptop-" + "y" * 60) / "m.json"
    save.parent.mkdir(parents=True)
    assert len(str(save)) > 2 * 80
    app = make_app(seed=5, save=save)
    final: list[str] = []

    async def body(pilot: Pilot[int]) -> None:
        for _ in range(600):
            await settle(pilot)
            if app.mode == "over":
                break
            await pilot.press("1")
        assert app.mode == "over"
        await pilot.pause()
        final.append(screen_text(app))

    run(app, size, body)
    lines = [line.rstrip() for line in final[0].splitlines()]
    assert len(lines) <= size[1] and max(map(len, lines)) <= size[0]
    rematch = next(i for i, line in enumerate(lines) if "1. Rematch (" in line)
    assert "2. Quit" in lines[rematch + 1], final[0]
    saved = next(i for i, line in enumerate(lines) if "Record saved:" in line)
    # (the left part of each line, without the narration beside it on a wide screen, nor a scroll bar)
    shown = "".join(line.split("│")[0].rstrip(" ▁▂▃▄▅▆▇█").strip() for line in lines[saved:rematch])
    assert shown == f"Record saved:{save}", final[0]


@pytest.mark.parametrize("size", one_size(1))
def test_whole_match_by_mouse(size: tuple[int, int]) -> None:
    app = make_app(seed=7, playset=("mechanist", "protector", "merchant"))

    async def click_first(pilot: Pilot[int]) -> None:
        assert await pilot.click("#options", offset=(6, 0))

    async def body(pilot: Pilot[int]) -> None:
        await play_to_end(pilot, click_first)

    run(app, size, body)
    assert app.session.match.is_terminal


def test_arrow_keys_and_enter_choose_too() -> None:
    app = make_app(seed=11, playset=("archivist", "delver", "healer"))

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("down", "enter")  # the second card of the hand
        await settle(pilot)
        assert app.session.match.decision_kind == "mode"
        first = app.session.match.history[0]
        hand = app.session.match.observation(0)["hand"]
        assert app.session.match.playset.card_ids[first] not in hand

        async def arrows(p: Pilot[int]) -> None:
            await p.press("down", "up", "enter")

        await play_to_end(pilot, arrows)

    run(app, (80, 24), body)
    assert app.session.match.is_terminal


# ---------------------------------------------------------------------- undo


@pytest.mark.parametrize("size", one_size(1))
def test_undo_a_decision_then_play_on(size: tuple[int, int], tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    app = make_app(seed=8, playset=("archivist", "delver", "astropath"), save=save)

    async def body(pilot: Pilot[int]) -> None:
        m = app.session.match
        await pilot.press("1")  # a card
        await settle(pilot)
        assert m.decision_kind == "mode" and len(m.history) == 1
        await pilot.press("u")
        await settle(pilot)
        assert len(m.history) == 0 and m.decision_kind == "select"
        assert "Took back your last decision." in screen_text(app)
        await pilot.press("2", "2")  # another card, declared as a goal: play on to the end
        await play_to_end(pilot)

    run(app, size, body)
    m = app.session.match
    assert m.is_terminal
    assert Match.replay(json.loads(save.read_text(encoding="utf-8"))).history == m.history


@pytest.mark.parametrize("size", one_size(0))
def test_undo_a_whole_turn_after_the_bot_replied_then_play_on(size: tuple[int, int]) -> None:
    app = make_app(seed=8, playset=("archivist", "delver", "astropath"))

    async def body(pilot: Pilot[int]) -> None:
        m = app.session.match
        await pilot.press("1", "2")  # a card, declared: the bot replies and the turn ends
        await settle(pilot)
        assert app.mode == "summary" and m.turn_no == 2
        await pilot.press("1")  # continue to the next turn's decision (the bot may lead it)
        await settle(pilot)
        start = len(m.history)
        await pilot.press("1")  # choose a card of turn 2...
        await settle(pilot)
        assert m.decision_kind == "mode"
        await pilot.press("U")  # ... and take the whole turn back: choose your card of turn 2 again
        await settle(pilot)
        assert m.decision_kind == "select" and m.turn_no == 2 and len(m.history) == start
        assert "Took back your turn" in screen_text(app)
        await pilot.press("U")  # again: back to choosing the card of turn 1, before the bot's reply
        await settle(pilot)
        assert m.history == [] and m.turn_no == 1
        # the summary of the turn played again is the new one, not the one taken back
        await pilot.press("3", "2")
        await settle(pilot)
        assert app.mode == "summary" and "End of the turn." in screen_text(app)
        await play_to_end(pilot)

    run(app, size, body)
    assert app.session.match.is_terminal


def test_undo_with_nothing_to_undo_says_so() -> None:
    app = make_app(seed=8)

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("u")
        await pilot.pause()
        assert app.session.match.history == [] and app.mode == "decision"
        assert "Nothing to undo yet." in screen_text(app)

    run(app, (80, 24), body)


# ---------------------------------------------------------------------- hint, help, rules, quit


@pytest.mark.parametrize("size", one_size(0))
def test_hint_shows_each_options_chance_from_a_worker(size: tuple[int, int]) -> None:
    app = make_app(seed=3, playset=("alchemist", "mechanist", "searcher"))

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("h")
        await settle(pilot)
        text = screen_text(app)
        legal = app.session.match.legal_actions()
        assert len(re.findall(r"\d+% to win the round", text)) >= min(2, len(legal))
        # the best marked once, or the options about equal to it said so (a narrow screen may wrap the words)
        assert app.hint is not None
        options = app.hint[1]
        equal = [o for o in options if o.equal]
        if equal:
            assert len(re.findall(r"about\s+equal", text)) >= len(equal) and "← best" not in text
        else:
            assert len(re.findall(r"←\s+best", text)) == 1
            assert options[0].win_chance == max(o.win_chance for o in options)
        first = next(o for o in options if o.action == app.table.choices[0].action)
        await pilot.press("1")  # a card: how to play it is the next step of the same play, from the same search
        await settle(pilot)
        m = app.session.match
        if m.current_player == app.viewer and m.decision_kind == "mode":
            # the card's chance is its best placement's
            assert app.hint is not None and app.hint[1][0].win_chance == first.win_chance
            assert await until(pilot, lambda: "←" in screen_text(app))  # (the menu is redrawn next frame)
            text = screen_text(app)
            assert len(re.findall(r"←\s+best", text)) == 1 and len(re.findall(r"\d+% to win the round", text)) >= 2
            assert sorted(o.action for o in app.hint[1]) == sorted(m.legal_actions())
            await pilot.press("1")
            await settle(pilot)
        assert "to win the round" not in screen_text(app)  # a new decision: no hint until asked
        await play_to_end(pilot)

    run(app, size, body)


@pytest.mark.parametrize("size", SIZES)
def test_help_and_rules_screens(size: tuple[int, int]) -> None:
    app = make_app(seed=3)

    async def body(pilot: Pilot[int]) -> None:
        footer = screen_text(app).splitlines()[-1]
        for key in ("Help", "Rules", "Undo", "Undo turn", "Hint", "Quit"):
            assert key in footer
        await pilot.press("question_mark")
        assert await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "How a turn goes" in screen_text(app) and "undo your whole turn" in screen_text(app)
        await pilot.press("escape")
        assert await until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("r")
        assert await until(pilot, lambda: isinstance(app.screen, RulesScreen))
        text = screen_text(app)
        assert "How to play Converge" in text
        assert "Test:" not in text and "T6" not in text  # the rules for players, not the rulebook
        await pilot.press("end")  # (the scroll is animated: it takes frames)
        assert await until(pilot, lambda: "Glossary" in screen_text(app) or "Convert" in screen_text(app))
        await pilot.press("escape")
        assert await until(pilot, lambda: not isinstance(app.screen, (HelpScreen, RulesScreen)))
        assert app.mode == "decision"
        await pilot.press("1")  # the game goes on
        await settle(pilot)
        assert len(app.session.match.history) == 1

    run(app, size, body)


def test_quit_asks_then_saves_the_record(tmp_path: Path) -> None:
    save = tmp_path / "q.json"
    app = make_app(seed=4, save=save)

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("1", "2")
        await settle(pilot)
        await pilot.press("q")
        assert await until(pilot, lambda: "Leave the match?" in screen_text(app))
        await pilot.press("n")  # keep playing
        assert await until(pilot, lambda: "Leave the match?" not in screen_text(app))  # the pop takes frames
        assert app.is_running
        await pilot.press("q", "y")
        await pilot.pause()

    run(app, (80, 24), body)
    assert app.return_code == 0
    assert any(str(save) in line for line in app.farewell)
    assert Match.replay(json.loads(save.read_text(encoding="utf-8"))).history == app.session.match.history


# ---------------------------------------------------------------------- rematch


def test_rematch_starts_with_the_loser_holding_the_artifact() -> None:
    app = make_app(seed=5)

    async def body(pilot: Pilot[int]) -> None:
        await play_to_end(pilot)
        first = app.session.match
        loser = 1 - first.winner
        await pilot.press("1")  # Rematch
        await settle(pilot)
        second = app.session.match
        assert second is not first and not second.is_terminal
        assert second.round_first_holders[0] == loser
        assert app.session.matches_played == 1
        assert "Round 1" in screen_text(app)
        await play_to_end(pilot)
        await pilot.press("2")  # Quit
        await pilot.pause()

    run(app, (80, 24), body)
    assert app.return_code == 0


# ---------------------------------------------------------------------- hot-seat


def _secret_ids(m: Match, viewer: int) -> set[str]:
    """The cards of the other hand that ``viewer`` does not know."""
    other = m.observation(1 - viewer)["hand"] or []
    known = set(m.observation(viewer)["known_opponent_hand"])
    return set(other) - known


@pytest.mark.parametrize("size", one_size(1))
def test_hotseat_no_frame_after_passing_shows_the_other_hand(size: tuple[int, int]) -> None:
    app = make_app(seed=21, playset=("protector", "searcher", "merchant"), hotseat=True)
    checked = {"pass": 0, 0: 0, 1: 0}
    # A round's summary shows that round's final board, as it was when the round ended: the secret then
    # is the other hand before the last action (made by the player at the device, who cannot touch it).
    before: dict[str, Match] = {}
    apply = app.session.apply

    def remember(action: int, player: int) -> object:
        before["match"] = app.session.match.clone()
        return apply(action, player)

    app.session.apply = remember  # type: ignore[method-assign]

    def check(a: GameApp, text: str) -> None:
        if isinstance(a.screen, PassScreen):
            assert not CARD_ID.search(text), "the pass-the-device screen shows a card"
            checked["pass"] += 1
            return
        viewer = a.viewer
        if viewer < 0:  # the device is being passed: the game screen is blank
            assert not CARD_ID.search(text), "a card is on screen while the device is passed"
            return
        shows_round_end = a.mode in ("summary", "over") and "(end of round" in text
        state = before["match"] if shows_round_end else a.session.match
        for card in _secret_ids(state, viewer):
            assert card not in text, f"player {viewer + 1} was shown {card} of the other hand"
        checked[viewer] += 1

    recorder = FrameRecorder(app, check)

    async def body(pilot: Pilot[int]) -> None:
        passes = 0
        for _ in range(800):
            await settle(pilot)
            if app.mode == "over":
                break
            if isinstance(app.screen, PassScreen):
                assert "Pass the device to" in screen_text(app)
                passes += 1
                await pilot.press("enter")
            else:
                await pilot.press("1")
        assert app.mode == "over" and passes > 5

    run(app, size, body)
    assert checked["pass"] > 0 and checked[0] > 5 and checked[1] > 5
    assert len(recorder.frames) > 20


def test_hotseat_offers_no_undo_and_passes_by_mouse() -> None:
    """Hot-seat has no undo (a take-back would need the other player's say, and a Search's cards cannot be
    unseen): the footer and the help offer none, and u and U do nothing."""
    app = make_app(seed=2, hotseat=True)

    async def body(pilot: Pilot[int]) -> None:
        assert isinstance(app.screen, PassScreen)
        assert await pilot.click("#ready")
        await settle(pilot)
        assert app.viewer == app.session.match.current_player and app.mode == "decision"
        await pilot.press("1")
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "Undo" not in footer and "Help" in footer and "Quit" in footer
        await pilot.press("u", "U")
        await pilot.pause()
        assert len(app.session.match.history) == 1
        await pilot.press("question_mark")
        assert await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "undo" not in screen_text(app).lower()

    run(app, (80, 24), body)


def test_options_list_is_focused_and_numbered() -> None:
    app = make_app(seed=5)

    async def body(pilot: Pilot[int]) -> None:
        options = app.query_one("#options", OptionList)
        assert options.has_focus and options.option_count == len(app.session.match.legal_actions())
        text = screen_text(app)
        for i in range(1, options.option_count + 1):
            assert f"{i}." in text

    run(app, (80, 24), body)


# ---------------------------------------------------------------------- every screen true to its moment


def _region_text(app: GameApp, selector: str) -> str:
    """The text drawn in a widget's region of the screen, whitespace folded (wrapped lines joined)."""
    region = app.query_one(selector).content_region
    lines = screen_text(app).splitlines()[region.y:region.y + region.height]
    return " ".join(" ".join(line[region.x:region.x + region.width] for line in lines).split())


def _folded(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("size", ALL_SIZES)
def test_the_round_summary_is_that_rounds_end_with_its_last_turns_narration(size: tuple[int, int]) -> None:
    # the issue's own match: round 1 ends on the bot's Recall; the engine deals round 2 at once
    app = make_app(seed=557752088, playset=("archivist", "delver", "healer"))

    async def body(pilot: Pilot[int]) -> None:
        for key in ("2", "1", "1", "1", "enter", "2", "2"):
            await pilot.press(key)
            await settle(pilot)
        s = app.session
        m = s.match
        assert app.mode == "summary" and m.round_no == 2 and m.round_results
        log = s.log[0]
        round_two = max(i for i, e in enumerate(log) if e["kind"] == "round_start")
        scores = [i for i, e in enumerate(log[:round_two]) if e["kind"] == "score"]
        first_play = next(i for i in range(scores[-2], round_two) if log[i]["kind"] in ("play", "pass"))
        last_turn = log[first_play:round_two]
        summary = _region_text(app, "#title")
        said = [e["text"] for e in last_turn if e["kind"] not in ("dealt", "draw") and e["player"] in (0, 1, None)]
        assert any(e["kind"] == "move" for e in last_turn)  # the Recall's effect, said in the summary
        for sentence in said:
            assert _folded(sentence) in summary, sentence
        title_box = app.query_one("#title-box")
        assert title_box.max_scroll_y == 0  # nothing of it scrolled away
        text = screen_text(app)
        assert text.splitlines()[0].lstrip().startswith("Round 1 is over")
        assert "Round 2 begins" not in text
        final = round_final_board(m, 1, 0)
        assert final is not None
        on_board = {*final["goals"], *final["discard"], *(c["id"] for f in final["factions"] for c in f)}
        on_board |= set(CARD_ID.findall(" ".join(e["text"] for e in log[:round_two])))
        new = m.observation(0)
        for card in [*(new["hand"] or []), *new["discard"]]:
            if card not in on_board:
                assert card not in text, f"round 2's {card} is on round 1's summary"
        await pilot.press("1")  # Continue: now round 2, with its hand
        await settle(pilot)
        after = screen_text(app)
        assert "Round 2" in after.splitlines()[0]
        narration = " ".join(line.plain for line in app.query_one("#log", Narration).lines)
        assert "Round 2 begins" in narration and "Round 1 begins" not in narration  # the new round's own

    run(app, size, body)


@pytest.mark.parametrize(("start", "then"), [((120, 40), (80, 24)), ((80, 24), (100, 32)),
                                             ((100, 32), (120, 40)), ((100, 32), (80, 24))])
def test_the_narration_reflows_after_a_resize(start: tuple[int, int], then: tuple[int, int]) -> None:
    app = make_app(seed=557752088, playset=("archivist", "delver", "healer"))

    async def body(pilot: Pilot[int]) -> None:
        for key in ("2", "1", "1", "1", "enter"):  # a turn and a half: some narration to wrap
            await pilot.press(key)
            await settle(pilot)
        assert app.mode == "decision"
        for size in (start, then):
            await pilot.resize_terminal(*size)
            await settle(pilot)
            await pilot.pause()
            if app.query_one("#log").display is False:
                continue
            shown = _region_text(app, "#log")
            lines = app.query_one("#log", Narration).lines
            everything = _folded(" ".join(line.plain for line in lines))
            assert shown and "Round 1 begins; you hold the artifact" in everything
            # no line kept at the old width: the pane's text is the narration re-wrapped, nothing cut off
            assert shown in everything
            width = app.query_one("#log").region.width
            assert all(len(line.rstrip()) <= size[0] for line in screen_text(app).splitlines()) and width > 0

    run(app, start, body)


def _trade_app() -> GameApp:
    """Seed 158, merchant/searcher/healer: after these actions the player discards MER4 for its Trade with
    SEA2, SEA3, MER5 and HEA6 in hand, and chooses the first card of the trade among 8 choices."""
    match = Match.new(["merchant", "searcher", "healer"], seed=158, start=0)
    for action in [12, 19, 14, 18, 3, 20, 16, 19, 0, 18, 13, 16, 20, 13, 18, 4, 20, 14, 21, 8, 18, 25, 5, 18, 7,
                   6, 18, 4, 15, 0, 18, 10, 9, 19, 3, 19, 7, 18]:
        match.apply(action)
    session = Session(match, (Seat("you"), Seat(bot_display_name("easy"), "easy", 1)))
    session.fetch(0)
    session.summary_from[0] = len(session.log[0])  # the turns before, read already
    app = GameApp(session, hint_simulations=300)
    app.table.moved_from[0] = len(session.log[0])
    return app


@pytest.mark.parametrize("size", ALL_SIZES)
def test_every_choice_of_a_trade_with_four_cards_in_hand_is_visible(size: tuple[int, int]) -> None:
    app = _trade_app()

    async def body(pilot: Pilot[int]) -> None:
        m = app.session.match
        obs = m.observation(0)
        assert app.mode == "decision" and len(obs["hand"] or []) == 4
        assert "trade" in obs["decision"]["prompt"]
        items = obs["decision"]["legal_actions"]
        options = app.query_one("#options", OptionList)
        assert options.max_scroll_y == 0  # every choice in view, none scrolled away
        region = options.region
        assert region.bottom <= size[1] - 1  # above the footer
        shown = _region_text(app, "#options")
        for i, item in enumerate(items, start=1):
            assert f"{i}. {item['action']}" in shown, (i, item)

    run(app, size, body)


def test_quit_dialog_stays_on_enter_and_hotseat_labels_stand_apart() -> None:
    app = make_app(seed=21, playset=("protector", "searcher", "merchant"), hotseat=True)

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("enter")  # Player 1 is ready
        await settle(pilot)
        text = screen_text(app)
        assert re.search(r"^ Player 2 +\S", text, re.MULTILINE) and "Player 2(" not in text
        assert not re.search(r"Player \d[A-Z]", text)  # "Player 2Ast AST2" ran together
        assert "Player 2's hand" in text.splitlines()[0]
        await pilot.press("q")
        assert await until(pilot, lambda: "Leave the match?" in screen_text(app))
        # (Enter goes to the dialog's choices once they have the focus, and counts once the pass screen's Enter
        # can no longer be repeating: a press within DOUBLE_PRESS_SECONDS of a dialog closing is dropped)
        assert await until(pilot, lambda: app.focused is not None and app.focused.id == "confirm-options"
                           and time.monotonic() >= app.bounce_until)
        await pilot.press("enter")  # the default is to stay
        assert await until(pilot, lambda: "Leave the match?" not in screen_text(app))  # the pop takes frames
        assert app.is_running

    run(app, (80, 24), body)


def test_their_move_is_told_above_the_decision() -> None:
    app = make_app(seed=557752088, playset=("archivist", "delver", "healer"))

    async def body(pilot: Pilot[int]) -> None:
        for _ in range(40):  # to a decision after the bot led a turn
            await settle(pilot)
            m = app.session.match
            if app.mode == "decision" and m.observation(0)["lead"] == 1 and m.decision_kind == "select":
                break
            await pilot.press("1")
        text = _region_text(app, "#their-move")
        log = app.session.log[0]
        play = next(e for e in reversed(log) if e["kind"] in ("play", "pass"))
        assert play["player"] == 1 and text.startswith("Their move: ") and _folded(play["text"]) in text

    run(app, (100, 32), body)


# ---------------------------------------------------------------------- a crowded board at every size


def _shown_board(app: GameApp) -> dict[str, object]:
    """The board the screen is showing: a round's final board on its summary, else the viewer's now."""
    _, final, _ = app.table.summary_board
    if app.mode in ("summary", "over") and final is not None:
        return dict(final)
    return dict(app.session.match.observation(app.viewer))


def _check_board_and_choices(app: GameApp, size: tuple[int, int]) -> None:
    board_text = _region_text(app, "#board")
    shown = _shown_board(app)
    for goal in shown["goals"]:  # type: ignore[attr-defined]
        assert goal in board_text, f"goal {goal} is not on screen"
    assert re.search(r"\bThem\b", board_text) and re.search(r"\bYou\b", board_text), "a faction is not on screen"
    assert re.search(r"\bDeck \d+", board_text), "the deck line is not on screen"
    options = app.query_one("#options", OptionList)
    assert options.region.height >= 1 and options.region.y < size[1] - 1, "the choices are off the screen"
    if app.mode in ("summary", "over"):  # every choice in view, above the footer
        assert options.max_scroll_y == 0 and options.region.y + options.virtual_size.height <= size[1] - 1
        shown_choices = _region_text(app, "#options")
        assert ("Continue" in shown_choices) if app.mode == "summary" else ("Rematch" in shown_choices)
        last = app.table.summary_view[0].plain.splitlines()[-1]
        assert _folded(last) in _region_text(app, "#title"), "the end of the summary is not on screen"


@pytest.mark.parametrize("size", [(80, 24), (100, 32)])
def test_a_crowded_board_keeps_every_goal_the_factions_the_deck_and_the_choices_on_screen(
        size: tuple[int, int]) -> None:
    """The issue's screens: at 100x32 with six goals or more the factions and the deck line vanished (a round's
    final board left a goal out) while rows below stayed empty. A match that declares every goal it can
    (ten at once): every screen of it shows every goal, both factions, the deck and the choices."""
    app = make_app(seed=57)
    most = [0]

    async def body(pilot: Pilot[int]) -> None:
        for _ in range(400):
            await settle(pilot)
            await pilot.pause()
            _check_board_and_choices(app, size)
            most[0] = max(most[0], len(_shown_board(app)["goals"]))  # type: ignore[arg-type]
            if app.mode == "over":
                return
            legal = legal_actions_of(app.session.match.observation(app.viewer)) if app.mode == "decision" else []
            declare = [i for i, a in enumerate(legal) if a["action"] == "declare"]
            await pilot.press(str(declare[0] + 1) if declare and declare[0] < 9 else "1")
        raise AssertionError("the match did not end")

    run(app, size, body)
    assert most[0] >= 6


def test_a_search_turns_summary_shows_what_you_drew_and_continue_at_80x24() -> None:
    app = make_app(seed=5)

    async def body(pilot: Pilot[int]) -> None:
        for key in ("3", "1", "1"):  # Searcher 1 discarded: four cards seen, one taken; the bot replies
            await pilot.press(key)
            await settle(pilot)
        assert app.mode == "summary"
        text = screen_text(app)
        assert "You see ALC3, SEA6, SEA5 and SEA2, from the top down." in text  # one line, not four
        assert re.search(r"You drew [A-Z]{3}\d\.", text) and "1. Continue" in text
        _check_board_and_choices(app, (80, 24))

    run(app, (80, 24), body)


def test_the_help_is_wrapped_once_at_80_columns() -> None:
    """A paragraph broken by hand at 105 columns, then by the screen at 70, left short lines in its middle."""
    app = make_app(seed=5)

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("question_mark")
        assert await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        box = app.screen.query_one("#help-box").content_region
        lines = screen_text(app).splitlines()[box.y:box.bottom]
        text = [line[box.x:box.right].strip() for line in lines]
        paragraph = text[text.index("How a turn goes") + 1:text.index("")]
        assert len(paragraph) >= 3 and paragraph[0].startswith("The player holding the artifact")
        assert all(len(line) >= box.width - 12 for line in paragraph[:-1]), paragraph  # each line full

    run(app, (80, 24), body)
