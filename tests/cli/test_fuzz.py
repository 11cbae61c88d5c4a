"""Fuzzing the command line's doors: the files it reads (``converge replay`` records, ``converge cards
validate`` and ``--deck-dir`` deck files, ``converge balance --summary`` summaries) and its arguments.

Every run ends with exit code 0, 1 (``cards validate``/``balance`` found problems: one line each on
stdout) or 2 (the documented user error: one line on stderr starting ``converge: error:``), with no line
over 300 characters and never a traceback (an exception escaping ``main`` fails the test). See
tests/fuzz_support.py for how many examples run.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from converge import Match
from converge.cli import common
from converge.cli import main as cli
from tests.fuzz_support import (
    EXAMPLES,
    FUZZ_RUN,
    MAX_MESSAGE,
    SEED,
    awkward_strings,
    count,
    deep_mutate,
    dumps,
    fuzz_settings,
    hostile_json_texts,
    json_values,
    mutate,
    texts,
)
from tests.helpers import ROOT

BUILTIN = ROOT / "src" / "converge" / "cards" / "decks"
RECORD_FIELDS = ["format", "version", "playset", "seed", "start", "decks", "chance", "actions", "moves",
                 "position"]
POSITION_FIELDS = ["format", "version", "playset", "seed", "start", "round", "round_wins", "turn",
                   "artifact_holder", "lead", "to_play", "hands", "deck", "artifact", "discard", "goals",
                   "factions", "conversions", "guards", "recalled", "known"]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def check_run(code: int, out: str, err: str, problems_on_stdout: bool = False) -> None:
    """The documented outcomes: 0; 1 with one short line per problem; 2 with one short error line."""
    assert "Traceback" not in out + err
    assert code in (0, 1, 2), (code, err[-300:])
    if code == 2:
        lines = [line for line in err.strip().splitlines() if not line.startswith(("usage:", " "))]
        assert len(lines) == 1 and lines[0].startswith("converge: error: "), err[-600:]
        assert len(lines[0]) <= MAX_MESSAGE, len(lines[0])
    elif code == 1:
        assert problems_on_stdout, (out[-300:], err[-300:])
        assert all(len(line) <= MAX_MESSAGE for line in out.splitlines()), max(map(len, out.splitlines()))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A folder for the generated files, a valid record (with and without a position) and a valid summary."""
    folder = tmp_path_factory.mktemp("fuzz-cli")
    rng = random.Random(5)
    match = Match.new(["alchemist", "searcher", "healer"], seed=9)
    for _ in range(12):
        match.apply(rng.choice(match.legal_actions()))
    while True:  # a position is taken at the start of a play
        try:
            position = match.position()
            break
        except ValueError:
            match.apply(rng.choice(match.legal_actions()))
    record = match.record()
    hidden = match.playset.card_ids[match.zones.deck[0]]
    position = {**position, "known": {**position["known"], hidden: [0]}}  # inner structure to mutate
    from_position = {**Match.from_position(position).record(), "position": position}
    code, _, err = run_cli("simulate", "-n", "2", "--playset", "alchemist,mechanist,archivist", "--out",
                           str(folder / "sim"), "--no-report", "--no-progress", "--workers", "1",
                           "--format", "csv")
    assert code == 0, err
    summary = json.loads((folder / "sim" / "summary.json").read_text(encoding="utf-8"))
    deck = (BUILTIN / "alchemist.toml").read_text(encoding="utf-8")
    tinker = (deck.replace("Alchemist", "Tinker").replace("ALC", "TIN")
              .replace('color = "magenta"', 'color = "cyan"').replace('name = "', 'name = "Tinker '))
    yield {"folder": folder, "record": record, "from_position": from_position, "summary": summary,
           "deck": tinker}


def write(folder: Path, name: str, content: str | bytes) -> str:
    path = folder / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return str(path)


# ------------------------------------------------------------------ converge replay FILE


