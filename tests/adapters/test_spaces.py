"""docs/spaces.md is what the environments say about their spaces (python -m converge.adapters.spaces)."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from converge.adapters import spaces
from tests.helpers import ROOT


def test_the_spaces_document_matches_the_code() -> None:
    written = (ROOT / "docs" / "spaces.md").read_text(encoding="utf-8")
    assert written == spaces.reference(), "regenerate it: python -m converge.adapters.spaces > docs/spaces.md"


def test_the_document_names_every_option_value_and_space() -> None:
    from converge.adapters.episodes import EPISODES, REWARDS
    from converge.adapters.gymnasium import ConvergeEnv

    text = spaces.reference()
    for value in (*REWARDS, *EPISODES, "rgb_array", "ansi", "human"):
        assert f'"{value}"' in text or f"'{value}'" in text
    assert repr(ConvergeEnv(observation_type="info_state").observation_space) in text
    assert repr(ConvergeEnv(flat_observation=True).observation_space) in text


@pytest.mark.parametrize("name", ["converge.adapters.episodes", "converge.adapters.image"])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    compiled = not str(module.__file__).endswith(".py")  # (mypyc's modules hide their examples from doctest)
    assert result.failed == 0 and (compiled or result.attempted > 0)
