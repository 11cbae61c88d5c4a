"""A bot from outside the package, named by its import path (``mypkg.agents:PPOAgent``), for the ladder.

A researcher's agent is any class (or function returning an object) with ``decide(view) -> action id``, the
contract of :class:`~converge.bots.base.Bot`: it gets the view of its own player only (what that player may
know) and answers with one of ``view.legal_actions()``. It is made with the match's seed when it takes an
argument (``PPOAgent(seed)``), else with none. Or it is a policy over the flat observation, a function
``policy(observation, legal_actions) -> action id`` of two arguments: it gets the 507-float observation tensor
the Gymnasium environment gives (:func:`converge.adapters.encoding.view_arrays`; NumPy needed) and the legal
ids. Its module is imported from the Python path, with the current folder first, as ``python -m`` and uvicorn
do, so that ``examples.agents:RandomAgent`` works from a checkout.

Only the ladder (``converge ladder --bots``) takes import paths: a name that reaches the server from a player
never imports anything.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from converge.engine.view import PlayerView

_IMPORT_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


def is_import_path(name: str) -> bool:
    """``module.path:Name``: a dotted module and an attribute (``ismcts:200`` is not one)."""
    return bool(_IMPORT_PATH.match(name.strip()))


class ExternalBot:
    """An agent made from an import path, seen as a bot: its name is the path; ``reset`` is optional."""

    def __init__(self, path: str, agent: Any) -> None:
        self.name = path
        self.agent = agent

    def decide(self, view: PlayerView) -> int:
        return int(self.agent.decide(view))

    def reset(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()


class _Policy:
    """A policy over the flat observation, as an agent with ``decide(view)``."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def decide(self, view: PlayerView) -> int:
        from converge.adapters.encoding import view_arrays

        return int(self.policy(view_arrays(view)[0], view.legal_actions()))


def load_agent(path: str, seed: int = 0) -> ExternalBot:
    """The agent at ``path``, made with ``seed`` when it takes an argument; ``ValueError`` saying what went
    wrong (the module does not import, has no such name, or what it makes has no ``decide``)."""
    path = path.strip()
    if not is_import_path(path):
        raise ValueError(f"{path!r} is not an import path such as mypkg.agents:PPOAgent")
    module_name, attr = path.split(":")
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # (the agent's own module failing is the user's to see, in one line)
        raise ValueError(f"cannot import {module_name!r} for the agent {path}: {type(exc).__name__}: {exc}") \
            from None
    target = getattr(module, attr, None)
    if target is None or not callable(target):
        raise ValueError(f"{module_name} has no class or function {attr!r} (for the agent {path})")
    try:
        parameters = len(inspect.signature(target).parameters)
    except (TypeError, ValueError):  # (a builtin without a signature)
        parameters = 0
    if inspect.isfunction(target) and parameters == 2:  # policy(observation, legal_actions)
        return ExternalBot(path, _Policy(target))
    takes_seed = parameters > 0
    try:
        agent = target(seed) if takes_seed else target()
    except Exception as exc:
        raise ValueError(f"the agent {path} could not be made: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(agent, "decide", None)):
        raise ValueError(f"the agent {path} has no decide(view) method (a {type(agent).__name__} was made)")
    return ExternalBot(path, agent)


__all__ = ["ExternalBot", "is_import_path", "load_agent"]
