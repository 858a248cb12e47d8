"""Discovery, the meta-tools: what ``tools/list`` holds for a group in search mode.

In search mode (:mod:`mcp_bridge.discovery.modes`) ``tools/list`` holds the pinned tools
(``@api_group(..., pinned=True)``, ``@mcp_tool(pinned=True)``,
``MCP_BRIDGE["GROUPS"][group]["pin"]`` rules) and the discovery meta-tools of
:func:`meta_tools`: :data:`SEARCH_TOOL` (ranked by :mod:`mcp_bridge.discovery.index`),
:data:`DESCRIBE_TOOL`, and up to three call proxies, one per level of risk (:data:`PROXIES`).
Every real tool stays callable by its own name.

This module defines them, as the build lists them; :mod:`mcp_bridge.toolcall.meta_tools`
answers their calls (dispatch sends it a call to a meta-tool, and every other call to the
executor). Their texts are in the caller's language, from mcp_bridge's own ``django``
catalogue (a project's ``LOCALE_PATHS`` may add languages): they are made once per tool set
copy and language, as the tools' own texts are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from jsonschema import Draft202012Validator

from mcp_bridge.base.conf import GEMINI, STRICT
from mcp_bridge.base.protocol import supports_titles_and_output
from mcp_bridge.build.tools import Tool
from mcp_bridge.schemas.profiles import convert_schema
from mcp_bridge.schemas.validators import SchemaValidator

#: The meta-tools' names. A real tool of a group in search mode may not have one (E100).
SEARCH_TOOL = "search_tools"
DESCRIBE_TOOL = "describe_tool"
CALL_READ_ONLY = "call_read_only_tool"
CALL_WRITE = "call_write_tool"
CALL_DESTRUCTIVE = "call_destructive_tool"

#: Levels of risk: what a tool may do, by its annotations. A proxy runs the tools of its
#: level and of the levels below it, so that its own annotations never understate what a
#: tool it runs does.
READ_ONLY, WRITE, DESTRUCTIVE = 0, 1, 2
#: The proxy of each level.
PROXIES = {READ_ONLY: CALL_READ_ONLY, WRITE: CALL_WRITE, DESTRUCTIVE: CALL_DESTRUCTIVE}
META_TOOL_NAMES = frozenset({SEARCH_TOOL, DESCRIBE_TOOL, *PROXIES.values()})

#: ``search_tools``: tools per answer when the call gives no ``limit``, and the most it
#: may ask for (a larger ``limit`` is clamped to it, a smaller than 1 to 1, and the answer
#: says so): a model picks from a few candidates; twenty full tools would not fit the
#: token budget anyway.
DEFAULT_LIMIT = 5
MAX_LIMIT = 20
#: The longest query, in characters (a longer one is refused with ``isError``): a task in
#: plain words is a sentence or two; the index's cost grows with the query's terms.
MAX_QUERY_CHARS = 500
#: The estimated tokens of a page of the overview an empty query returns (and of a page
#: of browsing): fixed, so that each look at a group costs the same whatever its size.
OVERVIEW_TOKENS = 1_500
#: Profiles whose clients take no free-form object: a proxy's ``arguments`` is JSON text
#: there. OpenAI's strict mode closes every object (``additionalProperties: false``), so an
#: object without properties could only be ``{}``; Gemini's API refuses an ``OBJECT`` whose
#: ``properties`` are empty ("should be non-empty for OBJECT type").
TEXT_ARGUMENTS_PROFILES = frozenset({GEMINI, STRICT})


def risk_of(tool: Tool) -> int:
    """The level of risk of a real tool, from its annotations (``readOnlyHint``,
    ``destructiveHint``; MCP's defaults when absent: not read-only, destructive)."""
    hints = tool.annotations
    if hints.get("readOnlyHint", False):
        return READ_ONLY
    return DESTRUCTIVE if hints.get("destructiveHint", True) else WRITE


def is_pinned(tool: Tool, group: str) -> bool:
    """Whether ``tool`` stays listed when ``group`` is in search mode: a ``pin`` rule of
    the group, ``@mcp_tool(pinned=...)`` (which wins over the class), or
    ``@api_group(group, pinned=True)``."""
    source = tool.method.source
    if any(reason.pins for reason in source.membership):
        return True
    pinned = source.metadata.get("pinned")
    if pinned is not None:
        return bool(pinned)
    return group in source.metadata.get("pinned_in", ())


@dataclass
class MetaTool:
    """A discovery meta-tool: listed like a tool, answered by :mod:`mcp_bridge.toolcall.meta_tools`.

    Its exact schema (``input_schema``, what its arguments are validated against) is written
    in the portable profile's subset (no ``$ref``, one type per schema); ``tools/list``
    lists it in the endpoint's profile (:meth:`input_schema_in`): ``gemini`` without
    ``additionalProperties``, ``strict`` with every property required and the optional ones
    nullable, and in both a proxy's ``arguments`` as JSON text. It declares no
    ``outputSchema``: a proxy's result is the real tool's, whose ``structuredContent``
    follows the real tool's ``outputSchema`` (docs/discovery.md).

    Attributes:
        level: for a call proxy, the highest level of risk it runs; ``None`` otherwise.
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, bool]
    level: int | None = None
    #: The language of the texts (``None``: ``LANGUAGE_CODE``), for the ones made per profile.
    language: str | None = None
    _validator: SchemaValidator | None = field(default=None, repr=False, compare=False)
    _profiled: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def validator(self) -> SchemaValidator:
        if self._validator is None:
            self._validator = SchemaValidator(
                self.input_schema, format_checker=Draft202012Validator.FORMAT_CHECKER
            )
        return self._validator

    def input_schema_in(self, profile: str) -> dict[str, Any]:
        """The ``inputSchema`` as ``tools/list`` lists it in ``profile``, made once per profile.

        ``arguments`` (the proxies') is JSON text in :data:`TEXT_ARGUMENTS_PROFILES`; then
        the profile's own rewrite (:func:`~mcp_bridge.schemas.profiles.convert_schema`).
        The call reads either form (:mod:`mcp_bridge.toolcall.meta_tools`).
        """
        schema = self._profiled.get(profile)
        if schema is None:
            schema = self.input_schema
            if profile in TEXT_ARGUMENTS_PROFILES and "arguments" in schema["properties"]:
                with _texts_in(self.language):
                    properties = {**schema["properties"], "arguments": _arguments_as_text()}
                schema = {**schema, "properties": properties}
            schema = self._profiled[profile] = convert_schema(schema, profile or "defs")
        return schema

    def as_mcp(self, revision: str, profile: str = "") -> dict[str, Any]:
        """The ``Tool`` object of ``tools/list`` (``title`` in ``annotations`` for 2025-03-26),
        its ``inputSchema`` written in ``profile`` (:meth:`input_schema_in`)."""
        tool: dict[str, Any] = {"name": self.name}
        if supports_titles_and_output(revision):
            tool["title"] = self.title
        tool["description"] = self.description
        tool["inputSchema"] = self.input_schema_in(profile)
        if supports_titles_and_output(revision):
            tool["annotations"] = self.annotations
        else:
            tool["annotations"] = {"title": self.title, **self.annotations}
        return tool


def _texts_in(language: str | None) -> Any:
    """Texts made in ``language`` (``None``: ``LANGUAGE_CODE``), whatever the thread has active."""
    return translation.override(language or settings.LANGUAGE_CODE)


def _name_argument() -> dict[str, Any]:
    return {
        "type": "string",
        "description": _("The tool's name, as %(search)s returns it.") % {"search": SEARCH_TOOL},
    }


def _arguments_argument() -> dict[str, Any]:
    return {
        "description": _(
            "The tool's arguments, as its inputSchema describes them (an object; or the same "
            "object as JSON text, for clients whose schemas allow no free-form object). "
            "Default: no arguments."
        ),
        "anyOf": [{"type": "object"}, {"type": "string"}],
    }


def _arguments_as_text() -> dict[str, Any]:
    """``arguments`` where no free-form object is allowed (:data:`TEXT_ARGUMENTS_PROFILES`)."""
    return {
        "type": "string",
        "description": _(
            "The tool's arguments as a JSON object in text, as its inputSchema describes them "
            "(e.g. '{\"id\": 3}'); '{}' for none."
        ),
    }


def _proxy_texts(level: int) -> tuple[str, str]:
    """The title and description of the proxy of ``level``, in the active language."""
    search = {"search": SEARCH_TOOL}
    if level == READ_ONLY:
        return _("Call a read-only tool"), _(
            "Run a read-only tool (readOnlyHint: true) found with %(search)s by its name, with "
            "its arguments. The result is that tool's own result. Tools that change data are "
            "refused"
        ) % search
    if level == WRITE:
        return _("Call a tool that adds or changes data"), _(
            "Run a tool found with %(search)s that adds or changes data without destroying any "
            "(destructiveHint: false), or a read-only one, by its name, with its arguments. The "
            "result is that tool's own result. Destructive tools (deletes, full replacements) "
            "are refused"
        ) % search
    return _("Call a destructive tool"), _(
        "Run any tool found with %(search)s, destructive ones included (deletes, full "
        "replacements: destructiveHint: true), by its name, with its arguments. The result is "
        "that tool's own result."
    ) % search


def proxies_named(levels: frozenset[int] | set[int]) -> str:
    """The names of the proxies of ``levels``, as a sentence's list in the active language:
    ``"a, b or c"``."""
    names = [PROXIES[level] for level in sorted(levels)]
    if len(names) < 2:
        return "".join(names)
    return _("%(names)s or %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def _search_tool(levels: frozenset[int], language: str | None) -> MetaTool:
    proxies = (
        " "
        + _("Call a found tool by its name, or through %(proxies)s.")
        % {"proxies": proxies_named(levels)}
        if levels
        else ""
    )
    return MetaTool(
        name=SEARCH_TOOL,
        title=_("Search the tools"),
        description=_(
            "This API has more tools than can be listed. Find the ones for a task: describe "
            "it in plain words or keywords ('cancel an order', 'which invoices are overdue'). "
            "Returns the best matches with everything needed to call them (name, "
            "description, annotations, inputSchema) and how many more matched. Or browse: "
            "an empty query returns an overview of the API's areas and resources with their "
            "operations; give one of them as 'resource' (with the empty query) for what it "
            "holds, and 'page' for the next page of a long answer."
        )
        + proxies,
        input_schema={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": _(
                        "What you want to do, in plain words or keywords; empty to browse "
                        "(at most %(most)d characters)."
                    )
                    % {"most": MAX_QUERY_CHARS},
                },
                "limit": {
                    "type": "integer",
                    "description": _(
                        "How many tools to return: default %(default)d, at most %(most)d "
                        "(a larger number is taken as %(most)d)."
                    )
                    % {"default": DEFAULT_LIMIT, "most": MAX_LIMIT},
                },
                "resource": {
                    "type": "string",
                    "description": _(
                        "Browse, with an empty query: an area (ending in '/') or a resource, "
                        "as an earlier overview named it. Leave it out to search."
                    ),
                },
                "page": {
                    "type": "integer",
                    "description": _(
                        "Browse: which page of the overview or of the resource (from 1)."
                    ),
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        annotations={
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        language=language,
    )


def _describe_tool(language: str | None) -> MetaTool:
    return MetaTool(
        name=DESCRIBE_TOOL,
        title=_("Describe a tool"),
        description=_(
            "The full definition of one tool (inputSchema and outputSchema), for a tool that "
            "%(search)s described compactly because it is large."
        )
        % {"search": SEARCH_TOOL},
        input_schema={
            "type": "object",
            "properties": {"name": _name_argument()},
            "required": ["name"],
            "additionalProperties": False,
        },
        annotations={
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        language=language,
    )


def _proxy(
    level: int, accepted: list[Tool], levels: frozenset[int], language: str | None
) -> MetaTool:
    title, description = _proxy_texts(level)
    riskier = {other for other in levels if other > level}
    if level < DESTRUCTIVE:
        # Name only the proxies this caller is offered: none, when it may run nothing riskier.
        description += (
            _(": use %(proxies)s.") % {"proxies": proxies_named(riskier)} if riskier else "."
        )
    return MetaTool(
        name=PROXIES[level],
        title=title,
        description=description,
        input_schema={
            "type": "object",
            "properties": {"name": _name_argument(), "arguments": _arguments_argument()},
            "required": ["name"],
            "additionalProperties": False,
        },
        # The most cautious hints over the tools it may run: a client's confirmation
        # screen, which reads them, sees what the riskiest of those tools could do.
        annotations={
            "readOnlyHint": level == READ_ONLY,
            "destructiveHint": level == DESTRUCTIVE,
            "idempotentHint": all(t.annotations.get("idempotentHint", False) for t in accepted),
            "openWorldHint": any(t.annotations.get("openWorldHint", True) for t in accepted),
        },
        level=level,
        language=language,
    )


def levels_of(tools: Iterable[Tool]) -> frozenset[int]:
    """The levels of risk that ``tools`` have: the proxies a caller who may use them is offered."""
    return frozenset(risk_of(tool) for tool in tools)


def meta_tools(
    tools: list[Tool], offered: frozenset[int] | None = None, language: str | None = None
) -> list[MetaTool]:
    """The meta-tools of a group in search mode: search, describe, and the proxy of each
    level of risk that some tool of the group has (a proxy with nothing to run is left out).

    Args:
        tools: the group's tools.
        offered: the levels of the tools a caller may use (:func:`levels_of` its visible
            tools), when it may use fewer than all: only their proxies are listed, and the
            texts name no other. ``None``: every level the group has.
        language: the language of their texts (``None``: ``LANGUAGE_CODE``).
    """
    levels = levels_of(tools)
    if offered is not None:
        levels &= offered
    with _texts_in(language):
        proxies = [
            _proxy(level, [t for t in tools if risk_of(t) <= level], levels, language)
            for level in (READ_ONLY, WRITE, DESTRUCTIVE)
            if level in levels
        ]
        return [_search_tool(levels, language), _describe_tool(language), *proxies]


def search_listing(
    group: str, tools: list[Tool], language: str | None = None
) -> list[Tool | MetaTool]:
    """What ``tools/list`` holds in search mode: the pinned tools, then the meta-tools (their
    texts in ``language``; ``None``: ``LANGUAGE_CODE``)."""
    return [*(tool for tool in tools if is_pinned(tool, group)), *meta_tools(tools, None, language)]
