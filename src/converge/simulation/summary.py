"""The figures of a simulation: rates with 95% Wilson intervals, per playset, skillset, pair, card and goal.

:func:`summarize` turns the per-playset counters of a run into one JSON-serialisable document (the
``summary.json`` of ``converge simulate``). The definitions:

* **starting-holder win rate** — of all rounds, the share won by the player who held the artifact at the
  start of the round (M2: chosen by the seed in round 1, the loser of the previous round afterwards);
* **per skillset** — the starting-holder win rate of the rounds of the playsets that contain it, and the
  round win rate of a player after playing one of its cards (any way);
* **pairs** — the same two figures for the playsets that contain both skillsets (the heat maps);
* **per card** — how often it is played each way (discard, declare as a goal, add to my / their faction),
  per round of its playsets and as a share of its plays, and the round win rate of the player who played
  it that way;
* **per goal** — of the ends of turn at which the goal was in the goal area, the share of (player, end of
  turn) pairs in which the player fulfilled it (``fulfilment_rate``; at most 50% for a single-winner goal)
  and the share with at least one player fulfilling it (``any_rate``);
* round length (turns) and match length (rounds, turns) distributions, and how rounds end: ``outscored``
  (T6) or ``hands_empty`` (T8).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from converge.cards.model import CardSpec, Deck
from converge.engine.goals import goal_kind
from converge.engine.playset import catalog_order
from converge.simulation.jobs import SimulationSpec, catalog_of
from converge.simulation.runner import wilson_interval
from converge.simulation.stats import END_REASONS, MODES, NUM_MODES, PlaysetTally
from converge.simulation.summary_doc import (
    CardFigures,
    GoalFigures,
    OverallFigures,
    PairFigures,
    PlaysetFigures,
    RoundFigures,
    SkillsetFigures,
    Summary,
)

SUMMARY_FORMAT = 1


def rate(wins: int, n: int) -> float | None:
    return round(wins / n, 4) if n else None


def ci95(wins: int, n: int) -> list[float] | None:
    if not n:
        return None
    lo, hi = wilson_interval(wins, n)
    return [round(lo, 4), round(hi, 4)]


def _mean(hist: Mapping[int, int]) -> float | None:
    n = sum(hist.values())
    return round(sum(k * v for k, v in hist.items()) / n, 3) if n else None


def _hist(hist: Mapping[int, int]) -> dict[str, int]:
    return {str(k): hist[k] for k in sorted(hist)}


def _round_figures(t: PlaysetTally) -> RoundFigures:
    return {
        "matches": t.matches,
        "rounds": t.rounds,
        "holder_wins": t.holder_wins,
        "holder_win_rate": rate(t.holder_wins, t.rounds),
        "holder_win_rate_ci95": ci95(t.holder_wins, t.rounds),
        "ends": {END_REASONS[i]: t.ends[i] for i in range(2)},
        "end_shares": {END_REASONS[i]: rate(t.ends[i], t.rounds) for i in range(2)},
        "holder_win_rate_by_end": {END_REASONS[i]: rate(t.holder_wins_by_end[i], t.ends[i]) for i in range(2)},
        "mean_round_turns": _mean(t.round_turns),
        "mean_match_rounds": _mean(t.match_rounds),
        "mean_match_turns": _mean(t.match_turns),
        "seat0_round_win_rate": rate(t.seat0_round_wins, t.rounds),
        "seat0_match_win_rate": rate(t.seat0_match_wins, t.matches),
        "first_holder_match_win_rate": rate(t.first_holder_match_wins, t.matches),
        "bot1_match_win_rate": rate(t.bot1_match_wins, t.matches),
        "bot1_match_win_rate_ci95": ci95(t.bot1_match_wins, t.matches),
        "bot1_round_win_rate": rate(t.bot1_round_wins, t.rounds),
    }


def _card_ids(deck: Deck) -> list[str]:
    return [c.id for c in deck.cards]


@dataclass
class _CardCounts:
    """A card's counters summed over the playsets its deck is in."""

    playsets: int = 0
    rounds: int = 0
    plays: list[int] = field(default_factory=lambda: [0] * NUM_MODES)
    wins: list[int] = field(default_factory=lambda: [0] * NUM_MODES)
    rounds_played: int = 0
    goal_turns: int = 0
    goal_fulfilled: int = 0
    goal_any: int = 0
    goal_rounds_declared: int = 0
    turn_ends: int = 0
    goal_potential: int = 0
    dealt: int = 0
    dealt_wins: int = 0


