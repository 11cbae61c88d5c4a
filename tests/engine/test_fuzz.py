"""Hostile input at the engine's doors: actions, positions, records, deck files, match settings, viewers.

Every input generated here either works or gets the door's documented error — a ``ConvergeError`` of the
right kind, with a message of at most :data:`MAX_MESSAGE` characters — and changes nothing. Inputs come from
a seeded generator (random JSON values, and mutations of valid documents); ``make test`` runs a slice,
``make fuzz`` sets ``CONVERGE_FUZZ_EXAMPLES`` for the long run.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
from collections.abc import Callable
from typing import Any

import pytest

from converge import ConvergeError, IllegalActionError, Match, PlaysetError, PositionError, RecordError
from converge.cards.loader import DeckError, builtin_sources, load_decks
from converge.cards.model import Deck
from converge.engine import all_playsets
from converge.engine.actions import SKILLSET_0, string_to_action
from tests.fuzz_support import SEED as fuzz_seed
from tests.fuzz_support import count

EXAMPLES = int(os.environ.get("CONVERGE_FUZZ_EXAMPLES", "1500"))
SEED = fuzz_seed if os.environ.get("CONVERGE_FUZZ_EXAMPLES") else 0  # fresh inputs in a long run
MAX_MESSAGE = 600
PLAYSETS = all_playsets()
WORDS = ["ALC1", "MEC6", "ARC3", "PRO2", "SEA4", "MER5", "DEL1", "AST6", "HEA3", "discard", "declare", "mine",
         "theirs", "done", "Alchemist", "alchemist", "play ALC1", "", " ", "ALC1\n", "zzz", "-1", "26", "1e9",
         "converge-position", "converge-record", "hand 0", "target", "own", "random", "0", "1", "\u00e9",
         "\x00", "ALC1 MEC2", "Done"]


def json_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON-like value, biased toward what a careless or hostile client sends."""
    roll = rng.random()
    if depth > 3 or roll < 0.25:
        return rng.choice([0, 1, 2, -1, 3, 17, 18, 25, 26, 2**63, -(2**63), 10**30, 10**400, True, False, None,
                           1.5, -0.0, math.inf, math.nan, 1e300])
    if roll < 0.5:
        word = rng.choice(WORDS)
        return word * rng.choice([1, 1, 1, 50]) if rng.random() < 0.1 else word
    if roll < 0.7:
        return [json_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if roll < 0.85:
        return {rng.choice(["hands", "deck", "known", "card", "effect", "skillset", "rank", "x", "0"]):
                json_value(rng, depth + 1) for _ in range(rng.randrange(3))}
    if roll < 0.92:
        deep: Any = 1
        for _ in range(rng.choice([10, 200, 5000])):
            deep = [deep]
        return deep
    return "x" * rng.choice([1000, 100_000])


def _check_error(exc: BaseException, kind: type[ConvergeError], door: str) -> None:
    assert isinstance(exc, kind), f"{door}: {type(exc).__name__}: {str(exc)[:200]}"
    assert len(str(exc)) <= MAX_MESSAGE, f"{door}: a {len(str(exc))}-character message: {str(exc)[:200]}..."
    assert str(exc), f"{door}: an empty message"


def _door(call: Callable[..., object], args: tuple[Any, ...], kind: type[ConvergeError], door: str) -> bool:
    """``call(*args)``; True if it worked, False if it raised ``kind`` properly (anything else fails)."""
    count(f"engine: {door.split('(')[0]}")
    try:
        call(*args)
    except ConvergeError as exc:
        if isinstance(exc, DeckError):  # one message per problem, each bounded
            assert all(len(str(p)) <= MAX_MESSAGE for p in exc.problems), door
            assert isinstance(exc, kind), door
            return False
        _check_error(exc, kind, door)
        return False
    return True


def _random_match(rng: random.Random) -> Match:
    match = Match.new(list(rng.choice(PLAYSETS)), seed=rng.randrange(2**40))
    for _ in range(rng.randrange(60)):
        if match.is_terminal:
            break
        match.apply(rng.choice(match.legal_actions()))
    return match


def _state(match: Match) -> tuple[object, ...]:
    return (match.position() if not match.is_chance_node else None, list(match.history), len(match.events))


def test_hostile_actions_raise_illegal_action_error_and_change_nothing() -> None:
    rng = random.Random(SEED + 1)
    match = _random_match(rng)
    worked = 0
    for i in range(EXAMPLES * 4):
        if i % 40 == 0 or match.is_terminal:
            match = _random_match(rng)
        before = _state(match)
        value = json_value(rng) if rng.random() < 0.8 else rng.randrange(-3, 30)
        player = rng.choice([None, None, 0, 1, -1, 2, "0", True])
        legal = match.legal_actions()
        if _door(match.apply, (value, player), IllegalActionError, f"apply(a {type(value).__name__})"):
            worked += 1
            assert isinstance(value, (int, str)) and match.history[-1] in legal
        else:
            assert _state(match) == before
    assert worked > 0


def _mutated(doc: Any, rng: random.Random) -> Any:
    """``doc`` with one random change somewhere inside: a value replaced, a key removed or added, a list
    cut or grown, two card ids swapped."""
    try:
        doc = copy.deepcopy(doc)
    except RecursionError:  # (a value nested too deep for this test to copy: start afresh)
        return json_value(rng)
    node = doc
    for _ in range(rng.randrange(3)):
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) \
            if isinstance(node, list) else []
        containers = [v for _, v in children if isinstance(v, (dict, list)) and v]
        if not containers:
            break
        node = rng.choice(containers)
    roll = rng.random()
    if isinstance(node, dict) and node:
        key = rng.choice(list(node))
        if roll < 0.6:
            node[key] = json_value(rng)
        elif roll < 0.8:
            del node[key]
        else:
            new_key = rng.choice(["extra", "Hands", "winner", "decision", "round_results", key + "x"])
            node[new_key] = json_value(rng)
    elif isinstance(node, list) and node:
        i = rng.randrange(len(node))
        if roll < 0.5:
            node[i] = json_value(rng)
        elif roll < 0.7:
            del node[i]
        elif roll < 0.85:
            node.append(node[i])
        else:
            j = rng.randrange(len(node))
            node[i], node[j] = node[j], node[i]
    return doc


