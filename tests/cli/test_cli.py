"""The ``converge`` command: output, exit codes, and one clear line for every user error."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from converge import bots
from converge.bots import make_bot
from converge.cards.loader import load_catalog
from converge.cli.render import print_decks
from converge.simulation.runner import play_match
from tests.helpers import ROOT, assert_user_error, run

BUILTIN = ROOT / "src" / "converge" / "cards" / "decks"




def user_error_lines(err: str) -> list[str]:
    return [line for line in err.strip().splitlines() if not line.startswith(("usage:", " "))]


@pytest.fixture
def tinker_dir(tmp_path: Path) -> Path:
    """A valid user deck (Tinker, a copy of the Alchemist deck) whose goals may name built-in skillsets."""
    text = (BUILTIN / "alchemist.toml").read_text(encoding="utf-8")
    text = text.replace("Alchemist", "Tinker").replace("ALC", "TIN").replace('color = "magenta"', 'color = "cyan"')
    text = text.replace('name = "', 'name = "Tinker ')  # (card names are unique across the decks)
    text = text.replace('goal = { kind = "fewest_skillset", skillset = "own", stars = 1 }',
                        'goal = { kind = "fewest_skillset", skillset = "Healer", stars = 1 }')
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "tinker.toml").write_text(text, encoding="utf-8")
    return folder


BAD_DECK = """skillset = "Broken"
color = "chartreuse"

[[card]]
id = "BRK1"
name = "Cog"
rank = 9
goal = { kind = "highest_skillset", skillset = "nobody", stars = 5 }
effect = { kind = "convert", count = 7 }

