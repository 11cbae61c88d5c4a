"""Puzzles on the server: the package's set stored at the start, the next puzzle near a player's puzzle rating,
the daily one, attempts judged and rated, a player's dashboard, and new puzzles from finished matches.

A puzzle is shown as its mover saw it at the table — their observation and the follow-ups of their choices,
nothing else: the puzzle's record (which replays the whole deal) never leaves the server. An attempt is the
list of the mover's steps so far, sent whole each time (a page that reloads, or a key pressed twice, sends the
same list again and is judged the same); a finished attempt is stored once per player and puzzle, in one
transaction, and only that first one is rated (:mod:`converge.puzzles.rating`). A visitor who is no player
yet is judged but not rated.

Every :data:`SCAN_EVERY_S` seconds the server looks for puzzles in the finished matches it has not looked at
(a few at a time, in a worker thread): never a match in progress, and a puzzle keeps no names.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Literal

from converge.cards.palette import COLOR_NAMES
from converge.engine.observation import card_catalog
from converge.engine.schema import RecordDoc, legal_actions_of
from converge.engine.state import Match
from converge.puzzles.judge import Progress, Unsolved, follow
from converge.puzzles.make import puzzles_of
from converge.puzzles.model import Puzzle, shipped
from converge.puzzles.themes import theme_name
from converge.ratings import Rating
from converge.server.lobby.players import Players
from converge.server.play.match.turnlog import TurnLog, follow_ups
from converge.server.play.process.lifecycle import Lifecycle, Periodic
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import TurnSummary
from converge.server.protocol.puzzle_answers import (
    AttemptAnswer,
    AttemptResult,
    Dashboard,
    PuzzleShown,
    PuzzleState,
    RecentAttempt,
    Solving,
    ThemeCount,
    ThemeList,
    ThemeRecord,
    ThemeShown,
    Why,
)
from converge.server.storage import puzzle_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx, Writer

log = logging.getLogger("converge.server.puzzles")

#: Seconds between two looks for puzzles in newly finished matches, and how many matches each look takes.
SCAN_EVERY_S = 60.0
SCAN_BATCH = 5
#: The most steps an attempt may hold (a puzzle's line is far shorter).
MAX_STEPS = 40
#: A rating shown as provisional while its deviation is above this (as the lobby's).
PROVISIONAL_RD = 110.0


def theme_docs(keys: list[str]) -> list[ThemeShown]:
    return [{"key": k, "name": theme_name(k)} for k in keys]


def solving_doc(s: store.Solver) -> Solving:
    return {"rating": round(s.rating.r), "provisional": s.rating.rd > PROVISIONAL_RD, "streak": s.streak,
            "best_streak": s.best_streak, "tried": s.tried, "solved": s.solved}


def state_doc(match: Match, seat: int, seq: int) -> PuzzleState:
    return {"seq": seq, "observation": match.observation(seat), "next": follow_ups(match, seat)}


def daily_index(day: datetime.date, count: int) -> int:
    """Which of ``count`` puzzles is ``day``'s: from a hash of the date, the same on every process."""
    digest = hashlib.sha256(day.isoformat().encode()).digest()
    return int.from_bytes(digest[:8], "big") % count


