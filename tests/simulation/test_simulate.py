"""The balance simulator: reproducible seeds, exact statistics, streamed tables, backends, the CLI."""

from __future__ import annotations

import copy
import html
import io
import json
import random
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from converge import Match
from converge.bots import make_bot
from converge.engine import goals
from converge.engine.actions import DISCARD
from converge.engine.events import EventKind
from converge.engine.playset import SETS, Playset, all_playsets
from converge.simulation import replay, tables
from converge.simulation.jobs import SimulationSpec, match_seeds, plan_chunks, run_chunk
from converge.simulation.runner import play_match, wilson_interval
from converge.simulation.simulate import simulate
from converge.simulation.stats import ROUND_COLUMNS, MatchReader, PlaysetTally, ScoringMismatch
from converge.simulation.summary import summarize
from tests.helpers import ROOT, assert_user_error, run

BUILTIN = ROOT / "src" / "converge" / "cards" / "decks"
CATALYSTS = SETS["catalysts"]
SPARKS = SETS["sparks"]




def collect(spec: SimulationSpec, **kwargs: Any) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    rows: list[tuple[Any, ...]] = []
    result = simulate(spec, sink=rows.extend, **kwargs)
    return rows, {k: v.to_dict() for k, v in result.tallies.items()}


@pytest.fixture
def tinker_dir(tmp_path: Path) -> Path:
    """A user deck: Tinker, the Alchemist deck under another name."""
    text = (BUILTIN / "alchemist.toml").read_text(encoding="utf-8")
    text = text.replace("Alchemist", "Tinker").replace("ALC", "TIN").replace('color = "magenta"', 'color = "cyan"')
    text = text.replace('name = "', 'name = "Tinker ')  # (card names are unique across the decks)
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "tinker.toml").write_text(text, encoding="utf-8")
    return folder


# ---------------------------------------------------------------------- seeds and specs


def test_match_seeds_depend_only_on_the_base_seed_the_playset_and_the_match_number() -> None:
    a = match_seeds(1, CATALYSTS, 0)
    assert a == match_seeds(1, list(CATALYSTS), 0)
    assert len(set(a)) == 3 and all(0 <= s < 2**62 for s in a)
    others = {match_seeds(2, CATALYSTS, 0), match_seeds(1, SPARKS, 0), match_seeds(1, CATALYSTS, 1)}
    assert a not in others and len(others) == 3


def test_a_spec_puts_playsets_in_catalogue_order_and_checks_its_input() -> None:
    spec = SimulationSpec.build([["healer", "alchemist", "searcher"], ["Searcher", "healer", "alchemist"],
                                 list(SPARKS)], 3)
    assert spec.playsets == (("alchemist", "searcher", "healer"), SPARKS)
    assert spec.total == 6 and spec.bot1 == spec.bot2 == "greedy"
    assert len(SimulationSpec.build(None, 1).playsets) == 84
    assert len(spec.sources) == 9 and spec.decks_digest == SimulationSpec.build(None, 1).decks_digest
    with pytest.raises(ValueError, match="unknown skillset 'wizard'"):
        SimulationSpec.build([["wizard", "healer", "alchemist"]], 1)
    with pytest.raises(ValueError, match="three different skillsets"):
        SimulationSpec.build([["healer", "healer", "alchemist"]], 1)
    with pytest.raises(ValueError, match="positive whole number"):
        SimulationSpec.build(None, 0)
    with pytest.raises(ValueError, match="unknown bot"):
        SimulationSpec.build(None, 1, bot1="wizard")


def test_the_replay_constants_are_the_engines() -> None:
    from converge.engine import actions

    assert replay.DISCARD == actions.DISCARD
    assert replay.NUM_CARDS == 18


@pytest.mark.parametrize("name", ["converge.simulation.jobs", "converge.simulation.runner"])
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_chunks_cover_every_match_once() -> None:
    spec = SimulationSpec.build([CATALYSTS, SPARKS], 10)
    chunks = plan_chunks(spec, 4)
    assert [(c.playset, c.start, c.count) for c in chunks] == [
        (0, 0, 4), (0, 4, 4), (0, 8, 2), (1, 0, 4), (1, 4, 4), (1, 8, 2)]
    assert [c.index for c in chunks] == list(range(6))


# ---------------------------------------------------------------------- statistics


