"""Which tools a caller may use: the view-level checks of each tool's DRF view, asked before any call.

MCP spec 2026-07-28, "Tools" → "Listing tools": the list MAY vary by authorization. A model
picks its tools from the list, so a tool the caller can never use costs context and invites a
refused call. :func:`visible_tool_names` answers, for one caller, the names of the tools whose
view would let the caller through its view-level checks, as DRF's ``APIView.initial`` runs
them, without running the view:

* a request is built for each operation as a ``tools/call`` builds it
  (:func:`mcp_bridge.toolcall.plan.view_request`: the operation's HTTP method and
  path template, the caller's headers, cookies and identity), and the view is instantiated as
  its URL pattern's callback does (``initkwargs``, and for a viewset the action of the HTTP
  method), so ``get_permissions()`` sees ``self.action`` and ``request.method``;
* DRF authentication runs (``Request.user``), then ``check_permissions()``, which calls each
  permission's ``has_permission``. Object-level permissions (``has_object_permission``) cannot
  be known before a call: they are not asked, and the tool stays listed. Content negotiation
  runs as ``APIView.initial`` runs it (a permission may read ``request.accepted_renderer``);
  throttles and the handler never run, and nothing touches the database but what
  the authentication and permission classes read themselves (a token, a user's model
  permissions). OAuth scopes count like any permission: django-oauth-toolkit's
  ``TokenHasScope``, ``TokenHasReadWriteScope`` and the like read ``request.auth``;
* CSRF is not checked (``SessionAuthentication`` checks it for writes): the list tells what a
  caller may use with a well-formed request, and the explorer's ``GET`` carries no token;
* only a **denial** hides the tool: DRF's ``NotAuthenticated``, ``AuthenticationFailed`` or
  ``PermissionDenied``, or Django's ``PermissionDenied`` (what ``check_permissions`` raises
  when a permission answers ``False``). Any other exception means "cannot tell": a check
  asked without a body or an object cannot always decide (a permission that reads a parent id
  from ``request.data`` and raises ``ParseError`` when it is missing, one that calls
  ``get_object()`` and meets ``Http404`` or an ``AssertionError``), so the tool stays listed
  and its view decides on each call. It is logged once per tool and exception class, on
  ``mcp_bridge.visibility``: one line for a DRF ``APIException``, ``Http404`` or the
  ``AssertionError`` of ``get_object()``, with the traceback for anything else (most likely a
  bug of the check).

The list is a courtesy, never the authority: a ``tools/call`` of a tool hidden from the
caller runs the view as before, which refuses it (an ``isError`` result with 401 or 403).

Evaluating every tool on every ``tools/list`` would cost more than the listing itself, so the
tools of a tool set are grouped once (:class:`VisibilityPlan`): a tool whose view allows anyone
(``AllowAny`` alone, with the stock ``get_permissions``) is listed for every caller; tools whose
views keep DRF's own ``get_permissions``/``get_authenticators``/``check_permissions`` and
whose permissions read nothing but the user and the HTTP method (``AllowAny``,
``IsAuthenticated``, ``IsAdminUser``, ``IsAuthenticatedOrReadOnly`` and their ``&``/``|``/``~``
compositions) share one evaluation per set of authentication and permission classes and HTTP
method; every other tool is asked on its own. One caller's authentication is run once per set
of authentication classes. Callers with the same outcome get the very same ``frozenset`` object,
which the dispatcher keys its encoded pages on.

**Only what an answer shows is checked** (:func:`caller_visibility`, whose
:class:`CallerVisibility` runs a tool's check when its name is first asked): a page of
``tools/list`` asks its own tools (:func:`visible_window`: cursors are offsets into the tool
set's whole listing, and a page may hold fewer tools than ``PAGE_SIZE``), a search its
candidates, a proxy call its tool, the search-mode listing its pinned tools and each level of
risk until one of its tools passes (:func:`offered_levels`); the whole list, the explorer and
the resources ask every check (:func:`visible_tool_names`).

**A caller's outcome is cached**, one mark per check (passed, denied, not asked yet), in the cache
``MCP_BRIDGE["CACHE_ALIAS"]`` names, for ``FILTER_TOOLS_LIST_TIMEOUT`` seconds (``0``: never).
Its key is a digest of what the request carries that identifies the caller, so that a cached
outcome costs no authentication and no query:

* the MCP request's headers and cookies (``Authorization``, a session cookie, a tenant header),
  but those that change with each message and identify nobody (:data:`_VOLATILE_HEADERS`), the
  client's address, ``REMOTE_USER``, and DRF's forced authentication (``mcp_stdio --user``);
* the group's checks (the tools each decides, the views' authentication and permission
  classes);
* the generation of :data:`mcp_bridge.caching.TOOL_LISTS_TAG`, which the bridge renews when
  what permissions read of a caller changes, and again once its transaction commits: a user saved (not a
  login's ``last_login``) or deleted, a user's groups or permissions, a group's permissions, a
  group or permission deleted, a DRF token or an OAuth access token saved (its scopes) or
  deleted. ``invalidate_tags(TOOL_LISTS_TAG)`` renews it too, for what the bridge cannot
  see.

So a user added to a group, a permission granted or withdrawn, another token or other scopes
are seen on the next request; what the bridge cannot see (a row of the application's own that a
permission class reads, a project membership, a change made with ``QuerySet.update()``, which
sends no signal) is seen within ``FILTER_TOOLS_LIST_TIMEOUT`` seconds, or at once after
``invalidate_tags(TOOL_LISTS_TAG)`` (``@invalidates(TOOL_LISTS_TAG)`` on the view that changes
it). A stale outcome never lets a call run: the list is a courtesy, and
every ``tools/call`` (a proxy meta-tool's too) runs the view, with its authentication and
permissions, as REST does.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Container, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import PermissionDenied
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver
from django.http import Http404, HttpRequest
from rest_framework import exceptions, permissions
from rest_framework.request import ForcedAuthentication, Request
from rest_framework.views import APIView

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.build.tools import Tool
from mcp_bridge.caching import (
    TOOL_LISTS_TAG,
    invalidate_tags,
    invalidate_tags_on_commit,
    tool_lists_generation,
)
from mcp_bridge.discovery.metatools import MetaTool, levels_of, meta_tools, risk_of
from mcp_bridge.toolcall import identity
from mcp_bridge.toolcall.plan import request_plan, view_request
from mcp_bridge.toolset.registry import ToolSet, active_urlconf, get_url_index

logger = logging.getLogger("mcp_bridge.visibility")

#: Permission classes that read only ``request.user`` and ``request.method`` (DRF's own).
_CALLER_ONLY_PERMISSIONS = frozenset(
    {
        permissions.AllowAny,
        permissions.IsAuthenticated,
        permissions.IsAdminUser,
        permissions.IsAuthenticatedOrReadOnly,
    }
)
#: The exceptions with which a view denies a caller before its handler runs: they hide a tool.
_DENIALS = (
    exceptions.NotAuthenticated,
    exceptions.AuthenticationFailed,
    exceptions.PermissionDenied,
    PermissionDenied,
)
#: What a check asked without a body or an object raises when it cannot tell (a ParseError of a
#: missing parent id, a NotFound, the AssertionError of ``get_object()`` called without the URL's
#: keyword argument): the tool is listed, logged in one line.
_UNDECIDED = (exceptions.APIException, Http404, AssertionError)
#: Request headers (``META`` names) that change with each message and identify nobody: left
#: out of the key of a caller's cached outcome.
_VOLATILE_HEADERS = frozenset(
    {
        "CONTENT_LENGTH",
        "CONTENT_TYPE",
        "HTTP_CONTENT_LENGTH",
        "HTTP_CONTENT_TYPE",
        "HTTP_ACCEPT",
        "HTTP_ACCEPT_ENCODING",
        "HTTP_CONNECTION",
        "HTTP_MCP_SESSION_ID",
        "HTTP_MCP_PROTOCOL_VERSION",
        # 2026-07-28's routing headers name the message (its method, its tool or resource):
        # in the key, each method and each tool called would keep an outcome of its own.
        "HTTP_MCP_METHOD",
        "HTTP_MCP_NAME",
        "HTTP_LAST_EVENT_ID",
        "HTTP_TRACEPARENT",
        "HTTP_TRACESTATE",
        "HTTP_BAGGAGE",
        "HTTP_X_REQUEST_ID",
        "HTTP_X_AMZN_TRACE_ID",
        "HTTP_USER_AGENT",
    }
)
#: (tool name, exception class) already logged: a broken permission is reported once.
_logged: set[Any] = set()


def filters_group(group: str) -> bool:
    """Whether ``MCP_BRIDGE["FILTER_TOOLS_LIST"]`` filters the tool list of ``group``."""
    setting = bridge_settings.FILTER_TOOLS_LIST
    if isinstance(setting, dict):
        return bool(setting.get(group, True))
    return bool(setting)


def visible_tool_names(toolset: ToolSet, http_request: HttpRequest) -> frozenset[str] | None:
    """The names of the tools of ``toolset`` whose view-level checks let the caller of
    ``http_request`` (the MCP request) through (see the module docstring): every check is
    decided, for an answer that shows the whole list (the explorer, the resources, browsing).
    An answer that shows a few tools asks :func:`caller_visibility` instead.

    Returns:
        ``None`` when nothing is left out: filtering is off for the group
        (``FILTER_TOOLS_LIST``), or every tool passes. Otherwise a ``frozenset`` of names,
        the same object for every caller with the same outcome.
    """
    with caller_visibility(toolset, http_request) as visibility:
        return None if visibility is None else visibility.everything()


@contextmanager
def caller_visibility(
    toolset: ToolSet, http_request: HttpRequest
) -> Iterator[CallerVisibility | None]:
    """What the caller of ``http_request`` may see of ``toolset``, decided tool by tool as the
    answer asks (``name in visibility``): a caller's first page of ``tools/list`` runs the
    checks of that page's tools, a search those of its candidates, a proxy call that of its
    tool. What was decided is cached for the caller when the block ends (with the checks not
    yet asked marked unknown), so the next answer asks only what is still unknown.

    ``None`` when nothing is left out for any caller: filtering is off for the group
    (``FILTER_TOOLS_LIST``), or every tool is listed for everyone.
    """
    if not filters_group(toolset.group):
        yield None
        return
    plan = plan_of(toolset, http_request)
    if not plan.checks:
        yield None
        return
    evaluation = _Evaluation(http_request)
    timeout = bridge_settings.FILTER_TOOLS_LIST_TIMEOUT
    key = _outcome_key(plan, evaluation) if timeout else None
    marks = UNKNOWN * len(plan.checks)
    if key is not None:
        stored = _cached(key)
        if isinstance(stored, str) and len(stored) == len(plan.checks):
            marks = stored
    visibility = CallerVisibility(plan, evaluation, marks)
    try:
        yield visibility
    finally:
        if key is not None and visibility.decided_now:
            _store(key, visibility.marks(), timeout)


#: A check's mark in a caller's cached outcome: passed, denied, not asked yet.
PASSED, DENIED, UNKNOWN = "1", "0", "?"


class CallerVisibility:
    """One caller's outcome of a :class:`VisibilityPlan`, decided check by check.

    ``name in visibility`` answers whether the caller may see the tool ``name``, running its
    check the first time it is asked; :meth:`everything` decides every check left.
    """

    def __init__(self, plan: VisibilityPlan, evaluation: _Evaluation, marks: str) -> None:
        self.plan = plan
        self.evaluation = evaluation
        self._marks = list(marks)
        self._unknown = self._marks.count(UNKNOWN)
        #: Whether this request decided a check (then the cached outcome is renewed).
        self.decided_now = False

    @property
    def complete(self) -> bool:
        """Whether every check is decided (then :meth:`everything` costs a look-up)."""
        return not self._unknown

    def settled(self) -> Visible:
        """What to ask membership of: the names of :meth:`everything` once every check is
        decided (a set's look-up, cheaper than a check's mark), else this visibility."""
        return self.everything() if not self._unknown else self

    def __contains__(self, name: object) -> bool:
        position = self.plan.check_of.get(name)  # type: ignore[call-overload]
        if position is None:  # listed for every caller, or no tool of the set
            return name in self.plan.always
        return self._decide(position) == PASSED

    def _decide(self, position: int) -> str:
        mark = self._marks[position]
        if mark == UNKNOWN:
            passed = self.evaluation.passes(self.plan.checks[position])
            mark = self._marks[position] = PASSED if passed else DENIED
            self._unknown -= 1
            self.decided_now = True
        return mark

    def marks(self) -> str:
        """The outcome as it is cached: a :data:`PASSED`, :data:`DENIED` or :data:`UNKNOWN`
        mark per check."""
        return "".join(self._marks)

    def everything(self) -> frozenset[str] | None:
        """The names the caller may see, every check decided (``None``: every tool); the
        same object for every caller with the same outcome."""
        if self._unknown:
            for position in range(len(self._marks)):
                self._decide(position)
        return self.plan.visible_of_marks(self.marks())


def _outcome_key(plan: VisibilityPlan, evaluation: _Evaluation) -> str | None:
    """The cache key of the caller's outcome (see the module docstring), or ``None`` when it
    cannot be made (the cache fails: evaluated, uncached). Made from what the request carries,
    without authenticating it: no query is made for a cached outcome."""
    http_request = evaluation.http_request
    try:
        generation = tool_lists_generation()
    except Exception:  # the cache is down: evaluated without it
        if _first(("cache", "generation")):
            logger.warning("The cached tool lists cannot be read; evaluating.", exc_info=True)
        return None
    meta = http_request.META
    carried = sorted(
        (name, str(value))
        for name, value in meta.items()
        if (name.startswith("HTTP_") and name not in _VOLATILE_HEADERS)
        or name in ("REMOTE_ADDR", "REMOTE_USER")
    )
    attributes = http_request.__dict__
    forced = [
        _described(attributes.get("_force_auth_user")),
        _described(attributes.get("_force_auth_token")),
    ]
    material = json.dumps([plan.fingerprint, generation, carried, forced], default=str)
    return "mcp_bridge:visible:" + hashlib.sha256(material.encode()).hexdigest()


def _described(value: Any) -> Any:
    if value is None:
        return None
    return [type(value).__qualname__, getattr(value, "pk", None), str(value)]


#: The models whose changes can change what a caller may see, by ``app_label.model_name``:
#: the user model, groups, permissions, DRF tokens, OAuth access tokens. A change of one of
#: them (or of a many-to-many relation of one: a user's groups, a group's permissions) renews
#: the generation of :data:`~mcp_bridge.caching.TOOL_LISTS_TAG` once the transaction commits.
_IDENTITY_MODELS = frozenset(
    {"auth.group", "auth.permission", "authtoken.token", "oauth2_provider.accesstoken"}
)


def _identifies(model: Any) -> bool:
    meta = getattr(model, "_meta", None)
    if meta is None:
        return False
    return meta.label_lower in _IDENTITY_MODELS or meta.label_lower == _user_model_label()


def _user_model_label() -> str:
    return str(settings.AUTH_USER_MODEL).lower()


def _renew() -> None:
    """Renew the generation now and once the transaction commits: a request that read the
    rows before the commit cannot keep its outcome under the new generation."""
    invalidate_tags(TOOL_LISTS_TAG)
    invalidate_tags_on_commit(TOOL_LISTS_TAG)


@receiver(post_save, dispatch_uid="mcp_bridge.visibility.saved")
def _on_saved(sender: Any, update_fields: Any = None, **kwargs: Any) -> None:
    # A login only writes last_login: nothing a permission reads.
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return
    if _identifies(sender):
        _renew()


@receiver(post_delete, dispatch_uid="mcp_bridge.visibility.deleted")
def _on_deleted(sender: Any, **kwargs: Any) -> None:
    if _identifies(sender):
        _renew()


@receiver(m2m_changed, dispatch_uid="mcp_bridge.visibility.related")
def _on_related(sender: Any, instance: Any, action: str, **kwargs: Any) -> None:
    if action.startswith("post_") and (
        _identifies(type(instance)) or _identifies(kwargs.get("model"))
    ):
        _renew()


def _cached(key: str) -> Any:
    try:
        return caches[bridge_settings.CACHE_ALIAS].get(key)
    except Exception:  # the cache is down: evaluated without it
        if _first(("cache", "get")):
            logger.warning("The cached tool lists cannot be read; evaluating.", exc_info=True)
        return None


def _store(key: str, value: str, timeout: float) -> None:
    try:
        caches[bridge_settings.CACHE_ALIAS].set(key, value, timeout)
    except Exception:
        if _first(("cache", "set")):
            logger.warning("The tool list of a caller cannot be cached.", exc_info=True)


def _first(key: Any) -> bool:
    """Whether ``key`` is logged for the first time in this process."""
    if key in _logged:
        return False
    _logged.add(key)
    return True


def varies_by_caller(toolset: ToolSet, http_request: HttpRequest) -> bool:
    """Whether the tool list of ``toolset`` can differ from one caller to another."""
    return filters_group(toolset.group) and bool(plan_of(toolset, http_request).checks)


#: What an answer is given for the tools a caller may see: every name (``None``: all), or
#: the caller's :class:`CallerVisibility`, which decides each name as it is asked.
Visible = frozenset[str] | Container[str] | None


def offered_levels(toolset: ToolSet, visible: Visible) -> frozenset[int]:
    """The levels of risk of the tools a caller who may see ``visible`` (all for ``None``)
    may use: the call proxies it is offered (:func:`~mcp_bridge.discovery.metatools.meta_tools`);
    made once per tool set and outcome.

    A caller's :class:`CallerVisibility` is asked level by level, and a level is offered as soon
    as one of its tools passes, the tools whose checks are cheapest first: a caller who may use
    a tool of each level costs a check or so per level (proving that no tool of a level is
    visible asks them all)."""
    if isinstance(visible, CallerVisibility) and visible.complete:
        visible = visible.everything()
    if isinstance(visible, CallerVisibility):
        # Kept by the outcome's marks once worked out: the same marks ask the same checks.
        found = toolset.search_entries.get(("offered levels", visible.marks()))
        if found is None:
            found = frozenset(
                level
                for level, tools in _tools_by_level(toolset, visible.plan).items()
                if any(tool.name in visible for tool in tools)
            )
            toolset.search_entries["offered levels", visible.marks()] = found
        return found
    key = ("offered levels", visible)
    levels = toolset.search_entries.get(key)
    if levels is None:
        tools = (
            toolset.tools
            if visible is None
            else [tool for tool in toolset.tools if tool.name in visible]
        )
        levels = toolset.search_entries[key] = levels_of(tools)
    return levels


def _tools_by_level(toolset: ToolSet, plan: VisibilityPlan) -> dict[int, list[Tool]]:
    """The tools of each level of risk, those listed for everyone first, then those whose
    check reads only the caller, then the others; made once per tool set."""
    key = ("tools by level", plan.fingerprint)
    found = toolset.search_entries.get(key)
    if found is None:

        def cost(tool: Tool) -> int:
            position = plan.check_of.get(tool.name)
            if position is None:
                return 0
            return 1 if plan.checks[position].caller_only is not None else 2

        found = {}
        for tool in sorted(toolset.tools, key=cost):
            found.setdefault(risk_of(tool), []).append(tool)
        toolset.search_entries[key] = found
    return found


def listed_tools(toolset: ToolSet, visible: Visible) -> list[Tool | MetaTool]:
    """What ``tools/list`` holds for a caller who may see ``visible`` (all for ``None``): the
    tool set's listing (every tool, or in search mode the pinned tools and the discovery
    meta-tools, which every caller gets: they only reach what the caller may see), in list
    order; made once per outcome.

    In search mode a caller is offered only the call proxies of the levels of risk of the
    tools it may use (an anonymous caller who may run no write tool gets no
    ``call_write_tool``), and the meta-tools' texts name no other proxy. A caller's
    :class:`CallerVisibility` is asked only for the pinned tools and the levels in search mode
    (:func:`offered_levels`), and for every tool in direct mode.
    """
    listing = toolset.listed_tools()
    if visible is None:
        return listing
    plan: VisibilityPlan = toolset.visibility
    if isinstance(visible, CallerVisibility) and (visible.complete or not toolset.discovery.search):
        return listed_tools(toolset, visible.everything())
    if isinstance(visible, CallerVisibility):
        pinned = frozenset(
            tool.name for tool in listing if not isinstance(tool, MetaTool) and tool.name in visible
        )
        key: Any = (pinned, offered_levels(toolset, visible))
    else:
        key = visible
    tools = plan.lists.get(key)
    if tools is None:
        listed: list[Tool | MetaTool] = [
            tool for tool in listing if not isinstance(tool, MetaTool) and tool.name in visible
        ]
        if toolset.discovery.search:
            offered = offered_levels(toolset, visible)
            if offered == offered_levels(toolset, None):
                listed += [tool for tool in listing if isinstance(tool, MetaTool)]
            else:
                listed += meta_tools(toolset.tools, offered, toolset.language)
        tools = plan.lists[key] = listed
    return tools


def visible_window(
    toolset: ToolSet, tools: list[Any], offset: int, size: int, visible: Visible
) -> tuple[list[Any], int]:
    """A page of a caller's direct ``tools/list`` that checks only the tools it can show: of
    the ``size`` entries of ``tools`` (the tool set's listing) from ``offset``, those the
    caller may see (further on until one is found, while any is left), and the offset of the
    next page.

    Cursors are offsets into the tool set's whole listing, the same for every caller, so a
    caller's page may hold fewer tools than ``PAGE_SIZE``, as MCP's pagination allows.
    An entry that is no :class:`~mcp_bridge.build.tools.Tool` (the page's confirming tool) is
    kept: whoever lists the entries chose them for this caller."""
    key: Any = None
    if isinstance(visible, CallerVisibility):
        # Kept by the outcome's marks once cut: the same marks ask the same checks.
        key = ("window", offset, size, len(tools), visible.marks())
        found = toolset.search_entries.get(key)
        if found is not None:
            return found
    page: list[Any] = []
    end = offset
    while end < len(tools) and (end - offset < size or not page):
        tool = tools[end]
        end += 1
        if visible is None or not isinstance(tool, Tool) or tool.name in visible:
            page.append(tool)
    if isinstance(visible, CallerVisibility):
        toolset.search_entries[(*key[:-1], visible.marks())] = (page, end)
    return page, end


def visible_tools(toolset: ToolSet, visible: Visible) -> list[Tool]:
    """Every tool of ``toolset`` a caller who may see ``visible`` (all for ``None``) may use,
    in the tool set's order, whatever the discovery mode: what search mode's meta-tools
    reach, and what the explorer browses."""
    if visible is None:
        return list(toolset.tools)
    return [tool for tool in toolset.tools if tool.name in visible]


@dataclass
class Check:
    """One evaluation of view-level checks, standing for the tools named in ``names``.

    Attributes:
        tool: the tool whose view and request are asked.
        callback: the URL pattern's callback of its view (``cls``, ``initkwargs``, ``actions``).
        names: the tools that pass or fail with it.
        shared_authentication: the view authenticates with its class's
            ``authentication_classes`` (so one caller's outcome can be reused).
        caller_only: the view's permission classes when they read only ``request.user`` and
            ``request.method`` (asked with the caller's user and the operation's method, without
            the view); ``None``: the view is asked.
    """

    tool: Tool
    callback: Any
    names: frozenset[str]
    shared_authentication: bool
    caller_only: tuple[Any, ...] | None = None


@dataclass
class VisibilityPlan:
    """The tools of one tool set, grouped by the evaluation that decides them.

    Attributes:
        always: tools listed for every caller.
        checks: the evaluations; a caller's outcome is one boolean per check.
        fingerprint: a digest of the checks (the tools each decides, its view's authentication
            and permission classes), in the key of a caller's cached outcome.
        outcomes: the visible names of each outcome met so far (``None``: every tool).
        lists: the listed tools of each visible set met so far.
        marks: the visible names of each complete outcome met so far (:meth:`visible_of_marks`).
        check_of: the position in ``checks`` of the check that decides each checked tool.
    """

    always: frozenset[str]
    checks: list[Check]
    fingerprint: str = ""
    #: The position in ``checks`` of the check that decides each checked tool.
    check_of: dict[str, int] = field(default_factory=dict)
    outcomes: dict[tuple[bool, ...], frozenset[str] | None] = field(default_factory=dict)
    lists: dict[frozenset[str], list[Tool | MetaTool]] = field(default_factory=dict)
    marks: dict[str, tuple[frozenset[str] | None]] = field(default_factory=dict)

    def visible_of_marks(self, marks: str) -> frozenset[str] | None:
        """:meth:`visible` of a complete outcome as it is cached: ``"1"`` or ``"0"`` per check."""
        known = self.marks.get(marks)
        if known is None:
            known = self.marks[marks] = (self.visible(tuple(mark == "1" for mark in marks)),)
        return known[0]

    def visible(self, outcome: tuple[bool, ...]) -> frozenset[str] | None:
        if outcome in self.outcomes:
            return self.outcomes[outcome]
        if all(outcome):
            names: frozenset[str] | None = None
        else:
            names = self.always.union(
                *(check.names for check, passed in zip(self.checks, outcome) if passed)
            )
        self.outcomes[outcome] = names
        return names


def plan_of(toolset: ToolSet, http_request: HttpRequest) -> VisibilityPlan:
    """The :class:`VisibilityPlan` of ``toolset``, made on first use."""
    plan = toolset.visibility
    if plan is None:
        plan = toolset.visibility = _make_plan(toolset, http_request)
    return plan


def _make_plan(toolset: ToolSet, http_request: HttpRequest) -> VisibilityPlan:
    callbacks = _callbacks(toolset.group, http_request)
    always: set[str] = set()
    groups: dict[Any, list[Tool]] = {}
    callback_of: dict[str, Any] = {}
    class_keys: dict[Any, Any] = {}  # _class_key by view class
    for tool in toolset.tools:
        source = tool.method.source
        callback = callbacks.get((source.view_class, source.method, source.handler_name))
        if callback is None:  # not in the URLconf's index: asked on its own, through its class
            view_class: Any = source.view_class
            callback = (
                view_class.as_view({source.method.lower(): source.handler_name})
                if source.is_viewset
                else view_class.as_view()
            )
        callback_of[tool.name] = callback
        if source.view_class not in class_keys:
            class_keys[source.view_class] = _class_key(source.view_class)
        key = _shared_key(class_keys[source.view_class], source.method)
        if key == "always":
            always.add(tool.name)
        else:
            groups.setdefault(key if key is not None else ("tool", tool.name), []).append(tool)
    checks = [
        Check(
            tool=tools[0],
            callback=callback_of[tools[0].name],
            names=frozenset(tool.name for tool in tools),
            shared_authentication=_stock(tools[0].method.source.view_class, "get_authenticators"),
            caller_only=key[1] if key[0] != "tool" else None,
        )
        for key, tools in groups.items()
    ]
    described = []
    for check in checks:
        checked: Any = check.tool.method.source.view_class
        described.append(
            [
                sorted(check.names),
                _names(checked, "authentication_classes"),
                _names(checked, "permission_classes"),
            ]
        )
    digest = hashlib.sha256(
        json.dumps([toolset.group, toolset.version, described], default=str).encode()
    ).hexdigest()
    return VisibilityPlan(
        always=frozenset(always),
        checks=checks,
        fingerprint=digest,
        check_of={name: position for position, check in enumerate(checks) for name in check.names},
    )


def _names(view_class: Any, attribute: str) -> list[str]:
    """The dotted names of the classes ``view_class`` declares in ``attribute``, or, when an
    instance computes them, the attribute's own dotted name (stable across processes)."""
    classes = _declared(view_class, attribute)
    if classes is None:
        return [f"{view_class.__module__}.{view_class.__qualname__}.{attribute}"]
    return [f"{getattr(c, '__module__', '')}.{getattr(c, '__qualname__', c)!s}" for c in classes]


def _callbacks(group: str, http_request: HttpRequest) -> dict[tuple[type, str, str], Any]:
    """The URL patterns' callbacks of the group's operations, by (view class, method, handler)."""
    found: dict[tuple[type, str, str], Any] = {}
    index = get_url_index(active_urlconf(http_request))
    for _, method, callback in index.endpoints.get(group, ()):
        actions = getattr(callback, "actions", None)
        handler = actions.get(method.lower()) if actions else method.lower()
        found.setdefault((callback.cls, method.upper(), handler), callback)
    return found


def _stock(view_class: type, name: str) -> bool:
    """Whether ``view_class`` uses DRF's own ``APIView.<name>``."""
    return getattr(view_class, name, None) is getattr(APIView, name)


def _shared_key(class_key: Any, method: str) -> Any:
    """``"always"``, the key of the evaluation the operation shares, or ``None`` (its own),
    from its view class's :func:`_class_key`."""
    if class_key is None or class_key == "always":
        return class_key
    return (*class_key, method)


def _class_key(view_class: Any) -> Any:
    """What of :func:`_shared_key` the view class decides: ``"always"``, the authentication
    and permission classes its operations' evaluations share, or ``None``."""
    if not all(
        _stock(view_class, name)
        for name in ("get_permissions", "check_permissions", "initial", "perform_authentication")
    ):
        return None
    classes = _declared(view_class, "permission_classes")
    if classes is None or not all(_reads_caller_only(permission) for permission in classes):
        return None
    if all(permission is permissions.AllowAny for permission in classes):
        return "always"
    authentication = _declared(view_class, "authentication_classes")
    if authentication is None or not _stock(view_class, "get_authenticators"):
        return None
    return (authentication, classes)


def _declared(view_class: Any, name: str) -> tuple[Any, ...] | None:
    """The view class's ``authentication_classes`` or ``permission_classes`` as the class
    declares them; ``None`` when only an instance can tell (a ``property``, as Nautobot's
    ``TokenViewSet`` computes its authentication classes): its check is asked of a view."""
    value = getattr(view_class, name, None)
    return tuple(value) if isinstance(value, (list, tuple)) else None


def _reads_caller_only(permission: Any) -> bool:
    if isinstance(permission, permissions.OperandHolder):
        return _reads_caller_only(permission.op1_class) and _reads_caller_only(permission.op2_class)
    if isinstance(permission, permissions.SingleOperandHolder):
        return _reads_caller_only(permission.op1_class)
    return permission in _CALLER_ONLY_PERMISSIONS


class _Evaluation:
    """One caller's evaluation of a plan's checks; its authentication, once per set of classes."""

    def __init__(self, http_request: HttpRequest) -> None:
        self.http_request = http_request
        self.authenticated: dict[Any, tuple[Any, Any, Any] | Exception] = {}

    def passes(self, check: Check) -> bool:
        tool = check.tool
        try:
            if check.caller_only is not None:
                return self._caller_passes(check, check.caller_only)
            view, request = self._view_and_request(check)
            self._authenticate(check, view, request)
            view.check_permissions(request)
        except _DENIALS:
            return False
        except _UNDECIDED as exc:
            # Asked without a body or an object, the check cannot tell: the view decides.
            if (tool.name, type(exc)) not in _logged:
                _logged.add((tool.name, type(exc)))
                logger.info(
                    "Cannot tell whether tool %r (%s) is visible to a caller without a call: its "
                    "view-level checks raised %s (%s) when asked without a body or an object; the "
                    "tool is listed, and its view decides on each call.",
                    tool.name,
                    tool.method.source.view_label,
                    type(exc).__name__,
                    exc,
                )
            return True
        except Exception as exc:
            if (tool.name, type(exc)) not in _logged:
                _logged.add((tool.name, type(exc)))
                logger.exception(
                    "Could not tell whether tool %r (%s) is visible to the caller: its view-level "
                    "checks raised; the tool is listed, and its view decides on each call.",
                    tool.name,
                    tool.method.source.view_label,
                )
            return True
        finally:
            # DRF writes the user it authenticates through to the MCP request
            # (identity.ViewRequest): asking a view changes nobody's identity, and the next view
            # starts from the caller's own.
            identity.restore(self.http_request)
        return True

    def identity(self, check: Check) -> tuple[Any, Any, Any] | Exception:
        """``(authenticator, user, auth)`` of the caller with the authentication classes of
        ``check``'s view, or the exception with which they refused it; once per set of
        classes. The caller of this method restores the MCP request's identity."""
        key = tuple(_authentication_classes(check, self.http_request))
        known = self.authenticated.get(key)
        if known is None:
            request = self._request(check)
            try:
                request.user  # noqa: B018 -- DRF authenticates on first access
            except Exception as exc:  # noqa: BLE001 -- raised by the check that asks
                known = self.authenticated[key] = exc
            else:
                # Private DRF API, Request._authenticator: see _authenticate.
                authenticator = request._authenticator  # type: ignore[attr-defined]
                known = self.authenticated[key] = (authenticator, request.user, request.auth)
        return known

    def _caller_passes(self, check: Check, classes: tuple[Any, ...]) -> bool:
        """DRF's own caller-only permissions, asked with the caller's user and the method."""
        known = self.identity(check)
        if isinstance(known, Exception):
            raise known
        probe = _Probe(check.tool.method.source.method, known[1], known[2])
        return all(permission().has_permission(probe, None) for permission in classes)

    def _request(self, check: Check) -> Request:
        """A DRF request of the check's operation, with the view class's authenticators."""
        django_request = self._django_request(check)
        view_class: Any = check.tool.method.source.view_class
        return Request(
            django_request,
            parsers=[],
            authenticators=[cls() for cls in view_class.authentication_classes],
        )

    def _django_request(self, check: Check) -> Any:
        plan = request_plan(check.tool)
        version_query = [plan.version_query] if plan.version_query else []
        django_request = view_request(
            plan, self.http_request, plan.template, urlencode(version_query), None, plan.json_accept
        )
        # Private Django API, honoured by CsrfViewMiddleware (the test client sets it): CSRF is
        # not part of whether a caller may use a tool (tests/test_explorer.py: the page's GET
        # lists a staff user's writes).
        django_request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
        return django_request

    def _view_and_request(self, check: Check) -> tuple[Any, Any]:
        source = check.tool.method.source
        django_request = self._django_request(check)
        callback = check.callback
        view = callback.cls(**getattr(callback, "initkwargs", {}))
        if source.is_viewset:
            # What ViewSetMixin.as_view()'s view function sets before dispatch.
            view.action_map = {source.method.lower(): source.handler_name}
        view.args = ()
        view.kwargs = {}
        view.format_kwarg = None
        view.request = django_request
        request = view.initialize_request(django_request)  # sets view.action for a viewset
        view.request = request
        view.headers = view.default_response_headers
        if source.version is not None and source.versioning_class is not None:
            # The version the tool set was built for: what determine_version() finds in a path
            # the router filled in.
            request.version, request.versioning_scheme = source.version, source.versioning_class()
        # What APIView.initial() sets before the checks, which a permission may read (Nautobot's
        # read request.accepted_media_type): the renderer the call's request would get.
        request.accepted_renderer, request.accepted_media_type = view.perform_content_negotiation(
            request
        )
        return view, request

    def _authenticate(self, check: Check, view: Any, request: Any) -> None:
        if not check.shared_authentication:
            view.perform_authentication(request)
            return
        key = tuple(type(authenticator) for authenticator in request.authenticators)
        known = self.authenticated.get(key)
        if known is None:
            try:
                view.perform_authentication(request)
            except Exception as exc:
                self.authenticated[key] = exc
                raise
            self.authenticated[key] = (request._authenticator, request.user, request.auth)
            return
        if isinstance(known, Exception):
            raise known
        # Private DRF API, Request._authenticator (what _authenticate() sets before the user
        # and auth): reused for the next view with the same classes
        # (tests/test_private_apis.py).
        request._authenticator, request.user, request.auth = known


@dataclass(slots=True)
class _Probe:
    """What DRF's caller-only permissions read of a request: ``method``, ``user``, ``auth``."""

    method: str
    user: Any
    auth: Any


def _authentication_classes(check: Check, http_request: HttpRequest) -> list[type]:
    """The classes a DRF request of the check's view authenticates with: DRF's forced
    authentication when the transport or a test client set one, else the view's."""
    attributes = http_request.__dict__
    if (
        attributes.get("_force_auth_user") is not None
        or attributes.get("_force_auth_token") is not None
    ):
        return [ForcedAuthentication]
    view_class: Any = check.tool.method.source.view_class
    return list(view_class.authentication_classes)