[[card]]
id = "BRK2"
name = ""
rank = 2
goal = { kind = "bogus_goal", stars = 1 }
effect = { kind = "assemble", colour = "red" }
"""


# ---------------------------------------------------------------------- cards


def test_cards_lists_every_deck_with_generated_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "cards")
    assert code == 0 and err == ""
    for deck in load_catalog().values():
        assert deck.skillset in out
        for card in deck.cards:
            assert card.id in out and card.name in out and card.effect_text in out
    assert "\x1b[" not in out  # not a terminal: plain text


def test_cards_one_skillset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cards", "--skillset", "HEALER")
    assert code == 0
    assert "HEA1" in out and "Heal:" in out and "ALC1" not in out


def test_cards_unknown_skillset_is_a_user_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "cards", "--skillset", "wizard")
    assert_user_error(code, err, "unknown skillset 'wizard'", "alchemist")
    assert out == "" and err.count("\n") == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cards_on_a_terminal_are_coloured_tables_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    decks = [load_catalog()["alchemist"]]
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = _Terminal()
    print_decks(decks, coloured)
    assert "\x1b[" in coloured.getvalue() and "ALC6" in coloured.getvalue()
    assert "Grand Transmuter" in coloured.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Terminal()
    print_decks(decks, plain)
    assert "\x1b[" not in plain.getvalue() and "ALC6" in plain.getvalue()
    assert "┃" in plain.getvalue() or "│" in plain.getvalue()  # still a table


def test_cards_shows_user_decks(capsys: pytest.CaptureFixture[str], tinker_dir: Path) -> None:
    code, out, _ = run(capsys, "cards", "--deck-dir", str(tinker_dir), "--skillset", "tinker")
    assert code == 0
    assert "TIN1" in out and "Fewest Healer" in out


def test_validate_a_good_deck(capsys: pytest.CaptureFixture[str], tinker_dir: Path) -> None:
    code, out, err = run(capsys, "cards", "validate", str(tinker_dir))
    assert code == 0 and err == ""
    assert out.startswith("OK: 1 file valid: Tinker (6 cards)")


def test_validate_the_shipped_decks_and_copies_of_them(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "cards", "validate", str(BUILTIN))
    assert (code, err) == (0, "") and out.startswith("OK: 9 files valid: ")
    copy = tmp_path / "alchemist.toml"
    copy.write_text((BUILTIN / "alchemist.toml").read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run(capsys, "cards", "validate", str(copy))
    assert code == 0 and "Alchemist (6 cards)" in out
    # A changed deck under a built-in name is still refused: a user deck may not redefine a built-in one.
    copy.write_text(copy.read_text(encoding="utf-8").replace("Apprentice", "Novice"), encoding="utf-8")
    code, out, _ = run(capsys, "cards", "validate", str(copy))
    assert code == 1 and "skillset Alchemist is also defined in decks/alchemist.toml" in out


def test_validate_prints_every_error_of_a_bad_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text(BAD_DECK, encoding="utf-8")
    code, out, err = run(capsys, "cards", "validate", str(bad))
    assert code == 1 and err == ""
    lines = out.strip().splitlines()
    assert all(line.startswith(f"{bad}: ") for line in lines[:-1])
    expected = [
        "field 'color': must be one of",
        "field 'card': a deck has exactly 6 cards, found 2",
        "card BRK1: field 'rank': must be an integer from 1 to 6, got 9",
        "card BRK1: field 'goal.stars': must be an integer from 1 to 3, got 5",
        "card BRK1: field 'goal.skillset': unknown skillset 'nobody'",
        "card BRK1: field 'effect.count': must be between 1 and 2, got 7",
        "card BRK2: field 'name': must be a non-empty string",
        "card BRK2: field 'goal.kind': unknown goal kind 'bogus_goal'",
        "card BRK2: field 'effect.colour': unknown parameter for assemble",
    ]
    for fragment in expected:
        assert any(fragment in line for line in lines), fragment
    assert lines[-1] == f"{len(lines) - 1} errors in 1 file"
    assert len(lines) - 1 >= len(expected)


def test_validate_reports_errors_of_several_files(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   tinker_dir: Path) -> None:
    (tmp_path / "a.toml").write_text(BAD_DECK, encoding="utf-8")
    (tmp_path / "b.toml").write_text("skillset = \n", encoding="utf-8")
    code, out, _ = run(capsys, "cards", "validate", str(tmp_path / "a.toml"), str(tmp_path / "b.toml"),
                       str(tinker_dir))
    assert code == 1
    assert "b.toml: not valid TOML" in out
    assert out.strip().splitlines()[-1].endswith("in 2 files")
    assert "tinker.toml" not in out


def test_validate_missing_path_is_a_user_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "cards", "validate", str(tmp_path / "nope.toml"))
    assert_user_error(code, err, "nope.toml", "no such file or folder")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "cards", "validate", str(empty))
    assert_user_error(code, err, "no *.toml deck files")


def test_invalid_deck_dir_is_a_user_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text(BAD_DECK, encoding="utf-8")
    code, _, err = run(capsys, "match", "-n", "2", "--deck-dir", str(tmp_path))
    assert_user_error(code, err, "cannot load the decks", "broken.toml", "converge cards validate")
    assert len(user_error_lines(err)) == 1


# ---------------------------------------------------------------------- match


def test_match_reports_wins_rounds_and_interval(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "match", "--bot1", "greedy", "--bot2", "random", "-n", "20", "--seed", "1")
    assert code == 0 and err == ""
    assert "20 matches, seed 1, a random playset per match" in out
    assert "bot 1 (greedy)" in out and "bot 2 (random)" in out
    assert "average rounds per match:" in out
    assert "95% Wilson interval" in out
    again = run(capsys, "match", "--bot1", "greedy", "--bot2", "random", "-n", "20", "--seed", "1")
    assert again == (0, out, "")  # seeded


def test_match_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "-n", "10", "--seed", "4", "--set", "sparks", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["matches"] == 10 and sum(doc["wins"]) == 10
    assert doc["playset"] == ["delver", "astropath", "healer"]
    assert list(doc["playsets"]) == ["delver/astropath/healer"]
    lo, hi = doc["bot1_win_rate_ci95"]
    assert 0 <= lo <= doc["bot1_win_rate"] <= hi <= 1
    assert 2 <= doc["average_rounds"] <= 3


def test_match_with_a_user_deck(capsys: pytest.CaptureFixture[str], tinker_dir: Path) -> None:
    code, out, _ = run(capsys, "match", "-n", "4", "--deck-dir", str(tinker_dir),
                       "--playset", "tinker,healer,alchemist", "--json")
    assert code == 0
    assert json.loads(out)["playsets"] == {"alchemist/healer/tinker": [json.loads(out)["wins"][0], 4]}


@pytest.mark.parametrize(("argv", "fragments"), [
    (["-n", "0"], ["argument -n", "positive whole number"]),
    (["-n", "many"], ["argument -n", "'many'"]),
    (["--seed", "-3"], ["argument --seed"]),
    (["--bot1", "wizard"], ["argument --bot1", "unknown bot 'wizard'"]),
    (["--set", "dreams"], ["argument --set", "invalid choice"]),
    (["--playset", "alchemist,healer"], ["three skillset names"]),
    (["--playset", "alchemist,alchemist,healer"], ["three different skillsets"]),
    (["--playset", "alchemist,wizard,healer"], ["unknown skillset 'wizard'"]),
    (["--playset", "alchemist,mechanist,healer", "--set", "sparks"], ["not allowed with"]),
])
def test_match_bad_values_are_user_errors(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          fragments: list[str]) -> None:
    code, out, err = run(capsys, "match", *argv)
    assert_user_error(code, err, *fragments)
    assert out == ""


# ---------------------------------------------------------------------- replay and play


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    m = play_match(["alchemist", "searcher", "healer"], 12, (make_bot("greedy", 1), make_bot("random", 2)))
    path = tmp_path / "match.json"
    path.write_text(json.dumps(m.record()), encoding="utf-8")
    return path


def test_replay_tells_the_match_turn_by_turn(capsys: pytest.CaptureFixture[str], record_file: Path) -> None:
    record = json.loads(record_file.read_text(encoding="utf-8"))
    code, out, err = run(capsys, "replay", str(record_file))
    assert code == 0 and err == ""
    assert out.startswith("Converge — Alchemist / Searcher / Healer")
    assert "=== Round 1 ===" in out and "-- Turn 1 (lead: Player " in out
    assert "scores after the turn: Player 1 " in out  # the seats named as hot-seat names them
    assert "player 0" not in out
    assert " wins round 1 (" in out
    assert out.count("=== Round ") == len([1 for line in out.splitlines() if line.startswith("=== Round")])
    assert "Result: Player " in out and "wins the match 2-" in out
    assert "only] You were dealt" in out  # the match is over: everything is shown by default
    turns = out.count("-- Turn ")
    assert turns == out.count("scores after the turn")
    assert len(record["actions"]) > turns


def test_replay_public_view_hides_private_events(capsys: pytest.CaptureFixture[str], record_file: Path) -> None:
    code, out, _ = run(capsys, "replay", "--public", str(record_file))
    assert code == 0
    assert "only]" not in out and "you " not in out
    assert "wins the match" in out


def test_replay_of_an_unfinished_match(capsys: pytest.CaptureFixture[str], record_file: Path) -> None:
    record = json.loads(record_file.read_text(encoding="utf-8"))
    record["actions"] = record["actions"][:9]
    record_file.write_text(json.dumps(record), encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(record_file))
    assert code == 0
    assert "the match is not finished" in out
    # a match not finished may go on: its replay is public, no hand shows (I2, I3)
    assert "only]" not in out and "dealt" not in out and "drew" not in out
    assert "only what a spectator saw" in out


def test_replay_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, record_file: Path) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert_user_error(code, err, "no such file", "missing.json")
    assert err.count("\n") == 1

    code, _, err = run(capsys, "replay", str(tmp_path))
    assert_user_error(code, err, "is a folder")

    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": \"converge-record\", ", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(bad))
    assert_user_error(code, err, "bad.json is not valid JSON", "line 1")

    bad.write_text("[1, 2, 3]", encoding="utf-8")
    code, _, err = run(capsys, "replay", str(bad))
    assert_user_error(code, err, "not a match record")

    record = json.loads(record_file.read_text(encoding="utf-8"))
    record["actions"][3] = 25  # 'done' where it is not legal
    bad.write_text(json.dumps(record), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(bad))
    assert_user_error(code, err, "record action #4", "does not replay")
    assert out == "" and err.count("\n") == 1

    record["actions"][3] = "seven"
    bad.write_text(json.dumps(record), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(bad))
    assert_user_error(code, err, "record action #4")

    record["playset"] = ["alchemist", "wizard", "healer"]
    bad.write_text(json.dumps(record), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(bad))
    assert_user_error(code, err, "wizard")


def test_watch_prints_a_bot_match_and_saves_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    code, out, err = run(capsys, "watch", "--seed", "5", "--bot1", "greedy", "--bot2", "greedy", "--set",
                         "engines", "--save", str(save))
    assert code == 0 and err == ""
    assert "Player 1 (Greedy bot) against Player 2 (Greedy bot)" in out
    assert "seed 5" in out and "-- Turn 1" in out and "wins the match" in out
    assert "replay this match with --seed 5" in out  # greedy bots: the seed repeats the match
    assert f"record saved to {save}" in out
    record = json.loads(save.read_text(encoding="utf-8"))
    assert record["seed"] == 5 and record["playset"] == ["protector", "searcher", "merchant"]
    code, replayed, _ = run(capsys, "replay", str(save))
    assert code == 0
    assert replayed.split("Result: ")[1].split()[:2] == out.split("Result: ")[1].split()[:2]

    code, again, _ = run(capsys, "watch", "--seed", "5", "--bot1", "greedy", "--opponent", "greedy", "--set",
                         "engines")  # --opponent: the former name of --bot2
    assert again == out.split("record saved")[0]  # the same seed plays the same match


def test_watch_defaults_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, "watch", "--public", "--seed", "3")
    # two bots of the same level by default (not a one-sided match), no pause when the output is no terminal
    assert code == 0 and "Player 1 (Medium bot) against Player 2 (Medium bot)" in out and "only]" not in out
    # watching in public, the seed (which deals every card) is told once the match is over, not before
    assert "seed 3 (replay this match" in out.split("wins the match")[-1]
    # every bot decides on a budget of simulations: the seed repeats the match with the strong bot too (its
    # budget made small, for the test's time)
    monkeypatch.setitem(bots.BOTS, "hard", lambda seed: bots.ISMCTSBot(seed, iterations=300, name="hard"))
    runs = [run(capsys, "watch", "--seed", "5", "--bot1", "greedy", "--bot2", "hard", "--public",
                "--playset", "alchemist,searcher,healer") for _ in range(2)]
    assert runs[0][0] == 0 and runs[0][1] == runs[1][1]
    assert "seed 5 (replay this match with --seed 5" in runs[0][1]
    code, _, err = run(capsys, "watch", "--playset", "alchemist,wizard,healer")
    assert_user_error(code, err, "unknown skillset 'wizard'")
    code, _, err = run(capsys, "watch", "--bot2", "wizard")
    assert_user_error(code, err, "argument --bot2")
    code, _, err = run(capsys, "watch", "--delay", "-1")
    assert_user_error(code, err, "argument --delay")
    code, _, err = run(capsys, "watch", "--seed", "1", "--save", str(tmp_path / "no" / "such" / "dir.json"))
    assert_user_error(code, err, "cannot write")


# ---------------------------------------------------------------------- bench and the command itself


def test_bench_prints_throughput_and_call_costs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bench", "--rounds", "200", "--repeats", "2")
    assert code == 0 and err == ""
    assert "complete rounds/s (median of 2 runs of 200 rounds" in out  # (the engine's; the native core's too)
    assert "clone():" in out and "legal_actions():" in out and "µs per call" in out
    assert "greedy bot:" in out and "µs per decision" in out
    code, out, _ = run(capsys, "bench", "--rounds", "100", "--repeats", "1", "--no-greedy", "--json")
    doc = json.loads(out)
    assert doc["rounds_per_second"] > 0 and doc["clone_us"] > 0 and doc["greedy_decision_us"] is None


def test_bench_bad_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "bench", "--rounds", "0")
    assert_user_error(code, err, "argument --rounds")


def test_watch_pauses_after_each_turn(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    pauses: list[float] = []
    monkeypatch.setattr(time, "sleep", pauses.append)
    code, out, _ = run(capsys, "watch", "--seed", "5", "--bot1", "greedy", "--bot2", "random", "--delay", "0.25")
    assert code == 0
    turns = out.count("scores after the turn")
    assert turns > 3 and pauses == [0.25] * turns
    pauses.clear()
    code, _, _ = run(capsys, "watch", "--seed", "5", "--bot1", "greedy", "--bot2", "random")
    assert code == 0 and pauses == []  # not a terminal: no pause unless asked


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    listed = [line.split()[0] for line in out.split("commands:")[-1].splitlines() if line.startswith("    ")]
    assert listed[0] == "play"  # play first, every command listed once, in groups
    assert sorted(listed) == sorted(["play", "watch", "replay", "review", "puzzles", "serve", "cards", "simulate",
                                     "balance",
                                     "match", "ladder", "calibrate", "stability", "bench", "serve-bench", "config",
                                     "db", "admin"])
    for group in ("Play:", "Cards and balance:", "Bots:", "Hosting a server:", "Speed:"):
        assert group in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("converge ")
    code, _, err = run(capsys)
    assert_user_error(code, err, "required")
    code, _, err = run(capsys, "dance")
    assert_user_error(code, err, "invalid choice")


@pytest.mark.parametrize("command", ["play", "watch", "replay", "puzzles", "serve", "cards", "simulate", "balance",
                                     "match",
                                     "ladder", "bench", "serve-bench", "config", "db", "admin"])
def test_every_command_is_described(capsys: pytest.CaptureFixture[str], command: str) -> None:
    from converge.cli.common import COMMANDS

    code, out, _ = run(capsys, command, "--help")
    summary = dict(item for _, group in COMMANDS for item in group)[command]
    assert code == 0 and summary[1:].split(":")[0] in " ".join(out.split())


def test_bot_names_are_listed_the_same_way_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    order = "beginner, easy, medium, hard, expert, random, greedy, ismcts"
    for argv in (["play"], ["watch"], ["match"], ["simulate"], ["balance"], ["ladder"]):
        code, out, _ = run(capsys, *argv, "--help")
        assert code == 0 and order in " ".join(out.split()), argv
    code, _, err = run(capsys, "match", "--bot1", "wizard")
    assert f"(known: {order}, or ismcts:N for N simulations per decision" in err


def test_n_means_one_thing(capsys: pytest.CaptureFixture[str]) -> None:
    """``-n``/``--matches`` is the number of matches of `match`; a ladder plays --per-pair, the simulator
    --per-playset (their former -n still works, unlisted)."""
    code, out, _ = run(capsys, "match", "--help")
    assert "-n N, --matches N" in out
    for command, option in (("ladder", "--per-pair"), ("simulate", "--per-playset"), ("balance", "--per-playset")):
        code, out, _ = run(capsys, command, "--help")
        assert option in out and not re.search(r"(?<![\w-])-n\b", out), command
    code, out, _ = run(capsys, "ladder", "--bots", "random,greedy", "--per-pair", "2", "--workers", "1")
    assert code == 0 and "2 matches per pair" in out
    code, out, _ = run(capsys, "ladder", "--bots", "random,greedy", "-n", "2", "--workers", "1")
    assert code == 0 and "2 matches per pair" in out


def test_python_dash_m_converge(tmp_path: Path) -> None:
    ok = subprocess.run([sys.executable, "-m", "converge", "cards", "--skillset", "delver"],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and "DEL1" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "converge", "replay", str(tmp_path / "x.json")],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [f"converge: error: no such file: {tmp_path / 'x.json'}"]


def test_an_error_names_a_long_path_whole(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The user finds the file by the name the error gives: a path of 300 characters is given whole, and the
    line still says what is wrong (the cap on an error line's length does not count the file's name; a name
    no system holds is shortened: test_long_or_wrong_arguments_get_one_short_line)."""
    folder = tmp_path
    while len(str(folder)) < 280:
        folder /= "saved-matches-from-the-laptop-" + "x" * 30
    folder.mkdir(parents=True)
    damaged = folder / "damaged.json"
    damaged.write_text("{not json", encoding="utf-8")
    code, out, err = run(capsys, "replay", str(damaged))
    assert (code, out, err) == (2, "", f"converge: error: {damaged} is not valid JSON: Expecting property name "
                                       "enclosed in double quotes at line 1, column 2\n")
    code, out, err = run(capsys, "replay", str(folder / "missing.json"))
    assert (code, out, err) == (2, "", f"converge: error: no such file: {folder / 'missing.json'}\n")


