"""The server's shape, checked: files of at most 600 lines, classes of at most ~20 methods, and a session that
only changes itself (no import circle: tests/test_architecture.py, for the whole package)."""

from __future__ import annotations

import ast

from tests.helpers import ROOT

SERVER = ROOT / "src" / "converge" / "server"
MAX_LINES = 600
MAX_METHODS = 20


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
