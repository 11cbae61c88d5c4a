"""A card drawn for paper and for Tabletop Simulator, as the browser draws it (``web/cards.js``, ``style.css``):
a face of the card's background framed in its skillset's colour, the frame thicker on the left; at the top
the rank and the skillset's name in that colour and the card's id in muted text; the name in bold; the goal
after its stars (in the accent colour); the effect, its keyword in the skillset's colour, in muted text; the
set's name at the foot. The colours come from the browser's style sheet (:mod:`converge.cards.palette`).

Drawn with matplotlib, in millimetres, on any Axes whose data units are millimetres (a page of the PDF, a
card's PNG, Tabletop Simulator's sheet). Text is measured with the glyphs of DejaVu Sans (matplotlib's own
font, embedded in the PDF) and wrapped to the card's width; :func:`layout_face` says where every piece of
text goes, and whether it fits, before anything is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

from converge.cards.icons import icon_path
from converge.cards.model import CardSpec, Deck
from converge.cards.palette import CardPalette, card_palette

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

#: Millimetres in a typographic point.
PT = 25.4 / 72
FONT = "DejaVu Sans"
STAR = "★"


@dataclass(frozen=True)
class CardSize:
    """A published card size (millimetres) and how large its text is, against the poker card's."""

    name: str
    width: float
    height: float
    scale: float
    standard: str


#: The sizes a card is printed at. Poker: 63 × 88 mm, the size of most card games (2.5 × 3.5 in is 63.5 ×
#: 88.9 mm: the metric sizes are the manufacturers'). Mini: Mini European, 44 × 68 mm (the size of the Mini
#: European sleeves' cards, 45 × 68 mm sleeves).
SIZES = {
    "poker": CardSize("poker", 63.0, 88.0, 1.0, "poker (63 × 88 mm)"),
    "mini": CardSize("mini", 44.0, 68.0, 0.72, "Mini European (44 × 68 mm)"),
}

# The text's sizes on a poker card (points); a mini card's are CardSize.scale of these.
RANK_PT, SKILL_PT, ID_PT, NAME_PT, GOAL_PT, EFFECT_PT, FOOT_PT = 22.0, 9.0, 8.0, 13.0, 11.5, 10.0, 7.0
#: The icons' sides: beside the skillset's name, as a multiple of its type size (the browser's 1.05 rem beside
#: .72 rem); before the effect, of the effect's (1 em, a little more to stand as tall as the capitals and
#: descenders).
ICON_SCALE, EFFECT_ICON = 1.45, 1.1
#: How strong the large icon in the middle of a card is, over the card's background.
WATERMARK = 0.12
#: The smallest share of its own size the text may shrink to when a card's text is long (a user's deck).
SMALLEST_SCALE = 0.6
# The frame on a poker card (mm), as the browser's .card: 2 px of a 10.4 rem card is 0.7 mm, its .4 rem
# left edge 2.4 mm; it stands INSET mm inside the card's edge, where a cut a millimetre off leaves it whole.
INSET, BORDER, LEFT_BORDER, RADIUS, PAD_X, PAD_Y = 1.6, 0.7, 2.4, 2.6, 1.6, 1.3
#: What wrapped text leaves free at its right, as a share of the line: a PNG's text is hinted to the pixels,
#: which makes a line up to 1.6% wider than its outline (at 100 dpi; less at the PNGs' 300).
SLACK = 0.025
#: Lines of text, as a multiple of their type size; the space between the blocks of text (poker, mm).
LEADING, GAP = 1.2, 1.6
#: The height of capitals and the depth below the baseline in DejaVu Sans, as a share of the type size; the
#: baseline's place in a line, as a share of the line's height.
CAP, DESCENT, BASELINE = 0.73, 0.24, 0.78


class TextTooLong(ValueError):
    """A card whose text does not fit on the card even at :data:`SMALLEST_SCALE` of its size."""

    def __init__(self, card: CardSpec, size: CardSize) -> None:
        super().__init__(f"card {card.id}'s text does not fit on a {size.name} card")
        self.card = card


@dataclass(frozen=True)
class Piece:
    """A run of text of one style: ``x`` from the card's left edge, ``y`` its baseline from the top (mm)."""

    x: float
    y: float
    text: str
    colour: str
    size: float
    bold: bool
    align: Literal["left", "right"] = "left"


