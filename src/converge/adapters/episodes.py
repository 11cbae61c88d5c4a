"""What an episode is and what it pays: the options the Gymnasium and PettingZoo environments share,
``reward`` (:data:`REWARDS`) and ``episode`` (:data:`EPISODES`), each value described in
:data:`REWARD_DOCS` and :data:`EPISODE_DOCS` (which ``docs/spaces.md`` shows).

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
>>> step_rewards(m, [0, 0], "round", "round"), episode_over(m, "round")
((0.0, 0.0), False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from converge.engine.state import Match

#: What each value of ``reward`` pays.
REWARD_DOCS = {
    "match": "the default: +1 to the match winner and -1 to the loser, when the match ends",
    "round": "+1 to the winner and -1 to the loser of each round, when it ends (a match won 2-1 sums to +1 "
             "for its winner, 2-0 to +2)",
}
#: What each value of ``episode`` makes an episode.
EPISODE_DOCS = {
    "match": "the default: a whole match (two won rounds, at most three)",
    "round": "the first round of a match, then the episode ends: each episode is round 1 of a fresh match, so "
             "the starting artifact holder follows the `start` setting (M2), and its reward is the round's "
             "±1 whatever `reward` says (a one-round match's reward). The final observation is taken just after "
             "the round, when the engine has already dealt the next round (which the episode never plays); "
             "its round wins show the round's result",
}
REWARDS = tuple(REWARD_DOCS)
EPISODES = tuple(EPISODE_DOCS)


def check_choice(name: str, value: object, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else a ValueError that names the option and its values."""
    if not isinstance(value, str) or value not in choices:
        names = [repr(c) for c in choices]
        allowed = " or ".join(names) if len(names) <= 2 else "one of " + ", ".join(names)
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return value


def episode_over(match: Match, episode: str) -> bool:
    """Whether the episode has ended: the match is over, or (``episode="round"``) its first round is."""
    return match.is_terminal or (episode == "round" and match.round_no > 1)


def step_rewards(match: Match, wins_before: Sequence[int], reward: str, episode: str) -> tuple[float, float]:
    """The rewards of seats 0 and 1 for what happened since the round wins were ``wins_before``.

    Per round (``reward="round"``, or any one-round episode): the round wins gained since, one each
    for the winner against the loser. Per match: ±1 once the match is over, else nothing.
    """
    if reward == "round" or episode == "round":
        wins = match.round_wins
        r0 = float((wins[0] - wins_before[0]) - (wins[1] - wins_before[1]))
        return r0, 0.0 - r0  # (not -r0: no -0.0 when nothing changed)
    if match.is_terminal:
        return (1.0, -1.0) if match.winner == 0 else (-1.0, 1.0)
    return 0.0, 0.0
