"""Tool names: the default rule, explicit names, and portability.

MCP allows tool names of ``^[a-zA-Z0-9_.-]{1,128}$`` (spec 2025-11-25, "Tools" → "Tool
names"), but the clients people use are stricter: Claude Desktop and claude.ai check
``^[a-zA-Z0-9_-]{1,64}$`` and withhold *every* tool of a server when one name fails, and
OpenAI-backed clients (ChatGPT, Codex) refuse dots too. A name that satisfies the stricter
pattern is called **portable** here.

Default names (no ``@mcp_tool(name=...)``, no ``extend_schema(operation_id=...)`` and no
project ``AutoSchema.get_operation_id``) are portable by construction:

* a viewset action: ``<router basename>_<action>`` (``products_list``, ``orders_cancel``);
* a function view: the function's name (``shop_stats``);
* an ``APIView``: the class name in snake case without ``View``/``APIView``
  (``OrderExportView`` → ``order_export``);
* when one view serves several HTTP methods at one URL with the same handler, the method
  is appended: for an ``@action(methods=["get", "post"])`` the HTTP method
  (``products_stock_get``, ``products_stock_post``), for an ``APIView``/function view the
  action the method stands for in DRF's router conventions (``page_detail_retrieve``,
  ``page_detail_update``);
* when the same view (same class, same action mapping, same basename) is routed at several
  URLs of the URLconf, each copy is prefixed with the static path segments that tell the
  copies apart (``/api/dcim/status/`` and ``/api/ipam/status/`` → ``dcim_status``,
  ``ipam_status``); copies whose static segments are equal get ``_2``, ``_3``... in
  URLconf order;
* every character outside ``[A-Za-z0-9_]`` becomes ``_`` (runs collapse, the ends are
  trimmed), so basenames like ``/api.v1-things`` give ``api_v1_things``;
* a name longer than 64 characters keeps its first 55 and ends in ``_`` and 8 hex digits
  of its SHA-1, so that it stays unique, readable and the same in every process.

The class is always the one the URL pattern routes to: an ``OpenApiViewExtension``'s
replacement class (drf-spectacular's contrib replaces every dj-rest-auth view by a local
class named ``Fixed``) only describes the view, and would give every view it replaces the
same name.

None of this depends on which other operations share the group: the counts of methods and
copies are read from the view and the whole URLconf, never from the group.

Explicit names are used exactly as given. One outside MCP's own pattern fails the group
(``mcp_bridge.E001``); one inside it but not portable is a warning (``mcp_bridge.W010``),
or an error (``mcp_bridge.E010``) with ``MCP_BRIDGE["PORTABLE_TOOL_NAMES"] = "error"``.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

from mcp_bridge.base.errors import Problem
from mcp_bridge.decorators import split_name_key

#: MCP spec 2025-11-25, "Tools" → "Tool names".
MCP_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_.-]{1,128}$")
#: What Claude Desktop/claude.ai and OpenAI-backed clients accept.
PORTABLE_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_PORTABLE_LENGTH = 64
#: Length kept of a name that is shortened, before ``_`` and the 8-digit hash.
_SHORTENED_KEEP = MAX_PORTABLE_LENGTH - 9

#: The clients named in warnings about non-portable names (with their public reports).
REFUSING_CLIENTS = (
    "Claude Desktop and claude.ai (which then hide every tool of the server), ChatGPT and Codex"
)

#: The viewset action an HTTP method stands for (DRF's router conventions).
_METHOD_ACTIONS = {
    "post": "create",
    "put": "update",
    "patch": "partial_update",
    "delete": "destroy",
}


class NamedOperation(Protocol):
    """What the naming rules read of an operation: facts an
    :class:`~mcp_bridge.build.openapi.OperationSource` carries. A protocol, because the
    OpenAPI step uses these rules (:func:`copy_qualifiers`, in its URL walk): naming cannot
    import its types back."""

    @property
    def path(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def view_class(self) -> type: ...
    @property
    def handler_name(self) -> str: ...
    @property
    def is_viewset(self) -> bool: ...
    @property
    def basename(self) -> str | None: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def operation_id(self) -> str: ...
    @property
    def explicit_operation_id(self) -> bool: ...
    @property
    def is_list(self) -> bool: ...
    @property
    def sibling_methods(self) -> int: ...
    @property
    def copy_qualifier(self) -> str | None: ...
    @property
    def view_label(self) -> str: ...
    @property
    def culprit(self) -> Any: ...


class NamedMethod(Protocol):
    """What :func:`check_names` reads of a method: its tool name and operation (an
    :class:`~mcp_bridge.build.openrpc.Method` has both)."""

    @property
    def name(self) -> str: ...
    @property
    def source(self) -> NamedOperation: ...


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _shortened(name: str) -> str:
    if len(name) <= MAX_PORTABLE_LENGTH:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[:_SHORTENED_KEEP].rstrip('_-')}_{digest}"


def portable_name(text: str) -> str:
    """``text`` made portable: other characters become ``_``, then shortened to 64.

    Used for default names and as the suggestion for a non-portable explicit name
    (``products.search`` → ``products_search``).
    """
    return _shortened(_slug(text) or "tool")


def is_portable(name: str) -> bool:
    return bool(PORTABLE_NAME_PATTERN.match(name))


def _action_of(source: NamedOperation) -> str:
    method = source.method.lower()
    if method == "get":
        return "list" if source.is_list else "retrieve"
    return _METHOD_ACTIONS.get(method, method)


def explicit_name(source: NamedOperation) -> str | None:
    """The name ``@mcp_tool`` gives this operation, if any.

    ``name`` is a string, or a mapping whose keys are an HTTP method (``"POST"``), a
    path pattern (``"/api/dcim/status/"``, ``fnmatch`` wildcards allowed) or both
    (``"POST /api/dcim/status/"``); the most specific matching key wins.
    """
    given = source.metadata.get("name")
    if given is None or isinstance(given, str):
        return given
    best: tuple[int, str] | None = None
    for key, name in given.items():
        method, path = split_name_key(key)
        if method and method != source.method:
            continue
        if path and not fnmatch.fnmatchcase(source.path, path):
            continue
        rank = (2 if method else 0) + (1 if path else 0)
        if best is None or rank > best[0]:
            best = (rank, name)
    return best[1] if best else None


def tool_name(source: NamedOperation) -> str:
    """The tool name of one operation: explicit if given, else the default rule."""
    name = explicit_name(source)
    if name is not None:
        return name
    if source.explicit_operation_id:
        return source.operation_id
    if source.is_viewset:
        stem = _slug(source.basename or "") or _snake(
            re.sub(r"ViewSet$", "", source.view_class.__name__)
        )
        stem = f"{stem}_{source.handler_name}"
        if source.sibling_methods > 1:
            stem = f"{stem}_{source.method.lower()}"
    else:
        stem = _snake(re.sub(r"(API)?View$", "", source.view_class.__name__)) or "view"
        if source.sibling_methods > 1:
            stem = f"{stem}_{_action_of(source)}"
    if source.copy_qualifier:
        stem = f"{source.copy_qualifier}_{stem}"
    return portable_name(stem)


def copy_qualifiers(paths: list[str]) -> list[str]:
    """Tell apart the URLs of one view routed several times (``paths`` in URLconf order).

    Returns one qualifier per path: its static segments without those that every copy
    shares at the start and the end, slugged; ``_2``, ``_3``... where still equal.
    """
    segments = [[s for s in path.strip("/").split("/") if s and "{" not in s] for path in paths]
    while all(len(s) > 1 for s in segments) and len({s[0] for s in segments}) == 1:
        segments = [s[1:] for s in segments]
    while all(len(s) > 1 for s in segments) and len({s[-1] for s in segments}) == 1:
        segments = [s[:-1] for s in segments]
    qualifiers = [_slug("_".join(s)) for s in segments]
    seen: dict[str, int] = defaultdict(int)
    unique = []
    for qualifier in qualifiers:
        seen[qualifier] += 1
        count = seen[qualifier]
        unique.append(
            qualifier if count == 1 else f"{qualifier}_{count}" if qualifier else str(count)
        )
    return unique


def check_names(
    methods: Sequence[NamedMethod], strict: bool
) -> tuple[list[Problem], list[Problem]]:
    """The name problems of one build: ``(errors, warnings)``.

    Errors: a name outside MCP's pattern (E001), a name used twice (E002), and with
    ``strict`` a name that is not portable (E010). Warnings: a name that is not portable
    (W010), once per name.
    """
    errors: list[Problem] = []
    warnings: list[Problem] = []
    by_name: dict[str, list[NamedMethod]] = defaultdict(list)
    for method in methods:
        by_name[method.name].append(method)
    for name, same in sorted(by_name.items()):
        first = same[0].source
        if not MCP_NAME_PATTERN.match(name):
            errors.append(
                Problem(
                    "mcp_bridge.E001",
                    f"Tool name {name!r} of {first.view_label} ({first.method} {first.path}) does not "
                    f"match the MCP tool name pattern {MCP_NAME_PATTERN.pattern} (1-128 letters, "
                    f"digits, '_', '.', '-').",
                    f"Give the operation a valid name, e.g. @mcp_tool(name={portable_name(name)!r}) or "
                    f"@extend_schema(operation_id=...). mcp_bridge never renames a tool silently.",
                    first.culprit,
                )
            )
        elif not is_portable(name):
            problem_id = "mcp_bridge.E010" if strict else "mcp_bridge.W010"
            (errors if strict else warnings).append(
                Problem(
                    problem_id,
                    f"Tool name {name!r} of {first.view_label} is valid MCP but not portable "
                    f"(pattern {PORTABLE_NAME_PATTERN.pattern}: no dots, at most 64 characters): "
                    f"{REFUSING_CLIENTS} refuse it.",
                    f"Rename it, e.g. @mcp_tool(name={portable_name(name)!r}).",
                    first.culprit,
                )
            )
        if len(same) > 1:
            views = " and ".join(
                f"{m.source.view_label} ({m.source.method} {m.source.path})" for m in same
            )
            errors.append(
                Problem(
                    "mcp_bridge.E002",
                    f"Tool name {name!r} is used by {len(same)} operations of one group: {views}.",
                    "Give each operation its own name with @mcp_tool(name=...); one view with several "
                    "methods or URLs takes a mapping, e.g. @mcp_tool(name={'GET': 'stock_get', "
                    "'POST': 'stock_add'}) or {'/api/a/status/': 'a_status'}.",
                    first.culprit,
                )
            )
    return errors, warnings
