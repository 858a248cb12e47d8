"""The call, meta-tools: the answers of a search-mode group's discovery meta-tools.

Dispatch sends a ``tools/call`` here (:func:`answer`) only when its name is a meta-tool of the
tool set; every other call (every call of a group in direct mode, and every real tool's own
name) goes straight to :func:`mcp_bridge.toolcall.executor.call_tool`. The meta-tools
(:mod:`mcp_bridge.discovery.metatools` defines them):

* ``search_tools``: the best matches of a query (:mod:`mcp_bridge.discovery.index`), each
  with what a call needs, under ``SEARCH_RESULT_TOKENS`` (:func:`search_answer`); an empty
  query, an overview of the group under :data:`~mcp_bridge.discovery.modes.OVERVIEW_TOKENS`
  (:func:`overview_answer`);
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

Visibility: every function takes ``visible``, the tool names the caller may see, or
``None`` for all. Search never returns, counts or suggests a tool outside it, describe and
the proxies answer as for an unknown tool.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from django.http import HttpRequest

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.limits import shorten
from mcp_bridge.base.protocol import (
    INVALID_PARAMS,
)
from mcp_bridge.base.tokens import estimate_tokens
from mcp_bridge.build.tools import Tool
from mcp_bridge.discovery.metatools import (
    CALL_DESTRUCTIVE,
    CALL_READ_ONLY,
    CALL_WRITE,
    DEFAULT_LIMIT,
    DESCRIBE_TOOL,
    MAX_LIMIT,
    MAX_QUERY_CHARS,
    OVERVIEW_TOKENS,
    PROXIES,
    SEARCH_TOOL,
    MetaTool,
    risk_of,
)
from mcp_bridge.toolcall import executor
from mcp_bridge.toolcall.results import ToolCallFailed, success_result, tool_error_result
from mcp_bridge.toolcall.visibility import visible_tool_names
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
    (:func:`~mcp_bridge.toolcall.visibility.visible_tool_names`, asked only for a meta-tool:
    a real tool's call is the view's to refuse).

    Raises:
        JsonRpcError: as :func:`~mcp_bridge.toolcall.executor.call_tool`, and for the
            meta-tools' own invalid arguments before 2025-11-25.
    """
    visible = visible_tool_names(toolset, mcp_request)
    try:
        arguments = _checked_arguments(meta, params.get("arguments"), revision)
    except ToolCallFailed as failed:
        return failed.answer()
    if meta.level is not None:
        return proxied_call(
            meta, arguments, toolset, mcp_request, revision, profile, visible, params
        )
    if meta.name == SEARCH_TOOL:
        # The language transport negotiated for the tool texts (endpoint.negotiated_language).
        language = getattr(mcp_request, "LANGUAGE_CODE", None)
        return search_tools(arguments, toolset, revision, profile, visible, language)
    assert meta.name == DESCRIBE_TOOL
    return describe_tool(arguments["name"], toolset, revision, profile, visible)


