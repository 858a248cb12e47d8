"""Decorators that tag DRF views with API groups and MCP tool metadata.

Both decorators only *record* metadata, in one namespaced attribute
(:data:`METADATA_ATTR`), the way DRF's ``@action`` and drf-spectacular's
``@extend_schema`` do. They never wrap or change the view, so an ordinary REST
request behaves exactly as before.

Where a decorator may go:

* an ``APIView`` or ``ViewSet`` class: applies to every operation of the class;
* a viewset action (``list``, ``retrieve``, an ``@action`` method, ...) or an
  ``APIView`` handler method (``get``, ``post``, ...): applies to that one
  operation;
* an ``@api_view`` function view: put the decorator *above* ``@api_view``, as
  with ``@extend_schema``.
"""

from __future__ import annotations

import inspect
import re
import weakref
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

METADATA_ATTR = "_mcp_bridge"

#: Group names become URL segments (``/mcp/<group>/``) and translation domains.
GROUP_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")

#: MCP ``ToolAnnotations`` hints that the decorator accepts (MCP spec, "Tools" → "Tool").
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

#: A URI template of ``@mcp_tool(resource=...)``: a scheme (RFC 3986 §3.1), then characters
#: of a URI and RFC 6570 level-1 expressions (``{name}``).
RESOURCE_URI_PATTERN = re.compile(r"^[a-z][a-z0-9+.-]*:[^\s{}]*(\{[A-Za-z0-9_]+\}[^\s{}]*)*$")

#: The kinds of generated MCP App pages ``@mcp_tool(app=...)`` may choose (docs/apps.md).
APP_KINDS = ("collection", "record", "form")

#: The HTTP methods a key of an ``@mcp_tool(name={...})`` mapping may name.
_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"})

F = TypeVar("F", bound=Callable[..., Any])

#: Every class and function a decorator tagged, for the checks that find tags which publish
#: nothing (:mod:`mcp_bridge.diagnostics`: a view never routed, a plain Django view...).
DECORATED: weakref.WeakSet[Any] = weakref.WeakSet()


def _check_not_below_api_view(view: Any, decorator: str) -> None:
    """Refuse a function that is not defined in a class body: an ``@api_view`` function
    decorated *below* ``@api_view`` (whose view class never sees the metadata), or a plain
    Django function view (not a DRF view, never published). Raises ``TypeError`` showing the
    right order, as DRF's policy decorators do."""
    if not inspect.isfunction(view) or hasattr(view, "cls"):  # hasattr: an as_view() callable
        return
    scope = view.__qualname__.split(".")[:-1]
    if scope and scope[-1] != "<locals>":
        return  # a method: a viewset action or an APIView handler
    raise TypeError(
        f"@{decorator}(...) on the function {view.__qualname__}() must go above (before) "
        f"@api_view: below it, the view that DRF builds never sees it. The correct order is:\n\n"
        f"    @{decorator}(...)\n"
        f"    @api_view(['GET'])\n"
        f"    def {view.__name__}(request):\n"
        f"        ...\n\n"
        f"Only DRF views are published: a plain Django view needs @api_view (or an APIView)."
    )


def split_name_key(key: str) -> tuple[str, str]:
    """A key of an ``@mcp_tool(name={...})`` mapping as ``(HTTP method or "", path pattern
    or "")``: ``"POST"``, ``"/api/dcim/status/"`` or ``"POST /api/dcim/status/"``. The naming
    rules (:func:`mcp_bridge.build.naming.explicit_name`) read the keys with it too."""
    if key.startswith("/"):
        return "", key
    method, _, path = key.partition(" ")
    return method.upper(), path


def _check_name_mapping(names: Mapping[str, str]) -> None:
    """Refuse a malformed ``@mcp_tool(name={...})`` mapping at decoration time.

    Raises:
        TypeError: a key is neither an HTTP method, a path starting with ``/``, nor
            ``"METHOD /path"``, or a value is not a string.
    """
    for key, value in names.items():
        method, path = split_name_key(key) if isinstance(key, str) else ("?", "")
        ok = (not method or method in _HTTP_METHODS) and (not path or path.startswith("/"))
        if not ok or not isinstance(value, str):
            raise TypeError(
                f"mcp_tool(name={{...}}): {key!r}: {value!r} is not a valid entry. Keys are an HTTP "
                f"method ('POST'), a path ('/api/dcim/status/', wildcards allowed) or both "
                f"('POST /api/dcim/status/'); values are tool names."
            )


