"""Match records: the playset, seed, settings and action list that replay to the identical state.

A record is the save format and the replay format::

    {"format": "converge-record", "version": 1, "playset": ["alchemist", "mechanist", "archivist"],
     "seed": 1, "start": "random", "decks": "<digest>", "actions": [3, 20, ...],
     "moves": ["ALC4", "mine", ...]}

``moves`` is the readable form of ``actions``, for people; replay uses ``actions``. A record of a smaller
variant (:mod:`converge.engine.variant`) names it: ``"variant": "tiny"``. A record may
start from a position instead of a fresh deal (``"position": {...}``). A record holds the seed, so
it is private until the match is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from converge.engine.actions import action_to_string
from converge.engine.errors import ConvergeError, IllegalActionError, RecordError, quote
from converge.engine.schema import RecordDoc

if TYPE_CHECKING:
    from converge.engine.state import Match

FORMAT = "converge-record"


def to_record(match: Match, moves: bool = True) -> RecordDoc:
    """The record of ``match``: from a fresh deal, or from the position it was set up at (``moves``: with
    the readable form of each action)."""
    if not match._keep_history:
        raise RecordError("this copy of the match keeps no history (a search copy): it has no record")
    history = list(match.history)
    out: RecordDoc = {
        "format": FORMAT, "version": 1, "playset": match.playset.names(), "seed": match.seed,
        "start": match.start_setting, "decks": match.playset.digest, "chance": match.chance,
        "actions": history,
    }
    if not match.playset.variant.is_full:
        out["variant"] = match.playset.variant.name
    if match.origin is not None:
        out["position"] = match.origin
    if moves:  # an action's readable form depends on the playset alone
        ps = match.playset
        out["moves"] = [action_to_string(a, ps.card_ids, ps.skillsets) for a in history]
    return out


def start_of(doc: Mapping[str, object], match_type: type[Match], deck_dirs: Iterable[str] = ()) -> Match:
    """The match (of ``match_type``: the engine's :class:`~converge.engine.state.Match`) a record starts
    from, before its first action."""
    try:
        if "position" in doc:
            return match_type.from_position(doc["position"], deck_dirs)
        seed = doc.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError(f"record field 'seed' must be an integer, got {quote(seed)}")
        playset = doc.get("playset")
        if not isinstance(playset, list) or not all(isinstance(n, str) for n in playset):
            raise RecordError("record field 'playset' must be a list of three skillset names")
        chance = doc.get("chance", False) is True
        return match_type.new(playset, seed, doc.get("start", "random"), deck_dirs, chance,
                              variant=doc.get("variant", "full"))
    except RecordError:
        raise
    except ConvergeError as exc:
        raise RecordError(f"record does not set up a match: {exc}") from None


def replay(doc: object, match_type: type[Match], deck_dirs: Iterable[str] = (), upto: object = None) -> Match:
    """Replay a record (all of it, or its first ``upto`` actions) and return the match (see :func:`start_of`)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RecordError(f"not a match record (expected \"format\": \"{FORMAT}\")")
    if doc.get("version", 1) != 1:
        raise RecordError(f"record version {quote(doc.get('version'))} is not supported (this engine reads "
                          "version 1)")
    actions = doc.get("actions")
    if not isinstance(actions, list):
        raise RecordError("record field 'actions' must be a list of action ids")
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, int) or upto < 0):
        raise RecordError(f"replay up to a number of actions from 0, got {quote(upto)}")
    match = start_of(doc, match_type, deck_dirs)
    digest = doc.get("decks")
    if digest is not None and digest != match.playset.digest:
        raise RecordError("the record was played with different card decks than those loaded "
                          "(use the same --deck-dir)")
    stop = len(actions) if upto is None else upto
    for i, action in enumerate(actions[:stop]):
        try:
            match.apply(action)
        except IllegalActionError as exc:
            raise RecordError(f"record action #{i + 1} ({quote(action)}) does not replay: {exc}") from None
    return match
