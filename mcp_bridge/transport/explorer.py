"""The tool explorer: an endpoint's tools as an HTML page, for a browser's ``GET``.

DRF's browsable API is why many people try a DRF endpoint in a browser first; an MCP endpoint
answers a browser's ``GET`` with 405. With ``MCP_BRIDGE["EXPLORER"]`` on (the default), a
``GET`` (or ``HEAD``) whose ``Accept`` prefers ``text/html`` over JSON and event streams
(:func:`wants_explorer`: what a browser sends; MCP clients send ``application/json`` and
``text/event-stream``, and keep their 405) gets :func:`explorer_page`, rendered from the
template ``mcp_bridge/explorer.html`` (a project may override it, as DRF's
``rest_framework/api.html``):

* every tool the viewer may use, in direct and in search mode alike
  (:func:`mcp_bridge.toolcall.visibility.visible_tool_names`, the filter of ``tools/list`` and
  of the meta-tools, and :func:`~mcp_bridge.toolcall.visibility.visible_tools`), grouped by
  resource as the search's overview groups them (the group's search index), in the viewer's
  language (``Accept-Language``, as ``tools/list`` negotiates it), each with its REST
  operation (HTTP method and path), title, description, annotations, an arguments table and
  the raw ``inputSchema``/``outputSchema`` (in the profile of ``?schema=``, as on the
  endpoint); in search mode, also the meta-tools MCP clients list;
  (descriptions with their Markdown inline code, ``like this``, as code: :func:`inline_code`);
* a search box over the tools (a client-side filter of names, titles and descriptions, which
  counts the same tools as the page's total);
* a "Try it" form per tool, made from its ``inputSchema``, which posts a real ``tools/call``
  to the endpoint with the browser's session cookie and CSRF token, as DRF's browsable API
  does, in the page's revision (:data:`REVISION`, the newest), and shows the result as a
  client of that revision gets it: the view's HTTP status (``_meta["mcp-bridge/status"]``),
  the operation's method and path, and the ``structuredContent`` (else the text)
  pretty-printed;
* after the tools, folded: the endpoint's schema profiles (``?schema=``), their sizes in
  tokens (estimated) and copy-paste configurations for Claude Code, VS Code, the MCP
  Inspector and the Python SDK.

The page asks for the same authorization as the endpoint: the transport runs its origin and
authorization checks first (:func:`mcp_bridge.transport.endpoint.refuse`), and a protected
group's page needs the same credential. A browser without one gets, with the same status and
``WWW-Authenticate`` challenge, a page that offers to sign in (:class:`SignInNeeded`,
:func:`sign_in_url`: the project's ``LOGIN_URL``, or DRF's ``rest_framework.urls`` login)
rather than the JSON-RPC error. A viewer signed in with a session gets a sign-out button
(:func:`sign_out_url`: a ``POST`` to the project's ``logout`` URL or DRF's, as Django's
``LogoutView`` requires). The page loads nothing from other sites (its CSS and script
are inline) and forbids framing itself (``X-Frame-Options: DENY`` and CSP
``frame-ancestors 'none'``, set on the response whatever the project's middleware).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import resolve_url
from django.template import TemplateDoesNotExist
from django.template.loader import get_template, render_to_string
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from mcp_bridge.base.conf import PROFILES, bridge_settings
from mcp_bridge.base.encoding import dumps, dumps_data, dumps_readable
from mcp_bridge.base.errors import Problem
from mcp_bridge.base.protocol import MODERN_REVISIONS
from mcp_bridge.build.tools import Tool
from mcp_bridge.schemas.profiles import QUERY_PARAMETER, ProfileError, profile_from_request
from mcp_bridge.toolcall.results import STATUS_META_KEY
from mcp_bridge.toolcall.visibility import listed_tools, visible_tool_names, visible_tools
from mcp_bridge.toolset.registry import ToolSet, active_urlconf
from mcp_bridge.transport.answers import Refused

TEMPLATE = "mcp_bridge/explorer.html"
#: The revision the page shows the tools in, and its "Try it" calls speak (with the envelope
#: ``_meta`` that revision asks for): the newest, which the official SDKs and the demo client
#: negotiate, so that a result reads as their clients get it (a list as a list, not wrapped in
#: the handshake era's ``{"result": ...}``), and a tool that asks a question can ask it.
REVISION = MODERN_REVISIONS[-1]
_ANSWER_TYPES = ["text/html", "application/json", "text/event-stream"]
#: The anti-framing headers of every page the explorer sends: nobody may frame it (a page
#: whose buttons run tools as the signed-in user is a clickjacking target).
FRAMING_HEADERS = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"}
#: The resource of the tools the search index puts in none (none is left out of the page).
OTHER_RESOURCE = "other"
_ANNOTATION_LABELS = {
    "readOnlyHint": "read-only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open world",
}


def find_explorer_problems() -> list[Problem]:
    """The explorer is on but no template engine finds its template (``mcp_bridge.W131``)."""
    if not bridge_settings.EXPLORER:
        return []
    try:
        get_template(TEMPLATE)
    except TemplateDoesNotExist:
        return [
            Problem(
                "mcp_bridge.W131",
                f"The tool explorer is on, but no template engine finds {TEMPLATE!r}: a "
                "browser's GET of an endpoint would fail.",
                "Enable the app directories loader (TEMPLATES 'APP_DIRS': True, with the "
                "Django backend) or set MCP_BRIDGE['EXPLORER'] = False.",
            )
        ]
    return []


def wants_explorer(request: HttpRequest) -> bool:
    """Whether ``request`` is a browser's ``GET`` of the explorer page (see the module docstring)."""
    if request.method not in ("GET", "HEAD") or not bridge_settings.EXPLORER:
        return False
    # Named, not matched by a wildcard: curl's */* and a client's bare GET keep their 405.
    if "text/html" not in request.META.get("HTTP_ACCEPT", ""):
        return False
    return request.get_preferred_type(_ANSWER_TYPES) == "text/html"


