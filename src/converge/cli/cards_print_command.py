"""``converge cards print`` (a print-and-play PDF and a PNG of each card) and ``converge cards tts`` (a deck for
Tabletop Simulator): the cards drawn as the browser draws them, with matplotlib (the ``cards`` extra).

Everything the user gave is checked (the skillsets, the folder) and every card laid out before a file is
written: a mistake writes nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from converge import install_command
from converge.cards.model import CardSpec, Deck
from converge.cli.common import Subcommands, UserError, path_text, shown_path, user_catalog
from converge.engine.playset import catalog_order


def _need_matplotlib(what: str) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError(f"{what} needs matplotlib, which is not installed: {install_command('cards')}") from None


def _chosen_cards(args: argparse.Namespace) -> list[tuple[Deck, CardSpec]]:
    """The cards of the skillsets asked for (``--skillset``, in that order), else of every deck (catalogue
    order)."""
    catalog = user_catalog(args.deck_dir)
    keys = catalog_order(catalog)
    # (`converge cards --skillset S print`: the --skillset of `cards` itself, one skillset)
    asked = args.skillsets or ([args.skillset] if getattr(args, "skillset", None) else [])
    if asked:
        wanted = list(dict.fromkeys(n.strip().lower() for text in asked for n in text.split(",")
                                    if n.strip()))
        unknown = [n for n in wanted if n not in catalog]
        if unknown:
            raise UserError(f"unknown skillset {unknown[0]!r} (known: {', '.join(keys)})")
        keys = wanted
    return [(catalog[k], card) for k in keys for card in catalog[k].cards]


def _out_folder(text: str) -> Path:
    """The folder ``text``, made if need be; a :class:`UserError` when it cannot be (nothing is written)."""
    path = Path(text)
    name = shown_path(text)
    if path.exists() and not path.is_dir():
        raise UserError(f"cannot write to {name}: it is a file, not a folder", path=name)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot make the folder {name}: {exc.strerror or exc}", path=name) from None
    return path


def _too_long(card: CardSpec, size: str) -> UserError:
    bigger = "" if size == "poker" else ", or print them --size poker"
    return UserError(f"card {card.id}'s text does not fit on a {size} card even in smaller type: "
                     f"shorten its name{bigger}")


def cmd_print(args: argparse.Namespace) -> int:
    _need_matplotlib("printing cards")
    from converge.cards.faces import SIZES, TextTooLong
    from converge.cards.printing import PAPERS, PNG_DPI, layouts, page_grid, pixels, print_cards

    cards = _chosen_cards(args)
    size, paper = SIZES[args.size], PAPERS[args.paper]
    try:
        layouts(cards, size)  # (the text checked before the folder is made)
    except TextTooLong as exc:
        raise _too_long(exc.card, args.size) from None
    grid = page_grid(paper, size)
    out = _out_folder(args.out)
    try:
        done = print_cards(cards, size, paper, out)
    except OSError as exc:
        name = shown_path(str(getattr(exc, "filename", "") or args.out))
        raise UserError(f"cannot write {name}: {exc.strerror or exc}", path=name) from None
    print(f"wrote {done.pdf}: {len(cards)} cards, {size.standard}, {grid.columns} × {grid.rows} on each "
          f"{paper.name} page; {done.pages} pages, each page of fronts followed by the page of their backs")
    print(f"wrote {len(done.pngs)} PNGs in {out / 'png'}: one per card and back.png ({PNG_DPI} dpi, "
          f"{pixels(size.width, PNG_DPI)} × {pixels(size.height, PNG_DPI)} px)")
    print("Print at 100% (\"actual size\"), not \"fit to page\"; on both sides of the paper, flipped on the long "
          "edge (the backs are mirrored to land behind their fronts). Cut along the marks.")
    return 0


def cmd_tts(args: argparse.Namespace) -> int:
    _need_matplotlib("the Tabletop Simulator deck")
    from converge.cards.faces import SIZES, TextTooLong
    from converge.cards.printing import layouts
    from converge.cards.tts import export_tts

    cards = _chosen_cards(args)
    try:
        layouts(cards, SIZES["poker"])
    except TextTooLong as exc:
        raise _too_long(exc.card, "poker") from None
    out = _out_folder(args.out)
    try:
        done = export_tts(cards, out)
    except OSError as exc:
        name = shown_path(str(getattr(exc, "filename", "") or args.out))
        raise UserError(f"cannot write {name}: {exc.strerror or exc}", path=name) from None
    width, height = done.card_pixels
    for sheet in done.sheets:
        print(f"wrote {sheet.path}: {len(sheet.cards)} card faces, {sheet.columns} × {sheet.rows} "
              f"({sheet.columns * width} × {sheet.rows * height} px)")
    print(f"wrote {done.back}: the back ({width} × {height} px)")
    print(f"wrote {done.saved_object}: the deck, {len(cards)} cards, its images named by file:/// URLs to this "
          "folder (keep it where it is)")
    print("In Tabletop Simulator: copy the .json and its .png thumbnail into the Saved Objects folder "
          "(Documents/My Games/Tabletop Simulator/Saves/Saved Objects), then Objects > Saved Objects.")
    return 0


def _common(p: argparse.ArgumentParser, out: str) -> None:
    # (default SUPPRESS: `converge cards --deck-dir D print` keeps the D given to `cards`)
    p.add_argument("--deck-dir", action="append", default=argparse.SUPPRESS, metavar="DIR", type=path_text,
                   help="also load the *.toml decks of DIR (or one file); may be repeated")
    p.add_argument("--skillset", dest="skillsets", nargs="+", metavar="NAME",
                   help="only these skillsets (default: every deck)")
    p.add_argument("--out", default=out, metavar="DIR", type=path_text,
                   help=f"the folder to write to, made if need be (default: {out})")


def register(cards_sub: Subcommands) -> None:
    """Add ``print`` and ``tts`` to the subcommands of ``converge cards``."""
    p = cards_sub.add_parser(
        "print", help="a print-and-play PDF of the cards (cut marks, backs), and a PNG of each card",
        description="A print-and-play PDF of the cards (cards.pdf: the cards at their published size, cut "
                    "marks, a page of backs after each page of fronts) and a PNG of each (png/). Print it at "
                    "100%, double-sided, flipped on the long edge. Needs matplotlib: "
                    f"{install_command('cards')}.")
    _common(p, "converge-cards")
    p.add_argument("--size", choices=("poker", "mini"), default="poker",
                   help="poker: 63 × 88 mm (default); mini: Mini European, 44 × 68 mm")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="A4 (default) or US Letter")
    p.set_defaults(func=cmd_print)
    t = cards_sub.add_parser(
        "tts", help="a deck for Tabletop Simulator: a sheet of faces, a back, a saved object",
        description="A deck for Tabletop Simulator: a sheet of card faces (up to 10 × 7), the back and a saved "
                    "object (converge-cards.json) that names them by file:/// URLs. Copy the .json into "
                    "Tabletop Simulator's Saved Objects folder. Needs matplotlib: "
                    f"{install_command('cards')}.")
    _common(t, "converge-tts")
    t.set_defaults(func=cmd_tts)