def _target(obj: Any) -> Any:
    """The object that carries the metadata.

    ``@api_view`` returns the callable of ``WrappedAPIView.as_view()``, which has
    the view class in ``.cls``; the metadata goes on that class so that schema
    generation, which instantiates ``callback.cls``, finds it.
    """
    cls = getattr(obj, "cls", None)
    if callable(obj) and isinstance(cls, type) and hasattr(obj, "initkwargs"):
        return cls
    return obj


def _updated(obj: Any, **changes: Any) -> Any:
    target = _target(obj)
    # Copy before changing, so that decorating a subclass never edits its parent's metadata.
    own = target.__dict__.get(METADATA_ATTR) if hasattr(target, "__dict__") else None
    inherited = getattr(target, METADATA_ATTR, None)
    metadata = dict(own or inherited or {})
    for key, value in changes.items():
        if key in ("groups", "pinned_in"):
            metadata[key] = tuple(dict.fromkeys((*metadata.get(key, ()), *value)))
        elif key == "annotations":
            metadata["annotations"] = {**metadata.get("annotations", {}), **value}
        else:
            metadata[key] = value
    setattr(target, METADATA_ATTR, metadata)
    DECORATED.add(target)
    return obj


def api_group(*groups: str, pinned: bool = False) -> Callable[[F], F]:
    """Publish a view, viewset, viewset action or function view in API groups.

    Membership in a group is the only thing that decides publication: every
    operation of group ``g`` becomes a tool of the MCP endpoint ``/mcp/g/``.
    Groups given on a class and on one of its actions add up; a subclass
    inherits its parent's groups.

    Args:
        *groups: one or more group names matching :data:`GROUP_NAME_PATTERN`
            (lowercase letters, digits, ``-`` and ``_``; they are URL segments).
        pinned: the operations stay in the ``tools/list`` of these groups when the group
            is in search mode (``MCP_BRIDGE["DISCOVERY"]``, docs/discovery.md), beside the
            discovery meta-tools.

    Raises:
        TypeError: no group given, a name that is not a valid group name, or put on a
            function that is not a method (below ``@api_view``, or a plain Django view).
    """
    if not groups:
        raise TypeError("api_group() needs at least one group name, e.g. @api_group('catalog').")
    for group in groups:
        if not isinstance(group, str) or not GROUP_NAME_PATTERN.match(group):
            raise TypeError(
                f"api_group(): {group!r} is not a valid group name. Use lowercase letters, "
                f"digits, '-' and '_' (pattern {GROUP_NAME_PATTERN.pattern}); it becomes the "
                f"URL segment of the MCP endpoint /mcp/<group>/."
            )

    def decorator(view: F) -> F:
        _check_not_below_api_view(view, "api_group")
        if pinned:
            return _updated(view, groups=groups, pinned_in=groups)
        return _updated(view, groups=groups)

    return decorator


