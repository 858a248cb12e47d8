"""Django system checks, in two tiers.

**Every command** (``check``, ``migrate``, ``runserver``...): :mod:`mcp_bridge.diagnostics`
(the setup, ``E080``-``E082``, ``W080``-``W084``) and :func:`check_membership`, which read the settings and walk the URLconf once
(decorators and ``MCP_BRIDGE["GROUPS"]`` rules), without generating any schema:

* ``mcp_bridge.E004``: the URLconf or a view cannot be loaded;
* ``mcp_bridge.E050``: a malformed membership rule; ``mcp_bridge.W050``: a rule that
  matches nothing.

**Deployment and validation** (``check --deploy``, ``manage.py mcp_tools --validate``):
:func:`check_tool_sets` builds every group/version as the endpoint does
(drf-spectacular's generation and the whole pipeline) and reports each
:class:`~mcp_bridge.base.errors.Problem` of a group that cannot be built (``E001``-``E005``,
``E010``, ``E020``, ``E021``) as an error with its id, a ``hint`` and the culprit view as
``obj``, and each warning of a built tool set (``W010``, ``W020``, ``W040``...) as a
warning. It is a deployment check because it costs as much as generating the API's schema:
a broken group must not slow down or stop ``migrate`` and every other command. It still
fails loudly: every request to the group's endpoint answers HTTP 500 (system checks do not
run under WSGI/ASGI), and ``mcp_tools --validate`` exits with status 1.

All are tagged ``mcp_bridge`` (and ``urls``: they need the URLconf), so that
``check --deploy --tag mcp_bridge`` runs them alone.

**MCP authorization** (every command): :func:`check_authorization` checks the configuration
of protected groups (``mcp_bridge.E060``-``E063``, ``W060``-``W061``,
:mod:`mcp_bridge.transport.authorization`).

"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem, ToolSetError
from mcp_bridge.toolcall.output import check_omit_rules
from mcp_bridge.toolset.preflight import configuration_problems, reported_by_checks
from mcp_bridge.toolset.registry import get_groups, get_toolset, get_url_index
from mcp_bridge.transport import authorization
from mcp_bridge.transport.endpoint import mcp_endpoint

__all__ = ["TAG", "check_authorization", "check_membership", "check_tool_sets"]

#: The tag of every mcp_bridge check.
TAG = "mcp_bridge"

#: Reported by check_membership, which runs with every command, deployment checks included.
_MEMBERSHIP_IDS = {"mcp_bridge.E050", "mcp_bridge.W050"}


def check_membership(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Walk the URLconf once and check the ``MCP_BRIDGE["GROUPS"]`` rules (E050, W050)."""
    try:
        bridge_settings._resolved()
    except ImproperlyConfigured:
        return []  # mcp_bridge.diagnostics.check_setup reports it (E081)
    try:
        index = get_url_index()
    except Exception as exc:  # noqa: BLE001 -- the URLconf or a view class failed to load
        return [_enumeration_error(exc)]
    problems = [problem for found in index.membership.problems.values() for problem in found]
    problems += index.membership.unused_rule_problems()
    return [_message(problem) for problem in problems]


def check_tool_sets(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Build the tools of every group/version and report what stops them (a deployment check)."""
    if configuration_problems():
        return []  # E080/E081 stop every group: mcp_bridge.diagnostics.check_setup says it once
    try:
        groups = get_groups()
    except Exception as exc:  # noqa: BLE001 -- the URLconf or a view class failed to load
        return [_enumeration_error(exc)]
    messages: list[checks.CheckMessage] = []
    tool_names: dict[str, set[str]] = {}
    for group, versions in groups.items():
        tool_names[group] = set()
        for version in versions:
            try:
                with reported_by_checks():  # drf-spectacular's warnings: W085 here, not logged
                    toolset = get_toolset(group, version)
                tool_names[group].update(toolset.by_name)
            except ToolSetError as exc:
                messages.extend(
                    _message(problem)
                    for problem in exc.problems
                    if problem.id not in _MEMBERSHIP_IDS
                )
            else:
                messages.extend(_message(problem) for problem in toolset.warnings)
    messages += check_omit_rules(tool_names)
    # One problem, one message: a view shared by several groups or versions is reported once.
    unique: list[checks.CheckMessage] = []
    for message in messages:
        if message not in unique:
            unique.append(message)
    return unique


def _message(problem: Problem) -> checks.CheckMessage:
    level = checks.Warning if problem.id.startswith("mcp_bridge.W") else checks.Error
    return level(problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id)


def _enumeration_error(exc: Exception) -> checks.CheckMessage:
    return checks.Error(
        f"mcp_bridge could not enumerate the API's views: {type(exc).__name__}: {exc}",
        hint="Fix the URLconf or view named in the message; `manage.py spectacular` shows more.",
        id="mcp_bridge.E004",
    )


def check_authorization(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """MCP authorization's configuration (:func:`mcp_bridge.transport.authorization.check_authorization`)."""
    return authorization.check_authorization(mcp_endpoint)
