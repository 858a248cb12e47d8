"""The call, authorization (after the transport's checks, before dispatch): the endpoint of a protected group as an OAuth 2.1 resource server.

MCP spec 2025-11-25 and 2026-07-28, "Authorization". The bridge is only the
resource server; tokens are issued by an authorization server of the project's
choice that django-oauth-toolkit can validate (its own database when it runs in
the same project, or its introspection settings for a remote one). Which groups
are protected, and with which scopes, is set in ``MCP_BRIDGE``
(``OAUTH_GROUPS``, ``OAUTH_DEFAULT``, ``OAUTH_AUTHORIZATION_SERVERS``,
``OAUTH_RESOURCE_ORIGIN``; see :mod:`mcp_bridge.base.conf` and docs/authorization.md).

:func:`authorize` runs in the transport before any JSON-RPC handling:

* a public group: nothing happens;
* ``Authorization: Bearer <token>``: the token must be valid (known, not expired,
  not revoked, its user active) and issued for this endpoint's resource
  identifier (RFC 8707: the token's ``resource`` names it exactly, ignoring a
  trailing slash), else **401** ``error="invalid_token"``; it must carry the
  group's scopes, else **403** ``error="insufficient_scope"``. An accepted token
  is consumed here: the ``Authorization`` header is removed from the request, and
  the token's user and token become DRF's forced authentication of the request
  (``_force_auth_user``/``_force_auth_token``, which the executor hands to the view,
  as ``APIClient.force_authenticate`` does). So every view runs as the token's user
  through its own permissions and throttles, with ``request.auth`` the
  django-oauth-toolkit ``AccessToken``, exactly what its ``OAuth2Authentication``
  would have returned: ``TokenHasScope`` and friends work unchanged, although the
  token's audience is the MCP endpoint and not the view's URL (which
  ``OAuth2Authentication``'s own resource check would compare). The token itself
  never reaches a view, and so never travels further;
* any other credential (DRF ``Token``, ``Basic``, a session): DRF's
  ``DEFAULT_AUTHENTICATION_CLASSES`` are asked, and a credential one of them
  accepts passes untouched, as before (the view authenticates it again itself);
* nothing accepted: **401**.

Every 401 and 403 carries ``WWW-Authenticate: Bearer resource_metadata="<URL>",
scope="<scopes>"`` (RFC 6750 §3, RFC 9728 §5.1), the URL being the endpoint's
Protected Resource Metadata (RFC 9728 §3.1, the path-inserted well-known URL:
``/.well-known/oauth-protected-resource/mcp/backoffice/`` for ``/mcp/backoffice/``),
served by :func:`protected_resource_metadata` once the project includes
``mcp_bridge.urls.well_known`` at the site root. A protected group whose
configuration is incomplete answers 500 and logs why; :func:`find_authorization_problems`
finds the same problems at startup (``mcp_bridge.E060``-``E066``, ``W060``-``W061``, reported by
the system check :func:`mcp_bridge.checks.check_authorization`). The setup fails closed:
while ``OAUTH_GROUPS`` protects a group that has no view (a misspelt name, whose group is then
public), every endpoint answers 500 (``mcp_bridge.E064``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any
from urllib.parse import urlsplit

from django.apps import apps
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ImproperlyConfigured
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.urls import (
    NoReverseMatch,
    Resolver404,
    get_resolver,
    get_script_prefix,
    resolve,
    reverse,
)
from rest_framework import exceptions
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.settings import api_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem
from mcp_bridge.base.protocol import INTERNAL_ERROR, INVALID_REQUEST
from mcp_bridge.toolset.registry import active_urlconf, get_url_index
from mcp_bridge.transport.answers import Refused

logger = logging.getLogger("mcp_bridge.authorization")

#: The URL name of the metadata documents (namespace of ``mcp_bridge.urls.well_known``).
METADATA_URL_NAME = "mcp_bridge_well_known:oauth-protected-resource"
_WELL_KNOWN = "/.well-known/oauth-protected-resource"
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Protection:
    """How a protected group is protected: the scopes every token must carry."""

    scopes: tuple[str, ...]


def _scopes_entry(value: Any, where: str) -> Protection | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and all(
        isinstance(scope, str) and scope and " " not in scope for scope in value
    ):
        return Protection(tuple(value))
    raise ImproperlyConfigured(
        f"settings.MCP_BRIDGE[{where}] is {value!r}: use None (a public group) or a list of "
        "OAuth scope names without spaces (a protected group)."
    )


def group_protection(group: str) -> Protection | None:
    """The :class:`Protection` of ``group``, or ``None`` when it is public.

    Raises:
        ImproperlyConfigured: ``OAUTH_GROUPS`` or ``OAUTH_DEFAULT`` holds a wrong value.
    """
    groups = bridge_settings.OAUTH_GROUPS
    if not isinstance(groups, dict):
        raise ImproperlyConfigured(
            f"settings.MCP_BRIDGE['OAUTH_GROUPS'] is {groups!r}: use a dict {{group: scopes}}."
        )
    if group in groups:
        return _scopes_entry(groups[group], f"'OAUTH_GROUPS'][{group!r}")
    return _scopes_entry(bridge_settings.OAUTH_DEFAULT, "'OAUTH_DEFAULT'")


def _origin(request: HttpRequest) -> str:
    configured = bridge_settings.OAUTH_RESOURCE_ORIGIN
    if configured:
        return str(configured).rstrip("/")
    return f"{request.scheme}://{request.get_host()}"


#: The last segment of an endpoint's OpenRPC document, which is protected as its endpoint is.
_DOCUMENT = "openrpc.json"


def _endpoint_path(path: str) -> str:
    """The path of the endpoint a request is for: its own, or its document's endpoint."""
    return path[: -len(_DOCUMENT)] if path.endswith("/" + _DOCUMENT) else path


