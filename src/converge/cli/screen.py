"""Drawing a player's view of a match with rich, from ``observation(player)`` only; used by the line mode
and, as renderables inside widgets, by the full-screen game.

Nothing here looks at the match itself: it is given an observation (the redacted view), or the round's
final board rebuilt from public events, and the playset's printed cards, which are public. So it cannot
show what the viewer may not know.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from converge.cards.model import CardSpec, Deck
from converge.engine.schema import Board, CardInPlay, Decision, FinalBoard, LegalAction, Observation

STAR = "★"
#: The cards of the discard pile named on the board (the top ones); the count says how many there are.
DISCARD_SHOWN = 8


class CardStyle:
    """Colours and printed data of the playset's cards, keyed by card id and skillset name."""

    def __init__(self, decks: Sequence[Deck]):
        self.color = {d.skillset: d.color for d in decks}
        self.cards: dict[str, CardSpec] = {c.id: c for d in decks for c in d.cards}

    def colour(self, skillset: str) -> str:
        return self.color.get(skillset, "white")

    def name(self, card_id: str, skillset: str | None = None, rank: int | None = None) -> Text:
        """The card id in its skillset's colour; ``→Sea5`` after it when a conversion changed it."""
        card = self.cards[card_id]
        skill = skillset or card.skillset
        text = Text()
        text.append(card_id, style=f"bold {self.colour(card.skillset)}")
        if (rank is not None and rank != card.rank) or (skillset is not None and skillset != card.skillset):
            now = rank if rank is not None else card.rank
            text.append(f"→{skill[:3]}{now}", style=f"bold {self.colour(skill)}")
        return text

    def title(self, card_id: str) -> Text:
        """``ALC3 Salt Reader (Alchemist 3)``."""
        card = self.cards[card_id]
        text = self.name(card_id)
        text.append(f" {card.name} ({card.skillset} {card.rank})")
        return text

    def goal(self, card_id: str) -> str:
        card = self.cards[card_id]
        return f"Goal: {card.goal.text} {STAR * card.goal.stars}"

    def full(self, card_id: str, indent: str = "") -> Text:
        """The whole printed card: its title and goal, then its discard effect on the next line."""
        text = self.title(card_id)
        text.append(f" — {self.goal(card_id)}\n{indent}")
        text.append(self.cards[card_id].effect_text, style="italic")
        return text


def who(player: int | None, viewer: int, other: str = "them") -> str:
    if player is None or player < 0:
        return "nobody"
    if viewer in (0, 1):
        return "you" if player == viewer else other
    return f"player {player}"


def _winners(winners: Sequence[int], viewer: int, other: str) -> str:
    if len(winners) == 2:
        return "both"
    return who(winners[0], viewer, other) if winners else "nobody"


def _why(why: str, other: str) -> str:
    """The engine's ``you 5 vs them none`` as ``(you: 5 · them: none)``: beside "→ you" it must not read
    "you you 5"."""
    single = " (no single winner)"
    tail = single if why.endswith(single) else ""
    parts = []
    for part in why.removesuffix(single).split(" vs "):
        name, _, value = part.partition(" ")
        name = other if name == "them" else name
        parts.append(f"{name}: {value}" if value else name)
    return f"({' · '.join(parts)}){tail}"


