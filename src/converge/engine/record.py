"""Match records: the playset, seed, settings and action list that replay to the identical state.

A record is the save format and the replay format::

    {"format": "converge-record", "version": 1, "playset": ["alchemist", "mechanist", "archivist"],
     "seed": 1, "start": "random", "decks": "<digest>", "actions": [3, 20, ...],
     "moves": ["ALC4", "mine", ...]}

``moves`` is the readable form of ``actions``, for people; replay uses ``actions``. A record may
start from a position instead of a fresh deal (``"position": {...}``). A record holds the seed, so
it is private until the match is over.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from converge.engine.errors import ConvergeError, IllegalActionError, RecordError

if TYPE_CHECKING:
    from converge.engine.state import Match

FORMAT = "converge-record"


def to_record(match: Match, start: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record of ``match`` (``start``: the position it began from, if not a fresh deal)."""
    out: dict[str, Any] = {
        "format": FORMAT, "version": 1, "playset": match.playset.names(), "seed": match.seed,
        "start": match.start_setting, "decks": match.playset.digest, "chance": match.chance,
        "actions": list(match.history),
    }
    if start is not None:
        out["position"] = start
    replay = start_of(out) if start is not None else None
    moves = []
    if replay is None:
        from converge.engine.state import Match as _Match

        replay = _Match(match.playset, match.seed, match.start_setting, (), match.chance)
    replay.log_events = False
    for a in match.history:
        moves.append(replay.action_to_string(a))
        replay._apply(a)
    out["moves"] = moves
    return out


def start_of(doc: dict[str, Any], deck_dirs: Iterable[str] = ()) -> Match:
    """The match a record starts from, before its first action."""
    from converge.engine.position import from_position
    from converge.engine.state import Match

    try:
        if "position" in doc:
            return from_position(doc["position"], deck_dirs)
        seed = doc.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError(f"record field 'seed' must be an integer, got {seed!r}")
        playset = doc.get("playset")
        if not isinstance(playset, list) or not all(isinstance(n, str) for n in playset):
            raise RecordError("record field 'playset' must be a list of three skillset names")
        return Match(playset, seed, doc.get("start", "random"), deck_dirs, doc.get("chance", False) is True)
    except RecordError:
        raise
    except ConvergeError as exc:
        raise RecordError(f"record does not set up a match: {exc}") from None


def replay(doc: Any, deck_dirs: Iterable[str] = (), upto: int | None = None) -> Match:
    """Replay a record (all of it, or its first ``upto`` actions) and return the match."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RecordError(f"not a match record (expected \"format\": \"{FORMAT}\")")
    if doc.get("version", 1) != 1:
        raise RecordError(f"record version {doc.get('version')!r} is not supported (this engine reads version 1)")
    actions = doc.get("actions")
    if not isinstance(actions, list):
        raise RecordError("record field 'actions' must be a list of action ids")
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int) or upto < 0):
        raise RecordError(f"replay up to a number of actions from 0, got {upto!r}")
    match = start_of(doc, deck_dirs)
    digest = doc.get("decks")
    if digest is not None and digest != match.playset.digest:
        raise RecordError("the record was played with different card decks than those loaded "
                          "(use the same --deck-dir)")
    for i, action in enumerate(actions[:upto]):
        try:
            match.apply(action)
        except IllegalActionError as exc:
            raise RecordError(f"record action #{i + 1} ({action!r}) does not replay: {exc}") from None
    return match