def _dumps(doc: Any) -> str:
    try:
        return json.dumps(doc, default=str)
    except (RecursionError, ValueError):
        return "(too deep to compare)"


def test_hostile_positions_raise_position_error_and_change_nothing_given() -> None:
    rng = random.Random(SEED + 2)
    valid = 0
    for i in range(EXAMPLES * 2):
        source = _random_match(rng)
        doc = source.position() if not source.is_chance_node else {}
        for _ in range(rng.choice([1, 1, 2, 3])):
            doc = _mutated(doc, rng) if rng.random() < 0.9 else json_value(rng)
        frozen = _dumps(doc) if i % 10 == 0 else None
        if _door(Match.from_position, (doc,), PositionError, "from_position"):
            valid += 1
            Match.from_position(doc).legal_actions()  # a position accepted is playable
        if frozen is not None:
            assert _dumps(doc) == frozen  # the document given was not changed
    assert valid > 0


def test_hostile_records_raise_record_error() -> None:
    rng = random.Random(SEED + 3)
    replayed = 0
    for _ in range(EXAMPLES):
        match = _random_match(rng)
        record = match.record()
        for _ in range(rng.choice([1, 2])):
            record = _mutated(record, rng) if rng.random() < 0.9 else json_value(rng)
        upto = rng.choice([None, None, 0, 3, -1, 1.5, "2", True, 10**40])
        replayed += _door(Match.replay, (record, (), upto), RecordError, "replay")
    assert replayed > 0


