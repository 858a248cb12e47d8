"""What stops every group before any is built: checked once, named once.

``mcp_bridge.E080``
    ``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]`` is not drf-spectacular's ``AutoSchema`` (or a
    subclass): drf-spectacular's generator cannot run, whatever the view.
``mcp_bridge.E081``
    ``settings.MCP_BRIDGE`` has an unknown key or a wrong value (:mod:`mcp_bridge.conf`).

:func:`configuration_problems` is called by the registry before each build (the problems
become the :class:`~mcp_bridge.exceptions.ToolSetError` of every group) and by the system
check of :mod:`mcp_bridge.diagnostics`; :func:`answers_misconfiguration` turns the
``ImproperlyConfigured`` an invalid ``MCP_BRIDGE`` raises at its first read into a JSON-RPC
error, not Django's HTML error page.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from drf_spectacular.openapi import AutoSchema
from rest_framework.settings import api_settings

from mcp_bridge.conf import bridge_settings
from mcp_bridge.encoding import dumps_bytes
from mcp_bridge.exceptions import Problem
from mcp_bridge.protocol import INTERNAL_ERROR

__all__ = ["answers_misconfiguration", "configuration_problems"]

logger = logging.getLogger("mcp_bridge.transport")

SCHEMA_CLASS_HINT = (
    'Set REST_FRAMEWORK = {"DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema", ...} '
    "in settings.py (a subclass of it works too)."
)


def configuration_problems() -> list[Problem]:
    """The settings that stop every group (E080, E081); empty when none does."""
    problems = []
    try:
        bridge_settings._resolved()  # what every access of a bridge setting reads
    except ImproperlyConfigured as exc:
        problems.append(
            Problem(
                "mcp_bridge.E081",
                f"settings.MCP_BRIDGE is invalid: {exc}",
                "Fix the key or value in settings.MCP_BRIDGE; docs/settings.md lists the keys.",
            )
        )
    schema_class = api_settings.DEFAULT_SCHEMA_CLASS
    if not (isinstance(schema_class, type) and issubclass(schema_class, AutoSchema)):
        name = getattr(schema_class, "__qualname__", repr(schema_class))
        problems.append(
            Problem(
                "mcp_bridge.E080",
                f"REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] is {name}, not drf-spectacular's AutoSchema: "
                f"mcp_bridge builds every tool from drf-spectacular's OpenAPI.",
                SCHEMA_CLASS_HINT,
            )
        )
    return problems


ViewFunction = Callable[..., HttpResponse]


def answers_misconfiguration(view: ViewFunction) -> ViewFunction:
    """Decorate an endpoint view: a settings error becomes a JSON-RPC error with HTTP 500.

    Without it, ``ImproperlyConfigured`` (an invalid ``MCP_BRIDGE``, read on the first access
    of a setting) escapes to Django, which answers its HTML error page: a client cannot read
    that. The full message is sent when ``DEBUG`` is on and always logged on
    ``mcp_bridge.transport``; ``error.data.problems`` lists the check ids (E080, E081).
    """

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except ImproperlyConfigured as exc:
            logger.error("The MCP endpoint is misconfigured: %s", exc)
            problems = configuration_problems()
            error: dict[str, Any] = {
                "code": INTERNAL_ERROR,
                "message": str(exc)
                if settings.DEBUG
                else "Internal error: this MCP endpoint is misconfigured; see the server log.",
                "data": {
                    "problems": [
                        {"id": p.id}
                        | ({"message": p.msg, "hint": p.hint} if settings.DEBUG else {})
                        for p in problems
                    ]
                },
            }
            body = dumps_bytes({"jsonrpc": "2.0", "id": None, "error": error})
            return HttpResponse(body, status=500, content_type="application/json")

    return wrapped
