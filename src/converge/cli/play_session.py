"""A session of play, shared by the full-screen game and the line mode: who sits where, the bots' decisions,
the undo, each viewer's new events, the summaries of a turn, a round and the match, saving (after every move)
and the rematch.

Everything a person is shown comes from ``observation(player)`` of that person (and the playset's printed
cards, which are public). The round's final board, which the engine clears when it deals the next round,
is rebuilt from the public events alone (:func:`round_final_board`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from converge.bots import make_bot
from converge.bots.base import Bot
from converge.cli.saves import SavedMatch, Seat, saved_doc, write_atomically
from converge.cli.screen import who
from converge.engine import Match
from converge.engine.events import PUBLIC, ROUND_END, SCORE, PublicTracker
from converge.engine.observation import in_play
from converge.engine.schema import EventDoc, FinalBoard
from converge.engine.scoring import board_breakdown
from converge.engine.seeds import derive_seed, new_seed

if TYPE_CHECKING:
    from converge.engine.zones import Zones

#: Event kinds that end a turn or a round: what a summary is about.
TURN_END_KINDS = ("score", "artifact", "round_end", "match_end")
#: Event kinds that belong to the end of a turn after its scoring: a summary of the turn goes on through
#: them (and stops before the next play, pass or round).
AFTER_SCORING_KINDS = (*TURN_END_KINDS, "revert", "draw", "drew")


@dataclass
class UndoPoint:
    """The state before one of a person's decisions."""

    player: int
    first_of_play: bool  # choosing the card: the first decision of a play
    snapshot: Match
    seen: tuple[int, int]  # each viewer's events read then


class UndoRefused(Exception):
    """Undo is not possible now; the message says why, for the player."""


