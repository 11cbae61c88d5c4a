"""Decks are data: the nine built-ins load and are well formed, printed text is generated from the data,
the loader rejects every malformed file naming the file, the card and the field (and never half-loads),
and a user deck (a tenth skillset, "Tinkerer") loads and plays."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converge import ConvergeError, Match, Playset
from converge.cards.loader import DeckError, builtin_sources, dir_sources, load_catalog, load_decks
from converge.cards.model import CardSpec, Effect, Goal
from converge.engine import all_playsets
from converge.engine.actions import SKILLSET_0, string_to_action
from converge.engine.effects import EffectKind, effect_kinds
from converge.engine.goals import GoalKind, goal_kinds
from converge.engine.params import OWN, Param

BUILTIN = ["alchemist", "mechanist", "archivist", "protector", "searcher", "merchant", "delver", "astropath",
           "healer"]

HEADER = 'skillset = "Tinkerer"\nset = "Home Brew"\nkeyword = "Search"\ncolor = "orange3"\n'
TINKERER = [
    {"id": '"TIN1"', "name": '"Cog Whittler"', "rank": "1",
     "goal": '{ kind = "highest_skillset", skillset = "own", stars = 1 }',
     "effect": '{ kind = "search", depth = 1 }'},
    {"id": '"TIN2"', "name": '"Spring Winder"', "rank": "2",
     "goal": '{ kind = "most_skillset", skillset = "Alchemist", stars = 1 }',
     "effect": '{ kind = "search", depth = 2 }'},
    {"id": '"TIN3"', "name": '"Gear Keeper"', "rank": "3",
     "goal": '{ kind = "consecutive_ranks", count = 3, stars = 2 }',
     "effect": '{ kind = "search", depth = 3 }'},
    {"id": '"TIN4"', "name": '"Lever Smith"', "rank": "4",
     "goal": '{ kind = "each_skillset", stars = 2 }',
     "effect": '{ kind = "search", depth = 4 }'},
    {"id": '"TIN5"', "name": '"Bolt Mender"', "rank": "5",
     "goal": '{ kind = "lowest_rank_total", stars = 1 }',
     "effect": '{ kind = "search", depth = 5 }'},
    {"id": '"TIN6"', "name": '"Master Tinker"', "rank": "6",
     "goal": '{ kind = "rank_total", at_least = 17, stars = 3 }',
     "effect": '{ kind = "search", depth = 2 }'},
]


def deck_text(cards: list[dict[str, str]] | None = None, header: str = HEADER) -> str:
    parts = [header]
    for card in TINKERER if cards is None else cards:
        parts.append("\n[[card]]\n" + "".join(f"{k} = {v}\n" for k, v in card.items()))
    return "".join(parts)


def changed(index: int, **fields: str | None) -> list[dict[str, str]]:
    """The Tinkerer cards with card ``index`` (0-based) changed; a field set to None is removed."""
    cards = [dict(c) for c in TINKERER]
    for key, value in fields.items():
        if value is None:
            del cards[index][key]
        else:
            cards[index][key] = value
    return cards


def of_one_kind(effect: str, keyword: str) -> str:
    """The Tinkerer deck with every card's effect ``effect`` (a TOML table), its keyword ``keyword``."""
    return deck_text([c | {"effect": effect} for c in TINKERER], HEADER.replace('"Search"', f'"{keyword}"'))


def renamed(cards: list[dict[str, str]], old: str, new: str) -> list[dict[str, str]]:
    """The cards with ids and names of another deck: ``old`` (the id's prefix) becomes ``new``."""
    return [c | {"id": c["id"].replace(old, new), "name": c["name"].replace('"', f'"{new.capitalize()} ', 1)}
            for c in cards]


