"""The examples in docstrings and in the README run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

from tests.helpers import ROOT

MODULES = ["converge", "converge.cards.loader", "converge.cards.reference", "converge.engine.playset",
           "converge.engine.actions",
           "converge.engine.state", "converge.engine.events", "converge.engine.effects", "converge.engine.goals",
           "converge.engine.view", "converge.engine.narration", "converge.engine.params", "converge.engine.errors",
           "converge.texts", "converge.bots", "converge.bots.hint", "converge.simulation.compare",
           "converge.simulation.balance", "converge.cli.simulate_commands", "converge.bots.review",
           "converge.simulation.calibration", "converge.cli.review_command", "converge.cli.calibrate_command"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_readme_python_examples() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", readme, flags=re.S)
    assert blocks, "the README shows the engine API with pycon examples"
    namespace: dict[str, object] = {}  # the blocks continue one session, as a reader would type them
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, namespace, "README", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, clear_globs=False)
        namespace.update(test.globs)
        assert runner.failures == 0, block
