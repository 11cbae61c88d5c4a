"""The information-state strings of one player's view, written straight from a match's state.

Compiled with the engine, like :mod:`converge.engine.tensors`: :func:`view_text` is the text that
:func:`converge.adapters.encoding.observation_string` makes of ``observation(viewer)``, and
:func:`event_text` the token that :func:`~converge.adapters.encoding.event_token` makes of an event's
dict, without building the observation (its score breakdown, labels and narrated events) first. They read
only what that observation shows the viewer (I1-I3); the tests hold them to the dict-based functions,
which remain the definition of the format, on many random states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from converge.engine.events import SCHEMA, EventKind, _value
from converge.engine.narration import decision_prompt
from converge.engine.turn import EFFECT, MODE, OVER

if TYPE_CHECKING:
    from converge.engine.state import Match

_KINDS = tuple(SCHEMA[k] for k in EventKind)
_LABELS = tuple(k.label for k in EventKind)


def event_text(event: tuple[int, int, int, int, int, int], card_ids: tuple[str, ...],
               skillsets: tuple[str, ...]) -> str:
    """One event of the log, compactly: ``kind/player/card`` and its fields' values."""
    kind, _vis, player, card, a, b = event
    spec = _KINDS[kind]
    parts = [_LABELS[kind], "-" if player < 0 else str(player), card_ids[card] if card >= 0 else "-"]
    if spec.a is not None:
        parts.append(str(_value(spec.a, a, skillsets)).replace(" ", ""))
    if spec.b is not None:
        parts.append(str(_value(spec.b, b, skillsets)).replace(" ", ""))
    return "/".join(parts)


def view_text(m: Match, viewer: int) -> str:
    """``viewer``'s current view in a few lines (no event log); -1: a spectator's."""
    ps, z, t = m.playset, m.zones, m.turn
    ids, skillsets = ps.card_ids, ps.skillsets
    terminal = t.phase == OVER
    who = f"player {viewer}" if viewer >= 0 else "spectator"
    s0, s1 = m.scores()
    head = (f"{who} | round {t.round_no} turn {t.turn_no} | wins [{t.round_wins[0]}, {t.round_wins[1]}] | "
            f"artifact {t.holder} lead {t.lead} | to play {m.current_player}")
    if terminal:
        head += f" | over, winner {t.winner}"
    lines = [head, f"scores [{s0}, {s1}] | hand sizes [{len(z.hands[0])}, {len(z.hands[1])}] | deck {len(z.deck)}"]
    if viewer >= 0:
        lines.append("hand: " + " ".join([ids[c] for c in sorted(z.hands[viewer])]))
    for p in (0, 1):
        entries: list[str] = []
        for c in z.factions[p]:
            text = ids[c]
            if z.skill[c] != ps.printed_skill[c] or z.rank[c] != ps.printed_rank[c]:
                temporary = False
                for tmp in z.temp:
                    if tmp[0] == c:
                        temporary = True
                text += "[" + skillsets[z.skill[c]][:3] + str(z.rank[c]) + ("*" if temporary else "") + "]"
            if z.guard[c] >= 0:
                text += f"(g{z.guard[c]})"
            entries.append(text)
        lines.append(f"faction {p}: " + " ".join(entries))
    lines.append("goals: " + " ".join([ids[c] for c in z.goals]))
    lines.append("discard: " + " ".join([ids[c] for c in z.discard]))
    recalled = [ids[c] for c in range(len(ids)) if z.recalled[c]]
    if recalled:
        lines.append("recalled: " + " ".join(recalled))
    if viewer >= 0:
        bit = 1 << viewer
        known = [ids[c] for c in sorted(m._opponent_pool(viewer)) if z.known[c] & bit]
        if known:
            lines.append("known in their hand: " + " ".join(known))
        deck: list[str] = []
        top = len(z.deck) - 1
        for i in range(top, -1, -1):
            if z.known[z.deck[i]] & bit:
                deck.append(f"{ids[z.deck[i]]}@{top - i}")
        if deck:
            lines.append("known in the deck: " + " ".join(deck))
    if not terminal:
        lines.append("decision: " + " | ".join(_decision_parts(m, viewer)))
    return "\n".join(lines)


def _decision_parts(m: Match, viewer: int) -> list[str]:
    """The decision line's parts, as :func:`converge.engine.observation.decision` shows them."""
    t, e, ids = m.turn, m.effect, m.playset.card_ids
    mine = viewer == t.player
    parts = [decision_prompt(m)]
    if t.active >= 0 and (mine or t.phase != MODE):
        parts.append(f"card {ids[t.active]}")
    kind = e.kind
    if t.phase == EFFECT and kind is not None:
        parts.append(f"effect {kind.name}")
        if e.card != t.active:
            parts.append(f"studied {ids[e.card]}")
        if mine or kind.public_choice(e.step):
            if e.pending >= 0:
                parts.append(f"pending {ids[e.pending]}")
            if e.revealed:
                parts.append("revealed " + " ".join([ids[c] for c in e.revealed]))
    if mine:
        parts.append("legal " + " ".join([m.action_to_string(a) for a in m.legal_actions()]))
    return parts


__all__ = ["event_text", "view_text"]
