"""The action space: 26 integers, each one decision of the current player.

==========  ==============  ==========================================================
id          string          meaning
==========  ==============  ==========================================================
0..17       card id         choose that card: to play it, or as an effect's target
18          ``discard``     play the chosen card for its discard effect (T3)
19          ``declare``     play the chosen card as a shared goal (T3)
20          ``mine``        to my faction (playing a card, or placing one by an effect)
21          ``theirs``      to my opponent's faction
22..24      skillset name   a skillset of the playset (Convert with a choice, C4)
25          ``done``        decline the rest of an optional effect (T4)
==========  ==============  ==========================================================
"""

from __future__ import annotations

from typing import Final

from converge.engine.errors import IllegalActionError, quote

NUM_ACTIONS: Final = 26
DISCARD: Final = 18  # the first id after the cards' (0 .. NUM_CARDS - 1)
DECLARE: Final = 19
MINE: Final = 20
THEIRS: Final = 21
SKILLSET_0: Final = 22
DONE: Final = 25

_WORDS = {DISCARD: "discard", DECLARE: "declare", MINE: "mine", THEIRS: "theirs", DONE: "done"}
_ALIASES = {"discard": DISCARD, "declare": DECLARE, "goal": DECLARE, "mine": MINE, "theirs": THEIRS,
            "done": DONE, "stop": DONE, "skip": DONE}
_VERBS = ("play", "target", "choose", "to", "skillset", "faction", "take")

#: Words of the action language: no card id or skillset may be one of them (any case), or an action
#: could not name it.
RESERVED_WORDS = frozenset(_ALIASES) | frozenset(_VERBS)


def action_to_string(action: int, card_ids: tuple[str, ...], skillsets: tuple[str, ...]) -> str:
    """The readable, context-free form of an action id.

    >>> action_to_string(20, ("ALC1",) * 18, ("Alchemist", "Mechanist", "Archivist"))
    'mine'
    """
    if 0 <= action < len(card_ids):
        return card_ids[action]
    if action in _WORDS:
        return _WORDS[action]
    if SKILLSET_0 <= action < SKILLSET_0 + len(skillsets):
        return skillsets[action - SKILLSET_0]
    if 0 <= action < NUM_ACTIONS:  # a smaller variant's playset has fewer cards and skillsets
        raise IllegalActionError(f"action {action} names no card or skillset of this playset")
    raise IllegalActionError(f"action {quote(action)} is outside the action space 0..{NUM_ACTIONS - 1}")


def string_to_action(text: object, index_of: dict[str, int], skillsets: tuple[str, ...]) -> int:
    """Parse a readable action (case-insensitive; a leading verb such as 'play' is allowed)."""
    if not isinstance(text, str):
        raise IllegalActionError(f"an action string must be text, got {type(text).__name__}")
    words = text.strip().lower().split() if len(text) <= 200 else ["", "", ""]
    if len(words) == 2 and words[0] in _VERBS:
        words = words[1:]
    if len(words) != 1:
        raise IllegalActionError(f"cannot read action {text[:40]!r}: expected one word such as a card id, "
                                 "'discard', 'declare', 'mine', 'theirs', a skillset or 'done'")
    word = words[0]
    if word in _ALIASES:
        return _ALIASES[word]
    if word.upper() in index_of:
        return index_of[word.upper()]
    for i, name in enumerate(skillsets):
        if name.lower() == word:
            return SKILLSET_0 + i
    if word.isascii() and word.isdigit() and int(word) < NUM_ACTIONS:
        return int(word)
    raise IllegalActionError(f"unknown action {text[:40]!r}: not a card id of this playset, a mode, "
                             "a skillset of this playset or 'done'")