def resource_identifier(request: HttpRequest, path: str | None = None) -> str:
    """The resource identifier (RFC 8707, RFC 9728 ``resource``) of the endpoint at ``path``
    (default: the request's own path, or for its ``openrpc.json`` the endpoint's):
    ``OAUTH_RESOURCE_ORIGIN`` or the request's origin, then the path."""
    return _origin(request) + (_endpoint_path(request.path) if path is None else path)


def _authorization_servers(request: HttpRequest) -> list[str]:
    servers = bridge_settings.OAUTH_AUTHORIZATION_SERVERS
    return [_origin(request) + server if server.startswith("/") else server for server in servers]


def _canonical(uri: str) -> tuple[str, str, int | None, str] | None:
    """``uri`` as compared for audience: scheme and host lowercased, default port made
    explicit, trailing slash ignored (as the MCP SDK compares resources)."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except (ValueError, TypeError, AttributeError):
        return None
    if not parts.scheme or not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    return (
        scheme,
        parts.hostname.lower(),
        port or _DEFAULT_PORTS.get(scheme),
        parts.path.rstrip("/"),
    )


def _issued_for(token_resources: Sequence[str], resource: str) -> bool:
    wanted = _canonical(resource)
    return wanted is not None and any(
        _canonical(candidate) == wanted for candidate in token_resources or ()
    )


# --- The challenge --------------------------------------------------------------------------------


def _quoted(value: str) -> str:
    return (
        '"'
        + value.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "")
        + '"'
    )


def _challenge(
    request: HttpRequest,
    protection: Protection,
    status: int,
    error: str | None = None,
    description: str = "",
) -> Refused:
    """A 401/403 with its ``WWW-Authenticate: Bearer`` header and a JSON-RPC error body."""
    metadata_url = _origin(request) + reverse(
        METADATA_URL_NAME, kwargs={"resource_path": _endpoint_path(request.path_info).lstrip("/")}
    )
    params = []
    if error is not None:
        params += [f"error={_quoted(error)}", f"error_description={_quoted(description)}"]
    params.append(f"resource_metadata={_quoted(metadata_url)}")
    if protection.scopes:
        params.append(f"scope={_quoted(' '.join(protection.scopes))}")
    message = (
        description
        or "Unauthorized: this endpoint needs an OAuth access token (see resource_metadata)."
    )
    return Refused(
        INVALID_REQUEST,
        message,
        status,
        headers={"WWW-Authenticate": "Bearer " + ", ".join(params)},
    )


def _misconfigured(reason: str) -> Refused:
    logger.error("MCP authorization is misconfigured: %s", reason)
    return Refused(
        INTERNAL_ERROR,
        "Internal error: this MCP endpoint is misconfigured; see the server log.",
        500,
    )


# --- The door ---------------------------------------------------------------------------------------


def authorize(request: HttpRequest, group: str) -> None:
    """Admit the request to ``group``'s endpoint, or refuse it (see the module docstring).

    Returns when the request may go on: the group is public, or the request carries an
    accepted credential (an accepted OAuth token has become the request's forced DRF
    authentication).

    Raises:
        Refused: the 401/403 challenge, or a 500 when the protection is incomplete (no
            authorization server, django-oauth-toolkit missing, the metadata URL not
            included).
        ImproperlyConfigured: a wrong ``MCP_BRIDGE`` value (as every setting does).
    """
    protection = group_protection(group)  # a wrong setting raises, as every setting does
    if bridge_settings.OAUTH_GROUPS:
        unknown = unknown_protected_groups(get_url_index(active_urlconf(request)).versions)
        if unknown:  # fail closed: the group it meant to protect may be this one
            raise _misconfigured(
                f"MCP_BRIDGE['OAUTH_GROUPS'] protects {', '.join(map(repr, unknown))}, which "
                "no view is in: every endpoint is refused until it is fixed (mcp_bridge.E064)."
            )
    if protection is None:
        return
    problem = _configuration_problem()
    if problem is not None:
        raise _misconfigured(problem)
    try:
        scheme, _, credentials = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
        if scheme.lower() == "bearer":
            _admit_bearer(request, protection, credentials.strip())
        elif not _static_credential_accepted(request):
            raise _challenge(request, protection, 401)
    except NoReverseMatch:
        raise _misconfigured(
            "the Protected Resource Metadata URL cannot be reversed: add "
            'path("", include(mcp_bridge.urls.well_known)) to the root URLconf (mcp_bridge.E060).'
        ) from None


def _configuration_problem() -> str | None:
    if not bridge_settings.OAUTH_AUTHORIZATION_SERVERS:
        return "a group is protected but MCP_BRIDGE['OAUTH_AUTHORIZATION_SERVERS'] is empty (mcp_bridge.E061)."
    if find_spec("oauth2_provider") is None or not apps.is_installed("oauth2_provider"):
        return (
            "a group is protected but django-oauth-toolkit, which validates the tokens, is not in "
            "INSTALLED_APPS (mcp_bridge.E062)."
        )
    return None


def _admit_bearer(request: HttpRequest, protection: Protection, token: str) -> None:
    # django-oauth-toolkit needs the app registry: imported here, once it is ready, and only
    # by projects that protect a group (it is an optional dependency).
    from oauth2_provider.settings import oauth2_settings
    from oauthlib.common import Request as OAuthlibRequest

    resource = resource_identifier(request)
    core_request = OAuthlibRequest(resource)
    # Its validator knows expiry, revocation (a revoked token is deleted), the hashed storage
    # and the introspection of a remote authorization server. Scopes are checked below, so
    # that a missing scope gets its own 403.
    valid = bool(token) and oauth2_settings.OAUTH2_VALIDATOR_CLASS().validate_bearer_token(
        token, [], core_request
    )
    access_token = getattr(core_request, "access_token", None) if valid else None
    if access_token is None:
        raise _challenge(
            request,
            protection,
            401,
            "invalid_token",
            "The access token is invalid, expired or revoked.",
        )
    # RFC 8707 and the MCP spec: a token is accepted only by the resource it was issued for.
    # A token without any resource was issued for every server, so not for this one.
    if not _issued_for(access_token.resource, resource):
        raise _challenge(
            request,
            protection,
            401,
            "invalid_token",
            "The access token was not issued for this resource.",
        )
    user = access_token.user
    if user is None or not user.is_active:
        raise _challenge(
            request, protection, 401, "invalid_token", "The access token has no active user."
        )
    if not access_token.allow_scopes(protection.scopes):
        raise _challenge(
            request,
            protection,
            403,
            "insufficient_scope",
            f"The access token lacks the scopes {' '.join(protection.scopes)}.",
        )
    _become(request, user, access_token)


def _become(request: HttpRequest, user: Any, access_token: Any) -> None:
    """Make the token's user and token the request's DRF authentication, and drop the token."""
    del request.META["HTTP_AUTHORIZATION"]
    request.__dict__.pop("headers", None)  # request.headers is cached from META
    request._force_auth_user = user  # type: ignore[attr-defined]
    request._force_auth_token = access_token  # type: ignore[attr-defined]
    request.user = user

    async def auser() -> Any:
        return user

    request.auser = auser


class _BodyLeftUnread(BaseParser):
    """The parser of the authenticators' request: SessionAuthentication's CSRF check asks for
    ``request.POST``, and the JSON-RPC body must stay unread for the transport."""

    media_type = "*/*"

    def parse(
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> dict[str, Any]:
        return {}


def _static_credential_accepted(request: HttpRequest) -> bool:
    """Whether one of DRF's default authenticators accepts the request's credential."""
    authenticators = [cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]  # type: ignore[operator]
    # DRF's Request writes the user it finds onto the wrapped request; the view authenticates
    # again on its own request, so the MCP request is left as it came.
    saved: dict[str, Any] = {
        name: request.__dict__[name] for name in ("user", "auth") if name in request.__dict__
    }
    try:
        drf_request = Request(request, parsers=[_BodyLeftUnread()], authenticators=authenticators)
        return bool(drf_request.user.is_authenticated)
    except exceptions.PermissionDenied:
        # SessionAuthentication's CSRF refusal: the session was recognised, and the view
        # answers the call with the same refusal, as it always did.
        return True
    except exceptions.APIException:  # AuthenticationFailed: a wrong or inactive credential
        return False
    finally:
        for name in ("user", "auth"):
            request.__dict__.pop(name, None)
        request.__dict__.update(saved)


# --- RFC 9728 Protected Resource Metadata --------------------------------------------------------


@login_not_required  # public by RFC 9728, fetched before any sign-in
def protected_resource_metadata(
    request: HttpRequest, resource_path: str, endpoint: Callable[..., Any]
) -> HttpResponse:
    """``GET /.well-known/oauth-protected-resource/<endpoint path>``: the metadata of a protected endpoint.

    ``endpoint`` is the MCP endpoint view (:func:`mcp_bridge.transport.endpoint.mcp_endpoint`), given by
    ``mcp_bridge.urls.well_known``: the path must resolve to it, for a protected group.

    Returns:
        ``{"resource", "authorization_servers", "scopes_supported", "bearer_methods_supported"}``
        (RFC 9728 §2), with ``Access-Control-Allow-Origin: *`` for browser-based clients.

    Raises:
        Http404: the path is not the endpoint of a protected group.
    """
    if request.method not in ("GET", "HEAD"):
        response = HttpResponse(status=405)
        response["Allow"] = "GET, HEAD"
        return response
    path = "/" + resource_path
    try:
        match = resolve(path, getattr(request, "urlconf", None))
    except Resolver404:
        raise Http404("No MCP endpoint at this path.") from None
    if match.func is not endpoint:
        raise Http404("No MCP endpoint at this path.")
    protection = group_protection(match.kwargs["group"])
    if protection is None:
        raise Http404("This MCP endpoint is public.")
    document = {
        "resource": resource_identifier(
            request, request.path[: len(request.path) - len(request.path_info)] + path
        ),
        "authorization_servers": _authorization_servers(request),
        "scopes_supported": list(protection.scopes),
        "bearer_methods_supported": ["header"],
    }
    response = JsonResponse(document)
    response["Access-Control-Allow-Origin"] = "*"
    return response


# --- Configuration problems (reported by the system checks) ------------------------------------------


def find_authorization_problems(
    endpoint: Callable[..., Any], groups: dict[str, list[str | None]]
) -> list[Problem]:
    """The configuration of MCP authorization: ``mcp_bridge.E060``-``E066``, ``W060``-``W061``.

    Args:
        endpoint: the MCP endpoint view, whose mounts in the URLconf must all have their
            metadata served.
        groups: every group's versions, from the registry
            (:func:`mcp_bridge.checks.check_authorization` passes both).
    """
    problems: list[Problem] = []
    protected: dict[str, Protection] = {}
    for group in sorted(set(groups) | set(bridge_settings.OAUTH_GROUPS or {})):
        try:
            protection = group_protection(group)
        except ImproperlyConfigured as exc:
            problems.append(Problem("mcp_bridge.E063", str(exc), "See docs/authorization.md."))
            return problems
        if protection is not None:
            protected[group] = protection
        if group in groups:
            continue
        if protection is not None:
            del protected[group]
            problems.append(_unknown_protected_group_problem(group, groups))
        else:  # a public entry naming no group leaves nothing open
            problems.append(
                Problem(
                    "mcp_bridge.W060",
                    f"MCP_BRIDGE['OAUTH_GROUPS'] makes the group {group!r} public, but it has no view.",
                    f"Known groups: {', '.join(groups) or 'none'}. Fix the name or remove the entry.",
                )
            )
    if not protected:
        return problems
    if not bridge_settings.OAUTH_AUTHORIZATION_SERVERS:
        problems.append(
            Problem(
                "mcp_bridge.E061",
                f"The groups {', '.join(protected)} are protected, but no authorization server is named.",
                'Set MCP_BRIDGE["OAUTH_AUTHORIZATION_SERVERS"], e.g. ["/o"] for django-oauth-toolkit at o/.',
            )
        )
    if find_spec("oauth2_provider") is None or not apps.is_installed("oauth2_provider"):
        problems.append(
            Problem(
                "mcp_bridge.E062",
                "Protected groups need django-oauth-toolkit to validate their tokens.",
                'pip install "django-mcp-bridge[oauth]" (or django-oauth-toolkit) and add '
                '"oauth2_provider" to INSTALLED_APPS.',
            )
        )
    else:
        problems += _unknown_scopes(protected)
        problems += _unrouted_local_server()
    problems += _missing_metadata(protected, _endpoint_paths(endpoint, protected, groups))
    return problems


def unknown_protected_groups(groups: Any) -> list[str]:
    """The groups ``OAUTH_GROUPS`` protects (scopes, not ``None``) that have no view.

    Such an entry is a misspelt name, most often: the group it meant to protect is public.
    The bridge fails closed on it (``mcp_bridge.E064``): every endpoint answers 500 until it
    is fixed.
    """
    entries = bridge_settings.OAUTH_GROUPS
    if not isinstance(entries, dict):
        return []  # E063, raised by group_protection
    return sorted(
        group for group, scopes in entries.items() if scopes is not None and group not in groups
    )


def _unknown_protected_group_problem(group: str, groups: Any) -> Problem:
    return Problem(
        "mcp_bridge.E064",
        f"MCP_BRIDGE['OAUTH_GROUPS'] protects the group {group!r}, which has no view: the group "
        "it was meant to protect may be public. Every MCP endpoint answers HTTP 500 until it "
        "is fixed.",
        f"Known groups: {', '.join(groups) or 'none'}. Fix the name (`manage.py mcp_tools` lists "
        "the groups), or remove the entry.",
    )


def local_issuer_paths() -> list[str]:
    """The paths of the ``OAUTH_AUTHORIZATION_SERVERS`` this project serves itself: an entry
    starting with ``/``, or one on ``OAUTH_RESOURCE_ORIGIN``."""
    origin = str(bridge_settings.OAUTH_RESOURCE_ORIGIN or "").rstrip("/")
    paths = []
    for server in bridge_settings.OAUTH_AUTHORIZATION_SERVERS:
        if server.startswith("/"):
            paths.append(server.rstrip("/"))
        elif origin and (server == origin or server.startswith(origin + "/")):
            paths.append(server[len(origin) :].rstrip("/"))
    return paths


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def _serves_metadata(path: str) -> bool:
    """Whether ``path`` is routed to a view that answers it: django-oauth-toolkit routes
    OpenID Connect discovery below its prefix whatever its settings, and answers 404 there
    unless ``OIDC_ENABLED``."""
    from oauth2_provider.settings import oauth2_settings
    from oauth2_provider.views.mixins import OIDCOnlyMixin

    try:
        match = resolve(path)
    except Resolver404:
        return False
    view_class = getattr(match.func, "view_class", None)
    oidc_only = isinstance(view_class, type) and issubclass(view_class, OIDCOnlyMixin)
    return not oidc_only or bool(oauth2_settings.OIDC_ENABLED)


def _unrouted_local_server() -> list[Problem]:
    """E065/E066: a local authorization server whose metadata or sign-in URLs are not routed.

    A client finds the server's metadata at the URLs the MCP SDKs try (RFC 8414 §3.1's
    path-inserted ``/.well-known/oauth-authorization-server<issuer path>``, then OpenID
    Connect discovery), and signs in at django-oauth-toolkit's ``authorize/`` and ``token/``
    below the issuer. Without them, sign-in fails in the client, far from the cause.
    """
    problems = []
    for issuer in local_issuer_paths():
        metadata_urls = [
            f"/.well-known/oauth-authorization-server{issuer}",
            f"/.well-known/openid-configuration{issuer}",
            f"{issuer}/.well-known/openid-configuration",
        ]
        if not any(_serves_metadata(url) for url in metadata_urls):
            problems.append(
                Problem(
                    "mcp_bridge.E065",
                    f"The local authorization server {issuer or '/'!r} publishes no metadata at "
                    f"{metadata_urls[0]} (nor by OpenID Connect discovery): clients cannot find "
                    "where to sign in.",
                    "Mount django-oauth-toolkit's metadata at the site root: "
                    'path(".well-known/oauth-authorization-server/<path:issuer_path>", '
                    "oauth2_provider.views.OAuthServerMetadataView.as_view()), or "
                    'path("", include(oauth2_provider.urls.metadata_urlpatterns)); see docs/authorization.md.',
                    issuer or "/",
                )
            )
        unrouted = [
            url for url in (f"{issuer}/authorize/", f"{issuer}/token/") if not _resolves(url)
        ]
        if unrouted:
            problems.append(
                Problem(
                    "mcp_bridge.E066",
                    f"The local authorization server {issuer or '/'!r} has no {' and no '.join(unrouted)} "
                    "URL: clients cannot sign in or get a token.",
                    f'Include django-oauth-toolkit at the issuer\'s path: path("{issuer.lstrip("/")}/", '
                    'include("oauth2_provider.urls", namespace="oauth2_provider")), or correct '
                    'MCP_BRIDGE["OAUTH_AUTHORIZATION_SERVERS"].',
                    issuer or "/",
                )
            )
    return problems


def _unknown_scopes(protected: dict[str, Protection]) -> list[Problem]:
    from oauth2_provider.settings import oauth2_settings

    available = set(oauth2_settings.SCOPES_BACKEND_CLASS().get_all_scopes())
    return [
        Problem(
            "mcp_bridge.W061",
            f"Group {group!r} requires the scope {scope!r}, which django-oauth-toolkit does not know.",
            'Add it to OAUTH2_PROVIDER["SCOPES"], or no token will ever carry it.',
        )
        for group, protection in protected.items()
        for scope in protection.scopes
        if scope not in available
    ]


def _endpoint_paths(
    endpoint: Callable[..., Any],
    protected: dict[str, Protection],
    groups: dict[str, list[str | None]],
) -> list[tuple[str, str]]:
    """``(group, path)`` of every endpoint of a protected group in the root URLconf."""
    paths = []
    for group in protected:  # include("mcp_bridge.urls")
        for version in groups.get(group, []):
            name, kwargs = (
                ("mcp_bridge:endpoint", {"group": group})
                if version is None
                else ("mcp_bridge:endpoint-version", {"group": group, "version": version})
            )
            try:
                paths.append((group, reverse(name, kwargs=kwargs)))
            except NoReverseMatch:
                pass
    # mcp_bridge.urls.endpoint() mounts: unnamed, reversible by their view, the group fixed.
    for possibilities, _pattern, defaults, _converters in get_resolver().reverse_dict.getlist(
        endpoint
    ):
        group = defaults.get("group")
        for template, params in possibilities:
            if group in protected and not params:
                paths.append((group, get_script_prefix() + template))
    return paths


def _missing_metadata(
    protected: dict[str, Protection], paths: list[tuple[str, str]]
) -> list[Problem]:
    hint = (
        'Add path("", include(mcp_bridge.urls.well_known)) to the root URLconf, before any other '
        '".well-known/" pattern (django-oauth-toolkit\'s metadata_urlpatterns included).'
    )
    problems: list[Problem] = []
    for group, path in paths:
        try:
            match = resolve(_WELL_KNOWN + path)
        except Resolver404:
            match = None
        if match is None or match.func is not protected_resource_metadata:
            problems.append(
                Problem(
                    "mcp_bridge.E060",
                    f"The Protected Resource Metadata of {path} is not served at {_WELL_KNOWN}{path}: "
                    "clients cannot find how to sign in.",
                    hint,
                    group,
                )
            )
    return problems
