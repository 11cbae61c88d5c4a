"""The cards for Tabletop Simulator (``converge cards tts``): a saved object, a custom deck of every card.

Tabletop Simulator builds a custom deck from a sheet of card faces (a grid of at most 10 × 7 cards, one PNG)
and one back image, and the saved object (JSON, its ``DeckCustom`` format) lists each card: its ``CardID``
(the sheet's number × 100 + the card's place on the sheet, counted along the rows from the top left), its
``Nickname`` (the card's name) and its ``Description`` (its whole text, which the game shows on hover). The
images are named by ``file:///`` URLs to where they were written: the game loads them from the disk of the
computer that made them (to share the deck, upload the images and replace the URLs).

A sheet holds at most 69 cards: Tabletop Simulator takes a sheet's last slot for the face a hidden card shows
when the deck is not set to hide cards by their back, so it stays free; more cards make more sheets.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from converge.cards.faces import SIZES, FaceLayout, draw_face
from converge.cards.model import CardSpec, Deck
from converge.cards.palette import card_palette
from converge.cards.printing import FAST_PNG, layouts, pixels, write_back_png

#: The largest sheet Tabletop Simulator reads: 10 cards across, 7 down; the cards a sheet holds (the last
#: slot left free).
MAX_COLUMNS, MAX_ROWS = 10, 7
PER_SHEET = MAX_COLUMNS * MAX_ROWS - 1
#: The cards' resolution on the sheet (dots per inch): a poker card of 397 × 554 px, a full sheet 3970 px
#: wide, within the 4096 px that every graphics card loads.
TTS_DPI = 160
OBJECT_FILE = "converge-cards.json"
#: The thumbnail Tabletop Simulator shows for a saved object: a PNG of the same name beside it.
THUMBNAIL = "converge-cards.png"
BACK_FILE = "back.png"


@dataclass(frozen=True)
class Sheet:
    """One image of card faces: ``cards`` in ``columns`` × ``rows``."""

    path: Path
    cards: tuple[CardSpec, ...]
    columns: int
    rows: int


@dataclass(frozen=True)
class Exported:
    """What :func:`export_tts` wrote."""

    saved_object: Path
    sheets: tuple[Sheet, ...]
    back: Path
    card_pixels: tuple[int, int]


def sheet_shape(cards: int) -> tuple[int, int]:
    """The columns and rows of a sheet of ``cards`` cards: 10 across (fewer for fewer cards), as many rows
    as they need."""
    columns = min(MAX_COLUMNS, cards)
    return columns, math.ceil(cards / columns)


def card_description(card: CardSpec) -> str:
    """A card's whole text, as Tabletop Simulator shows it on hover."""
    return (f"{card.skillset} {card.rank} · {card.id}\nGoal: {card.goal.text} {'★' * card.goal.stars}\n"
            f"{card.effect_text}")


