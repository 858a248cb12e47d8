"""A tiny deterministic embedding for the tests of semantic search's plumbing (no model).

Each word is hashed to one of :data:`DIMENSIONS` axes, and the words of :data:`CONCEPTS`
share their concept's axis, as a real model's related words share a direction: "memo" and
"note" point the same way, though no letter of them is the same.
"""

from __future__ import annotations

import hashlib
import re

DIMENSIONS = 64
CONCEPTS = {"memo": "note", "jotting": "note", "merchandise": "product", "goods": "product"}

#: The texts each call embedded, in order: the tests read what was embedded, and when.
calls: list[list[str]] = []


def _axis(word: str) -> int:
    word = CONCEPTS.get(word, word)
    return int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % DIMENSIONS


def embed(texts: list[str], model: str) -> list[list[float]]:
    """One vector per text: its words' counts on their axes (``model`` must be ``"tiny"``)."""
    assert model == "tiny", model
    calls.append(list(texts))
    vectors = []
    for text in texts:
        vector = [0.0] * DIMENSIONS
        for word in re.findall(r"[a-z]+", text.lower()):
            vector[_axis(word.rstrip("s"))] += 1.0
        vectors.append(vector)
    return vectors
