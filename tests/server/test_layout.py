"""The shape of the server (and of the command line's files and the full-screen game's app), checked: files of
at most 600 lines, classes of at most ~20 methods (the session, the one writer of a live match, has its
commands beside), constructors of at most 6 collaborators, a session that only changes itself, layers that
point one way, and no cycle among the play units (no import circle: tests/test_architecture.py, for the whole
package)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

SERVER = ROOT / "src" / "converge" / "server"
MAX_LINES = 600
MAX_METHODS = 20
MAX_COLLABORATORS = 6
#: The live match's session is the one writer of its row, match, tasks, clock and connections: beside its
#: reads, a command for each change the play units make (a line or two each, see play/match/session.py).
MAX_METHODS_OF = {"Session": 34}


def test_no_file_of_the_server_the_command_line_or_the_simulator_has_more_than_600_lines() -> None:
    package = SERVER.parent
    long = {str(p.relative_to(package)): n for folder in ("server", "cli", "simulation")
            for p in (package / folder).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_class_of_the_server_has_more_than_about_20_methods() -> None:
    big = []
    for path in SERVER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in node.body)
                if methods > MAX_METHODS_OF.get(node.name, MAX_METHODS):
                    big.append(f"{path.relative_to(SERVER)}: {node.name} ({methods})")
    assert big == []


def _wide_constructors(tree: ast.AST) -> list[str]:
    """The classes whose ``__init__`` takes more than :data:`MAX_COLLABORATORS` parameters (``self`` aside)."""
    wide = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for init in node.body:
                if isinstance(init, ast.FunctionDef) and init.name == "__init__":
                    a = init.args
                    n = len(a.posonlyargs) + len(a.args) - 1 + len(a.kwonlyargs)
                    if n > MAX_COLLABORATORS:
                        wide.append(f"{node.name} ({n})")
    return wide


def test_no_constructor_of_the_server_takes_more_than_6_collaborators() -> None:
    """A unit that needs more is doing more than one job, or wiring by hand what an event would tell it."""
    wide = [f"{p.relative_to(SERVER)}: {w}" for p in SERVER.rglob("*.py")
            for w in _wide_constructors(ast.parse(p.read_text(encoding="utf-8")))]
    assert wide == []


def test_the_constructor_check_counts_every_kind_of_parameter() -> None:
    planted = ("class Wide:\n    def __init__(self, a, b, c, d, /, e, f, *, g=None):\n        pass\n"
               "class Six:\n    def __init__(self, a, b, c, d, e, f):\n        pass\n"
               "def __init__(a, b, c, d, e, f, g, h):\n    pass\n")  # (not a constructor)
    assert _wide_constructors(ast.parse(planted)) == ["Wide (7)"]


#: The parts of a live match's session (``server/play/match/session.py``) and the methods that change each: the
#: session is their one writer, so that "commit, then tell" happens in one place; others read them.
SESSION_PARTS: dict[str, frozenset[str]] = {
    "row": frozenset({"add_action", "add_seat_key", "extend_actions", "take_facts", "set_seat", "set_hints",
                      "end_by", "link_rematch", "unlink"}),
    "tasks": frozenset({"start", "take", "cancel", "cancel_all"}),
    "clock": frozenset({"start", "restart"}),
    "presence": frozenset({"add", "discard", "set_remote"}),
    "seating": frozenset({"known"}),
    "hints": frozenset({"once", "clear"}),
    "match": frozenset({"apply", "push", "restore", "move_card", "continue_effect", "resolve_effect_of",
                        "log_event"}),
}


def _session_changes(tree: ast.AST) -> list[str]:
    """Calls of a session part's changing methods (``session.tasks.start(...)``, also through a name bound
    to the part in the same function: ``presence = session.presence; presence.add(c)``) and writes into a
    part or the session itself (``session.row.status = ...``, ``session.row.seats[0].bot = ...``,
    ``session.owned = ...``), by line."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)

    def own(scope: ast.AST) -> list[ast.AST]:  # the scope's nodes, not those of the functions it defines
        out, todo = [], list(ast.iter_child_nodes(scope))
        while todo:
            n = todo.pop()
            out.append(n)
            if not isinstance(n, functions):
                todo += ast.iter_child_nodes(n)
        return out

    found: set[tuple[int, str]] = set()
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, functions))]:
        nodes = own(scope)
        aliases = {t.id: node.value.attr for node in nodes if isinstance(node, ast.Assign)
                   and isinstance(node.value, ast.Attribute) and node.value.attr in SESSION_PARTS
                   for t in node.targets if isinstance(t, ast.Name)}

        def part_of(e: ast.expr, aliases: dict[str, str] = aliases) -> str | None:
            if isinstance(e, ast.Attribute) and e.attr in SESSION_PARTS:
                return e.attr
            return aliases.get(e.id) if isinstance(e, ast.Name) else None

        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                part = part_of(node.func.value)
                if part is not None and node.func.attr in SESSION_PARTS[part]:
                    found.add((node.lineno, f"{ast.unparse(node.func)}()"))
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for target in [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])]:
                spine = target  # what is written into: x.a[i].b = ... writes into x (not into i)
                while isinstance(spine, (ast.Attribute, ast.Subscript)):
                    base = spine.value
                    if part_of(base) is not None or (isinstance(base, ast.Name) and base.id == "session"):
                        found.add((target.lineno, f"{ast.unparse(target)} ="))
                        break
                    spine = base
    return [f"{line}: {text}" for line, text in sorted(found)]