def mcp_tool(
    name: str | Mapping[str, str] | None = None,
    *,
    title: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    output_schema: bool | None = None,
    pinned: bool | None = None,
    confirm: bool | None = None,
    confirm_message: str | None = None,
    task: str | None = None,
    task_required: bool | None = None,
    task_after: float | None = None,
    job_status: Callable[..., Any] | None = None,
    resource: bool | str | None = None,
    app: bool | str | None = None,
) -> Callable[[F], F]:
    """Set the MCP tool name, title and annotations of one operation.

    Publication is decided by :func:`api_group` alone; this decorator never
    publishes anything by itself.

    Args:
        name: the tool name, used verbatim. It must match
            ``^[a-zA-Z0-9_.-]{1,128}$`` (MCP spec, "Tools" → "Tool names");
            an invalid name is refused loudly (system check ``mcp_bridge.E001``
            and HTTP 500 on the group's endpoint), never renamed. Keep it portable
            (``^[a-zA-Z0-9_-]{1,64}$``, no dots): strict clients refuse other names
            (warning ``mcp_bridge.W010``, see :mod:`mcp_bridge.build.naming`).
            A view with several operations (an ``@action(methods=[...])``, a view routed
            at several URLs, an ``APIView`` class) takes a mapping instead, whose keys
            are an HTTP method, a path (``fnmatch`` wildcards allowed) or both:
            ``{"GET": "stock_get", "POST": "stock_add"}``,
            ``{"/api/dcim/status/": "dcim_status", "GET /api/ipam/status/": "ipam_status"}``.
        title: the default title, used when no translation provides one.
        read_only, destructive, idempotent, open_world: the MCP
            ``ToolAnnotations`` hints ``readOnlyHint``, ``destructiveHint``,
            ``idempotentHint`` and ``openWorldHint``. ``None`` means "not
            specified": the hint derived from the HTTP method is used, or none.
        output_schema: ``False`` declares no ``outputSchema`` for the tool (nor
            checks its results), for an operation whose OpenAPI response schema
            does not describe its data; see ``docs/tools.md``, "Output schemas".
        pinned: ``True`` keeps the tool in the ``tools/list`` of every group it is in when
            that group is in search mode (``MCP_BRIDGE["DISCOVERY"]``, docs/discovery.md);
            ``False`` unpins what ``@api_group(..., pinned=True)`` on its class pinned.
        confirm: ``True``: a person confirms every call of the tool before its view runs
            (Multi Round-Trip Requests, docs/confirmation.md); ``False``: never, whatever
            ``MCP_BRIDGE["CONFIRM"]`` says for its group; ``None``: as that setting says.
        confirm_message: the question the person reads instead of the bridge's, a text
            (``gettext_lazy`` for translations) with the placeholders ``%(title)s`` (the
            tool's title), ``%(target)s`` (the object's name, when the bridge could read it),
            ``%(id)s`` (the value that identifies it) and ``%(lookup)s`` (that value's name,
            ``"id"`` or the lookup path parameter's).
        task: how a call of a client that declares the Tasks extension may become a task
            (docs/tasks.md): ``"run"`` runs the view in the background on the task engine
            (``MCP_BRIDGE["TASK_ENGINE"]``) and answers a task at once; ``"job"`` expects
            the view to start a job itself and answer ``202 Accepted`` with a ``Location``
            (any tool's ``202`` with a ``Location`` becomes a job task without it);
            ``"never"`` keeps every call synchronous, a ``202`` included.
        task_required: ``True``: the tool is served only as a task; a client that does not
            declare the Tasks extension gets error -32021 instead of a synchronous run.
        task_after: for ``task="run"``, the seconds the call waits for its run before it
            answers with the task (default ``0``: at once). A run done sooner answers with its
            result, and a view that asks for input sooner asks in the call itself, so that
            the question comes before the task is created.
        job_status: for a ``"job"``, the rule that reads the job's answer instead of the
            default one: a callable ``(response, data) -> JobState`` (:class:`mcp_bridge.tasks.JobState`).
        resource: whether the ``GET`` operation is also an MCP resource (docs/resources.md).
            ``None``: as the bridge decides (an operation that reads one object by its path
            arguments is a resource template, unless ``MCP_BRIDGE["OMIT_RESOURCES"]`` leaves
            it out); ``False``: never; ``True``: always, so a ``GET`` without path arguments
            (a singleton such as ``/me/``) becomes a resource that ``resources/list`` lists; a
            string: the URI template itself (RFC 6570 ``{name}`` expressions, one per path
            argument), e.g. ``"shop://orders/{number}"``.
        app: the generated MCP App page of the operation (docs/apps.md). ``None``: as the
            operation decides (a list: ``"collection"``; a read of one object: ``"record"``;
            a create or update: ``"form"``); ``False``: none; or one of ``"collection"``,
            ``"record"``, ``"form"``.

    Raises:
        TypeError: used on a class with a single ``name`` (a class has several
            operations; decorate the action or handler method, or give a mapping), a
            malformed mapping, or put on a function that is not a method (below
            ``@api_view``, or a plain Django view).
    """
    hints = {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    }
    changes: dict[str, Any] = {"annotations": {k: v for k, v in hints.items() if v is not None}}
    if isinstance(name, Mapping):
        _check_name_mapping(name)
        name = dict(name)
    if name is not None:
        changes["name"] = name
    if title is not None:
        changes["title"] = title
    if output_schema is not None:
        changes["output_schema"] = output_schema
    if pinned is not None:
        changes["pinned"] = pinned
    if confirm is not None:
        changes["confirm"] = confirm
    if confirm_message is not None:
        changes["confirm_message"] = confirm_message
    if task is not None:
        if task not in ("run", "job", "never"):
            raise TypeError(
                f"mcp_tool(task={task!r}): use 'run' (the view runs in the background), 'job' "
                f"(the view answers 202 Accepted with a Location) or 'never'."
            )
        changes["task"] = task
    if task_required is not None:
        changes["task_required"] = task_required
    if task_after is not None:
        if (
            isinstance(task_after, bool)
            or not isinstance(task_after, (int, float))
            or not (0 <= task_after <= 60)
        ):
            raise TypeError(
                f"mcp_tool(task_after={task_after!r}): give the seconds (0 to 60) a call waits "
                "for its run before it answers with the task."
            )
        changes["task_after"] = task_after
    if resource is not None:
        if not isinstance(resource, (bool, str)) or (
            isinstance(resource, str) and not RESOURCE_URI_PATTERN.match(resource)
        ):
            raise TypeError(
                f"mcp_tool(resource={resource!r}): give True, False or a URI template with a "
                'custom scheme and simple {name} expressions, e.g. "shop://orders/{number}".'
            )
        changes["resource"] = resource
    if app is not None:
        if app is not False and app not in APP_KINDS:
            raise TypeError(
                f"mcp_tool(app={app!r}): give False (no MCP App) or one of the kinds "
                f"{', '.join(repr(kind) for kind in APP_KINDS)}."
            )
        changes["app"] = app
    if job_status is not None:
        if not callable(job_status):
            raise TypeError(
                "mcp_tool(job_status=...) takes a callable (response, data) -> JobState."
            )
        changes["job_status"] = job_status

    def decorator(view: F) -> F:
        _check_not_below_api_view(view, "mcp_tool")
        target = _target(view)
        if isinstance(name, str) and isinstance(target, type) and not hasattr(view, "initkwargs"):
            raise TypeError(
                f"mcp_tool(name={name!r}) cannot go on the class {target.__name__}: a class "
                f"has one tool per operation. Put it on the action or handler method "
                f"(e.g. `def list(self, request, ...)` or `def get(self, request, ...)`), or "
                f"name each operation with a mapping: mcp_tool(name={{'GET': ..., 'POST': ...}})."
            )
        return _updated(view, **changes)

    return decorator