def _mutated_toml(text: str, rng: random.Random) -> str:
    lines = text.splitlines() or [""]
    i = rng.randrange(len(lines))
    roll = rng.random()
    literal = rng.choice(['"x"', "0", "7", "-1", "99999999999999999999999", "1" * 5000, "1.5", "true", "[]",
                          '[1, "a"]', "{}", '{ kind = "convert" }', '"done"', '"ALC1"', '"Done"',
                          '"FUZ1\\n"', '"alc1"', "nan", "1979-05-27", '"' + "x" * 3000 + '"',
                          "[" * 2000 + "]" * 2000, '{ kind = "trade", with_hand = false }'])
    if roll < 0.6 and "=" in lines[i]:
        key = lines[i].split("=", 1)[0]
        if "{" in lines[i] and rng.random() < 0.5:  # a parameter inside an inline table
            inner = lines[i][lines[i].index("{") + 1:].split(",")
            j = rng.randrange(len(inner))
            name = inner[j].split("=", 1)[0]
            inner[j] = f"{name}= {literal}" + (" }" if inner[j].rstrip().endswith("}") else "")
            lines[i] = lines[i][:lines[i].index("{") + 1] + ",".join(inner)
        else:
            lines[i] = f"{key}= {literal}"
    elif roll < 0.75:
        del lines[i]
    elif roll < 0.85:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif roll < 0.95:
        return text[:rng.randrange(max(1, len(text)))]
    else:
        lines.insert(i, "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 12))))
    return "\n".join(lines) + "\n"


def _tenth_skillset(text: str) -> str:
    """A built-in deck file made a tenth skillset, not a built-in's twin: its skillset, card ids and card names
    its own (a deck that repeats another's is refused: players tell the cards of a match apart by name)."""
    return (text.replace('skillset = "', 'skillset = "Fuzz', 1).replace('id = "', 'id = "F')
            .replace('name = "', 'name = "Fuzz '))


def test_hostile_deck_files_raise_deck_error() -> None:
    rng = random.Random(SEED + 4)
    builtin = builtin_sources()
    for _, text in builtin:  # unmutated, each loads beside the nine: a mutation is what a refusal is of
        load_decks([*builtin, ("fuzz.toml", _tenth_skillset(text))])
    loaded = 0
    for _ in range(EXAMPLES):
        _, text = rng.choice(builtin)
        text = _tenth_skillset(text)
        for _ in range(rng.choice([1, 1, 2])):
            text = _mutated_toml(text, rng)
        try:
            decks = load_decks([*builtin, ("fuzz.toml", text)])
        except ConvergeError:
            _door(load_decks, ([*builtin, ("fuzz.toml", text)],), DeckError, "load_decks")
            continue
        count("engine: load_decks")
        loaded += 1
        _reads_back(next(d for d in decks.values() if d.source == "fuzz.toml"))
    # about one mutated file in eight still loads (a value changed within its range, a line repeated...): far
    # fewer, and the fuzz no longer reaches the loaded deck's doors
    assert loaded > 0 and loaded >= EXAMPLES // 20, loaded


def _reads_back(deck: Deck) -> None:
    """Whatever a deck that loads is called, an action can name it: each card id and the skillset read back as
    themselves in the action language (the terminal's line mode and the server read actions so)."""
    ids = {c.id.upper(): i for i, c in enumerate(deck.cards)}
    for card_id, i in ids.items():
        assert string_to_action(card_id.lower(), ids, (deck.skillset,)) == i, card_id
    assert string_to_action(deck.skillset, ids, (deck.skillset,)) == SKILLSET_0, deck.skillset


def test_hostile_match_settings_raise_playset_error() -> None:
    rng = random.Random(SEED + 5)
    for _ in range(EXAMPLES):
        playset = rng.choice([list(rng.choice(PLAYSETS)), json_value(rng), ["alchemist"] * 2 + ["mechanist"]])
        seed = rng.choice([0, 5, json_value(rng)])
        start = rng.choice(["random", 0, 1, json_value(rng)])
        _door(Match.new, (playset, seed, start), PlaysetError, "Match.new")


def test_hostile_viewers_and_parsed_actions_raise_engine_errors() -> None:
    rng = random.Random(SEED + 6)
    match = _random_match(rng)
    for _ in range(EXAMPLES):
        value = json_value(rng)
        _door(match.observation, (value,), ConvergeError, "observation")
        _door(match.view, (value,), ConvergeError, "view")
        _door(match.parse_action, (value,), IllegalActionError, "parse_action")
        _door(match.action_to_string, (value,), IllegalActionError, "action_to_string")


@pytest.mark.parametrize("text", ["[[card]]\n" * 3, "skillset = " + "[" * 100_000, "x = " + "9" * 5000])
def test_deck_files_that_break_the_toml_reader_are_deck_errors(text: str) -> None:
    with pytest.raises(DeckError):
        load_decks([("evil.toml", text)])