# ---------------------------------------------------------------------- hostile files and arguments


def _one_line_error(code: int, err: str, *fragments: str) -> str:
    """The documented user error: exit 2, one short line (after argparse's usage, if any), no traceback."""
    assert_user_error(code, err, *fragments)
    assert len(user_error_lines(err)) == 1, err
    line = err.strip().splitlines()[-1]
    assert len(line) <= 300, len(line)
    return line


def _a_record() -> dict[str, object]:
    from converge import Match

    return Match.new(["alchemist", "mechanist", "archivist"], seed=3).record()


def test_replay_of_json_nested_too_deeply_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    code, out, err = run(capsys, "replay", str(deep))
    _one_line_error(code, err, "deep.json", "nested too deeply")
    assert out == ""


def test_replay_of_a_seed_too_long_to_read_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(_a_record()).replace('"seed": 3', '"seed": ' + "7" * 5000), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    _one_line_error(code, err, "seed.json", "longer than 4300 digits")
    assert out == ""


@pytest.mark.parametrize("entry", [[1.0], [1.5], 1.5, [[1]], [[0, 1]], [{"p": 0}], ["0"], [True], None])
def test_replay_with_a_bad_known_entry_in_its_position_is_one_line(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path, entry: object) -> None:
    from converge import Match

    match = Match.new(["alchemist", "mechanist", "archivist"], seed=3)
    position = match.position()
    card = match.playset.card_ids[match.zones.deck[0]]
    record = {**match.record(), "position": {**position, "known": {card: entry}}}
    path = tmp_path / "known.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(path))
    line = _one_line_error(code, err)
    assert "known" in line or "known.json" in line, line
    assert out == ""


