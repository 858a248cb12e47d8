"""Whether a real request reaches each endpoint through the project's middleware stack.

The transport is a view like any other, so every middleware of ``settings.MIDDLEWARE`` runs
before it. A site-wide login-required middleware (an allow-list of exempt paths, with the
REST prefix exempt because DRF authenticates inside the view) redirects every MCP request to
the login page, even one with a valid API token, and the client only sees a redirect it
cannot follow. The bridge cannot change the project's middleware; it can say what happened.

:func:`through_middleware` sends one request through Django's own handler
(``BaseHandler.get_response``: the whole middleware chain, URL resolution, the view), as a
WSGI server would hand it over, without the ``request_started``/``request_finished``
signals (which close database connections). :func:`find_unanswered_endpoints`, a deployment
check (``check --deploy``, ``manage.py mcp_tools --validate``), sends each endpoint an
``initialize``, which reads and writes nothing, and reports:

``mcp_bridge.E090``
    the answer is a redirect (3xx): its status and ``Location``, and the hint to exempt the
    MCP prefix as the REST prefix is exempt;
``mcp_bridge.E091``
    the answer is not JSON (an HTML login or error page, a maintenance page): its status and
    ``Content-Type``. A JSON error (401 of a protected group, 500 of a group that cannot
    be built) is the endpoint's own answer, and reported elsewhere.

``manage.py mcp_tools --probe-output`` sends its calls the same way
(:mod:`mcp_bridge.management.probe`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import got_request_exception
from django.http import HttpResponseBase
from django.urls import NoReverseMatch, get_resolver, get_script_prefix, reverse

from mcp_bridge.base.encoding import dumps_bytes
from mcp_bridge.base.errors import Problem
from mcp_bridge.base.media import essence
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION

#: The request a client makes first, and one that changes nothing.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": LATEST_HANDSHAKE_REVISION,
        "capabilities": {},
        "clientInfo": {"name": "mcp_bridge check", "version": "1"},
    },
}
#: Where docs/endpoint.md tells how to exempt the endpoints from such middleware.
RECIPE = "docs/endpoint.md, 'Site-wide middleware'"


@dataclass(frozen=True)
class EndpointPath:
    """One endpoint of the URLconf: its group, API version and path (the script prefix included)."""

    group: str
    version: str | None
    path: str


def endpoint_paths(
    endpoint: Callable[..., Any], groups: dict[str, list[str | None]]
) -> list[EndpointPath]:
    """Every endpoint of ``groups`` in the root URLconf: the ``include("mcp_bridge.urls")``
    mount (by URL name) and each ``mcp_bridge.urls.endpoint()`` mount (by its view,
    ``endpoint``, with the group fixed)."""
    paths = []
    for group, versions in groups.items():
        for version in versions:
            name, kwargs = (
                ("mcp_bridge:endpoint", {"group": group})
                if version is None
                else ("mcp_bridge:endpoint-version", {"group": group, "version": version})
            )
            try:
                paths.append(EndpointPath(group, version, reverse(name, kwargs=kwargs)))
            except NoReverseMatch:
                pass
    for possibilities, _pattern, defaults, _converters in get_resolver().reverse_dict.getlist(
        endpoint
    ):
        group = defaults.get("group")
        for template, params in possibilities:
            if group in groups and not params:
                paths.append(
                    EndpointPath(group, defaults.get("version"), get_script_prefix() + template)
                )
    return paths


def _host() -> str:
    """A host ``ALLOWED_HOSTS`` accepts (``localhost`` for ``*`` or an empty list under DEBUG)."""
    for entry in settings.ALLOWED_HOSTS:
        host = entry.lstrip(".")
        if host and host != "*" and "*" not in host:
            return host
    return "localhost"


def _environ(path: str, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    secure = bool(settings.SECURE_SSL_REDIRECT)
    host = _host()
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "SCRIPT_NAME": "",
        "PATH_INFO": path.encode().decode("latin-1"),
        "QUERY_STRING": "",
        "SERVER_NAME": host,
        "SERVER_PORT": "443" if secure else "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": host,
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": LATEST_HANDSHAKE_REVISION,
        "wsgi.input": BytesIO(body),
        "wsgi.url_scheme": "https" if secure else "http",
    }
    proxy_header = settings.SECURE_PROXY_SSL_HEADER
    if secure and proxy_header:
        # Behind a TLS-terminating proxy the client's request arrives with its header.
        environ[proxy_header[0]] = proxy_header[1]
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ


@contextmanager
def _quiet_request_log() -> Iterator[None]:
    """Django logs every 4xx/5xx answer on ``django.request``; a probe's are reported instead."""
    logger = logging.getLogger("django.request")
    disabled, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = disabled