@fuzz_settings()
@given(data=st.data())
def test_fuzz_replay_files(files: dict[str, Any], data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["record", "record", "position", "position", "deep", "deep", "action",
                                      "value", "text", "bytes"]), label="kind")
    if kind == "record":
        content: str | bytes = dumps(mutate(files["record"], data, RECORD_FIELDS))
    elif kind == "position":
        doc = dict(files["from_position"])
        doc["position"] = mutate(doc["position"], data, POSITION_FIELDS)
        content = dumps(doc)
    elif kind == "deep":  # anywhere inside the record, its position most often
        doc = dict(files["from_position"])
        if data.draw(st.integers(min_value=0, max_value=3), label="where") == 0:
            content = dumps(deep_mutate(doc, data))
        else:
            content = dumps({**doc, "position": deep_mutate(doc["position"], data)})
    elif kind == "action":
        doc = dict(files["record"])
        actions = list(doc["actions"])
        i = data.draw(st.integers(min_value=0, max_value=len(actions) - 1), label="index")
        actions[i] = data.draw(json_values, label="action")
        doc["actions"] = actions
        content = dumps(doc)
    elif kind == "value":
        content = dumps(data.draw(json_values, label="value"))
    elif kind == "text":
        content = data.draw(hostile_json_texts, label="text")
    else:
        content = data.draw(st.binary(max_size=200), label="bytes")
    public = data.draw(st.booleans(), label="--public")
    path = write(files["folder"], "record.json", content)
    code, out, err = run_cli("replay", path, *(["--public"] if public else []))
    count("CLI converge replay FILE")
    check_run(code, out, err)
    if code == 0:
        assert "Converge — " in out and err == ""


# ------------------------------------------------------------------ converge cards validate FILE, --deck-dir

TOML_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.integers(min_value=4301, max_value=6000).map(lambda n: "9" * n),
    st.sampled_from(["inf", "-inf", "nan", "1.5", "1e400", "0x7fffffffffffffffff", "0o777", "0b1", "true", "false",
                     "1979-05-27T07:32:00Z", "07:32:00", '""', "''", '"\\u0000"', '"\\u001b[31m"', '"\\n"', "[]",
                     "{}", '["a", 1]', '{ kind = "x" }', '{ kind = "convert", count = 99 }', '"own"', '"any"',
                     '"Done"', '"done"', '"discard"', '"FUZ1\\n"', '"TIN1"']),
    st.integers(min_value=1, max_value=20_000).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=1, max_value=20_000).map(lambda n: "{ a = " * n + "1" + " }" * n),
    texts.map(json.dumps),
    st.integers(min_value=100, max_value=20_000).map(lambda n: json.dumps("x" * n)),
)


@st.composite
def deck_texts(draw: st.DrawFn, base: str) -> str:
    """A deck file derived from a valid one: values replaced, lines dropped, doubled or added, cut short."""
    lines = base.splitlines()
    for _ in range(draw(st.integers(min_value=1, max_value=4), label="edits")):
        i = draw(st.integers(min_value=0, max_value=max(0, len(lines) - 1)), label="line")
        how = draw(st.sampled_from(["value", "value", "value", "drop", "double", "add", "inline"]), label="how")
        line = lines[i] if lines else ""
        if how == "value" and "=" in line:
            key = line.split("=", 1)[0]
            lines[i] = f"{key}= {draw(TOML_VALUES, label='value')}"
        elif how == "inline" and "{" in line:  # a value inside an inline table (goal = {...}, effect = {...})
            parts = re.split(r"(=\s*[^,{}]+)", line)
            slots = [j for j, p in enumerate(parts) if p.startswith("=") and j > 1]
            if slots:
                j = draw(st.sampled_from(slots), label="slot")
                parts[j] = f"= {draw(TOML_VALUES, label='inline value')} "
                lines[i] = "".join(parts)
        elif how == "drop" and lines:
            lines.pop(i)
        elif how == "double" and lines:
            lines.insert(i, line)
        else:
            lines.insert(i, f"{draw(st.one_of(texts, awkward_strings), label='key')} = {draw(TOML_VALUES)}")
    text = "\n".join(lines) + "\n"
    if draw(st.integers(min_value=0, max_value=9), label="cut?") == 0:
        text = text[:draw(st.integers(min_value=0, max_value=len(text)), label="cut")]
    return text