def write(folder: Path, text: str, name: str = "tinkerer.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def load_one(text: str) -> CardSpec:
    """Load the built-ins plus one user file; the first Tinkerer card."""
    decks = load_decks([*builtin_sources(), ("user/tinkerer.toml", text)])
    return decks["tinkerer"].cards[0]


def rejected(folder: Path) -> DeckError:
    with pytest.raises(DeckError) as info:
        load_catalog([folder])
    return info.value


def assert_names(error: DeckError, file: Path | str, card: str, field: str) -> None:
    """The error has a problem naming exactly this file, card and field, and its message says so."""
    where = [(p.file, p.card, p.field) for p in error.problems]
    assert (str(file), card, field) in where, where
    text = str(error)
    assert str(file) in text
    if card:
        assert f"card {card}" in text
    if field:
        assert f"field '{field}'" in text


# ---------------------------------------------------------------------------------------------- built-in decks


def test_the_nine_builtin_decks_load():
    catalog = load_catalog()
    assert sorted(catalog) == sorted(BUILTIN)
    ids = [c.id for d in catalog.values() for c in d.cards]
    assert len(ids) == len(set(ids)) == 54
    for key, deck in catalog.items():
        assert deck.key == key and deck.skillset == key.capitalize()
        assert len(deck.cards) == 6
        assert [c.rank for c in deck.cards] == [1, 2, 3, 4, 5, 6]
        assert all(c.skillset == deck.skillset for c in deck.cards)
        assert len({c.name for c in deck.cards}) == 6
        for card in deck.cards:
            assert 1 <= card.goal.stars <= 3
            assert card.goal.kind in GOAL_KINDS and card.effect.kind in EFFECT_KINDS
            assert EFFECT_KINDS[card.effect.kind].keyword == deck.keyword  # each skillset has its keyword
    assert len(all_playsets()) == 84


def test_the_sets_group_the_skillsets():
    catalog = load_catalog()
    sets = {}
    for deck in catalog.values():
        sets.setdefault(deck.set_name, set()).add(deck.key)
    assert sets == {"Catalysts of Change": {"alchemist", "mechanist", "archivist"},
                    "Engines of Progress": {"protector", "searcher", "merchant"},
                    "Sparks of Hope": {"delver", "astropath", "healer"}}


def test_every_goal_and_effect_kind_is_used_by_a_builtin_card():
    cards = [c for d in load_catalog().values() for c in d.cards]
    assert {c.goal.kind for c in cards} == set(GOAL_KINDS)
    assert {c.effect.kind for c in cards} == set(EFFECT_KINDS)


GOAL_KINDS = dict(goal_kinds())
EFFECT_KINDS = dict(effect_kinds())
Kind = EffectKind | GoalKind


def _param(kind: Kind, name: str) -> Param:
    return next(p for p in kind.params if p.name == name)


def _values(kind: Kind, name: str) -> list[object]:
    """Two or more valid values of one parameter."""
    p = _param(kind, name)
    if p.type == "int":
        return [p.low, p.high]
    if p.type == "bool":
        return [False, True]
    if p.type == "choice":
        return list(p.choices)
    return [OWN, "Alchemist"]


def _defaults(kind: Kind) -> dict[str, object]:
    out: dict[str, object] = {p.name: p.default if p.default is not None else _values(kind, p.name)[0]
                              for p in kind.params}
    if kind.name == "trade":
        out["between_factions"] = True  # so that with_hand may be false
    return out


def _toml_table(kind: str, params: dict[str, object], stars: int | None = None) -> str:
    def val(v: object) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else f'"{v}"' if isinstance(v, str) else str(v)
    items = [f'kind = "{kind}"', *(f"{k} = {val(v)}" for k, v in params.items())]
    if stars is not None:
        items.append(f"stars = {stars}")
    return "{ " + ", ".join(items) + " }"


@pytest.mark.parametrize("kind", list(GOAL_KINDS))
def test_every_goal_kind_loads_and_each_parameter_changes_the_printed_text(kind):
    k = GOAL_KINDS[kind]
    base = _defaults(k)
    card = load_one(deck_text(changed(0, goal=_toml_table(kind, base, 2))))
    assert card.goal.kind == kind and card.goal.stars == 2
    assert card.goal.text in card.text and "★★ " in card.text
    for name in base:
        texts = set()
        for value in _values(k, name):
            spec = load_one(deck_text(changed(0, goal=_toml_table(kind, {**base, name: value}, 2))))
            texts.add(spec.text)
            if isinstance(value, int) and not isinstance(value, bool):
                assert str(value) in spec.goal.text
        assert len(texts) >= 2, f"goal {kind}: parameter {name} does not show in the printed text"
    # the stars are printed from the data too
    stars = {load_one(deck_text(changed(0, goal=_toml_table(kind, base, s)))).text.count("★") for s in (1, 2, 3)}
    assert stars == {1, 2, 3}


@pytest.mark.parametrize("kind", list(EFFECT_KINDS))
def test_every_effect_kind_loads_and_each_parameter_changes_the_printed_text(kind):
    k = EFFECT_KINDS[kind]
    base = _defaults(k)
    card = load_one(of_one_kind(_toml_table(kind, base), k.keyword))
    assert card.effect.kind == kind
    assert card.effect_text in card.text and card.effect_text.startswith(k.keyword)
    for name in base:
        texts = set()
        for value in _values(k, name):
            params = {**base, name: value}
            if kind == "trade" and not params["with_hand"] and not params["between_factions"]:
                continue
            texts.add(load_one(of_one_kind(_toml_table(kind, params), k.keyword)).text)
        assert len(texts) >= 2, f"effect {kind}: parameter {name} does not show in the printed text"


def test_printed_text_follows_the_card_data():
    text = deck_text()
    decks = load_decks([*builtin_sources(), ("t.toml", text.replace("depth = 3", "depth = 5"))])
    searcher = decks["tinkerer"].cards[2]
    assert "Search 5" in searcher.text and "top 5 cards" in searcher.text and "3" not in searcher.effect_text
    renamed = load_decks([*builtin_sources(), ("t.toml", text.replace("Gear Keeper", "Gear Queen"))])
    assert renamed["tinkerer"].cards[2].text.startswith("Gear Queen (Tinkerer 3)")
    # the same card data gives the same text; every built-in card's text is made of its parts
    for deck in load_catalog().values():
        for card in deck.cards:
            assert card.text.startswith(f"{card.name} ({card.skillset} {card.rank})")
            assert card.goal.text in card.text and card.effect_text in card.text
            assert card.text.count("★") == card.goal.stars
            other = dataclasses.replace(card, goal=Goal(card.goal.kind, card.goal.params, 4 - card.goal.stars))
            assert (other.text == card.text) == (card.goal.stars == 2)


def test_goal_text_names_the_skillset_own_is_resolved():
    card = load_one(deck_text())
    assert card.goal.params["skillset"] == "Tinkerer"
    assert "Highest Tinkerer" in card.text
    alch = load_one(deck_text(changed(0, goal='{ kind = "fewest_skillset", skillset = "alchemist", stars = 1 }')))
    assert alch.goal.params["skillset"] == "Alchemist" and "Fewest Alchemist" in alch.text


# ---------------------------------------------------------------------------------------------- loader rejections


CARD_CASES = [
    # (description, card index, field changes, card named, field named)
    ("rank 7", 2, {"rank": "7"}, "TIN3", "rank"),
    ("rank 0", 2, {"rank": "0"}, "TIN3", "rank"),
    ("rank as a string", 2, {"rank": '"3"'}, "TIN3", "rank"),
    ("rank as a float", 2, {"rank": "3.0"}, "TIN3", "rank"),
    ("rank as a bool", 2, {"rank": "true"}, "TIN3", "rank"),
    ("unknown goal kind", 1, {"goal": '{ kind = "tallest", stars = 1 }'}, "TIN2", "goal.kind"),
    ("goal without kind", 1, {"goal": "{ stars = 1 }"}, "TIN2", "goal.kind"),
    ("goal not a table", 1, {"goal": '"most cards"'}, "TIN2", "goal"),
    ("unknown effect kind", 1, {"effect": '{ kind = "teleport" }'}, "TIN2", "effect.kind"),
    ("unknown effect parameter", 1, {"effect": '{ kind = "assemble", colour = 2 }'}, "TIN2", "effect.colour"),
    ("unknown goal parameter", 4, {"goal": '{ kind = "most_cards", count = 2, stars = 1 }'}, "TIN5",
     "goal.count"),
    ("effect parameter too high", 2, {"effect": '{ kind = "search", depth = 9 }'}, "TIN3", "effect.depth"),
    ("effect parameter too low", 1, {"effect": '{ kind = "assemble", count = 0 }'}, "TIN2", "effect.count"),
    ("goal parameter out of range", 2, {"goal": '{ kind = "consecutive_ranks", count = 7, stars = 2 }'}, "TIN3",
     "goal.count"),
    ("parameter of the wrong type", 2, {"effect": '{ kind = "search", depth = "3" }'}, "TIN3", "effect.depth"),
    ("bool parameter as a number", 3, {"effect": '{ kind = "trade", between_factions = 1 }'}, "TIN4",
     "effect.between_factions"),
    ("choice out of its choices", 0, {"effect": '{ kind = "convert", skillset = "wild" }'}, "TIN1",
     "effect.skillset"),
    ("missing required parameter", 2, {"effect": '{ kind = "search" }'}, "TIN3", "effect.depth"),
    ("missing required goal parameter", 5, {"goal": '{ kind = "rank_total", stars = 3 }'}, "TIN6",
     "goal.at_least"),
    ("missing name", 2, {"name": None}, "TIN3", "name"),
    ("empty name", 2, {"name": '"  "'}, "TIN3", "name"),
    ("missing rank", 2, {"rank": None}, "TIN3", "rank"),
    ("missing goal", 2, {"goal": None}, "TIN3", "goal"),
    ("missing effect", 2, {"effect": None}, "TIN3", "effect"),
    ("missing id", 2, {"id": None}, "#3", "id"),
    ("bad id", 2, {"id": '"3 gears"'}, "3 gears", "id"),
    ("unknown skillset in a goal", 0, {"goal": '{ kind = "highest_skillset", skillset = "Wizard", stars = 1 }'},
     "TIN1", "goal.skillset"),
    ("duplicate id in the file", 3, {"id": '"TIN3"'}, "TIN3", "id"),
    ("duplicate rank", 3, {"rank": "3"}, "TIN4", "rank"),
    ("stars 0", 2, {"goal": '{ kind = "consecutive_ranks", count = 3, stars = 0 }'}, "TIN3", "goal.stars"),
    ("stars 4", 2, {"goal": '{ kind = "consecutive_ranks", count = 3, stars = 4 }'}, "TIN3", "goal.stars"),
    ("stars missing", 2, {"goal": '{ kind = "consecutive_ranks", count = 3 }'}, "TIN3", "goal.stars"),
    ("stars as a string", 2, {"goal": '{ kind = "consecutive_ranks", count = 3, stars = "2" }'}, "TIN3",
     "goal.stars"),
    ("stars on an effect", 2, {"effect": '{ kind = "search", depth = 3, stars = 1 }'}, "TIN3", "effect.stars"),
    ("a trade that allows nothing", 3, {"effect": '{ kind = "trade", with_hand = false }'}, "TIN4", "effect"),
    ("unknown card field", 1, {"cost": "3"}, "TIN2", "cost"),
]


@pytest.mark.parametrize(("index", "fields", "card", "field"), [c[1:] for c in CARD_CASES],
                         ids=[c[0] for c in CARD_CASES])
def test_a_bad_card_is_rejected_naming_file_card_and_field(tmp_path, index, fields, card, field):
    path = write(tmp_path / "decks", deck_text(changed(index, **fields)))
    assert_names(rejected(tmp_path / "decks"), path, card, field)


DECK_CASES = [
    ("five cards", deck_text(TINKERER[:5]), "", "card"),
    ("seven cards", deck_text([*TINKERER, TINKERER[0] | {"id": '"TIN7"'}]), "", "card"),
    ("no cards", HEADER, "", "card"),
    ("unknown top-level field", 'author = "me"\n' + deck_text(), "", "author"),
    ("bad colour", deck_text(header=HEADER.replace("orange3", "octarine")), "", "color"),
    ("skillset missing", deck_text(header=HEADER.replace('skillset = "Tinkerer"\n', "")), "", "skillset"),
    ("skillset not letters", deck_text(header=HEADER.replace('"Tinkerer"', '"Tinker3r"')), "", "skillset"),
    ("skillset of two words", deck_text(header=HEADER.replace('"Tinkerer"', '"Tin Ker"')), "", "skillset"),
    ("skillset a word of actions", deck_text(header=HEADER.replace('"Tinkerer"', '"Done"')), "", "skillset"),
    ("set not a string", deck_text(header=HEADER.replace('"Home Brew"', "3")), "", "set"),
    ("set name empty", deck_text(header=HEADER.replace('"Home Brew"', '"  "')), "", "set"),
    ("set name too long", deck_text(header=HEADER.replace('"Home Brew"', json.dumps("x" * 41))), "", "set"),
    ("a built-in set misspelt", deck_text(header=HEADER.replace('"Home Brew"', '"catalysts of  change"')), "",
     "set"),
    ("keyword of no effect", deck_text(header=HEADER.replace('"Search"', '"Tinker"')), "", "keyword"),
    ("keyword of an effect no card has", deck_text(header=HEADER.replace('"Search"', '"Guard"')), "",
     "keyword"),
]


@pytest.mark.parametrize(("text", "card", "field"), [c[1:] for c in DECK_CASES], ids=[c[0] for c in DECK_CASES])
def test_a_bad_deck_is_rejected_naming_file_and_field(tmp_path, text, card, field):
    path = write(tmp_path / "decks", text)
    assert_names(rejected(tmp_path / "decks"), path, card, field)


def test_a_deck_error_raised_in_a_worker_process_arrives_whole(tmp_path: Path) -> None:
    """The simulator's workers load the decks again: an error there is pickled back to the command, which
    reports its first problem (it arrived as the characters of its message, one per line: "/")."""
    write(tmp_path / "decks", deck_text(changed(2, rank="9")))
    error = rejected(tmp_path / "decks")
    back = pickle.loads(pickle.dumps(error))
    assert isinstance(back, DeckError) and back.problems == error.problems and str(back) == str(error)


def test_two_cards_of_one_name_are_refused_naming_both(tmp_path: Path) -> None:
    """In one deck, and in two decks (any two may meet in a match): case and spacing make no other name."""
    path = write(tmp_path / "one", deck_text(changed(3, name='"gear  KEEPER"')))
    error = rejected(tmp_path / "one")
    assert_names(error, path, "TIN4", "name")
    assert "'gear  KEEPER' is also the name of card TIN3" in str(error)
    other = renamed(TINKERER, "TIN", "GIZ")
    other[1]["name"] = '"Salt Reader"'  # the Alchemist's ALC3
    path = write(tmp_path / "two", deck_text(other, HEADER.replace("Tinkerer", "Gizmoist")))
    error = rejected(tmp_path / "two")
    assert_names(error, path, "GIZ2", "name")
    assert "'Salt Reader' is also the name of card ALC3 in decks/alchemist.toml" in str(error)
    assert len(error.problems) == 1


def test_each_skillset_has_one_keyword_a_card_of_another_is_refused(tmp_path: Path) -> None:
    """RULES.md: each skillset has one keyword, which its six cards vary in strength. A card of another
    effect is refused, naming it, whether the deck names its keyword or (no keyword field) its first card's."""
    path = write(tmp_path / "named", deck_text(changed(3, effect='{ kind = "assemble", count = 1 }')))
    error = rejected(tmp_path / "named")
    assert [(p.card, p.field) for p in error.problems] == [("TIN4", "effect.kind")]
    assert_names(error, path, "TIN4", "effect.kind")
    assert "its effect is Assemble (assemble), but this is a Search deck: each skillset has one keyword" \
        in str(error)
    unnamed = deck_text(changed(4, effect='{ kind = "guard" }'), HEADER.replace('keyword = "Search"\n', ""))
    write(tmp_path / "unnamed", unnamed)
    error = rejected(tmp_path / "unnamed")
    assert [(p.card, p.field) for p in error.problems] == [("TIN5", "effect.kind")]
    assert "(it names no keyword: its first card, TIN1, has Search)" in str(error)
    assert "tinkerer" in load_catalog([write(tmp_path / "good", deck_text(header=HEADER.replace(
        'keyword = "Search"\n', "")))])  # (one kind and no keyword field: that kind's)


@pytest.mark.parametrize("kind", [k for k, v in EFFECT_KINDS.items() if "max_rank" in (p.name for p in v.params)])
def test_a_rank_limit_prints_as_it_reads(kind: str) -> None:
    """max_rank 1 is "of rank 1" (not "or lower", there is no lower rank); 3 is "of rank 3 or lower"; 6 is
    no limit."""
    k = EFFECT_KINDS[kind]
    base = _defaults(k)

    def text(rank: int) -> str:
        return load_one(of_one_kind(_toml_table(kind, {**base, "max_rank": rank}), k.keyword)).effect_text

    assert " of rank 1 " in text(1) and "or lower" not in text(1)
    assert " of rank 3 or lower " in text(3)
    assert "of rank" not in text(6)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aDoneplyTs -_1é"), min_size=1, max_size=12),
       st.text(alphabet=st.sampled_from("aDoneplyTs -_1é"), min_size=1, max_size=8))
