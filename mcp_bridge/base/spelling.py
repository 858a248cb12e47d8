"""Near-misses between names: a typo of one group name for another.

The commonest typos are one edit away from the word meant: a letter left out (``libary``),
added, replaced, or two neighbours swapped (``catalgo``, ``ordres``). :func:`near_miss` finds
them with the Damerau-Levenshtein distance (its "optimal string alignment" form, where a swap
counts as one edit), in names of five characters or more: shorter names are too close to
one another by chance (``shop`` and ``shops``... ``api``, ``app``). Names that differ only in
their digits (``api-v1``, ``api-v2``) are numbered on purpose, never a typo.

Used by the group names of ``MCP_BRIDGE["GROUPS"]`` (``mcp_bridge.W051``) and by the settings
that name groups, whose hint then says which group was meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: The shortest name a near-miss is looked for in.
MIN_LENGTH = 5

#: The ``difflib`` ratio at and above which two long names are near-misses although more
#: than one edit apart (``administration``, ``administartoin``).
RATIO = 0.88


def edit_distance(a: str, b: str) -> int:
    """The Damerau-Levenshtein distance of ``a`` and ``b``, optimal string alignment form:
    insertions, deletions, substitutions and swaps of two neighbours, one edit each."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def near_miss(a: str, b: str) -> bool:
    """Whether ``a`` looks like a typo of ``b`` (or ``b`` of ``a``); see the module."""
    if a == b or min(len(a), len(b)) < MIN_LENGTH:
        return False
    if _without_digits(a) == _without_digits(b):  # api-v1, api-v2: numbered on purpose
        return False
    if edit_distance(a, b) == 1:
        return True
    return difflib.SequenceMatcher(None, a, b).ratio() >= RATIO


def closest(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``name`` is a near-miss of, the fewest edits away (then the
    first in sorted order), or ``None``."""
    close = sorted((edit_distance(name, other), other) for other in names if near_miss(name, other))
    return close[0][1] if close else None


def _without_digits(name: str) -> str:
    return "".join(character for character in name if not character.isdigit())
