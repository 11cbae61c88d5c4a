"""The shape of the code, checked: one definition per concept, and a state clients never write."""

from __future__ import annotations

import ast
from pathlib import Path

from converge.engine.effects import builtin_effect_kinds, effect_kinds
from converge.engine.goals import goal_kinds
from tests.helpers import ROOT

SRC = ROOT / "src" / "converge"
ENGINE = SRC / "engine"

#: What a Match holds (its attributes, and the parts whose fields are the state) and its properties that
#: look like attributes: no client assigns any of them, or anything inside a part.
MATCH_NAMES = frozenset({
    "playset", "seed", "start_setting", "zones", "turn", "effect", "chance", "origin", "_events", "_history",
    "_logging", "_keep_history", "events", "history", "log_events", "round_wins", "round_results",
})


def _client_modules() -> list[Path]:
    return [p for p in SRC.rglob("*.py") if ENGINE not in p.parents]


def _attribute_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """``x.attr = ...`` (also augmented and annotated) where ``attr`` is a Match name and ``x`` is not
    ``self`` or ``cls``."""
    out = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and t.attr in MATCH_NAMES:
                    base = t.value
                    if not (isinstance(base, ast.Name) and base.id in ("self", "cls")):
                        out.append((t.lineno, ast.unparse(t)))
    return out