def test_a_deck_that_loads_can_be_named_by_actions(skillset: str, card_id: str) -> None:
    """Any skillset name and card id the validator accepts, the action language reads back (the line mode, the
    JSON mode and the server read actions as words): a name it could not read is refused with the reason."""
    text = deck_text(changed(0, id=json.dumps(card_id)), HEADER.replace('"Tinkerer"', json.dumps(skillset)))
    try:
        deck = next(d for d in load_decks([*builtin_sources(), ("t.toml", text)]).values() if d.source == "t.toml")
    except DeckError as exc:
        assert all(p.field in ("skillset", "id") and p.message for p in exc.problems), exc
        return
    ids = {c.id.upper(): i for i, c in enumerate(deck.cards)}
    assert string_to_action(card_id, ids, (deck.skillset,)) == ids[card_id.upper()]
    assert string_to_action(skillset, ids, (deck.skillset,)) == SKILLSET_0


def test_bad_toml_is_rejected_naming_the_file_and_line(tmp_path):
    path = write(tmp_path / "decks", deck_text().replace('rank = 4', 'rank = = 4'))
    error = rejected(tmp_path / "decks")
    assert [(p.file, p.card, p.field) for p in error.problems] == [(str(path), "", "")]
    assert "not valid TOML" in str(error) and re.search(r"line \d+", str(error))


