"""Effect kinds: one module each, registered here in their canonical order (see :mod:`.base`).

>>> [k.keyword for k in effect_kinds().values()][:3]
['Convert', 'Assemble', 'Recall']
"""

from converge.engine.effects.assemble import Assemble
from converge.engine.effects.base import (
    FACTION,
    SECOND,
    SKILLSET,
    STEP_NAMES,
    TARGET,
    EffectKind,
    EffectState,
    builtin_effect_kinds,
    effect_kind,
    effect_kinds,
    register_builtin_effects,
    register_effect,
    unregister_effect,
)
from converge.engine.effects.convert import Convert
from converge.engine.effects.expand import Expand
from converge.engine.effects.guard import Guard
from converge.engine.effects.heal import Heal
from converge.engine.effects.recall import Recall
from converge.engine.effects.search import Search
from converge.engine.effects.study import Study
from converge.engine.effects.trade import Trade

if not effect_kinds():
    register_builtin_effects((Convert(), Assemble(), Recall(), Guard(), Search(), Trade(), Expand(), Study(),
                              Heal()))

__all__ = ["FACTION", "SECOND", "SKILLSET", "STEP_NAMES", "TARGET", "EffectKind", "EffectState",
           "builtin_effect_kinds", "effect_kind", "effect_kinds", "register_effect", "unregister_effect"]
