"""``manage.py mcp_stdio <group>``: serve one API group over the MCP stdio transport.

For desktop clients that launch a local process (MCP spec, "Transports →
stdio"): newline-delimited JSON-RPC messages on stdin, responses on stdout,
logs on stderr. The tools and the execution path are the HTTP endpoint's: each
call runs the real DRF view. The caller's identity is the ``--user`` given
(DRF's forced authentication, the same mechanism as ``APIClient.force_authenticate``);
without it, calls are anonymous.

Examples::

    manage.py mcp_stdio catalog
    manage.py mcp_stdio backoffice --user alice
    manage.py mcp_stdio catalog --api-version v2
    manage.py mcp_stdio catalog --language uk
    manage.py mcp_stdio catalog --schema portable   # schemas for clients that refuse $ref

Both protocol eras work: ``initialize`` starts a handshake-era session, and a
request whose ``params._meta`` names 2026-07-28 is served statelessly (stdio
has no headers, so the envelope's header checks do not apply).
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, TextIO

from django.contrib.auth import get_user_model
from django.core import signals
from django.core.management.base import BaseCommand, CommandError
from django.http import HttpRequest

from mcp_bridge.base.conf import SettingError
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.protocol import (
    DEFAULT_HEADER_REVISION,
    HANDSHAKE_REVISIONS,
    MODERN_REVISIONS,
    PARSE_ERROR,
    PROTOCOL_VERSION_META_KEY,
    JsonRpcError,
)
from mcp_bridge.build.translation import negotiate_language
from mcp_bridge.dispatch.methods import Call, handle_message
from mcp_bridge.schemas.profiles import PROFILES
from mcp_bridge.toolcall.events import deliver_pending
from mcp_bridge.toolset.guards import refuse_unknown_names
from mcp_bridge.toolset.registry import (
    UnknownEndpoint,
    get_toolset,
    resolve_version,
)
from mcp_bridge.transport.batch import handle_batch


class Command(BaseCommand):
    help = "Serve one API group as an MCP server over stdio (newline-delimited JSON-RPC)."
    requires_system_checks: list[str] = []  # the tools are built (and checked) below

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("group", help="the API group to serve")
        parser.add_argument(
            "--api-version", dest="api_version", help="the API version (versioned groups)"
        )
        parser.add_argument(
            "--user", help="run every call as this user (username); anonymous if omitted"
        )
        parser.add_argument(
            "--language",
            help="the language of the tool texts, negotiated as the HTTP endpoint negotiates "
            "Accept-Language (de-at falls back to de); default: LANGUAGE_CODE",
        )
        parser.add_argument(
            "--schema",
            choices=PROFILES,
            dest="schema_profile",
            help="how tool schemas are written (mcp_bridge.schemas.profiles); default: the SCHEMA_PROFILE setting",
        )
        parser.add_argument(
            "--host",
            default="localhost",
            help="the Host the views see (absolute URLs in results); must be in ALLOWED_HOSTS",
        )

    def handle(
        self,
        *args: Any,
        group: str,
        api_version: str | None,
        user: str | None,
        host: str,
        language: str | None,
        schema_profile: str | None = None,
        **options: Any,
    ) -> None:
        try:
            # The version the endpoint serves for it: DRF's DEFAULT_VERSION when none is named.
            api_version = resolve_version(group, api_version)
        except UnknownEndpoint as exc:
            raise CommandError(str(exc)) from exc
        # Negotiated as the endpoint does for an Accept-Language header (a variant falls back
        # to its base language, then LANGUAGE_CODE): a startproject project's "en-us" gives "en".
        language = negotiate_language(_language_request(language))
        try:
            toolset = get_toolset(group, api_version, language)
            refuse_unknown_names(group)  # CONFIRM naming nothing: refused, as the endpoint does
        except (ToolSetError, SettingError) as exc:
            raise CommandError(_refusal_text(exc)) from exc
        forced_user = self._user(user) if user else None
        server = _StdioServer(toolset, forced_user, host, schema_profile)
        # Anything printed by the project's code must not corrupt the protocol stream.
        protocol_out = sys.stdout
        with contextlib.redirect_stdout(sys.stderr):
            server.serve(sys.stdin, protocol_out)

    @staticmethod
    def _user(username: str) -> Any:
        model = get_user_model()
        try:
            return model._default_manager.get_by_natural_key(username)
        except model.DoesNotExist as exc:
            raise CommandError(
                f"No user {username!r}: --user takes an existing {model.USERNAME_FIELD}."
            ) from exc


class _StdioServer:
    def __init__(
        self, toolset: Any, forced_user: Any, host: str, schema_profile: str | None = None
    ) -> None:
        self.toolset = toolset
        self.schema_profile = schema_profile
        self.forced_user = forced_user
        self.host = host
        self.revision = DEFAULT_HEADER_REVISION

    def _request(self) -> HttpRequest:
        request = HttpRequest()
        request.method = "POST"
        request.path = request.path_info = "/"
        request.META.update(
            {
                "SERVER_NAME": self.host,
                "SERVER_PORT": "80",
                "HTTP_HOST": self.host,
                "REMOTE_ADDR": "127.0.0.1",
            }
        )
        if self.forced_user is not None:
            request.user = self.forced_user
            # Private DRF API, read by rest_framework.request.Request: APIClient.force_authenticate's
            # mechanism (tests/test_private_apis.py fails if it disappears).
            request._force_auth_user = self.forced_user  # type: ignore[attr-defined]
        return request

    def serve(self, stdin: TextIO, stdout: TextIO) -> None:
        for line in stdin:
            if line.strip():
                self.handle_line(line, stdout)

    def handle_line(self, line: str, stdout: TextIO) -> None:
        # Each message is a request of its own, as Django's handler would make it: the
        # signals close stale database connections and fire request_finished receivers.
        signals.request_started.send(sender=self.__class__)
        request = self._request()
        try:
            response = self._handle(line, request)
            if response is not None:
                stdout.write(dumps(response) + "\n")
                stdout.flush()
            # The answer is out: now tool_call_delivered may fire (mcp_bridge.signals).
            deliver_pending(request)
        finally:
            signals.request_finished.send(sender=self.__class__)

    def _handle(self, line: str, request: HttpRequest) -> Any:
        try:
            message = json.loads(line)
        except ValueError as exc:
            return _error(PARSE_ERROR, f"Parse error: not valid JSON ({exc}).")
        if isinstance(message, list):
            # A batch: 2025-03-26 only, as on HTTP (mcp_bridge.transport.batch).
            call = Call(
                request=request,
                toolset=self.toolset,
                revision=self.revision,
                check_headers=False,
                schema_profile=self.schema_profile,
            )
            try:
                return handle_batch(message, call)
            except JsonRpcError as exc:
                return _error(exc.code, exc.message, exc.data)
        revision = self.revision
        meta = (message.get("params") or {}).get("_meta") if isinstance(message, dict) else None
        if isinstance(meta, dict) and meta.get(PROTOCOL_VERSION_META_KEY) not in (
            None,
            *HANDSHAKE_REVISIONS,
        ):
            revision = MODERN_REVISIONS[-1]
        call = Call(
            request=request,
            toolset=self.toolset,
            revision=revision,
            check_headers=False,
            schema_profile=self.schema_profile,
        )
        try:
            response = handle_message(message, call)
        except JsonRpcError as exc:
            return _error(exc.code, exc.message, exc.data)
        if (
            isinstance(message, dict)
            and message.get("method") == "initialize"
            and response
            and "result" in response
        ):
            self.revision = response["result"]["protocolVersion"]
        return response


def _refusal_text(exc: Exception) -> str:
    """The command error of a group that cannot be served: its build's problems, or the
    setting that stops it, with the check id and the hint."""
    if isinstance(exc, SettingError):
        return f"{exc} ({exc.check_id}) {exc.hint}"
    return str(exc)


def _language_request(language: str | None) -> HttpRequest:
    """A request that asks for ``language`` as an ``Accept-Language`` header would."""
    request = HttpRequest()
    if language:
        request.META["HTTP_ACCEPT_LANGUAGE"] = language
    return request


def _error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": None, "error": error}