@dataclass
class Session:
    """One sitting: a match, then rematches while the players want them. Its record is saved after every
    move (:meth:`save`), so that nothing is lost however the program ends, and a saved match plays on as
    it would have (:mod:`converge.cli.saves`)."""

    match: Match
    seats: tuple[Seat, Seat]
    save_path: Path | None = None
    hotseat: bool = False
    #: the deck folders the match was played with (a resumed match needs them again)
    deck_dirs: tuple[str, ...] = ()
    undo_stack: list[UndoPoint] = field(default_factory=list)
    #: events of each viewer already fetched (``observation(v, events_from=seen[v])`` gives the new ones)
    seen: list[int] = field(default_factory=lambda: [0, 0])
    #: each viewer's events fetched so far, in order (what the narration and the summaries are made of)
    log: list[list[EventDoc]] = field(default_factory=lambda: [[], []])
    #: for each viewer, the index in ``log`` from which their next summary starts
    summary_from: list[int] = field(default_factory=lambda: [0, 0])
    matches_played: int = 0
    #: why the last save failed (a full disk...), for the player; None once a save succeeds
    save_problem: str | None = None

    @classmethod
    def resumed(cls, saved: SavedMatch) -> Session:
        """The session of a saved match taken up again, saving to the same file. What happened before is
        read already: the next thing shown is the next decision, with the round's narration so far."""
        session = cls(saved.match, saved.seats, saved.path, saved.hotseat, saved.deck_dirs,
                      matches_played=saved.matches_played)
        for v in (0, 1):
            session.fetch(v)
            session.summary_from[v] = len(session.log[v])
        return session

    def round_start(self, viewer: int) -> int:
        """Where the current round starts in the viewer's log (0 before any round has started)."""
        log = self.log[viewer]
        return next((i for i in range(len(log) - 1, -1, -1) if log[i]["kind"] == "round_start"), 0)

    # ------------------------------------------------------------------ seats

    def humans(self) -> list[int]:
        return [p for p in (0, 1) if self.seats[p].bot is None]

    def is_bot(self, player: int) -> bool:
        return self.seats[player].bot is not None

    def other_name(self, viewer: int) -> str:
        """How the viewer calls the other seat: "them" against a bot, the other person's name in hot-seat."""
        return self.seats[1 - viewer].name if self.hotseat else "them"

    # ------------------------------------------------------------------ events

    def fetch(self, viewer: int) -> list[EventDoc]:
        """The viewer's events since the last fetch (``observation(viewer, events_from=k)``)."""
        new = self.match.observation(viewer, events_from=self.seen[viewer])["events"]
        self.seen[viewer] += len(new)
        self.log[viewer].extend(new)
        return new

    def summary_end(self, viewer: int) -> int:
        """Where the viewer's next summary ends in their log: after the end of the first turn not yet
        summarised (its scores, the artifact or the round's end, the draws), before anything of the next
        turn or round (a pass, the next round's deal). The end of the log when no turn has ended."""
        log = self.log[viewer]
        i = self.summary_from[viewer]
        while i < len(log) and log[i]["kind"] not in TURN_END_KINDS:
            i += 1
        while i < len(log) and log[i]["kind"] in AFTER_SCORING_KINDS:
            i += 1
        return i

    def take_summary(self, viewer: int) -> list[EventDoc]:
        """The viewer's events of their next summary (fetching what is new first): one turn, up to its end
        (:meth:`summary_end`), and mark them read."""
        self.fetch(viewer)
        end = self.summary_end(viewer)
        events = self.log[viewer][self.summary_from[viewer]:end]
        self.summary_from[viewer] = end
        return events

    def unread_turn_end(self, viewer: int) -> bool:
        """Whether a turn ended since the viewer's last summary."""
        self.fetch(viewer)
        return any(e["kind"] in TURN_END_KINDS for e in self.log[viewer][self.summary_from[viewer]:])

    # ------------------------------------------------------------------ playing

    def before_decision(self, player: int) -> None:
        """Remember the state before a person's decision (for undo); once per decision."""
        m = self.match
        if self.undo_stack and len(self.undo_stack[-1].snapshot.history) == len(m.history):
            return
        self.undo_stack.append(UndoPoint(player, m.decision_kind == "select", m.snapshot(),
                                         (self.seen[0], self.seen[1])))

    def apply(self, action: int, player: int) -> None:
        """Play ``action`` for ``player``, then save the record."""
        self.match.apply(action, player=player)
        self.save()

    def bot_for(self, player: int) -> Bot:
        """The bot of ``player``'s seat for the decision now, seeded from the seat's seed and the number of
        actions played: a decision depends on the match so far and nothing else (not on what the bot
        thought before), so a match taken up again (or a decision taken back) plays on as the original
        would have."""
        seat = self.seats[player]
        assert seat.bot is not None
        return make_bot(seat.bot, derive_seed("converge-bot-decision", seat.seed, len(self.match.history)))

    def bot_action(self, player: int) -> int:
        """The bot's decision for its seat, from its own view only."""
        return self.bot_for(player).decide(self.match.view(player))

    # ------------------------------------------------------------------ undo

    def can_undo(self) -> bool:
        """Whether undo is offered: against a bot. Not in hot-seat, where a take-back would need the other
        player's say, and a decision may have shown cards (a Search) that a take-back could not unsee."""
        return not self.hotseat and len(self.humans()) == 1

    def undo(self, player: int, whole_play: bool = False) -> str:
        """Take back ``player``'s last decision, or (``whole_play``) their whole turn: back to choosing the
        card of their last play. The bot's replies after it go too. Returns the message to show;
        :class:`UndoRefused` when it cannot."""
        if not self.can_undo():
            raise UndoRefused("Undo is only available against a bot.")
        m = self.match
        points = [i for i, u in enumerate(self.undo_stack)
                  if u.player == player and len(u.snapshot.history) < len(m.history)
                  and (u.first_of_play or not whole_play)]
        if not points:
            raise UndoRefused("Nothing to undo yet." if not whole_play else "No turn of yours to take back yet.")
        point = self.undo_stack[points[-1]]
        del self.undo_stack[points[-1]:]
        m.restore(point.snapshot)
        for v in (0, 1):
            self.seen[v] = point.seen[v]
            del self.log[v][point.seen[v]:]
            # the next summary starts where the turn being played again started
            ends = [i for i, e in enumerate(self.log[v]) if e["kind"] in TURN_END_KINDS]
            self.summary_from[v] = ends[-1] + 1 if ends else 0
        self.save()
        return "Took back your turn: choose your card again." if whole_play else "Took back your last decision."

    # ------------------------------------------------------------------ saving and rematches

    def save(self) -> Path | None:
        """Write the saved match (its record, and who sits where) atomically: its path, or None when not
        saving or when the write failed (:attr:`save_problem` says why; the next save tries again)."""
        if self.save_path is None:
            return None
        doc = saved_doc(self.match, self.seats, self.hotseat, self.deck_dirs, self.matches_played)
        try:
            write_atomically(self.save_path, json.dumps(doc, indent=1))
        except OSError as exc:
            self.save_problem = f"The match could not be saved to {self.save_path}: {exc.strerror or exc}."
            return None
        self.save_problem = None
        return self.save_path

    def rematch(self) -> None:
        """A new match on the same playset; the loser of this one holds the artifact first (M2). Its seed is
        fresh: one that followed from this match's (public once it is over) would deal the rematch's cards;
        so are the bots' seeds. It is saved at once, in a file of its own."""
        old = self.match
        loser = 1 - old.winner
        self.seats = (self._reseeded(self.seats[0]), self._reseeded(self.seats[1]))
        self.match = Match.new(old.playset, seed=new_seed(), start=loser)
        self.undo_stack = []
        self.seen = [0, 0]
        self.log = [[], []]
        self.summary_from = [0, 0]
        self.matches_played += 1
        if self.save_path is not None:  # match-….json, then match-…-rematch-1.json, match-…-rematch-2.json...
            stem, suffix = self.save_path.stem.rsplit("-rematch-", 1)[0], self.save_path.suffix
            self.save_path = self.save_path.with_name(f"{stem}-rematch-{self.matches_played}{suffix}")
        self.save()

    @staticmethod
    def _reseeded(seat: Seat) -> Seat:
        return seat if seat.bot is None else dataclasses.replace(seat, seed=new_seed())