@dataclass(frozen=True)
class Icon:
    """One of the browser's icons (:mod:`converge.cards.icons`): its bottom left corner ``x`` from the card's
    left edge and ``y`` from its top, its side (mm)."""

    x: float
    y: float
    side: float
    name: str
    colour: str


@dataclass(frozen=True)
class Run:
    """Text of one style, to be wrapped."""

    text: str
    colour: str
    size: float
    bold: bool = False


@dataclass(frozen=True)
class FaceLayout:
    """Where every piece of a card's text goes on the card, at ``scale`` of its size's type sizes."""

    card: CardSpec
    size: CardSize
    colour: str
    scale: float
    pieces: tuple[Piece, ...]
    icons: tuple[Icon, ...]
    #: the text's box (mm from the card's top left): what every piece must stay inside
    box: tuple[float, float, float, float]
    #: how far the text runs past its room (mm; 0 when it fits)
    overflow: float

    @property
    def fits(self) -> bool:
        return self.overflow <= 0


@cache
def _font(size: float, bold: bool) -> FontProperties:
    from matplotlib.font_manager import FontProperties

    return FontProperties(family=FONT, weight="bold" if bold else "normal", size=size)


@cache
def _text_to_path() -> TextToPath:
    from matplotlib.textpath import TextToPath

    return TextToPath()


@cache
def text_width(text: str, size: float, bold: bool) -> float:
    """The width of ``text`` set in DejaVu Sans at ``size`` points (mm)."""
    width, _, _ = _text_to_path().get_text_width_height_descent(text, _font(size, bold), ismath=False)
    return float(width) * PT


def _split_long(word: str, run: Run, width: float) -> list[str]:
    """``word`` cut into pieces no wider than ``width`` (a word longer than a line: a user's long name)."""
    parts, current = [], ""
    for ch in word:
        if current and text_width(current + ch, run.size, run.bold) > width:
            parts.append(current)
            current = ""
        current += ch
    return [*parts, current]


def flow(runs: Sequence[Run], width: float, indent: float = 0.0) -> list[list[tuple[float, Run, str]]]:
    """``runs`` wrapped into lines no wider than ``width`` (mm), the first starting ``indent`` in: each line a
    list of (x, run, text), the words of one run on a line joined into one piece (measured whole, as it is
    drawn)."""
    lines: list[list[tuple[float, Run, str]]] = [[]]
    for run in runs:
        for word in (p for w in run.text.split() for p in _split_long(w, run, width)):
            line = lines[-1]
            if line and line[-1][1] == run:  # the word joins the line's last piece
                start, _, text = line[-1]
                joined = f"{text} {word}"
                if start + text_width(joined, run.size, run.bold) <= width:
                    line[-1] = (start, run, joined)
                    continue
            elif line:  # a piece of another style after the line's last one
                start, last, text = line[-1]
                x = start + text_width(text + " ", last.size, last.bold)
                if x + text_width(word, run.size, run.bold) <= width:
                    line.append((x, run, word))
                    continue
            else:
                line.append((0.0 if len(lines) > 1 else indent, run, word))
                continue
            lines.append([(0.0, run, word)])
    return [line for line in lines if line]


def _block(runs: Sequence[Run], left: float, top: float, width: float,
           indent: float = 0.0) -> tuple[list[Piece], float]:
    """``runs`` wrapped into the column at ``left`` of ``width`` from ``top`` (mm), the first line ``indent``
    in: its pieces and height."""
    pieces: list[Piece] = []
    y = top
    for line in flow(runs, width, indent):
        size = max(run.size for _, run, _ in line)
        baseline = y + BASELINE * LEADING * size * PT  # (capitals' tops and descenders' feet inside the line)
        pieces += [Piece(left + x, baseline, text, run.colour, run.size, run.bold) for x, run, text in line]
        y += LEADING * size * PT
    return pieces, y - top


def _effect_runs(card: CardSpec, keyword: str, colour: str, muted: str, size: float) -> list[Run]:
    """The effect's text, its keyword (``Convert:``, ``Search 3:``: the text's start) in the skillset's colour."""
    text = card.effect_text
    head, sep, rest = text.partition(": ")
    if sep and keyword and head.split()[0].lower() == keyword.lower():
        return [Run(head + ":", colour, size, bold=True), Run(rest, muted, size)]
    return [Run(text, muted, size)]


