"""An image of the table as one viewer sees it, for ``render_mode="rgb_array"`` (videos of episodes).

:class:`TableRenderer` draws from an observation dict (``Match.observation(player)`` or
``public_observation()``) and the playset's printed cards alone, so an image can hold nothing its viewer
may not know (I3): the same observation gives the same pixels, whatever the hidden cards are. It shows
both factions (each card's current skillset by colour, its rank, a converted card marked ``*``, a guarded
one ``g``), the goal area and whom each goal scores for, the discard pile's top card and size, the deck's
size, each hand (the viewer's own face up, the other face down), scores, round wins, the artifact holder
and whose decision it is; a face-up card shows its goal's stars as ``*``. The viewer sits at the bottom
(a spectator's view puts player 0 there).

Needs Pillow (part of the ``rl`` extra); its built-in font, so no font file is looked for.

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
>>> frame = TableRenderer(m.playset).render(m.observation(0))
>>> frame.shape, frame.dtype.name
((480, 720, 3), 'uint8')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from converge import install_command
from converge.engine.playset import Playset
from converge.engine.schema import CardInPlay, Observation

if TYPE_CHECKING:
    from PIL.ImageDraw import ImageDraw

WIDTH, HEIGHT = 720, 480
CARD_W, CARD_H, GAP = 50, 68, 6
TABLE = (28, 84, 52)
TEXT = (240, 240, 230)
DIM = (170, 190, 175)
BACK = (70, 60, 120)
#: One colour per skillset of the playset, by its place (first, second, third).
SKILLSET_COLOURS = ((196, 80, 60), (70, 120, 200), (200, 160, 50))


class TableRenderer:
    """Draws observations of matches of one playset (see the module's documentation)."""

    def __init__(self, playset: Playset) -> None:
        try:
            from PIL import ImageFont
        except ImportError as exc:  # the rl extra brings Pillow; say so rather than fail deep inside
            raise ImportError(f"render_mode='rgb_array' needs Pillow: {install_command('rl')} "
                              "(or pip install pillow)") from exc
        self.skillsets: tuple[str, ...] = playset.skillsets
        # printed characteristics of every card id: public, on the card itself
        self.printed = {c.id: (playset.skillsets.index(c.skillset), c.rank, c.goal.stars) for c in playset.cards}
        self.font = ImageFont.load_default(size=13)
        self.big = ImageFont.load_default(size=20)

    def render(self, obs: Observation) -> npt.NDArray[np.uint8]:
        """The table as ``obs``'s viewer sees it: an RGB array of shape (480, 720, 3)."""
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (WIDTH, HEIGHT), TABLE)
        draw = ImageDraw.Draw(image)
        viewer = obs.get("viewer")
        me = viewer if viewer in (0, 1) else 0
        them = 1 - me
        names = ("You", "Opponent") if viewer in (0, 1) else (f"Player {me}", f"Player {them}")
        wins = list(obs.get("round_wins") or [0, 0])
        scores = list(obs.get("scores") or [0, 0])
        sizes = list(obs.get("hand_sizes") or [0, 0])
        factions = list(obs.get("factions") or [[], []])
        status = f"Round {obs.get('round')}  ·  turn {obs.get('turn')}"
        if obs.get("is_terminal"):
            winner = obs.get("winner")
            status += "  ·  match over: " + (names[0] if winner == me else names[1]) + " won"
        else:
            current = obs.get("current_player")
            status += "  ·  to play: " + (names[0] if current == me else names[1] if current == them else "—")
        draw.text((12, 8), status, fill=TEXT, font=self.big)
        # the other seat at the top (label, hand face down, faction), the viewer's at the bottom
        rows = ((them, names[1], 36, 54, 98), (me, names[0], 364, 382, 290))
        for seat, name, label_y, hand_y, faction_y in rows:
            holder = "  ·  holds the artifact" if obs.get("artifact_holder") == seat else ""
            label = f"{name}: {scores[seat]} points  ·  {wins[seat]} round wins  ·  {sizes[seat]} in hand{holder}"
            draw.text((12, label_y), label, fill=TEXT, font=self.font)
            hand = obs.get("hand") if seat == viewer else None
            x = 12
            if hand is not None:
                for card in hand:
                    x = self._card(draw, x, hand_y, str(card))
            else:
                for _ in range(int(sizes[seat])):
                    draw.rounded_rectangle((x, hand_y, x + CARD_W, hand_y + CARD_H // 2), 5, fill=BACK,
                                           outline=TEXT)
                    x += CARD_W + GAP
            draw.text((WIDTH - 60, faction_y + 2), "faction", fill=DIM, font=self.font)
            x = 12
            for entry in factions[seat]:
                x = self._card(draw, x, faction_y, str(entry.get("id")), entry)
            if not factions[seat]:
                draw.text((12, faction_y + CARD_H // 2 - 8), "(empty faction)", fill=DIM, font=self.font)
        # the middle: goals (and whom each scores for), discard, deck
        draw.text((12, 176), "Goals", fill=DIM, font=self.font)
        x = 12
        scorers = {g.get("goal"): g.get("winners") for g in obs.get("score_breakdown") or []
                   if isinstance(g, Mapping)}
        for goal in obs.get("goals") or []:
            x = self._card(draw, x, 192, str(goal))
            who = scorers.get(goal) or []
            mark = "/".join(names[0] if p == me else names[1] for p in who)
            draw.text((x - CARD_W - GAP, 192 + CARD_H + 1), mark[:9], fill=TEXT, font=self.font)
        discard = list(obs.get("discard") or [])
        draw.text((540, 176), f"Discard ({len(discard)})", fill=DIM, font=self.font)
        if discard:
            self._card(draw, 540, 192, str(discard[-1]))
        draw.text((630, 176), f"Deck ({obs.get('deck_size')})", fill=DIM, font=self.font)
        if obs.get("deck_size"):
            draw.rounded_rectangle((630, 192, 630 + CARD_W, 192 + CARD_H), 5, fill=BACK, outline=TEXT)
        x = 470
        for name, colour in zip(self.skillsets, SKILLSET_COLOURS, strict=False):  # the legend
            draw.rectangle((x, HEIGHT - 16, x + 10, HEIGHT - 6), fill=colour)
            draw.text((x + 14, HEIGHT - 19), name, fill=DIM, font=self.font)
            x += 84
        return np.asarray(image, dtype=np.uint8)

    def _card(self, draw: ImageDraw, x: int, y: int, card: str, entry: CardInPlay | None = None) -> int:
        """A face-up card at (x, y), coloured by its current skillset; returns the next card's x."""
        skill, rank, stars = self.printed.get(card, (0, 0, 0))
        marks = ""
        if entry is not None:  # a faction card: its current characteristics (C8)
            if entry.get("skillset") in self.skillsets:
                skill = self.skillsets.index(entry["skillset"])
            rank = int(entry.get("rank", rank))
            marks = ("*" if entry.get("converted") else "") + ("g" if entry.get("guarded_by") is not None else "")
        draw.rounded_rectangle((x, y, x + CARD_W, y + CARD_H), 5, fill=SKILLSET_COLOURS[skill % 3], outline=TEXT)
        draw.text((x + 4, y + 3), card[:7], fill=TEXT, font=self.font)
        draw.text((x + 4, y + 20), str(rank) + marks, fill=TEXT, font=self.big)
        draw.text((x + 4, y + CARD_H - 17), "*" * stars, fill=TEXT, font=self.font)
        return x + CARD_W + GAP