def _random_position(rng: random.Random, names: tuple[str, str, str]) -> Match:
    ps = Playset.from_names(names)
    cards = list(ps.card_ids)
    rng.shuffle(cards)
    n0, n1, ng = rng.randrange(0, 6), rng.randrange(0, 6), rng.randrange(1, 4)
    f0, f1, goals = cards[:n0], cards[n0:n0 + n1], cards[n0 + n1:n0 + n1 + ng]
    rest = cards[n0 + n1 + ng:]
    conversions = {}
    for card in f0 + f1:
        if rng.random() < 0.3:
            conversions[card] = {"skillset": ps.skillsets[rng.randrange(3)], "rank": rng.randrange(1, 7),
                                 "until_end_of_turn": False}
    doc = {"playset": list(names), "seed": 0, "artifact_holder": 0, "lead": 0, "to_play": 0,
           "hands": [rest[:2], rest[2:4]], "factions": [f0, f1], "goals": goals, "discard": [],
           "artifact": rest[4], "deck": rest[5:], "conversions": conversions}
    return Match.from_position(doc)


def test_goal_values_agree_with_the_engines_score_breakdown() -> None:
    """Every goal kind, with converted cards, against the engine's own explanation of the score."""
    rng = random.Random(7)
    playsets = all_playsets()
    kinds = set()
    for k in range(400):
        m = _random_position(rng, playsets[k % len(playsets)])
        ps = m.playset
        obs = m.observation(-1)
        skill_index = {name: i for i, name in enumerate(ps.skillsets)}
        skill = list(ps.printed_skill)
        rank = list(ps.printed_rank)
        factions: list[list[int]] = [[], []]
        for p in (0, 1):
            for entry in obs["factions"][p]:
                c = ps.index_of[entry["id"]]
                factions[p].append(c)
                skill[c], rank[c] = skill_index[entry["skillset"]], entry["rank"]
        st = [goals.FactionStats(f, skill, rank) for f in factions]
        for item in m.score_breakdown(-1):
            g = ps.index_of[item["goal"]]
            kind, arg = ps.goal_kind[g], ps.goal_arg[g]
            v = [kind.value(arg, st[p]) for p in (0, 1)]
            winners = ([0] if v[0] > v[1] else [1] if v[1] > v[0] else []) if kind.single_winner else \
                [p for p in (0, 1) if v[p]]
            assert winners == item["winners"], (item, v)
            kinds.add(ps.cards[g].goal.kind)
    assert len(kinds) == 15  # every goal kind was checked


def _public_plays(match: Match) -> list[tuple[int, str, str]]:
    return [(e["player"], e["card"], e["kind"]) for e in match.observation(-1)["events"] if e["kind"] == "play"]


@pytest.mark.parametrize("bots", [("random", "random"), ("greedy", "random"), ("greedy", "greedy")])
def test_the_reader_agrees_with_the_public_record_of_each_match(bots: tuple[str, str]) -> None:
    """Round results, holders, turns and plays as the spectator's view and round_results tell them; the
    rebuilt goal area adds up to the engine's score at every end of turn (else ScoringMismatch)."""
    playsets = all_playsets()
    for k in range(42):
        names = playsets[(k * 5) % len(playsets)]
        ps = Playset.from_names(names)
        match = play_match(ps, 1000 + k, (make_bot(bots[0], k), make_bot(bots[1], k + 1)), log_events=True)
        tally = PlaysetTally()
        rounds = MatchReader(ps).read(match, tally, bot1_seat=0)
        assert [(r.winner, r.reason) for r in rounds] == match.round_results
        assert [r.start_holder for r in rounds] == match.round_first_holders
        assert tally.holder_wins == sum(w == h for (w, _), h in zip(match.round_results, match.round_first_holders,
                                                                       strict=True))
        assert tally.rounds == len(match.round_results) and tally.matches == 1
        assert tally.bot1_match_wins == (match.winner == 0)
        events = match.observation(-1)["events"]
        assert sum(r.turns for r in rounds) == sum(1 for e in events if e["kind"] == "score") == tally.turn_ends
        plays = _public_plays(match)
        assert sum(r.plays for r in rounds) == len(plays) == sum(tally.card_plays)
        assert sum(tally.card_wins) <= sum(tally.card_plays)
        scores = [[e["score0"], e["score1"]] for e in events if e["kind"] == "score"]
        assert [list(r.scores) for r in rounds] == [scores[sum(x.turns for x in rounds[:i + 1]) - 1]
                                                    for i in range(len(rounds))]


