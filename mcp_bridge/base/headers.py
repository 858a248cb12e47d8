"""A response's headers, read and written without Django's per-header work where nothing can vary.

Django's ``ResponseHeaders`` is a ``CaseInsensitiveMapping``, whose ``in`` and ``get`` come
from ``collections.abc.Mapping``: each raises and catches a ``KeyError`` for a header the
response does not have, which costs more than the rest of the lookup. Setting a header checks
its name and value (``_convert_to_charset``: ASCII, latin-1, no newline) every time. The call
pipeline asks a few such questions of every response (is it an attachment, which language
labels it already), nearly always answered "absent", and sets a few headers whose values come
from a small set (``Content-Language``, ``Vary``).

:func:`header` reads, and :func:`put_header` writes, the mapping's own store, where Django
keeps each header under its lower-case name as ``(name, value)``
(``django/utils/datastructures.py``); the entry :func:`put_header` writes is the one Django's
own check made for that name and value, once (tests/test_private_apis.py fails if Django
keeps headers another way).
"""

from __future__ import annotations

from functools import lru_cache

from django.http import HttpResponseBase
from django.http.response import ResponseHeaders


def header(response: HttpResponseBase, lower_name: str) -> str | None:
    """The value of the header ``lower_name`` (lower case) of ``response``, or ``None``."""
    entry = response.headers._store.get(lower_name)
    return None if entry is None else entry[1]


def put_header(response: HttpResponseBase, name: str, value: str) -> None:
    """Set the header ``name`` of ``response`` to ``value``, as ``response[name] = value`` does.

    Raises:
        BadHeaderError: the value holds a newline (Django's own check).
    """
    key, entry = checked_header(name, value)
    response.headers._store[key] = entry


@lru_cache(maxsize=256)
def checked_header(name: str, value: str) -> tuple[str, tuple[str, str]]:
    """The store key and entry Django makes for the header ``name: value``, checked by
    Django once per name and value (a cache of 256: the values set this way come from a few)."""
    headers = ResponseHeaders({name: value})
    ((key, entry),) = headers._store.items()
    return key, entry
