"""OpenSpiel's own integration API test (``open_spiel/integration_tests/api_test.py``), whole, on
``python_converge``.

The pip package ships that file; its partial-tree checks — the ones it runs for every registered game
(``--test_only_games=python_converge``) — are its class ``EnforceAPIOnPartialTreeBase``, which this
module subclasses for our game so that pytest runs each of them (the full-tree classes enumerate a game's
whole tree and name the small games they run on). Nothing is downloaded: without the file the test is
skipped with the reason.
"""

from __future__ import annotations

import unittest

import pytest

pytest.importorskip("pyspiel")  # the rl extra
api_test = pytest.importorskip("open_spiel.integration_tests.api_test",
                               reason="this open_spiel package does not ship integration_tests/api_test.py")

import pyspiel  # noqa: E402

import converge.adapters.openspiel  # noqa: E402,F401  (registers python_converge)


def _suite() -> unittest.TestSuite:
    # (the class is not bound in this module: pytest would collect it as a test case without a game)
    case = type("EnforceAPIPartialTree_python_converge_Test", (api_test.EnforceAPIOnPartialTreeBase,),
                {"game_name": "python_converge", "game": pyspiel.load_game("python_converge")})
    return unittest.defaultTestLoader.loadTestsFromTestCase(case)


def test_openspiels_api_test_runs_every_partial_tree_check() -> None:
    names = {t.id().rsplit(".", 1)[-1] for t in _suite()}
    # the checks OpenSpiel runs on every registered game (a new release may add more: they run too)
    assert {"test_sequence_lengths", "test_observations_raises_error_on_invalid_player",
            "test_legal_actions_returns_empty_list_on_opponent", "test_private_information_contents",
            "test_no_invalid_public_observations"} <= names


def test_openspiels_api_test_passes_whole_on_python_converge() -> None:
    result = unittest.TestResult()
    suite = _suite()
    suite.run(result)
    problems = [f"{test.id()}:\n{trace}" for test, trace in result.errors + result.failures]
    assert not problems, "\n\n".join(problems)
    assert result.testsRun == suite.countTestCases() and not result.skipped