def _checked_arguments(meta: MetaTool, arguments: Any, revision: str) -> dict[str, Any]:
    """The meta-tool's arguments, checked against its ``inputSchema``.

    Raises:
        ToolCallFailed: what refuses them, as the executor refuses a real tool's: an
            ``isError`` result from 2025-11-25 on (SEP-1303), else a -32602 error; and a
            -32602 error for ``arguments`` that are no object.
    """
    arguments = executor.arguments_object(arguments)
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
    visible: frozenset[str] | None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the real tool ``arguments["name"]`` with ``arguments["arguments"]`` through
    ``proxy``: the executor's very call, its result unchanged. The proxy call's ``_meta``,
    ``inputResponses`` and ``requestState`` (``params``) go with it, so that a tool that asks
    (:mod:`mcp_bridge.confirmation`) asks exactly as when it is called by name.

    Refused with ``isError`` (nothing runs): an unknown or invisible name (naming the
    closest visible names), a tool riskier than the proxy (naming the proxy to use), or
    arguments given as text that is not a JSON object.
    """
    name = arguments["name"]
    tool = toolset.by_name.get(name)
    if tool is None or (visible is not None and name not in visible):
        return unknown_tool(name, toolset, visible)
    assert proxy.level is not None
    level = risk_of(tool)
    if level > proxy.level:
        needed = PROXIES[level]
        return _refusal(
            f"Tool {name!r} is not read-only"
            if proxy.name == CALL_READ_ONLY
            else f"Tool {name!r} is destructive (destructiveHint: true)",
            hint=f"Call it with {needed}, whose annotations say what it does.",
            proxy=needed,
        )
    tool_arguments = arguments.get("arguments")
    if isinstance(tool_arguments, str):
        try:
            tool_arguments = json.loads(tool_arguments) if tool_arguments.strip() else {}
        except ValueError:
            tool_arguments = None
        if not isinstance(tool_arguments, dict):
            return _refusal(
                f'Invalid arguments for tool {proxy.name!r}: "arguments" is text, but not a JSON object.',
                hint='Send the tool\'s arguments as an object, e.g. {"id": 3}.',
            )
    # The same call as by name: validation, signals, caching, locks, permissions, output,
    # confirmation.
    call = {key: value for key, value in (params or {}).items() if key in _FORWARDED}
    call["name"], call["arguments"] = name, tool_arguments
    return executor.call_tool(call, toolset, mcp_request, revision, profile)


#: What a proxy call hands on to the real tool's call: the 2026-07-28 envelope and the answers
#: of Multi Round-Trip Requests.
_FORWARDED = ("_meta", "inputResponses", "requestState")


def unknown_tool(name: Any, toolset: ToolSet, visible: frozenset[str] | None) -> dict[str, Any]:
    """The ``isError`` answer to a name that is no tool the caller can see, naming the
    closest names it can."""
    names = toolset.by_name if visible is None else [n for n in toolset.by_name if n in visible]
    closest = difflib.get_close_matches(str(name), names, n=SUGGESTIONS, cutoff=0.5)
    message = f"Unknown tool: {shorten(repr(name))}."
    if closest:
        message += f" The closest names are: {', '.join(closest)}."
    return _refusal(message + f" Find tools with {SEARCH_TOOL}.", closest=closest)


# --- Describe -----------------------------------------------------------------------------------


def describe_tool(
    name: str, toolset: ToolSet, revision: str, profile: str, visible: frozenset[str] | None
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
    visible: frozenset[str] | None,
    language: str | None = None,
) -> dict[str, Any]:
    """``search_tools``: refuse an over-long query, clamp the limit, then answer."""
    query = arguments["query"]
    if len(query) > MAX_QUERY_CHARS:
        return _refusal(
            f"The query has {len(query)} characters; the limit is {MAX_QUERY_CHARS}.",
            hint="Describe the task in a sentence, or give a few keywords.",
            limit=MAX_QUERY_CHARS,
        )
    limit = arguments.get("limit")
    asked = DEFAULT_LIMIT if limit is None else limit
    clamped = min(max(asked, 1), MAX_LIMIT)
    if not query.strip():
        return _text_result(overview_answer(toolset, visible, language))
    answer = search_answer(query, clamped, toolset, revision, profile, visible, language)
    if clamped != asked:
        answer["limit"] = f"{asked} is out of range: {clamped} used (1 to {MAX_LIMIT})."
    return _text_result(answer)


def search_answer(
    query: str,
    limit: int,
    toolset: ToolSet,
    revision: str,
    profile: str,
    visible: frozenset[str] | None,
    language: str | None = None,
) -> dict[str, Any]:
    """The answer to a non-empty query: at most ``limit`` tools, best first, under
    ``SEARCH_RESULT_TOKENS``.

    Each tool comes whole (name, title, description, annotations, ``inputSchema``) while
    it fits, else compactly (its arguments one level deep, with their types and whether
    each is required; ``describe_tool`` gives the full schema). ``more`` counts the tools
    that matched but are not in the answer.
    """
    ranked, matched = toolset.index(language).search(query, visible, limit)
    # The budget holds the whole answer: the tools, and what is said around them.
    budget = bridge_settings.SEARCH_RESULT_TOKENS - _FRAME_TOKENS
    used = 0
    entries: list[dict[str, Any]] = []
    for name, _ in ranked:
        full, full_tokens, compact, compact_tokens = _entries(toolset, name, revision, profile)
        if used + full_tokens + 1 <= budget:  # + 1: the comma between two tools
            entries.append(full)
            used += full_tokens + 1
        elif used + compact_tokens + 1 <= budget:
            entries.append(compact)
            used += compact_tokens + 1
        else:
            break
    answer: dict[str, Any] = {"tools": entries, "more": matched - len(entries)}
    if not entries:
        answer["hint"] = (
            "No tool matches. Try other words, or an empty query for an overview."
            if not matched
            else "The matching tools do not fit the answer's budget: call describe_tool."
        )
    else:
        answer["hint"] = (
            f"Call a tool by its name, or with {CALL_READ_ONLY}, {CALL_WRITE} or "
            f"{CALL_DESTRUCTIVE}; a tool with 'arguments' instead of 'inputSchema' is "
            f"described in full by {DESCRIBE_TOOL}."
        )
    return answer


def _entries(
    toolset: ToolSet, name: str, revision: str, profile: str
) -> tuple[dict[str, Any], int, dict[str, Any], int]:
    """A tool's full and compact search entries and their estimated tokens, made once per
    tool set, revision and profile."""
    key = (name, revision, profile)
    cached = toolset.search_entries.get(key)
    if cached is None:
        tool = toolset.by_name[name]
        full = {k: v for k, v in tool.as_mcp(revision, profile).items() if k != "outputSchema"}
        compact = compact_entry(tool, full)
        cached = toolset.search_entries[key] = (
            full,
            estimate_tokens(dumps(full)),
            compact,
            estimate_tokens(dumps(compact)),
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


def overview_answer(
    toolset: ToolSet, visible: frozenset[str] | None, language: str | None = None
) -> dict[str, Any]:
    """The answer to an empty query: the group's resources and their tools, under
    :data:`~mcp_bridge.discovery.modes.OVERVIEW_TOKENS`.

    Names and titles while they fit; else names only; else each resource's kinds of
    operation. ``more_resources`` counts the resources left out.
    """
    index = toolset.index(language)  # the search's own: one index per caller's language
    resources = []
    for label, documents in index.resources.items():
        names = [index.names[doc] for doc in documents]
        if visible is not None:
            names = [name for name in names if name in visible]
        if names:
            resources.append((label, names, sorted({index.kinds[doc] for doc in documents})))
    total = sum(len(names) for _, names, _ in resources)
    head = {
        "group": toolset.group,
        "tools": total,
        "hint": f"Search with words to get tools with their schemas: {SEARCH_TOOL}(query=...).",
    }
    by_name = toolset.by_name
    shapes = (
        lambda label, names, kinds: {
            "resource": label,
            "tools": {name: by_name[name].title for name in names},
        },
        lambda label, names, kinds: {"resource": label, "tools": names},
        lambda label, names, kinds: {"resource": label, "kinds": kinds, "tools": len(names)},
    )
    budget = OVERVIEW_TOKENS - estimate_tokens(dumps(head))
    for shape in shapes:
        listed, used = [], 0
        for label, names, kinds in resources:
            item = shape(label, names, kinds)
            cost = estimate_tokens(dumps(item)) + 1
            if used + cost > budget:
                break
            listed.append(item)
            used += cost
        if len(listed) == len(resources) or shape is shapes[-1]:
            answer = {**head, "resources": listed}
            if len(listed) < len(resources):
                answer["more_resources"] = len(resources) - len(listed)
            return answer
    raise AssertionError("unreachable: the last shape always answers")
