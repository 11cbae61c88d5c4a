"""web/protocol.js is generated from where the server and the engine define the protocol (as docs/events.md is
from the event schema), holds their values, and is where the browser client takes its message types, error
codes, close codes and event kinds from."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

import converge.server.protocol_js as protocol_js
from converge.engine.events import EventKind
from converge.server.api.routes.pages import web_dir

WEB = web_dir()
SERVER = Path(protocol_js.__file__).resolve().parent
REGENERATE = "regenerate it: python -m converge.server.protocol_js > src/converge/web/protocol.js"


def test_the_committed_module_is_the_generated_one() -> None:
    assert (WEB / "protocol.js").read_text(encoding="utf-8") == protocol_js.render(), REGENERATE


def values(name: str) -> dict[str, object]:
    """One of protocol.js's constants, as a mapping of its keys to its values."""
    return {key: value for key, value, _meaning in protocol_js.constants()[name][1]}


def words(*names: str) -> set[str]:
    return {str(v) for name in names for v in values(name).values()}


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js to load the module with")
def test_it_loads_as_a_javascript_module_and_holds_the_definitions_values(tmp_path: Path) -> None:
    (tmp_path / "protocol.mjs").write_text(protocol_js.render(), encoding="utf-8")
    out = subprocess.run(["node", "--input-type=module", "-e",
                          f"import * as p from {json.dumps((tmp_path / 'protocol.mjs').as_uri())};"
                          " console.log(JSON.stringify(p));"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    got = json.loads(out)
    assert got == {name: values(name) for name in protocol_js.constants()}
    # and those are the server's and the engine's
    assert set(got["MATCH_TO_SERVER"].values()) == {"hello", "action", "rematch", "hint", "hints",
                                                     "resign", "chat", "ping"}
    assert {"not_found", "replaced", "unauthorized", "no_player", "bad_origin"} <= set(got["ERROR"].values())
    assert got["CLOSE"] == {"GOING_AWAY": 1001, "RECONNECT": 1012, "TRY_AGAIN": 1013, "POLICY": 1008,
                            "HELLO": 4400, "UNAUTHORIZED": 4401, "FORBIDDEN": 4403, "NOT_FOUND": 4404,
                            "REPLACED": 4409}
    assert got["EVENT"] == {kind.name: kind.label for kind in EventKind}
    assert got["ACTION"]["CARDS"] == got["ACTION"]["DISCARD"] == 18 and got["ACTION"]["DONE"] == 25


#: How the server's code names a message type it builds: {"type": "x"}, type="x", or a typed message's
#: field ``type: Literal["x"]``.
_BUILT = re.compile(r"""["']type["'] \s*:\s* ["'](\w+)["']
                     | \btype \s*=\s* ["'](\w+)["']
                     | \btype \s*:\s* Literal\[["'](\w+)["']\]""", re.VERBOSE)


def test_it_names_every_message_the_server_builds_and_only_those() -> None:
    """Each message type the server's code builds is declared (protocol/messages.py, hence named in
    protocol.js), and each type protocol.js names still appears in the server's code (a rename there fails
    here)."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in SERVER.rglob("*.py") if p.name != "protocol_js.py")
    built = {a or b or c for a, b, c in _BUILT.findall(sources)}
    named = words("MATCH_TO_CLIENT", "LOBBY_TO_CLIENT")
    assert built - words("MATCH_TO_SERVER", "LOBBY_TO_SERVER") - named == set(), \
        "declare the server's new messages in converge.server.protocol.messages"
    assert {t for t in named if f'"{t}"' not in sources} == set(), "a message protocol_js names is gone"


def _modules() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(WEB.glob("*.js")) if p.name != "protocol.js"}


def test_the_client_takes_the_codes_and_kinds_from_protocol_js() -> None:
    """No close code, and no message type, error code or event kind written as a literal where the page compares
    or sends one: each comes from protocol.js."""
    protocol = words("MATCH_TO_SERVER", "MATCH_TO_CLIENT", "LOBBY_TO_SERVER", "LOBBY_TO_CLIENT", "ERROR", "EVENT")
    closes = words("CLOSE")
    compared = re.compile(r"""(?: \.(?:type|code|kind) \s*[!=]==?\s* | \bcase\s+ | \btype:\s* ) "(\w+)"
                              | \[([^\]]*)\]\.includes\(\w+\.kind\)""", re.VERBOSE)
    for name, text in _modules().items():
        assert not [n for n in re.findall(r"\b\d{4}\b", text) if n in closes], f"{name}: a close code as a number"
        for literal, listed in compared.findall(text):
            found = {literal} if literal else set(re.findall(r'"(\w+)"', listed))
            assert not found & protocol, f"{name} writes {sorted(found & protocol)}: take it from protocol.js"
        uses = re.search(r'import\s*\{[^}]*\}\s*from\s*"\./protocol\.js"', text)
        if name in ("match.js", "lobby.js", "transport.js"):
            assert uses, f"{name} speaks to the server: its messages come from protocol.js"
