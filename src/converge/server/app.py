"""The web server: a FastAPI application serving the browser client, a JSON API and two WebSockets. This
module assembles it — the database (:mod:`converge.server.storage`), the live matches
(:class:`~converge.server.play.hub.Hub`), the lobby (:class:`~converge.server.lobby.service.Lobby`) and the
API (:mod:`converge.server.api`): the routes live per resource in :mod:`converge.server.api.routes`, their
request bodies in :mod:`converge.server.api.models` and every message they answer with in
:mod:`converge.server.protocol.messages` (``/openapi.json`` documents them all when ``docs`` is on).

HTTP API (JSON; a seat is named by its token in ``Authorization: Bearer <token>``)::

    GET  /api/options                    bots, skillsets, sets, clock limits
    GET  /api/status                     this process's load: matches and connections held, its bots' queue
                                         and thinking times (for operators; nothing about any match)
    GET  /api/rules                      the rules for players: {"markdown", "html", "glossary"}
    GET  /api/rules/developer            the developer rulebook (every ruling, its code and test)
    GET  /api/tutorial                   the tutorial's script (converge.server.learning.tutorial)
    POST /api/matches                    {"opponent": "bot"|"friend", "bot": "medium",
                                          "playset": [...]|"catalysts"|"random",
                                          "seat": 0|1|"random", "clock": seconds|null}
                                         -> {"match_id", "seat", "token", "url", "invite_url", "watch_url"}
    GET  /api/matches/{id}               the caller's view (spectator's without a token)
    POST /api/matches/{id}/actions       {"action": id|name, "seq": n}
    POST /api/matches/{id}/hint          the strong bot's options for the caller's decision, each with
                                         its estimated chance to win the round (from the caller's view)
    POST /api/matches/{id}/hints         {"allow": true|false}: allow hints (a friend match: both must)
    POST /api/matches/{id}/rematch       -> {"match_id", "url"}
    GET  /api/matches/{id}/record        once the match is over
    GET  /api/matches/{id}/replay?step=k&view=v   once the match is over
    WS   /ws/{id}                        see :mod:`converge.server.protocol.messages`

Every error, of every endpoint (a bad query parameter, an unknown path or method included), is
``{"error": {"code": "...", "message": "..."}}`` with the HTTP status of its code
(:data:`converge.server.protocol.errors.ERROR_STATUS`).

Pages (GET and HEAD): ``/`` (create a match), ``/m/{id}`` (play, watch, replay), ``/tutorial``, and
``/rules`` and ``/rules/developer`` (rendered on the server); the seat token travels in the URL fragment
(``/m/{id}#token=...``), which browsers never send to the server.

Limits (:class:`~converge.server.config.ServerConfig`): matches created per client address (per second
and per hour, rematches included); per-connection message rates; spectators per match and per address,
counted apart from the seats, which can always connect; lobby connections per address and in all; the
size of request heads and bodies. WebSocket handshakes and writes from pages of other origins are refused
(:class:`~converge.server.security.origins.OriginPolicy`). Finished and abandoned matches are deleted as the
retention settings say, by a clean-up that runs at start-up and then periodically.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from converge.extensions import load_extensions
from converge.server.accounts.service import AccountService
from converge.server.api import errors
from converge.server.api.deps import ServerState
from converge.server.api.routes import (
    accounts,
    admin,
    friends,
    lobby,
    lobby_ws,
    match_ws,
    matches,
    ops,
    pages,
    people,
    puzzles,
    site,
    tournaments,
)
from converge.server.api.routes.pages import web_dir
from converge.server.config import ServerConfig, parse_bind
from converge.server.lobby.rekey import names_at_open
from converge.server.lobby.service import Lobby
from converge.server.moderation.service import Moderation
from converge.server.ops.metrics import Metrics
from converge.server.ops.readiness import DatabasePing, Readiness
from converge.server.people.challenges import Challenges
from converge.server.people.chat import Chat
from converge.server.people.follows import Follows
from converge.server.play.hub import Hub
from converge.server.puzzles.service import Puzzles
from converge.server.security.middleware import SecurityMiddleware
from converge.server.security.origins import OriginPolicy
from converge.server.storage.backup import AtOpen
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Writer
from converge.server.tournaments.director import Director, record_result
from converge.server.tournaments.service import Tournaments
from converge.server.transport.serving import ForwardedHeaders

log = logging.getLogger("converge.server")


#: What a server checks as it opens the database, after storage's own repairs, in the opening transaction: the
#: stored names keyed again if the name rules changed. `converge db upgrade` and `restore` do the same.
AT_OPEN: AtOpen = (names_at_open,)


def create_app(db_url: str | None = None, config: ServerConfig | None = None, **settings: Any) -> FastAPI:
    """The ASGI application. ``db_url``: an SQLAlchemy URL or an SQLite file path (default: the user's data
    directory); ``settings`` override fields of :class:`ServerConfig` (e.g. ``bot_delay=0``)."""
    cfg = replace(config or ServerConfig(), **settings)
    # the extensions before any deck is read: the installed ones and those CONVERGE_PLUGINS names (which
    # `converge serve --plugin` sets; serve-bench's server processes inherit it); its bot workers load them too
    load_extensions()
    if db_url is not None:
        cfg.db_url = db_url
    if cfg.metrics_bind is not None:
        try:
            parse_bind(cfg.metrics_bind)
        except ValueError as exc:
            raise ValueError(f"metrics_bind: {exc}") from None
    metrics = Metrics()
    storage = Storage(cfg.resolved_db_url(), cfg.sqlite_sync, exclusive=True, at_open=AT_OPEN)
    writer = Writer(storage, meter=metrics)
    hub = Hub(cfg, storage, writer, metrics)
    finding = Lobby(hub)
    signing = AccountService(hub, finding)
    directing = Director(cfg, writer, finding.seating, hub.life)
    events = Tournaments(finding.players, finding.seating, writer, directing)
    chat = Chat(cfg, storage.engine, writer, hub.life, hub.coord.multi)
    following = Follows(finding.players, finding.room, hub, writer)
    solving = Puzzles(finding.players, storage, writer, hub.life, cfg.puzzle_scan_s, hub.wall)
    challenging = Challenges(finding.players, finding.seating, following, signing.links.mailer, hub.wall)
    hub.writes.finish_hooks.append(record_result)  # (a tournament game's result, in the match's last commit)
    metrics.watch(hub, finding)
    readiness = Readiness()  # (more checks: app.state.readiness.add(name, check))
    readiness.add("database", DatabasePing(storage.engine))
    readiness.add("bots", hub.pool.trouble)
    readiness.add("jobs", hub.life.jobs.trouble)  # (a background job failing: the database away, or worse)

    async def drain() -> int:
        """On SIGTERM (:mod:`converge.server.transport.draining`): ready no more, then the hub's drain."""
        readiness.add("draining", lambda: "the process is shutting down")
        return await hub.drain(finding.connections())

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The libraries' objects live as long as the process: keep them out of the garbage collector's full
        # collections, whose pauses would otherwise stall every match for 100-200 ms now and then.
        if cfg.gc_freeze:
            gc.collect()
            gc.freeze()
        if cfg.metrics_bind:
            try:
                metrics.listen(cfg.metrics_bind)
            except OSError:
                await asyncio.to_thread(writer.close)
                storage.close()
                raise
        await hub.start()
        signing.start()
        directing.start()
        chat.start()
        solving.start()
        try:
            yield
        finally:
            await signing.close()
            await finding.close()
            await hub.close()
            await asyncio.to_thread(writer.close)
            storage.close()
            metrics.close()

    app = FastAPI(title="Converge", summary="Play Converge in the browser: the match API and its WebSocket",
                  lifespan=lifespan, docs_url="/docs" if cfg.docs else None, redoc_url=None,
                  openapi_url="/openapi.json" if cfg.docs else None,
                  strict_content_type=False)  # a JSON body without a Content-Type (curl -d) is still JSON
    app.state.hub = hub
    app.state.lobby = finding
    app.state.accounts = signing
    app.state.config = cfg
    app.state.server = ServerState.build(hub, finding, signing, events, chat, metrics)
    app.state.metrics = metrics
    app.state.readiness = readiness
    app.state.drain = drain
    app.state.follows = following
    app.state.puzzles = solving
    app.state.challenges = challenging
    app.state.moderation = Moderation(hub, finding, events)
    app.add_middleware(SecurityMiddleware, max_body=cfg.max_body, origins=OriginPolicy(cfg.allowed_origins),
                       meter=metrics)
    if cfg.proxy_headers:  # outside the origin check: it reads the host the proxy says the browser used
        app.add_middleware(ForwardedHeaders, trusted=cfg.forwarded_allow_ips)
    errors.install(app, metrics)
    # the lobby's socket first: /ws/lobby before the matches' /ws/{match_id}
    for router in (lobby_ws.router, lobby.router, accounts.router, pages.router, site.router, matches.router,
                   match_ws.router, tournaments.router, people.router, friends.router, puzzles.router, ops.router,
                   admin.router, admin.reports_router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=web_dir()), name="static")
    return app


__all__ = ["create_app", "web_dir"]
