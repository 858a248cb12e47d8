"""What stops every group before any is built: checked once, named once.

``mcp_bridge.E080``
    ``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]`` is not drf-spectacular's ``AutoSchema`` (or a
    subclass): drf-spectacular's generator cannot run, whatever the view.
``mcp_bridge.E081``
    ``settings.MCP_BRIDGE`` is not a dict, or has an unknown key (:mod:`mcp_bridge.base.conf`).
``mcp_bridge.E201``-``E295``
    A key of ``settings.MCP_BRIDGE`` has a wrong value: each key its own id, with its hint
    (:data:`mcp_bridge.base.conf.SETTINGS`).
``mcp_bridge.W085``
    A drf-spectacular warning or error met while a group was generated, with the view and
    its file named (:func:`spectacular_problems`); reported once.

:func:`configuration_problems` is called by the registry before each build (the problems
become the :class:`~mcp_bridge.base.errors.ToolSetError` of every group), by the system
checks (:func:`mcp_bridge.checks.check_setup` reports them), and by the transport, whose
JSON-RPC error for the :class:`~mcp_bridge.base.conf.SettingError` an invalid ``MCP_BRIDGE``
raises at its first read lists their ids and keys
(:func:`mcp_bridge.transport.endpoint.misconfigured`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from drf_spectacular.openapi import AutoSchema
from rest_framework.settings import api_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem

openapi_logger = logging.getLogger("mcp_bridge.openapi")

#: drf-spectacular messages already logged by this process: a view in several groups, or
#: several versions, is generated more than once, and its warning is worth one line.
_logged: set[str] = set()

SCHEMA_CLASS_HINT = (
    'Set REST_FRAMEWORK = {"DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema", ...} '
    "in settings.py (a subclass of it works too)."
)


def spectacular_problems(messages: list[str]) -> list[Problem]:
    """drf-spectacular's warnings and errors of one build, as ``mcp_bridge.W085`` problems.

    Each names the view and its file (the generator's trace, see
    :func:`mcp_bridge.build.openapi.generate_group_schema`); ``manage.py check`` reports each once,
    and the first build that meets one logs it on ``mcp_bridge.openapi`` (once per process),
    so that it is seen under runserver, WSGI or ASGI too.
    """
    problems = []
    for message in messages:
        if message not in _logged:
            _logged.add(message)
            if not _checking.active:  # a system check reports it instead
                openapi_logger.warning("drf-spectacular: %s", message)
        problems.append(
            Problem(
                "mcp_bridge.W085",
                f"drf-spectacular: {message}",
                "Fix the view named (its serializer_class, or an @extend_schema); the tool built "
                "from it may lack arguments or an outputSchema. `manage.py spectacular --validate` "
                "shows the same messages.",
            )
        )
    return problems


class _Checking(threading.local):
    active = False


_checking = _Checking()


@contextlib.contextmanager
def reported_by_checks() -> Iterator[None]:
    """While system checks build the groups: W085 is reported by the check, not logged too."""
    _checking.active = True
    try:
        yield
    finally:
        _checking.active = False


def configuration_problems() -> list[Problem]:
    """The settings that stop every group (E080; E081 and each wrong key's own id, E201-E295);
    empty when none does."""
    # Every fault of MCP_BRIDGE, where a read of any setting raises the first.
    problems = bridge_settings.problems()
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
