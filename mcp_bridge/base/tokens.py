"""How many tokens a listing or an answer costs a model, estimated from its text.

A client puts the ``tools/list`` answer in front of the model on every turn, so its size in
tokens is what a group costs. The exact count depends on the model's tokenizer, which the
bridge does not have (none ships without a download, and each vendor's differs), so the
figure is an estimate with one documented rule: **one token per four bytes of UTF-8**,
rounded up (:data:`BYTES_PER_TOKEN`).

Why four: it is the rule of thumb the model vendors publish for English text (OpenAI: "one
token is roughly four characters"; Anthropic's guidance is in the same range), and the JSON
of a listing is mostly English words (names, titles, descriptions, property names). JSON's
punctuation and short keys make real counts somewhat higher than this for schema-heavy text,
so read the estimate as the order of magnitude a budget is checked against, not as a bill;
the same rule everywhere keeps figures comparable between groups, modes and releases.

The function is pure: the same text gives the same number, with no tokenizer loaded.
"""

from __future__ import annotations

#: Bytes of UTF-8 per estimated token (see the module).
BYTES_PER_TOKEN = 4


def estimate_tokens(text: str | bytes) -> int:
    """The estimated tokens of ``text``: its UTF-8 bytes divided by :data:`BYTES_PER_TOKEN`,
    rounded up (an empty text costs none).

    Args:
        text: the encoded listing or answer, as text or as its UTF-8 bytes.

    >>> estimate_tokens('{"tools":[]}')
    3
    >>> estimate_tokens("Größe")  # 7 bytes of UTF-8
    2
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8"))
    return -(-size // BYTES_PER_TOKEN)
