"""The position format: a JSON document that sets up any state at the start of a play.

A position names every one of the 18 cards exactly once, by id, in a zone::

    {"format": "converge-position", "version": 1,
     "playset": ["alchemist", "mechanist", "archivist"], "seed": 0,
     "round": 1, "round_wins": [0, 0], "turn": 1,
     "artifact_holder": 0, "lead": 0, "to_play": 0,
     "hands": [["ALC1", "MEC2"], ["ARC3"]], "deck": ["MEC4", ...],   # deck: top card first
     "artifact": "ARC6", "discard": ["ALC2"], "goals": ["MEC5"],
     "factions": [["ALC3"], ["ARC1", "MEC6"]],
     "conversions": {"ARC1": {"skillset": "Alchemist", "rank": 2, "until_end_of_turn": false}},
     "guards": {"MEC6": 1}, "recalled": ["ALC2"],
     "known": {"ARC3": [0, 1]}}   # who knows where a hidden card is, beyond a hand's owner (P16)

``to_play`` is the lead (the first play of the turn) or the other player (the second play).
A conversion until the end of the turn of a card that was already converted also names what it
reverts to (C6): ``"reverts_to": {"skillset": "Mechanist", "rank": 5}`` (default: the printed card).
Later rounds are dealt from ``seed``. Validation rejects a document that loses, duplicates or
invents a card, or that is impossible in play (a conversion outside a faction, a guard in the
wrong faction, a finished match...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from converge.engine.errors import ConvergeError, PositionError
from converge.engine.playset import NUM_CARDS, Playset

if TYPE_CHECKING:
    from converge.engine.state import Match

FORMAT = "converge-position"
_KEYS = {"format", "version", "playset", "seed", "start", "round", "round_wins", "turn", "artifact_holder",
         "lead", "to_play", "hands", "deck", "artifact", "discard", "goals", "factions", "conversions",
         "guards", "recalled", "known"}


def to_position(match: Match) -> dict[str, Any]:
    """The position of ``match``, which must be at the start of a play (a card to choose)."""
    from converge.engine.state import SELECT

    if match.phase != SELECT:
        raise PositionError("a position is taken at the start of a play; this match is in the middle of one "
                            "(or over)")
    ids = match.playset.card_ids
    ps = match.playset
    return {
        "format": FORMAT, "version": 1,
        "playset": match.playset.names(), "seed": match.seed, "start": match.start_setting,
        "round": match.round_no, "round_wins": list(match.round_wins), "turn": match.turn_no,
        "artifact_holder": match.holder, "lead": match.lead, "to_play": match.player,
        "hands": [[ids[c] for c in h] for h in match.hands],
        "deck": [ids[c] for c in reversed(match.deck)],
        "artifact": ids[match.artifact],
        "discard": [ids[c] for c in match.discard],
        "goals": [ids[c] for c in match.goals],
        "factions": [[ids[c] for c in f] for f in match.factions],
        "conversions": {ids[c]: _conversion(match, c) for f in match.factions for c in f
                        if match.skill[c] != ps.printed_skill[c] or match.rank[c] != ps.printed_rank[c]
                        or any(t[0] == c for t in match.temp)},
        "guards": {ids[c]: match.guard[c] for c in range(NUM_CARDS) if match.guard[c] >= 0},
        "recalled": [ids[c] for c in range(NUM_CARDS) if match.recalled[c]],
        "known": {ids[c]: [p for p in (0, 1) if match.known[c] >> p & 1]
                  for zone, default in ((match.hands[0], 1), (match.hands[1], 2), (match.deck, 0))
                  for c in zone if match.known[c] != default},
    }


def _conversion(match: Match, c: int) -> dict[str, Any]:
    """A card's conversion. One "until the end of the turn" of a card that was already converted
    also says what the card reverts to (C6), when that is not its printed skillset and rank."""
    ps = match.playset
    out: dict[str, Any] = {"skillset": ps.skillsets[match.skill[c]], "rank": match.rank[c],
                           "until_end_of_turn": False}
    temp = [t for t in match.temp if t[0] == c]
    if temp:  # at the start of a play, one conversion at most (by the lead's play this turn)
        out["until_end_of_turn"] = True
        if (temp[0][1], temp[0][2]) != (ps.printed_skill[c], ps.printed_rank[c]):
            out["reverts_to"] = {"skillset": ps.skillsets[temp[0][1]], "rank": temp[0][2]}
    return out


def _int(doc: Mapping[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PositionError(f"position field '{key}' must be an integer from {low} to {high}, got {value!r}")
    return value


def _cards(doc: Mapping[str, Any], key: str, ps: Playset, where: str | None = None) -> list[int]:
    where = where or key
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise PositionError(f"position field '{where}' must be a list of card ids")
    out = []
    for item in value:
        if not isinstance(item, str) or item.upper() not in ps.index_of:
            raise PositionError(f"position field '{where}': {str(item)[:20]!r} is not a card of this playset")
        out.append(ps.index_of[item.upper()])
    return out


def from_position(doc: Any, deck_dirs: Iterable[str] = ()) -> Match:
    """Set up a match from a position document; raise :class:`PositionError` if it is not legal."""
    from converge.engine.state import SELECT, Match

    if not isinstance(doc, dict):
        raise PositionError("a position is a JSON object")
    if doc.get("format", FORMAT) != FORMAT:
        raise PositionError(f"not a position: format is {doc.get('format')!r}, expected {FORMAT!r}")
    unknown = sorted(set(doc) - _KEYS)
    if unknown:
        raise PositionError(f"unknown position field(s): {', '.join(unknown)}")
    names = doc.get("playset")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise PositionError("position field 'playset' must be a list of three skillset names")
    try:
        ps = Playset.from_names(names, deck_dirs)
    except ConvergeError as exc:
        raise PositionError(f"position field 'playset': {exc}") from None
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise PositionError(f"position field 'seed' must be an integer from 0 to 2**63-1, got {seed!r}")
    hands = doc.get("hands")
    factions = doc.get("factions", [[], []])
    if not isinstance(hands, list) or len(hands) != 2 or not isinstance(factions, list) or len(factions) != 2:
        raise PositionError("position fields 'hands' and 'factions' must each be a list of two lists")
    zones: dict[str, list[int]] = {
        "hands[0]": _cards({"x": hands[0]}, "x", ps, "hands[0]"),
        "hands[1]": _cards({"x": hands[1]}, "x", ps, "hands[1]"),
        "factions[0]": _cards({"x": factions[0]}, "x", ps, "factions[0]"),
        "factions[1]": _cards({"x": factions[1]}, "x", ps, "factions[1]"),
        "deck": _cards(doc, "deck", ps),
        "discard": _cards(doc, "discard", ps),
        "goals": _cards(doc, "goals", ps),
        "artifact": _cards({"artifact": [doc.get("artifact")]}, "artifact", ps),
    }
    seen: dict[int, str] = {}
    for zone, cards in zones.items():
        for c in cards:
            if c in seen:
                raise PositionError(f"card {ps.card_ids[c]} is in both {seen[c]} and {zone}")
            seen[c] = zone
    missing = [ps.card_ids[c] for c in range(NUM_CARDS) if c not in seen]
    if missing:
        raise PositionError(f"cards missing from every zone: {', '.join(missing)}")
    wins = doc.get("round_wins", [0, 0])
    if (not isinstance(wins, list) or len(wins) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= 1 for w in wins)):
        raise PositionError("position field 'round_wins' must be two numbers, each 0 or 1 (2 ends the match)")
    round_no = _int(doc, "round", 1, 3, sum(wins) + 1)
    if round_no != sum(wins) + 1:
        raise PositionError(f"round {round_no} does not follow from round wins {wins}")
    holder = _int(doc, "artifact_holder", 0, 1)
    lead = _int(doc, "lead", 0, 1, holder)
    if lead != holder:
        raise PositionError("at the start of a play the lead is the artifact holder (T1)")
    to_play = _int(doc, "to_play", 0, 1, lead)
    m = Match()
    m.playset = ps
    m.seed = seed
    m.start_setting = str(doc.get("start", "random"))
    if m.start_setting not in ("random", "0", "1"):
        raise PositionError("position field 'start' must be 'random', '0' or '1'")
    m.round_no = round_no
    m.round_wins = list(wins)
    m.round_results = []
    m.round_first_holder = []
    m.events = []
    m.history = []
    m.winner = -1
    m.log_events = True
    m.chance, m.dealt, m.deal_holder = False, [], -1
    m.turn_no = _int(doc, "turn", 1, 1000, 1)
    m.hands = [zones["hands[0]"], zones["hands[1]"]]
    m.factions = [zones["factions[0]"], zones["factions[1]"]]
    m.deck = zones["deck"][::-1]
    m.discard = zones["discard"]
    m.goals = zones["goals"]
    m.artifact = zones["artifact"][0]
    m.known = [0] * NUM_CARDS
    for player in (0, 1):
        for c in m.hands[player]:
            m.known[c] = 1 << player
    _knowledge(doc, m, seen)
    m.skill = list(ps.printed_skill)
    m.rank = list(ps.printed_rank)
    m.guard = [-1] * NUM_CARDS
    m.recalled = [0] * NUM_CARDS
    m.temp = []
    _conversions(doc, m, seen)
    _guards(doc, m, seen)
    for c in _cards(doc, "recalled", ps):
        m.recalled[c] = 1
    m.holder = holder
    m.lead = lead
    m.turn_step = 0 if to_play == lead else 1
    m.picked, m.revealed = [], []
    m.active = m.src = m.eff = m.pending = -1
    m.eff_code, m.eff_args, m.step, m.remaining = -1, (), 0, 0
    m.round_first_holder.append(holder)
    m.player = to_play
    m.phase = SELECT
    if not m.hands[to_play]:
        raise PositionError(f"player {to_play} is to play but has an empty hand (they would pass, T2)")
    m.origin = to_position(m)  # the record of this match starts from here
    return m


def _conversions(doc: Mapping[str, Any], m: Match, seen: dict[int, str]) -> None:
    ps = m.playset
    conv = doc.get("conversions", {})
    if not isinstance(conv, dict):
        raise PositionError("position field 'conversions' must be an object of card id -> conversion")
    for cid, spec in conv.items():
        c = ps.index_of.get(str(cid).upper(), -1)
        if c < 0:
            raise PositionError(f"conversions: {str(cid)[:20]!r} is not a card of this playset")
        if not seen[c].startswith("factions"):
            raise PositionError(f"conversions: {ps.card_ids[c]} is in {seen[c]}; only cards in a faction can be "
                                "converted (C2, C7)")
        if not isinstance(spec, dict) or set(spec) - {"skillset", "rank", "until_end_of_turn", "reverts_to"}:
            raise PositionError(f"conversions.{ps.card_ids[c]} must be an object with skillset, rank, "
                                "until_end_of_turn and (for a conversion until the end of the turn) reverts_to")
        skill_name = str(spec.get("skillset", ps.skillsets[ps.printed_skill[c]])).capitalize()
        if skill_name not in ps.skillsets:
            raise PositionError(f"conversions.{ps.card_ids[c]}.skillset: {skill_name!r} is not in the playset "
                                "(C4)")
        rank = _int(spec, "rank", 1, 6, ps.printed_rank[c])
        m.skill[c] = ps.skillsets.index(skill_name)
        m.rank[c] = rank
        if spec.get("until_end_of_turn", False) is True:
            old_skill, old_rank = _reverts_to(spec, m, c)
            m.temp.append((c, old_skill, old_rank, m.skill[c], rank))
        elif "reverts_to" in spec:
            raise PositionError(f"conversions.{ps.card_ids[c]}.reverts_to: only a conversion until the end of "
                                "the turn reverts")


def _reverts_to(spec: Mapping[str, Any], m: Match, c: int) -> tuple[int, int]:
    """The skillset and rank a conversion until the end of the turn reverts to (default: printed)."""
    ps = m.playset
    back = spec.get("reverts_to", {})
    where = f"conversions.{ps.card_ids[c]}.reverts_to"
    if not isinstance(back, dict) or set(back) - {"skillset", "rank"}:
        raise PositionError(f"{where} must be an object with skillset and rank")
    name = str(back.get("skillset", ps.skillsets[ps.printed_skill[c]])).capitalize()
    if name not in ps.skillsets:
        raise PositionError(f"{where}.skillset: {name!r} is not in the playset (C4)")
    return ps.skillsets.index(name), _int(back, "rank", 1, 6, ps.printed_rank[c])


def _guards(doc: Mapping[str, Any], m: Match, seen: dict[int, str]) -> None:
    ps = m.playset
    guards = doc.get("guards", {})
    if not isinstance(guards, dict):
        raise PositionError("position field 'guards' must be an object of card id -> guarding player")
    for cid, who in guards.items():
        c = ps.index_of.get(str(cid).upper(), -1)
        if c < 0:
            raise PositionError(f"guards: {str(cid)[:20]!r} is not a card of this playset")
        if who not in (0, 1) or isinstance(who, bool):
            raise PositionError(f"guards.{ps.card_ids[c]} must be 0 or 1, got {who!r}")
        if seen[c] != f"factions[{who}]":
            raise PositionError(f"guards: {ps.card_ids[c]} is in {seen[c]}; a guard protects a card in its "
                                f"guarder's faction (factions[{who}])")
        m.guard[c] = who


def _knowledge(doc: Mapping[str, Any], m: Match, seen: dict[int, str]) -> None:
    ps = m.playset
    known = doc.get("known", {})
    if not isinstance(known, dict):
        raise PositionError("position field 'known' must be an object of card id -> players who know its place")
    for cid, players in known.items():
        c = ps.index_of.get(str(cid).upper(), -1)
        if c < 0:
            raise PositionError(f"known: {str(cid)[:20]!r} is not a card of this playset")
        zone = seen[c]
        if zone not in ("hands[0]", "hands[1]", "deck"):
            raise PositionError(f"known: {ps.card_ids[c]} is in {zone}; only cards in a hand or the deck can be "
                                "known or unknown (the artifact is never known)")
        if (not isinstance(players, list) or len(set(players)) != len(players)
                or not all(p in (0, 1) and not isinstance(p, bool) for p in players)):
            raise PositionError(f"known.{ps.card_ids[c]} must be a list of players (0, 1), got {players!r}")
        if zone.startswith("hands") and int(zone[6]) not in players:
            raise PositionError(f"known.{ps.card_ids[c]}: a card in {zone} is always known to its owner")
        m.known[c] = sum(1 << p for p in players)
