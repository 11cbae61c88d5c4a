"""Two matches that one player cannot tell apart give that player byte-identical views, through every door.

The general guard of the information rules (I1-I3): rather than look for each kind of leak, build *pairs*
of matches with the same public history and the same private knowledge of one player, but other hidden
cards and other seeds, and compare everything that player (or a bot in their seat) can reach:

* the :class:`~converge.engine.view.PlayerView` pickled whole (its world is a Match: every field), the
  worlds it samples (pickled, with and without chance mode), its legal actions;
* the observation, the adapters' tensors and strings (OpenSpiel's state methods and
  ``resample_from_infostate`` in chance mode);
* the terminal's screen and its rebuilt final board of each finished round;
* the server's welcome and state messages.

Pairs come two ways:

* **chance mode** (every deal is a chance outcome): a match is played at random; for each round, the
  cards the viewer never saw that round (no event the viewer sees names them) are permuted at random,
  in the round's deal and in every action that names them — the opponent's hidden choices — and a second
  match replays the renamed actions. Both are compared after every action, in every round.
* **positions**: a seeded match is played to a random decision and its position taken; a second position
  has the cards hidden from the viewer permuted and another seed. Both are set up and played on with the
  same (renamed) actions until the round ends (the next round is dealt from the seed, which differs).

``make test`` compares :data:`PAIRS` pairs; ``CONVERGE_PAIRS=100000 pytest tests/engine/test_indistinguishable.py``
(run by ``make fuzz``, with a fresh ``CONVERGE_PAIRS_SEED``) that many. A planted leak of each kind a view
once had or could get (the start position, the seed, the real deck order) fails the comparison.
"""

from __future__ import annotations

import json
import os
import pickle
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from converge import Match
from converge.adapters.encoding import info_state_array, observation_array
from converge.cli.play_session import round_final_board
from converge.cli.screen import CardStyle, render
from converge.engine import all_playsets
from converge.engine.events import PUBLIC, ROUND_START
from converge.engine.playset import Playset
from converge.engine.sizes import NUM_CARDS

PAIRS = int(os.environ.get("CONVERGE_PAIRS", "10000"))
#: The seed all pairs are drawn from (``make fuzz`` draws a fresh one; a failure names the matches in full).
PAIRS_SEED = int(os.environ.get("CONVERGE_PAIRS_SEED", "2026"))
PLAYSETS = all_playsets()


@dataclass
class Pair:
    """Two matches, their viewer and how they were made (to reproduce a failure)."""

    a: Match
    b: Match
    viewer: int
    how: str
    actions: list[int] = field(default_factory=list)  # the actions that made ``a`` (from its start)
    renamed: list[int] = field(default_factory=list)  # ... and ``b``
    chance: bool = False
    start: str = "random"


# ---------------------------------------------------------------------- building pairs


def _visible_cards_by_round(match: Match, viewer: int) -> dict[int, set[int]]:
    """For each round, the cards named by an event the viewer sees (public, or the viewer's own)."""
    out: dict[int, set[int]] = {}
    round_no = 0
    for kind, visibility, _player, card, a, _b in match.events:
        if kind == ROUND_START:
            round_no = a
        if card >= 0 and visibility in (PUBLIC, viewer):
            out.setdefault(round_no, set()).add(card)
    return out


def _permutation(cards: set[int], rng: random.Random) -> dict[int, int]:
    order = sorted(cards)
    shuffled = order[:]
    rng.shuffle(shuffled)
    return dict(zip(order, shuffled, strict=True))


def chance_pairs(playset: Playset, viewer: int, rng: random.Random, length: int) -> Iterator[Pair]:
    """Pairs in chance mode, one after every action of a random match of up to ``length`` actions."""
    start = rng.choice(["random", "0", "1"])
    a = Match.new(playset, seed=rng.randrange(2**63), start=start, chance=True)
    steps: list[tuple[int, int, bool]] = []  # (action, round, names a card)
    while not a.is_terminal and len(steps) < length:
        legal = a.legal_actions()
        names_card = a.round_no > 0  # round 0: who holds the artifact first (a player, not a card)
        steps.append((rng.choice(legal), a.round_no, names_card))
        a.apply(steps[-1][0])
    seen = _visible_cards_by_round(a, viewer)
    sigma = {r: _permutation(set(range(NUM_CARDS)) - seen.get(r, set()), rng) for r in range(1, 4)}
    renamed = [sigma[r].get(x, x) if names_card and x < NUM_CARDS else x for x, r, names_card in steps]
    a = Match.new(playset, seed=rng.randrange(2**63), start=start, chance=True)
    b = Match.new(playset, seed=rng.randrange(2**63), start=start, chance=True)
    for i, (x, y) in enumerate(zip([s[0] for s in steps], renamed, strict=True)):
        a.apply(x)
        b.apply(y)  # raises if the renaming changed what is legal: a hidden card would decide it
        yield Pair(a, b, viewer, f"chance mode, {'/'.join(playset.names())}, start {start}",
                   [s[0] for s in steps[:i + 1]], renamed[:i + 1], chance=True, start=start)


