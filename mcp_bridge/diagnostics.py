"""How the project set the bridge up: the mistakes that used to pass without a word.

The tool sets themselves are checked by a deployment check
(:func:`mcp_bridge.checks.check_tool_sets`); this module finds what lies around them, as
:class:`~mcp_bridge.base.errors.Problem` values that :func:`mcp_bridge.checks.check_setup`
reports with every command (:func:`find_setup_problems`). The setup's errors come first, from
elsewhere: ``E080`` and ``E081`` (the schema class or ``MCP_BRIDGE`` stops every group) from
:mod:`mcp_bridge.build.preflight`, and ``E082`` (``mcp_bridge.urls`` included but
``"mcp_bridge"`` not in ``INSTALLED_APPS``) is raised as ``ImproperlyConfigured`` when the
URLconf is loaded (:mod:`mcp_bridge.urls`), since without the app no check of it runs.

``mcp_bridge.W080``
    ``@mcp_tool`` on an operation that is in no API group: it publishes nothing by itself.
``mcp_bridge.W081``
    ``@api_group`` on a view, viewset or action that no URL pattern routes to.
``mcp_bridge.W082``
    ``@api_group`` or ``@mcp_tool`` on a class that is not a DRF view (a plain Django view).
``mcp_bridge.W083`` (found by the URL walk, :func:`mcp_bridge.build.openapi.cannot_run`,
and reported by :func:`mcp_bridge.checks.check_membership`)
    an operation of a group whose handler is an ``async def`` of a DRF view that is not
    adrf's (an ``@action``, an ``APIView`` method, an ``@api_view`` function): DRF runs
    handlers synchronously, so it cannot answer, and it is left out of the group's tools
    (adrf's views await them, and tools run them).
``mcp_bridge.W084``
    ``mcp_bridge.urls`` is included nowhere in the URLconf: no endpoint serves the groups.
``mcp_bridge.W086``
    ``mcp_bridge.urls`` is included under a prefix without its trailing slash
    (``path("mcp", include(...))``): the endpoints answer at ``/mcp<group>/``.

A decorator put *below* ``@api_view`` is refused earlier, with a ``TypeError`` at import
(:mod:`mcp_bridge.decorators`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.views import View
from drf_spectacular.generators import EndpointEnumerator
from rest_framework.views import APIView

from mcp_bridge.base.errors import Problem
from mcp_bridge.build.openapi import _url_patterns
from mcp_bridge.decorators import DECORATED, METADATA_ATTR, get_metadata


def find_setup_problems(endpoint: Callable[..., Any]) -> list[Problem]:
    """W080-W084: the decorators' tags that publish nothing, and an endpoint included nowhere.

    Args:
        endpoint: the MCP endpoint view, whose absence from the URLconf is ``W084``
            (:func:`mcp_bridge.checks.check_setup` passes it).
    """
    patterns = [
        (regex, callback)
        for regex, callback, _, _ in _url_patterns(EndpointEnumerator().patterns, "", "", ())
    ]
    problems = find_tag_problems(patterns)
    problems += find_slashless_mounts(patterns, endpoint)
    if not any(callback is endpoint for _, callback in patterns):
        problems.append(
            Problem(
                "mcp_bridge.W084",
                "mcp_bridge.urls is not included in the URLconf: no MCP endpoint serves the API groups.",
                'Add path("mcp/", include("mcp_bridge.urls")) to urlpatterns in your urls.py.',
            )
        )
    return problems


def find_slashless_mounts(
    patterns: list[tuple[str, Any]], endpoint: Callable[..., Any]
) -> list[Problem]:
    """W086: ``include("mcp_bridge.urls")`` under a prefix without its trailing slash.

    ``path("mcp", include("mcp_bridge.urls"))`` glues the prefix to the group, as Django
    concatenates the patterns: the endpoints answer at ``/mcplibrary/``, and ``/mcp/library/``
    is a 404 naming the group ``''``.
    """
    problems = []
    seen = set()
    for regex, callback in patterns:
        at = regex.find("(?P<group>")
        if callback is not endpoint or at < 0:
            continue
        prefix = regex[:at].replace("^", "").replace("$", "")
        if not prefix or prefix.endswith("/") or prefix in seen:
            continue
        seen.add(prefix)
        problems.append(
            Problem(
                "mcp_bridge.W086",
                f"mcp_bridge.urls is included under {prefix!r}, without a trailing slash: the "
                f"endpoints answer at /{prefix}<group>/ (e.g. /{prefix}catalog/), and /{prefix}/<group>/ "
                "answers 404.",
                f'Add the slash: path("{prefix}/", include("mcp_bridge.urls")).',
                prefix,
            )
        )
    return problems


def find_tag_problems(patterns: list[tuple[str, Any]]) -> list[Problem]:
    """W080-W083 for every class and method the decorators tagged.

    Args:
        patterns: ``(path_regex, callback)`` of every URL pattern of the URLconf.
    """
    routed: list[tuple[type, dict[str, str] | None]] = []  # view class, viewset actions
    for _, callback in patterns:
        cls = getattr(callback, "cls", None)
        if isinstance(cls, type):
            routed.append((cls, getattr(callback, "actions", None)))
    problems = []
    for target in list(DECORATED):
        # An @api_view function's class is WrappedAPIView, renamed after the function.
        name = (
            target.__name__
            if target.__qualname__.endswith("WrappedAPIView")
            else target.__qualname__
        )
        label = f"{target.__module__}.{name}"
        own = target.__dict__.get(METADATA_ATTR, {})
        decorators = "@api_group" if own.get("groups") else "@mcp_tool"
        if isinstance(target, type):
            if not issubclass(target, APIView):
                kind = "a plain Django view" if issubclass(target, View) else "not a view"
                problems.append(
                    Problem(
                        "mcp_bridge.W082",
                        f"{decorators} on {label}, which is {kind}: only DRF views are published.",
                        "Make it a DRF APIView or viewset, or an @api_view function.",
                        label,
                    )
                )
                continue
            users = [(cls, actions) for cls, actions in routed if issubclass(cls, target)]
        else:
            users = [
                (cls, actions) for cls, actions in routed if _routes_handler(cls, actions, target)
            ]
        if not users:
            if own.get("groups"):
                problems.append(
                    Problem(
                        "mcp_bridge.W081",
                        f"@api_group on {label}, which no URL pattern routes to: it publishes nothing.",
                        "Register the viewset with a router (or add a path() for the view) in the URLconf; "
                        "for an @action, check its `methods` and the router's routes.",
                        label,
                    )
                )
            elif own:
                problems.append(_no_group(label))
            continue
        if own.get("groups"):
            continue
        # A class-level @mcp_tool mapping: in a group through the class or its actions.
        if isinstance(target, type):
            grouped = any(get_metadata(cls, None)["groups"] or _any_group(cls) for cls, _ in users)
        else:
            grouped = any(get_metadata(cls, target)["groups"] for cls, _ in users)
        if not grouped:
            problems.append(_no_group(label))
    return problems


def _routes_handler(cls: type, actions: dict[str, str] | None, function: Any) -> bool:
    """Whether a routed view (class and viewset actions) calls ``function`` as a handler."""
    names = set(actions.values()) if actions else set(getattr(cls, "http_method_names", ()))
    for name in names:
        handler = getattr(cls, name, None)
        while handler is not None:  # through wrappers (@cached, @locked keep __wrapped__)
            if handler is function:
                return True
            handler = getattr(handler, "__wrapped__", None)
    return False


def _any_group(cls: type) -> bool:
    """A class whose actions are in groups: a class-level @mcp_tool mapping names those."""
    return any(getattr(value, METADATA_ATTR, {}).get("groups") for value in vars(cls).values())


def _no_group(label: str) -> Problem:
    return Problem(
        "mcp_bridge.W080",
        f"@mcp_tool on {label}, which is in no API group: @mcp_tool publishes nothing by itself.",
        'Add @api_group("<group>") to it or to its view class.',
        label,
    )
