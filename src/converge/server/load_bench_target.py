"""``converge serve-bench --target URL``: the load benchmark against a site that is already running.

:func:`run_target` drives the site at the address players reach (its nginx, or any proxy) with the clients of
:mod:`converge.server.load_bench` and the same checks, through the public API only. The records of finished
matches are public (``GET /api/matches/ID/record``), so nothing lost and nothing twice is checked with no
token; what only the operators' paths say (each process's CPU, its bots, its database) is not measured.
Restarts are the host's to make meanwhile.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from converge.server.load_bench import Plan, _refusal, _run_clients

#: What ``GET /api/options`` of every Converge server holds: how ``--target`` knows it reached one.
OPTIONS_KEYS = ("bots", "skillsets", "sets", "clock")


def target_base(url: str) -> str:
    """The address of a running site as ``--target`` takes it, ``http(s)://host[:port]`` (a final slash
    allowed), without the slash; ValueError saying what is wrong with it."""
    from urllib.parse import urlsplit

    shown = re.sub(r"(//[^/@:]*:)[^/@]*@", r"\1***@", url)  # (a password given in it is not repeated)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError:
        raise ValueError(f"--target {shown!r} is not a URL: give the site's address, like "
                         "http://127.0.0.1:8000 or https://play.example.org") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--target {shown!r} is not an http:// or https:// address with a host, like "
                         "http://127.0.0.1:8000 or https://play.example.org")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"--target {shown!r}: give the site's address alone (scheme, host and port), "
                         "with no path, query or user: the server's API is at its root")
    return f"{parts.scheme}://{parts.netloc}"


def check_site(base: str, timeout: float = 10) -> None:
    """Nothing, when a Converge server answers at ``base`` (its ``GET /api/options``); else RuntimeError
    saying what answered instead, or that nothing did."""
    import httpx2 as httpx

    try:
        r = httpx.get(f"{base}/api/options", timeout=timeout)
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise RuntimeError(f"nothing answers at {base} ({reason[:200]}): is the site running, and is this "
                           "its address?") from None
    try:
        doc = r.json()
    except ValueError:
        doc = None
    if r.status_code != 200 or not isinstance(doc, dict) or not all(key in doc for key in OPTIONS_KEYS):
        raise RuntimeError(f"{base} does not answer as a Converge server: GET /api/options answered "
                           f"{_refusal(r)}, not the options of a new match")


def run_target(target: str, matches: int = 50, think_ms: tuple[int, int] = (300, 900), seed: int = 1,
               timeout: float = 600, opponent: str = "friend", bot: str = "random",
               clock_s: int | None = None) -> dict[str, Any]:
    """Play ``matches`` concurrent matches against the running site at ``target`` (its proxy's address, as
    players reach it) and return the figures, as :func:`run_bench` does for the servers it starts. Nothing is
    started or stopped here; only the public API is used (the records of finished matches are public)."""
    base = target_base(target)
    check_site(base)
    plan = Plan(matches, think_ms, seed, timeout, opponent, bot, clock_s)
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:  # pragma: no cover
        runner = asyncio.run
    result: dict[str, Any] = runner(_run_clients([base], plan, own=False))
    del result["database"], result["servers"]  # (the site's own: not seen through its proxy)
    result["target"] = base
    return result