def layout_face(card: CardSpec, deck: Deck, size: CardSize, scale: float = 1.0,
                palette: CardPalette | None = None) -> FaceLayout:
    """Where the text of ``card`` goes on a card of ``size`` at ``scale`` of its type sizes."""
    pal = palette or card_palette()
    colour = pal.skillset_colour(deck.color)
    k = size.scale  # the frame's and the gaps' sizes
    t = size.scale * scale  # the text's
    left = INSET * k + LEFT_BORDER * k + PAD_X * k
    right = size.width - INSET * k - BORDER * k - PAD_X * k
    top = INSET * k + BORDER * k + PAD_Y * k
    bottom = size.height - INSET * k - BORDER * k - PAD_Y * k
    width = (right - left) * (1 - SLACK)  # (the text is wrapped a little short of the box's edge)
    pieces: list[Piece] = []

    # the top row: the rank, the skillset's name beside it, the id at the right; centred on the rank's capitals
    rank, skill, ident = str(card.rank), card.skillset, card.id
    rank_pt, skill_pt, id_pt = RANK_PT * t, SKILL_PT * t, ID_PT * t
    rank_base = top + CAP * rank_pt * PT
    middle = rank_base - CAP * rank_pt * PT / 2
    pieces.append(Piece(left, rank_base, rank, colour, rank_pt, True))
    # the skillset's icon (its keyword's, as the browser's) before its name, 1.05 rem beside .72 rem type
    side = ICON_SCALE * skill_pt * PT
    icons = [Icon(left + text_width(rank, rank_pt, True) + 1.0 * k, middle + side / 2, side, deck.keyword, colour)]
    skill_x = icons[0].x + side + 0.5 * k
    pieces.append(Piece(skill_x, middle + CAP * skill_pt * PT / 2, skill, colour, skill_pt, True))
    pieces.append(Piece(right, middle + CAP * id_pt * PT / 2, ident, pal.muted, id_pt, True, "right"))
    top_row_width = (skill_x - left) + text_width(skill, skill_pt, True) + 1.2 * k + text_width(ident, id_pt, True)
    y = top + (CAP + DESCENT) * rank_pt * PT + GAP * k

    name, h = _block([Run(card.name, pal.text, NAME_PT * t, bold=True)], left, y, width)
    pieces += name
    y += h + GAP * k * 0.5
    stars = STAR * card.goal.stars
    goal_runs = [Run(stars, pal.accent, GOAL_PT * t), Run(card.goal.text, pal.text, GOAL_PT * t)]
    goal, h = _block(goal_runs, left, y, width)
    pieces += goal
    y += h + GAP * k

    # the foot: the set's name (a user's deck may have none), under the effect, which sits just above it
    foot_pt = FOOT_PT * t
    foot_top = bottom - LEADING * foot_pt * PT
    if deck.set_name:
        pieces += _block([Run(deck.set_name, pal.muted, foot_pt)], left, foot_top, width)[0][:1]
    effect_runs = _effect_runs(card, deck.keyword, colour, pal.muted, EFFECT_PT * t)
    effect_side = EFFECT_PT * t * PT * EFFECT_ICON  # (1 em, as the browser's)
    effect, h = _block(effect_runs, left, 0.0, width, indent=effect_side + 0.8 * k)
    effect_top = foot_top - GAP * k * 0.5 - h
    pieces += [Piece(p.x, p.y + effect_top, p.text, p.colour, p.size, p.bold) for p in effect]
    if effect:  # the keyword's icon before the effect, its foot a little under the first line's baseline
        first = effect[0].y + effect_top
        icons.append(Icon(left, first + 0.12 * effect_side, effect_side, deck.keyword, colour))
    # the room a paper card has between the goal and the effect holds the keyword's icon, large and faint
    room = min(effect_top - y - GAP * k, width * 0.5)
    if room > 8 * k:
        icons.append(Icon(left + (right - left - room) / 2, (y + effect_top) / 2 + room / 2, room, deck.keyword,
                          _mix(colour, pal.background, WATERMARK)))

    overflow = max(y - effect_top, top_row_width - (right - left),
                   *(p.x + text_width(p.text, p.size, p.bold) - right for p in pieces if p.align == "left"))
    return FaceLayout(card, size, colour, scale, tuple(pieces), tuple(icons), (left, top, right, bottom),
                      max(overflow, 0.0))


def _mix(colour: str, background: str, share: float) -> str:
    """``share`` of ``colour`` over ``background`` (``#rrggbb``): a faint colour that prints as it shows."""
    mixed = (round(share * int(colour[i:i + 2], 16) + (1 - share) * int(background[i:i + 2], 16))
             for i in (1, 3, 5))
    return "#" + "".join(f"{c:02x}" for c in mixed)


