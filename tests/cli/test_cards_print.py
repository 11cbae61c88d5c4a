"""``converge cards print`` and ``converge cards tts``: the PDF renders (poppler's pdftoppm) with the cards at
their published size, a page of mirrored backs after each page of fronts, a PNG per card, every card's text
inside its frame, the Tabletop Simulator deck's JSON and sheet; a mistake writes nothing."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
from PIL import Image

from converge.cards.faces import SIZES, draw_face, fitted_face
from converge.cards.loader import load_catalog
from converge.cards.palette import card_palette
from converge.cli.main import main
from converge.engine.playset import catalog_order
from tests.helpers import ROOT, assert_user_error, run

PDFTOPPM = shutil.which("pdftoppm")
pytestmark = pytest.mark.skipif(PDFTOPPM is None, reason="pdftoppm is needed: apt-get install poppler-utils")

BUILTIN = ROOT / "src" / "converge" / "cards" / "decks"
CATALOG = load_catalog(())
ALL_CARDS = [card for key in catalog_order(CATALOG) for card in CATALOG[key].cards]  # (the commands' order)
#: The resolution the pages are rendered at to be measured: 0.5 mm is 3.9 pixels.
DPI = 200


def converge(*argv: str) -> str:
    """Run ``converge`` in this process (a module fixture cannot take capsys); its stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def render(pdf: Path, folder: Path, dpi: int, first: int | None = None, last: int | None = None) -> list[Path]:
    """The pages of ``pdf`` rendered by pdftoppm as PNGs in ``folder``, in order."""
    folder.mkdir(exist_ok=True)
    pages = ["-f", str(first), "-l", str(last or first)] if first else []
    assert PDFTOPPM is not None
    subprocess.run([PDFTOPPM, "-r", str(dpi), "-png", *pages, str(pdf), str(folder / "page")], check=True,
                   capture_output=True, timeout=300)
    return sorted(folder.glob("page-*.png"))


def ink(path: Path) -> np.ndarray:
    """Where a rendered page is not paper: True for every pixel darker than light grey."""
    return np.asarray(Image.open(path).convert("L")) < 200


def runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """The (first, last) index of each run of True in a 1-D array."""
    out, start = [], None
    for i, f in enumerate([*flags.tolist(), False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            out.append((start, i - 1))
            start = None
    return out


def measured_card(page: np.ndarray) -> tuple[list[float], list[float]]:
    """The card widths and heights on a rendered page (mm), from the cut marks: the distances between the marks
    above the cards (one on each vertical cut) and between those left of them (one on each horizontal cut)."""
    rows, cols = page.sum(axis=1), page.sum(axis=0)
    block_top = next(i for i, n in enumerate(rows) if n > page.shape[1] / 4)  # (the first row across the cards)
    block_left = next(i for i, n in enumerate(cols) if n > page.shape[0] / 4)
    above = page[:block_top - 2, :].any(axis=0)
    left = page[:, :block_left - 2].any(axis=1)
    xs = [(a + b) / 2 for a, b in runs(above)]
    ys = [(a + b) / 2 for a, b in runs(left)]
    mm = 25.4 / DPI
    return [(b - a) * mm for a, b in pairwise(xs)], [(b - a) * mm for a, b in pairwise(ys)]


def pdf_info(pdf: Path) -> dict[str, str]:
    pdfinfo = shutil.which("pdfinfo")
    assert pdfinfo is not None
    text = subprocess.run([pdfinfo, str(pdf)], check=True, capture_output=True, text=True).stdout
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in text.splitlines())}


