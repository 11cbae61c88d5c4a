"""``converge serve-bench --target URL``: the benchmark against a site that is already running, through the
address players use. Its play through nginx across a server's restart is tests/test_container.py's; here, a
server reached directly, and each mistake or refusal said in one line."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import assert_user_error, run
from tests.server_support import Server, free_port, hang_guard  # noqa: F401 (a fixture)


def bench(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "converge", "serve-bench", *argv], capture_output=True,
                          text=True, timeout=300)


def test_serve_bench_plays_a_running_site_then_says_when_it_refuses_more_matches(tmp_path: Path) -> None:
    site = Server(tmp_path / "site.sqlite3", None, "--matches-per-hour", "6")
    site.start()
    try:
        done = bench("--target", site.base + "/", "--matches", "4", "--think-ms", "0-5", "--opponent", "mixed")
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == ("Converge server benchmark: 4 concurrent matches over WebSockets through "
                            f"{site.base}, each a client against a friend or the server's random bot")
        assert "4/4 matches finished; server CPU not measured (from outside the site)" in lines[2]
        assert "lost actions: 0, applied twice: 0, errors: 0, records replayed and matched: 4/4" in lines[4]
        # the site's limit for one address (6 matches an hour): 2 more, and the third is refused
        again = bench("--target", site.base, "--matches", "4", "--think-ms", "0-5", "--json")
        assert again.returncode == 2 and again.stdout == "" and "Traceback" not in again.stderr, again.stderr
        assert again.stderr.strip().splitlines() == [
            f"converge: error: {site.base} refused to create match 3 of 4: 429 (rate_limited: "
            + again.stderr.split("429 (rate_limited: ", 1)[1].strip()]
        assert "60 at once and 120 an hour by default; fewer --matches, or wait)" in again.stderr
    finally:
        site.stop()


class _Page(http.server.BaseHTTPRequestHandler):
    """A web server that is not Converge: a page at every path."""

    body, kind = b"<html>hello</html>", "text/html"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", self.kind)
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


class _OtherJson(_Page):
    """Another that answers JSON, not a match's options."""

    body, kind = json.dumps({"status": "ok"}).encode(), "application/json"


@pytest.fixture
def not_converge() -> Iterator[list[str]]:
    """Two web servers that are not Converge (one answers a page, one JSON): their addresses."""
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) for handler in (_Page, _OtherJson)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield [f"http://127.0.0.1:{s.server_port}" for s in servers]
    for server in servers:
        server.shutdown()
        server.server_close()


def test_an_address_that_is_not_a_converge_server_is_said_so(capsys: pytest.CaptureFixture[str],
                                                              not_converge: list[str]) -> None:
    page, other_json = not_converge
    code, _, err = run(capsys, "serve-bench", "--target", page, "--matches", "2")
    assert_user_error(code, err, f"{page} does not answer as a Converge server: GET /api/options answered "
                                 "200 (text/html), not the options of a new match")
    code, _, err = run(capsys, "serve-bench", "--target", other_json, "--matches", "2")
    assert_user_error(code, err, f"{other_json} does not answer as a Converge server", "200 (application/json)")


def test_an_address_where_nothing_answers_is_said_so(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code, _, err = run(capsys, "serve-bench", "--target", url, "--matches", "2")
    assert_user_error(code, err, f"nothing answers at {url} (", "is the site running, and is this its address?")


@pytest.mark.parametrize(("url", "said"), [
    ("ftp://example.org", "is not an http:// or https:// address with a host"),
    ("127.0.0.1:8000", "is not an http:// or https:// address with a host"),
    ("http://", "is not an http:// or https:// address with a host"),
    ("http://127.0.0.1:99999", "is not a URL"),
    ("http://127.0.0.1:8000/api", "give the site's address alone (scheme, host and port)"),
    ("https://play.example.org/?x=1", "give the site's address alone"),
    ("https://me:secret@play.example.org", "give the site's address alone"),
])
def test_a_target_that_is_no_sites_address_is_refused_before_anything_is_sent(
        capsys: pytest.CaptureFixture[str], url: str, said: str) -> None:
    code, _, err = run(capsys, "serve-bench", "--target", url)
    shown = url.replace(":secret@", ":***@")  # (a password is not repeated)
    assert_user_error(code, err, f"--target {shown!r}", said, "http")
    assert "secret" not in err


def test_the_flags_that_run_servers_here_are_refused_beside_target(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "serve-bench", "--target", "http://127.0.0.1:1", "--servers", "2", "--db",
                       "postgresql://x/y", "--restart-after", "3")
    assert_user_error(code, err, "--target plays against a site that is already running: --servers, --db and "
                                 "--restart-after are for the servers serve-bench starts itself")
    code, _, err = run(capsys, "serve-bench", "--target", "http://127.0.0.1:1", "--sqlite-sync", "FULL")
    assert_user_error(code, err, "--sqlite-sync is for the servers serve-bench starts itself")
