"""``converge balance --sweep`` and ``converge balance --value``: the balance checks that play their own
simulations, one per value of a card's parameter or one per card's stand-in, on the same playsets and seeds
(see :mod:`converge.simulation.sweep` and :mod:`converge.simulation.value`)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from converge.cli.common import UserError, user_catalog
from converge.cli.simulation_steps import EXIT_FLAGGED, ProgressBar, asked_playsets, out_dir, user_skillsets
from converge.engine.playset import catalog_order

if TYPE_CHECKING:
    from converge.cards.model import Deck
    from converge.simulation.balance import Criteria
    from converge.simulation.jobs import SimulationSpec
    from converge.simulation.summary_doc import Summary


def _run(args: argparse.Namespace, spec: SimulationSpec, label: str) -> Summary:
    """One simulation of a sweep or a value check, with its progress bar; its summary."""
    from converge.simulation.backends import BackendError
    from converge.simulation.simulate import simulate
    from converge.simulation.summary import summarize

    bar = ProgressBar(not args.no_progress, label)
    try:
        result = simulate(spec, args.backend, args.workers, args.address, args.chunk_size, None, bar)
    except BackendError as exc:
        raise UserError(str(exc)) from None
    finally:
        bar.close()
    return summarize(spec, result.tallies)


def sweep(args: argparse.Namespace, criteria: Criteria) -> int:
    """``balance --sweep``: each value of one card's parameter played on the same playsets and seeds; the
    figure it moves against the value, a table in the terminal, sweep.json and the plot in ``--out``."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from converge.cards.loader import DeckError
    from converge.simulation.jobs import SimulationSpec, catalog_of
    from converge.simulation.sweep import PARTS, parse_sweep, point, sweep_doc, with_value

    if args.summary is not None or args.compare is not None:
        raise UserError("--sweep plays its own simulations: leave out --summary and --compare")
    try:
        sweep = parse_sweep(args.sweep)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    catalog = user_catalog(args.deck_dir)
    owner = next((k for k, deck in catalog.items() for c in deck.cards if c.id == sweep.card), None)
    if owner is None:
        ids = [c.id for k in catalog_order(catalog) for c in catalog[k].cards]
        raise UserError(f"--sweep: no card {sweep.card!r} in the decks (cards: {ids[0]}...{ids[-1]}; "
                        "`converge cards` lists them)")
    chosen = asked_playsets(args, catalog, [owner])
    try:
        base = SimulationSpec.build(chosen, args.n, args.bot1, args.bot2, args.seed, args.deck_dir)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not any(owner in names for names in base.playsets):
        raise UserError(f"--sweep: {sweep.card} is a card of {catalog[owner].skillset}, which none of the "
                        "playsets asked for holds (leave out --playset and --set to play those that hold it)")
    specs = []
    for value in sweep.values:  # every value checked as a deck file is, before anything is played
        try:
            sources = with_value(base.sources, sweep, value)
            catalog_of(sources)
        except (ValueError, DeckError) as exc:
            raise UserError(f"--sweep {sweep.name}={value}: {exc}") from None
        specs.append(replace(base, sources=sources))
    folder = out_dir(args.out)
    sys.stderr.write(f"converge: sweep of {sweep.name} over {len(specs)} values, {len(base.playsets)} playset"
                     f"{'s' if len(base.playsets) != 1 else ''} × {args.n} matches each, the same seeds\n")
    points = [point(_run(args, spec, f"{sweep.name}={value}"), sweep, value, criteria, len(specs))
              for value, spec in zip(sweep.values, specs, strict=True)]
    settings = {"bots": [base.bot1, base.bot2], "matches_per_playset": args.n, "seed": args.seed,
                "playsets": ["/".join(p) for p in base.playsets], "confidence": criteria.confidence}
    (folder / "sweep.json").write_text(json.dumps(sweep_doc(sweep, points, settings), indent=1) + "\n",
                                       encoding="utf-8")
    console = Console(highlight=False)
    t = Table(title=f"{sweep.name}: the {PARTS[sweep.part]} by value ({criteria.confidence:.0%} intervals for "
                    f"the {len(points)} values together)", title_justify="left")
    for col in ("value", "rate", "interval", "observations", "should be", "verdict"):
        t.add_column(col, justify="left" if col in ("should be", "verdict") else "right")
    for p in points:
        verdict = p.verdict + (f" (plays like {p.plays_like}★)" if p.plays_like and p.verdict != "fits" else "")
        t.add_row(str(p.value), "–" if p.rate is None else f"{100 * p.rate:.1f}%",
                  "–" if p.interval is None else f"{100 * p.interval[0]:.1f}-{100 * p.interval[1]:.1f}%",
                  f"{p.observations:,}", p.band_text, verdict)
    console.print(t)
    fitting = [str(p.value) for p in points if p.verdict == "fits"]
    console.print(f"values that fit: {', '.join(fitting) if fitting else 'none'}", highlight=False, markup=False)
    written = [str(folder / "sweep.json")]
    if not args.no_report:
        from converge.simulation.plots import NO_PLOTS, draw_sweep, plots_available

        if plots_available():
            (folder / f"sweep.{args.plots}").write_bytes(draw_sweep(sweep, points, criteria, args.plots))
            written.append(str(folder / f"sweep.{args.plots}"))
        else:
            sys.stderr.write(f"converge: note: {NO_PLOTS}\n")
    console.print(f"wrote {', '.join(written)}", highlight=False, markup=False)
    return 0