@dataclass
class Answer:
    """What the handler answered a request sent by :func:`through_middleware`.

    Attributes:
        response: the response, as a WSGI server would get it.
        raised: the exception Django turned into its 500 page (``got_request_exception``),
            or ``None``.
    """

    response: HttpResponseBase
    raised: BaseException | None = None


def through_middleware(
    path: str,
    message: Any,
    *,
    headers: dict[str, str] | None = None,
    prepare: Callable[[WSGIRequest], None] | None = None,
    handler: BaseHandler | None = None,
) -> Answer:
    """POST the JSON-RPC ``message`` to ``path`` through Django's handler and every middleware.

    Args:
        path: the endpoint's path, script prefix included.
        message: the JSON-RPC message (or batch) to send as the body.
        headers: more request headers (``{"Authorization": ...}``).
        prepare: called with the request before the middleware sees it (the probe's forced
            authentication, which DRF reads as a token authentication class would).
        handler: a handler whose middleware is loaded (:func:`loaded_handler`), to send
            several requests through one chain.

    Returns:
        The :class:`Answer`: an exception in a middleware or the view is Django's 500 page, as
        for any request, and the exception itself, to be named.
    """
    handler = handler or loaded_handler()
    request = WSGIRequest(_environ(path, dumps_bytes(message), headers or {}))
    if prepare is not None:
        prepare(request)
    raised: list[BaseException] = []

    def note_exception(sender: Any, request: Any = None, **kwargs: Any) -> None:
        exception = sys.exc_info()[1]  # sent from inside Django's except block
        if exception is not None:
            raised.append(exception)

    got_request_exception.connect(note_exception)
    try:
        with _quiet_request_log():
            # Not closed: closing sends request_finished, which closes the database connections
            # (and tool_call_delivered, whose receivers do work after a real answer).
            response = handler.get_response(request)
    finally:
        got_request_exception.disconnect(note_exception)
    return Answer(response, raised[0] if raised else None)


def loaded_handler() -> BaseHandler:
    """Django's handler with ``settings.MIDDLEWARE`` loaded, as ``WSGIHandler`` loads it."""
    handler = BaseHandler()
    handler.load_middleware()
    return handler


def _is_json(response: HttpResponseBase) -> bool:
    media_type = essence(response.get("Content-Type", ""))
    return media_type == "application/json" or media_type.endswith("+json")


def answer_problem(endpoint: EndpointPath, answer: Answer, rest_prefix: str) -> Problem | None:
    """E090 or E091 for an answer that is not the endpoint's (see the module docstring)."""
    response = answer.response
    status = response.status_code
    exempt = exemption_hint(_prefix(endpoint.path), rest_prefix)
    if 300 <= status < 400:
        location = response.get("Location", "")
        return Problem(
            "mcp_bridge.E090",
            f"POST {endpoint.path} (group {endpoint.group!r}) is answered {status} with "
            f"Location: {location or '(none)'}: a middleware redirects the MCP endpoint, and MCP "
            "clients do not follow redirects of a POST (a login-required middleware?).",
            exempt,
            endpoint.path,
        )
    if not _is_json(response):
        content_type = response.get("Content-Type", "") or "(none)"
        return Problem(
            "mcp_bridge.E091",
            f"POST {endpoint.path} (group {endpoint.group!r}) is answered {status} with "
            f"Content-Type: {content_type}, not the endpoint's JSON: a middleware (or an error "
            "page) answers before the MCP endpoint"
            + (f" ({type(answer.raised).__name__}: {answer.raised})." if answer.raised else "."),
            exempt
            if status < 500
            else f"An error page: fix the exception named. If a middleware raised it: {exempt}",
            endpoint.path,
        )
    return None