def fitted_face(card: CardSpec, deck: Deck, size: CardSize) -> FaceLayout:
    """The layout of ``card`` at the largest type that fits (its own, or smaller down to
    :data:`SMALLEST_SCALE`); :class:`TextTooLong` when none does."""
    scale = 1.0
    while scale >= SMALLEST_SCALE - 1e-9:
        face = layout_face(card, deck, size, scale)
        if face.fits:
            return face
        scale = round(scale - 0.05, 2)
    raise TextTooLong(card, size)


def _frame(ax: Axes, x0: float, y0: float, size: CardSize, edge: str, fill: str) -> None:
    """The card's full face in ``fill`` and, inset, its rounded frame in ``edge`` (thicker on the left)."""
    from matplotlib.patches import FancyBboxPatch, Rectangle

    k = size.scale
    ax.add_patch(Rectangle((x0, y0), size.width, size.height, facecolor=fill, edgecolor="none"))
    inset, radius = INSET * k, RADIUS * k
    ax.add_patch(FancyBboxPatch((x0 + inset, y0 + inset), size.width - 2 * inset, size.height - 2 * inset,
                                boxstyle=f"round,pad=0,rounding_size={radius}", facecolor=edge, edgecolor="none"))
    left, border = inset + LEFT_BORDER * k, inset + BORDER * k
    ax.add_patch(FancyBboxPatch((x0 + left, y0 + border), size.width - left - border, size.height - 2 * border,
                                boxstyle=f"round,pad=0,rounding_size={max(radius - BORDER * k, 0.1)}",
                                facecolor=fill, edgecolor="none"))


def draw_face(ax: Axes, x0: float, y0: float, face: FaceLayout) -> None:
    """Draw the card of ``face`` with its bottom left corner at (``x0``, ``y0``) mm on ``ax``."""
    pal = card_palette()
    size = face.size
    _frame(ax, x0, y0, size, face.colour, pal.background)
    for p in face.pieces:
        ax.text(x0 + p.x, y0 + size.height - p.y, p.text, color=p.colour, fontproperties=_font(p.size, p.bold),
                ha=p.align, va="baseline")
    for icon in face.icons:
        draw_icon(ax, icon.name, x0 + icon.x, y0 + size.height - icon.y, icon.side, icon.colour)


def draw_icon(ax: Axes, name: str, x: float, y: float, side: float, colour: str) -> None:
    """The browser's icon of ``name`` in a square of ``side`` whose bottom left corner is (``x``, ``y``) mm."""
    from matplotlib.patches import PathPatch
    from matplotlib.transforms import Affine2D

    path = icon_path(name).transformed(Affine2D().scale(side).translate(x, y))
    ax.add_patch(PathPatch(path, facecolor=colour, edgecolor="none", gid="icon"))


def draw_back(ax: Axes, x0: float, y0: float, size: CardSize) -> None:
    """A card's back, as the browser draws the deck's (diagonal stripes), with the game's name across it."""
    from matplotlib.patches import FancyBboxPatch, Polygon

    pal = card_palette()
    dark, light = pal.back_stripes[1], pal.back_stripes[0]
    _frame(ax, x0, y0, size, pal.line, dark)
    k = size.scale
    inner = FancyBboxPatch((x0 + (INSET + BORDER) * k, y0 + (INSET + BORDER) * k),
                           size.width - 2 * (INSET + BORDER) * k, size.height - 2 * (INSET + BORDER) * k,
                           boxstyle=f"round,pad=0,rounding_size={(RADIUS - BORDER) * k}", facecolor="none",
                           edgecolor="none")
    ax.add_patch(inner)
    # stripes at 45°, as wide as the browser's (3 px of a 0.9 rem back: 1/5 of its width), clipped to the frame
    step = size.width / 10
    span = size.width + size.height
    offset = -size.height
    while offset < size.width:
        stripe = Polygon([(x0 + offset, y0), (x0 + offset + step, y0), (x0 + offset + step + span, y0 + span),
                          (x0 + offset + span, y0 + span)], closed=True, facecolor=light, edgecolor="none")
        ax.add_patch(stripe)
        stripe.set_clip_path(inner)
        offset += 2 * step
    ax.text(x0 + size.width / 2, y0 + size.height / 2, "CONVERGE", color=pal.text, ha="center", va="center",
            rotation=90, fontproperties=_font(22 * size.scale, True))