def _recorded(view: Any, handler: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the decorators recorded on the view class and on the handler."""
    on_class = getattr(type(view) if not isinstance(view, type) else view, METADATA_ATTR, {}) or {}
    return on_class, getattr(handler, METADATA_ATTR, {}) or {}


def _merged_groups(on_class: dict[str, Any], on_handler: dict[str, Any]) -> tuple[str, ...]:
    class_groups = on_class.get("groups", ())
    handler_groups = on_handler.get("groups", ())
    if not handler_groups:
        return tuple(class_groups)
    return tuple(dict.fromkeys((*class_groups, *handler_groups)))


def get_groups(view: Any, handler: Any) -> tuple[str, ...]:
    """The ``"groups"`` of :func:`get_metadata`, alone: what the URLconf walk reads of every
    operation of the project."""
    return _merged_groups(*_recorded(view, handler))


def get_metadata(view: Any, handler: Any) -> dict[str, Any]:
    """Merge the class-level and the operation-level metadata of one operation.

    Args:
        view: the view instance (or class).
        handler: the bound handler method or viewset action of the operation.

    Returns:
        ``{"groups": tuple[str, ...], "name": str | None, "title": str | None,
        "annotations": dict[str, bool], "output_schema": bool | None,
        "pinned": bool | None, "pinned_in": tuple[str, ...], "confirm": bool | None,
        "confirm_message": str | None}``, with ``"task"``, ``"task_required"``,
        ``"task_after"``, ``"job_status"``, ``"resource"`` and ``"app"`` when one of them is set; the
        operation's own values win.
    """
    on_class, on_handler = _recorded(view, handler)
    return {
        "groups": _merged_groups(on_class, on_handler),
        # A class carries a name only for an @api_view function view (mcp_tool refuses others).
        "name": on_handler.get("name") or on_class.get("name"),
        "title": on_handler.get("title") or on_class.get("title"),
        "annotations": {**on_class.get("annotations", {}), **on_handler.get("annotations", {})},
        "output_schema": on_handler.get("output_schema", on_class.get("output_schema")),
        "pinned": on_handler.get("pinned", on_class.get("pinned")),
        "pinned_in": tuple(
            dict.fromkeys((*on_class.get("pinned_in", ()), *on_handler.get("pinned_in", ())))
        ),
        "confirm": on_handler.get("confirm", on_class.get("confirm")),
        "confirm_message": on_handler.get("confirm_message", on_class.get("confirm_message")),
        # Only when set (docs/tasks.md): most operations have no task policy.
        **{
            key: on_handler.get(key, on_class.get(key))
            for key in ("task", "task_required", "task_after", "job_status", "resource", "app")
            if key in on_handler or key in on_class
        },
    }
