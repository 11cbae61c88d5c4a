"""Shared test helpers: set up exact states through the public position format."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from converge import Match
from converge.engine.playset import Playset
from converge.engine.sizes import NUM_CARDS

#: The project's checkout: the tests read its sources, docs, examples and benchmarks.
ROOT = Path(__file__).resolve().parent.parent

CATALYSTS = ["alchemist", "mechanist", "archivist"]


def setup(playset: list[str] | None = None, *, hands: tuple[list[str], list[str]] = ([], []),
          factions: tuple[list[str], list[str]] = ([], []), goals: list[str] | None = None,
          discard: list[str] | None = None, deck: list[str] | None = None, artifact: str | None = None,
          holder: int = 0, to_play: int | None = None, **extra: Any) -> Match:
    """A match at the start of a play with exactly the given zones.

    Cards not named go to the deck (after ``deck``, which is top first), except that the first
    unnamed card becomes the artifact when ``artifact`` is not given.
    """
    names = playset or CATALYSTS
    ps = Playset.from_names(names)
    named = [*hands[0], *hands[1], *factions[0], *factions[1], *(goals or []), *(discard or []),
             *(deck or [])]
    if artifact:
        named.append(artifact)
    rest = [ps.card_ids[c] for c in range(NUM_CARDS) if ps.card_ids[c] not in named]
    if artifact is None:
        artifact, rest = rest[0], rest[1:]
    doc: dict[str, Any] = {
        "playset": names, "seed": 0, "artifact_holder": holder, "lead": holder,
        "to_play": holder if to_play is None else to_play,
        "hands": [list(hands[0]), list(hands[1])], "factions": [list(factions[0]), list(factions[1])],
        "goals": list(goals or []), "discard": list(discard or []), "deck": list(deck or []) + rest,
        "artifact": artifact,
    }
    doc.update(extra)
    return Match.from_position(doc)


def finished_matches(count: int, stride: int = 13, seed: int = 4) -> list[Match]:
    """``count`` random matches played to their end, over playsets ``stride`` apart in the catalogue."""
    import random

    from converge.engine import all_playsets

    playsets = all_playsets()
    rng = random.Random(seed)
    out = []
    for k in range(count):
        match = Match.new(list(playsets[(k * stride) % len(playsets)]), seed=k)
        match.random_playout(rng)
        out.append(match)
    return out


def play(match: Match, *moves: str) -> Match:
    """Apply readable moves in order (each must be legal)."""
    for move in moves:
        match.apply(move)
    return match


def zones_of(match: Match) -> list[int]:
    """Every card id in every zone, the resolving card included (for the 'exactly one zone' check)."""
    z = match.zones
    cards = [*z.hands[0], *z.hands[1], *z.deck, z.artifact, *z.discard, *z.goals,
             *z.factions[0], *z.factions[1]]
    if match.turn.active >= 0 and match.turn.active not in cards:
        cards.append(match.turn.active)
    return cards


def others(playset: list[str] | None, *used: str) -> list[str]:
    """The card ids of ``playset`` (catalogue order) not among ``used``: to place every card by hand."""
    ps = Playset.from_names(playset or CATALYSTS)
    return [cid for cid in ps.card_ids if cid not in used]


def in_play(match: Match, card: str, viewer: int = -1) -> dict[str, Any]:
    """The observation entry of ``card`` in a faction, as ``viewer`` sees it (-1: a spectator)."""
    for faction in match.observation(viewer)["factions"]:
        for entry in faction:
            if entry["id"] == card:
                return dict(entry)
    raise AssertionError(f"{card} is not in a faction")


def ids(match: Match, cards: list[int]) -> list[str]:
    """Card ids of a list of card numbers."""
    return [match.playset.card_ids[c] for c in cards]


def load_example(name: str) -> Any:
    """An example script of ``examples/`` as a module."""
    return load_path(ROOT / "examples" / f"{name}.py", f"example_{name}")


def load_path(path: Path, name: str | None = None) -> Any:
    """A Python file that is not in a package (an example, a script of ``docs/``) as a module."""
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    """Run the ``converge`` command in-process; returns (exit code, stdout, stderr)."""
    from converge.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_user_error(code: int, err: str, *fragments: str) -> None:
    """Exit 2, one line on stderr (after argparse's usage, if any), no traceback."""
    assert code == 2
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("converge: error: "), err
    for fragment in fragments:
        assert fragment in last, (fragment, last)


def designer_deck(folder: Path, skillset: str = "Tinkerer", set_name: str = "Home Brew") -> str:
    """A designer's deck in ``folder``, as ``--deck-dir`` loads it: the built-in Alchemist deck renamed (its
    skillset, card ids, card names, its set and colour: a deck may not reuse a built-in's); its skillset's key."""
    from converge.cards.loader import builtin_sources

    text = dict(builtin_sources())["decks/alchemist.toml"]
    prefix = skillset[:3].upper()
    text = (text.replace("Catalysts of Change", set_name).replace("Alchemist", skillset).replace("ALC", prefix)
            .replace('color = "magenta"', 'color = "orange3"').replace('name = "', f'name = "{skillset} '))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{skillset.lower()}.toml").write_text(text, encoding="utf-8")
    return skillset.lower()
