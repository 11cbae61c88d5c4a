"""What this server offers a new match: the bots, the skillsets and their sets, the clock limits; the
playsets it has built, and the checking of a new match's settings."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass

from converge.bots import BOTS, LEVELS, bot_display_name
from converge.cards.loader import DeckError, load_catalog
from converge.cards.palette import COLOR_NAMES
from converge.engine.errors import ConvergeError
from converge.engine.observation import printed_card
from converge.engine.playset import BUILTIN_ORDER, SETS, Playset, all_playsets, catalog_order
from converge.server.config import ServerConfig
from converge.server.protocol.answers import CardGallery, GallerySkillset, Options, SkillsetInfo
from converge.server.protocol.errors import ProtocolError

PREFERRED_DEFAULT_BOTS = ("medium", "greedy")


def default_bot() -> str:
    """The bot offered first: the middle level when it exists."""
    for name in PREFERRED_DEFAULT_BOTS:
        if name in BOTS:
            return name
    return next(iter(BOTS))


@dataclass(frozen=True)
class Settings:
    """The checked settings of a new match."""

    playset: list[str]  #: three skillset names
    bot: str | None  #: the bot that plays the other seat (a match against a bot)
    seat: int  #: the creator's seat
    clock_ms: int | None  #: each player's time for the whole match
    move_s: int | None = None  #: a turn-based match: each decision's time, from the last move
    vacation_s: float | None = None  #: a turn-based match: each player's vacation, for the whole match


class Catalog:
    """The decks (the built-in ones and ``deck_dirs``), the playsets made of them so far, and the limits of a
    new match's settings."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.decks = load_catalog(config.deck_dirs)
        self.skillsets = catalog_order(self.decks)
        self.playsets = all_playsets(self.decks)
        self._built: dict[tuple[str, ...], Playset] = {}

    def options(self, level_ratings: Mapping[str, int | None]) -> Options:
        """The bots, skillsets, sets and clock limits a new match may be created with: the bots players choose
        from are the levels, each with its fixed rating (``level_ratings``; None where it was never
        measured). The algorithms behind them (random, greedy, ismcts) are accepted too, but not offered."""
        return {
            "bots": list(LEVELS),
            "bot_names": {b: bot_display_name(b) for b in BOTS},
            "bot_ratings": {b: level_ratings.get(b) for b in LEVELS},
            "default_bot": default_bot(),
            "skillsets": [self._skillset(k) for k in self.skillsets],
            "sets": {name: list(keys) for name, keys in SETS.items()},
            "clock": {"min_s": self.config.clock_min_s, "max_s": self.config.clock_max_s},
            "move_hours": {"min": self.config.move_min_h, "max": self.config.move_max_h,
                           "vacation_days": self.config.vacation_days},
            "replace_after_s": self.config.replace_after or None,
        }

    def gallery(self) -> CardGallery:
        """Every card of the catalogue as printed, by skillset, and the set names and keywords they have."""
        skillsets: list[GallerySkillset] = [
            {**self._skillset(k), "custom": k not in BUILTIN_ORDER,  # (no deck folder reuses a built-in's name)
             "cards": [printed_card(c) for c in sorted(self.decks[k].cards, key=lambda c: c.rank)]}
            for k in self.skillsets]
        sets = dict.fromkeys(s["set"] for s in skillsets if s["set"])  # (each once, in order)
        keywords = dict.fromkeys(c["keyword"] for s in skillsets for c in s["cards"])
        return {"skillsets": skillsets, "sets": list(sets), "keywords": list(keywords)}

    def _skillset(self, key: str) -> SkillsetInfo:
        deck = self.decks[key]
        return {"key": key, "name": deck.skillset, "set": deck.set_name, "keyword": deck.keyword,
                "color": COLOR_NAMES.get(deck.color, deck.color)}

    @property
    def vacation_s(self) -> float:
        """Each player's vacation in a new turn-based match, in seconds."""
        return max(0.0, self.config.vacation_days) * 86400

    def playset(self, names: list[str]) -> Playset:
        """The playset of these three skillsets (built once), or a ProtocolError that says what is wrong."""
        key = tuple(sorted(names))
        ps = self._built.get(key)
        if ps is None:
            try:
                ps = Playset.from_names(names, self.config.deck_dirs)
            except (ConvergeError, DeckError) as exc:
                raise ProtocolError("malformed", str(exc).splitlines()[0]) from None
            self._built[key] = ps
        return ps

    def check(self, mode: object, playset: object, bot: object, seat: object, clock_s: object,
              move_hours: object = None) -> Settings:
        """The checked settings of a new match against a bot or a friend, or a ProtocolError: ``playset`` is
        three skillset names, a set name or "random"; ``seat`` 0, 1 or "random"; ``clock_s`` seconds or None;
        ``move_hours`` (a turn-based match between players) hours per move or None."""
        if mode not in ("bot", "friend"):
            raise ProtocolError("malformed", "\"opponent\" must be \"bot\" or \"friend\"")
        if playset is None or playset == "random":
            names = list(random.SystemRandom().choice(self.playsets))
        elif isinstance(playset, str) and playset in SETS:
            names = list(SETS[playset])
        elif (isinstance(playset, list) and len(playset) == 3
              and all(isinstance(n, str) and 0 < len(n) <= 32 for n in playset)):
            names = [n.strip().lower() for n in playset]
            unknown = [n for n in names if n not in self.decks]
            if unknown:
                raise ProtocolError("malformed", f"unknown skillset {unknown[0][:32]!r}")
            if len(set(names)) != 3:
                raise ProtocolError("malformed", "a playset is three different skillsets")
        else:
            raise ProtocolError("malformed", "\"playset\" is three skillset names, a set name or \"random\"")
        bot_name: str | None = None
        if mode == "bot":
            bot_name = default_bot() if bot is None else bot if isinstance(bot, str) else ""
            if bot_name not in BOTS:
                raise ProtocolError("malformed", f"\"bot\" must be one of {', '.join(BOTS)}")
        if seat is None or seat == "random":
            seat_no = secrets.randbelow(2)
        elif isinstance(seat, int) and not isinstance(seat, bool) and seat in (0, 1):
            seat_no = seat
        else:
            raise ProtocolError("malformed", "\"seat\" must be 0, 1 or \"random\"")
        clock_ms: int | None = None
        if clock_s is not None:
            lo, hi = self.config.clock_min_s, self.config.clock_max_s
            if isinstance(clock_s, bool) or not isinstance(clock_s, int) or not lo <= clock_s <= hi:
                raise ProtocolError("malformed", f"\"clock\" is seconds per player, {lo} to {hi}, or null")
            clock_ms = clock_s * 1000
        move_s: int | None = None
        if move_hours is not None:
            lo, hi = self.config.move_min_h, self.config.move_max_h
            if isinstance(move_hours, bool) or not isinstance(move_hours, int) or not lo <= move_hours <= hi:
                raise ProtocolError("malformed", f"\"move_hours\" is hours per move, {lo} to {hi}, or null")
            if mode != "friend":
                raise ProtocolError("malformed", "a turn-based match (\"move_hours\") is between two players, "
                                                 "not against a bot")
            if clock_ms is not None:
                raise ProtocolError("malformed", "a match has a clock for the whole match (\"clock\") or a time "
                                                 "per move (\"move_hours\"), not both")
            move_s = move_hours * 3600
        vacation = self.vacation_s if move_s is not None else None
        return Settings(names, bot_name, seat_no, clock_ms, move_s, vacation)
