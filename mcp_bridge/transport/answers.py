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

:class:`Refused` is how every step of the transport ends a request before dispatch, and
:func:`error_answer` the JSON-RPC error answer it and the views write.
"""

from __future__ import annotations

from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

from django.http import HttpResponse
from django.http.response import ResponseHeaders

from mcp_bridge.base.encoding import dumps_bytes
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


def error_answer(
    code: int, message: str, status: int, data: Any = None, request_id: Any = None
) -> HttpResponse:
    """A JSON-RPC error answered with HTTP ``status``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONAnswer(dumps_bytes({"jsonrpc": "2.0", "id": request_id, "error": error}), status)


class Refused(Exception):
    """A request the transport ends before it reaches dispatch, and how it is answered.

    Every step of the transport that refuses a request raises it, as a DRF view raises an
    ``APIException``: a foreign ``Origin``, a missing credential, a method, ``Accept`` or
    ``Content-Type`` the endpoint cannot serve, a body over its limits, an unknown profile,
    group or version, a tool set that cannot be built. The views answer it in one place
    (:func:`mcp_bridge.transport.endpoint.answers_in_json`), as DRF's ``handle_exception``
    answers an ``APIException``.

    Args:
        code, message, data: the JSON-RPC error of the answer's body.
        status: its HTTP status.
        request_id: the ``id`` of the message refused, when it was read and usable.
        headers: headers of the answer (``Allow``, ``WWW-Authenticate``).
        body: ``False`` for an answer without a body (405 with ``Allow``).
    """

    def __init__(
        self,
        code: int,
        message: str,
        status: int,
        data: Any = None,
        *,
        request_id: Any = None,
        headers: dict[str, str] | None = None,
        body: bool = True,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.data = data
        self.request_id = request_id
        self.headers = headers or {}
        self.body = body

    def answer(self) -> HttpResponse:
        """The HTTP answer of the refusal."""
        if self.body:
            response = error_answer(
                self.code, self.message, self.status, self.data, self.request_id
            )
        else:
            response = HttpResponse(status=self.status)
        for name, value in self.headers.items():
            response[name] = value
        return response
