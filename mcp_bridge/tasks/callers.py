"""Who a task belongs to, and who runs it.

A task is bound to the identity DRF authenticates for the caller, as the tool's view would
authenticate it (its ``authentication_classes``, or the forced authentication of ``mcp_stdio
--user`` and of a test client): ``"user:<pk>"`` for a user, ``"anonymous"`` for a caller
without one. ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` authenticate their caller the
same way and find only the caller's own tasks: another caller's task answers exactly as an
unknown id does. An anonymous caller's task is found by any anonymous caller that knows its
192-bit id (the extension allows ids as bearer secrets); a project whose tools need a user
should refuse anonymous callers in the view, as it does for REST.

What a background run gets is the user's primary key, never the credential that proved it
(no token, cookie or password goes into the task store or the queue): the worker loads the
user again when the run starts and runs the view with DRF's forced authentication of that user
(:func:`run_request`). The view's permissions then decide as they would now: a permission
withdrawn, a user made inactive or deleted before the run, and the run is refused.
What the credential carried beyond the user (``request.auth``: an OAuth token's scopes, a
token object) is not there in the background: a permission that reads ``request.auth`` refuses
a background run, and such a tool should be a job (``202 Accepted``) or run synchronously.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpRequest
from rest_framework.request import ForcedAuthentication, Request

from mcp_bridge.build.tools import Tool
from mcp_bridge.toolcall.plan import request_plan, view_request

ANONYMOUS = "anonymous"


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: the owner key of its tasks and its user (``None``: anonymous)."""

    owner: str
    user: Any


def caller_of(tool: Tool, mcp_request: HttpRequest) -> Caller:
    """Authenticate the MCP request's caller as the view of ``tool`` authenticates it.

    Raises:
        rest_framework.exceptions.APIException: the credentials are refused
            (``AuthenticationFailed``): the caller is nobody's.
    """
    plan = request_plan(tool)
    django_request = view_request(plan, mcp_request, plan.template, "", None, plan.json_accept)
    # Only who the caller is matters here: the view that acts for a task (its run, its job's
    # URL) checks CSRF as it always does. Honoured by DRF's SessionAuthentication.
    django_request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
    attributes = mcp_request.__dict__
    if attributes.get("_force_auth_user") is not None or attributes.get("_force_auth_token"):
        authenticators: list[Any] = [
            ForcedAuthentication(
                attributes.get("_force_auth_user"), attributes.get("_force_auth_token")
            )
        ]
    else:
        view_class: Any = tool.method.source.view_class
        classes = view_class.authentication_classes
        if not isinstance(classes, (list, tuple)):
            # Computed by the view (a property, as Nautobot's TokenViewSet): an instance tells.
            classes = view_class().authentication_classes
        authenticators = [cls() for cls in classes]
    user = Request(django_request, parsers=[], authenticators=authenticators).user
    if user is not None and getattr(user, "is_authenticated", False):
        return Caller(f"user:{user.pk}", user)
    return Caller(ANONYMOUS, None)


def user_of(pk: Any) -> Any:
    """The active user ``pk`` names now, or ``None`` (deleted, or made inactive)."""
    if pk is None:
        return None
    user = get_user_model()._default_manager.filter(pk=pk).first()
    if user is None or not getattr(user, "is_active", True):
        return None
    return user


def run_request(host: str, scheme: str, user: Any) -> HttpRequest:
    """The MCP request a background run stands on: the original host and scheme, and DRF's
    forced authentication of ``user`` (``None``: no credential at all, an anonymous caller)."""
    request = HttpRequest()
    request.method = "POST"
    request.path = request.path_info = "/"
    name, _, port = host.partition(":")
    request.META.update(
        {
            "SERVER_NAME": name,
            "SERVER_PORT": port or ("443" if scheme == "https" else "80"),
            "HTTP_HOST": host,
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.url_scheme": scheme,
        }
    )
    if user is not None:
        request.user = user
        # Private DRF API, read by rest_framework.request.Request: APIClient.force_authenticate's
        # mechanism, as mcp_stdio --user uses it (tests/test_private_apis.py fails if it goes).
        request._force_auth_user = user  # type: ignore[attr-defined]
    return request
