"""The position format: a JSON document that sets up any state of a match, at any decision.

A position names every one of the 18 cards exactly once, by id, in a zone (or as the card being
played)::

    {"format": "converge-position", "version": 1,
     "playset": ["alchemist", "mechanist", "archivist"], "seed": 0,
     "round": 2, "round_wins": [1, 0], "round_results": [{"winner": 0, "reason": "outscored"}],
     "turn": 1, "artifact_holder": 0, "lead": 0, "to_play": 0,
     "hands": [["ALC1", "MEC2"], ["ARC3"]], "deck": ["MEC4", ...],   # deck: top card first
     "artifact": "ARC6", "discard": ["ALC2"], "goals": ["MEC5"],
     "factions": [["ALC3"], ["ARC1", "MEC6"]],
     "conversions": {"ARC1": {"skillset": "Alchemist", "rank": 2, "until_end_of_turn": false}},
     "guards": {"MEC6": 1}, "recalled": ["ALC2"],
     "known": {"ARC3": [0, 1]}}   # who knows where a hidden card is, beyond a hand's owner (P16)

``to_play`` is the player deciding: the lead (the first play of the turn) or the other player. Without
``decision`` the player chooses a card from their hand; inside a play, ``decision`` says how far it got::

    "decision": {"card": "ALC5"}                       # ALC5 chosen; how to play it is next
    "decision": {"card": "ALC5", "effect": {           # ALC5 discarded; its effect is resolving
        "card": "ALC5",           # whose effect resolves (another card when the played one studies it)
        "step": "target",         # target, skillset, faction or second
        "remaining": 1, "pending": null, "picked": [], "revealed": [], "decisions": 0}}

A finished match has ``"winner"`` (and the winner's 2 in ``round_wins``) and no ``to_play``.
``round_results`` may be left out, and then the rounds won are taken as won by outscoring, player 0's
first. A conversion until the end of the turn of a card that was already converted also names what it
reverts to (C6): ``"reverts_to": {"skillset": "Mechanist", "rank": 5}`` (default: the printed card).
Later rounds are dealt from ``seed``. A position of a smaller variant (:mod:`converge.engine.variant`)
names it, ``"variant": "tiny"``, and then names that variant's cards (and its round wins). Validation
rejects a document that loses, duplicates or invents a card, or that is impossible in play (a conversion
outside a faction, a guard in the wrong faction...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TypeGuard

from converge.engine.effects import STEP_NAMES, EffectState
from converge.engine.errors import ConvergeError, PositionError, quote
from converge.engine.events import END_REASONS, OUTSCORED
from converge.engine.playset import Playset
from converge.engine.schema import Conversion, Position, PositionDecision
from converge.engine.turn import EFFECT, MODE, OVER, SELECT, TurnState
from converge.engine.variant import FULL, Variant, variant_named
from converge.engine.zones import Zones

if TYPE_CHECKING:
    from converge.engine.state import Match

FORMAT = "converge-position"
_KEYS = {"format", "version", "playset", "seed", "start", "round", "round_wins", "round_results", "turn",
         "artifact_holder", "lead", "to_play", "hands", "deck", "artifact", "discard", "goals", "factions",
         "conversions", "guards", "recalled", "known", "decision", "winner", "variant"}
_EFFECT_KEYS = {"card", "step", "remaining", "pending", "picked", "revealed", "decisions"}


def to_position(match: Match) -> Position:
    """The position of ``match`` at its current decision (or at its end). Not at a chance node."""
    if match.is_chance_node:
        raise PositionError("a position is taken at a player's decision, not at a chance node (a deal)")
    ps, z, t, e = match.playset, match.zones, match.turn, match.effect
    ids = ps.card_ids
    out: Position = {
        "format": FORMAT, "version": 1,
        "playset": ps.names(), "seed": match.seed, "start": match.start_setting,
        "round": t.round_no, "round_wins": list(t.round_wins),
        "round_results": [{"winner": w, "reason": END_REASONS[r]} for w, r in t.round_results],
        "turn": t.turn_no, "artifact_holder": t.holder, "lead": t.lead, "to_play": t.player,
        "hands": [[ids[c] for c in h] for h in z.hands],
        "deck": [ids[c] for c in reversed(z.deck)],
        "artifact": ids[z.artifact],
        "discard": [ids[c] for c in z.discard],
        "goals": [ids[c] for c in z.goals],
        "factions": [[ids[c] for c in f] for f in z.factions],
        "conversions": {ids[c]: _conversion(match, c) for f in z.factions for c in f
                        if z.skill[c] != ps.printed_skill[c] or z.rank[c] != ps.printed_rank[c]
                        or any(x[0] == c for x in z.temp)},
        "guards": {ids[c]: z.guard[c] for c in range(len(ids)) if z.guard[c] >= 0},
        "recalled": [ids[c] for c in range(len(ids)) if z.recalled[c]],
        "known": {ids[c]: [p for p in (0, 1) if z.known[c] >> p & 1]
                  for zone, default in ((z.hands[0], 1), (z.hands[1], 2), (z.deck, 0),
                                        ([t.active] if t.phase == MODE else [], 1 << max(t.player, 0)))
                  for c in zone if z.known[c] != default},
    }
    if not ps.variant.is_full:
        out["variant"] = ps.variant.name
    if t.phase == OVER:
        del out["to_play"]
        out["winner"] = t.winner
    elif t.phase in (MODE, EFFECT):
        decision: PositionDecision = {"card": ids[t.active]}
        if t.phase == EFFECT:
            decision["effect"] = {"card": ids[e.card], "step": STEP_NAMES[e.step], "remaining": e.remaining,
                                  "pending": ids[e.pending] if e.pending >= 0 else None,
                                  "picked": [ids[c] for c in e.picked], "revealed": [ids[c] for c in e.revealed],
                                  "decisions": e.decisions}
        out["decision"] = decision
    return out


def _conversion(match: Match, c: int) -> Conversion:
    """A card's conversion. One "until the end of the turn" of a card that was already converted
    also says what the card reverts to (C6), when that is not its printed skillset and rank."""
    ps, z = match.playset, match.zones
    out: Conversion = {"skillset": ps.skillsets[z.skill[c]], "rank": z.rank[c], "until_end_of_turn": False}
    temp = [t for t in z.temp if t[0] == c]
    if temp:
        out["until_end_of_turn"] = True
        if (temp[0][1], temp[0][2]) != (ps.printed_skill[c], ps.printed_rank[c]):
            out["reverts_to"] = {"skillset": ps.skillsets[temp[0][1]], "rank": temp[0][2]}
    return out


def _int(doc: Mapping[str, object], key: str, low: int, high: int, default: int | None = None,
         where: str = "position") -> int:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PositionError(f"{where} field '{key}' must be an integer from {low} to {high}, got {quote(value)}")
    return value


def _card(ps: Playset, item: object, where: str) -> int:
    if not isinstance(item, str) or item.upper() not in ps.index_of:
        raise PositionError(f"{where}: {quote(item, 24)} is not a card of this playset")
    return ps.index_of[item.upper()]


def _cards(value: object, ps: Playset, where: str) -> list[int]:
    if not isinstance(value, list):
        raise PositionError(f"position field '{where}' must be a list of card ids")
    return [_card(ps, item, f"position field '{where}'") for item in value]


def _is_player(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value in (0, 1)


def _object(value: object, where: str, what: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise PositionError(f"position field '{where}' must be an object of {what}")
    return value


def set_up(m: Match, doc: object, deck_dirs: Iterable[str] = (), playset: Playset | None = None) -> None:
    """Set up the blank match ``m`` (``Match()``) from a position document; raise :class:`PositionError` if
    it is not legal (see :meth:`~converge.engine.state.Match.from_position`).

    ``playset``: use these already loaded decks instead of loading the document's (what a match's own
    record does, so that user decks need not be found again).
    """
    if not isinstance(doc, dict):
        raise PositionError("a position is a JSON object")
    if doc.get("format", FORMAT) != FORMAT:
        raise PositionError(f"not a position: format is {quote(doc.get('format'))}, expected {FORMAT!r}")
    unknown = sorted(str(k) for k in set(doc) - _KEYS)
    if unknown:
        raise PositionError(f"unknown position field(s): {quote(', '.join(unknown), 80)}")
    names = doc.get("playset")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise PositionError("position field 'playset' must be a list of three skillset names")
    try:
        variant = variant_named(doc.get("variant", FULL.name))
    except ConvergeError as exc:
        raise PositionError(f"position field 'variant': {exc}") from None
    if playset is not None and [n.lower() for n in names] == playset.names() and playset.variant == variant:
        ps = playset
    else:
        try:
            ps = Playset.from_names(names, deck_dirs, variant)
        except ConvergeError as exc:
            raise PositionError(f"position field 'playset': {exc}") from None
    seed = doc.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise PositionError(f"position field 'seed' must be an integer from 0 to 2**63-1, got {quote(seed)}")
    start = doc.get("start", "random")
    if start not in ("random", "0", "1"):
        raise PositionError("position field 'start' must be 'random', '0' or '1'")
    hands = doc.get("hands")
    factions = doc.get("factions", [[], []])
    if not isinstance(hands, list) or len(hands) != 2 or not isinstance(factions, list) or len(factions) != 2:
        raise PositionError("position fields 'hands' and 'factions' must each be a list of two lists")
    zones: dict[str, list[int]] = {
        "hands[0]": _cards(hands[0], ps, "hands[0]"),
        "hands[1]": _cards(hands[1], ps, "hands[1]"),
        "factions[0]": _cards(factions[0], ps, "factions[0]"),
        "factions[1]": _cards(factions[1], ps, "factions[1]"),
        "deck": _cards(doc.get("deck", []), ps, "deck"),
        "discard": _cards(doc.get("discard", []), ps, "discard"),
        "goals": _cards(doc.get("goals", []), ps, "goals"),
        "artifact": [_card(ps, doc.get("artifact"), "position field 'artifact'")],
    }
    decision = doc.get("decision")
    if decision is not None:
        decision = _object(decision, "decision", "the play in progress")
        zones["decision.card"] = [_card(ps, decision.get("card"), "position field 'decision.card'")]
    seen: dict[int, str] = {}
    for zone, cards in zones.items():
        for c in cards:
            if c in seen:
                raise PositionError(f"card {ps.card_ids[c]} is in both {seen[c]} and {zone}")
            seen[c] = zone
    missing = [ps.card_ids[c] for c in range(len(ps.card_ids)) if c not in seen]
    if missing:
        raise PositionError(f"cards missing from every zone: {', '.join(missing)}")

    m.playset = ps
    m.seed = seed
    m.start_setting = start
    m._events, m._history, m._logging, m._keep_history = [], [], True, True
    m.chance = False
    z = m.zones = _zones(ps, zones)
    t = m.turn = _turn(doc, ps.variant)
    if decision is not None and t.player >= 0:  # the card being played is its player's, as in their hand
        z.known[zones["decision.card"][0]] = 1 << t.player
    _knowledge(doc, m, seen)
    _conversions(doc, m, seen)
    _guards(doc, m, seen)
    for c in _cards(doc.get("recalled", []), ps, "recalled"):
        z.recalled[c] = 1
    m.effect = EffectState()
    if t.winner < 0:
        if decision is None:
            t.phase = SELECT
            if not z.hands[t.player]:
                raise PositionError(f"player {t.player} is to play but has an empty hand (they would pass, T2)")
        else:
            _decision(m, decision, zones["decision.card"][0])
    elif decision is not None:
        raise PositionError("position field 'decision': a finished match has no decision in progress")
    m.origin = to_position(m)  # the record of this match starts from here


def _zones(ps: Playset, zones: dict[str, list[int]]) -> Zones:
    z = Zones(ps.printed_skill, ps.printed_rank)
    z.hands = [zones["hands[0]"], zones["hands[1]"]]
    z.factions = [zones["factions[0]"], zones["factions[1]"]]
    z.deck = zones["deck"][::-1]
    z.discard = zones["discard"]
    z.goals = zones["goals"]
    z.artifact = zones["artifact"][0]
    for player in (0, 1):
        for c in z.hands[player]:
            z.known[c] = 1 << player
    return z


def _turn(doc: Mapping[str, object], variant: Variant) -> TurnState:
    t = TurnState()
    wins = doc.get("round_wins", [0, 0])
    to_win = variant.rounds_to_win
    if (not isinstance(wins, list) or len(wins) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w <= to_win for w in wins)
            or sum(wins) > variant.max_rounds or wins == [to_win, to_win]):
        raise PositionError(f"position field 'round_wins' must be two numbers from 0 to {to_win} ({to_win} ends "
                            "the match)")
    winner = doc.get("winner")
    over = to_win in wins
    if winner is not None or over:
        if not _is_player(winner) or wins[winner] != to_win:
            raise PositionError(f"position field 'winner' must name the player with {to_win} round "
                                f"win{'s' if to_win > 1 else ''} (and only a finished match has one)")
        if "to_play" in doc:
            raise PositionError("position field 'to_play': nobody plays in a finished match")
    played = sum(wins)
    round_no = _int(doc, "round", 1, variant.max_rounds, played + (0 if over else 1))
    if round_no != played + (0 if over else 1):
        raise PositionError(f"round {round_no} does not follow from round wins {wins}")
    t.round_no = round_no
    t.round_wins = list(wins)
    t.round_results = _round_results(doc, wins)
    t.holder = _int(doc, "artifact_holder", 0, 1)
    t.lead = _int(doc, "lead", 0, 1, t.holder)
    t.turn_no = _int(doc, "turn", 1, 1000, 1)
    t.first_holders = [t.holder]
    if over:
        t.winner = winner  # type: ignore[assignment]
        t.phase = OVER
        t.player = -1
        return t
    t.player = _int(doc, "to_play", 0, 1, t.lead)
    t.turn_step = 0 if t.player == t.lead else 1
    if t.lead != t.holder:
        raise PositionError("during a turn the lead is the artifact holder (T1): it passes only at the end")
    return t


def _round_results(doc: Mapping[str, object], wins: list[int]) -> list[tuple[int, int]]:
    results = doc.get("round_results")
    if results is None:  # the rounds won, by outscoring, player 0's first
        return [(p, OUTSCORED) for p in (0, 1) for _ in range(wins[p])]
    if not isinstance(results, list) or len(results) != sum(wins):
        raise PositionError("position field 'round_results' must list one result per round won")
    out = []
    for i, item in enumerate(results):
        if (not isinstance(item, dict) or set(item) != {"winner", "reason"} or not _is_player(item["winner"])
                or item["reason"] not in END_REASONS):
            raise PositionError(f"position field 'round_results[{i}]' must be {{\"winner\": 0 or 1, \"reason\": "
                                "\"outscored\" or \"hands_empty\"}")
        out.append((int(item["winner"]), END_REASONS.index(item["reason"])))
    if [sum(1 for w, _ in out if w == p) for p in (0, 1)] != wins:
        raise PositionError("position field 'round_results' does not agree with 'round_wins'")
    return out


def _decision(m: Match, doc: dict[str, object], card: int) -> None:
    """The play in progress: the card chosen, and how far its effect got."""
    t, e, ps = m.turn, m.effect, m.playset
    t.active = card
    effect = doc.get("effect")
    if set(doc) - {"card", "effect"}:
        raise PositionError("position field 'decision' has only 'card' and 'effect'")
    if effect is None:
        t.phase = MODE
        return
    effect = _object(effect, "decision.effect", "the effect in progress")
    if set(effect) - _EFFECT_KEYS:
        raise PositionError(f"position field 'decision.effect' has only {', '.join(sorted(_EFFECT_KEYS))}")
    where = "position field 'decision.effect'"
    e.card = _card(ps, effect.get("card", ps.card_ids[card]), f"{where}.card")
    if e.card != card and e.card not in m.zones.discard:
        raise PositionError(f"{where}.card: a card whose effect is borrowed is in the discard pile")
    e.kind = kind = ps.effect_kind[e.card]
    e.args = ps.effect_args[e.card]
    step = effect.get("step", "target")
    if step not in STEP_NAMES:
        raise PositionError(f"{where}.step must be one of {', '.join(STEP_NAMES)}")
    e.step = STEP_NAMES.index(step)
    e.remaining = _int(effect, "remaining", 1, kind.picks(e.args), kind.picks(e.args), "decision.effect")
    e.decisions = _int(effect, "decisions", 0, 100, 0, "decision.effect")
    pending = effect.get("pending")
    e.pending = -1 if pending is None else _card(ps, pending, f"{where}.pending")
    e.picked = _cards(effect.get("picked", []), ps, "decision.effect.picked")
    e.revealed = _cards(effect.get("revealed", []), ps, "decision.effect.revealed")
    z = m.zones
    if e.revealed and z.deck[len(z.deck) - len(e.revealed):][::-1] != e.revealed:
        raise PositionError(f"{where}.revealed must be the top cards of the deck, top first")
    if any(z.faction_of(c) < 0 for c in e.picked):
        raise PositionError(f"{where}.picked names cards in a faction")
    t.phase = EFFECT
    if not m.legal_actions():
        raise PositionError("position field 'decision': the effect has no legal decision at this step")
    for c in e.revealed:
        z.known[c] = 3 if kind.public_choice(e.step) else 1 << t.player


def _conversions(doc: Mapping[str, object], m: Match, seen: dict[int, str]) -> None:
    ps, z = m.playset, m.zones
    conv = _object(doc.get("conversions", {}), "conversions", "card id -> conversion")
    for cid, spec in conv.items():
        c = _card(ps, cid, "conversions")
        where = f"conversions.{ps.card_ids[c]}"
        if not seen[c].startswith("factions"):
            raise PositionError(f"conversions: {ps.card_ids[c]} is in {seen[c]}; only cards in a faction can be "
                                "converted (C2, C7)")
        if not isinstance(spec, dict) or set(spec) - {"skillset", "rank", "until_end_of_turn", "reverts_to"}:
            raise PositionError(f"{where} must be an object with skillset, rank, until_end_of_turn and (for a "
                                "conversion until the end of the turn) reverts_to")
        skill, rank = _skill_rank(spec, m, c, where)
        z.skill[c] = skill
        z.rank[c] = rank
        if spec.get("until_end_of_turn", False) is True:
            back = spec.get("reverts_to", {})
            if not isinstance(back, dict) or set(back) - {"skillset", "rank"}:
                raise PositionError(f"{where}.reverts_to must be an object with skillset and rank")
            old_skill, old_rank = _skill_rank(back, m, c, f"{where}.reverts_to")
            z.temp.append((c, old_skill, old_rank, skill, rank))
        elif "reverts_to" in spec:
            raise PositionError(f"{where}.reverts_to: only a conversion until the end of the turn reverts")


def _skill_rank(spec: Mapping[str, object], m: Match, c: int, where: str) -> tuple[int, int]:
    """A skillset and rank (each defaulting to the printed card's) for a conversion."""
    ps = m.playset
    name = spec.get("skillset", ps.skillsets[ps.printed_skill[c]])
    name = name.capitalize() if isinstance(name, str) else name
    if not isinstance(name, str) or name not in ps.skillsets:
        raise PositionError(f"{where}.skillset: {quote(name)} is not in the playset (C4)")
    return ps.skillsets.index(name), _int(spec, "rank", 1, 6, ps.printed_rank[c], where)


def _guards(doc: Mapping[str, object], m: Match, seen: dict[int, str]) -> None:
    ps = m.playset
    guards = _object(doc.get("guards", {}), "guards", "card id -> guarding player")
    for cid, who in guards.items():
        c = _card(ps, cid, "guards")
        if not _is_player(who):
            raise PositionError(f"guards.{ps.card_ids[c]} must be 0 or 1, got {quote(who)}")
        if seen[c] != f"factions[{who}]":
            raise PositionError(f"guards: {ps.card_ids[c]} is in {seen[c]}; a guard protects a card in its "
                                f"guarder's faction (factions[{who}])")
        m.zones.guard[c] = who


def _knowledge(doc: Mapping[str, object], m: Match, seen: dict[int, str]) -> None:
    ps = m.playset
    known = _object(doc.get("known", {}), "known", "card id -> players who know its place")
    for cid, players in known.items():
        c = _card(ps, cid, "known")
        zone = seen[c]
        if zone not in ("hands[0]", "hands[1]", "deck", "decision.card"):
            raise PositionError(f"known: {ps.card_ids[c]} is in {zone}; only cards in a hand, the deck or being "
                                "chosen can be known or unknown (the artifact is never known)")
        if zone == "decision.card":
            zone = f"hands[{m.turn.player}]"  # still its player's, like a card in their hand
        if (not isinstance(players, list) or len(players) > 2
                or not all(_is_player(p) for p in players)
                or len(set(players)) != len(players)):
            raise PositionError(f"known.{ps.card_ids[c]} must be a list of players (0, 1), got {quote(players)}")
        if zone.startswith("hands") and int(zone[6]) not in players:
            raise PositionError(f"known.{ps.card_ids[c]}: a card in {zone} is always known to its owner")
        m.zones.known[c] = sum(1 << p for p in players)
