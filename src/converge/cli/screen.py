"""Drawing a player's view of a match with rich, from ``observation(player)`` only.

The screen never looks at the match itself: it is given an observation (the redacted view) and the
playset's printed cards, which are public. So it cannot show what the viewer may not know.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from converge.cards.model import Deck

STAR = "★"


class CardStyle:
    """Colours and printed data of the playset's cards, keyed by card id and skillset name."""

    def __init__(self, decks: Sequence[Deck]):
        self.color = {d.skillset: d.color for d in decks}
        self.cards = {c.id: c for d in decks for c in d.cards}

    def name(self, card_id: str, skillset: str | None = None, rank: int | None = None) -> Text:
        card = self.cards[card_id]
        skill = skillset or card.skillset
        text = Text(f"{card_id}", style=f"bold {self.color.get(skill, 'white')}")
        if (rank is not None and rank != card.rank) or (skillset is not None and skillset != card.skillset):
            text.append(f"→{skill[:3]}{rank}", style=self.color.get(skill, "white"))
        return text


def _who(player: int | None, viewer: int) -> str:
    if player is None:
        return "nobody"
    if viewer in (0, 1):
        return "you" if player == viewer else "them"
    return f"P{player}"


def score_line(obs: Mapping[str, Any]) -> Text:
    """``you 3 : 2 them — Highest Mechanist ★ you; 3 cards with consecutive ranks ★★ both``."""
    viewer = obs["viewer"]
    me = viewer if viewer in (0, 1) else 0
    scores = obs["scores"]
    line = Text()
    if viewer in (0, 1):
        line.append(f"Score: you {scores[me]} : {scores[1 - me]} them", style="bold")
    else:
        line.append(f"Score: P0 {scores[0]} : {scores[1]} P1", style="bold")
    parts = []
    for item in obs["score_breakdown"]:
        winners = item["winners"]
        who = "both" if len(winners) == 2 else _who(winners[0], viewer) if winners else "nobody"
        parts.append(f"{item['text']} {STAR * item['stars']} {who}")
    if parts:
        line.append(" — " + "; ".join(parts))
    return line


def _faction_line(label: str, cards: Sequence[Mapping[str, Any]], style: CardStyle,
                  skillsets: Sequence[str]) -> Text:
    line = Text(f"{label:<11}", style="bold")
    if not cards:
        line.append("(empty)", style="dim")
    for skill in skillsets:
        group = [c for c in cards if c["skillset"] == skill]
        if not group:
            continue
        line.append(f"{skill[:3]}:", style=style.color.get(skill, "white"))
        for c in sorted(group, key=lambda c: c["rank"]):
            line.append(" ")
            mark = str(c["rank"])
            if c["converted"]:
                mark += f"({c['id']}={c['printed_skillset'][:3]}{c['printed_rank']})"
            if c["guarded_by"] is not None:
                mark += "🛡"
            line.append(mark, style=f"bold {style.color.get(skill, 'white')}")
        line.append("  ")
    return line


def render(obs: Mapping[str, Any], style: CardStyle, *, show_hand: bool = True) -> RenderableType:
    """The whole screen of one viewer, fitting 80 columns."""
    viewer = obs["viewer"]
    me = viewer if viewer in (0, 1) else 0
    skillsets = obs["playset"]
    wins = obs["round_wins"]
    header = Text("CONVERGE ", style="bold")
    for i, s in enumerate(skillsets):
        header.append(s, style=f"bold {style.color.get(s, 'white')}")
        if i < 2:
            header.append(" · ")
    header.append(f"   Round {obs['round']}  ")
    if viewer in (0, 1):
        header.append(f"rounds you {wins[me]} : {wins[1 - me]} them", style="bold")
    else:
        header.append(f"rounds P0 {wins[0]} : {wins[1]} P1", style="bold")
    holder = obs["artifact_holder"]
    artifact = Text("Artifact: ", style="bold")
    artifact.append(_who(holder, viewer).upper() if holder >= 0 else "—", style="bold yellow")
    artifact.append(f"   Deck {obs['deck_size']}   Discard {len(obs['discard'])}")
    if obs["discard"]:
        top = obs["discard"][-1]
        artifact.append(" (top ")
        artifact.append_text(style.name(top))
        artifact.append(f" {style.cards[top].name})")
    sizes = obs["hand_sizes"]
    artifact.append(f"   Their hand {sizes[1 - me]}" if viewer in (0, 1) else f"   Hands {sizes[0]}/{sizes[1]}")
    lines: list[RenderableType] = [header, artifact, Rule(style="dim")]
    goals = Text("Goals: ", style="bold")
    if not obs["goals"]:
        goals.append("(none yet)", style="dim")
    for i, item in enumerate(obs["score_breakdown"]):
        if i:
            goals.append(" | ")
        goals.append_text(style.name(item["goal"]))
        goals.append(f" {item['text']} {STAR * item['stars']}")
    lines += [goals, score_line(obs)]
    if viewer in (0, 1):
        rows = (("Them", obs["factions"][1 - me]), ("You", obs["factions"][me]))
    else:
        rows = (("P1", obs["factions"][1]), ("P0", obs["factions"][0]))
    for label, faction in rows:
        lines.append(_faction_line(label, faction, style, skillsets))
    if show_hand and obs.get("hand") is not None:
        lines.append(Rule("your hand", style="dim"))
        hand = Table.grid(padding=(0, 1))
        hand.add_column(no_wrap=True)
        hand.add_column()
        for cid in obs["hand"]:
            card = style.cards[cid]
            t = Text(f"{card.name} ({card.skillset} {card.rank}) — Goal: {card.goal.text} "
                     f"{STAR * card.goal.stars} — {card.effect_text}")
            hand.add_row(style.name(cid), t)
        lines.append(hand)
    return Group(*lines)


def menu(decision: Mapping[str, Any]) -> Text:
    """The numbered choices of a decision."""
    out = Text()
    out.append(decision["prompt"].split(": ", 1)[-1].capitalize(), style="bold")
    if "revealed" in decision:
        out.append(f"  (revealed: {', '.join(decision['revealed'])})")
    for i, a in enumerate(decision.get("legal_actions", []), start=1):
        out.append(f"\n  {i:>2}. {a['label']}")
    return out
