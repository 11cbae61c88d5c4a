"""Cards on paper: a print-and-play PDF and a PNG of each card (``converge cards print``).

The PDF's pages are A4 or US Letter, exactly (vector pages drawn by matplotlib, the text in DejaVu Sans
embedded as TrueType). The cards sit edge to edge in a grid centred on the page, at their published size
(:data:`converge.cards.faces.SIZES`), so that one cut separates two cards; the cut marks stand in the margin,
outside the cards, on the line of every card edge. After each page of fronts comes a page of backs, its
columns mirrored left to right: printed on both sides of the sheet, flipped on the long edge, each back lands
behind its own front.

Every card's text is laid out (and checked to fit) before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from converge.cards.faces import CardSize, FaceLayout, draw_back, draw_face, fitted_face, text_width
from converge.cards.model import CardSpec, Deck
from converge.cards.palette import card_palette

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Paper:
    """A sheet of paper (millimetres, portrait)."""

    name: str
    width: float
    height: float


PAPERS = {"a4": Paper("A4", 210.0, 297.0), "letter": Paper("US Letter", 215.9, 279.4)}
#: The least room (mm) between the cards and the paper's edge: home printers leave 3 to 5 mm unprinted.
MARGIN = 6.0
#: Cut marks: how far from the cards they start, their longest length, the room they leave to the paper's
#: edge (mm), their width (points).
MARK_GAP, MARK_LENGTH, MARK_EDGE, MARK_WIDTH = 1.0, 5.0, 1.5, 0.3
#: What the page's label at its foot leaves free on either side, to the cut marks (mm).
LABEL_CLEARANCE = 4.0
#: The PNGs' resolution (dots per inch): a print shop's.
PNG_DPI = 300
CUT_MARK_COLOUR = "#000000"
#: zlib's level 1 for the PNGs: the flat colours of a card compress about as well, in a fifth of the time
FAST_PNG = {"compress_level": 1}


@dataclass(frozen=True)
class Grid:
    """The cards of one page: ``columns`` × ``rows`` edge to edge, the block's bottom left corner at
    (``left``, ``bottom``) mm, centred on the page (so that the mirrored backs land behind their fronts)."""

    paper: Paper
    size: CardSize
    columns: int
    rows: int
    left: float
    bottom: float

    @property
    def per_page(self) -> int:
        return self.columns * self.rows

    def origin(self, index: int, mirrored: bool = False) -> tuple[float, float]:
        """The bottom left corner (mm) of the ``index``-th card of a page, counted along the rows from the top
        left; ``mirrored``: on a page of backs (its columns right to left)."""
        row, column = divmod(index, self.columns)
        if mirrored:
            column = self.columns - 1 - column
        return self.left + column * self.size.width, self.bottom + (self.rows - 1 - row) * self.size.height


def page_grid(paper: Paper, size: CardSize) -> Grid:
    """As many cards of ``size`` as fit on ``paper`` inside :data:`MARGIN`, centred."""
    columns = int((paper.width - 2 * MARGIN) // size.width)
    rows = int((paper.height - 2 * MARGIN) // size.height)
    if columns < 1 or rows < 1:
        raise ValueError(f"a {size.name} card does not fit on {paper.name} paper")
    return Grid(paper, size, columns, rows, (paper.width - columns * size.width) / 2,
                (paper.height - rows * size.height) / 2)


def _mm_axes(fig: Figure, width: float, height: float) -> Axes:
    """Axes over the whole of ``fig`` whose data units are millimetres (0 to ``width``, 0 to ``height``)."""
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return ax


def _cut_marks(ax: Axes, grid: Grid) -> None:
    """A short line in the margin on the line of every edge of the grid's cards, on all four sides."""
    left, bottom = grid.left, grid.bottom
    right, top = left + grid.columns * grid.size.width, bottom + grid.rows * grid.size.height
    horizontal = min(MARK_LENGTH, left - MARK_GAP - MARK_EDGE)
    vertical = min(MARK_LENGTH, bottom - MARK_GAP - MARK_EDGE)

    def mark(xs: tuple[float, float], ys: tuple[float, float]) -> None:
        ax.plot(xs, ys, color=CUT_MARK_COLOUR, linewidth=MARK_WIDTH, solid_capstyle="butt")

    for i in range(grid.columns + 1):
        x = left + i * grid.size.width
        mark((x, x), (top + MARK_GAP, top + MARK_GAP + vertical))
        mark((x, x), (bottom - MARK_GAP, bottom - MARK_GAP - vertical))
    for j in range(grid.rows + 1):
        y = bottom + j * grid.size.height
        mark((left - MARK_GAP, left - MARK_GAP - horizontal), (y, y))
        mark((right + MARK_GAP, right + MARK_GAP + horizontal), (y, y))


