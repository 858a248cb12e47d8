"""Reading a response's headers without an exception per absent one.

Django's ``ResponseHeaders`` is a ``CaseInsensitiveMapping``, whose ``in`` and ``get`` come
from ``collections.abc.Mapping``: each raises and catches a ``KeyError`` for a header the
response does not have, which costs more than the rest of the lookup. The call pipeline asks a
few such questions of every response (is it an attachment, which language labels it already),
and nearly every answer is "absent". :func:`header` reads the mapping's own store, where
Django keeps each header under its lower-case name as ``(name, value)``
(``django/utils/datastructures.py``; tests/test_private_apis.py fails if that changes).
"""

from __future__ import annotations

from django.http import HttpResponseBase


def header(response: HttpResponseBase, lower_name: str) -> str | None:
    """The value of the header ``lower_name`` (lower case) of ``response``, or ``None``."""
    entry = response.headers._store.get(lower_name)  # type: ignore[attr-defined]
    return None if entry is None else entry[1]
