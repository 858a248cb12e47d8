"""The caller's identity on both requests of a tool call: what DRF authenticates, middleware sees.

For a REST request, DRF authenticates inside the view and writes the result
through to the ``HttpRequest`` that middleware holds: ``Request.user`` and
``Request.auth`` set ``request._request.user`` / ``.auth``
(``rest_framework/request.py``, the ``user`` and ``auth`` setters). Through a
tool, the view's ``HttpRequest`` is the bridge's inner request
(:func:`mcp_bridge.toolcall.executor.build_request`), while middleware and the code it
serves (change logs, ``django-simple-history``'s ``HistoryRequestMiddleware``,
"current request" middleware) hold the outer MCP request.

:class:`ViewRequest` is that inner request: whatever is set as its ``user`` or
``auth`` — by any DRF authentication class (token, Basic, session, a custom
one, forced authentication) — is set on the MCP request as well, at the moment
DRF sets it, and in the way DRF sets it: through the attribute, so that what
middleware installed on the request's class runs (django-pghistory's
``HistoryMiddleware`` swaps in a request class whose ``__setattr__`` puts the
user into the history context; a property of a project's own request class).
Code holding the MCP request therefore sees the authenticated user during the
view (a ``post_save`` receiver, django-crum's ``get_current_user()``) and after
it (a middleware's ``process_response``), exactly as for REST. ``auser``
(Django's async accessor) is replaced on both requests by one answering the
same user.

Middleware runs once per HTTP request, on the MCP request, so what it records
at the start of the request (django-pghistory's ``url``) is the MCP endpoint's
URL, while the user is the one REST records; docs/endpoint.md ("Middleware and
audit trails") says why, and how to add the operation to the trail.

Several calls share one MCP request only in a 2025-03-26 JSON-RPC batch:
:func:`restore` puts back the identity middleware gave the MCP request, and
:mod:`mcp_bridge.transport.batch` calls it after each member, so that a call never runs
with (and a ``pre_tool_call`` receiver never sees) the previous call's user.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream, WSGIRequest
from django.http import HttpRequest

from mcp_bridge.toolcall.context import request_state

#: Request attributes set by middleware that identify the caller, copied to the view's request.
#: ``_force_auth_*`` is DRF's forced authentication (``APIClient.force_authenticate``,
#: and ``manage.py mcp_stdio --user``): rest_framework.request.Request reads it.
#: ``_dont_enforce_csrf_checks`` is how a middleware (or Django's test client) exempts a
#: request from CSRF; DRF's ``SessionAuthentication`` reads it on the view's request.
IDENTITY_ATTRIBUTES = (
    "user",
    "auser",
    "auth",
    "session",
    "LANGUAGE_CODE",
    "_force_auth_user",
    "_force_auth_token",
    "_dont_enforce_csrf_checks",
)

#: The attributes written through to the MCP request (``auser`` follows ``user``).
_SHARED = ("user", "auth", "auser")
#: Where the view's request keeps the values of its ``user`` and ``auth`` properties.
_STORED = {"user": "_view_user", "auth": "_view_auth"}
_ABSENT = object()
#: The content types of the view's request, which need no parsing: no parameters.
_PLAIN_CONTENT_TYPES = frozenset({"application/json", ""})


def _constant_auser(user: Any) -> Any:
    async def auser() -> Any:
        return user

    return auser


class ViewRequest(WSGIRequest):
    """The view's ``HttpRequest``: ``user`` and ``auth`` set on it are set on the MCP request too.

    Args:
        environ: the WSGI environ of the operation, as
            :func:`mcp_bridge.toolcall.plan.view_request` makes it.
        mcp_request: the MCP request the call came in.

    The identity attributes middleware put on ``mcp_request`` (:data:`IDENTITY_ATTRIBUTES`)
    are copied without being evaluated (``request.user`` is lazy and stays so).
    """

    def __init__(self, environ: dict[str, Any], mcp_request: HttpRequest) -> None:
        # What WSGIRequest.__init__ sets (django/core/handlers/wsgi.py), for the environ that
        # mcp_bridge.toolcall.plan.view_request makes: its PATH_INFO and SCRIPT_NAME already
        # hold the decoded text that the MCP request's META holds (WSGIRequest would encode
        # them to latin-1 and decode them again), its CONTENT_TYPE is application/json or empty (which
        # WSGIRequest would parse), its CONTENT_LENGTH the body's length. This costs less than
        # half as much; tests/test_view_request.py compares every attribute with WSGIRequest's
        # own, so that a Django release that sets one more, or another way, fails there.
        # The MCP request's own (WSGIRequest and ASGIRequest put FORCE_SCRIPT_NAME there when
        # it is set); a request Django's handlers did not make (stdio) has none.
        script_name = environ.get("SCRIPT_NAME")
        if script_name is None:
            script_name = settings.FORCE_SCRIPT_NAME or ""
        path_info = environ["PATH_INFO"] or "/"
        self.environ = environ
        self.path_info = path_info
        # Only the first slash is replaced, as Django does (http://test//something differs).
        self.path = f"{script_name.rstrip('/')}/{path_info.replace('/', '', 1)}"
        self.META = environ
        environ["PATH_INFO"] = path_info
        environ["SCRIPT_NAME"] = script_name
        self.method = environ["REQUEST_METHOD"].upper()
        content_type = environ.get("CONTENT_TYPE", "")
        if content_type in _PLAIN_CONTENT_TYPES:
            self.content_type, self.content_params = content_type, {}
        else:
            self._set_content_type_params(environ)  # type: ignore[attr-defined]
        length = environ.get("CONTENT_LENGTH")
        # As WSGIRequest wraps a server's input: reading the body consumes wsgi.input, and
        # closing the stream (HttpRequest.body does) leaves wsgi.input open.
        self._stream = LimitedStream(environ["wsgi.input"], int(length) if length else 0)  # type: ignore[assignment]
        self._read_started = False
        self.resolver_match = None
        self._mcp_request = mcp_request
        attributes = mcp_request.__dict__
        own = self.__dict__
        for name in IDENTITY_ATTRIBUTES:
            if name in attributes:
                # Into __dict__, not through the properties: copying is not authenticating.
                own[_STORED.get(name, name)] = attributes[name]

    # Properties for the two shared attributes only: every other attribute of the request is
    # set and read as usual, and these are read rarely (DRF keeps its own copy).
    @property
    def user(self) -> Any:
        try:
            return self.__dict__["_view_user"]
        except KeyError:
            raise AttributeError("user") from None

    @user.setter
    def user(self, value: Any) -> None:
        own = self.__dict__
        own["_view_user"] = value
        # One accessor for both requests: each answers the same user.
        own["auser"] = auser = _constant_auser(value)
        _share(self._mcp_request, "user", value, auser)

    @property
    def auth(self) -> Any:
        try:
            return self.__dict__["_view_auth"]
        except KeyError:
            raise AttributeError("auth") from None

    @auth.setter
    def auth(self, value: Any) -> None:
        self.__dict__["_view_auth"] = value
        _share(self._mcp_request, "auth", value)


def _share(mcp_request: HttpRequest, name: str, value: Any, auser: Any = None) -> None:
    """Set ``name`` (and, with the user, its ``auser``) on the MCP request, keeping what
    middleware set there the first time (:func:`restore`)."""
    attributes = mcp_request.__dict__
    if attributes.get(name, _ABSENT) is value:
        return  # the value middleware set (session authentication): nothing changes
    state = request_state(mcp_request)
    if state.original_identity is None:
        # In the order of _SHARED.
        state.original_identity = (
            attributes.get("user", _ABSENT),
            attributes.get("auth", _ABSENT),
            attributes.get("auser", _ABSENT),
        )
    # Set as DRF sets it on a REST call's request (``self._request.user = value``): through
    # the attribute, so that the hooks middleware installed on the request run (a property,
    # or ``__setattr__`` on the class django-pghistory's middleware swaps in).
    setattr(mcp_request, name, value)
    if auser is not None:
        attributes["auser"] = auser


def restore(mcp_request: HttpRequest) -> None:
    """Give ``mcp_request`` back the ``user``, ``auth`` and ``auser`` middleware set on it,
    if a call's authentication changed them (the next call of a batch starts from those)."""
    state = request_state(mcp_request)
    original, state.original_identity = state.original_identity, None
    if original is None:
        return
    for name, value in zip(_SHARED, original, strict=True):
        if value is _ABSENT:
            mcp_request.__dict__.pop(name, None)
        elif name == "auser":
            mcp_request.__dict__[name] = value
        else:
            setattr(mcp_request, name, value)  # through the hooks, as the call set it