def test_every_problem_of_a_file_is_listed(tmp_path):
    cards = changed(0, rank="9")
    cards[2]["effect"] = '{ kind = "search", depth = 0 }'
    cards[4]["name"] = '""'
    path = write(tmp_path / "decks", 'author = "me"\n' + deck_text(cards))
    error = rejected(tmp_path / "decks")
    found = {(p.card, p.field) for p in error.problems}
    assert {("TIN1", "rank"), ("TIN3", "effect.depth"), ("TIN5", "name"), ("", "author")} <= found
    assert all(p.file == str(path) for p in error.problems)


def test_a_card_id_used_by_a_builtin_deck_is_rejected(tmp_path):
    path = write(tmp_path / "decks", deck_text(changed(0, id='"ALC1"')))
    error = rejected(tmp_path / "decks")
    assert_names(error, path, "ALC1", "id")
    assert "alchemist.toml" in str(error)


def test_a_card_id_used_in_two_user_files_is_rejected(tmp_path):
    write(tmp_path / "decks", deck_text(), "a_tinkerer.toml")
    other = renamed(TINKERER, "TIN", "GIZ")
    other[5]["id"] = '"TIN6"'
    path = write(tmp_path / "decks", deck_text(other, HEADER.replace("Tinkerer", "Gizmoist")), "b_gizmoist.toml")
    error = rejected(tmp_path / "decks")
    assert_names(error, path, "TIN6", "id")
    assert "a_tinkerer.toml" in str(error)


