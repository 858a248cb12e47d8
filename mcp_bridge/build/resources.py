"""The build, tools → resources: the read operations that are also MCP resources.

MCP spec 2025-11-25, "Server features" → "Resources": a server offers data a person can pick
and attach (``resources/list``, ``resources/templates/list``, ``resources/read``). An API
already says which of its operations read one object: each published ``GET`` that reads one
object by its path arguments (a viewset's ``retrieve``, a ``RetrieveAPIView``, a ``GET`` with
path variables that is not a list) is also a **resource template** (RFC 6570), made from its
tool (:func:`resource_of`):

* ``uriTemplate``: ``<scheme>://<group><path>``, the operation's path with its trailing slash
  dropped and its variables named as the tool's arguments (``drf://catalog/api/products/{slug}``).
  The scheme is ``MCP_BRIDGE["RESOURCE_SCHEME"]`` (``"drf"``): a custom one, as the
  specification asks for resources a client cannot fetch by itself ("Common URI Schemes");
* ``name``, ``title``, ``description``: the tool's, so in the caller's language;
* ``mimeType``: ``application/json``, or the media type of a file response.

``@mcp_tool(resource=False)`` or ``MCP_BRIDGE["OMIT_RESOURCES"]`` leaves one out, or a whole
group. ``@mcp_tool(resource=True)`` makes a ``GET`` without path arguments (a singleton such
as ``/me/``) a direct resource, which ``resources/list`` lists; ``@mcp_tool(resource="...")``
gives the URI template itself.

A template is matched in reverse to read a URI (:meth:`ResourceTemplate.match`): each
``{name}`` is one path segment, percent-decoded (RFC 6570 §3.2.2, simple expansion), and
typed as the tool's argument is (an integer id is an integer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.media import essence, is_json_media_type
from mcp_bridge.base.protocol import supports_titles_and_output
from mcp_bridge.build.tools import Tool

#: An RFC 6570 level-1 expression: ``{name}``.
_EXPRESSION = re.compile(r"\{([A-Za-z0-9_]+)\}")


@dataclass
class ResourceTemplate:
    """One resource template (or, without variables, one direct resource) of a tool set.

    Attributes:
        tool: the ``GET`` tool a read runs, through the whole call pipeline.
        uri_template: RFC 6570 (level 1), e.g. ``drf://catalog/api/products/{slug}``.
        variables: the template's variables, in order: names of the tool's path arguments.
        mime_type: ``application/json``, a file response's media type, or ``None`` (unknown).
    """

    tool: Tool
    uri_template: str
    variables: tuple[str, ...]
    mime_type: str | None
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = _EXPRESSION.split(self.uri_template)
        # split() alternates literal text and variable names: literal, name, literal, ...
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/?#]+)"
            for i, part in enumerate(parts)
        )
        self._pattern = re.compile(regex)

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def is_direct(self) -> bool:
        """A resource without variables: ``resources/list`` lists it by its URI."""
        return not self.variables

    def as_mcp(self, revision: str) -> dict[str, Any]:
        """The ``ResourceTemplate`` of ``resources/templates/list`` (or, for a direct
        resource, the ``Resource`` of ``resources/list``) for a protocol revision."""
        entry: dict[str, Any] = (
            {"uri": self.uri_template} if self.is_direct else {"uriTemplate": self.uri_template}
        )
        entry["name"] = self.tool.name
        if supports_titles_and_output(revision):
            entry["title"] = self.tool.title
        if self.tool.description:
            entry["description"] = self.tool.description
        if self.mime_type:
            entry["mimeType"] = self.mime_type
        return entry

    def match(self, uri: str) -> dict[str, Any] | None:
        """The tool's arguments that ``uri`` names, or ``None`` when it is not of this
        template (or a value cannot be of its argument's type: no such object)."""
        found = self._pattern.fullmatch(uri)
        if found is None:
            return None
        arguments = {}
        for name, raw in found.groupdict().items():
            value = typed(unquote(raw), self.tool, name)
            if value is None:
                return None
            arguments[name] = value
        return arguments

    def uri(self, arguments: dict[str, Any]) -> str:
        """The URI of the object ``arguments`` names (RFC 6570 simple expansion)."""
        return _EXPRESSION.sub(
            lambda m: quote(str(arguments[m.group(1)]), safe="-._~"), self.uri_template
        )


def typed(text: str, tool: Tool, name: str) -> Any:
    """``text``, a path segment, as the value of the tool's argument ``name``: an integer
    for an integer argument (``None`` when it is not one), else the text."""
    schema = tool.input_schema.get("properties", {}).get(name, {})
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "integer" in kinds and "string" not in kinds:
        return int(text) if re.fullmatch(r"-?[0-9]+", text) else None
    if "number" in kinds and "string" not in kinds:
        try:
            return float(text)
        except ValueError:
            return None
    return text


def resource_of(group: str, tool: Tool) -> ResourceTemplate | None:
    """The resource template of ``tool`` in ``group``, or ``None`` when the tool is no
    resource (see the module docstring)."""
    source = tool.method.source
    if source.method != "GET":
        return None
    wanted = source.metadata.get("resource")
    if wanted is False or _omitted(group, tool.name):
        return None
    path_params = [p for p in tool.method.params if p.location == "path"]
    if wanted is None:
        facts = tool.facts
        others_required = any(p.required for p in tool.method.params if p.location != "path")
        if (
            not path_params
            or source.is_list
            or facts.action == "list"
            or facts.detail is False
            or others_required
        ):
            return None
    if isinstance(wanted, str):
        uri_template = wanted
    else:
        path = source.path.rstrip("/") or "/"
        for param in path_params:
            path = path.replace("{" + param.source_name + "}", "{" + param.name + "}")
        uri_template = f"{bridge_settings.RESOURCE_SCHEME}://{group}{path}"
    variables = tuple(_EXPRESSION.findall(uri_template))
    if sorted(variables) != sorted(p.name for p in path_params):
        return None  # an explicit template that does not name each path argument once
    return ResourceTemplate(tool, uri_template, variables, _media_type(tool))


def resource_templates(group: str, tools: list[Tool]) -> list[ResourceTemplate]:
    """The resources of ``tools`` (sorted by name, as the tools are), direct ones included."""
    templates = [resource_of(group, tool) for tool in tools]
    return [template for template in templates if template is not None]


def _omitted(group: str, name: str) -> bool:
    rule = bridge_settings.OMIT_RESOURCES.get(group)
    return rule is True or bool(rule and name in rule)


def _media_type(tool: Tool) -> str | None:
    """What a read answers: the media type of the operation's 2xx response (JSON is
    ``application/json``), ``None`` when the document does not say or names several."""
    responses = (tool.method.source.operation or {}).get("responses", {})
    for status in ("200", "203", "206", "2XX", "default"):
        content = responses.get(status, {}).get("content")
        if content:
            types = [essence(t) for t in content]
            if any(is_json_media_type(t) for t in types):
                return "application/json"
            concrete = [t for t in types if "*" not in t]
            return concrete[0] if len(concrete) == 1 else None
    return "application/json" if tool.result_schema is not None else None