def _renamed(doc: Any, ids: tuple[str, ...], sigma: dict[int, int]) -> Any:
    """A position document with every card id renamed by ``sigma`` (keys of its objects included)."""
    index = {cid: i for i, cid in enumerate(ids)}

    def card(x: str) -> str:
        return ids[sigma.get(index[x], index[x])] if x in index else x

    if isinstance(doc, dict):
        return {card(k): _renamed(v, ids, sigma) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_renamed(v, ids, sigma) for v in doc]
    if isinstance(doc, str):
        return card(doc)
    return doc


def position_pairs(playset: Playset, viewer: int, rng: random.Random, length: int) -> Iterator[Pair]:
    """Pairs set up from positions (one random decision of a seeded match, its hidden cards permuted and
    its seed changed), then after every action until the round ends or ``length`` actions."""
    seeded = Match.new(playset, seed=rng.randrange(2**63))
    for _ in range(rng.randrange(250)):
        if seeded.is_terminal:
            break
        seeded.apply(rng.choice(seeded.legal_actions()))
    if seeded.is_terminal:
        return
    doc = seeded.position()
    a = Match.from_position(doc, playset=playset)
    hidden = set(a.hidden_from(viewer))
    actions: list[int] = []
    rounds = a.rounds_finished
    while not a.is_terminal and len(actions) < length:
        x = rng.choice(a.legal_actions())
        after = a.clone()
        after.apply(x)
        if after.rounds_finished != rounds:  # the next deal comes from the seed: the matches part there
            break
        actions.append(x)
        a = after
    seen = _visible_cards_by_round(a, viewer)
    sigma = _permutation(hidden - set().union(*seen.values()), rng)
    ids = playset.card_ids
    other = {**_renamed(doc, ids, sigma), "seed": rng.randrange(2**63)}
    a = Match.from_position(doc, playset=playset)
    b = Match.from_position(other, playset=playset)
    how = f"position {json.dumps(doc)} and its renaming {json.dumps(other)}"
    renamed = [sigma.get(x, x) if x < NUM_CARDS else x for x in actions]
    yield Pair(a, b, viewer, how)
    for i, (x, y) in enumerate(zip(actions, renamed, strict=True)):
        a.apply(x)
        b.apply(y)
        yield Pair(a, b, viewer, how, actions[:i + 1], renamed[:i + 1])


def pairs(count: int, seed: int) -> Iterator[Pair]:
    """``count`` pairs over all playsets and both seats, about as many in chance mode as from positions."""
    rng = random.Random(seed)
    made = {chance_pairs: 0, position_pairs: 0}  # pairs of each kind
    runs = {chance_pairs: 0, position_pairs: 0}  # and matches (each from one seat, the seats in turn)
    while sum(made.values()) < count:
        make = min(made, key=made.__getitem__)  # position pairs end with their round: make more of them
        playset = Playset.from_names(list(PLAYSETS[sum(runs.values()) % len(PLAYSETS)]))
        for pair in make(playset, runs[make] % 2, rng, rng.randrange(40, 400)):
            yield pair
            made[make] += 1
            if sum(made.values()) >= count:
                return
        runs[make] += 1


# ---------------------------------------------------------------------- the doors
# Each door reads one side of a pair (0: ``a``, 1: ``b``) as the viewer reaches it.


def _match(pair: Pair, side: int) -> Match:
    return pair.b if side else pair.a


def _observation(pair: Pair, side: int) -> str:
    return json.dumps(_match(pair, side).observation(pair.viewer))


def _view(pair: Pair, side: int) -> bytes:
    view = _match(pair, side).view(pair.viewer)
    view.match_id = 0  # which match the view came from (an identity for bots' memory), not its content
    return pickle.dumps(view)


def _legal(pair: Pair, side: int) -> list[int]:
    return _match(pair, side).view(pair.viewer).legal_actions()


def _worlds(pair: Pair, side: int) -> bytes:
    view = _match(pair, side).view(pair.viewer)
    rng = random.Random(7)
    return pickle.dumps([view.sample_world(rng), view.sample_world(rng, chance=True)])


def _tensors(pair: Pair, side: int) -> bytes:
    m = _match(pair, side)
    return observation_array(m, pair.viewer).tobytes() + info_state_array(m, pair.viewer).tobytes()


def _screen(pair: Pair, side: int) -> str:
    m = _match(pair, side)
    with open(os.devnull, "w") as sink:
        console = Console(record=True, width=100, color_system=None, file=sink)
        console.print(render(m.observation(pair.viewer), CardStyle(m.playset.decks)))
    return console.export_text()


def _final_boards(pair: Pair, side: int) -> str:
    m = _match(pair, side)
    return json.dumps([round_final_board(m, r, pair.viewer) for r in range(1, m.rounds_finished + 1)])