def explorer_page(request: HttpRequest, toolset: ToolSet) -> HttpResponse:
    """The explorer page of ``toolset`` (already in the viewer's language) for the viewer of ``request``."""
    visible = visible_tool_names(toolset, request)
    listed = listed_tools(toolset, visible)  # what an MCP client's tools/list holds
    tools = visible_tools(toolset, visible)  # what the viewer may use, in either mode
    profile = _shown_profile(request)
    endpoint = request.build_absolute_uri(request.path)
    name = f"{bridge_settings.SERVER_NAME}-{toolset.group}"
    user = getattr(request, "user", None)
    search = bool(toolset.discovery.search)
    context = {
        "group": toolset.group,
        "version": toolset.version,
        "endpoint": endpoint,
        "revision": REVISION,
        "tool_count": len(tools),
        "search_mode": search,
        "resources": [
            {
                "label": label,
                "tools": [_tool(tool.as_mcp(REVISION, profile), tool) for tool in members],
            }
            for label, members in _by_resource(
                toolset, tools, getattr(request, "LANGUAGE_CODE", None)
            )
        ],
        # In search mode, what clients list besides the pinned tools: the discovery meta-tools.
        "meta_tools": [
            _tool(tool.as_mcp(REVISION, profile), None)
            for tool in listed
            if search and not isinstance(tool, Tool)
        ],
        "profiles": [_profile(endpoint, name, each, listed) for each in _offered_profiles()],
        # The resources the viewer may read (docs/resources.md), each with a form to read one.
        "resource_templates": [
            {
                "uri_template": resource.uri_template,
                "name": resource.name,
                "title": resource.tool.title,
                "variables": list(resource.variables),
                "mime_type": resource.mime_type,
            }
            for resource in toolset.resources()
            if visible is None or resource.name in visible
        ],
        "user": user,
        "sign_in_url": None if getattr(user, "is_authenticated", False) else sign_in_url(request),
        "sign_out_url": sign_out_url(request) if getattr(user, "is_authenticated", False) else None,
        "page_path": request.get_full_path(),  # where signing out comes back to
        # What the page's script reads, written by Django's json_script filter (escaped so that
        # no value can end the <script> element).
        "script_config": {
            "endpoint": endpoint,
            "csrfToken": get_token(request),
            "revision": REVISION,
            "statusKey": STATUS_META_KEY,
        },
    }
    response = HttpResponse(render_to_string(TEMPLATE, context, request=request))
    return _private(response)