@fuzz_settings()
@given(data=st.data())
def test_fuzz_deck_files(files: dict[str, Any], data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["deck", "deck", "deck", "text", "bytes"]), label="kind")
    if kind == "deck":
        content: str | bytes = data.draw(deck_texts(files["deck"]), label="deck")
    elif kind == "text":
        content = data.draw(st.one_of(texts, TOML_VALUES.map(lambda v: f"skillset = {v}")), label="text")
    else:
        content = data.draw(st.binary(max_size=200), label="bytes")
    folder = files["folder"] / "decks"
    folder.mkdir(exist_ok=True)
    path = write(folder, "fuzz.toml", content)
    if data.draw(st.booleans(), label="validate?"):
        code, out, err = run_cli("cards", "validate", path)
        count("CLI converge cards validate FILE")
        check_run(code, out, err, problems_on_stdout=True)
        if code == 1:
            assert err == "" and re.search(r"\d+ errors? in 1 file", out.splitlines()[-1])
    else:
        code, out, err = run_cli("cards", "--deck-dir", str(folder), "--skillset", "tinker")
        count("CLI --deck-dir FOLDER")
        check_run(code, out, err)


# ------------------------------------------------------------------ converge balance --summary FILE


@fuzz_settings(scale=0.5)
@given(data=st.data())
def test_fuzz_summary_files(files: dict[str, Any], data: st.DataObject) -> None:
    summary = files["summary"]
    kind = data.draw(st.sampled_from(["summary", "nested", "value", "text"]), label="kind")
    if kind == "summary":
        content = dumps(mutate(summary, data, sorted(summary)))
    elif kind == "nested":
        key = data.draw(st.sampled_from(["settings", "overall", "run", "pairs"]), label="part")
        content = dumps({**summary, key: mutate(summary[key], data, sorted(summary[key]) or ["x"])})
    elif kind == "value":
        content = dumps(data.draw(json_values, label="value"))
    else:
        content = data.draw(hostile_json_texts, label="text")
    path = write(files["folder"], "summary.json", content)
    code, out, err = run_cli("balance", "--summary", path)
    count("CLI converge balance --summary FILE")
    check_run(code, out, err, problems_on_stdout=True)


# ------------------------------------------------------------------ arguments


def _options() -> dict[str, list[tuple[list[str], Any]]]:
    """Each command's options (with their choices, if any), read from the real parser."""
    parser = cli.build_parser()
    out: dict[str, list[tuple[list[str], Any]]] = {}
    commands = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict))
    for name, sub in commands.choices.items():
        out[name] = [(list(a.option_strings), a.choices) for a in sub._actions if a.option_strings]
    return out


OPTIONS = _options()
values = st.one_of(texts, awkward_strings, st.integers(min_value=-5, max_value=2**64).map(str),
                   st.integers(min_value=4301, max_value=6000).map(lambda n: "9" * n),
                   st.sampled_from(["0", "1", "-1", "0.5", "inf", "nan", "1e3", "alchemist,mechanist,archivist",
                                    "alchemist,alchemist,healer", "catalysts", "greedy", "random", "x.json", ".",
                                    "/", "/dev/null", "--", "-", "--help", "-h"]))


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    command = draw(st.one_of(st.sampled_from(sorted(OPTIONS)), texts), label="command")
    argv = [command]
    for _ in range(draw(st.integers(min_value=0, max_value=5), label="n")):
        options = OPTIONS.get(command) or [(["--x"], None)]
        flags, choices = draw(st.sampled_from(options), label="option")
        argv.append(draw(st.sampled_from(flags), label="flag"))
        if draw(st.integers(min_value=0, max_value=3), label="value?"):
            argv.append(draw(st.sampled_from(sorted(map(str, choices))) if choices and draw(st.booleans())
                             else values, label="value"))
    if draw(st.booleans(), label="positional?"):
        argv.insert(draw(st.integers(min_value=0, max_value=len(argv)), label="at"), draw(values, label="pos"))
    return argv


