"""The exact best response to a bot on tiny: the walk that asks the bot only where its own choices lead gives
OpenSpiel's exploitability of the same policy as a whole table, and the bot decides as it would in a match (a
subgame of tiny with three cards dealt, so that it takes seconds; the whole of tiny is in docs/openspiel.md)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as policy_lib  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

import converge.adapters.openspiel  # noqa: E402,F401  (registers python_converge)
from converge.adapters.best_response import BotOpponent, UniformOpponent, best_response, exploitability  # noqa: E402
from converge.adapters.efg import export_efg  # noqa: E402
from converge.bots import make_bot  # noqa: E402
from tests.helpers import load_example  # noqa: E402

GAME = "python_converge(variant=tiny,playset=mechanist/delver,start=player0)"
DEALT = 3


def _subgame() -> pyspiel.State:
    root = pyspiel.load_game(GAME).new_initial_state()
    for _ in range(DEALT):
        root.apply_action(root.legal_actions()[0])
    return root


@pytest.fixture(scope="module")
def efg() -> pyspiel.Game:
    root = _subgame()
    return pyspiel.load_efg_game(export_efg(root.get_game(), root)[0])


def _pairs(root: pyspiel.State, efg: pyspiel.Game) -> dict[str, tuple[str, dict[int, int]]]:
    """Each python_converge information state of the subgame: its EFG information state and the EFG action
    index of each action id (the two trees walked side by side)."""
    out: dict[str, tuple[str, dict[int, int]]] = {}
    stack = [(root, efg.new_initial_state())]
    while stack:
        ours, theirs = stack.pop()
        if ours.is_terminal():
            continue
        indices = {int(theirs.action_to_string(i)): i for i in theirs.legal_actions()}
        if not ours.is_chance_node():
            out[ours.information_state_string()] = (theirs.information_state_string(), indices)
        stack += [(ours.child(a), theirs.child(indices[a])) for a in ours.legal_actions()]
    return out


def _table(efg: pyspiel.Game, pairs: dict[str, tuple[str, dict[int, int]]],
           decided: dict[str, int]) -> policy_lib.TabularPolicy:
    """The bot's decisions as OpenSpiel's policy table of its seat (uniform where it was never asked: there
    its own choices never lead, so nothing there can change a best response to it)."""
    table = policy_lib.TabularPolicy(efg)
    for key, action in decided.items():
        name, indices = pairs[key]
        row = table.policy_for_key(name)
        row[:] = 0.0
        row[indices[action]] = 1.0
    return table


def _values(name: str, seed: int) -> tuple[list[float], dict[str, int]]:
    """The best responses' values against a bot in each seat, and its decisions in both."""
    values, decided = [], {}
    for seat in (0, 1):
        bot = BotOpponent(make_bot(name, seed))
        values.append(best_response(_subgame(), 1 - seat, bot).value)
        decided.update({k: d.action for k, (d, _) in bot.table.items()})  # (the seats' keys are apart)
    return values, decided


def test_against_uniform_play_the_walk_gives_openspiels_exploitability(efg: pyspiel.Game) -> None:
    ours = exploitability([best_response(_subgame(), p, UniformOpponent()).value for p in (0, 1)])
    assert math.isclose(ours, os_exploitability.exploitability(efg, policy_lib.UniformRandomPolicy(efg)),
                        abs_tol=1e-9)


def test_a_bots_exploitability_is_openspiels_of_its_decisions_as_a_table(efg: pyspiel.Game) -> None:
    pairs = _pairs(_subgame(), efg)
    values, decided = _values("greedy", 3)
    joint = _table(efg, pairs, decided)
    assert math.isclose(exploitability(values), os_exploitability.exploitability(efg, joint), abs_tol=1e-9)
    assert exploitability(values) >= 0


def test_a_planted_wrong_decision_changes_the_best_response_as_openspiel_sees_it(efg: pyspiel.Game) -> None:
    """Flip decisions of the bot in seat 0, one at a time, until one changes what a best response wins: the
    walk's value moves, and at each flip it is OpenSpiel's best-response value against the changed table."""
    pairs = _pairs(_subgame(), efg)
    honest = BotOpponent(make_bot("greedy", 3))
    before = best_response(_subgame(), 1, honest).value
    tried = 0
    for key, (decision, _) in honest.table.items():
        if decision.options < 2:
            continue
        other = next(a for a in pairs[key][1] if a != decision.action)
        planted = BotOpponent(make_bot("greedy", 3), overrides={key: other})
        after = best_response(_subgame(), 1, planted).value
        decided = {**{k: d.action for k, (d, _) in planted.table.items()}, key: other}
        theirs = os_exploitability.best_response(efg, _table(efg, pairs, decided), 1)["best_response_value"]
        assert math.isclose(after, theirs, abs_tol=1e-9)
        tried += 1
        if not math.isclose(after, before, abs_tol=1e-9):
            break
    else:
        pytest.fail(f"none of {tried} flipped decisions changed the best response's value")


@pytest.mark.parametrize("name", ["random", "ismcts:8"])
def test_a_bot_decides_alike_wherever_an_information_state_is_met(name: str) -> None:
    """What makes one decision per information state valid: asked again on every other path to it (its own
    state carried down that path), the bot decides the same."""
    for seat in (0, 1):
        best_response(_subgame(), 1 - seat, BotOpponent(make_bot(name, 5), verify=True))


@pytest.mark.parametrize("name", ["random", "ismcts:8"])
def test_the_walk_asks_the_bot_as_it_stands_in_a_match_it_plays_from_the_start(name: str) -> None:
    """A fresh bot playing matches of the subgame (random deals, a random opponent) makes the decisions the
    walk recorded for it: the state carried down the walk is the bot's own (the seeded random bot's every
    decision draws from its generator)."""
    walked = BotOpponent(make_bot(name, 5))
    best_response(_subgame(), 1, walked)
    rng = random.Random(1)
    for _ in range(12):
        bot, state = make_bot(name, 5), _subgame()
        while not state.is_terminal():
            if state.is_chance_node():
                action = rng.choice(state.chance_outcomes())[0]
            elif state.current_player() == 0:
                action = bot.decide(state.core.match.view(0))
                assert walked.table[state.information_state_string()][0].action == action
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)


def test_the_example_measures_both_seats(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    example = load_example("best_response_tiny")
    out = tmp_path / "br.csv"
    assert example.main(["--game", GAME, "--deal", str(DEALT), "--bot", "ismcts:8", "--simulations", "6",
                         "--csv", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[0] for line in lines[:2]] == ["ismcts:8", "ismcts:8"]
    assert lines[-1].startswith("exploitability of ismcts:8: ")
    assert out.read_text().splitlines()[0].startswith("bot,seed,simulations,deal,bot_seat,value")


def test_the_examples_cfr_plus_reference_is_nearly_unexploitable(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("best_response_tiny")
    assert example.main(["--game", GAME, "--deal", str(DEALT), "--bot", "cfr+:30"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("exploitability of cfr+:30: ") and 0 <= float(last.split(": ")[1]) < 0.01


def test_the_example_says_what_was_wrong_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("best_response_tiny")
    for options, said in [(["--bot", "greedy", "--simulations", "6"], "strong search"),
                          (["--bot", "cfr+:many"], "whole number"), (["--bot", "grumpy"], "unknown bot"),
                          (["--deal", "40"], "before its first decision")]:
        with pytest.raises(SystemExit):
            example.main(["--deal", str(DEALT), *options])
        assert said in capsys.readouterr().err