def _value_cards(args: argparse.Namespace, catalog: dict[str, Deck], mine: list[str]) -> list[str]:
    """The cards ``--value`` names (``--value`` alone: every card of the user's decks), each checked."""
    if not args.value.strip():
        if not mine:
            raise UserError("--value alone measures the cards of your decks (--deck-dir DIR); without them, "
                            "name the cards, e.g. --value ALC2,ALC5")
        return [c.id for k in mine for c in catalog[k].cards]
    ids = [c.id for k in catalog_order(catalog) for c in catalog[k].cards]
    cards: list[str] = []
    for card in (x.strip() for x in args.value.split(",")):
        if card not in ids:
            raise UserError(f"--value: no card {card!r} in the decks (cards: {ids[0]}...{ids[-1]}; "
                            "`converge cards` lists them)")
        if card not in cards:
            cards.append(card)
    return cards


def card_value(args: argparse.Namespace, criteria: Criteria) -> int:
    """``balance --value``: each card against a plain stand-in on the same playsets and seeds; what holding it
    is worth, a table in the terminal and value.json in ``--out`` (see :mod:`converge.simulation.value`)."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from converge.cards.loader import DeckError
    from converge.simulation.jobs import SimulationSpec, catalog_of
    from converge.simulation.value import FAIR, card_values, stand_in, value_doc

    if args.summary is not None or args.compare is not None or args.sweep is not None:
        raise UserError("--value plays its own simulations: leave out --summary, --compare and --sweep")
    catalog = user_catalog(args.deck_dir)
    cards = _value_cards(args, catalog, user_skillsets(catalog))
    owner = {c.id: k for k, deck in catalog.items() for c in deck.cards}
    decks = [k for k in catalog_order(catalog) if k in {owner[c] for c in cards}]
    try:
        base = SimulationSpec.build(asked_playsets(args, catalog, decks), args.n, args.bot1, args.bot2, args.seed,
                                    args.deck_dir)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    missing = [c for c in cards if not any(owner[c] in names for names in base.playsets)]
    if missing:
        raise UserError(f"--value: {missing[0]} is a card of {catalog[owner[missing[0]]].skillset}, which none of "
                        "the playsets asked for holds (leave out --playset and --set to play those that hold it)")
    specs = {}
    for card in cards:  # every stand-in checked as a deck file is, before anything is played
        try:
            sources = stand_in(base.sources, card)
            catalog_of(sources)
        except (ValueError, DeckError) as exc:
            raise UserError(f"--value {card}: its stand-in is not a valid card: {exc}") from None
        specs[card] = replace(base, sources=sources)
    folder = out_dir(args.out)
    sys.stderr.write(f"converge: the value of {len(cards)} card{'s' if len(cards) != 1 else ''}: the decks as "
                     f"printed, then each card's stand-in, {len(base.playsets)} playset"
                     f"{'s' if len(base.playsets) != 1 else ''} × {args.n} matches each, the same seeds\n")
    printed = _run(args, base, "as printed")
    values = card_values(printed, {card: _run(args, spec, f"{card} plain") for card, spec in specs.items()},
                         criteria)
    settings = {"bots": [base.bot1, base.bot2], "matches_per_playset": args.n, "seed": args.seed,
                "playsets": ["/".join(p) for p in base.playsets], "confidence": criteria.confidence,
                "margin": criteria.value_margin, "min_rounds_dealt": criteria.min_plays}
    (folder / "value.json").write_text(json.dumps(value_doc(values, settings), indent=1) + "\n", encoding="utf-8")
    console = Console(highlight=False)
    t = Table(title=f"What holding each card is worth against a plain card of its deck ({criteria.confidence:.0%} "
                    f"intervals for the {len(values)} cards together; bots {base.bot1} and {base.bot2})",
              title_justify="left")
    for col in ("card", "won when\ndealt it", "won with\na plain", "value", "interval", "above\ndeck", "verdict"):
        t.add_column(col, justify="left" if col in ("card", "verdict") else "right", no_wrap=True)

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    def pts(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:+.1f}"

    for v in values:
        interval = "–" if v.interval is None else f"{pts(v.interval[0])}..{pts(v.interval[1])}"
        t.add_row(v.card, pct(v.rate), pct(v.rate_plain), pts(v.value), interval, pts(v.above_deck),
                  v.verdict.upper() if v.flagged else v.verdict)
    console.print(t)
    console.print(f"value: the round win rate of the player dealt the card minus that of the player dealt its "
                  f"stand-in, in points; rounds dealt: {min(min(v.dealt, v.dealt_plain) for v in values):,} or "
                  "more each", highlight=False, markup=False)
    for v in values:
        if v.verdict != FAIR:
            console.print(f"{v.card}: {v.verdict}: {v.reason(criteria)}", highlight=False, markup=False)
    flagged = [v for v in values if v.flagged]
    console.print(f"flagged: {', '.join(f'{v.card} ({v.verdict})' for v in flagged) if flagged else 'none'}",
                  highlight=False, markup=False)
    console.print(f"wrote {folder / 'value.json'}", highlight=False, markup=False)
    return EXIT_FLAGGED if flagged else 0


__all__ = ["card_value", "sweep"]