def test_no_module_outside_the_engine_assigns_a_match_attribute() -> None:
    found = [f"{p.relative_to(SRC)}:{line}: {text}" for p in _client_modules()
             for line, text in _attribute_writes(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []


def test_the_attribute_check_catches_a_client_that_writes_the_match() -> None:
    code = "def f(match):\n    match.log_events = False\n    match.zones.hands[0] = []\n    self.seed = 1\n"
    assert [text for _, text in _attribute_writes(ast.parse(code))] == ["match.log_events", "match.zones"]


def _kind_comparisons(tree: ast.AST, names: frozenset[str]) -> list[tuple[int, str]]:
    """Comparisons with a kind's name (``kind == "search"``, ``name in ("trade", ...)``): code that decides
    by kind instead of asking the kind."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Constant) and sub.value in names:
                    out.append((node.lineno, ast.unparse(node)))
    return out


def test_no_module_but_a_kinds_own_decides_by_effect_or_goal_kind() -> None:
    names = frozenset(effect_kinds()) | frozenset(goal_kinds())
    found = [f"{p.relative_to(SRC)}:{line}: {text}" for p in SRC.rglob("*.py")
             if p.parent.name not in ("effects", "goals")
             for line, text in _kind_comparisons(ast.parse(p.read_text(encoding="utf-8")), names)]
    assert found == []
    assert _kind_comparisons(ast.parse('if kind == "search": pass'), names)  # the check can fail


def test_there_is_one_module_per_effect_kind() -> None:
    modules = {p.stem for p in (ENGINE / "effects").glob("*.py")} - {"__init__", "base"}
    builtin = builtin_effect_kinds()
    assert modules == {k.name for k in builtin}
    for kind in builtin:  # each kind's class lives in its module
        assert type(kind).__module__ == f"converge.engine.effects.{kind.name}"



# ---------------------------------------------------------------------- imports

def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, modules: dict[str, Path] | set[str], source: str | None = None) -> set[str]:
    """The package's modules ``path`` imports, at module level or inside functions (not under TYPE_CHECKING)."""
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

    visit(ast.parse(path.read_text(encoding="utf-8") if source is None else source).body)
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


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def test_no_import_circle_in_the_package() -> None:
    """No module imports one that imports it back, directly or round a circle — also through the imports
    inside functions, which hide a circle from Python but not from a reader (those under TYPE_CHECKING,
    for annotations only, do not count)."""
    graph = _import_graph()
    assert len(graph) > 100 and graph["converge.engine.state"]  # (it found the package, and its imports)
    assert import_cycles(graph) == []


def test_the_import_walk_catches_a_circle_and_what_hides_one() -> None:
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    # a circle through a function-level import is seen; an import for annotations only is not one
    modules = {"converge.engine.state", "converge.engine.view"}
    hidden = "def view():\n    from converge.engine.view import View\n"
    assert _imports(SRC / "x.py", modules, hidden) == {"converge.engine.view"}
    typing_only = ("from typing import TYPE_CHECKING\n"
                   "if TYPE_CHECKING:\n    from converge.engine.view import View\n")
    assert _imports(SRC / "x.py", modules, typing_only) == set()
    graph = _import_graph()
    graph["converge.engine.sizes"] = graph["converge.engine.sizes"] | {"converge.engine.state"}  # planted
    assert any("converge.engine.sizes" in c for c in import_cycles(graph))


def _seeds_minted(tree: ast.AST) -> list[int]:
    """The lines that draw a seed from the secure generator themselves (``secrets.randbelow`` or ``randbits``
    of more than a small choice, such as who starts), instead of asking :func:`converge.engine.seeds.new_seed`."""
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("randbelow", "randbits") and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "secrets"):
            limit = 1000 if node.func.attr == "randbelow" else 10  # (randbits: a number of bits)
            small = (len(node.args) == 1 and isinstance(node.args[0], ast.Constant)
                     and isinstance(node.args[0].value, int) and node.args[0].value <= limit)
            if not small:
                out.append(node.lineno)
    return out


def test_seeds_are_minted_in_one_place() -> None:
    """A seed nobody can predict comes from ``engine/seeds.new_seed`` alone (one definition of how strong)."""
    found = [f"{p.relative_to(SRC)}:{line}" for p in SRC.rglob("*.py") if p != ENGINE / "seeds.py"
             for line in _seeds_minted(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []


def test_the_seed_check_catches_a_seed_minted_by_hand() -> None:
    code = ("import secrets\nseat = secrets.randbelow(2)\nseed = secrets.randbelow(2**63)\n"
            "bits = secrets.randbits(64)\n")
    assert _seeds_minted(ast.parse(code)) == [3, 4]


def test_the_dead_code_check_finds_a_planted_definition_and_nothing_else(tmp_path: Path) -> None:
    """`make lint`'s dead-code check, with the project's settings: a definition nobody uses is named, and
    the package, tests, benchmarks and examples have none (the hooks frameworks call are kept by name)."""
    import subprocess
    import sys

    planted = tmp_path / "planted.py"
    planted.write_text("def forgotten_helper() -> int:\n    return 1\n", encoding="utf-8")
    paths = ["src/converge", "tests", "benchmarks", "examples", str(planted)]
    out = subprocess.run([sys.executable, "-m", "vulture", *paths], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 3, out.stdout + out.stderr  # vulture: 3 when dead code was found
    assert [line.split(": ", 1)[1] for line in out.stdout.splitlines()] == [
        "unused function 'forgotten_helper' (60% confidence)"]


#: Parameters that are rightly free-form mappings: OpenSpiel's game and observer parameters.
FREE_FORM_PARAMETERS = frozenset({"params", "iig_obs_type"})


def _untyped_document_parameters(tree: ast.AST) -> list[str]:
    """The parameters annotated ``Mapping[str, Any]``, the shape an engine document was read through: now its
    TypedDict (``engine/schema.py``) says which keys it has, and mypy checks each read. (A ``dict[str, Any]``
    is a JSON body or a file's contents before it is checked, or a framework's options and infos.)"""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                text = ast.unparse(a.annotation) if a.annotation is not None else ""
                if "Mapping[str, Any]" in text and a.arg not in FREE_FORM_PARAMETERS:
                    out.append(f"{node.name}({a.arg})")
    return out


def test_the_terminal_and_the_adapters_read_the_engine_documents_through_their_types() -> None:
    found = [f"{p.relative_to(SRC)}: {f}" for folder in ("cli", "adapters") for p in (SRC / folder).rglob("*.py")
             for f in _untyped_document_parameters(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []


def test_the_document_check_catches_an_untyped_reader() -> None:
    code = ("def where(card: str, obs: Mapping[str, Any] | None) -> str: ...\n"
            "def load(params: Mapping[str, Any]) -> None: ...\n"
            "def typed(obs: Observation) -> None: ...\n")
    assert _untyped_document_parameters(ast.parse(code)) == ["where(obs)"]

