"""A puzzle, and a set of them, as data.

A puzzle holds the record of the match it came from, cut at its decision (the deal and every action before
it: what replays to the position), the mover, the line that solves it (the mover's steps and the solver's
replies, to the round's end), the cards that win and those that do not with how often each fails, its
themes and its starting rating. The record replays the whole deal, so it stays with whoever serves the
puzzle: a player is shown the mover's view only (:func:`Puzzle.view`), and a puzzle comes only from a finished
match.

A set is a JSON file::

    {"format": "converge-puzzles", "version": 1, "puzzles": [{"id": "p3k9x2aq", ...}, ...]}
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from converge.engine.errors import ConvergeError, quote

if TYPE_CHECKING:
    from converge.engine.schema import RecordDoc
    from converge.engine.state import Match

FORMAT = "converge-puzzles"


class PuzzleError(ConvergeError):
    """A puzzle file or puzzle that cannot be read: the message says what and where."""


@dataclass(frozen=True)
class Wrong:
    """A play that does not win in every case: a card (``then`` -1: however it is placed), or a winning card
    placed otherwise (``then``: the placement). In ``lost`` of ``worlds`` worlds the opponent can still win
    the round against it, however the mover plays on (0: each world could be won, but only by knowing which
    one it is: no way of playing on that sees only what the mover sees wins them all)."""

    action: int
    label: str
    worlds: int
    lost: int
    then: int = -1

    def to_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"action": self.action, "label": self.label, "worlds": self.worlds,
                               "lost": self.lost}
        if self.then >= 0:
            doc["then"] = self.then
        return doc


@dataclass(frozen=True)
class Puzzle:
    """One puzzle (see the module doc). ``solutions`` are the cards that win in every case (one, or a few
    equivalent ones, all accepted); ``line`` starts with the first of them."""

    id: str
    record: RecordDoc
    mover: int
    line: list[int]
    plays: int
    solutions: list[int]
    wrong: list[Wrong]
    themes: list[str]
    rating: float
    source: str = "bots"
    skillsets: list[str] = field(default_factory=list)

    def start(self, deck_dirs: Iterable[str] = ()) -> Match:
        """The puzzle's position: the match replayed to its decision, the mover to play."""
        from converge.engine.state import Match

        return Match.replay(self.record, deck_dirs)

    def mover_steps(self, deck_dirs: Iterable[str] = ()) -> list[tuple[Match, int]]:
        """Each of the mover's steps of the line (the replies are the solver's), with a copy of the match
        where it is taken."""
        match = self.start(deck_dirs)
        out = []
        for action in self.line:
            if match.current_player == self.mover:
                out.append((match.clone(), action))
            match.apply(action)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "record": self.record, "mover": self.mover, "line": self.line, "plays": self.plays,
                "solutions": self.solutions,
                "wrong": [w.to_dict() for w in self.wrong],
                "themes": self.themes, "rating": round(self.rating), "source": self.source,
                "skillsets": self.skillsets}

    @classmethod
    def from_dict(cls, doc: object, where: str = "puzzle") -> Puzzle:
        if not isinstance(doc, Mapping):
            raise PuzzleError(f"{where}: a puzzle is a JSON object, got {quote(doc)}")
        try:
            for name in ("line", "solutions", "wrong", "themes", "skillsets"):
                if name in doc and not isinstance(doc[name], list):
                    raise PuzzleError(f"{where}: field {name!r} must be a list, got {quote(doc[name])}")
            record = doc["record"]
            if not isinstance(record, Mapping) or not isinstance(record.get("actions"), list):
                raise PuzzleError(f"{where}: field 'record' must be a match record")
            wrong = [Wrong(_int(w["action"], where, "wrong"), _text(w["label"], where, "wrong"),
                           _int(w["worlds"], where, "wrong"), _int(w["lost"], where, "wrong"),
                           _int(w.get("then", -1), where, "wrong")) for w in doc.get("wrong", [])]
            return cls(id=_text(doc["id"], where, "id"), record=dict(record),  # type: ignore[arg-type]
                       mover=_int(doc["mover"], where, "mover"),
                       line=[_int(a, where, "line") for a in doc["line"]],
                       plays=_int(doc.get("plays", 1), where, "plays"),
                       solutions=[_int(a, where, "solutions") for a in doc["solutions"]], wrong=wrong,
                       themes=[_text(t, where, "themes") for t in doc.get("themes", [])],
                       rating=float(doc.get("rating", 1500)),
                       source=_text(doc.get("source", "bots"), where, "source"),
                       skillsets=[_text(s, where, "skillsets") for s in doc.get("skillsets", [])])
        except KeyError as exc:
            raise PuzzleError(f"{where}: field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError) as exc:
            raise PuzzleError(f"{where}: {exc}") from None


def _int(value: object, where: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PuzzleError(f"{where}: field {name!r} must hold integers, got {quote(value)}")
    return value


def _text(value: object, where: str, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise PuzzleError(f"{where}: field {name!r} must hold text, got {quote(value)}")
    return value


def puzzle_id(record: Mapping[str, object]) -> str:
    """A puzzle's id: from its position (the deal and the actions to it), so that the same position met twice
    is one puzzle. Eight letters and digits (no 0, 1, l or o, which read alike)."""
    key = json.dumps({k: record[k] for k in ("playset", "seed", "start", "chance", "actions") if k in record},
                     sort_keys=True)
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    letters = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(letters[(digest >> (5 * i)) & 31] for i in range(8))


def read_set(doc: object, where: str = "puzzle set") -> list[Puzzle]:
    """The puzzles of a set's JSON (see the module doc); a bad set raises :class:`PuzzleError` naming the
    puzzle and the field."""
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise PuzzleError(f"{where} is not a puzzle set (expected \"format\": \"{FORMAT}\")")
    if doc.get("version") != 1:
        raise PuzzleError(f"{where}: version {quote(doc.get('version'))} is not supported (this reads version 1)")
    items = doc.get("puzzles")
    if not isinstance(items, list):
        raise PuzzleError(f"{where}: field 'puzzles' must be a list")
    return [Puzzle.from_dict(item, f"{where}, puzzle {i + 1}") for i, item in enumerate(items)]


def set_doc(puzzles: Iterable[Puzzle]) -> dict[str, Any]:
    return {"format": FORMAT, "version": 1, "puzzles": [p.to_dict() for p in puzzles]}


def write_set(path: Path, puzzles: Iterable[Puzzle]) -> None:
    """Write a set, one puzzle a line (a diff of the shipped set reads puzzle by puzzle)."""
    items = [json.dumps(p.to_dict(), separators=(",", ":")) for p in puzzles]
    body = ",\n".join(items)
    path.write_text(f'{{"format": "{FORMAT}", "version": 1, "puzzles": [\n{body}\n]}}\n', encoding="utf-8")


@lru_cache(maxsize=1)
def shipped() -> tuple[Puzzle, ...]:
    """The package's puzzles (``shipped.json``): made from bot-vs-bot play across the nine skillsets."""
    text = resources.files("converge.puzzles").joinpath("shipped.json").read_text(encoding="utf-8")
    return tuple(read_set(json.loads(text), "the shipped puzzle set"))
