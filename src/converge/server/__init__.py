"""Online play: a FastAPI server with a browser client, matches stored in SQLite or PostgreSQL.

Install the ``web`` extra (``pip install 'converge-game[web]'``) and run ``converge serve``; see
:func:`converge.server.app.create_app` for the API and :mod:`converge.server.protocol` for the
WebSocket messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(db_url: str | None = None, **settings: Any) -> FastAPI:
    """The ASGI application (see :func:`converge.server.app.create_app`)."""
    from converge.server.app import create_app as _create_app

    return _create_app(db_url, **settings)


__all__ = ["create_app"]
