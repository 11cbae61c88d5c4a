"""Load skillset decks from TOML files, validating everything before anything is returned.

A deck file holds one skillset::

    skillset = "Alchemist"
    set = "Catalysts of Change"
    keyword = "Convert"
    color = "magenta"

    [[card]]
    id = "ALC1"
    name = "Apprentice Transmuter"
    rank = 1
    goal = { kind = "highest_skillset", skillset = "own", stars = 1 }
    effect = { kind = "convert", duration = "turn" }

Errors name the file, the card and the field; every error of every file is reported in one run, and a file
with any error is never half-loaded. ``keyword`` names the deck's effect, the keyword of its cards' effect
kind. ``converge cards kinds`` lists every goal and effect kind with its parameters.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from converge.cards.model import CardSpec, Deck, Effect, Goal
from converge.engine.actions import RESERVED_WORDS
from converge.engine.effects import EffectKind, effect_kinds
from converge.engine.errors import ConvergeError, cut, quote
from converge.engine.goals import GoalKind, goal_kinds
from converge.engine.params import OWN, ParamValue
from converge.engine.sizes import DECK_SIZE, RANKS

_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,15}")
_SKILLSET = re.compile(r"[A-Za-z]{1,24}")  # one word: the action language names a skillset by one word
_DECK_KEYS = {"skillset", "set", "keyword", "color", "card"}
_CARD_KEYS = {"id", "name", "rank", "goal", "effect"}
#: The colours a deck may name (the terminal's names: rich's); docs/card-kinds.md lists them from here.
COLORS = ("red", "green", "yellow", "blue", "magenta", "cyan", "white", "bright_red", "bright_green",
          "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan", "orange3", "purple", "gold3")
DEFAULT_COLOR = "white"


@dataclass(frozen=True)
class DeckProblem:
    """One thing wrong in a deck file: where it is and what is wrong."""

    file: str
    card: str
    field: str
    message: str

    def __str__(self) -> str:
        where = cut(self.file, 240)
        if self.card:
            where += f": card {cut(self.card, 20)}"
        if self.field:
            where += f": field '{cut(self.field, 40)}'"
        return f"{where}: {cut(self.message, 240)}"


class DeckError(ConvergeError):
    """A deck file (or a set of them) is invalid; ``problems`` lists every error found."""

    def __init__(self, problems: list[DeckProblem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    def __reduce__(self) -> tuple[type[DeckError], tuple[list[DeckProblem]]]:
        # rebuilt from its problems, not from its message: raised in a worker process, it reaches the command
        # that started the worker whole (rebuilt from the message, it read as the message's characters)
        return DeckError, (self.problems,)


class _Collector:
    def __init__(self, file: str):
        self.file = file
        self.problems: list[DeckProblem] = []

    def add(self, card: str, field: str, message: str) -> None:
        self.problems.append(DeckProblem(self.file, card, field, message))


def _check_params(kind: EffectKind | GoalKind, raw: Mapping[str, object], field: str, card: str, out: _Collector,
                  skillsets: set[str] | None) -> dict[str, ParamValue]:
    params: dict[str, ParamValue] = {}
    for name in raw:
        if name in ("kind", "stars"):
            continue
        if not any(p.name == name for p in kind.params):
            allowed = ", ".join(p.name for p in kind.params) or "none"
            hint = did_you_mean(name, [p.name for p in kind.params])
            out.add(card, f"{field}.{name}", f"unknown parameter for {kind.name}{hint} (allowed: {allowed})")
    for p in kind.params:
        where = f"{field}.{p.name}"
        if p.name not in raw:
            if p.default is None:
                out.add(card, where, f"missing required parameter of {kind.name}")
            else:
                params[p.name] = p.default
            continue
        value, problem = p.check(raw[p.name], skillsets)
        if problem:
            out.add(card, where, problem)
        elif value is not None:
            params[p.name] = value
    if len(params) == len(kind.params):
        problem = kind.check(params)
        if problem:
            out.add(card, field, problem)
    return params


def _parse_card(raw: object, index: int, skillset: str, out: _Collector,
                skillsets: set[str] | None) -> CardSpec | None:
    label = f"#{index + 1}"
    if not isinstance(raw, dict):
        out.add(label, "", "must be a table")
        return None
    if isinstance(raw.get("id"), str):
        label = raw["id"]
    before = len(out.problems)
    for key in raw:
        if key not in _CARD_KEYS:
            out.add(label, key, f"unknown field (allowed: {', '.join(sorted(_CARD_KEYS))})")
    for key in sorted(_CARD_KEYS):
        if key not in raw:
            out.add(label, key, "missing")
    card_id, name, rank = raw.get("id"), raw.get("name"), raw.get("rank")
    if "id" in raw and (not isinstance(card_id, str) or not _ID.fullmatch(card_id)):
        out.add(label, "id", "must be 1-16 letters, digits, '-' or '_' starting with a letter, "
                             f"got {quote(card_id)}")
    elif isinstance(card_id, str) and card_id.lower() in RESERVED_WORDS:
        out.add(label, "id", f"{card_id!r} is a word of the action language (an action could not name the card)")
    if "name" in raw and (not isinstance(name, str) or not name.strip()):
        out.add(label, "name", "must be a non-empty string")
    if "rank" in raw and (isinstance(rank, bool) or not isinstance(rank, int) or rank not in RANKS):
        out.add(label, "rank", f"must be an integer from 1 to 6, got {quote(rank)}")
    goal = _parse_goal(raw.get("goal"), label, skillset, out, skillsets) if "goal" in raw else None
    effect = _parse_effect(raw.get("effect"), label, out) if "effect" in raw else None
    if len(out.problems) > before or goal is None or effect is None:
        return None
    assert isinstance(card_id, str) and isinstance(name, str) and isinstance(rank, int)
    return CardSpec(card_id, name.strip(), skillset, rank, goal, effect)


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """``" (did you mean x or y?)"`` for the known names closest to ``name``, or ``""`` when none is close.

    >>> did_you_mean("highest_rnak", ["highest_rank", "lowest_rank", "most_skillset"])
    ' (did you mean highest_rank or lowest_rank?)'
    >>> did_you_mean("tallest", ["highest_rank", "most_cards"])
    ''
    """
    if not isinstance(name, str):
        return ""
    close = difflib.get_close_matches(name.strip().lower()[:64], list(known), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _kind_name(raw: object, field: str, label: str, table: Mapping[str, object], out: _Collector) -> str | None:
    if not isinstance(raw, dict):
        out.add(label, field, "must be a table with a 'kind'")
        return None
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in table:
        hint = did_you_mean(kind, table) or f" (known: {', '.join(table)}; `converge cards kinds` describes them)"
        out.add(label, f"{field}.kind", f"unknown {field} kind {quote(kind)}{hint}")
        return None
    return kind


def _parse_goal(raw: object, label: str, skillset: str, out: _Collector,
                skillsets: set[str] | None) -> Goal | None:
    name = _kind_name(raw, "goal", label, goal_kinds(), out)
    if name is None or not isinstance(raw, dict):  # (a table whenever it names a kind)
        return None
    kind = goal_kinds()[name]
    stars = raw.get("stars")
    before = len(out.problems)
    if isinstance(stars, bool) or not isinstance(stars, int) or not 1 <= stars <= 3:
        out.add(label, "goal.stars", f"must be an integer from 1 to 3, got {quote(stars)}")
    params = _check_params(kind, raw, "goal", label, out, skillsets)
    if len(out.problems) > before:
        return None
    assert isinstance(stars, int)  # (checked above: else a problem was added)
    if params.get("skillset") == OWN:
        params["skillset"] = skillset
    elif isinstance(params.get("skillset"), str):
        params["skillset"] = str(params["skillset"]).capitalize()
    return Goal(kind.name, params, int(stars))


def _parse_effect(raw: object, label: str, out: _Collector) -> Effect | None:
    name = _kind_name(raw, "effect", label, effect_kinds(), out)
    if name is None or not isinstance(raw, dict):  # (a table whenever it names a kind)
        return None
    kind = effect_kinds()[name]
    before = len(out.problems)
    if "stars" in raw:
        out.add(label, "effect.stars", "stars belong to the goal")
    params = _check_params(kind, raw, "effect", label, out, None)
    if len(out.problems) > before:
        return None
    return Effect(kind.name, params)


@dataclass
class _Checked:
    """What one deck file gave, errors and all: its skillset name (None when invalid), the cards that are
    valid on their own, and every problem found in the file alone."""

    skillset: str | None
    cards: list[CardSpec]
    problems: list[DeckProblem]
    deck: Deck | None


#: The sets of the built-in decks: a deck may start a set of its own, but not misspell one of these.
KNOWN_SETS = ("Catalysts of Change", "Engines of Progress", "Sparks of Hope")
MAX_SET_NAME = 40


def _set_key(name: str) -> str:
    return " ".join(name.lower().split())


def name_key(name: str) -> str:
    """What makes two card names the same to a player: case and spacing aside.

    >>> name_key("  Salt   reader") == name_key("Salt Reader")
    True
    """
    return " ".join(name.casefold().split())


def _check_deck_fields(data: Mapping[str, object], cards: list[CardSpec], out: _Collector) -> None:
    """The deck's own fields against its cards: the set's name, and the keyword, which names the deck's
    effect: each skillset has one keyword effect, which its six cards vary in strength (RULES.md, "Discard
    effects"), so a card whose effect is another keyword's is refused."""
    set_name = data.get("set")
    if "set" in data and not isinstance(set_name, str):
        out.add("", "set", "must be a string")
    elif isinstance(set_name, str):
        if not set_name.strip() or len(set_name) > MAX_SET_NAME or not set_name.isprintable():
            out.add("", "set", f"must be a name of 1 to {MAX_SET_NAME} printable characters, "
                               f"got {quote(set_name)}")
        else:
            near = [k for k in KNOWN_SETS if _set_key(k) == _set_key(set_name) and k != set_name]
            if near:
                out.add("", "set", f"{set_name!r} looks like the built-in set {near[0]!r}: spell it as the "
                                   "built-in decks do, or give your set a name of its own")
    keyword = data.get("keyword")
    if "keyword" in data and not isinstance(keyword, str):
        out.add("", "keyword", "must be a string")
        keyword = None
    kinds = sorted({c.effect.kind for c in cards})
    if isinstance(keyword, str) and kinds:
        by_keyword = {k.keyword.lower(): k.name for k in effect_kinds().values()}
        named = by_keyword.get(keyword.strip().lower())
        if named is None:
            mine = ", ".join(repr(effect_kinds()[k].keyword) for k in kinds)
            out.add("", "keyword", f"{quote(keyword)} is no effect's keyword (the keyword names the deck's "
                                   f"effect; its cards': {mine})")
        elif named not in kinds:
            out.add("", "keyword", f"{keyword!r} is the keyword of the {named} effect, which no card of the deck "
                                   f"has (its cards: {', '.join(kinds)})")
        else:
            _check_one_keyword(cards, named, "", out)
    elif "keyword" not in data and len(kinds) > 1:
        first = cards[0]
        _check_one_keyword(cards, first.effect.kind, f" (it names no keyword: its first card, {first.id}, has "
                                                     f"{effect_kinds()[first.effect.kind].keyword})", out)


def _check_one_keyword(cards: list[CardSpec], kind: str, how: str, out: _Collector) -> None:
    """Each card's effect is of the deck's one effect kind ``kind`` (``how``: how the deck says it, when its
    ``keyword`` field does not)."""
    keyword = effect_kinds()[kind].keyword
    for card in cards:
        if card.effect.kind != kind:
            own = effect_kinds()[card.effect.kind].keyword
            out.add(card.id, "effect.kind",
                    f"its effect is {own} ({card.effect.kind}), but this is a {keyword} deck{how}: each skillset "
                    f"has one keyword effect, which its six cards vary in strength (give it a {kind} effect, or "
                    f"move it to a {own} deck)")


def _check_deck(data: Mapping[str, object], file: str, skillsets: set[str] | None) -> _Checked:
    out = _Collector(file)
    for key in data:
        if key not in _DECK_KEYS:
            out.add("", key, f"unknown field (allowed: {', '.join(sorted(_DECK_KEYS))})")
    raw_skillset = data.get("skillset")
    name: str | None = None
    if not isinstance(raw_skillset, str) or not _SKILLSET.fullmatch(raw_skillset):
        out.add("", "skillset", "must be one word of letters, at most 24 (actions name a skillset by one word), "
                                f"got {quote(raw_skillset)}")
    elif raw_skillset.lower() in RESERVED_WORDS:
        out.add("", "skillset", f"{raw_skillset!r} is a word of the action language (an action could not name it)")
    else:
        name = raw_skillset.capitalize()
    skillset = name or "?"
    color = data.get("color", DEFAULT_COLOR)
    if color not in COLORS:
        out.add("", "color", f"must be one of {', '.join(COLORS)}, got {quote(color)}")
    raw_cards = data.get("card")
    cards: list[CardSpec] = []
    if not isinstance(raw_cards, list):
        out.add("", "card", f"missing: a deck needs {DECK_SIZE} [[card]] tables")
        raw_cards = []
    elif len(raw_cards) != DECK_SIZE:
        out.add("", "card", f"a deck has exactly {DECK_SIZE} cards, found {len(raw_cards)}")
    for i, raw in enumerate(raw_cards):
        card = _parse_card(raw, i, skillset, out, skillsets)
        if card is not None:
            cards.append(card)
    seen_ids: set[str] = set()
    seen_ranks: dict[int, str] = {}
    seen_names: dict[str, str] = {}
    for card in cards:
        if card.id.upper() in seen_ids:
            out.add(card.id, "id", "duplicate id in this deck (ids are compared ignoring case)")
        seen_ids.add(card.id.upper())
        if name_key(card.name) in seen_names:
            out.add(card.id, "name", f"{card.name!r} is also the name of card {seen_names[name_key(card.name)]}: "
                                     "players tell cards apart by name (names are compared ignoring case and "
                                     "spaces)")
        seen_names.setdefault(name_key(card.name), card.id)
        if card.rank in seen_ranks:
            out.add(card.id, "rank", f"rank {card.rank} is also used by {seen_ranks[card.rank]}")
        seen_ranks[card.rank] = card.id
    _check_deck_fields(data, cards, out)
    deck = None
    if not out.problems:
        deck = Deck(skillset, str(data.get("set", "")), str(data.get("keyword", "")), str(color),
                    tuple(sorted(cards, key=lambda c: c.rank)), file)
    return _Checked(name, cards, out.problems, deck)


def _read_toml(path: str, text: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeckError([DeckProblem(path, "", "", f"not valid TOML: {exc}")]) from None
    except RecursionError:
        raise DeckError([DeckProblem(path, "", "", "not valid TOML: nested too deeply")]) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise DeckError([DeckProblem(path, "", "", f"not valid TOML: {quote(str(exc), 80)}")]) from None


def _raw_skillset(data: Mapping[str, object]) -> str | None:
    name = data.get("skillset")
    return name.strip().lower() if isinstance(name, str) else None


def load_decks(sources: Iterable[tuple[str, str]]) -> dict[str, Deck]:
    """Validate ``(file name, TOML text)`` pairs as one catalogue; all or nothing.

    Goal parameters may name any skillset of the catalogue; skillset names and card ids must be
    unique across it (a file identical to one already loaded, such as a copy of a built-in deck, is
    the same deck, not a second one). Raises :class:`DeckError` with every problem found.
    """
    problems: list[DeckProblem] = []
    parsed: list[tuple[str, str, dict[str, object]]] = []
    for path, text in sources:
        try:
            parsed.append((path, text, _read_toml(path, text)))
        except DeckError as exc:
            problems.extend(exc.problems)
    known = {name for _, _, data in parsed if (name := _raw_skillset(data))}
    decks: dict[str, Deck] = {}
    skillset_files: dict[str, tuple[str, str]] = {}  # skillset key -> (file, text)
    card_files: dict[str, str] = {}
    card_names: dict[str, tuple[str, str]] = {}  # name key -> (card id, file)
    for path, text, data in parsed:
        checked = _check_deck(data, path, known)
        problems.extend(checked.problems)
        # the checks across files run on whatever the file gave, so one error does not hide another
        if checked.skillset is not None:
            key = checked.skillset.lower()
            if key in skillset_files and skillset_files[key][1] == text:
                continue  # (an identical file is the same deck)
            if key in skillset_files:
                problems.append(DeckProblem(path, "", "skillset", f"skillset {checked.skillset} is also "
                                                                  f"defined in {skillset_files[key][0]}"))
            else:
                skillset_files[key] = (path, text)
        for card in checked.cards:
            if card.id.upper() in card_files:
                problems.append(DeckProblem(path, card.id, "id",
                                            f"duplicate id: also in {card_files[card.id.upper()]}"))
            card_files[card.id.upper()] = path
            other = card_names.setdefault(name_key(card.name), (card.id, path))
            if other[1] != path:  # (the same file's clashes are its own check's)
                problems.append(DeckProblem(path, card.id, "name",
                                            f"{card.name!r} is also the name of card {other[0]} in {other[1]}: "
                                            "any two decks may meet in a match, where players tell cards "
                                            "apart by name (names are compared ignoring case and spaces)"))
        if checked.deck is not None:
            decks[checked.deck.key] = checked.deck
    for key, (path, _) in skillset_files.items():  # an action word names a card id before a skillset
        if key.upper() in card_files:
            problems.append(DeckProblem(path, "", "skillset", f"skillset {key.capitalize()} has the name of "
                                                              f"card {key.upper()}"))
    if problems:
        raise DeckError(problems)
    return decks


def builtin_sources() -> list[tuple[str, str]]:
    """The nine decks shipped with the package, as (name, text) pairs."""
    folder = resources.files("converge.cards") / "decks"
    return sorted((f"decks/{f.name}", f.read_text(encoding="utf-8"))
                  for f in folder.iterdir() if f.name.endswith(".toml"))


def dir_sources(path: str | Path) -> list[tuple[str, str]]:
    """Every ``*.toml`` file of a folder (or one file), as (path, text) pairs."""
    p = Path(path)
    if p.is_file():
        files = [p]
    elif p.is_dir():
        files = sorted(p.glob("*.toml"))
        if not files:
            raise DeckError([DeckProblem(str(p), "", "", "no *.toml deck files in this folder")])
    else:
        raise DeckError([DeckProblem(str(p), "", "", "no such file or folder")])
    out = []
    for f in files:
        try:
            out.append((str(f), f.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise DeckError([DeckProblem(str(f), "", "", f"cannot read: {exc}")]) from None
    return out


_CACHE: dict[tuple[str, ...], dict[str, Deck]] = {}


def load_catalog(deck_dirs: Iterable[str | Path] = ()) -> dict[str, Deck]:
    """The built-in decks plus those in ``deck_dirs`` (a user deck may not reuse a built-in name).

    >>> sorted(load_catalog())[:3]
    ['alchemist', 'archivist', 'astropath']
    """
    dirs = [str(d) for d in deck_dirs]
    if not dirs:  # only the read-only built-ins are cached: user files may change between loads
        if () not in _CACHE:
            _CACHE[()] = load_decks(builtin_sources())
        return _CACHE[()]
    sources = builtin_sources()
    for d in dirs:
        sources.extend(dir_sources(d))
    return load_decks(sources)