def _prefix(path: str) -> str:
    """The first segment of ``path``: ``/mcp/`` of ``/mcp/library/``."""
    first = path.strip("/").split("/")[0]
    return f"/{first}/" if first else "/"


def find_unanswered_endpoints(
    endpoint: Callable[..., Any],
    groups: dict[str, list[str | None]],
    rest_paths: dict[str, list[str]],
) -> list[Problem]:
    """E090/E091 for each endpoint whose ``initialize`` the middleware stack answers itself.

    Args:
        endpoint: the MCP endpoint view (for its ``endpoint()`` mounts).
        groups: every group's versions.
        rest_paths: the operations' paths of each group, to name the REST prefix in the hint.
    """
    handler = loaded_handler()
    problems = []
    for found in endpoint_paths(endpoint, groups):
        answer = through_middleware(found.path, INITIALIZE, handler=handler)
        problem = answer_problem(found, answer, rest_prefix(rest_paths.get(found.group, [])))
        if problem is not None:
            problems.append(problem)
    return problems


def rest_prefix(paths: list[str]) -> str:
    """The leading path segments every operation shares, up to the first parameter
    (``/api/v2/`` of ``/api/v2/findings/`` and ``/api/v2/tests/{id}/``), or a stand-in."""
    common: list[str] | None = None
    for path in paths:
        segments = []
        for segment in path.strip("/").split("/"):
            if not segment or "{" in segment:
                break
            segments.append(segment)
        segments = segments[:-1] if segments == path.strip("/").split("/") else segments
        if common is None:
            common = segments
        else:
            size = 0
            while size < min(len(common), len(segments)) and common[size] == segments[size]:
                size += 1
            common = common[:size]
    if not common:
        return "e.g. /api/"
    return "/" + "/".join(common) + "/"


def urlconf_route(prefix: str) -> str | None:
    """The route of the ROOT_URLCONF's top-level pattern that leads to ``prefix`` (``'^api/v2/'``
    of a ``re_path``, ``'api/'`` of a ``path``), as written there, or ``None``."""
    if not prefix.startswith("/"):
        return None
    try:
        patterns = get_resolver().url_patterns
    except Exception:  # noqa: BLE001 -- a URLconf that cannot load: E007 says so elsewhere
        return None
    for pattern in patterns:
        if hasattr(pattern, "url_patterns") and pattern.pattern.match(prefix[1:]):
            return str(pattern.pattern)
    return None


def exemption_hint(mcp_prefix: str, rest: str) -> str:
    """What to add to a login-required middleware's exemptions (E090, E091): the MCP prefix
    beside the API's, in both styles such lists use."""
    route = urlconf_route(rest)
    routed = f" The URLconf routes the API with {route!r}." if route else ""
    known = not rest.startswith("e.g.")
    rest_path = rest if known else "/api/"
    return (
        f"Exempt {mcp_prefix} from that middleware the way the API's own prefix ({rest}) is "
        f"exempt: DRF authenticates inside the view, and so does the MCP endpoint.{routed} A list "
        f'of path prefixes takes "{mcp_prefix}" beside "{rest_path}"; a list of regexes matched '
        f'against the path without its leading slash takes r"^{mcp_prefix[1:]}" beside '
        f'r"^{rest_path[1:]}" (see {RECIPE}).'
    )
