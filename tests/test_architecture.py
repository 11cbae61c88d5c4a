"""The shape of the code, checked: one definition per concept, and a state clients never write."""

from __future__ import annotations

import ast
from pathlib import Path

from converge.engine.effects import builtin_effect_kinds, effect_kinds
from converge.engine.goals import goal_kinds

SRC = Path(__file__).resolve().parent.parent / "src" / "converge"
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