# ---------------------------------------------------------------------- words for the viewer


def saved_text(path: Path | None, finished: bool, humans: Sequence[int]) -> str:
    """What the terminal says of a match's record as it closes: where it is, how to replay it, and, once
    the match is over, how to review each person's decisions.

    >>> print(saved_text(Path("m.json"), True, [1]))  # doctest: +NORMALIZE_WHITESPACE
    Match record saved to m.json (replay it with: converge replay m.json; review your decisions with:
    converge review m.json --seat 2)
    >>> print(saved_text(Path("m.json"), False, [0]))
    Match saved to m.json (continue it with: converge play --resume m.json)
    """
    if path is None:
        return "Match not saved."
    if not finished:
        return f"Match saved to {path} (continue it with: converge play --resume {path})"
    head = "Match record saved to"
    tail = f"replay it with: converge replay {path}"
    if humans:
        seats = " or ".join(f"--seat {p + 1}" for p in humans)
        whose = "your" if len(humans) == 1 else "each player's"
        tail += f"; review {whose} decisions with: converge review {path} {seats}"
    return f"{head} {path} ({tail})"


def equal_scores_line(log: Sequence[EventDoc], i: int, viewer: int, other: str = "them",
                      holder_now: int | None = None) -> str | None:
    """For the ``score`` event ``log[i]`` of a turn that ended level, the sentence saying that the artifact
    stays where it was (T6): the narration says when it passes or a round is won, but an equal score moves
    nothing and logs no event. None for any other event."""
    e = log[i]
    if e["kind"] != "score" or e["score0"] != e["score1"]:
        return None
    if any(x["kind"] in ("artifact", "round_end") for x in log[i + 1:i + 3]):
        return None
    holder = next((x["player"] for x in reversed(log[:i]) if x["kind"] in ("round_start", "artifact")),
                  holder_now)  # a match set up from a position may not have logged its round's start
    if holder is None:
        return None
    return f"Equal scores: the artifact stays with {who(holder, viewer, other)}."


#: Kinds the narration says in bold: how a turn or a round ended.
BOLD_KINDS = ("score", "artifact", "round_end", "match_end")