def test_a_skillset_defined_twice_is_rejected(tmp_path):
    write(tmp_path / "decks", deck_text(), "a.toml")
    other = [dict(c, id=c["id"].replace("TIN", "TNK")) for c in TINKERER]
    path = write(tmp_path / "decks", deck_text(other, HEADER.replace('"Tinkerer"', '"tinkerer"')), "b.toml")
    error = rejected(tmp_path / "decks")
    assert_names(error, path, "", "skillset")
    assert "a.toml" in str(error)


def test_a_user_deck_may_not_reuse_a_builtin_skillset_name(tmp_path):
    path = write(tmp_path / "decks", deck_text(header=HEADER.replace("Tinkerer", "Alchemist")))
    error = rejected(tmp_path / "decks")
    assert_names(error, path, "", "skillset")


def test_a_folder_with_one_bad_file_loads_nothing(tmp_path):
    folder = tmp_path / "decks"
    write(folder, deck_text(), "tinkerer.toml")
    gizmo = renamed(TINKERER, "TIN", "GIZ")
    write(folder, deck_text(gizmo, HEADER.replace("Tinkerer", "Gizmoist")), "gizmoist.toml")
    assert sorted(load_catalog([folder])) == sorted([*BUILTIN, "tinkerer", "gizmoist"])
    bad = write(folder, deck_text(renamed(changed(2, rank="7"), "TIN", "BRK")).replace("Tinkerer", "Broken"),
                "broken.toml")
    error = rejected(folder)
    assert {p.file for p in error.problems} == {str(bad)}
    # nothing of the folder is usable: not the good decks either
    with pytest.raises(DeckError):
        Playset.from_names(["alchemist", "mechanist", "tinkerer"], deck_dirs=[folder])
    with pytest.raises(DeckError):
        Match.new(["alchemist", "mechanist", "tinkerer"], seed=1, deck_dirs=[folder])
    # the built-ins are unaffected, and the folder loads again once the bad file is gone
    assert sorted(load_catalog()) == sorted(BUILTIN)
    bad.unlink()
    assert "tinkerer" in load_catalog([folder])


