"""A griffe extension for the API reference (mkdocs.yml loads it): the package's docstrings are written for
Sphinx and doctest, the site renders Markdown.

- a doctest (a paragraph whose first line starts with ``>>>``) becomes a ``pycon`` block, or Markdown would
  read its prompts as quotes and its output as links;
- a cross-reference role (``:class:`Match```, ``:meth:`~converge.engine.state.Match.view```, ``:mod:``,
  ``:func:``, ``:data:``, ``:attr:``, ``:exc:``) becomes a link to the object's entry where the reference has
  one, and its name in code where not (an optional autoref: the build never fails on it);
- a literal block's ``::`` becomes ``:`` (the indented block after it is already code in Markdown).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(class|meth|func|mod|data|attr|exc|obj):`(~?)([^`<>]+?)`")
LITERAL = re.compile(r"(\S)::$", flags=re.M)


def _identifier(obj: griffe.Object, target: str) -> str:
    """The full path of ``target`` as ``obj``'s docstring means it: absolute, imported, or a member."""
    if target.startswith("converge."):
        return target
    scope: griffe.Object | None = obj if obj.is_class or obj.is_module else obj.parent
    while scope is not None:
        head = target.split(".", 1)[0]
        if head in scope.members:
            return f"{scope.path}.{target}"
        try:
            return scope.resolve(target)
        except griffe.NameResolutionError:
            scope = scope.parent
    return target


def _role(obj: griffe.Object, match: re.Match[str]) -> str:
    role, short, target = match.groups()
    target = target.strip()
    title = target.rsplit(".", 1)[-1] if short else target
    if role in ("meth", "func"):
        title += "()"
    identifier = _identifier(obj, target)
    return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'


def _fence_doctests(text: str) -> str:
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        starts = line.lstrip().startswith(">>>") and (i == 0 or not lines[i - 1].strip())
        if not starts:
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        block: list[str] = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
    return "\n".join(out)


def markdown(obj: griffe.Object, text: str) -> str:
    """``text``, a docstring of ``obj``, in the Markdown the site renders."""
    parts = re.split(r"(^[ \t]*>>>.*(?:\n[^\n]*\S[^\n]*)*)", text, flags=re.M)
    # roles and literal blocks outside the doctests only: a doctest shows what Python prints
    converted = [p if p.lstrip().startswith(">>>") else LITERAL.sub(r"\1:", ROLE.sub(lambda m: _role(obj, m), p))
                 for p in parts]
    return _fence_doctests("".join(converted))


class SphinxToMarkdown(griffe.Extension):
    """Rewrites every docstring of the loaded package once it is loaded (names resolve across modules)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        self._walk(pkg, set())

    def _walk(self, obj: griffe.Object, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj, obj.docstring.value)
        for member in obj.members.values():
            if not member.is_alias and isinstance(member, griffe.Object):
                self._walk(member, seen)
