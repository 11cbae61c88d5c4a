"""The server's shape, checked (issue 24): files of at most 600 lines, classes of at most ~20 methods, no
import circle between its modules, and a session that only changes itself."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "src" / "converge" / "server"
MAX_LINES = 600
MAX_METHODS = 20


def _modules() -> dict[str, Path]:
    out = {}
    for path in SERVER.rglob("*.py"):
        parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The server modules ``path`` imports, at module level or inside functions (not under TYPE_CHECKING)."""
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    found.add(name if name in modules else node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            for field in ("body", "orelse", "finalbody", "handlers"):
                visit(getattr(node, field, None) or [])

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {m for m in found if m in modules}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return cycles


def test_no_file_of_the_server_has_more_than_600_lines() -> None:
    long = {str(p.relative_to(SERVER)): n for p in SERVER.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_class_of_the_server_has_more_than_about_20_methods() -> None:
    big = []
    for path in SERVER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = sum(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in node.body)
                if methods > MAX_METHODS:
                    big.append(f"{path.relative_to(SERVER)}: {node.name} ({methods})")
    assert big == []


def test_no_import_circle_between_the_servers_modules() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    assert import_cycles(graph) == []
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]  # it can fail


def _outside_writes(tree: ast.AST) -> list[str]:
    """Assignments to an attribute of a variable named ``session`` (``session.x = ...``, ``session.row.y +=``)."""
    out = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            for t in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                base = t.value if isinstance(t, ast.Subscript) else t
                while isinstance(base, ast.Attribute):
                    base = base.value
                if isinstance(base, ast.Name) and base.id == "session" and base is not t:
                    out.append(ast.unparse(t))
    return out


def test_a_session_changes_itself_nothing_outside_writes_its_attributes() -> None:
    found = [f"{p.relative_to(SERVER)}: {w}" for p in SERVER.rglob("*.py") if p.name != "session.py"
             for w in _outside_writes(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []
    assert _outside_writes(ast.parse("session.owned = True\nsession.row.status, x = 'over', 1\n")) == [
        "session.owned", "session.row.status"]