def _server_messages(pair: Pair, side: int) -> str:
    """The welcome and a state message of the viewer's seat, from a server session around the match."""
    from converge.server.play.match.session import Session
    from converge.server.storage.rows import MatchRow, SeatRow

    m = _match(pair, side)
    seed = 1 + side  # the stored rows' seeds differ too
    seats = [SeatRow(0, "0" * 64, None), SeatRow(1, "1" * 64, None)]
    row = MatchRow(id="pair", mode="friend", playset=m.playset.names(), seed=seed, start="random",
                   decks=m.playset.digest, bot_seed=seed, seats=seats)
    session = Session(row, m)
    obs, start = session.views.observer(pair.viewer).observe()  # what a broadcast sends: the events not yet sent
    return json.dumps([session.views.welcome(pair.viewer), session.views.state(pair.viewer, obs, start)])


_GAMES: dict[tuple[str, str], Any] = {}


def _openspiel(pair: Pair, side: int) -> Any:
    """OpenSpiel's state methods for the viewer, the state rebuilt from its history (chance mode: the
    game's own), and the history ``resample_from_infostate`` draws with a fixed sampler."""
    if not pair.chance:
        return None
    pyspiel = pytest.importorskip("pyspiel")
    from converge.adapters.openspiel import start_parameter

    key = ("/".join(pair.a.playset.names()), start_parameter(pair.start))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = pyspiel.load_game(f"python_converge(playset={key[0]},start={key[1]})")
    state, v = game.new_initial_state(), pair.viewer
    for x in pair.renamed if side else pair.actions:
        state.apply_action(x)
    drawn = None
    if not state.is_chance_node() and not state.is_terminal():
        drawn = state.resample_from_infostate(v, random.Random(3).random).history()
    return (state.information_state_string(v), state.observation_string(v),
            np.asarray(state.information_state_tensor(v)).tobytes(),
            np.asarray(state.observation_tensor(v)).tobytes(), drawn)


@dataclass(frozen=True)
class Door:
    name: str
    read: Callable[[Pair, int], Any]
    every: int = 1  # compared at every ``every``-th pair (the slower doors less often)


#: What a player or a bot in the viewer's seat can reach of a match.
DOORS = (
    Door("observation", _observation),
    Door("view (pickled)", _view),
    Door("legal actions of the view", _legal),
    Door("sampled worlds (pickled)", _worlds),
    Door("adapter tensors", _tensors),
    Door("terminal's final boards", _final_boards),
    Door("terminal screen", _screen, 10),
    Door("server messages", _server_messages, 5),
    Door("OpenSpiel state", _openspiel, 5),
)


# ---------------------------------------------------------------------- the comparison


def differences(pair: Pair, index: int = 0, doors: tuple[Door, ...] = DOORS) -> list[str]:
    """The doors through which the viewer can tell the two matches of ``pair`` apart."""
    return [d.name for d in doors if index % d.every == 0 and d.read(pair, 0) != d.read(pair, 1)]


def test_indistinguishable_matches_look_the_same_through_every_door() -> None:
    compared = {"chance": [0, 0], "position": [0, 0]}
    for i, pair in enumerate(pairs(PAIRS, PAIRS_SEED)):
        found = differences(pair, i)
        assert not found, (f"player {pair.viewer} can tell two matches apart through {', '.join(found)} (pair {i} "
                           f"of seed {PAIRS_SEED}): {pair.how}; actions {pair.actions} and {pair.renamed}")
        compared["chance" if pair.chance else "position"][pair.viewer] += 1
    assert all(n > PAIRS // 8 for kind in compared.values() for n in kind), compared


# ---------------------------------------------------------------------- planted leaks


def _leaky_view(leak: Callable[[Match, Match], None]) -> Door:
    """The view door of a redaction that forgot something: ``leak(world, match)`` puts it back."""
    def read(pair: Pair, side: int) -> bytes:
        m = _match(pair, side)
        view = m.view(pair.viewer)
        view.match_id = 0
        leak(view._world, m)
        return pickle.dumps(view)
    return Door("leaky view", read)


def _keep_origin(world: Match, match: Match) -> None:
    world.origin = match.origin


def _keep_seed(world: Match, match: Match) -> None:
    world.seed = match.seed


def _keep_deck(world: Match, match: Match) -> None:
    world.zones.deck = match.zones.deck[:]


@pytest.mark.parametrize("leak", [_keep_origin, _keep_seed, _keep_deck], ids=["origin", "seed", "deck order"])
def test_a_planted_leak_is_caught(leak: Callable[[Match, Match], None]) -> None:
    """The comparison is not vacuous: a view that kept the start position, the seed or the real deck order
    (each once a real leak, or one a careless change could bring) tells some pair apart within a few
    hundred pairs, while the same pairs pass through the real view."""
    door = _leaky_view(leak)
    caught = next((i for i, pair in enumerate(pairs(600, 7)) if differences(pair, doors=(door,))), None)
    assert caught is not None
    assert not any(differences(pair, doors=(DOORS[1],)) for pair in pairs(caught + 1, 7))