@pytest.fixture
def light_commands(monkeypatch: pytest.MonkeyPatch, files: dict[str, Any]) -> None:
    """The long-running commands stop after their cheap checks; nothing is written outside the fuzz folder."""
    from converge.cli import ladder_command, play_command, serve_command, simulate_commands

    def checks_only(args: Any) -> int:
        if hasattr(args, "deck_dir"):
            catalog = common.user_catalog(args.deck_dir)
            if hasattr(args, "set") and not isinstance(getattr(args, "set", None), list):
                common.resolve_playset(args, catalog)
        return 0

    for module, name in ((play_command, "cmd_play"), (cli, "cmd_match"), (cli, "cmd_watch"), (cli, "cmd_bench"),
                         (simulate_commands, "cmd_simulate"), (simulate_commands, "cmd_balance"),
                         (ladder_command, "cmd_ladder"), (serve_command, "cmd_serve"),
                         (serve_command, "cmd_serve_bench")):
        monkeypatch.setattr(module, name, checks_only)
    monkeypatch.chdir(files["folder"])


@fuzz_settings()
@given(argv=argvs())
def test_fuzz_arguments(light_commands: None, argv: list[str]) -> None:
    code, out, err = run_cli(*argv)
    count("CLI arguments")
    check_run(code, out, err, problems_on_stdout=argv[:2] == ["cards", "validate"])


# ---------------------------------------------------------------------- the full-screen game, keys at random


#: Keys a cat on the keyboard presses: choices most, then the dialogs, undo, hint, leaving and answering.
KEYS = [*"123456789", *"1212", "enter", "enter", "enter", "space", "up", "down", "escape", "tab", "x", "pageup",
        "end", "u", "U", "h", "r", "question_mark", "q", "y", "n", "n", "ctrl+c", "ctrl+q"]


@pytest.mark.parametrize("run", range(max(2, EXAMPLES // 10) if FUZZ_RUN else 2))
def test_fuzz_full_screen_keys(run: int, tmp_path: Path) -> None:
    """A seeded stream of random keys through the full-screen game (Textual's Pilot), a few at a time as fast
    as a terminal delivers them: no error. Whenever the game is left, it is taken up again from its file
    (``converge play --resume``) and the stream goes on; the file always holds the match as played."""
    import asyncio

    from textual import events

    from converge.cli import saves
    from converge.cli.play_session import Session
    from converge.cli.tui import GameApp
    from tests.tui_support import make_app

    seed = SEED + run
    rng = random.Random(seed)
    stream = [rng.choice(KEYS) for _ in range(400 if FUZZ_RUN else 150)]
    app = make_app(seed=seed, save=tmp_path / "m.json", hotseat=run % 2 == 1)
    while True:
        async def main(app: GameApp = app) -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                while stream and app.is_running:
                    for key in stream[:4]:
                        char = "\r" if key == "enter" else key if len(key) == 1 else None
                        app.post_message(events.Key(key, char))
                    del stream[:4]
                    await pilot.pause()
                await app.workers.wait_for_complete()

        asyncio.run(main())
        count("full-screen keys", 1)
        assert app.return_code in (None, 0), f"the game stopped on an error (seed {seed})"
        save = app.session.save_path
        assert save is not None
        assert json.loads(save.read_text(encoding="utf-8"))["actions"] == app.session.match.history
        if not stream or app.session.match.is_terminal:
            break
        app = GameApp(Session.resumed(saves.load(save)), hint_simulations=300, resumed=True)
