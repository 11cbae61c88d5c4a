"""A hint: the strong bot's suggestion for the player to move, and its estimated chance to win the round
with each option — computed from that player's view alone, so a hint never knows a hidden card.

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
>>> options = hint(m.view(m.current_player), simulations=200, seed=1)
>>> sorted(o.action for o in options) == m.legal_actions(), 0.0 <= options[0].win_chance <= 1.0
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from converge.bots.ismcts import ISMCTSBot
from converge.engine.schema import legal_actions_of

if TYPE_CHECKING:
    from converge.engine.view import PlayerView


@dataclass(frozen=True)
class Option:
    """One legal action with what the search made of it."""

    action: int
    label: str  # the action's menu label, e.g. "play ALC3 Salt Reader (Alchemist 3)"
    win_chance: float  # the estimated chance to win the current round after it, 0..1
    simulations: int

    def to_dict(self) -> dict[str, object]:
        return {"action": self.action, "label": self.label, "win_chance": round(self.win_chance, 3),
                "simulations": self.simulations}


def hint(view: PlayerView, simulations: int = 3000, seconds: float | None = 1.0, seed: int = 0) -> list[Option]:
    """The options of the view's decision, the suggested one first (the most searched). The search stops
    after ``simulations`` or ``seconds`` (None: no time limit, so the same view and seed give the same hint)."""
    bot = ISMCTSBot(seed, iterations=simulations, seconds=seconds, name="hint")
    labels = {item["id"]: item["label"] for item in legal_actions_of(view.observation())}
    return [Option(a, str(labels.get(a, a)), rate, n) for a, n, rate in bot.analyse(view)]