def goals_table(board: Board, viewer: int, style: CardStyle, other: str = "them") -> RenderableType:
    """One row per goal: the card, the goal with its stars, who scores it, and why."""
    if not board["score_breakdown"]:
        return Text("Goals: none declared yet", style="dim")
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column(ratio=3)
    table.add_column(no_wrap=True)
    table.add_column(ratio=2)
    for item in board["score_breakdown"]:
        name = style.name(item["goal"])
        goal = Text(f"{item['text']} ")
        goal.append(STAR * item["stars"], style="yellow")
        winners = item["winners"]
        scorer = _winners(winners, viewer, other)
        table.add_row(name, goal, Text(f"→ {scorer}", style="bold" if winners else "dim"),
                      Text(_why(item["why"], other), style="dim"))
    return table


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, ending with "…" when cut."""
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def goal_lines(board: Board, viewer: int, style: CardStyle, width: int,
               other: str = "them") -> RenderableType:
    """The goals one line each, in ``width`` columns (for a screen with few rows): the card, the goal and its
    stars, who scores it, and why; when a line is too long, why is cut first (and left out when little of it
    would be left), then the goal's words; the card, the stars and who scores it are always whole."""
    items = board["score_breakdown"]
    if not items:
        return Text("Goals: none declared yet", style="dim")
    ids = max(len(i["goal"]) for i in items)
    scorers = [f"→ {_winners(i['winners'], viewer, other)}" for i in items]
    whys = [_why(i["why"], other) for i in items]
    scorer_w = max(len(x) for x in scorers)
    goal_w = max(len(i["text"]) + 1 + i["stars"] for i in items)
    room = width - ids - 1 - 1 - scorer_w  # the card, a space, the goal, a space, who
    why_w = min(max(len(w) for w in whys), room - goal_w - 1)
    if why_w < 8:  # too little of why would be left to read: the goals get the room
        why_w = 0
    goal_w = min(goal_w, room - (why_w + 1 if why_w else 0))
    lines: list[RenderableType] = []
    for item, scorer, why in zip(items, scorers, whys, strict=True):
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append_text(style.name(item["goal"]))
        line.append(" " * (1 + ids - len(item["goal"])))
        words = _cut(item["text"], max(1, goal_w - 1 - item["stars"]))
        line.append(f"{words} ")
        line.append(STAR * item["stars"], style="yellow")
        line.append(" " * max(1, goal_w - len(words) - item["stars"]))
        line.append(f"{scorer:<{scorer_w}}", style="bold" if item["winners"] else "dim")
        if why_w:
            line.append(f" {_cut(why, why_w)}", style="dim")
        lines.append(line)
    return Group(*lines)


def faction_line(label: str, cards: Sequence[CardInPlay], style: CardStyle,
                 skillsets: Sequence[str], width: int = 7) -> Text:
    """``You    Alc ALC2 ALC5 · Sea SEA4 ALC3→Sea5``: a faction grouped by (current) skillset, after its
    owner's label padded to ``width`` (and always one space)."""
    line = Text()
    line.append(f"{label:<{width - 1}} ", style="bold")
    if not cards:
        line.append("(no cards)", style="dim")
        return line
    groups = [s for s in skillsets if any(c["skillset"] == s for c in cards)]
    groups += sorted({c["skillset"] for c in cards} - set(groups))
    for i, skill in enumerate(groups):
        if i:
            line.append(" · ", style="dim")
        line.append(f"{skill[:3]}", style=style.colour(skill))
        for c in sorted((c for c in cards if c["skillset"] == skill), key=lambda c: (c["rank"], c["id"])):
            line.append(" ")
            line.append_text(style.name(c["id"], c["skillset"], c["rank"]))
            if c.get("until_end_of_turn"):
                line.append("(this turn)", style="dim")
            if c.get("guarded_by") is not None:
                line.append("(guarded)", style="dim")
    return line


def board(obs: Board, style: CardStyle, viewer: int, skillsets: Sequence[str],
          other: str = "them", one_line_goals: int | None = None) -> RenderableType:
    """The public board: goals with who scores each and why, both factions, the discard pile and the deck.

    ``obs`` is an observation or a round's final board (:func:`converge.cli.play_session.round_final_board`).
    ``one_line_goals``: a width in columns, to give each goal one line of it (:func:`goal_lines`)."""
    me = viewer if viewer in (0, 1) else 0
    scores = obs["scores"]
    head = Text("Score: ", style="bold")
    if viewer in (0, 1):
        head.append(f"you {scores[me]} : {scores[1 - me]} {other}", style="bold")
    else:
        head.append(f"player 0 {scores[0]} : {scores[1]} player 1", style="bold")
    if obs.get("final"):  # a round's final board, not the board now
        head.append(f" (end of round {obs['round']})", style="bold yellow")
    head.append("   ")
    for i, s in enumerate(skillsets):
        if i:
            head.append("/", style="dim")
        head.append(s, style=style.colour(s))
    parts: list[RenderableType] = [head]
    if one_line_goals is not None:
        parts.append(goal_lines(obs, viewer, style, one_line_goals, other))
    else:
        parts.append(goals_table(obs, viewer, style, other))
    factions = obs["factions"]
    if viewer in (0, 1):
        rows = ((other.capitalize(), factions[1 - me]), ("You", factions[me]))
    else:
        rows = (("P1", factions[1]), ("P0", factions[0]))
    width = max(7, *(len(label) + 1 for label, _ in rows))
    for label, faction in rows:
        parts.append(faction_line(label, faction, style, skillsets, width))
    pile = Text()
    pile.append("Deck ", style="bold")
    pile.append(f"{obs['deck_size']}   ")
    pile.append("Discard pile ", style="bold")
    pile_cards = list(obs["discard"])
    if pile_cards:
        pile.append(f"{len(pile_cards)}, from the top: ")
        for i, cid in enumerate(reversed(pile_cards[-DISCARD_SHOWN:])):
            if i:
                pile.append(" ")
            pile.append_text(style.name(cid))
        if len(pile_cards) > DISCARD_SHOWN:
            pile.append(" …", style="dim")
    else:
        pile.append("empty", style="dim")
    parts.append(pile)
    return Group(*parts)


