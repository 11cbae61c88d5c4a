"""Guard against testing a stale install: the package is installed (not editable) by `make test`."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

import converge

SRC = Path(__file__).resolve().parent.parent / "src" / "converge"


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(root.rglob("*")):
        if f.suffix in (".py", ".toml") and "__pycache__" not in f.parts:
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def pytest_sessionstart(session: pytest.Session) -> None:
    installed = Path(converge.__file__).resolve().parent
    if installed != SRC and _digest(installed) != _digest(SRC):
        pytest.exit(f"the installed converge ({installed}) differs from src/: run `make test`, which "
                    "reinstalls it", returncode=2)


@pytest.fixture(autouse=True)
def own_logging() -> Iterator[None]:
    """The logging configuration as it was, back after each test: a test that runs ``converge serve`` in this
    process lets it configure logging, whose handlers write to that test's captured stderr; left in place,
    every later log line would meet a closed file."""
    names = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
    saved = [(logging.getLogger(n), logging.getLogger(n).handlers[:], logging.getLogger(n).level,
              logging.getLogger(n).propagate) for n in names]
    yield
    for logger, handlers, level, propagate in saved:
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate


@pytest.fixture(scope="session")
def engine_is_pure() -> bool:
    return os.environ.get("CONVERGE_PURE") == "1"


@pytest.hookimpl(tryfirst=True)  # (before pytest-xdist reads the groups off the items)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``make test`` runs the tests on every core (pytest-xdist, ``--dist loadgroup``): a test that uses a
    module-scoped fixture (a server process, a browser) joins its module's ``xdist_group``, so that the
    module's tests run on one worker, which builds the fixture once, instead of on each."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is not None and any(defs[-1].scope == "module" for defs in info.name2fixturedefs.values()):
            item.add_marker(pytest.mark.xdist_group(f"module {item.nodeid.split('::')[0]}"))


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The PostgreSQL of this pytest process (each xdist worker has its own): $CONVERGE_TEST_POSTGRES_URL
    (its role must be allowed to create databases), or a throwaway cluster on a Unix socket (Debian's
    postgresql package); skipped when neither is available. Tests take a database of their own on it
    (:func:`postgres_url`)."""
    from converge.server.storage.pgcluster import ClusterUnavailable, ThrowawayCluster

    url = os.environ.get("CONVERGE_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    cluster = ThrowawayCluster()
    try:
        yield cluster.start()
    except ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL here ({exc}; apt-get install postgresql, or set CONVERGE_TEST_POSTGRES_URL)")
    finally:
        cluster.stop()


@contextlib.contextmanager
def _new_database(server: str) -> Iterator[str]:
    import psycopg
    from sqlalchemy import make_url

    name = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def postgres_databases(postgres_server: str) -> Callable[[], AbstractContextManager[str]]:
    """New databases on this worker's PostgreSQL, for fixtures that live longer than a test (a module's server
    processes): ``with postgres_databases() as url:`` gives the URL of a new, empty database, dropped at the
    ``with``'s end with any connection left open. A test takes :func:`postgres_url`."""
    return functools.partial(_new_database, postgres_server)


@pytest.fixture
def postgres_url(postgres_databases: Callable[[], AbstractContextManager[str]]) -> Iterator[str]:
    """For the server tests: the URL of a new, empty database of this test's own, dropped after the test with
    any connection it left open (a database per test: no test sees another's rows, in whatever order or
    worker the tests run; creating one takes a few hundredths of a second, a cluster a second or two). A
    fixture of a wider scope takes :func:`postgres_databases` instead."""
    with postgres_databases() as url:
        yield url