def summarize(spec: SimulationSpec, tallies: Mapping[str, PlaysetTally],
              catalog: Mapping[str, Deck] | None = None) -> Summary:
    """The summary document of a run (everything in it follows from the spec: no timings)."""
    catalog = catalog_of(spec.sources) if catalog is None else catalog
    order = catalog_order(catalog)
    keys = ["/".join(names) for names in spec.playsets]
    total = PlaysetTally()
    for key in keys:
        total.merge(tallies[key])

    overall: OverallFigures = {**_round_figures(total), "round_turns": _hist(total.round_turns),
                               "match_rounds": _hist(total.match_rounds), "match_turns": _hist(total.match_turns)}

    playsets: list[PlaysetFigures] = []
    for names, key in zip(spec.playsets, keys, strict=True):
        playsets.append({"playset": key, "skillsets": list(names), **_round_figures(tallies[key]),
                         "round_turns": _hist(tallies[key].round_turns)})

    # per card: counts over every playset the card's deck is in
    cards: dict[str, _CardCounts] = {}
    specs: dict[str, CardSpec] = {}
    for names, key in zip(spec.playsets, keys, strict=True):
        t = tallies[key]
        ids = [cid for n in names for cid in _card_ids(catalog[n])]
        for n in names:
            for c in catalog[n].cards:
                specs[c.id] = c
        for i, cid in enumerate(ids):
            acc = cards.setdefault(cid, _CardCounts())
            acc.playsets += 1
            acc.rounds += t.rounds
            for m in range(NUM_MODES):
                acc.plays[m] += t.card_plays[i * NUM_MODES + m]
                acc.wins[m] += t.card_wins[i * NUM_MODES + m]
            acc.rounds_played += t.card_rounds_played[i]
            acc.goal_turns += t.goal_turns[i]
            acc.goal_fulfilled += t.goal_fulfilled[i]
            acc.goal_any += t.goal_any[i]
            acc.goal_rounds_declared += t.goal_rounds_declared[i]
            acc.turn_ends += t.turn_ends
            acc.goal_potential += t.goal_potential[i]
            acc.dealt += t.card_dealt[i]
            acc.dealt_wins += t.card_dealt_wins[i]

    card_list: list[CardFigures] = []
    goal_list: list[GoalFigures] = []
    for skillset in order:
        for c in catalog[skillset].cards if skillset in catalog else ():
            got = cards.get(c.id)
            if got is None:
                continue
            acc = got
            plays, wins, rounds = acc.plays, acc.wins, acc.rounds
            n_all, w_all = sum(plays), sum(wins)
            faction_plays, faction_wins = plays[2] + plays[3], wins[2] + wins[3]
            card_list.append({
                "id": c.id, "name": c.name, "skillset": c.skillset, "rank": c.rank,
                "goal": c.goal.text, "stars": c.goal.stars, "effect": c.effect_text,
                "playsets": acc.playsets, "rounds": rounds,
                "plays": {MODES[m]: plays[m] for m in range(NUM_MODES)},
                "play_rate": {MODES[m]: rate(plays[m], rounds) for m in range(NUM_MODES)},
                "share": {MODES[m]: rate(plays[m], n_all) for m in range(NUM_MODES)},
                "win_rate": {MODES[m]: rate(wins[m], plays[m]) for m in range(NUM_MODES)},
                "faction_plays": faction_plays,
                "faction_win_rate": rate(faction_wins, faction_plays),
                "all_plays": n_all,
                "all_win_rate": rate(w_all, n_all),
                "all_win_rate_ci95": ci95(w_all, n_all),
                "rounds_played_rate": rate(acc.rounds_played, rounds),
                "dealt": acc.dealt,
                "dealt_wins": acc.dealt_wins,
            })
            turns = acc.goal_turns
            goal_list.append({
                "id": c.id, "goal": c.goal.text, "kind": c.goal.kind, "stars": c.goal.stars,
                "single_winner": goal_kind(c.goal.kind).single_winner,
                "rounds": rounds, "declared_rate": rate(acc.goal_rounds_declared, rounds),
                "turn_ends": acc.turn_ends,
                "fulfilment_rate": rate(acc.goal_potential, 2 * acc.turn_ends),
                "fulfilment_rate_ci95": ci95(acc.goal_potential, 2 * acc.turn_ends),
                "declared_turns": turns,
                "declared_fulfilment_rate": rate(acc.goal_fulfilled, 2 * turns),
                "declared_any_rate": rate(acc.goal_any, turns),
                "declare_win_rate": rate(wins[1], plays[1]),
            })

    # per skillset and per pair of skillsets
    present = [s for s in order if any(s in names for names in spec.playsets)]
    index = {s: i for i, s in enumerate(present)}
    k = len(present)
    pair_rounds = [[0] * k for _ in range(k)]
    pair_holder = [[0] * k for _ in range(k)]
    pair_plays = [[0] * k for _ in range(k)]  # row skillset's cards played in playsets with column skillset
    pair_play_wins = [[0] * k for _ in range(k)]
    for names, key in zip(spec.playsets, keys, strict=True):
        t = tallies[key]
        for pos, s in enumerate(names):
            played = sum(t.card_plays[(pos * 6) * NUM_MODES:(pos * 6 + 6) * NUM_MODES])
            won = sum(t.card_wins[(pos * 6) * NUM_MODES:(pos * 6 + 6) * NUM_MODES])
            for other in names:
                i, j = index[s], index[other]
                pair_plays[i][j] += played
                pair_play_wins[i][j] += won
                pair_rounds[i][j] += t.rounds
                pair_holder[i][j] += t.holder_wins
    skillsets: list[SkillsetFigures] = []
    for s in present:
        i = index[s]
        deck = catalog[s]
        skillsets.append({
            "skillset": deck.skillset, "key": s, "keyword": deck.keyword,
            "playsets": sum(1 for names in spec.playsets if s in names),
            "rounds": pair_rounds[i][i],
            "holder_win_rate": rate(pair_holder[i][i], pair_rounds[i][i]),
            "holder_win_rate_ci95": ci95(pair_holder[i][i], pair_rounds[i][i]),
            "plays": pair_plays[i][i],
            "play_win_rate": rate(pair_play_wins[i][i], pair_plays[i][i]),
            "play_win_rate_ci95": ci95(pair_play_wins[i][i], pair_plays[i][i]),
        })
    pairs: PairFigures = {
        "skillsets": [catalog[s].skillset for s in present],
        "rounds": pair_rounds,
        "holder_win_rate": [[rate(pair_holder[i][j], pair_rounds[i][j]) for j in range(k)] for i in range(k)],
        "play_win_rate": [[rate(pair_play_wins[i][j], pair_plays[i][j]) for j in range(k)] for i in range(k)],
    }
    return {
        "format": SUMMARY_FORMAT,
        "settings": {"bots": [spec.bot1, spec.bot2], "matches_per_playset": spec.matches, "seed": spec.seed,
                     "playsets": len(spec.playsets), "matches": spec.total, "decks": spec.decks_digest,
                     "deck_files": [name for name, _ in spec.sources]},
        "overall": overall,
        "playsets": playsets,
        "skillsets": skillsets,
        "pairs": pairs,
        "cards": card_list,
        "goals": goal_list,
    }


__all__ = ["SUMMARY_FORMAT", "ci95", "rate", "summarize"]