def test_no_unit_but_the_session_changes_a_live_match() -> None:
    session = SERVER / "play" / "match" / "session.py"
    found = [f"{p.relative_to(SERVER)}:{hit}" for p in SERVER.rglob("*.py") if p != session
             for hit in _session_changes(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []


def test_the_session_check_catches_a_unit_that_changes_a_session() -> None:
    code = ("async def f(session, srv):\n"
            "    session.tasks.start('x', g())\n"          # a changing method
            "    presence = session.presence\n"
            "    presence.add(conn)\n"                    # through a name bound to the part
            "    session.row.seats[0].bot = None\n"       # a write into a part
            "    session.row.status += 'x'\n"
            "    session.owned = True\n"                  # a write of the session's own attribute
            "    srv.tasks.add(t)\n"                      # (a set named tasks: add is not a session change)
            "    session.tasks.running('x')\n"            # (a read)
            "    session.start_task('x', g())\n")         # (through the session: allowed)
    assert _session_changes(ast.parse(code)) == [
        "2: session.tasks.start()", "4: presence.add()", "5: session.row.seats[0].bot =",
        "6: session.row.status =", "7: session.owned ="]


#: What each folder of the server may not import: the units above it. Storage returns rows and raises storage
#: errors, and leaves the rating maths to the lobby (the wire's TypedDicts, which some stores return, are below
#: both: converge.server.protocol); accounts stand on the lobby's players, and the lobby knows nothing of them;
#: the HTTP protocol's server writes its own errors without the security middleware.
LAYERS: dict[str, tuple[str, ...]] = {
    "storage": ("converge.server.lobby", "converge.server.play", "converge.server.api", "converge.server.accounts",
                "converge.server.transport", "converge.server.security", "converge.ratings.update_pair"),
    "lobby": ("converge.server.accounts", "converge.server.api"),
    "transport": ("converge.server.security.middleware", "converge.server.api"),
}


def _reaches_up(source: str, above: tuple[str, ...]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [n for n in names if n.startswith(above)]
    return found


def test_no_folder_of_the_server_imports_what_stands_above_it() -> None:
    reaching = {str(p.relative_to(SERVER)): up for folder, above in LAYERS.items()
                for p in (SERVER / folder).rglob("*.py")
                if (up := _reaches_up(p.read_text(encoding="utf-8"), above))}
    assert reaching == {}


def test_the_layer_check_catches_a_store_that_computes_ratings_and_a_lobby_that_mails() -> None:
    planted = "from converge.ratings import Rating, update_pair\nfrom converge.server.lobby import quick\n"
    assert _reaches_up(planted, LAYERS["storage"]) == ["converge.ratings.update_pair", "converge.server.lobby",
                                                       "converge.server.lobby.quick"]
    planted = "def f():\n    from converge.server.accounts.mailer import mailer_for\n"  # (inside a function too)
    assert _reaches_up(planted, LAYERS["lobby"]) == ["converge.server.accounts.mailer",
                                                     "converge.server.accounts.mailer.mailer_for"]


def _play_units(root: object) -> dict[int, tuple[object, set[int]]]:
    """The play units reachable from ``root`` (objects of ``converge.server.play``'s classes but the sessions,
    which are state, the event topics, which are how units hear of each other, and a unit's own timer, which
    calls it back), each with the units it holds: as an attribute, in a container attribute, behind a bound
    method or in a closure."""
    from converge.server.play.events import PlayEvents, Topic
    from converge.server.play.match.session import Session
    from converge.server.play.process.lifecycle import Periodic

    def is_unit(x: object) -> bool:
        return type(x).__module__.startswith("converge.server.play.") and not isinstance(
            x, (Session, Topic, PlayEvents, Periodic))

    def held(x: object) -> list[object]:
        found: list[object] = []
        for value in vars(x).values() if hasattr(x, "__dict__") else ():
            items = list(value.values()) if isinstance(value, dict) else list(value) \
                if isinstance(value, (list, tuple, set, frozenset)) else [value]
            for item in items:
                if hasattr(item, "__self__") and not isinstance(item, type):
                    item = item.__self__  # (a bound method: its object)
                for cell in getattr(item, "__closure__", None) or ():
                    found.append(cell.cell_contents)
                found.append(item)
        return [f for f in found if is_unit(f)]

    graph: dict[int, tuple[object, set[int]]] = {}
    todo = [root]
    while todo:
        unit = todo.pop()
        if id(unit) in graph:
            continue
        targets = held(unit)
        graph[id(unit)] = (unit, {id(t) for t in targets})
        todo += targets
    return graph


def _cycle(graph: dict[int, tuple[object, set[int]]]) -> list[str]:
    """A cycle of the graph (the units' class names), or [] if there is none."""
    state: dict[int, int] = {}  # 1: on the path, 2: done
    path: list[int] = []

    def visit(node: int) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in graph[node][1]:
            if state.get(nxt) == 1:
                loop = [*path[path.index(nxt):], nxt]
                return [type(graph[n][0]).__name__ for n in loop]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in graph:
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_cycle_among_the_play_units_of_a_running_hub(tmp_path: Path) -> None:
    """The units of a server's hub hold each other one way: the composition root makes them, and a unit that
    must hear of another's doing subscribes to its events (no closure calling back up, as the catch-up once
    was)."""
    from tests.server_support import client_for

    with client_for(tmp_path) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        graph = _play_units(hub)
        assert len({id(u) for u in vars(hub).values()} & set(graph)) >= 12  # (the check sees the units)
        assert _cycle(graph) == []


def test_the_cycle_check_finds_a_closure_that_calls_back_up(tmp_path: Path) -> None:
    from tests.server_support import client_for

    with client_for(tmp_path) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]

        async def catch_up(session: object, seq: int) -> bool:  # the old shape: a closure over a later unit
            return await hub.sync.caught_up(session, seq)

        commits = hub.moves.commits
        commits.catch_up = catch_up
        assert {"Hub", "Commits"} <= set(_cycle(_play_units(hub)))
        commits.catch_up = hub.sync.caught_up
        assert _cycle(_play_units(hub)) == []
        hub.sync.planted = hub.duties  # the unit the clocks call back holding the units that call it
        assert {"Sync", "Duties", "Clocks"} <= set(_cycle(_play_units(hub)))


def test_the_full_screen_games_app_keeps_to_its_flow() -> None:
    """The full-screen game's app is its flow (at most 20 methods): what is shown is its table screen's."""
    tree = ast.parse((SERVER.parent / "cli" / "tui" / "app.py").read_text(encoding="utf-8"))
    app = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "GameApp")
    methods = [b.name for b in app.body if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert 12 <= len(methods) <= MAX_METHODS, methods