def test_a_missing_or_empty_folder_is_an_error(tmp_path):
    with pytest.raises(DeckError) as info:
        load_catalog([tmp_path / "nowhere"])
    assert str(tmp_path / "nowhere") in str(info.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DeckError) as info:
        dir_sources(tmp_path / "empty")
    assert "no *.toml" in str(info.value)


def test_dir_sources_reads_one_file_or_a_folder(tmp_path):
    path = write(tmp_path / "decks", deck_text())
    write(tmp_path / "decks", "not a deck", "notes.txt")
    assert dir_sources(tmp_path / "decks") == [(str(path), deck_text())]
    assert dir_sources(path) == [(str(path), deck_text())]
    assert "tinkerer" in load_catalog([path])


# ---------------------------------------------------------------------------------------------- a user deck plays


@pytest.fixture
def tinkerer_dir(tmp_path: Path) -> Path:
    write(tmp_path / "mydecks", deck_text())
    return tmp_path / "mydecks"


def test_a_user_deck_loads_and_plays(tinkerer_dir):
    ps = Playset.from_names(["alchemist", "mechanist", "tinkerer"], deck_dirs=[tinkerer_dir])
    assert ps.skillsets == ("Alchemist", "Mechanist", "Tinkerer")
    assert ps.card_ids[12:] == ("TIN1", "TIN2", "TIN3", "TIN4", "TIN5", "TIN6")
    assert ps.card(12).goal.params["skillset"] == "Tinkerer"
    effects = set()
    for seed in range(30):
        match = Match.new(ps, seed=seed)
        rng = random.Random(seed)
        while not match.is_terminal:
            action = rng.choice(match.legal_actions())
            if match.turn.phase == 1 and action == 18:
                effects.add(match.playset.card(match.history[-1]).effect.kind)
            match.apply(action)
        assert match.winner in (0, 1)
        again = Match.replay(match.record(), deck_dirs=[tinkerer_dir])
        assert again.observation(0) == match.observation(0)
    assert effects == {"convert", "assemble", "search"}