def narration_lines(log: Sequence[EventDoc], start: int, end: int, viewer: int, other: str = "them",
                    holder_now: int | None = None) -> list[tuple[str, str]]:
    """What happened in ``log[start:end]`` as the viewer reads it, one ``(sentence, kind)`` per line: the
    round's start as a heading (kind ``"round_start"``), how a turn ended in bold (kind ``"bold"``), the
    rest plain (``""``). Cards dealt and the viewer's own draws are left out: the hand on screen says them
    (the viewer's "you drew X" follows)."""
    lines: list[tuple[str, str]] = []
    stop = min(end, len(log))
    told = start  # the events before this one are told already (a Search's cards, on one line)
    for i in range(start, stop):
        if i < told:
            continue
        e = log[i]
        kind = e["kind"]
        if kind == "dealt" or (kind == "draw" and e["player"] == viewer):
            continue
        seen = cards_seen(log, i, stop, viewer)
        if len(seen) > 1:  # a Search's cards, one line rather than one each (a small screen has few rows)
            lines.append((f"You see {' and '.join([', '.join(seen[:-1]), seen[-1]])}, from the top down.", ""))
            told = i + len(seen)
            continue
        if kind == "round_start":
            lines.append((f"— {e['text']} —", "round_start"))
            continue
        lines.append((str(e["text"]), "bold" if kind in BOLD_KINDS else ""))
        stays = equal_scores_line(log, i, viewer, other, holder_now)
        if stays:
            lines.append((stays, "bold"))
    return lines


def cards_seen(log: Sequence[EventDoc], i: int, end: int, viewer: int) -> list[str]:
    """The cards the viewer sees from the top of the deck down (a Search), told by the events from ``log[i]``
    on, one after the other: the first, second... from the top. Empty when ``log[i]`` is not the first."""
    cards: list[str] = []
    while (i < end and log[i]["kind"] == "saw" and log[i]["player"] == viewer
           and log[i].get("from_top") == len(cards) and log[i]["card"]):
        cards.append(str(log[i]["card"]))
        i += 1
    return cards


def their_move(log: Sequence[EventDoc], start: int, viewer: int) -> list[str]:
    """What the other player did in ``log[start:]`` and what it caused, in the narration's words: their
    plays (or passes) and the events of their effects, for the line above the viewer's decision. Empty
    when they did nothing there."""
    lines: list[str] = []
    acting = False
    for e in log[start:]:
        kind = e["kind"]
        if kind in ("play", "pass"):
            acting = e["player"] not in (None, viewer)
        elif kind in ("round_start", *TURN_END_KINDS, "draw", "drew", "dealt"):
            acting = False
        if acting:
            lines.append(str(e["text"]))
    return lines


# ---------------------------------------------------------------------- the round's final board


def round_final_board(match: Match, round_no: int, viewer: int) -> FinalBoard | None:
    """The public board at the last scoring of round ``round_no`` (goals, factions, discard, the score per
    goal with why), rebuilt from the public events: the engine deals the next round at once, so the
    observation no longer holds it. Same keys as an observation's; None if that round has not ended."""
    ps = match.playset
    tracker = PublicTracker(ps.printed_skill, ps.printed_rank)
    last: tuple[Zones, int, list[int]] | None = None  # the zones, deck size and hand sizes at the last scoring
    scores = (0, 0)
    for event in match.events:
        tracker.step(event)
        kind = event[0]
        if event[1] != PUBLIC:
            continue
        if kind == SCORE:
            last = (tracker.zones.copy(), tracker.deck_size, list(tracker.hand_sizes))
            scores = (event[4], event[5])
        elif kind == ROUND_END and event[5] == round_no and last is not None:
            zones, deck_size, hand_sizes = last
            ids = ps.card_ids
            factions = [[in_play(ps, c, zones.skill[c], zones.rank[c], False, zones.guard[c]) for c in f]
                        for f in zones.factions]
            breakdown = board_breakdown(ps, zones.goals, zones.factions, zones.skill, zones.rank, viewer)
            return {"goals": [ids[c] for c in zones.goals], "factions": factions,
                    "discard": [ids[c] for c in zones.discard], "deck_size": deck_size, "hand_sizes": hand_sizes,
                    "scores": list(scores), "score_breakdown": breakdown, "round": round_no,
                    "final": True}
    return None
