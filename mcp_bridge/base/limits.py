"""Bounds on what a request may hold, and on what an answer or a log line echoes of it.

A request is at most ``MAX_BODY_BYTES`` (:mod:`mcp_bridge.transport.bodies`), but what is
built from it must stay proportionate:

* **Depth.** JSON nested deeper than ``MAX_JSON_DEPTH`` levels is refused before
  anything walks it (:func:`too_deep`): the standard library's reader, jsonschema,
  ``repr()`` and the JSON writers all recurse, and would fail with a
  ``RecursionError`` somewhere between a few hundred and a thousand levels.
* **Text.** JSON may spell a lone UTF-16 surrogate (``"\\ud800"``); it is no
  Unicode text, cannot be written as UTF-8 into a path, a query string or a
  body, so an argument holding one is refused by name (:func:`unencodable_text`).
* **Echo.** An error names at most :data:`ERROR_ITEMS` faults and counts the
  others, and quotes at most :data:`ECHO_CHARS` characters of any value
  (:func:`shorten`, :func:`capped`): a 1 MB request must not earn a 7 MB answer,
  nor a 7 MB log line.
"""

from __future__ import annotations

from typing import Any

try:  # the optional extra "fast"
    import orjson
except ImportError:  # pragma: no cover - depends on the installation
    orjson = None  # type: ignore[assignment]

#: How many faults an error lists (the others are counted).
ERROR_ITEMS = 20
#: How many characters of a client's value an error message quotes.
ECHO_CHARS = 200


def shorten(text: str, limit: int = ECHO_CHARS) -> str:
    """``text``, cut to ``limit`` characters with a note of how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def echoed(value: Any) -> Any:
    """A client's value as an error's data quotes it: a string shortened, anything else as
    its shortened ``repr`` unless it is a plain scalar."""
    if isinstance(value, str):
        return shorten(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return shorten(repr(value))


def capped(items: list[Any], limit: int = ERROR_ITEMS) -> tuple[list[Any], int]:
    """The first ``limit`` items and how many were left out."""
    return items[:limit], max(0, len(items) - limit)


def too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` (decoded JSON) nests arrays/objects more than ``limit`` levels deep.

    Iterative, so that it cannot itself run out of stack; it stops at the first
    container past the limit.
    """
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def unencodable_text(value: Any) -> list[str]:
    """Where ``value`` holds a string (or an object key) that UTF-8 cannot encode (a lone
    surrogate): JSON-pointer-like paths such as ``"/tags/2"``; empty when there is none."""
    if not _holds_unencodable(value):  # the common case, without building any path
        return []
    found: list[str] = []
    pending: list[tuple[Any, str]] = [(value, "")]
    while pending and len(found) < ERROR_ITEMS:
        node, where = pending.pop()
        if isinstance(node, str):
            if not node.isascii() and not _encodes(node):
                found.append(where or "/")
        elif isinstance(node, dict):
            for key, child in node.items():
                if key.isascii() or _encodes(key):
                    path = f"{where}/{key}"
                else:
                    path = f"{where}/{key.encode('utf-8', 'backslashreplace').decode()}"
                    found.append(path)
                pending.append((child, path))
        elif isinstance(node, list):
            pending.extend((child, f"{where}/{index}") for index, child in enumerate(node))
    return sorted(found)


def _holds_unencodable(value: Any) -> bool:
    if orjson is not None:
        # orjson refuses a lone surrogate in any string or key, in C; when it writes the value,
        # there is none. A refusal may have another reason (an integer beyond 64 bits, a type
        # JSON has none of): the walk below decides.
        try:
            orjson.dumps(value)
        except TypeError:  # orjson.JSONEncodeError
            pass
        else:
            return False
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            if not node.isascii() and not _encodes(node):
                return True
        elif isinstance(node, dict):
            pending.extend(node)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


def _encodes(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True