def test_a_user_deck_by_names_and_in_every_playset(tinkerer_dir):
    match = Match.new(["Tinkerer", "healer", "merchant"], seed=3, deck_dirs=[tinkerer_dir])
    assert match.playset.skillsets == ("Merchant", "Healer", "Tinkerer")
    match.random_playout(random.Random(3))
    assert match.is_terminal
    catalog = load_catalog([tinkerer_dir])
    combos = all_playsets(catalog)
    assert len(combos) == 120 and sum("tinkerer" in c for c in combos) == 36
    with pytest.raises(Exception, match="tinkerer"):
        Match.new(["alchemist", "mechanist", "tinkerer"], seed=1)  # not without its deck folder


def test_a_goal_naming_a_skillset_outside_the_playset_can_never_be_won(tinkerer_dir):
    """TIN2's goal is "Most Alchemist"; in a playset without Alchemists nobody fulfils it."""
    ps = Playset.from_names(["healer", "merchant", "tinkerer"], deck_dirs=[tinkerer_dir])
    tin2 = ps.card_ids.index("TIN2")
    for seed in range(20):
        match = Match.new(ps, seed=seed)
        rng = random.Random(seed)
        while not match.is_terminal:
            match.apply(rng.choice(match.legal_actions()))
            for item in match.score_breakdown(0):
                if item["goal"] == "TIN2":
                    assert item["winners"] == []
    assert ps.card(tin2).goal.text == "Most Alchemist"


