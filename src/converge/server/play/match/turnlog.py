"""What the browser's table shows beyond an observation: summaries of each turn and round, and which
choices a player may take back before they are sent.

Both are built from public facts or from the deciding player's own view, never from a hidden card:

* :class:`TurnLog` follows a match's *public* events with the engine's
  :class:`~converge.engine.events.PublicTracker` and, at each end of turn (a ``score`` event), keeps the
  board as it was scored: the goal area and both factions. A summary explains, for one viewer, who
  fulfilled each goal and why, how the points compare and what that did to the artifact (T5, T6), and
  whether the round ended and why (T6, T8) — with the final board, which the next round's deal replaces in
  every observation.
* :func:`follow_ups` says, for each legal action of the player to decide, whether it only leads to
  another choice of theirs — choosing a card, then how to play it; choosing a card to place, then the
  faction — with nothing happening in between (no event at all). Such a choice can be held in the
  browser and taken back until the next one is made, then both are sent. It is computed on
  :meth:`~converge.engine.state.Match.redacted`, the player's own view with the hidden cards dealt again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from converge.engine.events import (
    ARTIFACT,
    END_REASONS,
    MATCH_END,
    PUBLIC,
    ROUND_END,
    ROUND_START,
    SCORE,
    Event,
    PublicTracker,
)
from converge.engine.observation import follow_up, in_play
from converge.engine.playset import Playset
from converge.engine.scoring import board_breakdown
from converge.engine.state import Match
from converge.server.protocol.messages import FollowUps, Outcome, RoundEnd, TurnSummary


@dataclass
class Scored:
    """One end of turn, as everyone saw it."""

    index: int  # of its score event in the match's log
    round: int
    turn: int  # the turn's number in its round, from 1
    lead: int
    scores: tuple[int, int]
    goals: list[int]
    factions: list[list[tuple[int, int, int]]]  # per player: (card, skillset index, rank)
    holder_after: int
    round_end: tuple[int, int] | None = None  # (winner, reason index)
    match_winner: int | None = None
    cache: dict[int, TurnSummary] = field(default_factory=dict)


class TurnLog:
    """The ends of turn of one match, followed incrementally through its event log."""

    def __init__(self, match: Match) -> None:
        ps = match.playset
        self.playset = ps
        self.tracker = PublicTracker(ps.printed_skill, ps.printed_rank)
        self.followed = 0
        self.turns: list[Scored] = []
        self._turn_in_round = 0
        if match.events[:1] == [] or match.events[0][0] != ROUND_START:
            self._seed(match)
        self.follow(match)

    def _seed(self, match: Match) -> None:
        """A match set up from a position has no log of how it got there: start from its public view."""
        obs = match.observation(-1, events_from=1 << 30)
        t, index = self.tracker, match.playset.index_of
        z = t.zones
        z.goals.extend(index[c] for c in obs["goals"])
        z.discard.extend(index[c] for c in obs["discard"])
        for player, faction in enumerate(obs["factions"]):
            for item in faction:
                c = index[item["id"]]
                z.factions[player].append(c)
                z.skill[c] = match.playset.skillsets.index(item["skillset"])
                z.rank[c] = item["rank"]
        t.hand_sizes[:] = obs["hand_sizes"]
        t.deck_size = obs["deck_size"]
        t.holder = obs["artifact_holder"]
        t.round_no = obs["round"]
        self._turn_in_round = max(0, obs["turn"] - 1)

    def follow(self, match: Match) -> list[Scored]:
        """Read the events logged since the last call; returns the turns that ended meanwhile."""
        events = match.events
        new: list[Scored] = []
        for i in range(self.followed, len(events)):
            event = events[i]
            self._step(i, event, new)
        self.followed = len(events)
        return new

    def _step(self, index: int, event: Event, new: list[Scored]) -> None:
        kind, vis, player, _card, a, b = event
        t = self.tracker
        if vis == PUBLIC:
            if kind == ROUND_START:
                self._turn_in_round = 0
            elif kind == SCORE:
                self._turn_in_round += 1
                z = t.zones
                scored = Scored(index=index, round=t.round_no, turn=self._turn_in_round, lead=t.holder,
                                scores=(a, b),
                                goals=list(z.goals),
                                factions=[[(c, z.skill[c], z.rank[c]) for c in f] for f in z.factions],
                                holder_after=t.holder)
                if self.turns and self.turns[-1].round_end is None:
                    self.turns[-1].cache.clear()  # only round ends and the latest turn are asked for again
                self.turns.append(scored)
                new.append(scored)
            elif kind == ARTIFACT and self.turns:
                self.turns[-1].holder_after = player
            elif kind == ROUND_END and self.turns:
                self.turns[-1].round_end = (player, a)
            elif kind == MATCH_END and self.turns:
                self.turns[-1].match_winner = player
        t.step(event)

    def rounds(self) -> list[Scored]:
        """The last end of turn of each finished round."""
        return [s for s in self.turns if s.round_end is not None]

    def summary(self, scored: Scored, viewer: int) -> TurnSummary:
        """The end of turn ``scored`` explained to ``viewer`` (0, 1 or -1 for a spectator)."""
        got = scored.cache.get(viewer)
        if got is None:
            got = scored.cache[viewer] = _summary(self.playset, scored, viewer)
        return got


# ---------------------------------------------------------------------- explaining an end of turn


class _Names:
    """How a viewer's sentences name the players: you and they, or player 0 and player 1."""

    def __init__(self, viewer: int) -> None:
        self.viewer = viewer

    def subject(self, p: int) -> str:
        if self.viewer < 0:
            return f"player {p}"
        return "you" if p == self.viewer else "they"

    def object(self, p: int) -> str:
        if self.viewer < 0:
            return f"player {p}"
        return "you" if p == self.viewer else "them"

    def verb(self, p: int, plain: str, third: str) -> str:
        """``plain`` after you/they, ``third`` after "player N"."""
        return third if self.viewer < 0 else plain

    def says(self, p: int, plain: str, third: str) -> str:
        return f"{self.subject(p)} {self.verb(p, plain, third)}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _summary(playset: Playset, scored: Scored, viewer: int) -> TurnSummary:
    skill, rank = list(playset.printed_skill), list(playset.printed_rank)
    for faction in scored.factions:
        for c, s, r in faction:
            skill[c], rank[c] = s, r
    factions = [[c for c, _s, _r in f] for f in scored.factions]
    n = _Names(viewer)
    lead, other = scored.lead, 1 - scored.lead
    s_lead, s_other = scored.scores[lead], scored.scores[other]
    lines = [_cap(f"{n.subject(lead)} led this turn, holding the artifact.")]
    lines.append(_cap(f"{n.says(lead, 'score', 'scores')} {s_lead}, {n.subject(other)} "
                      f"{n.verb(other, 'score', 'scores')} {s_other}."))
    outcome: Outcome
    if s_lead > s_other:
        outcome = "lead_wins"
        lines.append(_cap(f"{n.subject(lead)} held the artifact and scored more: "
                          f"{n.says(lead, 'win', 'wins')} round {scored.round}."))
    elif s_other > s_lead:
        outcome = "artifact_passes"
        lines.append(_cap(f"{n.says(other, 'outscore', 'outscores')} the lead: the artifact passes to "
                          f"{n.object(other)}."))
    else:
        outcome = "artifact_stays"
        lines.append(f"Equal points: the artifact stays with {n.object(lead)}.")
    round_end: RoundEnd | None = None
    if scored.round_end is not None:
        winner, reason = scored.round_end
        round_end = {"winner": winner, "reason": END_REASONS[reason], "round": scored.round}
        if END_REASONS[reason] == "hands_empty":
            lines.append(_cap(f"both hands are empty and the deck is spent: {n.subject(winner)} "
                              f"{n.verb(winner, 'hold', 'holds')} the artifact, so "
                              f"{n.says(winner, 'win', 'wins')} round {scored.round}."))
    if scored.match_winner is not None:
        lines.append(_cap(f"{n.says(scored.match_winner, 'win', 'wins')} the match."))
    return {
        "round": scored.round, "turn": scored.turn, "lead": lead, "scores": list(scored.scores),
        "outcome": outcome, "holder": scored.holder_after, "round_end": round_end,
        "match_winner": scored.match_winner, "lines": lines,
        "goals": board_breakdown(playset, scored.goals, factions, skill, rank, viewer),
        "board": {"goals": [playset.card_ids[c] for c in scored.goals],
                  "factions": [[in_play(playset, c, skill[c], rank[c]) for c in f] for f in factions]},
    }


# ---------------------------------------------------------------------- choices held in the browser


def follow_ups(match: Match, seat: int) -> FollowUps:
    """For each legal action of ``seat`` (when the decision is theirs) that only opens another choice of
    theirs, with no event in between (:func:`~converge.engine.observation.follow_up`): ``{action id: {"kind",
    "prompt", "choices": [{"id", "label"}]}}``. Worked out on the seat's own view (hidden cards dealt again),
    so it cannot say anything hidden."""
    if match.current_player != seat or match.decision_kind not in ("select", "target"):
        return {}
    world = match.redacted(seat)
    out: FollowUps = {}
    for action in world.legal_actions():
        decision = follow_up(world, action, seat)
        if decision is None:
            continue
        prompt = str(decision["prompt"]).split(": ", 1)[-1]
        out[str(action)] = {"kind": decision["kind"], "prompt": prompt,
                            "choices": [{"id": a["id"], "label": a["label"]} for a in decision["legal_actions"]]}
    return out