class Puzzles:
    """The puzzles of one server process (their state is in the database: any process answers alike)."""

    def __init__(self, players: Players, storage: Storage, writer: Writer, life: Lifecycle,
                 scan_every_s: float = SCAN_EVERY_S, now: Callable[[], float] = time.time) -> None:
        self.players = players
        self.engine = storage.engine
        self.writer = writer
        self.now = now
        self._periodic = Periodic("puzzle_scan", "new puzzles from finished matches", scan_every_s, self.scan,
                                  life)
        self._stored = False

    def start(self) -> None:
        self._periodic.start()

    async def _ensure_stored(self) -> None:
        """The package's puzzles in the database (once per process; a puzzle already there is kept as it is)."""
        if self._stored:
            return
        puzzles = list(shipped())
        now = self.now()
        await self._write(lambda conn: store.add_puzzles(conn, puzzles, "shipped", now))
        self._stored = True

    async def _write(self, fn: Callable[[Tx], object]) -> None:
        try:
            await self.writer.write(fn)
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None

    # ------------------------------------------------------------------ showing

    async def _row(self, puzzle_id: str) -> store.PuzzleRow:
        await self._ensure_stored()
        row = await asyncio.to_thread(store.puzzle, self.engine, puzzle_id) if len(puzzle_id) <= 16 else None
        if row is None:
            raise ProtocolError("not_found", "there is no puzzle with that id")
        return row

    async def show(self, cookie: str | None, puzzle_id: str, daily: str | None = None) -> PuzzleShown:
        row = await self._row(puzzle_id)
        player = await self.players.player_of(cookie)
        me = await asyncio.to_thread(store.solver, self.engine, player.id) if player is not None else None
        tried = (await asyncio.to_thread(store.tried, self.engine, player.id, puzzle_id)
                 if player is not None else False)
        return await asyncio.to_thread(self._shown, row, me, tried, daily)

    def _shown(self, row: store.PuzzleRow, me: store.Solver | None, tried: bool, daily: str | None) -> PuzzleShown:
        p = row.puzzle
        start = p.start()
        colors = {d.skillset: COLOR_NAMES.get(d.color, d.color) for d in start.playset.decks}
        return {"id": p.id, "rating": round(row.rating.r), "themes": theme_docs(p.themes),
                "skillsets": list(start.playset.skillsets), "plays": p.plays, "daily": daily, "seat": p.mover,
                "cards": card_catalog(start), "colors": colors, "state": state_doc(start, p.mover, 0),
                "me": solving_doc(me) if me is not None else None, "tried": tried}

    async def next(self, cookie: str | None, theme: str | None, skip: str | None) -> PuzzleShown:
        """The untried puzzle nearest the caller's puzzle rating (of ``theme``); when every one was tried, the
        nearest of all."""
        await self._ensure_stored()
        if theme is not None and theme not in await asyncio.to_thread(store.theme_counts, self.engine):
            raise ProtocolError("malformed", "there are no puzzles of that theme")
        player = await self.players.player_of(cookie)
        me = await asyncio.to_thread(store.solver, self.engine, player.id) if player is not None else None
        r = me.rating.r if me is not None else Rating().r
        found = await asyncio.to_thread(store.nearest, self.engine, r, player.id if player else None, theme, skip)
        if found is None:
            found = await asyncio.to_thread(store.nearest, self.engine, r, None, theme, skip)
        if found is None:
            raise ProtocolError("not_found", "there are no puzzles here yet")
        return await self.show(cookie, found)

    async def daily(self, cookie: str | None) -> PuzzleShown:
        """Today's puzzle (UTC): one of the package's, the same on every process and all day."""
        day = datetime.datetime.fromtimestamp(self.now(), datetime.UTC).date()
        puzzles = sorted(p.id for p in shipped())
        return await self.show(cookie, puzzles[daily_index(day, len(puzzles))], day.isoformat())

    async def themes(self) -> ThemeList:
        await self._ensure_stored()
        counts = await asyncio.to_thread(store.theme_counts, self.engine)
        out: list[ThemeCount] = [{"key": k, "name": theme_name(k), "count": n} for k, n in counts.items()]
        out.sort(key=lambda t: (-t["count"], t["name"]))
        return {"themes": out}

    # ------------------------------------------------------------------ attempts

    async def attempt(self, cookie: str | None, puzzle_id: str, actions: list[int]) -> AttemptAnswer:
        """Judge the mover's steps so far (see the module doc); a finished attempt is stored and rated once."""
        if len(actions) > MAX_STEPS:
            raise ProtocolError("malformed", f"an attempt holds at most {MAX_STEPS} steps")
        row = await self._row(puzzle_id)
        try:
            progress, turns = await asyncio.to_thread(self._follow, row.puzzle, actions)
        except ValueError as exc:
            raise ProtocolError("illegal", str(exc)) from None
        except Unsolved:  # (a puzzle's line is solved when it is made; a step off it may meet a larger endgame)
            raise ProtocolError("storage", "this position cannot be judged now; try another play") from None
        state = state_doc(progress.match, row.puzzle.mover, len(actions))
        state["turns"] = turns
        if progress.status == "playing":
            return {"status": "playing", "state": state}
        player = await self.players.player_of(cookie)
        result: AttemptResult = {"rated": False, "me": None, "puzzle": None, "streak": 0,
                                 "solution": solution_words(row.puzzle), "why": why_docs(row.puzzle),
                                 "explanation": explanation(row.puzzle, progress)}
        if player is not None:
            solved = progress.status == "solved"
            now = self.now()
            done: list[store.Attempted] = []

            def record(conn: Tx) -> None:
                done[:] = [store.record_attempt(conn, player.id, puzzle_id, solved, now)]

            await self._write(record)
            stored = done[0]
            c = stored.change
            result.update({"rated": stored.rated, "streak": stored.solver.streak,
                           "me": {"before": round(c.player_before.r), "after": round(c.player_after.r)},
                           "puzzle": {"before": round(c.puzzle_before.r), "after": round(c.puzzle_after.r)}})
        status: Literal["solved", "failed"] = "solved" if progress.status == "solved" else "failed"
        return {"status": status, "state": state, "result": result}

    @staticmethod
    def _follow(puzzle: Puzzle, actions: list[int]) -> tuple[Progress, list[TurnSummary]]:
        """The attempt judged, and the turns it ended as the table sums them up (the board at a turn's end,
        which a round's end would otherwise replace by the next round's deal)."""
        start = puzzle.start()
        progress = follow(start, actions)
        log = TurnLog(start)
        return progress, [log.summary(s, puzzle.mover) for s in log.follow(progress.match)]

    async def dashboard(self, cookie: str | None) -> Dashboard:
        await self._ensure_stored()
        player = await self.players.player_of(cookie)
        if player is None:
            return {"me": None, "themes": [], "recent": []}
        me = await asyncio.to_thread(store.solver, self.engine, player.id)
        rows = await asyncio.to_thread(store.attempts, self.engine, player.id)
        by_theme: dict[str, list[int]] = {}
        for a in rows:
            for key in a.themes:
                counts = by_theme.setdefault(key, [0, 0])
                counts[0] += 1
                counts[1] += int(a.solved)
        themes: list[ThemeRecord] = [{"key": k, "name": theme_name(k), "tried": t, "solved": s}
                                     for k, (t, s) in by_theme.items()]
        themes.sort(key=lambda t: (t["solved"] / t["tried"], t["name"]))  # (the weakest first: to work on)
        recent: list[RecentAttempt] = [{"id": a.puzzle_id, "solved": a.solved, "at": a.at,
                                        "themes": theme_docs(a.themes)} for a in rows[:20]]
        return {"me": solving_doc(me), "themes": themes, "recent": recent}

    # ------------------------------------------------------------------ new puzzles from finished matches

    async def scan(self) -> int:
        """Look for puzzles in a few finished matches not looked at yet; how many puzzles were new."""
        ids = await asyncio.to_thread(store.unscanned, self.engine, SCAN_BATCH)
        found = 0
        for match_id in ids:
            record = await asyncio.to_thread(store.finished_record, self.engine, match_id)
            puzzles = await asyncio.to_thread(self._puzzles_of, record) if record is not None else []
            await self.writer.write(self._scanned(match_id, puzzles, self.now()))
            found += len(puzzles)
        if found:
            log.info("puzzles found in finished matches", extra={"puzzles": found, "matches": len(ids)})
        return found

    @staticmethod
    def _scanned(match_id: str, puzzles: list[Puzzle], now: float) -> Callable[[Tx], None]:
        return lambda conn: store.scanned(conn, match_id, puzzles, now)

    @staticmethod
    def _puzzles_of(record: RecordDoc) -> list[Puzzle]:
        try:
            return puzzles_of(record, "server")
        except Exception:  # (a record the engine cannot replay any more: a deck changed; no puzzle, logged)
            log.warning("a finished match could not be looked at for puzzles", exc_info=True)
            return []


def solution_words(puzzle: Puzzle) -> list[str]:
    """The mover's steps of the solution, as the table's menus word them."""
    words = []
    for match, action in puzzle.mover_steps():
        labels = {a["id"]: a["label"] for a in legal_actions_of(match.observation(puzzle.mover, events=False))}
        words.append(str(labels.get(action, action)))
    return words


def why_docs(puzzle: Puzzle) -> list[Why]:
    """Why each failing play fails, in words."""
    out: list[Why] = []
    for w in puzzle.wrong:
        if w.lost:
            text = (f"in {w.lost} of the {w.worlds} ways the hidden cards may lie, they can still win the round"
                    if w.lost < w.worlds else "they win the round against it, whatever cards they hold")
        else:
            text = "it wins only if you guess which cards they hold: no way of playing on wins in every case"
        out.append({"label": w.label, "text": text})
    return out


def explanation(puzzle: Puzzle, progress: Progress) -> str:
    if progress.status == "solved":
        return "Your play wins the round whatever they hold and however they reply."
    return ("That play does not win in every case: in some of the ways the hidden cards may lie, they can still "
            "win the round. The solution is below, with why the other plays fail.")