def test_an_engine_error_quoting_a_huge_input_is_cut_to_one_short_line(capsys: pytest.CaptureFixture[str],
                                                                        tmp_path: Path) -> None:
    path = tmp_path / "long.json"
    path.write_text(json.dumps({**_a_record(), "seed": list(range(100_000))}), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    line = _one_line_error(code, err, "seed")
    assert len(line) < 200 and line.endswith(("…", "..."))  # the engine quotes a cut value


def test_a_file_name_with_control_characters_stays_on_one_escaped_line(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    name = str(tmp_path / "a\nb\x1b[31mred.json")
    code, _, err = run(capsys, "replay", name)
    line = _one_line_error(code, err, "no such file")
    assert "\x1b" not in err and "\\x1b[31mred.json" in line and "a\\nb" in line


def test_replay_refuses_a_file_larger_than_any_record(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("converge.cli.common.MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps({**_a_record(), "pad": "x" * 2000}), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    _one_line_error(code, err, "big.json is too large")
    path.write_bytes(b"\xff\xfe{}")
    code, _, err = run(capsys, "replay", str(path))
    _one_line_error(code, err, "big.json is not UTF-8")


DEEP_TOML = "a = " + "[" * 10_000 + "]" * 10_000 + "\n"
LONG_NUMBER_TOML = 'skillset = "Tinker"\nrank = ' + "9" * 5000 + "\n"


@pytest.mark.parametrize(("text", "says"), [(DEEP_TOML, "nested too deeply"),
                                            (LONG_NUMBER_TOML, "a number is longer than 4300 digits")])
def test_validate_reports_a_toml_file_python_cannot_read(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                         tinker_dir: Path, text: str, says: str) -> None:
    bad = tmp_path / "hostile.toml"
    bad.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "cards", "validate", str(bad), str(tinker_dir / "tinker.toml"))
    assert code == 1 and err == "" and "Traceback" not in out
    assert out.splitlines() == [f"{bad}: not valid TOML: {says}", "1 error in 1 file"]
    # Through --deck-dir (any command that loads decks): the one-line user error.
    code, out, err = run(capsys, "cards", "--deck-dir", str(tmp_path))
    _one_line_error(code, err, "cannot load the decks", "hostile.toml", says)
    assert out == ""


def test_validate_cuts_each_problem_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (BUILTIN / "alchemist.toml").read_text(encoding="utf-8")
    bad = tmp_path / "long.toml"
    bad.write_text(text.replace('skillset = "Alchemist"', 'skillset = "' + "Z" * 5000 + '\\n\\u001b"'),
                   encoding="utf-8")
    code, out, _ = run(capsys, "cards", "validate", str(bad))
    assert code == 1
    assert out.strip().splitlines() and all(len(line) <= 300 and "\x1b" not in line for line in out.splitlines())


@pytest.mark.parametrize("text", ["[" * 100_000, '{"playsets": ' + "1" * 5000 + "}", '{"playsets": [1]}',
                                  '{"playsets": [], "goals": [], "cards": [], "settings": 5}', "[]", "null"])
def test_balance_of_a_hostile_summary_file_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       text: str) -> None:
    path = tmp_path / "summary.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "balance", "--summary", str(path))
    _one_line_error(code, err, "summary.json")
    assert out == ""


@pytest.mark.parametrize(("argv", "fragment"), [
    (["ladder", "-n", "-3"], "argument -n"),
    (["ladder", "--workers", "0"], "argument --workers"),
    (["ladder", "--seed", "9" * 5000], "argument --seed"),
    (["match", "--seed", "9" * 5000], "argument --seed"),
    (["match", "-n", "1" * 5000], "argument -n"),
    (["match", "--bot1", "x" * 10_000], "argument --bot1"),
    (["play", "--playset", "a," * 5000], "argument --playset"),
    (["replay", "x.json", "--" + "y" * 10_000], "unrecognized arguments"),
    (["replay", "9" * 5000], "9999"),  # a file name longer than the system allows
    (["replay", "--public", "\x00"], "argument FILE: expected a file or folder name, without a NUL"),
    (["cards", "validate", ""], "argument PATH: expected a file or folder name"),
    (["watch", "--save", "a\x00b"], "argument --save"),
    (["play", "--save", "a\x00b"], "argument --save"),
    (["simulate", "--out", "\x00"], "argument --out"),
    (["balance", "--summary", "\x00"], "argument --summary"),
    (["serve", "--db", "\x00"], "argument --db"),
    (["serve", "--smtp", "smtp://mail.example.org"], "needs its address as players reach it, --public-url"),
    (["serve", "--smtp", "mail.example.org", "--public-url", "https://x.org"], "smtp://[user:password@]host"),
    (["serve", "--smtp", "smtp://h:99999", "--public-url", "https://x.org"], "port is a number"),
    (["match", "--deck-dir", "\x00"], "argument --deck-dir"),
    (["cards", "--deck-dir", "9" * 5000], "File name too long"),
])
def test_long_or_wrong_arguments_get_one_short_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                    fragment: str) -> None:
    code, out, err = run(capsys, *argv)
    _one_line_error(code, err, fragment)
    assert out == ""