def _page(grid: Grid, label: str) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    paper = grid.paper
    fig = Figure(figsize=(paper.width / 25.4, paper.height / 25.4))
    ax = _mm_axes(fig, paper.width, paper.height)
    _cut_marks(ax, grid)
    # what the page is, in the bottom margin under the first column, clear of its cut marks
    room = grid.size.width - 2 * LABEL_CLEARANCE
    type_size = min(6.0, 6.0 * room / text_width(label, 6.0, False))
    ax.text(grid.left + grid.size.width / 2, grid.bottom / 2, label, ha="center", va="center", color="#555555",
            fontsize=type_size, fontfamily="DejaVu Sans")
    return fig, ax


@contextmanager
def _pdf_settings() -> Iterator[None]:
    """matplotlib's settings for the cards: DejaVu Sans embedded as TrueType (type 42), so that the PDF's text
    is text (sharp at any size, searchable) rather than drawn glyphs."""
    import matplotlib

    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans"}):
        yield


@dataclass(frozen=True)
class Printed:
    """What :func:`print_cards` wrote."""

    pdf: Path
    pngs: tuple[Path, ...]
    pages: int
    grid: Grid


def layouts(cards: Sequence[tuple[Deck, CardSpec]], size: CardSize) -> list[FaceLayout]:
    """Every card's face laid out at the largest type that fits (a :class:`TextTooLong` for one that does
    not fit): done before any file is written."""
    return [fitted_face(card, deck, size) for deck, card in cards]


def write_pdf(faces: Sequence[FaceLayout], grid: Grid, path: Path) -> int:
    """The print-and-play PDF of ``faces`` at ``path``: a page of fronts and a page of mirrored backs for every
    ``grid.per_page`` cards. Returns its number of pages."""
    from matplotlib.backends.backend_pdf import PdfPages

    sheets = [faces[i:i + grid.per_page] for i in range(0, len(faces), grid.per_page)]
    size = grid.size
    with _pdf_settings(), PdfPages(path, metadata={"Title": "Converge cards", "Creator": "converge cards print",
                                                   "CreationDate": None}) as pdf:
        for n, sheet in enumerate(sheets, start=1):
            fig, ax = _page(grid, f"Converge · fronts {n}/{len(sheets)} · print at 100%")
            for i, face in enumerate(sheet):
                draw_face(ax, *grid.origin(i), face)
            pdf.savefig(fig)
            fig, ax = _page(grid, f"Converge · backs {n}/{len(sheets)} · flip on the long edge")
            for i in range(len(sheet)):
                draw_back(ax, *grid.origin(i, mirrored=True), size)
            pdf.savefig(fig)
    return 2 * len(sheets)


def pixels(mm: float, dpi: int) -> int:
    """The whole number of pixels nearest to ``mm`` millimetres at ``dpi``."""
    return round(mm / 25.4 * dpi)


def _card_figure(size: CardSize, dpi: int) -> tuple[Figure, Axes]:
    """A figure of exactly one card at ``dpi`` (its pixels: :func:`pixels` of its width and height)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(pixels(size.width, dpi) / dpi, pixels(size.height, dpi) / dpi), dpi=dpi)
    fig.patch.set_facecolor(card_palette().background)
    return fig, _mm_axes(fig, size.width, size.height)


def write_card_png(face: FaceLayout, path: Path, dpi: int = PNG_DPI) -> None:
    fig, ax = _card_figure(face.size, dpi)
    draw_face(ax, 0.0, 0.0, face)
    fig.savefig(path, dpi=dpi, pil_kwargs=FAST_PNG)


def write_back_png(size: CardSize, path: Path, dpi: int = PNG_DPI) -> None:
    fig, ax = _card_figure(size, dpi)
    draw_back(ax, 0.0, 0.0, size)
    fig.savefig(path, dpi=dpi, pil_kwargs=FAST_PNG)


def print_cards(cards: Sequence[tuple[Deck, CardSpec]], size: CardSize, paper: Paper, out: Path) -> Printed:
    """``cards.pdf`` and ``png/<ID>.png`` of each card, with ``png/back.png``, in the folder ``out`` (which
    exists). A :class:`TextTooLong` before anything is written when a card's text does not fit."""
    grid = page_grid(paper, size)
    faces = layouts(cards, size)
    pdf = out / "cards.pdf"
    pages = write_pdf(faces, grid, pdf)
    folder = out / "png"
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.png"):  # an earlier print's cards would be mixed with these (another deck, size)
        old.unlink()
    pngs = []
    with _pdf_settings():
        for face in faces:
            pngs.append(folder / f"{face.card.id}.png")
            write_card_png(face, pngs[-1])
        pngs.append(folder / "back.png")
        write_back_png(size, pngs[-1])
    return Printed(pdf, tuple(pngs), pages, grid)
