"""The terminal game's saved matches: where they go, how each is written (after every move, atomically), and
which of them can be taken up again (``converge play --resume``).

A saved match is the match record (the save and replay format: ``converge replay`` and ``converge review``
read it as it is) with one more key, ``"terminal"``, saying who sat where: each seat's name and, for a bot,
its level and seed, whether the match is hot-seat, the deck folders it was played with and how many matches
of the sitting came before it. That is all a resumed match needs to play on exactly as the original would
have: the record replays the match, and a bot's every decision is seeded from its seat's seed and the number
of actions played (:meth:`converge.cli.play_session.Session.bot_for`), never from what it decided before.

The file holds the match's seed (as every record does): it is written readable by its owner only.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from typing_extensions import TypedDict

from converge.bots import is_bot_name
from converge.cli.common import UserError, clip, read_json_file, shown_path
from converge.engine import ConvergeError, Match
from converge.engine.schema import RecordDoc

#: The key of a saved match that says who sat where (the rest of the file is the match record).
SITTING_KEY: Final = "terminal"


class _Named(TypedDict):
    name: str


class SeatDoc(_Named, total=False):
    """A seat as saved: who sits there (``name``), and for a bot its level and seed."""

    bot: str
    seed: int


class SittingDoc(TypedDict):
    """The ``"terminal"`` key of a saved match: who sat where (see the module doc)."""

    seats: list[SeatDoc]
    hotseat: bool
    deck_dirs: list[str]
    matches_played: int
    over: bool


class SavedDoc(RecordDoc):
    """A saved match as written: its record, and who sat where."""

    terminal: SittingDoc


def default_save_dir() -> Path:
    """Where match records go by default: the user's data directory (``$XDG_DATA_HOME/converge/matches``,
    ``~/.local/share/converge/matches`` when it is not set)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "converge" / "matches"


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that, whatever stops the program (a kill, a closed terminal, a
    full disk), the file is either the old one or the new one, never half of either: write a temporary
    file beside it (readable by its owner only), flush it to the disk, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
    with suppress(OSError):  # the rename itself reaches the disk with the folder (not on every system)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


