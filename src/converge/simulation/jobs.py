"""The balance simulator's jobs: what decides a simulation's results (:class:`SimulationSpec`), the
:class:`Chunk` s it is cut into, and playing one chunk (:func:`run_chunk`) — all a backend
(:mod:`converge.simulation.backends`) needs, in any process.

A :class:`SimulationSpec` says everything that decides the results: the playsets, the number of
matches per playset, the two bots, the base seed, the text of every deck file and the extension modules that
define the kinds those decks may name (each process loads them before it reads the decks). Each match draws its
engine seed and both bots' seeds from ``(base seed, playset, match index)`` alone (:func:`match_seeds`),
and bot 1 sits in seat 0 in even-numbered matches and seat 1 in odd ones. So a match's result does not
depend on which process plays it, in which order, on how many workers or on which backend.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from converge.bots import make_bot
from converge.cards.loader import builtin_sources, dir_sources, load_decks
from converge.cards.model import Deck
from converge.engine.playset import Playset, all_playsets, catalog_order
from converge.engine.seeds import derive_seed
from converge.extensions import load_extensions, named_plugins
from converge.simulation.runner import play_match
from converge.simulation.stats import END_REASONS, MatchReader, PlaysetTally, RoundRow

PlaysetNames = tuple[str, str, str]

#: Matches per chunk when the caller does not say: small enough to balance the workers and keep the
#: progress bar moving, large enough that sending a chunk costs nothing next to playing it.
DEFAULT_CHUNK = 25


def deck_sources(deck_dirs: Iterable[str] = ()) -> tuple[tuple[str, str], ...]:
    """The ``(file name, TOML text)`` of the built-in decks and of every deck in ``deck_dirs``.

    The text itself (not a path) travels to the workers, so a worker on another machine plays the same
    decks as the machine that started the job.
    """
    sources = list(builtin_sources())
    for d in deck_dirs:
        sources.extend(dir_sources(d))
    return tuple(sources)


def catalog_of(sources: Sequence[tuple[str, str]]) -> dict[str, Deck]:
    """The validated catalogue of some deck sources (raises :class:`~converge.cards.loader.DeckError`)."""
    return load_decks(list(sources))


@dataclass(frozen=True)
class SimulationSpec:
    """Everything that decides a simulation's results (and nothing that does not, such as the workers)."""

    playsets: tuple[PlaysetNames, ...]  # each in catalogue order, e.g. ("alchemist", "mechanist", "archivist")
    matches: int  # per playset
    bot1: str = "greedy"
    bot2: str = "greedy"
    seed: int = 0
    sources: tuple[tuple[str, str], ...] = field(default_factory=tuple, repr=False)  # every deck file
    #: the extension modules named by the user (--plugin, CONVERGE_PLUGINS): a worker loads them, and the
    #: installed extensions, before it reads the decks (converge.extensions)
    plugins: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return len(self.playsets) * self.matches

    @property
    def decks_digest(self) -> str:
        """A short fingerprint of the deck files the job plays with."""
        h = hashlib.sha256()
        for name, text in self.sources:
            h.update(name.encode())
            h.update(b"\0")
            h.update(text.encode())
            h.update(b"\0")
        return h.hexdigest()[:16]

    @staticmethod
    def build(playsets: Iterable[Sequence[str]] | None, matches: int, bot1: str = "greedy", bot2: str = "greedy",
              seed: int = 0, deck_dirs: Iterable[str] = (),
              plugins: Sequence[str] | None = None) -> SimulationSpec:
        """A checked spec: ``playsets`` None means every playset of the catalogue (84 for the built-ins);
        ``plugins`` None means the extension modules this process has loaded by name (which it loads first).

        Each playset is put in catalogue order and duplicates are dropped (the first one stays).
        Raises ``ValueError`` for an unknown bot, skillset or a bad count, and
        :class:`~converge.cards.loader.DeckError` for a bad deck file.
        """
        if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
            raise ValueError(f"the number of matches per playset must be a positive whole number, got {matches!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise ValueError(f"the seed must be a whole number from 0 to 2**63-1, got {seed!r}")
        b1, b2 = make_bot(bot1).name, make_bot(bot2).name  # ValueError for an unknown bot
        named = named_plugins() if plugins is None else tuple(plugins)
        load_extensions(named)
        sources = deck_sources(deck_dirs)
        catalog = catalog_of(sources)
        order = catalog_order(catalog)
        chosen: list[PlaysetNames] = []
        for names in (all_playsets(catalog) if playsets is None else playsets):
            keys = [n.strip().lower() for n in names]
            unknown = [k for k in keys if k not in catalog]
            if unknown:
                raise ValueError(f"unknown skillset {unknown[0]!r} (known: {', '.join(order)})")
            if len(keys) != 3 or len(set(keys)) != 3:
                raise ValueError(f"a playset is three different skillsets, got {','.join(keys)}")
            ps = tuple(sorted(keys, key=order.index))
            if ps not in chosen:
                chosen.append((ps[0], ps[1], ps[2]))
        if not chosen:
            raise ValueError("no playset to simulate")
        return SimulationSpec(tuple(chosen), matches, b1, b2, seed, sources, named)


def playset_key(names: Sequence[str]) -> str:
    """The playset's name in tables and summaries: ``"alchemist/mechanist/archivist"``."""
    return "/".join(names)


def match_seeds(seed: int, names: Sequence[str], index: int) -> tuple[int, int, int]:
    """The engine seed and the two bots' seeds of match ``index`` of a playset, from the base seed.

    >>> match_seeds(1, ["alchemist", "mechanist", "archivist"], 0) == match_seeds(1, ["alchemist", "mechanist",
    ...     "archivist"], 0)
    True
    """
    key = playset_key(names)
    match, bot1, bot2 = (derive_seed("converge-simulate", seed, key, index, p) for p in ("match", "bot1", "bot2"))
    return match, bot1, bot2


@dataclass(frozen=True)
class Chunk:
    """Matches ``start .. start+count-1`` of playset number ``playset`` of the spec."""

    index: int  # position in the job: results come back in this order
    playset: int
    start: int
    count: int


@dataclass
class ChunkResult:
    chunk: Chunk
    rows: list[RoundRow]
    tally: PlaysetTally


def plan_chunks(spec: SimulationSpec, chunk_size: int = DEFAULT_CHUNK) -> list[Chunk]:
    """The chunks of a job, playset by playset (their size never changes any result)."""
    if chunk_size < 1:
        raise ValueError("the chunk size must be at least 1")
    out: list[Chunk] = []
    for p in range(len(spec.playsets)):
        for start in range(0, spec.matches, chunk_size):
            out.append(Chunk(len(out), p, start, min(chunk_size, spec.matches - start)))
    return out


class ChunkRunner:
    """Plays chunks of one spec; keeps the spec's catalogue and playsets (one per worker process)."""

    def __init__(self, spec: SimulationSpec) -> None:
        self.spec = spec
        # A worker process (spawned, or a Ray task's, maybe on another machine) has loaded no extension yet:
        # without them, a deck naming their kinds does not load.
        load_extensions(spec.plugins)
        catalog = catalog_of(spec.sources)
        order = catalog_order(catalog)
        self.playsets = [Playset([catalog[n] for n in names], order) for names in spec.playsets]
        self.readers = [MatchReader(ps) for ps in self.playsets]

    def run(self, chunk: Chunk) -> ChunkResult:
        spec = self.spec
        names = spec.playsets[chunk.playset]
        key = playset_key(names)
        playset = self.playsets[chunk.playset]
        reader = self.readers[chunk.playset]
        tally = PlaysetTally()
        rows: list[RoundRow] = []
        for index in range(chunk.start, chunk.start + chunk.count):
            match_seed, seed1, seed2 = match_seeds(spec.seed, names, index)
            bot1, bot2 = make_bot(spec.bot1, seed1), make_bot(spec.bot2, seed2)
            bot1_seat = index % 2
            seats = (bot1, bot2) if bot1_seat == 0 else (bot2, bot1)
            match = play_match(playset, match_seed, seats, log_events=True)
            rounds = reader.read(match, tally, bot1_seat)
            names0, names1 = seats[0].name, seats[1].name
            for number, r in enumerate(rounds, 1):
                rows.append((key, index, match_seed, names0, names1, bot1_seat, number, r.start_holder, r.winner,
                             r.winner == r.start_holder, END_REASONS[r.reason], r.turns, r.plays, r.scores[0],
                             r.scores[1], match.winner, len(rounds)))
        return ChunkResult(chunk, rows, tally)


# One runner per process, for the spec it was last given (workers keep it between chunks).
_RUNNER: dict[SimulationSpec, ChunkRunner] = {}


def run_chunk(spec: SimulationSpec, chunk: Chunk) -> ChunkResult:
    """Play one chunk (in whatever process calls it)."""
    runner = _RUNNER.get(spec)
    if runner is None:
        _RUNNER.clear()
        runner = _RUNNER[spec] = ChunkRunner(spec)
    return runner.run(chunk)





__all__ = ["DEFAULT_CHUNK", "Chunk", "ChunkResult", "ChunkRunner", "SimulationSpec", "catalog_of", "deck_sources",
           "match_seeds", "plan_chunks", "playset_key", "run_chunk"]
