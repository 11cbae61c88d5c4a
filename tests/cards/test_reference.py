"""The deck authors' reference (converge.cards.reference): every registered kind with its parameters, an
example line that loads and prints what the reference says, and docs/card-kinds.md kept in sync."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from converge.cards.loader import COLORS, load_decks
from converge.cards.reference import EXAMPLE_SKILLSET, example_params, reference, toml_line
from converge.engine import register_effect, register_goal
from converge.engine.effects import effect_kinds, unregister_effect
from converge.engine.goals import goal_kinds, unregister_goal
from tests.engine.test_extension import Bury, EvenRanks
from tests.helpers import ROOT, run

DOCS = ROOT / "docs" / "card-kinds.md"


def test_the_docs_page_is_the_generated_reference() -> None:
    assert DOCS.read_text(encoding="utf-8") == reference(markdown=True), \
        "regenerate it: converge cards kinds --markdown > docs/card-kinds.md"


def test_the_docs_list_every_colour_a_deck_may_name() -> None:
    """The colours come from the loader's own list, in the page and in `converge cards kinds`."""
    page = DOCS.read_text(encoding="utf-8")
    colours = page.split("## Deck colours", 1)[1]
    assert [c.strip("`") for c in colours.strip().splitlines()[-1].split(", ")] == list(COLORS)
    assert all(c in reference() for c in COLORS)


def test_cards_kinds_lists_every_registered_kind_with_every_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "cards", "kinds")
    assert code == 0 and err == ""
    blocks = {block.splitlines()[0].split(" — ")[0]: block for block in out.split("\n\n") if block.strip()}
    for kind in [*goal_kinds().values(), *effect_kinds().values()]:
        assert kind.name in blocks, kind.name
        for param in kind.params:
            assert f"  {param.describe()}" in blocks[kind.name].splitlines(), (kind.name, param.name)
    assert f"GOAL KINDS ({len(goal_kinds())})" in out and f"EFFECT KINDS ({len(effect_kinds())})" in out


def _deck_of_examples(goal: str, effect: str) -> str:
    lines = [f'skillset = "{EXAMPLE_SKILLSET}"', 'set = "Reference"']
    for rank in range(1, 7):
        lines += ["[[card]]", f'id = "REF{rank}"', f'name = "Example {rank}"', f"rank = {rank}", goal, effect]
    return "\n".join(lines) + "\n"


@pytest.fixture
def extension() -> Iterator[None]:
    register_effect(Bury())
    register_goal(EvenRanks())
    try:
        yield
    finally:
        unregister_effect("bury")
        unregister_goal("even_ranks")


@pytest.mark.usefixtures("extension")
def test_every_example_line_loads_and_prints_what_the_reference_says() -> None:
    """Each kind's example, on a card of a deck, validates; the card prints the text the reference gives.
    A kind an extension registers is in the reference as soon as it is registered."""
    text = reference()
    assert "bury — keyword Bury" in text and "even_ranks" in text
    plain_goal = toml_line("goal", goal_kinds()["most_cards"], {})
    plain_effect = toml_line("effect", effect_kinds()["recall"], {})
    for field, kinds in (("goal", goal_kinds()), ("effect", effect_kinds())):
        for kind in kinds.values():
            line = toml_line(field, kind, example_params(kind))
            assert f"  example: {line}" in text.splitlines()
            source = _deck_of_examples(*((line, plain_effect) if field == "goal" else (plain_goal, line)))
            decks = load_decks([("reference.toml", source)])
            card = decks[EXAMPLE_SKILLSET.lower()].cards[0]
            printed = card.goal.text if field == "goal" else card.effect_text
            assert f"  prints:  {printed}" in text.splitlines(), (kind.name, printed)