def test_play_modes_are_counted_per_card() -> None:
    """Each public play event lands in its card's counter for its mode."""
    ps = Playset.from_names(SPARKS)
    match = play_match(ps, 5, (make_bot("random", 1), make_bot("random", 2)), log_events=True)
    tally = PlaysetTally()
    MatchReader(ps).read(match, tally)
    expected = [0] * 72
    for kind, vis, _player, card, a, _b in match.events:
        if kind == EventKind.PLAY and vis == -1:
            expected[card * 4 + a - DISCARD] += 1
    assert tally.card_plays == expected and sum(expected) > 10


def test_each_card_dealt_is_counted_with_the_rounds_its_player_won() -> None:
    """The deal tally (a card's value, balance --value) agrees with what each player's own view of the
    finished match says they were dealt, round by round, and who won each round."""
    for k in range(12):
        ps = Playset.from_names(all_playsets()[(k * 7) % 84])
        match = play_match(ps, 300 + k, (make_bot("greedy", k), make_bot("random", k + 1)), log_events=True)
        tally = PlaysetTally()
        MatchReader(ps).read(match, tally)
        ids = [c.id for c in ps.cards]
        dealt, wins = [0] * 18, [0] * 18
        for player in (0, 1):
            rnd = 0
            for e in match.observation(player)["events"]:
                if e["kind"] == "round_start":
                    rnd = e["round"]
                elif e["kind"] == "dealt":
                    dealt[ids.index(e["card"])] += 1
                    wins[ids.index(e["card"])] += match.round_results[rnd - 1][0] == player
        assert tally.card_dealt == dealt and tally.card_dealt_wins == wins
        assert sum(dealt) == 6 * tally.rounds and sum(wins) == 3 * tally.rounds


def test_a_log_that_does_not_add_up_is_refused() -> None:
    ps = Playset.from_names(CATALYSTS)
    match = play_match(ps, 3, (make_bot("greedy", 1), make_bot("greedy", 2)), log_events=True)
    events = list(match.events)
    i = next(i for i, e in enumerate(events) if e[0] == EventKind.SCORE and (e[4] or e[5]))
    kind, vis, p, c, a, b = events[i]
    events[i] = (kind, vis, p, c, a + 1, b)
    with pytest.raises(ScoringMismatch, match="the engine scored"):
        MatchReader(ps).read_events(events, PlaysetTally())
    unlogged = play_match(ps, 3, (make_bot("random", 1), make_bot("random", 2)))
    with pytest.raises(ValueError, match="event log"):
        MatchReader(ps).read(unlogged, PlaysetTally())


def test_tallies_add_up() -> None:
    spec = SimulationSpec.build([CATALYSTS], 6)
    whole = run_chunk(spec, plan_chunks(spec, 6)[0]).tally
    parts = [run_chunk(spec, c) for c in plan_chunks(spec, 4)]
    merged = PlaysetTally()
    for part in parts:
        merged.merge(part.tally)
    assert merged.to_dict() == whole.to_dict()
    assert merged.matches == 6


# ---------------------------------------------------------------------- reproducibility and memory


def test_same_seed_same_results_whatever_the_workers_and_the_chunks() -> None:
    spec = SimulationSpec.build([CATALYSTS, SPARKS], 8, bot2="random", seed=11)
    one = collect(spec, workers=1, chunk_size=8)
    two = collect(spec, workers=2, chunk_size=3)
    assert one == two
    rows, tallies = one
    assert len(rows) == sum(t["rounds"] for t in tallies.values())
    order = [(r[0] != "alchemist/mechanist/archivist", r[1], r[6]) for r in rows]  # playset, match, round
    assert order == sorted(order)
    assert collect(SimulationSpec.build([CATALYSTS, SPARKS], 8, bot2="random", seed=12), workers=1)[0] != rows


def test_a_playsets_results_do_not_depend_on_the_rest_of_the_job() -> None:
    alone = collect(SimulationSpec.build([SPARKS], 5, seed=4), workers=1)
    together = collect(SimulationSpec.build([CATALYSTS, SPARKS], 5, seed=4), workers=1)
    key = "/".join(SPARKS)
    assert alone[1][key] == together[1][key]
    assert alone[0] == [r for r in together[0] if r[0] == key]