def status_line(obs: Observation, style: CardStyle, other: str = "them",
                final: FinalBoard | None = None) -> Text:
    """``Round 2 · Artifact: you · Rounds won: you 1 : 0 them · Their hand 3``; with a round's ``final``
    board (:func:`converge.cli.play_session.round_final_board`), that round's end: ``Round 1 is over · Rounds
    won: you 1 : 0 them · Their hand 2`` (the next round, dealt already, is not on screen yet)."""
    viewer = obs["viewer"]
    me = viewer if viewer in (0, 1) else 0
    wins = obs["round_wins"]
    if final is not None:
        line = Text(f"Round {final['round']} is over", style="bold")
        hand_sizes = final["hand_sizes"]
    else:
        line = Text(f"Round {obs['round']}", style="bold")
        hand_sizes = obs["hand_sizes"]
        holder = obs["artifact_holder"]
        line.append(" · Artifact: ")
        line.append(who(holder, viewer, other) if holder >= 0 else "—", style="bold yellow")
    if viewer in (0, 1):
        line.append(f" · Rounds won: you {wins[me]} : {wins[1 - me]} {other}")
        line.append(f" · {'Their' if other == 'them' else other + chr(39) + 's'} hand {hand_sizes[1 - me]}")
    else:
        line.append(f" · Rounds won: player 0 {wins[0]} : {wins[1]} player 1")
    return line


def hand_view(cards: Sequence[str], style: CardStyle, full: bool, lines: bool = False) -> RenderableType:
    """The viewer's hand: each card's whole text (``full``), one line per card (``lines``: its title and
    goal, cut to the width), or one short line of ids and names."""
    if not cards:
        return Text("Your hand is empty.", style="dim")
    if lines and not full:
        rows: list[RenderableType] = [Text("Your hand", style="bold")]
        for cid in cards:
            row = style.title(cid)
            row.append(f" — {style.goal(cid)}")
            row.no_wrap = True
            row.overflow = "ellipsis"
            rows.append(row)
        return Group(*rows)
    if not full:
        line = Text()
        line.append("Your hand: ", style="bold")
        for i, cid in enumerate(cards):
            if i:
                line.append(" · ")
            line.append_text(style.name(cid))
            line.append(f" {style.cards[cid].name}")
        return line
    table = Table.grid(padding=(0, 1))
    table.add_column(no_wrap=True)
    table.add_column()
    for cid in cards:
        card = style.cards[cid]
        text = Text(f"{card.name} ({card.skillset} {card.rank}) — {style.goal(cid)}\n")
        text.append(card.effect_text, style="italic")
        table.add_row(style.name(cid), text)
    return Group(Text("Your hand", style="bold"), table)


# ---------------------------------------------------------------------- decisions


def _effect_card(decision: Decision) -> str | None:
    """The card whose effect is being resolved (the studied card when Study resolves another's)."""
    card = decision.get("studied") or decision.get("card")
    return str(card) if card else None


def decision_title(decision: Decision, style: CardStyle, skip: Collection[str] = ()) -> Text:
    """What the player is deciding, naming the card it is about and, for cards an effect shows them
    (Search, Assemble), what each card does (but not for the cards in ``skip``: the menu's own choices,
    which say it themselves)."""
    kind = decision["kind"]
    prompt = str(decision["prompt"]).split(": ", 1)[-1]
    card = decision.get("card")
    if kind == "select":
        return Text("Choose a card from your hand to play", style="bold")
    if kind == "mode" and card:
        title = Text()
        title.append("How do you play ", style="bold")
        title.append_text(style.title(card))
        title.append("?", style="bold")
        title.append(f"\n  {style.goal(card)}\n  ")
        title.append(style.cards[card].effect_text, style="italic")
        return title
    title = Text()
    title.append(prompt[:1].upper() + prompt[1:].split(" (", 1)[0], style="bold")
    source = _effect_card(decision)
    if source:
        title.append("  — ", style="dim")
        title.append_text(style.title(source))
        title.append(f": {style.cards[source].effect_text}", style="italic dim")
    pending = decision.get("pending")
    revealed = [c for c in decision.get("revealed", []) if c != pending and c not in skip]
    if pending and pending not in skip:
        title.append("\n  Card: ")
        title.append_text(style.full(pending, indent="        "))
    for c in revealed:
        title.append("\n  Revealed: ")
        title.append_text(style.full(c, indent="            "))
    return title