def test_the_record_of_a_position_with_user_decks_replays(tinkerer_dir):
    """A match remembers its deck folders: its record can be made (and replayed with the same folders)."""
    start = Match.new(["alchemist", "mechanist", "tinkerer"], seed=4, deck_dirs=[tinkerer_dir])
    match = Match.from_position(start.position(), deck_dirs=[tinkerer_dir])
    assert match.playset.deck_dirs == (str(tinkerer_dir),)
    match.random_playout(random.Random(4), rounds=1)
    record = match.record()
    assert Match.replay(record, [tinkerer_dir]).position() == match.position()


def test_deck_errors_are_engine_errors(tmp_path):
    write(tmp_path / "decks", "skillset = 3")
    with pytest.raises(ConvergeError):
        load_catalog([tmp_path / "decks"])
    assert issubclass(DeckError, ConvergeError) and issubclass(DeckError, ValueError)


def test_card_specs_are_immutable():
    card = load_catalog()["alchemist"].cards[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = 3  # type: ignore[misc]
    assert isinstance(card.effect, Effect)


def test_every_error_of_a_file_is_reported_in_one_run_none_hides_another(tmp_path: Path) -> None:
    """What one error used to hide: a duplicate rank hid an id taken by a built-in deck, and an id that is
    an action word hid a skillset defined twice."""
    cards = changed(3, rank="3", id='"ALC1"')  # a duplicate rank, and the Alchemist's first card's id
    cards[0]["id"] = '"done"'  # a word of the action language
    path = write(tmp_path / "decks", deck_text(cards, HEADER.replace('"Tinkerer"', '"Alchemist"')))
    error = rejected(tmp_path / "decks")
    for card, field in (("ALC1", "rank"), ("ALC1", "id"), ("done", "id"), ("", "skillset")):
        assert_names(error, path, card, field)


def test_an_unknown_kind_or_parameter_is_answered_with_the_closest_known_names(tmp_path: Path) -> None:
    path = write(tmp_path / "decks", deck_text(changed(1, goal='{ kind = "highest_rnak", stars = 1 }',
                                                         effect='{ kind = "assemble", cuont = 2 }')))
    text = str(rejected(tmp_path / "decks"))
    assert (f"{path}: card TIN2: field 'goal.kind': unknown goal kind 'highest_rnak' (did you mean highest_rank"
            in text)
    assert "field 'effect.cuont': unknown parameter for assemble (did you mean count?)" in text
    far = write(tmp_path / "far", deck_text(changed(1, effect='{ kind = "zzzzqqq" }')))
    message = next(p.message for p in rejected(tmp_path / "far").problems if p.field == "effect.kind")
    assert str(far) and "did you mean" not in message
    assert all(kind in message for kind in effect_kinds())  # the whole list, not cut in the middle of a name
