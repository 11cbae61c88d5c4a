"""Guard against testing a stale install: the package is installed (not editable) by `make test`."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterator
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


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """For the server tests: $CONVERGE_TEST_POSTGRES_URL, or a throwaway PostgreSQL cluster on a Unix socket
    (Debian's postgresql package); skipped when neither is available."""
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