class SignInNeeded(Refused):
    """A browser's ``GET`` of a protected group's page without a credential the endpoint
    accepts: the refusal of :func:`~mcp_bridge.transport.authorization.authorize` (its status,
    401 or 403, and its ``WWW-Authenticate`` challenge), answered with a page that offers to
    sign in (:func:`sign_in_url`) instead of the JSON-RPC error."""

    def __init__(self, refusal: Refused, request: HttpRequest, group: str) -> None:
        super().__init__(
            refusal.code, refusal.message, refusal.status, refusal.data, headers=refusal.headers
        )
        self.request = request
        self.group = group

    def answer(self) -> HttpResponse:
        user = getattr(self.request, "user", None)
        context = {
            "group": self.group,
            "refused": True,
            "user": user,
            "sign_in_url": sign_in_url(self.request),
            "endpoint": self.request.build_absolute_uri(self.request.path),
            "revision": REVISION,
        }
        response = HttpResponse(
            render_to_string(TEMPLATE, context, request=self.request), status=self.status
        )
        for name, value in self.headers.items():
            response[name] = value
        return _private(response)


def sign_in_url(request: HttpRequest) -> str | None:
    """Where the viewer of ``request`` signs in, with ``next`` back to this page: the project's
    ``LOGIN_URL`` (a URL or a URL name) when the URLconf serves it or it is on another site,
    else the login view of DRF's ``rest_framework.urls`` when the URLconf includes it (under
    its ``rest_framework`` namespace); ``None`` when neither."""
    urlconf = active_urlconf(request)
    login = resolve_url(settings.LOGIN_URL)
    parts = urlsplit(login)
    if not parts.netloc:
        try:
            resolve(parts.path, urlconf=urlconf)
        except Resolver404:
            login = ""
    if not login:
        try:
            login = reverse("rest_framework:login", urlconf=urlconf)
        except NoReverseMatch:
            return None
    return str(redirect_to_login(request.get_full_path(), login)["Location"])


def sign_out_url(request: HttpRequest) -> str | None:
    """Where a viewer signed in with a session signs out (a ``POST``, as Django's
    ``LogoutView`` requires): the URL named ``logout`` (``django.contrib.auth.urls``'s), else
    DRF's ``rest_framework:logout``, in the request's URLconf; ``None`` when neither is served
    or the viewer is not signed in with a session (a token cannot be signed out of)."""
    session = getattr(request, "session", None)
    if session is None or not session.session_key:
        return None
    urlconf = active_urlconf(request)
    for name in ("logout", "rest_framework:logout"):
        try:
            return reverse(name, urlconf=urlconf)
        except NoReverseMatch:
            continue
    return None


def inline_code(text: str) -> SafeString:
    """``text`` escaped for HTML, with each Markdown code span (```code```) as ``<code>``: the
    way the descriptions of DRF views and drf-spectacular mark names and values. A lone
    backtick stays as it is."""
    parts = str(text).split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one opens nothing
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return mark_safe(  # every part is escaped
        "".join(
            escape(part) if position % 2 == 0 else f"<code>{escape(part)}</code>"
            for position, part in enumerate(parts)
        )
    )


def _private(response: HttpResponse) -> HttpResponse:
    """``response`` (a page of the explorer) kept from shared caches and from frames."""
    # The page lists what this viewer may use, in this viewer's language.
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Accept, Cookie, Authorization"
    # Set here, not left to XFrameOptionsMiddleware (which keeps a value already set): the
    # project may not use it, or allow SAMEORIGIN for its own pages.
    for name, value in FRAMING_HEADERS.items():
        response[name] = value
    return response


def _by_resource(
    toolset: ToolSet, tools: list[Tool], language: str | None
) -> list[tuple[str, list[Tool]]]:
    """``tools`` grouped by resource, as the search's overview groups the group's tools (the
    search index of the caller's language), in its order; a tool it puts in no resource goes
    under :data:`OTHER_RESOURCE`, so that none is left out."""
    index = toolset.index(language)
    left = {tool.name: tool for tool in tools}
    groups = []
    for label, documents in index.resources.items():
        members = [left.pop(index.names[doc]) for doc in documents if index.names[doc] in left]
        if members:
            groups.append((str(label), members))
    if left:
        groups.append((OTHER_RESOURCE, list(left.values())))
    return groups


def _shown_profile(request: HttpRequest) -> str:
    """The profile the page writes the schemas in: ``?schema=`` as on the endpoint, else the
    default (an unknown one too: the page lists the profiles that exist)."""
    try:
        return profile_from_request(request, bridge_settings.SCHEMA_PROFILE)
    except ProfileError:
        return str(bridge_settings.SCHEMA_PROFILE)


def _offered_profiles() -> list[str]:
    """The default profile first, then the others ``?schema=`` offers."""
    default = bridge_settings.SCHEMA_PROFILE
    return [default, *(profile for profile in PROFILES if profile != default)]