def test_bot1_changes_seat_every_match() -> None:
    rows, _ = collect(SimulationSpec.build([CATALYSTS], 4, bot1="greedy", bot2="random"), workers=1)
    seats = {r[1]: (r[3], r[4], r[5]) for r in rows}
    assert seats == {0: ("greedy", "random", 0), 1: ("random", "greedy", 1), 2: ("greedy", "random", 0),
                     3: ("random", "greedy", 1)}


def test_memory_stays_flat_with_the_number_of_matches() -> None:
    """Rows stream to the sink and only counters stay: peak memory for 4x the matches is about the same."""
    def peak(n: int) -> int:
        spec = SimulationSpec.build([SPARKS], n, bot1="random", bot2="random")
        kept = [0]
        tracemalloc.start()
        simulate(spec, workers=1, chunk_size=5, sink=lambda rows: kept.__setitem__(0, kept[0] + len(rows)))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert kept[0] >= 2 * n
        return top

    peak(5)  # warm caches (decks, playsets)
    small, large = peak(20), peak(80)
    assert large < small * 1.5 + 200_000, (small, large)


# ---------------------------------------------------------------------- backends


def test_the_ray_backend_gives_the_same_results_as_local_processes(tinker_dir: Path) -> None:
    """On a local Ray instance; the user deck's text travels with the job."""
    ray = pytest.importorskip("ray")
    spec = SimulationSpec.build([CATALYSTS, ["tinker", "delver", "healer"]], 6, bot2="random", seed=5,
                                deck_dirs=[str(tinker_dir)])
    local = collect(spec, workers=1, chunk_size=4)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = collect(spec, backend="ray", workers=2, chunk_size=2)
    finally:
        ray.shutdown()
    assert remote == local


def test_unknown_or_unavailable_backends_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from converge.simulation import backends

    spec = SimulationSpec.build([CATALYSTS], 1)
    with pytest.raises(backends.BackendError, match="unknown backend 'spark'"):
        simulate(spec, backend="spark")
    with pytest.raises(backends.BackendError, match="--address is for the Ray backend"):
        simulate(spec, address="ray://x:1")
    real = backends.importlib.import_module

    def no_ray(name: str) -> Any:
        if name == "ray":
            raise ImportError(name)
        return real(name)

    monkeypatch.setattr(backends.importlib, "import_module", no_ray)
    with pytest.raises(backends.BackendError, match=r"pip install 'converge-game\[ray\]'"):
        simulate(spec, backend="ray")


# ---------------------------------------------------------------------- tables and summary