class SaveProblem(Exception):
    """A saved match that cannot be taken up again; the message says why, in one line, for the player, and
    names the file (``path``: as the message shows it, whole: see :class:`UserError`)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class Seat:
    """Who sits in a seat: a person (``bot`` None), or a bot by its level (a name :func:`make_bot` takes) with
    the seed its decisions are seeded from (:meth:`converge.cli.play_session.Session.bot_for`)."""

    name: str
    bot: str | None = None
    seed: int = 0

    def to_json(self) -> SeatDoc:
        return {"name": self.name} if self.bot is None else {"name": self.name, "bot": self.bot, "seed": self.seed}


@dataclass(frozen=True)
class SavedMatch:
    """A match read back from its file, ready to play on."""

    path: Path
    match: Match
    seats: tuple[Seat, Seat]
    hotseat: bool
    deck_dirs: tuple[str, ...]
    matches_played: int
    saved_at: float

    def describe(self) -> str:
        """One line for a menu: who plays, how far it went, the playset, when it was last saved. Only what
        both players could see (the round, the rounds won, the playset): no hand, no seed.

        >>> # e.g. "against the Easy bot, round 2 (rounds won: you 1, them 0), Alchemist/Searcher/Healer,
        >>> # saved 06 Dec 18:02"
        """
        m = self.match
        wins = m.round_wins
        if self.hotseat:
            who = f"hot-seat, round {m.round_no} (rounds won: {self.seats[0].name} {wins[0]}, " \
                  f"{self.seats[1].name} {wins[1]})"
        else:
            me = next(p for p, s in enumerate(self.seats) if s.bot is None)
            who = f"against the {self.seats[1 - me].name}, round {m.round_no} (rounds won: you {wins[me]}, " \
                  f"them {wins[1 - me]})"
        when = time.strftime("%d %b %H:%M", time.localtime(self.saved_at))
        return f"{who}, {'/'.join(m.playset.skillsets)}, saved {when}"


def saved_doc(match: Match, seats: Sequence[Seat], hotseat: bool, deck_dirs: Iterable[str],
              matches_played: int) -> SavedDoc:
    """The saved match: its record, and the ``"terminal"`` key (``over``: the match has ended, which a
    listing of unfinished matches need not replay the record to know)."""
    return {**match.record(),
            SITTING_KEY: {"seats": [s.to_json() for s in seats], "hotseat": hotseat, "deck_dirs": list(deck_dirs),
                          "matches_played": matches_played, "over": match.is_terminal}}


def _seat(doc: object, index: int) -> Seat:
    """One seat of the ``"terminal"`` key, checked."""
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"].strip():
        raise SaveProblem(f"seat {index + 1} has no name")
    bot = doc.get("bot")
    if bot is None:
        return Seat(doc["name"][:40])
    seed = doc.get("seed")
    if not isinstance(bot, str) or not is_bot_name(bot):
        raise SaveProblem(f"seat {index + 1} names no known bot")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise SaveProblem(f"seat {index + 1}'s bot has no seed")
    return Seat(doc["name"][:40], bot, seed)


def _read(path: Path) -> tuple[dict[str, object], object]:
    """The document in ``path`` and its ``"terminal"`` key (None when it has none)."""
    try:
        doc = read_json_file(str(path), "saved match")
    except UserError as exc:  # (the message names the file)
        raise SaveProblem(str(exc), exc.path) from None
    if not isinstance(doc, dict) or doc.get("format") != "converge-record":
        name = shown_path(str(path))
        raise SaveProblem(f"{name} is not a saved match", name)
    return doc, doc.get(SITTING_KEY)


def _replay(path: Path, doc: dict[str, object], deck_dirs: Sequence[str]) -> Match:
    try:
        return Match.replay(doc, deck_dirs)
    except ConvergeError as exc:
        name = shown_path(str(path))
        raise SaveProblem(f"{name} does not replay: {clip(str(exc), 200)}", name) from None
    except (TypeError, ValueError, RecursionError, OSError):
        name = shown_path(str(path))
        raise SaveProblem(f"{name} does not replay: it is damaged", name) from None


def _deck_dirs(sitting: object) -> list[str]:
    dirs = sitting.get("deck_dirs", []) if isinstance(sitting, dict) else []
    return dirs if isinstance(dirs, list) and all(isinstance(d, str) for d in dirs) else []


def load(path: Path) -> SavedMatch:
    """The saved match in ``path``, replayed; :class:`SaveProblem` (one line naming the file and what is
    wrong) when the file cannot be read, is not a saved match of this terminal, or does not replay."""
    doc, sitting = _read(path)
    return _saved(path, doc, sitting, _replay(path, doc, _deck_dirs(sitting)))


def _saved(path: Path, doc: dict[str, object], sitting: object, match: Match) -> SavedMatch:
    name = shown_path(str(path))
    if not isinstance(sitting, dict):
        raise SaveProblem(f"{name} does not say who played it (saved by an earlier version, or by converge "
                          "watch): converge replay shows it", name)
    seats_doc = sitting.get("seats")
    if not isinstance(seats_doc, list) or len(seats_doc) != 2:
        raise SaveProblem(f"{name} does not name its two seats", name)
    try:
        seats = (_seat(seats_doc[0], 0), _seat(seats_doc[1], 1))
    except SaveProblem as exc:
        raise SaveProblem(f"{name}: {exc}", name) from None
    hotseat = sitting.get("hotseat") is True
    people = sum(1 for s in seats if s.bot is None)
    if people != (2 if hotseat else 1):
        raise SaveProblem(f"{name} has seats that make no match of this terminal (a person against a bot, "
                          "or two people in hot-seat)", name)
    played = sitting.get("matches_played", 0)
    if isinstance(played, bool) or not isinstance(played, int) or played < 0:
        played = 0
    try:
        saved_at = path.stat().st_mtime
    except OSError:
        saved_at = 0.0
    return SavedMatch(path, match, seats, hotseat, tuple(_deck_dirs(sitting)), played, saved_at)


def unfinished(folder: Path) -> tuple[list[SavedMatch], list[str]]:
    """The matches saved in ``folder`` that are not over, the last saved first, and one line for each file
    that could not be read (naming it and why). Finished matches are left out without a word (a file that
    says it is over is not even replayed: a folder of many finished matches is read quickly)."""
    try:
        files = sorted(p for p in folder.glob("*.json") if not p.name.startswith("."))
    except OSError:
        return [], []
    found: list[SavedMatch] = []
    problems: list[str] = []
    for path in files:
        try:
            doc, sitting = _read(path)
            if isinstance(sitting, dict) and sitting.get("over") is True:
                continue
            match = _replay(path, doc, _deck_dirs(sitting))
            if match.is_terminal:
                continue
            found.append(_saved(path, doc, sitting, match))
        except SaveProblem as exc:
            problems.append(str(exc))
    found.sort(key=lambda s: (-s.saved_at, s.path.name))
    return found, problems


__all__ = ["SITTING_KEY", "SaveProblem", "SavedMatch", "Seat", "default_save_dir", "load", "saved_doc",
           "unfinished", "write_atomically"]