def _guid(text: str) -> str:
    """A GUID of the six hex digits Tabletop Simulator uses, the same for the same card each time."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]


def _transform(y: float = 1.0, flipped: bool = True) -> dict[str, float]:
    """Where the deck lies: at the table's centre, face down (turned 180° about its length)."""
    return {"posX": 0.0, "posY": y, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0 if flipped else 0.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def saved_object(sheets: Sequence[Sheet], back: Path) -> dict[str, Any]:
    """The saved object of a deck of the cards of ``sheets`` (Tabletop Simulator's ``DeckCustom``)."""
    custom = {str(n): {"FaceURL": sheet.path.resolve().as_uri(), "BackURL": back.resolve().as_uri(),
                       "NumWidth": sheet.columns, "NumHeight": sheet.rows, "BackIsHidden": True,
                       "UniqueBack": False, "Type": 0}
              for n, sheet in enumerate(sheets, start=1)}
    cards: list[dict[str, Any]] = []
    for n, sheet in enumerate(sheets, start=1):
        for i, card in enumerate(sheet.cards):
            cards.append({"Name": "Card", "GUID": _guid(card.id), "Transform": _transform(),
                          "Nickname": card.name, "Description": card_description(card), "GMNotes": card.id,
                          "CardID": n * 100 + i, "CustomDeck": {str(n): custom[str(n)]}, "SidewaysCard": False,
                          "Hands": True, "Locked": False, "Grid": True, "Snap": True, "Autoraise": True,
                          "Sticky": True, "Tooltip": True})
    skillsets = list(dict.fromkeys(c.skillset for s in sheets for c in s.cards))
    deck = {"Name": "DeckCustom", "GUID": _guid("deck:" + ",".join(skillsets)), "Transform": _transform(),
            "Nickname": "Converge", "Description": f"{len(cards)} cards: {', '.join(skillsets)}",
            "DeckIDs": [c["CardID"] for c in cards], "CustomDeck": custom, "ContainedObjects": cards,
            "SidewaysCard": False, "Hands": False, "Locked": False, "Grid": True, "Snap": True,
            "Autoraise": True, "Sticky": True, "Tooltip": True}
    return {"SaveName": "", "GameMode": "", "Date": "", "Gravity": 0.5, "PlayArea": 0.5, "Table": "", "Sky": "",
            "Note": "", "Rules": "", "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "TabStates": {},
            "VersionNumber": "", "ObjectStates": [deck]}


def _write_sheet(faces: Sequence[FaceLayout], path: Path) -> Sheet:
    from matplotlib.figure import Figure

    size = SIZES["poker"]
    columns, rows = sheet_shape(len(faces))
    width, height = pixels(size.width, TTS_DPI), pixels(size.height, TTS_DPI)
    fig = Figure(figsize=(columns * width / TTS_DPI, rows * height / TTS_DPI), dpi=TTS_DPI)
    fig.patch.set_facecolor(card_palette().background)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, columns * size.width)
    ax.set_ylim(0, rows * size.height)
    ax.set_axis_off()
    for i, face in enumerate(faces):
        row, column = divmod(i, columns)
        draw_face(ax, column * size.width, (rows - 1 - row) * size.height, face)
    fig.savefig(path, dpi=TTS_DPI, pil_kwargs=FAST_PNG)
    return Sheet(path, tuple(f.card for f in faces), columns, rows)


def _write_thumbnail(face: FaceLayout, path: Path) -> None:
    from matplotlib.figure import Figure

    size = face.size
    dpi = 60  # (a 150 px card: the size of the game's thumbnails)
    fig = Figure(figsize=(pixels(size.width, dpi) / dpi, pixels(size.height, dpi) / dpi), dpi=dpi)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, size.width)
    ax.set_ylim(0, size.height)
    ax.set_axis_off()
    draw_face(ax, 0.0, 0.0, face)
    fig.savefig(path, dpi=dpi)


def export_tts(cards: Sequence[tuple[Deck, CardSpec]], out: Path) -> Exported:
    """The sheets, the back, the thumbnail and the saved object of ``cards`` ((deck, card) pairs) in the folder
    ``out`` (which exists); every card laid out first (a :class:`~converge.cards.faces.TextTooLong` before
    anything is written)."""
    import matplotlib

    size = SIZES["poker"]
    faces = layouts(cards, size)
    parts = [faces[i:i + PER_SHEET] for i in range(0, len(faces), PER_SHEET)]
    for stale in [out / "sheet.png", *out.glob("sheet-*.png")]:  # an earlier export's: the game would show them
        if stale.is_file() and (stale.name == "sheet.png" or stale.stem[6:].isdigit()):
            stale.unlink()
    with matplotlib.rc_context({"font.family": "DejaVu Sans"}):
        sheets = tuple(_write_sheet(part, out / (f"sheet-{n}.png" if len(parts) > 1 else "sheet.png"))
                       for n, part in enumerate(parts, start=1))
        back = out / BACK_FILE
        write_back_png(size, back, TTS_DPI)
        _write_thumbnail(faces[0], out / THUMBNAIL)
    path = out / OBJECT_FILE
    path.write_text(json.dumps(saved_object(sheets, back), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return Exported(path, sheets, back, (pixels(size.width, TTS_DPI), pixels(size.height, TTS_DPI)))