def test_the_csv_table_has_one_row_per_round(tmp_path: Path) -> None:
    spec = SimulationSpec.build([CATALYSTS], 5)
    writer = tables.open_rounds(tmp_path, "csv")
    result = simulate(spec, workers=1, sink=writer.write)
    writer.close()
    lines = (tmp_path / "rounds.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split(",") == list(ROUND_COLUMNS)
    assert len(lines) - 1 == writer.rows == result.tallies["/".join(CATALYSTS)].rounds
    first = dict(zip(ROUND_COLUMNS, lines[1].split(","), strict=True))
    assert first["playset"] == "alchemist/mechanist/archivist" and first["round"] == "1"
    assert first["holder_won"] in ("true", "false") and first["end"] in ("outscored", "hands_empty")


def test_the_parquet_table_reads_back(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    spec = SimulationSpec.build([CATALYSTS, SPARKS], 4)
    writer = tables.open_rounds(tmp_path, "parquet")
    rows: list[Any] = []
    simulate(spec, workers=1, sink=lambda r: (rows.extend(r), writer.write(r)))
    writer.close()
    table = pq.read_table(tmp_path / "rounds.parquet")
    assert table.column_names == list(ROUND_COLUMNS)
    assert table.num_rows == len(rows)
    assert [tuple(r.values()) for r in table.to_pylist()] == rows


def test_summary_figures_follow_from_the_counters() -> None:
    spec = SimulationSpec.build([CATALYSTS, SPARKS], 6, seed=2)
    result = simulate(spec, workers=1)
    s = summarize(spec, result.tallies)
    json.dumps(s)
    o = s["overall"]
    rounds = sum(t.rounds for t in result.tallies.values())
    assert o["rounds"] == rounds and o["matches"] == 12
    assert o["ends"]["outscored"] + o["ends"]["hands_empty"] == rounds
    assert sum(o["round_turns"].values()) == rounds and sum(o["match_rounds"].values()) == 12
    assert {p["playset"] for p in s["playsets"]} == {"alchemist/mechanist/archivist", "delver/astropath/healer"}
    assert len(s["cards"]) == len(s["goals"]) == 36
    card = s["cards"][0]
    assert card["id"] == "ALC1" and set(card["plays"]) == {"discard", "declare", "mine", "theirs"}
    assert card["all_plays"] == sum(card["plays"].values())
    assert all(0 <= g["fulfilment_rate"] <= 1 for g in s["goals"])
    assert [k["key"] for k in s["skillsets"]] == ["alchemist", "mechanist", "archivist", "delver", "astropath",
                                                   "healer"]
    pairs = s["pairs"]
    assert pairs["rounds"][0][1] == result.tallies["alchemist/mechanist/archivist"].rounds
    assert pairs["rounds"][0][3] == 0 and pairs["holder_win_rate"][0][3] is None


# ---------------------------------------------------------------------- the command


def test_simulate_writes_the_table_the_summary_and_a_self_contained_report(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pyarrow")
    out_dir = tmp_path / "sim"
    code, out, err = run(capsys, "simulate", "--set", "sparks", "--playset", "alchemist,healer,searcher",
                         "-n", "4", "--workers", "1", "--out", str(out_dir), "--seed", "9")
    assert code == 0, err
    assert "simulating: 8/8 matches (100%)" in err and "matches/s" in err and "ETA" in err
    assert "8 matches" in out and "starting holder wins" in out and "Skillsets" in out
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["settings"]["matches"] == 8 and summary["settings"]["seed"] == 9
    assert summary["run"]["backend"] == "local"
    assert (out_dir / "rounds.parquet").exists()
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") >= 5 and "http://" not in page and "https://" not in page
    assert "Starting-holder win rate per playset" in page and "ALC1" in page
    assert sorted(p.name for p in (out_dir / "plots").iterdir()) == [
        "cards.png", "ends.png", "goals.png", "holder_by_playset.png", "lengths.png", "skillset_pairs.png"]
    again = tmp_path / "again"
    code, _, _ = run(capsys, "simulate", "--set", "sparks", "--playset", "alchemist,healer,searcher", "-n", "4",
                     "--workers", "2", "--out", str(again), "--seed", "9", "--plots", "svg", "--format", "csv",
                     "--no-progress")
    assert code == 0
    other = json.loads((again / "summary.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in other.items() if k != "run"} == {k: v for k, v in summary.items() if k != "run"}
    assert "<svg" in (again / "report.html").read_text(encoding="utf-8")
    assert not (again / "rounds.parquet").exists() and (again / "rounds.csv").exists()
    code, _, _ = run(capsys, "simulate", "--set", "sparks", "-n", "1", "--workers", "1", "--out", str(again),
                     "--no-report", "--no-progress")
    assert code == 0 and sorted(p.name for p in again.iterdir()) == ["plots", "rounds.parquet", "summary.json"]
    assert list((again / "plots").iterdir()) == []  # an earlier run's report is not left behind


def test_simulate_without_the_optional_packages_writes_csv_and_says_so(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from converge.simulation import plots

    monkeypatch.setattr(tables, "have", lambda module: False)
    monkeypatch.setattr(plots, "have", lambda module: False)
    code, _, err = run(capsys, "simulate", "--set", "catalysts", "-n", "2", "--workers", "1",
                         "--out", str(tmp_path), "--no-progress")
    assert code == 0, err
    assert "pyarrow is not installed" in err and "matplotlib is not installed" in err
    assert "pip install 'converge-game[sim]'" in err
    assert (tmp_path / "rounds.csv").exists() and not (tmp_path / "plots").exists()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "matplotlib is not installed" in page and "<img" not in page
    code, _, err = run(capsys, "simulate", "--set", "catalysts", "-n", "2", "--out", str(tmp_path),
                       "--format", "parquet")
    assert_user_error(code, err, "Parquet output needs pyarrow")


@pytest.mark.parametrize("argv, fragments", [
    (["--playset", "wizard,healer,alchemist"], ["unknown skillset 'wizard'"]),
    (["--playset", "healer,alchemist"], ["three skillset names"]),
    (["-n", "0"], ["positive whole number"]),
    (["--set", "nope"], ["invalid choice"]),
    (["--workers", "-1"], ["positive whole number"]),
    (["--address", "ray://h:1"], ["--address is for the Ray backend"]),
    (["--backend", "spark"], ["invalid choice"]),
    (["--bot1", "wizard"], ["unknown bot 'wizard'"]),
])
def test_simulate_bad_values_are_one_line_user_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      argv: list[str], fragments: list[str]) -> None:
    code, _, err = run(capsys, "simulate", "--out", str(tmp_path / "x"), *argv)
    assert_user_error(code, err, *fragments)
    assert not (tmp_path / "x").exists()


def test_simulate_output_folder_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, _, err = run(capsys, "simulate", "--set", "catalysts", "-n", "1", "--out", str(blocker))
    assert_user_error(code, err, "is not a folder")


@pytest.mark.parametrize("address, fragment", [
    ("127.0.0.1:1", "cannot connect to the Ray cluster at 127.0.0.1:1"),
    ("ray://127.0.0.1:1", "cannot connect to the Ray cluster at ray://127.0.0.1:1"),
    ("nowhere", "a Ray address is HOST:PORT"),
])
def test_simulate_ray_address_that_answers_nothing_fails_fast(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                             address: str, fragment: str) -> None:
    pytest.importorskip("ray")
    code, _, err = run(capsys, "simulate", "--set", "catalysts", "-n", "1", "--backend", "ray",
                       "--address", address, "--out", str(tmp_path / "x"))
    assert_user_error(code, err, fragment)
    assert not (tmp_path / "x").exists()


def test_simulate_ray_backend_without_ray_says_how_to_install_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tables.have
    monkeypatch.setattr(tables, "have", lambda module: False if module == "ray" else real(module))
    code, _, err = run(capsys, "simulate", "--set", "catalysts", "-n", "1", "--backend", "ray",
                       "--out", str(tmp_path))
    assert_user_error(code, err, "the Ray backend needs Ray", "pip install 'converge-game[ray]'")


def test_a_custom_deck_plays_against_all_the_others(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    tinker_dir: Path) -> None:
    out_dir = tmp_path / "out"
    code, _, err = run(capsys, "simulate", "--deck-dir", str(tinker_dir), "--playset", "tinker,healer,alchemist",
                         "--playset", "tinker,delver,searcher", "-n", "3", "--workers", "2", "--out", str(out_dir),
                         "--no-report", "--no-progress")
    assert code == 0, err
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert [p["playset"] for p in summary["playsets"]] == ["alchemist/healer/tinker", "searcher/delver/tinker"]
    assert any(c["id"] == "TIN1" for c in summary["cards"])
    assert "tinker" in [k["key"] for k in summary["skillsets"]]
    spec = SimulationSpec.build(None, 1, deck_dirs=[str(tinker_dir)])
    assert len(spec.playsets) == 120 and sum("tinker" in p for p in spec.playsets) == 36


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_on_a_terminal_shows_the_count_the_rate_and_the_eta(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from converge.cli.simulation_steps import ProgressBar

    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    bar = ProgressBar(True)
    for done in (0, 25, 50, 100):
        bar(done, 100)
    bar.close()
    text = screen.getvalue()
    assert "100/100" in text and "matches/s" in text and "ETA" in text and "simulating" in text
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    off = ProgressBar(False)
    off(50, 100)
    off.close()
    assert quiet.getvalue() == ""


def test_with_a_deck_dir_balance_plays_the_playsets_that_hold_the_users_skillsets(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, tinker_dir: Path) -> None:
    """Without --playset, a designer's run plays the 36 of the 120 playsets that hold the new skillset, and
    the note, the summary and the report say so; the new skillset comes first in the tables."""
    out_dir = tmp_path / "focus"
    code, out, err = run(capsys, "balance", "--deck-dir", str(tinker_dir), "-n", "1", "--workers", "2",
                         "--out", str(out_dir), "--no-progress")
    assert code in (0, 1), err
    assert "36 of the 120 playsets, those that hold your skillset (Tinker); --all-playsets for all of them" in err
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    assert len(summary["playsets"]) == 36 and all("tinker" in p["skillsets"] for p in summary["playsets"])
    assert summary["settings"]["yours"] == {"skillsets": ["Tinker"], "playsets": 36, "of_playsets": 120}
    assert "your skillset: Tinker — 36 of the 120 playsets played" in out
    assert "Tinker (yours)" in out.split("Skillsets", 1)[1].splitlines()[4]  # the first row of the table
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert "36 of the 120 playsets played" in page and "Tinker (yours)" in page
    code, _, err = run(capsys, "simulate", "--deck-dir", str(tinker_dir), "--all-playsets", "-n", "1",
                       "--workers", "2", "--out", str(tmp_path / "all"), "--no-progress", "--no-report")
    assert code == 0 and "--all-playsets for all" not in err
    assert len(json.loads((tmp_path / "all" / "summary.json").read_text(encoding="utf-8"))["playsets"]) == 120


def test_simulate_takes_an_ismcts_bot_at_a_fixed_budget_and_repeats_exactly(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    argv = ["simulate", "--playset", "alchemist,healer,delver", "-n", "2", "--bot1", "ismcts:40", "--bot2",
            "greedy", "--workers", "1", "--no-report", "--no-progress"]
    docs = []
    for name in ("a", "b"):
        code, _, err = run(capsys, *argv, "--out", str(tmp_path / name))
        assert code == 0, err
        docs.append(json.loads((tmp_path / name / "summary.json").read_text(encoding="utf-8")))
    assert docs[0]["settings"]["bots"] == ["ismcts:40", "greedy"]
    code, out, _ = run(capsys, *argv, "--out", str(tmp_path / "a"))
    won = docs[0]["overall"]["bot1_match_win_rate"]
    assert f"bot 1 (ismcts:40) wins {100 * won:.1f}% of the matches against greedy (95% CI " in out
    assert "(1 playset × 2, " in out
    assert docs[0]["playsets"] == docs[1]["playsets"] and docs[0]["cards"] == docs[1]["cards"]
    code, _, err = run(capsys, "simulate", "--bot1", "ismcts:0", "--out", str(tmp_path / "c"))
    assert code == 2 and "unknown bot 'ismcts:0'" in err and "ismcts:N for N simulations" in err


def _pixels_near(png: bytes, colour: str, tolerance: int = 12) -> int:
    """How many pixels of the image are within ``tolerance`` of ``colour`` on every channel."""
    import matplotlib.image

    image = matplotlib.image.imread(io.BytesIO(png), format="png")
    want = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    count = 0
    for row in image:
        for px in row:
            if all(abs(float(px[c]) - want[c]) * 255 <= tolerance for c in range(3)):
                count += 1
    return count


def test_the_plots_mark_the_users_skillsets_and_cards_and_keep_card_rows_readable(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, tinker_dir: Path) -> None:
    """With --deck-dir the user's skillset leads the cards plot under its own heading, and every plot that
    names skillsets, playsets or cards draws the user's in their colour (a run without them has none of it);
    the cards plot gives each row room for its type, however many cards there are."""
    pytest.importorskip("matplotlib")
    from converge.simulation.plots import YOURS_COLOUR, card_rows, draw_plots

    out_dir = tmp_path / "out"
    code, _, err = run(capsys, "simulate", "--deck-dir", str(tinker_dir), "--playset", "tinker,healer,alchemist",
                       "--playset", "searcher,delver,healer", "-n", "2", "--workers", "2", "--out", str(out_dir),
                       "--no-report", "--no-progress")
    assert code == 0, err
    summary = json.loads((out_dir / "summary.json").read_text(encoding="utf-8"))
    rows = card_rows(summary)
    assert rows[0] == ("Tinker (yours)", None, True)
    assert [card["id"] for _, card, _ in rows[1:7] if card] == [f"TIN{i}" for i in range(1, 7)]
    assert all(mine for _, _, mine in rows[:7]) and not any(mine for _, _, mine in rows[7:])
    headings = [label for label, card, _ in rows if card is None]
    assert len(headings) == len(summary["skillsets"]) == 5
    assert len(rows) == len(summary["cards"]) + len(headings)

    marked = draw_plots(summary, None)
    plain_summary = copy.deepcopy(summary)
    del plain_summary["settings"]["yours"]
    plain = draw_plots(plain_summary, None)
    for name in ("holder_by_playset", "skillset_pairs", "cards", "goals", "ends"):
        assert _pixels_near(marked[name][1], YOURS_COLOUR) > 20, name
        assert _pixels_near(plain[name][1], YOURS_COLOUR) == 0, name

    import matplotlib.image

    height = matplotlib.image.imread(io.BytesIO(marked["cards"][1]), format="png").shape[0]
    assert height / len(rows) >= 20  # px a row at 110 dpi: room for 8-point type (12 px) and a gap


def test_the_plots_mark_as_out_of_line_only_what_balance_flags(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    """A playset whose starting holder wins 30% of 20 rounds is out of the band but too few rounds to judge:
    the plot and the report's table draw it as not judged (neither flagged nor near the line), as the checks
    say; at 35% of 100 rounds it is near the line; at 30% of 4,000 rounds it is flagged, and drawn so. A
    flagged goal marks its goal's row, not the card's of the same id."""
    pytest.importorskip("matplotlib")
    from converge.simulation.balance import FLAGGED
    from converge.simulation.plots import FLAGGED_COLOUR, NOT_JUDGED_COLOUR, UNSURE_COLOUR, Plots, draw_plots
    from converge.simulation.report import render_html

    code, _, err = run(capsys, "simulate", "--playset", "alchemist,healer,delver", "-n", "2", "--workers", "1",
                       "--out", str(tmp_path), "--no-report", "--no-progress")
    assert code == 0, err
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))

    def planted(rounds: int, rate: float = 0.3) -> dict[str, Any]:
        doc = copy.deepcopy(summary)
        doc["playsets"][0].update(rounds=rounds, holder_wins=round(rate * rounds), holder_win_rate=rate,
                                  holder_win_rate_ci95=list(wilson_interval(round(rate * rounds), rounds)))
        return doc

    few, some, many = planted(20), planted(100, 0.35), planted(4000)
    image = draw_plots(few, None)["holder_by_playset"][1]
    assert _pixels_near(image, FLAGGED_COLOUR) == 0 and _pixels_near(image, UNSURE_COLOUR) == 0
    assert _pixels_near(image, NOT_JUDGED_COLOUR) > 10
    image = draw_plots(some, None)["holder_by_playset"][1]
    assert _pixels_near(image, FLAGGED_COLOUR) == 0 and _pixels_near(image, UNSURE_COLOUR) > 10
    image = draw_plots(many, None)["holder_by_playset"][1]
    assert _pixels_near(image, FLAGGED_COLOUR) > 10 and _pixels_near(image, UNSURE_COLOUR) == 0
    # a goal far out of its band but with too few ends of turn to judge is not marked as flagged either
    goal = few["goals"][0]
    goal.update(stars=3, fulfilment_rate=0.5, turn_ends=10)
    assert Plots(few).status(goal["id"], "fulfilment_rate") == "not judged"
    goal["turn_ends"] = 10_000
    assert Plots(few).status(goal["id"], "fulfilment_rate") == FLAGGED

    def row_class(page: str, first_cell: str, second_cell: str = "") -> str:
        second = f" class=l>{html.escape(second_cell)}</td>" if second_cell else ">"
        start = page.index(f"<td class=l>{html.escape(first_cell)}</td><td{second}")
        row = page[page.rindex("<tr", 0, start):start]
        return row[len("<tr class="):-1] if row.startswith("<tr class=") else ""

    playset = few["playsets"][0]["playset"]
    assert row_class(render_html(few), playset) == "unjudged"
    assert row_class(render_html(some), playset) == "near"
    assert row_class(render_html(many), playset) == "bad"
    card = next(c for c in few["cards"] if c["id"] == goal["id"])
    page = render_html(few)
    assert row_class(page, goal["id"], goal["goal"]) == "bad"
    assert row_class(page, card["id"], card["name"]) != "bad"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal is Linux's")
def test_workers_end_with_a_run_that_is_killed(tmp_path: Path) -> None:
    """``kill`` (not Ctrl-C, which reaches every process of the terminal) of a simulation: its workers end
    too, instead of playing their chunks on."""
    import os
    import signal
    import subprocess
    import time

    run_ = subprocess.Popen([sys.executable, "-m", "converge", "simulate", "--bot1", "medium", "--bot2", "medium",
                             "-n", "50", "--workers", "2", "--no-progress", "--no-report", "--out", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def children() -> set[int]:
        found: set[int] = set()
        for task in Path(f"/proc/{run_.pid}/task").glob("*"):
            listed = task / "children"
            found |= {int(x) for x in listed.read_text().split()} if listed.exists() else set()
        return found

    workers: set[int] = set()
    for _ in range(600):  # the two workers have started (a spawn takes a moment)
        workers = children()
        if len(workers) >= 2:
            break
        time.sleep(0.1)
    assert len(workers) >= 2
    time.sleep(1.0)  # they are playing their first chunks
    os.kill(run_.pid, signal.SIGTERM)
    run_.wait(timeout=60)
    alive = set(workers)
    for _ in range(300):
        alive = {pid for pid in alive if Path(f"/proc/{pid}").exists()
                 and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()}
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, f"workers {sorted(alive)} outlived the killed run"
