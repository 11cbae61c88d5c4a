"""The built-in goal kinds (T5 and the card design bounds of the brief), one class each."""

from __future__ import annotations

from collections.abc import Mapping

from converge.engine.goals.base import CANNOT_WIN, FactionStats, GoalKind
from converge.engine.params import OWN, Param, ParamValue


def _skillset() -> Param:
    return Param("skillset", "skillset", OWN, doc="the skillset; \"own\" is the card's own")


def _count(low: int, high: int) -> Param:
    return Param("count", "int", None, low, high, doc="how many cards")


class HighestSkillset(GoalKind):
    def __init__(self) -> None:
        super().__init__("highest_skillset", "the single highest-ranked card of a skillset", (_skillset(),),
                         single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"Highest {params['skillset']}"

    def value(self, arg: int, st: FactionStats) -> int:  # a faction without the skillset cannot win it
        return st.high(arg) if arg >= 0 and st.count(arg) else CANNOT_WIN

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.high(arg)) if arg >= 0 and st.count(arg) else "none"


class LowestSkillset(GoalKind):
    def __init__(self) -> None:
        super().__init__("lowest_skillset", "the single lowest-ranked card of a skillset", (_skillset(),),
                         single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"Lowest {params['skillset']}"

    def value(self, arg: int, st: FactionStats) -> int:
        return -st.low(arg) if arg >= 0 and st.count(arg) else CANNOT_WIN

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.low(arg)) if arg >= 0 and st.count(arg) else "none"


class MostSkillset(GoalKind):
    def __init__(self) -> None:
        super().__init__("most_skillset", "strictly more cards of a skillset", (_skillset(),), single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"Most {params['skillset']}"

    def value(self, arg: int, st: FactionStats) -> int:
        return st.count(arg) if arg >= 0 else 0


class FewestSkillset(GoalKind):
    def __init__(self) -> None:
        super().__init__("fewest_skillset", "strictly fewer cards of a skillset (zero counts)", (_skillset(),),
                         single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"Fewest {params['skillset']}"

    def value(self, arg: int, st: FactionStats) -> int:
        return -st.count(arg) if arg >= 0 else 0

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.count(arg) if arg >= 0 else 0)


class MostSkillsets(GoalKind):
    def __init__(self) -> None:
        super().__init__("most_skillsets", "strictly more different skillsets", single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "Most different skillsets"

    def value(self, arg: int, st: FactionStats) -> int:
        return st.distinct_skillsets()


class HighestRankTotal(GoalKind):
    def __init__(self) -> None:
        super().__init__("highest_rank_total", "strictly higher rank total", single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "Highest rank total"

    def value(self, arg: int, st: FactionStats) -> int:
        return st.total


class LowestRankTotal(GoalKind):
    def __init__(self) -> None:
        super().__init__("lowest_rank_total", "strictly lower rank total (an empty faction cannot win)",
                         single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "Lowest rank total"

    def value(self, arg: int, st: FactionStats) -> int:  # P4: an empty faction cannot win it
        return -st.total if st.size else CANNOT_WIN

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.total) if st.size else "no cards"


class MostCards(GoalKind):
    def __init__(self) -> None:
        super().__init__("most_cards", "strictly more cards", single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "Most cards"

    def value(self, arg: int, st: FactionStats) -> int:
        return st.size


class FewestCards(GoalKind):
    def __init__(self) -> None:
        super().__init__("fewest_cards", "strictly fewer cards (zero counts)", single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "Fewest cards"

    def value(self, arg: int, st: FactionStats) -> int:
        return -st.size

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.size)


class ConsecutiveRanks(GoalKind):
    def __init__(self) -> None:
        super().__init__("consecutive_ranks", "N cards with consecutive ranks", (_count(2, 6),))

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"{params['count']} cards with consecutive ranks"

    def value(self, arg: int, st: FactionStats) -> int:
        return int(st.longest_run() >= arg)

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.longest_run())


class DifferentRanks(GoalKind):
    def __init__(self) -> None:
        super().__init__("different_ranks", "N cards with different ranks", (_count(2, 6),))

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"{params['count']} cards with different ranks"

    def value(self, arg: int, st: FactionStats) -> int:
        return int(st.distinct_ranks() >= arg)

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.distinct_ranks())


class SameRank(GoalKind):
    def __init__(self) -> None:
        super().__init__("same_rank", "N cards of the same rank", (_count(2, 4),))

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"{params['count']} cards of the same rank"

    def value(self, arg: int, st: FactionStats) -> int:
        return int(st.most_of_one_rank() >= arg)

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.most_of_one_rank())


class OneSkillset(GoalKind):
    def __init__(self) -> None:
        super().__init__("one_skillset", "N cards of one skillset", (_count(2, 6),))

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"{params['count']} cards of one skillset"

    def value(self, arg: int, st: FactionStats) -> int:
        return int(st.most_of_one_skillset() >= arg)

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.most_of_one_skillset())


class EachSkillset(GoalKind):
    def __init__(self) -> None:
        super().__init__("each_skillset", "one card of each skillset in the playset")

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "One card of each skillset"

    def compile(self, params: Mapping[str, ParamValue], skillsets: tuple[str, ...]) -> int:
        """The number of skillsets in the playset (three, or a smaller variant's two)."""
        return len(skillsets)

    def value(self, arg: int, st: FactionStats) -> int:
        return int(st.distinct_skillsets() == arg)

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.distinct_skillsets())


class RankTotal(GoalKind):
    def __init__(self) -> None:
        super().__init__("rank_total", "a rank total of at least T",
                         (Param("at_least", "int", None, 1, 60, doc="the total to reach"),))

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return f"Rank total of {params['at_least']} or more"

    def value(self, arg: int, st: FactionStats) -> int:
        return int(st.total >= arg)

    def shown(self, arg: int, st: FactionStats) -> str:
        return str(st.total)


def builtin() -> tuple[GoalKind, ...]:
    """One of each built-in goal kind, in their canonical order."""
    return (HighestSkillset(), LowestSkillset(), MostSkillset(), FewestSkillset(), MostSkillsets(),
            HighestRankTotal(), LowestRankTotal(), MostCards(), FewestCards(), ConsecutiveRanks(),
            DifferentRanks(), SameRank(), OneSkillset(), EachSkillset(), RankTotal())