@pytest.fixture(scope="module")
def poker(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Every built-in card (54) at poker size on A4."""
    out = tmp_path_factory.mktemp("poker") / "out"
    return out, converge("cards", "print", "--out", str(out))


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Three skillsets (18 cards) at mini size on US Letter: 12 a page, so the second sheet is part full."""
    out = tmp_path_factory.mktemp("mini") / "out"
    return out, converge("cards", "print", "--skillset", "healer", "delver,searcher", "--size", "mini", "--paper",
                         "letter", "--out", str(out))


@pytest.fixture(scope="module")
def tts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("tts") / "out"
    return out, converge("cards", "tts", "--out", str(out))


# ---------------------------------------------------------------------- the PDF


def test_54_poker_cards_make_six_sheets_each_page_rendering(poker: tuple[Path, str], tmp_path: Path) -> None:
    out, said = poker
    pages = render(out / "cards.pdf", tmp_path, 20)
    assert len(pages) == 12  # 9 cards a page: 6 pages of fronts, each followed by its backs
    for page in pages:  # A4 at 20 dpi, each page with cards on it
        width, height = Image.open(page).size
        assert abs(width - 210 / 25.4 * 20) <= 1 and abs(height - 297 / 25.4 * 20) <= 1
        assert ink(page).mean() > 0.5
    assert pdf_info(out / "cards.pdf")["Page size"].startswith("595.276 x 841.89 pts (A4)")
    assert "54 cards" in said and "12 pages" in said and "3 × 3" in said


@pytest.mark.parametrize("which, size", [("poker", (63.0, 88.0)), ("mini", (44.0, 68.0))])
def test_cards_are_their_published_size_on_the_page(which: str, size: tuple[float, float], tmp_path: Path,
                                                    request: pytest.FixtureRequest) -> None:
    out, _ = request.getfixturevalue(which)
    widths, heights = measured_card(ink(render(out / "cards.pdf", tmp_path, DPI, 1)[0]))
    columns, rows = (3, 3) if which == "poker" else (4, 3)
    assert len(widths) == columns and len(heights) == rows  # (a mark on each cut: one more than the cards)
    assert all(abs(w - size[0]) <= 0.5 for w in widths), widths
    assert all(abs(h - size[1]) <= 0.5 for h in heights), heights


def test_letter_pages_are_letter_size(mini: tuple[Path, str]) -> None:
    assert pdf_info(mini[0] / "cards.pdf")["Page size"].startswith("612 x 792 pts (letter)")


def test_backs_are_mirrored_to_land_behind_their_fronts(mini: tuple[Path, str], tmp_path: Path) -> None:
    """The last sheet has 6 of 12 places filled: its backs are in the same rows, columns right to left."""
    from converge.cards.printing import PAPERS, page_grid

    grid = page_grid(PAPERS["letter"], SIZES["mini"])
    pages = render(mini[0] / "cards.pdf", tmp_path, 50)
    assert len(pages) == 4

    def filled(path: Path) -> set[tuple[int, int]]:
        page = ink(path)
        px = 50 / 25.4
        height = page.shape[0]
        cells = set()
        for row in range(grid.rows):
            for column in range(grid.columns):
                x = grid.left + (column + 0.5) * grid.size.width
                y = grid.bottom + (grid.rows - row - 0.5) * grid.size.height
                if page[int(height - y * px), int(x * px)]:
                    cells.add((row, column))
        return cells

    fronts, backs = filled(pages[2]), filled(pages[3])
    assert fronts == {(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1)}
    assert backs == {(row, grid.columns - 1 - column) for row, column in fronts}
    assert filled(pages[0]) == filled(pages[1]) == {(r, c) for r in range(3) for c in range(4)}


# ---------------------------------------------------------------------- the PNGs


def test_a_png_per_card_and_the_back_at_300_dpi(poker: tuple[Path, str], mini: tuple[Path, str]) -> None:
    for (out, _), ids, pixels in ((poker, [c.id for c in ALL_CARDS], (744, 1039)),
                                  (mini, [c.id for k in ("healer", "delver", "searcher")
                                          for c in CATALOG[k].cards], (520, 803))):
        files = sorted(p.name for p in (out / "png").iterdir())
        assert files == sorted([f"{i}.png" for i in ids] + ["back.png"])
        for name in files:
            assert Image.open(out / "png" / name).size == pixels, name  # 63 × 88 mm, 44 × 68 mm at 300 dpi


def test_a_cards_png_is_framed_in_its_skillsets_browser_colour(poker: tuple[Path, str]) -> None:
    palette = card_palette()
    for deck in CATALOG.values():
        image = Image.open(poker[0] / "png" / f"{deck.cards[0].id}.png").convert("RGB")
        x = round((1.6 + 1.2) / 63 * image.width)  # the middle of the frame's thick left edge
        assert image.getpixel((x, image.height // 2)) == _rgb(palette.skillset_colour(deck.color)), deck.skillset


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


# ---------------------------------------------------------------------- the text fits


@pytest.mark.parametrize("size", ["poker", "mini"])
def test_every_cards_text_is_inside_its_frame_at_its_own_size(size: str) -> None:
    """Every built-in card drawn (the longest text among them): each piece of text and each icon, as matplotlib
    renders them, lies inside the card's frame, and no two overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    card_size = SIZES[size]
    longest = max(ALL_CARDS, key=lambda c: len(c.text))
    assert longest.id == "AST6"  # (the check below covers it: 169 characters)
    fig = Figure(figsize=(card_size.width / 25.4, card_size.height / 25.4), dpi=100)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, card_size.width)
    ax.set_ylim(0, card_size.height)
    for deck in CATALOG.values():
        for card in deck.cards:
            face = fitted_face(card, deck, card_size)
            assert face.scale == 1.0, card.id  # no built-in card needs smaller type
            for artist in [*ax.texts, *ax.patches]:  # (the card before)
                artist.remove()
            draw_face(ax, 0.0, 0.0, face)
            canvas.draw()
            renderer = canvas.get_renderer()
            to_mm = ax.transData.inverted()
            boxes = []
            drawn = [(t, t.get_text()) for t in ax.texts]
            drawn += [(p, "icon") for p in ax.patches if p.get_gid() == "icon"]
            assert len(drawn) == len(face.pieces) + 3  # (the icons: the skillset's, the effect's, the large one)
            for artist, what in drawn:
                (x0, y0), (x1, y1) = to_mm.transform(artist.get_window_extent(renderer).get_points())
                boxes.append((x0, card_size.height - y1, x1, card_size.height - y0, what))
            left, top, right, bottom = face.box
            for x0, y0, x1, y1, what in boxes:
                assert left - 0.01 <= x0 and x1 <= right + 0.01 and top - 0.3 <= y0 and y1 <= bottom + 0.3, \
                    (card.id, what, (x0, y0, x1, y1), face.box)
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    apart = (a[2] <= b[0] + 0.05 or b[2] <= a[0] + 0.05  # side by side
                             or a[3] <= b[1] + 0.05 or b[3] <= a[1] + 0.05)  # one above the other
                    assert apart, (card.id, a, b)


# ---------------------------------------------------------------------- Tabletop Simulator


def test_the_tts_deck_lists_every_card_on_its_sheet(tts: tuple[Path, str]) -> None:
    out, said = tts
    doc = json.loads((out / "converge-cards.json").read_text(encoding="utf-8"))
    (deck,) = doc["ObjectStates"]
    assert deck["Name"] == "DeckCustom"
    custom = deck["CustomDeck"]
    assert list(custom) == ["1"] and custom["1"]["NumWidth"] == 10 and custom["1"]["NumHeight"] == 6
    cards = deck["ContainedObjects"]
    assert len(cards) == 54 and deck["DeckIDs"] == [c["CardID"] for c in cards] == list(range(100, 154))
    assert [c["Nickname"] for c in cards] == [c.name for c in ALL_CARDS]
    for obj, card in zip(cards, ALL_CARDS, strict=True):
        assert obj["Name"] == "Card" and obj["CustomDeck"] == {"1": custom["1"]}
        assert card.goal.text in obj["Description"] and card.effect_text in obj["Description"]
    sheet = Path(unquote(urlparse(custom["1"]["FaceURL"]).path))
    back = Path(unquote(urlparse(custom["1"]["BackURL"]).path))
    assert custom["1"]["FaceURL"].startswith("file:///") and sheet == (out / "sheet.png").resolve()
    assert Image.open(sheet).size == (10 * 397, 6 * 554) and Image.open(back).size == (397, 554)
    assert (out / "converge-cards.png").is_file()  # (the thumbnail the game shows beside the saved object)
    assert "10 × 6 (3970 × 3324 px)" in said and "Saved Objects" in said


def test_each_card_of_the_sheet_is_where_its_card_id_says(tts: tuple[Path, str]) -> None:
    """Card ``100 + i`` is the i-th place of the sheet, counted along its rows: its frame is in its colour."""
    sheet = Image.open(tts[0] / "sheet.png").convert("RGB")
    palette = card_palette()
    by_id = {c.id: deck for deck in CATALOG.values() for c in deck.cards}
    for i, card in enumerate(ALL_CARDS):
        row, column = divmod(i, 10)
        x = column * 397 + round((1.6 + 1.2) / 63 * 397)
        assert sheet.getpixel((x, row * 554 + 277)) == _rgb(palette.skillset_colour(by_id[card.id].color)), card.id


# ---------------------------------------------------------------------- a user's deck, and mistakes


@pytest.fixture
def tinker_dir(tmp_path: Path) -> Path:
    """A user deck (Tinker: the Alchemist deck renamed, in cyan)."""
    text = (BUILTIN / "alchemist.toml").read_text(encoding="utf-8")
    text = text.replace("Alchemist", "Tinker").replace("ALC", "TIN").replace('color = "magenta"', 'color = "cyan"')
    text = text.replace('name = "', 'name = "Tinker ').replace('set = "Catalysts of Change"\n', "")
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "tinker.toml").write_text(text, encoding="utf-8")
    return folder


def test_a_users_deck_prints_and_goes_to_tts(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                             tinker_dir: Path) -> None:
    out = tmp_path / "print"
    (out / "png").mkdir(parents=True)
    (out / "png" / "ALC1.png").write_bytes(b"an earlier print's card")  # not mixed with this print's
    (out / "png" / "notes.txt").write_text("the designer's own", encoding="utf-8")  # not ours: kept
    code, said, err = run(capsys, "cards", "print", "--deck-dir", str(tinker_dir), "--skillset", "tinker",
                          "--out", str(out))
    assert code == 0 and err == "" and "6 cards" in said
    assert sorted(p.name for p in (out / "png").iterdir()) == ["TIN1.png", "TIN2.png", "TIN3.png", "TIN4.png",
                                                                "TIN5.png", "TIN6.png", "back.png", "notes.txt"]
    assert len(render(out / "cards.pdf", tmp_path / "pages", 20)) == 2
    (tmp_path / "tts").mkdir()
    for name in ("sheet-1.png", "sheet-2.png", "sheet-notes.png"):  # a larger export's sheets, and a user's file
        (tmp_path / "tts" / name).write_bytes(b"an earlier export")
    code, said, err = run(capsys, "cards", "tts", "--deck-dir", str(tinker_dir), "--skillset", "tinker",
                          "--out", str(tmp_path / "tts"))
    assert code == 0 and err == ""
    assert sorted(p.name for p in (tmp_path / "tts").glob("sheet*")) == ["sheet-notes.png", "sheet.png"]
    doc = json.loads((tmp_path / "tts" / "converge-cards.json").read_text(encoding="utf-8"))
    deck = doc["ObjectStates"][0]
    assert deck["ContainedObjects"][0]["Nickname"] == "Tinker Ember Apprentice"
    assert deck["CustomDeck"]["1"]["NumWidth"] == 6 and deck["CustomDeck"]["1"]["NumHeight"] == 1


@pytest.mark.parametrize("command", ["print", "tts"])
def test_an_unknown_skillset_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            command: str) -> None:
    out = tmp_path / "out"
    code, _, err = run(capsys, "cards", command, "--skillset", "healer", "wizard", "--out", str(out))
    assert_user_error(code, err, "unknown skillset 'wizard'", "known: alchemist")
    assert not out.exists()


@pytest.mark.parametrize("command", ["print", "tts"])
def test_an_out_folder_that_cannot_be_made_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          command: str) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    code, _, err = run(capsys, "cards", command, "--out", str(a_file))
    assert_user_error(code, err, f"cannot write to {a_file}: it is a file, not a folder")
    code, _, err = run(capsys, "cards", command, "--out", str(a_file / "cards"))
    assert_user_error(code, err, f"cannot make the folder {a_file / 'cards'}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_card_too_long_for_its_size_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                     tinker_dir: Path) -> None:
    deck = tinker_dir / "tinker.toml"
    deck.write_text(deck.read_text(encoding="utf-8").replace('name = "Tinker Salt Reader"',
                                                             'name = "' + "Very Long Name " * 60 + '"'),
                    encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run(capsys, "cards", "print", "--deck-dir", str(tinker_dir), "--size", "mini", "--out",
                       str(out))
    assert_user_error(code, err, "card TIN3's text", "does not fit on a mini card", "--size poker")
    assert not out.exists()


def test_without_matplotlib_the_error_says_what_to_install(capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # (import matplotlib raises ImportError)
    for command in ("print", "tts"):
        code, _, err = run(capsys, "cards", command, "--out", str(tmp_path / "out"))
        assert_user_error(code, err, "needs matplotlib", "pip install 'converge-game[cards]'")
    assert not (tmp_path / "out").exists()
