"""The call, meta-tools: the answers of a search-mode group's discovery meta-tools.

Dispatch sends a ``tools/call`` here (:func:`answer`) only when its name is a meta-tool of the
tool set; every other call (every call of a group in direct mode, and every real tool's own
name) goes straight to :func:`mcp_bridge.toolcall.executor.call_tool`. The meta-tools
(:mod:`mcp_bridge.discovery.metatools` defines them):

* ``search_tools``: the best matches of a query (:mod:`mcp_bridge.discovery.index`), each
  with what a call needs, under ``SEARCH_RESULT_TOKENS`` (:func:`search_answer`); an empty
  query browses the group (:mod:`mcp_bridge.discovery.browse`), a page at a time under
  :data:`~mcp_bridge.discovery.metatools.OVERVIEW_TOKENS` (:func:`browse_answer`);
* ``describe_tool``: one tool's full definition;
* the call proxies: the found tool's own ``tools/call``, run by the executor exactly as
  when it is called by name (argument validation, ``pre_tool_call`` and the other signals
  carrying the real tool, ``@cached``/``@locked``, the view's authentication and
  permissions, output validation); its result is the proxy's result. A proxy only checks,
  before that, that the tool exists, that the caller may see it, and that its level of
  risk is covered by the proxy's annotations.

Search and describe run no view and send no tool-call signal (no operation of the API
runs). Their answers are JSON text blocks without ``structuredContent``: they declare no
``outputSchema``, and a model reads the text.

Visibility: every function takes ``visible``, the tool names the caller may see (the
caller's :class:`~mcp_bridge.toolcall.visibility.CallerVisibility`, which checks a tool when
its name is asked, so an answer checks only the tools it considers), or ``None`` for all. Search never returns, counts or suggests a tool outside it, describe and
the proxies answer as for an unknown tool.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _

from mcp_bridge.base.conf import STRICT, bridge_settings
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import (
    INVALID_PARAMS,
)
from mcp_bridge.base.tokens import estimate_tokens
from mcp_bridge.build.tools import Tool
from mcp_bridge.discovery.browse import Shape, build_shape
from mcp_bridge.discovery.metatools import (
    CALL_READ_ONLY,
    DEFAULT_LIMIT,
    DESCRIBE_TOOL,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    OVERVIEW_TOKENS,
    PROXIES,
    SEARCH_TOOL,
    MetaTool,
    levels_of,
    proxies_named,
    risk_of,
)
from mcp_bridge.discovery.semantic import configured_embedder, embed_query
from mcp_bridge.schemas.profiles import without_optional_nulls
from mcp_bridge.toolcall import executor
from mcp_bridge.toolcall.results import ToolCallFailed, success_result, tool_error_result
from mcp_bridge.toolcall.visibility import Visible, caller_visibility
from mcp_bridge.toolset.registry import ToolSet

#: The characters of an argument's description in a compact entry.
COMPACT_DESCRIPTION_CHARS = 160
#: The estimated tokens of a search answer around its tools (``more``, ``hint``, ``limit``).
_FRAME_TOKENS = 120
#: Closest tool names an unknown name's answer suggests.
SUGGESTIONS = 3


def answer(
    meta: MetaTool,
    params: dict[str, Any],
    toolset: ToolSet,
    mcp_request: HttpRequest,
    revision: str,
    profile: str,
    call: Callable[..., dict[str, Any]] = executor.call_tool,
) -> dict[str, Any]:
    """Answer a ``tools/call`` of the meta-tool ``meta`` (dispatch found it by the call's name).

    Args:
        meta: the meta-tool called.
        params: the call's ``params`` (``name``, ``arguments``).
        toolset: the group's tool set, in the caller's language.
        mcp_request: the MCP HTTP request.
        revision: its protocol revision.
        profile: the schema profile of the endpoint (``?schema=`` or ``SCHEMA_PROFILE``):
            the schemas search and describe return are written in it, and the executor
            reads the arguments of a proxied tool in it.

    A meta-tool sees only the tools the caller may see
    (:func:`~mcp_bridge.toolcall.visibility.caller_visibility`, asked only for a meta-tool:
    a real tool's call is the view's to refuse).

    Raises:
        JsonRpcError: as :func:`~mcp_bridge.toolcall.executor.call_tool`, and for the
            meta-tools' own invalid arguments before 2025-11-25.
    """
    try:
        arguments = _checked_arguments(meta, params.get("arguments"), revision, profile)
    except ToolCallFailed as failed:
        return failed.answer()
    # The language transport negotiated for the tool texts (endpoint.negotiated_language):
    # the answers' hints and refusals are in it, as the meta-tools' own texts are.
    language = getattr(mcp_request, "LANGUAGE_CODE", None)
    # Only what the answer shows is checked: a search's candidates, a proxy's tool.
    with caller_visibility(toolset, mcp_request) as visibility:
        visible = None if visibility is None else visibility.settled()
        if meta.level is not None:
            return proxied_call(
                meta, arguments, toolset, mcp_request, revision, profile, visible, params, call
            )
        with translation.override(language or settings.LANGUAGE_CODE):
            if meta.name == SEARCH_TOOL:
                return search_tools(arguments, toolset, revision, profile, visible, language)
            assert meta.name == DESCRIBE_TOOL
            return describe_tool(arguments["name"], toolset, revision, profile, visible)


def _checked_arguments(
    meta: MetaTool, arguments: Any, revision: str, profile: str = ""
) -> dict[str, Any]:
    """The meta-tool's arguments, checked against its exact ``inputSchema``.

    Through a ``strict`` endpoint, which lists every property as required and the optional
    ones nullable, ``null`` for an optional argument is read as "left out", as for a real
    tool (:func:`~mcp_bridge.schemas.profiles.without_optional_nulls`).

    Raises:
        ToolCallFailed: what refuses them, as the executor refuses a real tool's: an
            ``isError`` result from 2025-11-25 on (SEP-1303), else a -32602 error; and a
            -32602 error for ``arguments`` that are no object.
    """
    arguments = executor.arguments_object(arguments)
    if profile == STRICT:
        arguments = without_optional_nulls(meta.input_schema, arguments)
    errors = []
    for error in meta.validator.iter_errors(arguments):
        if error.validator == "required" and not error.path:
            for name in error.validator_value:
                if name not in arguments:
                    errors.append({"argument": name, "message": "is required but missing"})
        elif error.validator == "additionalProperties" and not error.path:
            for name in arguments:
                if name not in meta.input_schema["properties"]:
                    errors.append(
                        {"argument": shorten(name), "message": "is not an argument of this tool"}
                    )
        else:
            where = str(error.path[0]) if error.path else ""
            errors.append({"argument": shorten(where), "message": shorten(error.message)})
    if not errors:
        return arguments
    raise executor.invalid_arguments(meta.name, errors, revision)


def _refusal(message: str, **data: Any) -> dict[str, Any]:
    return tool_error_result(INVALID_PARAMS, message, data)


def _text_result(value: Any) -> dict[str, Any]:
    return success_result(dumps(value))


# --- The proxies --------------------------------------------------------------------------------


def proxied_call(
    proxy: MetaTool,
    arguments: dict[str, Any],
    toolset: ToolSet,
    mcp_request: HttpRequest,
    revision: str,
    profile: str,
    visible: Visible,
    params: dict[str, Any] | None = None,
    call: Callable[..., dict[str, Any]] = executor.call_tool,
) -> dict[str, Any]:
    """Run the real tool ``arguments["name"]`` with ``arguments["arguments"]`` through
    ``proxy``: the executor's very call, its result unchanged. The proxy call's ``_meta``,
    ``inputResponses`` and ``requestState`` (``params``) go with it, so that a tool that asks
    (:mod:`mcp_bridge.confirmation`) asks exactly as when it is called by name.

    Refused with ``isError`` (nothing runs): an unknown or invisible name (naming the
    closest visible names), a tool riskier than the proxy (naming the proxy to use), or
    arguments given as text that is not a JSON object.
    """
    with translation.override(
        getattr(mcp_request, "LANGUAGE_CODE", None) or settings.LANGUAGE_CODE
    ):
        refused, tool_arguments = _proxy_refusal(proxy, arguments, toolset, visible)
    if refused is not None:
        return refused
    name = arguments["name"]
    # The same call as by name: validation, signals, caching, locks, permissions, output,
    # confirmation.
    forwarded = {key: value for key, value in (params or {}).items() if key in _FORWARDED}
    forwarded["name"], forwarded["arguments"] = name, tool_arguments
    return call(forwarded, toolset, mcp_request, revision, profile)


def _proxy_refusal(
    proxy: MetaTool, arguments: dict[str, Any], toolset: ToolSet, visible: Visible
) -> tuple[dict[str, Any] | None, Any]:
    """``(refusal, None)`` when ``proxy`` may not run ``arguments``, in the active language;
    else ``(None, the real tool's arguments)`` (an object, from JSON text where need be)."""
    name = arguments["name"]
    tool = toolset.by_name.get(name)
    if tool is None or (visible is not None and name not in visible):
        return unknown_tool(name, toolset, visible), None
    assert proxy.level is not None
    level = risk_of(tool)
    if level > proxy.level:
        needed = PROXIES[level]
        return _refusal(
            _("Tool %(name)s is not read-only") % {"name": repr(name)}
            if proxy.name == CALL_READ_ONLY
            else _("Tool %(name)s is destructive (destructiveHint: true)") % {"name": repr(name)},
            hint=_("Call it with %(proxy)s, whose annotations say what it does.")
            % {"proxy": needed},
            proxy=needed,
        ), None
    tool_arguments = arguments.get("arguments")
    if isinstance(tool_arguments, str):
        try:
            tool_arguments = json.loads(tool_arguments) if tool_arguments.strip() else {}
        except ValueError:
            tool_arguments = None
        if not isinstance(tool_arguments, dict):
            return _refusal(
                _(
                    'Invalid arguments for tool %(proxy)s: "arguments" is text, but not a '
                    "JSON object."
                )
                % {"proxy": repr(proxy.name)},
                hint=_('Send the tool\'s arguments as an object, e.g. {"id": 3}.'),
            ), None
    return None, tool_arguments


#: What a proxy call hands on to the real tool's call: the 2026-07-28 envelope and the answers
#: of Multi Round-Trip Requests.
_FORWARDED = ("_meta", "inputResponses", "requestState")


def unknown_tool(name: Any, toolset: ToolSet, visible: Visible) -> dict[str, Any]:
    """The ``isError`` answer to a name that is no tool the caller can see, naming the
    closest names it can."""
    names = toolset.by_name if visible is None else [n for n in toolset.by_name if n in visible]
    closest = difflib.get_close_matches(str(name), names, n=SUGGESTIONS, cutoff=0.5)
    message = _("Unknown tool: %(name)s.") % {"name": shorten(repr(name))}
    if closest:
        message += " " + _("The closest names are: %(names)s.") % {"names": ", ".join(closest)}
    message += " " + _("Find tools with %(search)s.") % {"search": SEARCH_TOOL}
    return _refusal(message, closest=closest)


# --- Describe -----------------------------------------------------------------------------------


def describe_tool(
    name: str, toolset: ToolSet, revision: str, profile: str, visible: Visible
) -> dict[str, Any]:
    """One tool's full ``Tool`` object, as ``tools/list`` would list it in ``profile``."""
    tool = toolset.by_name.get(name)
    if tool is None or (visible is not None and name not in visible):
        return unknown_tool(name, toolset, visible)
    return _text_result(tool.as_mcp(revision, profile))


# --- Search -------------------------------------------------------------------------------------


def search_tools(
    arguments: dict[str, Any],
    toolset: ToolSet,
    revision: str,
    profile: str,
    visible: Visible,
    language: str | None = None,
) -> dict[str, Any]:
    """``search_tools``: refuse an over-long query, clamp the limit, then search; an empty
    query browses (:func:`browse_answer`)."""
    query = arguments["query"]
    if len(query) > MAX_QUERY_CHARS:
        return _refusal(
            _("The query has %(length)d characters; the limit is %(most)d.")
            % {"length": len(query), "most": MAX_QUERY_CHARS},
            hint=_("Describe the task in a sentence, or give a few keywords."),
            limit=MAX_QUERY_CHARS,
        )
    if not query.strip():
        return browse_answer(
            toolset, visible, language, arguments.get("resource"), arguments.get("page")
        )
    limit = arguments.get("limit")
    asked = DEFAULT_LIMIT if limit is None else limit
    clamped = min(max(asked, 1), MAX_LIMIT)
    answer = search_answer(query, clamped, toolset, revision, profile, visible, language)
    if clamped != asked:
        answer["limit"] = _("%(asked)d is out of range: %(used)d used (1 to %(most)d).") % {
            "asked": asked,
            "used": clamped,
            "most": MAX_LIMIT,
        }
    return _text_result(answer)


def _calling_hint(shown: Iterable[Tool]) -> str:
    """How to call the tools an answer shows: by name, or through the proxies of their levels
    of risk (offered to the caller, who may see these tools)."""
    offered = levels_of(shown)
    if not offered:
        return _("Call a tool by its name.")
    return _("Call a tool by its name, or with %(proxies)s.") % {"proxies": proxies_named(offered)}


def search_answer(
    query: str,
    limit: int,
    toolset: ToolSet,
    revision: str,
    profile: str,
    visible: Visible,
    language: str | None = None,
) -> dict[str, Any]:
    """The answer to a non-empty query: ``limit`` tools whenever that many match, best
    first, under ``SEARCH_RESULT_TOKENS``.

    Each tool comes whole (name, title, description, annotations, ``inputSchema``) while
    it fits; else compactly (its arguments one level deep, with their types and whether
    each is required); else briefly (name, title, one line, its required arguments). The
    brief entries of the tools ranked after a tool are kept room for before it is given
    whole or compactly, so a big tool never cuts off the smaller ones after it; the brief
    entries themselves always go in. ``describe_tool`` gives a shortened tool's full
    schema. ``more`` counts the tools that matched but are not in the answer.
    """
    index = toolset.index(language)
    embed = configured_embedder() if index.semantic is not None else None
    vector = embed_query(query, embed) if embed is not None else None
    ranked, matched, lexical = index.ranked(query, visible, limit, vector)
    # No word of the API's: the tools are the closest found, and the resources go with them.
    unmatched = not lexical
    if not matched:
        # Never an empty answer: the tools of the words closest in spelling, and the group's
        # resources to browse.
        ranked, matched = index.closest(query, visible, limit)
    # The budget holds the whole answer: the tools, and what is said around them.
    budget = bridge_settings.SEARCH_RESULT_TOKENS - _FRAME_TOKENS
    forms = [_entries(toolset, name, revision, profile) for name, _ in ranked]
    # Room kept for the brief entries of the tools after each one (+ 1: the comma).
    after = [0] * (len(forms) + 1)
    for position in range(len(forms) - 1, -1, -1):
        after[position] = after[position + 1] + forms[position][5] + 1
    used = 0
    entries: list[dict[str, Any]] = []
    shortened = False
    for position, (full, full_tokens, compact, compact_tokens, brief, brief_tokens) in enumerate(
        forms
    ):
        room = budget - used - after[position + 1]
        if full_tokens + 1 <= room:
            entries.append(full)
            used += full_tokens + 1
        elif compact_tokens + 1 <= room:
            entries.append(compact)
            used += compact_tokens + 1
            shortened = True
        else:
            entries.append(brief)
            used += brief_tokens + 1
            shortened = True
    answer: dict[str, Any] = {"tools": entries, "more": matched - len(entries)}
    hint = _calling_hint(toolset.by_name[name] for name, _ in ranked) if entries else ""
    if shortened:
        hint += " " + _(
            "A tool given with 'arguments' or 'required' instead of 'inputSchema' is "
            "described in full by %(describe)s."
        ) % {"describe": DESCRIBE_TOOL}
    if unmatched:
        overview = browse(toolset, visible, language)
        for key in ("areas", "resources", "page", "pages"):
            if key in overview:
                answer[key] = overview[key]
        if "areas" in overview:
            shown = (
                _("the tools above are the closest found, and these are the group's areas")
                if entries
                else _("these are the group's areas")
            )
        else:
            shown = (
                _("the tools above are the closest found, and these are the group's resources")
                if entries
                else _("these are the group's resources")
            )
        hint = (
            _(
                "No tool matches these words: %(shown)s. Browse one with "
                "search_tools(query='', resource='<name>'), or search with the API's own words."
            )
            % {"shown": shown}
            + " "
            + hint
        ).strip()
    answer["hint"] = hint
    return answer


def _entries(
    toolset: ToolSet, name: str, revision: str, profile: str
) -> tuple[dict[str, Any], int, dict[str, Any], int, dict[str, Any], int]:
    """A tool's full, compact and brief search entries and their estimated tokens, made
    once per tool set, revision and profile."""
    key = (name, revision, profile)
    cached = toolset.search_entries.get(key)
    if cached is None:
        tool = toolset.by_name[name]
        full = {k: v for k, v in tool.as_mcp(revision, profile).items() if k != "outputSchema"}
        compact = compact_entry(tool, full)
        brief = brief_entry(tool)
        cached = toolset.search_entries[key] = (
            full,
            estimate_tokens(dumps(full)),
            compact,
            estimate_tokens(dumps(compact)),
            brief,
            estimate_tokens(dumps(brief)),
        )
    return cached


def compact_entry(tool: Tool, full: dict[str, Any]) -> dict[str, Any]:
    """A tool described without its schema: its arguments one level deep (type, whether
    required, the start of the description)."""
    schema = tool.input_schema
    required = set(schema.get("required", ()))
    arguments = {}
    for argument, subschema in schema.get("properties", {}).items():
        described: dict[str, Any] = {"type": type_label(subschema)}
        if argument in required:
            described["required"] = True
        if isinstance(subschema, dict):
            if isinstance(subschema.get("enum"), list) and len(subschema["enum"]) <= 10:
                described["enum"] = subschema["enum"]
            if subschema.get("description"):
                described["description"] = shorten(
                    str(subschema["description"]), COMPACT_DESCRIPTION_CHARS
                )
        arguments[argument] = described
    entry = {k: v for k, v in full.items() if k != "inputSchema"}
    entry["arguments"] = arguments
    return entry


def brief_entry(tool: Tool) -> dict[str, Any]:
    """A tool in a few words: its name, title, the first line of its description (at most
    :data:`COMPACT_DESCRIPTION_CHARS` characters), and its required arguments with their
    types; ``describe_tool`` gives the rest."""
    entry: dict[str, Any] = {"name": tool.name, "title": tool.title}
    line = next(
        (line.strip() for line in (tool.description or "").splitlines() if line.strip()), ""
    )
    if line and line != tool.title:
        entry["description"] = shorten(line, COMPACT_DESCRIPTION_CHARS)
    properties = tool.input_schema.get("properties", {})
    entry["required"] = {
        argument: type_label(properties.get(argument))
        for argument in tool.input_schema.get("required", ())
    }
    return entry


def type_label(schema: Any) -> str:
    """A short type name of a schema: ``"string"``, ``"array of integer"``, ``"object"``,
    ``"string or null"``."""
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return "object"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind == "array":
        return f"array of {type_label(schema.get('items'))}"
    if kind:
        return str(kind)
    for keyword in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(keyword), list):
            labels = dict.fromkeys(type_label(branch) for branch in schema[keyword])
            return " or ".join(labels)
    if "enum" in schema:
        return "enum"
    return "any"


# --- Browse -------------------------------------------------------------------------------------


def shape_of(toolset: ToolSet, language: str | None) -> Shape:
    """The group's :class:`~mcp_bridge.discovery.browse.Shape` for a caller of ``language``
    (the search index's resources, in that language), made once per tool set and language."""
    key = ("shape", language)
    shape = toolset.search_entries.get(key)
    if shape is None:
        shape = toolset.search_entries[key] = build_shape(toolset.tools, toolset.index(language))
    return shape


def _pages(items: list[dict[str, Any]], budget: int) -> list[list[dict[str, Any]]]:
    """``items`` cut into pages of at most ``budget`` estimated tokens (an item bigger than
    that is a page of its own)."""
    pages: list[list[dict[str, Any]]] = [[]]
    used = 0
    for item in items:
        cost = estimate_tokens(dumps(item)) + 1
        if pages[-1] and used + cost > budget:
            pages.append([])
            used = 0
        pages[-1].append(item)
        used += cost
    return pages


def browse_answer(
    toolset: ToolSet,
    visible: Visible,
    language: str | None = None,
    resource: str | None = None,
    page: int | None = None,
) -> dict[str, Any]:
    """The result of an empty query: :func:`browse`'s answer as a text block, or its refusal."""
    answer = browse(toolset, visible, language, resource, page)
    return answer if "isError" in answer else _text_result(answer)


def browse(
    toolset: ToolSet,
    visible: Visible,
    language: str | None = None,
    resource: str | None = None,
    page: int | None = None,
) -> dict[str, Any]:
    """The answer to an empty query: a page of the group's overview, of an area, or of one
    resource's tools, each page under :data:`~mcp_bridge.discovery.metatools.OVERVIEW_TOKENS`,
    with only the tools the caller may see.

    * no ``resource``: the group's resources with their operations when they fit one page;
      else, for a group with areas, its areas (``"dcim/"``) with their resources' names; else
      the resources' names when they fit one page; else the areas with their resources'
      counts; a group without areas: the resources' names, paged;
    * an area: its resources with their operations when they fit one page, else their names,
      paged;
    * a resource: its tools, each briefly (:func:`brief_entry`), paged.

    An unknown area or resource, or a page past the last, is refused: the ``isError``
    result naming what exists is returned (the overview's first page is never refused).
    """
    shape = shape_of(toolset, language)

    def seen(names: tuple[str, ...]) -> list[int]:
        return [i for i, name in enumerate(names) if visible is None or name in visible]

    def described(label: str) -> dict[str, Any] | None:
        item = shape.resources[label]
        shown = seen(item.tools)
        if not shown:
            return None
        operations = list(dict.fromkeys(item.operations[i] for i in shown))
        return {"resource": label, "operations": operations}

    head: dict[str, Any] = {"group": toolset.group}
    room = OVERVIEW_TOKENS - _FRAME_TOKENS
    to_resource = _("See a resource's tools with search_tools(query='', resource='<resource>').")

    def fits(items: list[Any]) -> bool:
        return estimate_tokens(dumps(items)) <= room - estimate_tokens(dumps(head))

    def resources_of(labels: Any) -> list[Any]:
        # With their operations when they fit one page, else their names (one call less
        # to reach a resource than pages of operations would cost).
        listed = [entry for label in labels if (entry := described(label))]
        return listed if fits(listed) else [entry["resource"] for entry in listed]

    if resource is None or resource == "":
        key, hint = "resources", to_resource
        items = resources_of(shape.resources)
        if shape.areas and not (items and isinstance(items[0], dict)):
            # The areas with their resources' names; else the names alone when they fit one
            # page; else the areas with a count of their resources.
            areas = []
            for area, labels in shape.areas.items():
                shown = [label for label in labels if seen(shape.resources[label].tools)]
                if shown:
                    areas.append({"area": area, "resources": shown})
            if fits(areas) or not fits(items):
                key, items = "areas", areas
                if not fits(areas):
                    items = [{"area": i["area"], "resources": len(i["resources"])} for i in areas]
                hint = _(
                    "Browse an area with search_tools(query='', resource='<area>/'), or go "
                    "straight to a resource with resource='<resource>'."
                )
    elif resource in shape.areas:
        head["area"] = resource
        key, hint = "resources", to_resource
        items = resources_of(shape.areas[resource])
    elif resource in shape.resources:
        item = shape.resources[resource]
        head["resource"] = resource
        tools = [toolset.by_name[item.tools[i]] for i in seen(item.tools)]
        items = [brief_entry(tool) for tool in tools]
        key = "tools"
        hint = (
            _calling_hint(tools)
            + " "
            + _("Its full definition: %(describe)s(name=...).") % {"describe": DESCRIBE_TOOL}
        )
        if not items:
            return _unknown_resource(resource, shape, visible)
    else:
        return _unknown_resource(resource, shape, visible)
    pages = _pages(items, OVERVIEW_TOKENS - _FRAME_TOKENS - estimate_tokens(dumps(head)))
    number = 1 if page is None else page
    if not 1 <= number <= len(pages):
        return _refusal(
            _("Page %(number)d does not exist: there are %(pages)d.")
            % {"number": number, "pages": len(pages)},
            hint=_("Pages are numbered from 1."),
            pages=len(pages),
        )
    answer: dict[str, Any] = {**head, key: pages[number - 1]}
    if len(pages) > 1:
        answer["page"] = number
        answer["pages"] = len(pages)
        if number < len(pages):
            hint += " " + _("More on page=%(next)d.") % {"next": number + 1}
    answer["hint"] = hint
    return answer


def _unknown_resource(resource: str, shape: Shape, visible: Visible) -> dict[str, Any]:
    known = [
        label
        for label, item in shape.resources.items()
        if visible is None or any(name in visible for name in item.tools)
    ]
    names = [*shape.areas, *known]
    closest = difflib.get_close_matches(str(resource), names, n=SUGGESTIONS, cutoff=0.5)
    message = _("Unknown area or resource: %(resource)s.") % {"resource": shorten(repr(resource))}
    if closest:
        message += " " + _("The closest are: %(names)s.") % {"names": ", ".join(closest)}
    message += " " + _("An empty query without 'resource' lists them.")
    return _refusal(message, closest=closest)
