"""MCP authorization (mcp_bridge.transport.authorization) against real components: django-oauth-toolkit as
the authorization server, real HTTP (live_server), the demo's users, and the official MCP Python
client's OAuth support running the whole flow (discovery from the 401, dynamic client
registration, authorization code + PKCE through Django's login page and the consent page,
tokens, refresh).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import anyio
import httpx2
import pytest
from django.core import checks
from django.core.management import call_command
from django.utils import timezone
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from oauth2_provider.models import get_access_token_model

from demo_project.shop.demo_data import DEMO_PASSWORDS, DEMO_TOKENS
from mcp_bridge.checks import check_authorization, check_setup
from tests.mcp_client import (
    ACCEPT,
    HANDSHAKE,
    McpClient,
    initialize_params,
    message,
    tool_call,
)

pytestmark = pytest.mark.django_db(transaction=True)

PROTECTED = {"backoffice": ["backoffice"], "orders": ["orders"], "oauthview": ["backoffice"]}
REDIRECT_URI = "http://localhost:3030/callback"


@pytest.fixture
def server(live_server, settings) -> str:
    # Every test signs in several times: a fast hasher keeps that from dominating the run.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("load_demo_data", verbosity=0)
    settings.ROOT_URLCONF = "tests.oauth_urls"
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "OAUTH_GROUPS": PROTECTED,
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    return live_server.url


# --- A browser, signed in as a demo user -----------------------------------------------------------


class _Form(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "input" and named.get("type") == "hidden" and named.get("name"):
            self.fields[named["name"]] = named.get("value") or ""


def _hidden_fields(html: str) -> dict[str, str]:
    form = _Form()
    form.feed(html)
    return form.fields


class Browser:
    """What the user's browser does: Django's login form, then the consent page."""

    def __init__(self, base: str, username: str) -> None:
        self.http = httpx2.AsyncClient(base_url=base, timeout=30)
        self.username = username

    async def sign_in(self) -> None:
        page = await self.http.get("/accounts/login/")
        assert page.status_code == 200
        answer = await self.http.post(
            "/accounts/login/",
            data={
                **_hidden_fields(page.text),
                "username": self.username,
                "password": DEMO_PASSWORDS[self.username],
                "next": "/accounts/login/",
            },
        )
        assert answer.status_code == 302, answer.text

    async def allow(self, authorization_url: str) -> str:
        """Open the authorization URL, allow on the consent page, and return where it redirects."""
        page = await self.http.get(authorization_url)
        assert page.status_code == 200, page.text
        fields = _hidden_fields(page.text)
        answer = await self.http.post(authorization_url, data={**fields, "allow": "Authorize"})
        assert answer.status_code == 302, answer.text
        return answer.headers["location"]

    async def consent(self, authorization_url: str) -> dict[str, str]:
        """:meth:`allow`, then the query parameters of the redirect to :data:`REDIRECT_URI`."""
        location = await self.allow(authorization_url)
        assert location.startswith(REDIRECT_URI)
        return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def _provider(url: str, browser: Browser, storage: MemoryStorage) -> OAuthClientProvider:
    redirected: dict[str, str] = {}

    async def redirect_handler(authorization_url: str) -> None:
        redirected.clear()
        redirected.update(await browser.consent(authorization_url))

    async def callback_handler() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(
            code=redirected["code"], state=redirected.get("state"), iss=redirected.get("iss")
        )

    return OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="mcp_bridge tests",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )


# --- The whole flow with the official MCP Python client --------------------------------------------


@pytest.mark.parametrize(
    "mode,negotiated", [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")]
)
def test_python_client_signs_in_and_calls_backoffice_tools(server, mode, negotiated):
    url = f"{server}/mcp/backoffice/"

    async def main():
        browser = Browser(server, "alice")
        storage = MemoryStorage()
        await browser.sign_in()
        async with (
            httpx2.AsyncClient(auth=_provider(url, browser, storage), timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            tools = (await client.list_tools()).tools
            stats = await client.call_tool("shop_stats", {})
            version = client.session.protocol_version
        await browser.http.aclose()
        return version, [t.name for t in tools], stats, storage

    version, names, stats, storage = anyio.run(main)
    assert version == negotiated
    assert "shop_stats" in names
    assert stats.is_error is False
    data = (
        stats.structured_content
        if negotiated == "2026-07-28"
        else stats.structured_content["result"]
    )
    assert data["products"] > 0
    # Registered dynamically, and the token was issued for this endpoint, as alice, with the scope.
    assert storage.client_info is not None and storage.client_info.client_id
    # (The other token of the client is DCR's registration access token, RFC 7592: no user.)
    token = (
        get_access_token_model()
        .objects.select_related("user")
        .get(application__client_id=storage.client_info.client_id, user__isnull=False)
    )
    assert (
        token.user.username == "alice" and token.scope == "backoffice" and token.resource == [url]
    )


def test_python_client_non_staff_user_is_refused_by_the_view(server):
    url = f"{server}/mcp/backoffice/"

    async def main():
        browser = Browser(server, "bob")
        await browser.sign_in()
        async with (
            httpx2.AsyncClient(auth=_provider(url, browser, MemoryStorage()), timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
        ):
            return await client.call_tool("shop_stats", {})

    refused = anyio.run(main)
    # The endpoint admitted bob's token; the view's IsAdminUser refused him, as over REST.
    assert refused.is_error is True and json.loads(refused.content[0].text)["code"] == 403


def test_demo_client_login(server, monkeypatch, capsys):
    from demo_project import mcp_client

    def browser_opens(authorization_url: str) -> bool:
        # The user's browser, signed in as alice: allows, then follows the redirect to the
        # client's loopback callback. In a thread, as a browser is another process.
        async def act() -> None:
            browser = Browser(server, "alice")
            await browser.sign_in()
            location = await browser.allow(authorization_url)
            assert location.startswith("http://127.0.0.1:")
            async with httpx2.AsyncClient(timeout=30) as loopback:
                assert (await loopback.get(location)).status_code == 200
            await browser.http.aclose()

        threading.Thread(target=anyio.run, args=(act,)).start()
        return True

    monkeypatch.setattr(mcp_client.webbrowser, "open", browser_opens)
    status = mcp_client.main([f"{server}/mcp/backoffice/", "--login", "call", "shop_stats"])
    assert status == 0
    assert '"products"' in capsys.readouterr().out


# --- Tokens issued through the real endpoints, for the challenges ----------------------------------


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    )
    return verifier, challenge


def issue(
    server: str,
    username: str = "alice",
    scope: str = "backoffice",
    resource: str | None = "backoffice",
) -> dict[str, Any]:
    """An access token from the authorization server (DCR, authorization code + PKCE), as JSON."""
    resource_url = f"{server}/mcp/{resource}/" if resource else None

    async def main():
        browser = Browser(server, username)
        await browser.sign_in()
        registered = (
            await browser.http.post(
                "/o/register/",
                json={
                    "redirect_uris": [REDIRECT_URI],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "token_endpoint_auth_method": "none",
                    "client_name": "t",
                },
            )
        ).json()
        verifier, challenge = _pkce()
        query = {
            "response_type": "code",
            "client_id": registered["client_id"],
            "redirect_uri": REDIRECT_URI,
            "scope": scope,
            "state": "s",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
        if resource_url:
            query["resource"] = resource_url
        redirect = await browser.consent("/o/authorize/?" + urlencode(query))
        form = {
            "grant_type": "authorization_code",
            "code": redirect["code"],
            "redirect_uri": REDIRECT_URI,
            "client_id": registered["client_id"],
            "code_verifier": verifier,
        }
        if resource_url:
            form["resource"] = resource_url
        answer = await browser.http.post("/o/token/", data=form)
        assert answer.status_code == 200, answer.text
        await browser.http.aclose()
        return {**answer.json(), "client_id": registered["client_id"]}

    return anyio.run(main)


def mcp(server: str, path: str, token: str | None = None, scheme: str = "Bearer") -> McpClient:
    """The MCP test client of ``path`` on the live server, with ``Authorization: <scheme>
    <token>`` when a token is given."""
    return McpClient(server, path, Authorization=None if token is None else f"{scheme} {token}")


def challenge(response: httpx2.Response) -> dict[str, str]:
    scheme, _, params = response.headers["www-authenticate"].partition(" ")
    assert scheme == "Bearer"
    return {
        key.strip(): value.strip().strip('"')
        for key, _, value in (part.partition("=") for part in params.split('", '))
    }


def test_anonymous_request_gets_the_challenge_and_the_metadata_names_the_endpoint(server):
    answer = mcp(server, "/mcp/backoffice/").initialize()
    assert answer.status_code == 401
    params = challenge(answer)
    assert "error" not in params and params["scope"] == "backoffice"
    assert (
        params["resource_metadata"]
        == f"{server}/.well-known/oauth-protected-resource/mcp/backoffice/"
    )
    document = httpx2.get(params["resource_metadata"]).json()
    assert document == {
        "resource": f"{server}/mcp/backoffice/",
        "authorization_servers": [f"{server}/o"],
        "scopes_supported": ["backoffice"],
        "bearer_methods_supported": ["header"],
    }
    # The authorization server's own metadata (RFC 8414) at the path-inserted URL clients try first.
    issuer = httpx2.get(f"{server}/.well-known/oauth-authorization-server/o").json()
    assert issuer["issuer"] == f"{server}/o" and issuer["code_challenge_methods_supported"] == [
        "S256"
    ]
    assert issuer["registration_endpoint"] == f"{server}/o/register/"
    assert issuer["client_id_metadata_document_supported"] is True


def test_public_group_and_unprotected_paths_are_unaffected(server):
    answer = mcp(server, "/mcp/catalog/").initialize()
    assert answer.status_code == 200 and answer.json()["result"]["protocolVersion"] == "2025-11-25"
    assert (
        httpx2.get(f"{server}/.well-known/oauth-protected-resource/mcp/catalog/").status_code == 404
    )
    assert (
        httpx2.get(f"{server}/.well-known/oauth-protected-resource/api/stats/").status_code == 404
    )


def test_invalid_expired_and_wrong_audience_tokens_get_invalid_token(server):
    assert (
        challenge(mcp(server, "/mcp/backoffice/", "not-a-token").initialize())["error"]
        == "invalid_token"
    )

    issued = issue(server)
    assert mcp(server, "/mcp/backoffice/", issued["access_token"]).initialize().status_code == 200
    get_access_token_model().objects.filter(application__client_id=issued["client_id"]).update(
        expires=timezone.now() - timedelta(seconds=1)
    )
    expired = mcp(server, "/mcp/backoffice/", issued["access_token"]).initialize()
    assert expired.status_code == 401 and challenge(expired)["error"] == "invalid_token"

    for_orders = issue(server, scope="backoffice orders", resource="orders")
    assert mcp(server, "/mcp/orders/", for_orders["access_token"]).initialize().status_code == 200
    elsewhere = mcp(server, "/mcp/backoffice/", for_orders["access_token"]).initialize()
    assert elsewhere.status_code == 401 and challenge(elsewhere)["error"] == "invalid_token"

    unrestricted = issue(server, resource=None)  # issued for every resource, so not for this one
    assert (
        challenge(mcp(server, "/mcp/backoffice/", unrestricted["access_token"]).initialize())[
            "error"
        ]
        == "invalid_token"
    )


def test_missing_scope_gets_403_insufficient_scope(server):
    issued = issue(server, scope="orders")
    answer = mcp(server, "/mcp/backoffice/", issued["access_token"]).initialize()
    assert answer.status_code == 403
    params = challenge(answer)
    assert params["error"] == "insufficient_scope" and params["scope"] == "backoffice"


def test_refreshed_token_works_and_revoked_token_does_not(server):
    issued = issue(server)
    refreshed = httpx2.post(
        f"{server}/o/token/",
        data={
            "grant_type": "refresh_token",
            "refresh_token": issued["refresh_token"],
            "client_id": issued["client_id"],
        },
    )
    assert refreshed.status_code == 200, refreshed.text
    token = refreshed.json()["access_token"]
    assert token != issued["access_token"]
    assert mcp(server, "/mcp/backoffice/", token).initialize().status_code == 200

    revoked = httpx2.post(
        f"{server}/o/revoke_token/", data={"token": token, "client_id": issued["client_id"]}
    )
    assert revoked.status_code == 200
    answer = mcp(server, "/mcp/backoffice/", token).initialize()
    assert answer.status_code == 401 and challenge(answer)["error"] == "invalid_token"


def test_static_credentials_work_as_before(server):
    call = ("tools/call", tool_call("shop_stats"))
    staff = mcp(server, "/mcp/backoffice/", DEMO_TOKENS["alice"], scheme="Token").request(*call)
    assert staff.status_code == 200 and staff.json()["result"]["isError"] is False
    customer = mcp(server, "/mcp/backoffice/", DEMO_TOKENS["bob"], scheme="Token").request(*call)
    assert (
        customer.status_code == 200
        and json.loads(customer.json()["result"]["content"][0]["text"])["code"] == 403
    )
    wrong = mcp(server, "/mcp/backoffice/", "0" * 40, scheme="Token").initialize()
    assert wrong.status_code == 401 and "error" not in challenge(wrong)
    # Basic is not among the demo's DRF authentication classes: challenged, as the view would refuse it.
    basic = base64.b64encode(f"alice:{DEMO_PASSWORDS['alice']}".encode()).decode()
    assert mcp(server, "/mcp/backoffice/", basic, scheme="Basic").request(*call).status_code == 401


def test_basic_credential_passes_where_drf_accepts_it(server, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.BasicAuthentication",
            "rest_framework.authentication.TokenAuthentication",
        ],
    }
    basic = base64.b64encode(f"alice:{DEMO_PASSWORDS['alice']}".encode()).decode()
    answer = mcp(server, "/mcp/backoffice/", basic, scheme="Basic").request("tools/list", id=2)
    assert answer.status_code == 200 and answer.json()["result"]["tools"]
    wrong = base64.b64encode(b"alice:wrong").decode()
    refused = mcp(server, "/mcp/backoffice/", wrong, scheme="Basic").request("tools/list", id=2)
    assert refused.status_code == 401


def test_session_credential_passes(server):
    async def main():
        browser = Browser(server, "alice")
        await browser.sign_in()
        # The browser's own httpx2 client: it carries the session cookie.
        answer = await browser.http.post(
            "/mcp/backoffice/",
            headers={"Accept": ACCEPT, "MCP-Protocol-Version": HANDSHAKE},
            json=message("initialize", initialize_params(HANDSHAKE)),
        )
        await browser.http.aclose()
        return answer

    assert anyio.run(main).status_code == 200


def test_view_with_oauth2_authentication_and_token_has_scope_works_through_a_tool(server):
    issued = issue(server, resource="oauthview")
    answer = mcp(server, "/mcp/oauthview/", issued["access_token"]).call("whoami")
    assert answer["isError"] is False, answer
    assert answer["structuredContent"]["result"] == {"username": "alice", "scopes": ["backoffice"]}
    # Over REST the same token is refused by the view's own resource check: its audience is the
    # MCP endpoint, not /whoami/.
    rest = httpx2.get(
        f"{server}/whoami/", headers={"Authorization": f"Bearer {issued['access_token']}"}
    )
    assert rest.status_code in (401, 403)


def test_endpoint_mounted_at_a_path_of_ones_choice(server):
    answer = mcp(server, "/mcp-backoffice/").initialize()
    assert answer.status_code == 401
    metadata_url = challenge(answer)["resource_metadata"]
    assert metadata_url == f"{server}/.well-known/oauth-protected-resource/mcp-backoffice/"
    assert httpx2.get(metadata_url).json()["resource"] == f"{server}/mcp-backoffice/"
    token = issue(server)["access_token"]  # issued for /mcp/backoffice/
    assert (
        challenge(mcp(server, "/mcp-backoffice/", token).initialize())["error"] == "invalid_token"
    )
    assert (
        mcp(server, "/mcp-backoffice/", DEMO_TOKENS["alice"], scheme="Token")
        .initialize()
        .status_code
        == 200
    )
    # The OpenRPC document describes every tool: it needs the endpoint's credential too.
    anonymous = httpx2.get(f"{server}/mcp-backoffice/openrpc.json")
    assert anonymous.status_code == 401
    assert challenge(anonymous)["resource_metadata"] == metadata_url
    openrpc = httpx2.get(
        f"{server}/mcp-backoffice/openrpc.json",
        headers={"Authorization": f"Token {DEMO_TOKENS['alice']}"},
    ).json()
    assert "shop_stats" in [method["name"] for method in openrpc["methods"]]


# --- System checks ---------------------------------------------------------------------------------


def _ids(messages: list[checks.CheckMessage]) -> list[str]:
    return sorted(message.id for message in messages)


def test_checks_find_the_missing_well_known_include_and_settings(settings):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"backoffice": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    settings.ROOT_URLCONF = "tests.oauth_urls"
    assert _ids(check_authorization()) == []
    settings.ROOT_URLCONF = "tests.urls"  # no mcp_bridge.urls.well_known, no o/
    assert _ids(check_authorization()) == [
        "mcp_bridge.E060",
        "mcp_bridge.E065",
        "mcp_bridge.E066",
    ]
    settings.MCP_BRIDGE = {"OAUTH_GROUPS": {"backoffice": ["nope"], "ghost": None}}
    assert _ids(check_authorization()) == [
        "mcp_bridge.E060",
        "mcp_bridge.E061",
        "mcp_bridge.W060",
        "mcp_bridge.W061",
    ]
    settings.MCP_BRIDGE = {"OAUTH_DEFAULT": ["back office"]}  # a scope name with a space
    assert _ids(check_authorization()) == ["mcp_bridge.E063"]
    # A value of the wrong type is the key's own settings check (E063 before each key had its
    # own id), reported once by check_setup: check_authorization does not repeat it.
    settings.MCP_BRIDGE = {"OAUTH_DEFAULT": "backoffice"}
    assert _ids(check_setup()) == ["mcp_bridge.E252"] and _ids(check_authorization()) == []
    settings.MCP_BRIDGE = {}
    assert _ids(check_authorization()) == []


def test_check_finds_the_missing_include_for_an_endpoint_mounted_at_its_own_path(settings):
    settings.MCP_BRIDGE = {
        "OAUTH_GROUPS": {"backoffice": ["backoffice"]},
        "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    }
    settings.ROOT_URLCONF = (
        "tests.oauth_urls_mounted"  # only mcp_bridge.urls.endpoint("backoffice")
    )
    errors = {message.id: message for message in check_authorization()}
    assert sorted(errors) == ["mcp_bridge.E060", "mcp_bridge.E065", "mcp_bridge.E066"]  # no o/
    assert "/mcp-backoffice/" in errors["mcp_bridge.E060"].msg


def test_misconfigured_protection_answers_500(server, settings):
    settings.MCP_BRIDGE = {"OAUTH_GROUPS": PROTECTED}  # no authorization server
    assert mcp(server, "/mcp/backoffice/").initialize().status_code == 500
    settings.MCP_BRIDGE = {"OAUTH_GROUPS": PROTECTED, "OAUTH_AUTHORIZATION_SERVERS": ["/o"]}
    settings.ROOT_URLCONF = "tests.urls"
    assert mcp(server, "/mcp/backoffice/").initialize().status_code == 500


def test_project_default_protects_unlisted_groups_and_origin_is_configurable(client, settings):
    settings.ROOT_URLCONF = "tests.oauth_urls"
    settings.MCP_BRIDGE = {
        "OAUTH_DEFAULT": ["shop"],
        "OAUTH_GROUPS": {"catalog": None},
        "OAUTH_AUTHORIZATION_SERVERS": ["https://auth.example.com/tenant"],
        "OAUTH_RESOURCE_ORIGIN": "https://api.example.com",
    }
    answer = McpClient(client, "/mcp/orders/").initialize()
    assert answer.status_code == 401
    params = challenge(answer)
    assert params["scope"] == "shop"
    assert (
        params["resource_metadata"]
        == "https://api.example.com/.well-known/oauth-protected-resource/mcp/orders/"
    )
    document = client.get("/.well-known/oauth-protected-resource/mcp/orders/").json()
    assert document["resource"] == "https://api.example.com/mcp/orders/"
    assert document["authorization_servers"] == ["https://auth.example.com/tenant"]
    assert McpClient(client, "/mcp/catalog/").initialize().status_code == 200
