"""The endpoint's ``application/json`` answers, made without HttpResponse's generic steps.

``HttpResponse(body, status=..., content_type="application/json")`` spends most of its
construction on one header: it asks whether ``Content-Type`` was given (a ``KeyError`` raised
and caught when not), then checks the name and value it sets. Every answer of the endpoint is
JSON-RPC bytes with that one content type: :class:`JSONAnswer` is that response, with the
``Content-Type`` entry Django's own check made once (:func:`~mcp_bridge.base.headers.checked_header`)
and the other attributes ``HttpResponse.__init__`` sets, set as it sets them. It is an
``HttpResponse``: middleware, the handler and the server treat it as one (headers, cookies,
``close()``). tests/test_answers.py compares it with ``HttpResponse``'s own, attribute by
attribute, so that a Django release that sets one more fails there.
"""

from __future__ import annotations

from collections.abc import Callable
from http.cookies import SimpleCookie

from django.http import HttpResponse
from django.http.response import ResponseHeaders

from mcp_bridge.base.headers import checked_header

_JSON = "application/json"


class JSONAnswer(HttpResponse):
    """``HttpResponse(body, status=status, content_type="application/json")``.

    Args:
        body: the answer's bytes (a JSON-RPC message, or a batch).
        status: its HTTP status, one the endpoint chose (100-599).
    """

    def __init__(self, body: bytes, status: int = 200) -> None:
        # HttpResponseBase.__init__, then HttpResponse.__init__ (django/http/response.py).
        headers = self.headers = ResponseHeaders({})
        key, entry = checked_header("Content-Type", _JSON)
        headers._store[key] = entry
        self._charset = None
        self._resource_closers: list[Callable[[], object]] = []
        self._handler_class = None
        self.cookies = SimpleCookie()
        self.closed = False
        self.status_code = status
        self._reason_phrase = None
        self._container = [body]