def _profile(endpoint: str, name: str, profile: str, tools: list[Any]) -> dict[str, Any]:
    url = (
        endpoint
        if profile == bridge_settings.SCHEMA_PROFILE
        else f"{endpoint}?{QUERY_PARAMETER}={profile}"
    )
    listed = dumps([tool.as_mcp(REVISION, profile) for tool in tools])
    vscode = _pretty({"servers": {name: {"type": "http", "url": url}}})
    return {
        "name": profile,
        "default": profile == bridge_settings.SCHEMA_PROFILE,
        "url": url,
        "bytes": len(listed.encode()),
        # A rough estimate, as the model APIs count: about four bytes of JSON per token.
        "tokens": round(len(listed.encode()) / 4),
        "clients": [
            ("Claude Code", f"claude mcp add --transport http {name} {url}"),
            ("VS Code (.vscode/mcp.json)", vscode),
            (
                "MCP Inspector",
                (
                    f"npx @modelcontextprotocol/inspector --cli {url} --transport http "
                    "--method tools/list"
                ),
            ),
            (
                "Python SDK",
                (
                    "import anyio\n"
                    "from mcp import Client\n"
                    "from mcp.client.streamable_http import streamable_http_client\n\n\n"
                    "async def main():\n"
                    f'    async with Client(streamable_http_client("{url}")) as client:\n'
                    "        for tool in (await client.list_tools()).tools:\n"
                    "            print(tool.name)\n\n\n"
                    "anyio.run(main)"
                ),
            ),
        ],
    }


def _pretty(value: Any) -> str:
    """Indented JSON, for people to read (the schemas are plain JSON already)."""
    return dumps_readable(value)


def _tool(listed: dict[str, Any], tool: Tool | None) -> dict[str, Any]:
    """What the template shows of one tool, from its ``tools/list`` object and, for a tool of
    the API (not a meta-tool), its REST operation."""
    schema = listed["inputSchema"]
    required = set(schema.get("required", ()))
    arguments = [
        _argument(name, prop, name in required, schema)
        for name, prop in schema.get("properties", {}).items()
    ]
    annotations = listed.get("annotations", {})
    return {
        "name": listed["name"],
        "title": listed.get("title") or listed["name"],
        "description": inline_code(listed.get("description", "")),
        "badges": [
            label for key, label in _ANNOTATION_LABELS.items() if annotations.get(key) is True
        ],
        "arguments": arguments,
        "input_schema": _pretty(schema),
        "output_schema": _pretty(listed["outputSchema"]) if "outputSchema" in listed else None,
        "http_method": tool.method.source.method if tool is not None else "",
        "path": tool.method.source.path if tool is not None else "",
        "search": " ".join(
            (
                listed["name"],
                listed.get("title", ""),
                listed.get("description", ""),
                tool.method.source.path if tool is not None else "",
            )
        ).lower(),
    }


def _argument(name: str, prop: Any, required: bool, schema: dict[str, Any]) -> dict[str, Any]:
    prop = prop if isinstance(prop, dict) else {}
    resolved = _resolved(prop, schema)
    kind = _type_label(resolved)
    return {
        "name": name,
        "type": kind,
        "required": required,
        "default": dumps_data(resolved["default"]) if "default" in resolved else "",
        "description": inline_code(resolved.get("description") or prop.get("description", "")),
        # The form field: what the page's script turns into the argument's JSON value.
        "input": _input_kind(resolved),
        "choices": [dumps_data(c) for c in resolved.get("enum", ())]
        if isinstance(resolved.get("enum"), list)
        else [],
    }


def _resolved(prop: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``prop`` with a local ``$ref`` (``#/$defs/...``) followed once, for its type and default."""
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            return {**target, **{k: v for k, v in prop.items() if k != "$ref"}}
    return prop


def _type_label(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"array of {_type_label(prop['items'])}"
    if kind:
        return str(kind) + (f" ({prop['format']})" if "format" in prop else "")
    for combinator in ("anyOf", "oneOf"):
        options = prop.get(combinator)
        if isinstance(options, list):
            return " | ".join(_type_label(o) for o in options if isinstance(o, dict))
    if "enum" in prop:
        return "enum"
    return "any"


def _input_kind(prop: dict[str, Any]) -> str:
    """``"select"``, ``"boolean"``, ``"integer"``, ``"number"``, ``"string"`` or ``"json"``."""
    kind = prop.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if isinstance(prop.get("enum"), list):
        return "select"
    if kind in ("boolean", "integer", "number", "string"):
        return str(kind)
    return "json"
