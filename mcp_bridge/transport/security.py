"""Transport security: the ``Origin`` check against DNS rebinding.

MCP spec 2025-11-25, "Transports → Streamable HTTP → Security Warning":
servers MUST validate the ``Origin`` header of incoming connections, because
a web page the user visits could otherwise reach a server on localhost (DNS
rebinding). A request with a foreign ``Origin`` gets 403.

Which origins are allowed, by default, comes from what the project already
configured:

* an origin whose host is allowed by ``ALLOWED_HOSTS`` (Django's own
  ``validate_host``, with the same localhost defaults as Django when
  ``DEBUG`` is true and ``ALLOWED_HOSTS`` is empty);
* an origin listed in ``CSRF_TRUSTED_ORIGINS`` (wildcards such as
  ``https://*.example.com`` included, as Django's CSRF check reads them);
* an origin listed in ``MCP_BRIDGE["ALLOWED_ORIGINS"]``.

Requests without an ``Origin`` (non-browser clients: SDKs, curl, agents) pass:
browsers always send it on cross-origin POSTs.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.http.request import split_domain_port, validate_host

from mcp_bridge.base.conf import bridge_settings

#: Django's ALLOWED_HOSTS fallback while DEBUG is true and the setting is empty.
_DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]


def _matches(origin: str, pattern: str) -> bool:
    if "*" not in pattern:
        return origin == pattern.lower()
    scheme, _, host_pattern = pattern.lower().partition("://")
    parts = urlsplit(origin)
    suffix = host_pattern.split("*", 1)[1]
    return parts.scheme == scheme and parts.netloc.endswith(suffix)


def origin_allowed(request: HttpRequest) -> bool:
    """Whether the request's ``Origin`` is absent or allowed (see the module docstring)."""
    origin = request.META.get("HTTP_ORIGIN")  # request.headers would parse every header
    if origin is None:
        return True
    origin = origin.strip().lower()
    if origin == "null":  # sandboxed iframes, file:// pages: never a trusted origin
        return False
    trusted = [*getattr(settings, "CSRF_TRUSTED_ORIGINS", []), *bridge_settings.ALLOWED_ORIGINS]
    if any(_matches(origin, pattern) for pattern in trusted):
        return True
    domain, _port = split_domain_port(urlsplit(origin).netloc)
    if not domain:
        return False
    allowed_hosts = settings.ALLOWED_HOSTS or (_DEBUG_HOSTS if settings.DEBUG else [])
    return validate_host(domain, allowed_hosts)
