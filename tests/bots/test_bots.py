"""Bots: legal actions only, seeded, greedy clearly stronger than random, and blind to hidden cards."""

from __future__ import annotations

import doctest
import importlib
import random
from collections.abc import Callable
from typing import Any

import pytest

from converge import Match
from converge.bots import BOTS, LEVELS, GreedyBot, ISMCTSBot, RandomBot, bot_display_name, make_bot
from converge.bots.base import Bot
from converge.engine import DISCARD, all_playsets
from converge.simulation.runner import play_match, run_series, wilson_interval
from tests.helpers import setup

PLAYSETS = all_playsets()


@pytest.mark.parametrize("name", ["converge.bots", "converge.simulation.runner"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_wilson_interval() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(100, 100)
    assert 0.96 < lo < 1.0 and hi == 1.0
    lo, hi = wilson_interval(0, 100)
    assert lo == 0.0 and 0 < hi < 0.04
    lo, hi = wilson_interval(50, 100)
    assert abs((lo + hi) / 2 - 0.5) < 1e-12 and abs(hi - lo - 0.1923) < 1e-3


def test_registry_makes_seeded_bots_by_name() -> None:
    assert set(LEVELS) | {"random", "greedy", "ismcts"} == set(BOTS)
    for name in BOTS:
        bot = make_bot(name, seed=3)
        assert isinstance(bot, Bot)
        assert bot.name == name
    assert isinstance(make_bot(" Greedy "), GreedyBot)
    with pytest.raises(ValueError, match=r"unknown bot 'wizard'.*beginner, easy, expert, greedy"):
        make_bot("wizard")


#: One fast bot of each algorithm (the levels only change budgets), for tests that play many matches.
FAST: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot, "greedy": GreedyBot, "ismcts": lambda seed: ISMCTSBot(seed, iterations=25),
}


@pytest.mark.parametrize("name", sorted(FAST))
def test_bots_only_return_legal_actions(name: str) -> None:
    for k in range(12):
        match = Match.new(list(PLAYSETS[(k * 7) % len(PLAYSETS)]), seed=k, log_events=k % 2 == 0)
        bots = (FAST[name](k), FAST[name](k + 100))
        while not match.is_terminal:
            seat = match.current_player
            action = bots[seat].decide(match.view(seat))
            assert action in match.legal_actions()
            match.apply(action)
        assert match.winner in (0, 1)


@pytest.mark.parametrize("name", sorted(FAST))
def test_same_seed_same_match(name: str) -> None:
    def moves(seed: int) -> list[int]:
        m = play_match(["delver", "astropath", "healer"], 5, (FAST[name](seed), make_bot("random", 9)))
        return m.history

    assert moves(1) == moves(1)


def test_greedy_beats_random_clearly() -> None:
    result = run_series("greedy", "random", 100, seed=2024)
    assert result.matches == 100
    assert result.wins[0] + result.wins[1] == 100
    assert result.win_rate > 0.75, result.to_dict()
    assert wilson_interval(result.wins[0], result.matches)[0] > 0.6
    assert result.wins_as_player0[0] > 0 and result.wins[0] - result.wins_as_player0[0] > 0  # both seats


def test_greedy_wins_the_round_when_one_play_does() -> None:
    # Lead, and the opponent has no card to answer with: declaring ALC1 (Highest Alchemist) wins 1-0.
    m = setup(hands=(["ALC1", "MEC2", "ARC3"], []), factions=(["ALC6"], ["MEC5"]), holder=0)
    bot = GreedyBot(seed=0)
    while m.round_no == 1 and m.current_player == 0:
        m.apply(bot.decide(m.view(0)))
    assert m.round_results and m.round_results[0][0] == 0


def test_greedy_takes_the_artifact_rather_than_lose_the_round() -> None:
    # Second to play; the lead scores 1-0 on Highest Alchemist unless player 1 answers.
    m = setup(hands=(["MEC1"], ["ALC6", "MEC2", "ARC1"]), factions=(["ALC2"], []), goals=["ALC1"],
              holder=0, to_play=1)
    assert m.scores() == (1, 0)
    bot = GreedyBot(seed=0)
    turn = m.turn_no
    while m.turn_no == turn:
        m.apply(bot.decide(m.view(1)))
    assert m.round_results == []
    assert m.holder == 1


# ---------------------------------------------------------------------- hidden information


def _hidden_variant(match: Match, me: int, rng: random.Random, keep_top: int) -> Match:
    """The same position with the cards ``me`` cannot see reshuffled among their places: the opponent's
    hand, the deck and the artifact, except cards whose place ``me`` knows and the top ``keep_top`` cards
    of the deck (so that a first card revealed is the same in both). What a player knows about a place
    stays with the place."""
    pos = match.position()
    opp = 1 - me
    known: dict[str, list[int]] = dict(pos.get("known", {}))
    hands = [list(h) for h in pos["hands"]]
    deck = list(pos["deck"])
    zones: dict[str, list[str]] = {"hand": hands[opp], "deck": deck, "artifact": [pos["artifact"]]}
    slots = [(zone, i) for zone, cards in zones.items() for i, cid in enumerate(cards)
             if me not in known.get(cid, [opp] if zone == "hand" else [])
             and not (zone == "deck" and i < keep_top)]
    old = [zones[z][i] for z, i in slots]
    new = old[:]
    rng.shuffle(new)
    moved_knowledge = {cid: known.pop(cid) for cid in old if cid in known}
    for (zone, i), before, after in zip(slots, old, new, strict=True):
        zones[zone][i] = after
        if before in moved_knowledge:
            known[after] = moved_knowledge[before]
    return Match.from_position({**pos, "hands": hands, "deck": deck, "artifact": zones["artifact"][0],
                                "known": known})


def _greedy_positions(count: int) -> list[tuple[dict[str, Any], int]]:
    """Positions where the greedy bot starts a play, from greedy-vs-random matches over every playset."""
    out: list[tuple[dict[str, Any], int]] = []
    k = 0
    while len(out) < count:
        match = Match.new(list(PLAYSETS[k % len(PLAYSETS)]), seed=k, log_events=False)
        bots = (GreedyBot(k), RandomBot(k)) if k % 2 == 0 else (RandomBot(k), GreedyBot(k))
        me = k % 2
        while not match.is_terminal:
            seat = match.current_player
            if seat == me and match.decision_kind == "select":
                out.append((match.position(), me))
            match.apply(bots[seat].decide(match.view(seat)))
        k += 1
    return out[:count]


def test_greedy_decides_the_same_when_only_hidden_cards_differ() -> None:
    """Same observation, same seed: same decisions, until a hidden card is shown to the bot.

    Variants keep none, one or three of the top cards of the deck, so the bot also decides with equal
    observations after Assemble or Search showed it a card (and must not peek at the next one)."""
    rng = random.Random(11)
    effects_tried: set[str] = set()
    plays = 0
    for pos, me in _greedy_positions(400):
        base = Match.from_position(pos)
        for keep_top in (0, 1, 3):
            a, b = Match.from_position(pos), _hidden_variant(base, me, rng, keep_top)
            bot_a, bot_b = GreedyBot(seed=5), GreedyBot(seed=5)
            key = (a.round_no, a.turn_no)
            assert a.observation(me) == b.observation(me)
            first = True
            chosen: list[int] = []
            while a.current_player == me and (a.round_no, a.turn_no) == key:
                if not first and a.observation(me) != b.observation(me):
                    break  # Assemble or Search showed a card: from here the bots may differ, rightly
                first = False
                x, y = bot_a.decide(a.view(me)), bot_b.decide(b.view(me))
                assert x == y, (pos, chosen)
                chosen.append(x)
                a.apply(x)
                b.apply(y)
            plays += 1
            if len(chosen) >= 2 and chosen[1] == DISCARD:
                effects_tried.add(a.playset.cards[chosen[0]].effect.kind)
    assert plays == 1200
    assert {"study", "convert", "trade", "expand", "heal"} <= effects_tried, effects_tried


def test_greedy_does_not_peek_past_a_revealed_card() -> None:
    """Assemble 2 / Search: the bot decides with the first card(s) shown; the next ones stay unknown."""
    rng = random.Random(3)
    decided = {"assemble": 0, "search": 0}
    for pos, me in _greedy_positions(600):
        base = Match.from_position(pos)
        for card in sorted(base.zones.hands[me]):
            spec = base.playset.cards[card]
            if spec.effect.kind not in decided:
                continue
            shown = int(spec.effect.params.get("depth", 1))  # Assemble shows one card at a time
            for _ in range(2):
                a, b = Match.from_position(pos), _hidden_variant(base, me, rng, shown)
                for m in (a, b):
                    m.apply(card)
                    m.apply(DISCARD)
                bot_a, bot_b = GreedyBot(seed=1), GreedyBot(seed=1)
                key = (a.round_no, a.turn_no)
                while (a.current_player == me and (a.round_no, a.turn_no) == key
                       and a.observation(me) == b.observation(me)):
                    x, y = bot_a.decide(a.view(me)), bot_b.decide(b.view(me))
                    assert x == y, (pos, spec.id)
                    decided[spec.effect.kind] += 1
                    a.apply(x)
                    b.apply(y)
    assert decided["assemble"] >= 100 and decided["search"] >= 100, decided


class _Peeker:
    """A planted leak: a bot that also holds the live match (handed to it aside) and reads the opponent's
    hand. The information-boundary test must catch it."""

    name = "peeker"

    def __init__(self, live: dict[str, Match]) -> None:
        self.live = live

    def decide(self, view: Any) -> int:
        match = self.live["match"]
        legal = view.legal_actions()
        return legal[sum(match.zones.hands[1 - view.player]) % len(legal)]

    def reset(self) -> None:
        pass


def _leaks(make: Callable[[dict[str, Match]], Bot], cases: int) -> int:
    """How often a bot decides differently in two matches its player cannot tell apart (same seed).

    Each case is a decision of a bot-vs-bot match (every kind: select, mode, effect steps, from either
    seat) and a variant with the cards hidden from the deciding player dealt otherwise."""
    rng = random.Random(17)
    live: dict[str, Match] = {}
    differ = 0
    k = 0
    seen = 0
    while seen < cases:
        match = Match.new(list(PLAYSETS[(k * 5) % len(PLAYSETS)]), seed=k)
        walker = RandomBot(k)
        while not match.is_terminal and seen < cases:
            me = match.current_player
            if len(match.legal_actions()) > 1 and rng.random() < 0.2:
                variant = match.redacted(me, rng)  # the same view, other hidden cards
                assert variant.observation(me) == match.observation(me)
                decisions = []
                for m in (match, variant):
                    live["match"] = m
                    decisions.append(make(live).decide(m.view(me)))
                differ += decisions[0] != decisions[1]
                seen += 1
            match.apply(walker.decide(match.view(me)))
        k += 1
    return differ


@pytest.mark.parametrize("name", sorted(FAST))
def test_bots_decide_on_their_players_information_only(name: str) -> None:
    assert _leaks(lambda live: FAST[name](7), 300) == 0


def test_the_information_boundary_test_catches_a_bot_that_peeks() -> None:
    # The control: a bot that reads the opponent's hand must fail the test above.
    assert _leaks(_Peeker, 300) > 30


def test_a_view_is_the_same_for_matches_its_player_cannot_tell_apart() -> None:
    """What a view holds is a function of the player's information: the redacted world of a match and of
    a match with other hidden cards are the same (so no bot can read a hidden card through a view)."""
    rng = random.Random(5)
    for k in range(40):
        match = Match.new(list(PLAYSETS[(k * 11) % len(PLAYSETS)]), seed=k)
        while not match.is_terminal:
            for me in (0, 1):
                variant = match.redacted(me, rng)
                assert variant.observation(me) == match.observation(me)
                assert match.view(me)._world.position() == variant.view(me)._world.position()
            match.apply(match.legal_actions()[rng.randrange(len(match.legal_actions()))])


def test_greedy_takes_over_a_play_it_did_not_start() -> None:
    m = setup(hands=(["ALC1", "MEC2", "ARC3"], ["ALC2"]), factions=(["ALC6"], ["MEC5"]), holder=0)
    m.apply("ALC1")  # someone else chose the card; the bot takes over at the mode decision
    bot = GreedyBot(seed=0)
    action = bot.decide(m.view(0))
    assert action in m.legal_actions()
    m.apply(action)
    while m.current_player == 0 and m.round_no == 1:
        m.apply(bot.decide(m.view(0)))


def test_every_bot_has_a_players_name_by_level() -> None:
    names = {name: bot_display_name(name) for name in BOTS}
    assert [names[level] for level in LEVELS] == ["Beginner bot", "Easy bot", "Medium bot", "Hard bot",
                                                  "Expert bot"]
    assert len(set(names.values())) == len(BOTS) and all(n.endswith(" bot") for n in names.values())
    assert bot_display_name(" HARD ") == "Hard bot"


def test_an_ismcts_bot_with_a_fixed_budget_is_made_by_name_and_repeats_from_its_seed() -> None:
    """``ismcts:N``: N simulations per decision, no time limit, so a strong-play simulation repeats exactly."""
    from converge.bots import is_bot_name

    bot = make_bot("ismcts:300", seed=5)
    assert isinstance(bot, ISMCTSBot) and bot.name == "ismcts:300" and bot_display_name("ismcts:300") == (
        "ISMCTS bot (300 simulations)")
    match = Match.new(["alchemist", "mechanist", "archivist"], seed=3)
    assert bot.decide(match.view(match.current_player)) == make_bot("ismcts:300", seed=5).decide(
        match.view(match.current_player))
    for bad in ("ismcts:0", "ismcts:", "ismcts:x", "ismcts:-5", "ismcts:99999999", "greedy:3"):
        assert not is_bot_name(bad)
        with pytest.raises(ValueError, match="ismcts:N"):
            make_bot(bad)
