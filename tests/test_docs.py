"""The examples in docstrings, in the documentation site's pages and in the README run and give what they show."""

from __future__ import annotations

import asyncio
import doctest
import importlib
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import ROOT, load_path

MODULES = ["converge", "converge.cards.loader", "converge.cards.reference", "converge.engine.playset",
           "converge.engine.variant",
           "converge.engine.actions",
           "converge.engine.state", "converge.engine.events", "converge.engine.effects", "converge.engine.goals",
           "converge.engine.view", "converge.engine.narration", "converge.engine.params", "converge.engine.errors",
           "converge.texts", "converge.bots", "converge.bots.hint", "converge.simulation.compare",
           "converge.simulation.balance", "converge.cli.simulate_commands", "converge.bots.review",
           "converge.simulation.calibration", "converge.cli.review_command", "converge.cli.calibrate_command",
           "converge.server.accounts.addresses", "converge.server.accounts.mailer",
           "converge.server.accounts.archive", "converge.server.accounts.turn_mail",
           "converge.server.play.process.wallclock", "converge.server.ops.jobs",
           "converge.server.storage.database"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


#: The pages of the site (docs/, mkdocs.yml) and the README: their ```python and ```pycon blocks run, each page
#: in a fresh interpreter (a page may register a card kind) and its blocks in order, as one session; a block
#: that cannot run quickly (a server, a long simulation) is fenced as ```sh or ```console instead.
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
BLOCK = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>python|pycon)[^\n]*\n(?P<code>.*?)^(?P=indent)```",
                   flags=re.S | re.M)

#: Run in the page's interpreter: the blocks (JSON on stdin) in order in one namespace; ``python`` blocks are
#: executed, ``pycon`` blocks are doctests (the output they show must be what Python prints).
RUNNER = """
import doctest, json, sys, traceback
page, blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for n, (lang, code) in enumerate(blocks, start=1):
    name = f"{page}, block {n} ({lang})"
    if lang == "python":
        try:
            exec(compile(code, name, "exec"), namespace)
        except Exception:
            sys.exit(name + ":\\n" + traceback.format_exc())
        continue
    test = doctest.DocTestParser().get_doctest(code, namespace, name, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, clear_globs=False)
    namespace.update(test.globs)  # (a doctest runs in a copy of the namespace it is given)
    if runner.failures:
        sys.exit(name + ": a doctest failed (above)")
"""


def examples(page: Path) -> list[tuple[str, str]]:
    """The ``(language, code)`` of the page's runnable blocks, in order, dedented as a reader copies them."""
    return [(m["lang"], textwrap.dedent(m["code"])) for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("page", [p for p in PAGES if examples(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_run(page: Path) -> None:
    blocks = examples(page)
    done = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps([page.name, blocks]), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_examples_are_found() -> None:
    """The engine's page shows the API as a session; the install page the install line; no block is skipped
    for being fenced a way the extractor does not read."""
    engine = examples(ROOT / "docs" / "engine.md")
    assert [lang for lang, _ in engine] == ["pycon", "pycon"] and "Match.new" in engine[0][1]
    assert any("install_command" in code for _, code in examples(ROOT / "docs" / "install.md"))
    for page in PAGES:
        fences = re.findall(r"^[ \t]*```(\w*)", page.read_text(encoding="utf-8"), flags=re.M)
        assert not {"py", "python3", "py3", "doctest", "pytb"} & set(fences), page


def test_a_failing_example_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```pycon\n>>> 1 + 1\n3\n\n```\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", RUNNER], input=json.dumps([page.name, examples(page)]),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "a doctest failed" in done.stderr


def test_the_readme_is_a_short_front_page_that_starts_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) < 8 * 1024
    first = re.match(r"# Converge\n\n```sh\n(.*?)```", readme, flags=re.S)  # the title, then the commands
    assert first is not None
    assert [line.split()[:2] for line in first.group(1).splitlines()] == [["make", "play"], ["make", "test"]]
    targets = re.findall(r"\]\(([^)#\s]+)[^)]*\)", readme)
    assert [t for t in targets if "://" not in t and not (ROOT / t).exists()] == []
    assert {"docs/install.md", "docs/images/browser-table.png", "docs/images/terminal.svg"} <= set(targets)


def test_the_terminal_picture_is_the_game_as_it_draws_now() -> None:
    """docs/images/terminal.svg is what docs/screenshots.py draws today (a seeded match): the README's
    picture of the terminal cannot drift from the game; it fetches no web font."""
    screenshots = load_path(ROOT / "docs" / "screenshots.py")
    picture = (ROOT / "docs" / "images" / "terminal.svg").read_text(encoding="utf-8")
    assert 'url("http' not in picture
    assert asyncio.run(screenshots._terminal()) == picture, "draw it again: python docs/screenshots.py terminal"
