"""The line mode (pipes, scripts, screen readers, ``--plain``): playing on after every kind of undo, and each
problem issue 13 found in it: the rematch prompt, the rules for players, what revealed cards do, the card a
"how to play" prompt is about, an effect that did nothing, the score's reasons, "them" and never
"player 1", the playset said once."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from converge import Match
from converge.cli.play_session import Session
from converge.cli.terminal import Seat, TerminalGame
from tests.cli.test_terminal import _run_piped
from tests.helpers import setup


def _replays_to_the_end(path: Path) -> Match:
    m = Match.replay(json.loads(path.read_text(encoding="utf-8")))
    assert m.is_terminal
    return m


# ---------------------------------------------------------------------- undo, then playing on (piped)


def test_the_issues_undo_command_no_longer_crashes(tmp_path: Path) -> None:
    done = _run_piped(["play", "--seed", "8650", "--playset", "archivist,delver,astropath", "--no-save"],
                      "2\n1\nundo\n1\n2\n1\n2\n", tmp_path, NO_COLOR="1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "Took back your last decision." in done.stdout and "Input ended." in done.stdout


@pytest.mark.parametrize(("script", "said"), [
    ("1\n1\nundo\n", "Took back your last decision."),  # a decision, in the middle of a play
    ("1\n2\nundo\n", "Took back your last decision."),  # after the bot's reply: the reply goes too
    ("1\n2\n1\nundo turn\n", "Took back your turn: choose your card again."),  # a whole turn, mid-play
    ("1\n2\nundo turn\nundo turn\n", "Took back your turn: choose your card again."),  # turn after turn
    ("undo\nundo turn\n", "Nothing to undo yet."),  # nothing yet: refused, the game goes on
])
def test_piped_play_goes_on_to_the_end_after_every_kind_of_undo(tmp_path: Path, script: str, said: str) -> None:
    save = tmp_path / "m.json"
    done = _run_piped(["play", "--seed", "8650", "--playset", "archivist,delver,astropath", "--save", str(save)],
                      script + "1\n" * 400 + "n\n", tmp_path, NO_COLOR="1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert said in done.stdout
    assert re.search(r"You (win|lose) the match", done.stdout)
    _replays_to_the_end(save)


# ---------------------------------------------------------------------- what the line mode says


def test_piped_match_reads_as_the_board_does(tmp_path: Path) -> None:
    done = _run_piped(["play", "--seed", "5", "--playset", "alchemist,searcher,astropath", "--no-save"],
                      "1\n" * 400 + "n\n", tmp_path, NO_COLOR="1")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert out.count("Alchemist, Searcher, Astropath") == 1  # the playset is announced once
    assert not re.search(r"\bplayer [01]\b", out, re.IGNORECASE)  # "you" and "them", as on the board
    assert "Rematch? The loser starts with the artifact. [y/N]" in out  # the prompt keeps its [y/N]
    assert "How do you play " in out  # the mode prompt names the card
    # who scores a goal, then why, which does not read "→ you you 5 vs them 3"
    assert re.search(r"→ (you|them|both|nobody) +\(you: \d+ · them: \d+\)", out)
    assert not re.search(r"→ you +you ", out)
    assert "the board at its end" in out and "Rounds won: you" in out  # each round's summary


def test_rules_shows_how_to_play_for_players(tmp_path: Path) -> None:
    done = _run_piped(["play", "--seed", "5", "--no-save"], "rules\nquit\n", tmp_path, NO_COLOR="1")
    assert done.returncode == 0
    assert "How to play Converge" in done.stdout and "Glossary" in done.stdout
    assert "Test: tests/" not in done.stdout and "(T6)" not in done.stdout


def _game(match: Match, answers: list[str]) -> tuple[TerminalGame, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True, highlight=False)
    feed = iter(answers)

    def read(prompt: str) -> str:
        out.write(prompt + "\n")
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    seats = (Seat("you"), Seat("greedy", "greedy", 1))
    return TerminalGame(Session(match, seats), console, read), out


def test_search_reveals_show_what_each_card_does() -> None:
    m = setup(["alchemist", "searcher", "merchant"], hands=(["SEA1", "ALC2"], ["MER1"]),
              deck=["ALC3", "MER4", "SEA5", "ALC6"], holder=0)
    game, out = _game(m, ["SEA1", "discard", "quit"])
    game.play()
    text = out.getvalue()
    menu = text.split("Choose one of the revealed cards")[1]
    for card in ("ALC3", "MER4", "SEA5", "ALC6"):
        name = m.playset.cards[m.playset.index_of[card]]
        assert card in menu and f"Goal: {name.goal.text}" in menu and name.effect_text.split(":")[0] in menu


def test_assemble_reveal_shows_what_the_card_does() -> None:
    m = setup(["alchemist", "mechanist", "merchant"], hands=(["MEC3", "ALC2"], ["MER1"]),
              deck=["MER4", "ALC6"], holder=0)
    game, out = _game(m, ["MEC3", "discard", "quit"])
    game.play()
    text = out.getvalue().split("How do you play MEC3")[1]
    card = m.playset.cards[m.playset.index_of["MER4"]]
    assert "Card: MER4" in text and f"Goal: {card.goal.text}" in text
    assert card.effect_text in " ".join(text.split())


def test_mode_prompt_names_the_card_with_its_goal_and_effect() -> None:
    m = setup(["alchemist", "mechanist", "archivist"], hands=(["ALC3", "MEC1"], ["ARC2"]), holder=0)
    game, out = _game(m, ["ALC3", "quit"])
    game.play()
    text = " ".join(out.getvalue().split())
    assert "How do you play ALC3 Salt Reader (Alchemist 3)?" in text
    assert "declare it as a shared goal: Fewest Alchemist ★" in text


def test_a_discard_whose_effect_did_nothing_says_so() -> None:
    # Recall with an empty discard pile and no faction card: nothing to take
    m = setup(["alchemist", "mechanist", "archivist"], hands=(["ARC1", "MEC1"], ["ALC2", "ALC4"]), holder=0)
    game, out = _game(m, ["ARC1", "discard", "quit"])
    game.play()
    assert "its effect had nothing to do" in out.getvalue()


def test_equal_scores_say_the_artifact_stays() -> None:
    m = setup(["alchemist", "mechanist", "archivist"], hands=(["MEC3", "ALC1"], ["ARC2", "ARC4"]), holder=0)
    game, out = _game(m, ["MEC3", "declare", "quit"])  # the greedy bot declares ARC2: nobody scores
    game.play()
    text = out.getvalue()
    assert "They declare ARC2" in text and "End of turn: you score 0, they score 0." in text
    assert "Equal scores: the artifact stays with you." in text  # no event says it: the screen does


def test_a_hint_at_the_card_then_at_how_to_play_it_agrees_and_play_goes_on() -> None:
    """Asked at the choice of a card, then again at how to play it, the hint gives the second step from the
    same search (no second "Thinking…"), whose best chance is the card's; the match plays on afterwards."""
    m = setup(["alchemist", "mechanist", "archivist"], hands=(["ALC3", "MEC1"], ["ARC2"]), holder=0)
    game, out = _game(m, ["hint", "1", "hint", "1", "quit"])  # choice 1 is ALC3
    game.hint_simulations = 300
    game.play()
    text = out.getvalue()
    first, second = text.split("Hint — ")[1:3]
    chances = dict(re.findall(r"^\s+\d+\. play (ALC3|MEC1) .+?: (\d+)%", first, re.M))
    assert set(chances) == {"ALC3", "MEC1"}
    # the first option listed is the best (or about equal to it, the hint says so); how to play ALC3: its best
    # placement first, with ALC3's own chance
    top = re.findall(r"^\s+\d+\. .+?: (\d+)%(, about equal to the best|  ← best)$", first, re.M)[0]
    assert int(top[0]) == max(int(c) for c in chances.values()) or top[1].startswith(", about equal")
    then = re.findall(r"^\s+\d+\. .+?: (\d+)%.*$", second, re.M)
    assert then[0] == chances["ALC3"] == str(max(int(c) for c in then))
    assert text.count("Thinking…") == 1  # the second step came from the first search
    assert "Your choice" in text.split("Hint — ")[2]  # and the game went on