def where(card_id: str, obs: Observation | None) -> str:
    """Where the viewer sees a card: ``in your faction``, ``in their faction (now Alchemist 1)``, ``in the
    discard pile``... ('' when the observation does not say)."""
    if obs is None:
        return ""
    viewer = obs["viewer"]
    for p, faction in enumerate(obs["factions"]):
        for c in faction:
            if c["id"] == card_id:
                owner = "your" if p == viewer else "their"
                now = f", now {c['skillset']} {c['rank']}" if c["converted"] else ""
                return f"in {owner} faction{now}"
    if card_id in (obs.get("hand") or []):
        return "in your hand"
    if card_id in obs["discard"]:
        return "in the discard pile"
    if card_id in obs["goals"]:
        return "in the goal area"
    return ""


def option_body(item: LegalAction, decision: Decision, style: CardStyle, note: str = "",
                obs: Observation | None = None, short: bool = False) -> Text:
    """One choice of a menu, without its number: for a card, the card (where it is, when that is not your
    hand) and what it does; for a way to play a card, what that does (declare: its goal). ``short``: one
    line (a card's title, where it is and its goal, cut to the width), for a screen with little room."""
    text = Text()
    action = str(item["action"])
    card = decision.get("card")
    if action in style.cards:
        text.append_text(style.title(action))
        place = where(action, obs) if decision["kind"] != "select" else ""
        if place and place != "in your hand":
            text.append(f" {place}", style="bold")
        if short:
            if note:
                text.append(f"  {note}", style="bold cyan")
            text.append(f" — {style.goal(action)}")
            text.no_wrap = True
            text.overflow = "ellipsis"
            return text
        text.append(f" — {style.goal(action)}\n")
        text.append(style.cards[action].effect_text, style="italic")
    elif action == "declare" and card:
        goal = style.cards[card].goal
        text.append(f"{item['label']}: {goal.text} {STAR * goal.stars}")
    else:
        text.append(str(item["label"]))
    if note:
        text.append(f"  {note}", style="bold cyan")
    return text


def numbered(number: int | None, body: RenderableType) -> Table:
    """``body`` after its number, wrapped lines indented under the body."""
    table = Table.grid(padding=(0, 1))
    table.add_column(width=3, justify="right", no_wrap=True)
    table.add_column()
    table.add_row(Text(f"{number}." if number is not None else "", style="bold"), body)
    return table


def option_text(item: LegalAction, decision: Decision, style: CardStyle, number: int | None,
                note: str = "", obs: Observation | None = None, short: bool = False) -> Table:
    """One numbered choice of a menu (see :func:`option_body`)."""
    return numbered(number, option_body(item, decision, style, note, obs, short))


def menu(obs: Observation, style: CardStyle) -> RenderableType:
    """The numbered choices of the viewer's decision, under what is being decided (the line mode's menu)."""
    decision = obs["decision"]
    if decision is None:  # (the match is over: nothing to choose)
        return Group()
    items = decision.get("legal_actions", [])
    title = decision_title(decision, style, skip={str(a["action"]) for a in items})
    return Group(title, *(option_text(item, decision, style, i, obs=obs) for i, item in enumerate(items, start=1)))


def render(obs: Observation, style: CardStyle, *, show_hand: bool = True, other: str = "them",
           final_board: FinalBoard | None = None) -> RenderableType:
    """The whole screen of one viewer for the line mode, fitting 80 columns."""
    viewer = obs["viewer"]
    lines: list[RenderableType] = [status_line(obs, style, other), Rule(style="dim"),
                                   board(final_board or obs, style, viewer, obs["playset"], other)]
    hand = obs["hand"]
    if show_hand and hand is not None:
        lines += [Rule(style="dim"), hand_view(hand, style, full=True)]
    return Group(*lines)
