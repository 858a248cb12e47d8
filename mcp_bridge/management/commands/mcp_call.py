"""``manage.py mcp_call <group> <tool> '<json>'``: call one tool from the shell.

Runs the endpoint's pipeline without a client: the ``tools/call`` JSON-RPC request goes
through :func:`mcp_bridge.dispatch.methods.handle_message` (argument validation, the real DRF view
with its authentication, permissions and throttles, output validation, the tool-call
signals), as ``mcp_stdio`` serves it. Prints the result's ``structuredContent`` (or its text
content) as JSON; an ``isError`` result (invalid arguments among them) is printed on stderr
and exits with status 1, a JSON-RPC error (an unknown tool) with status 2.

A tool that asks a person to confirm each call (``MCP_BRIDGE["CONFIRM"]``, docs/confirmation.md)
needs an answer: ``--yes`` confirms it, ``--no`` declines it. With either, the call is made in
MCP 2026-07-28 with the elicitation capability, as a client that shows forms makes it: the
question is printed on stderr, answered, and the call retried with the answer and its
``requestState`` (also a view's own yes/no questions; a form that asks for more than yes or no
cannot be answered here). Without them, the call is made as a handshake-era client that cannot
ask, and a tool that asks answers its 428. The view's permissions are checked before the
question is put: a caller the view refuses gets its 403.

Examples::

    manage.py mcp_call catalog products_search '{"q": "lamp"}'
    manage.py mcp_call backoffice shop_stats --user alice
    manage.py mcp_call catalog products_search '{"q": "lamp"}' --language uk --result
    manage.py mcp_call backoffice products_destroy '{"slug": "arc-led-desk-lamp"}' --user alice --yes
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core import signals
from django.core.management.base import BaseCommand, CommandError

from mcp_bridge.base.conf import SettingError
from mcp_bridge.base.encoding import dumps, dumps_readable
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    LATEST_HANDSHAKE_REVISION,
    MODERN_REVISIONS,
    PROTOCOL_VERSION_META_KEY,
)
from mcp_bridge.build.translation import negotiate_language
from mcp_bridge.management.commands.mcp_stdio import Command as StdioCommand
from mcp_bridge.management.commands.mcp_stdio import (
    _language_request,
    _refusal_text,
    _StdioServer,
)
from mcp_bridge.toolcall.events import deliver_pending
from mcp_bridge.toolset.guards import refuse_unknown_names
from mcp_bridge.toolset.registry import (
    UnknownEndpoint,
    get_toolset,
    resolve_version,
)

#: The most rounds of questions one call may take before mcp_call gives up (a confirmation and
#: a view's own questions take two or three).
MAX_ROUNDS = 5


class Command(BaseCommand):
    help = "Call one tool of an API group, as an MCP client would, and print its result."
    requires_system_checks = ()  # the tools are built (and checked) below

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("group", help="the API group (the <group> of /mcp/<group>/)")
        parser.add_argument("tool", help="the tool name (manage.py mcp_tools lists them)")
        parser.add_argument(
            "arguments", nargs="?", default="{}", help="the tool arguments, a JSON object"
        )
        parser.add_argument("--user", help="call as this user (username); anonymous if omitted")
        parser.add_argument(
            "--api-version", dest="api_version", help="the API version (versioned groups)"
        )
        parser.add_argument("--language", help="the language of the texts, as Accept-Language")
        parser.add_argument(
            "--host", default="localhost", help="the Host the view sees; must be in ALLOWED_HOSTS"
        )
        parser.add_argument(
            "--result", action="store_true", help="print the whole MCP result (content, isError...)"
        )
        answers = parser.add_mutually_exclusive_group()
        answers.add_argument(
            "--yes",
            dest="answer",
            action="store_const",
            const=True,
            help="confirm: answer yes to every question the call asks (a tool that asks a "
            "person to confirm it)",
        )
        answers.add_argument(
            "--no",
            dest="answer",
            action="store_const",
            const=False,
            help="decline every question the call asks",
        )

    def handle(
        self,
        *args: Any,
        group: str,
        tool: str,
        arguments: str,
        user: str | None,
        api_version: str | None,
        language: str | None,
        host: str,
        result: bool,
        answer: bool | None = None,
        **options: Any,
    ) -> None:
        try:
            parsed = json.loads(arguments)
        except ValueError as exc:
            raise CommandError(
                f'The arguments are not JSON ({exc}): give an object, e.g. \'{{"q": "lamp"}}\'.'
            ) from None
        if not isinstance(parsed, dict):
            raise CommandError('The arguments must be a JSON object, e.g. \'{"q": "lamp"}\'.')
        try:
            # The version the endpoint serves for it: DRF's DEFAULT_VERSION when none is named.
            api_version = resolve_version(group, api_version)
            toolset = get_toolset(
                group, api_version, negotiate_language(_language_request(language))
            )
            refuse_unknown_names(group)  # CONFIRM naming nothing: refused, as the endpoint does
        except (UnknownEndpoint, ToolSetError, SettingError) as exc:
            raise CommandError(_refusal_text(exc)) from exc
        server = _StdioServer(toolset, StdioCommand._user(user) if user else None, host)
        server.revision = LATEST_HANDSHAKE_REVISION
        params: dict[str, Any] = {"name": tool, "arguments": parsed}
        modern = answer is not None
        if modern:  # a client that can ask a person, answered from the command line
            params["_meta"] = {
                PROTOCOL_VERSION_META_KEY: MODERN_REVISIONS[-1],
                CLIENT_CAPABILITIES_META_KEY: {"elicitation": {"form": {}}},
            }
        for _ in range(MAX_ROUNDS):
            response = self._send(server, params)
            if "error" in response:
                self.stderr.write(dumps_readable(response["error"]))
                sys.exit(2)
            outcome = response["result"]
            if outcome.get("resultType") != "input_required":
                break
            assert answer is not None  # only a modern call is asked
            params = {
                **params,
                "inputResponses": {
                    key: self._answered(request, answer)
                    for key, request in outcome.get("inputRequests", {}).items()
                },
                "requestState": outcome.get("requestState"),
            }
        else:
            raise CommandError(
                f"The call asked {MAX_ROUNDS} times in a row; stopped. Call the tool through a "
                "client that shows its questions (demo_project/mcp_client.py)."
            )
        if result:
            shown: Any = outcome
        elif "structuredContent" in outcome:
            shown = outcome["structuredContent"]
            if not modern:  # the handshake era wraps it: {"result": <data>}
                shown = shown.get("result", shown)
        else:
            shown = _text(outcome)
        out = self.stderr if outcome.get("isError") else self.stdout
        out.write(dumps_readable(shown))
        if outcome.get("isError"):
            sys.exit(1)

    def _send(self, server: _StdioServer, params: dict[str, Any]) -> dict[str, Any]:
        """One ``tools/call`` request, as Django's handler makes a request (signals close stale
        connections), and its decoded JSON-RPC response."""
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        signals.request_started.send(sender=self.__class__)
        request = server._request()
        try:
            # Through the encoder the transport uses: results hold pre-encoded parts.
            response: dict[str, Any] = json.loads(
                dumps(server._handle(json.dumps(message), request))
            )
            deliver_pending(request)
        finally:
            signals.request_finished.send(sender=self.__class__)
        return response

    def _answered(self, request: Any, answer: bool) -> dict[str, Any]:
        """The answer to one of the call's input requests: its question is printed, every
        yes/no field answered ``answer`` (``--yes``), or the form declined (``--no``).

        Raises:
            CommandError: the request is not a form, or asks for more than yes or no.
        """
        method = request.get("method") if isinstance(request, dict) else None
        form = request.get("params") if isinstance(request, dict) else None
        if not isinstance(form, dict):
            form = {}
        if method != "elicitation/create" or form.get("mode", "form") != "form":
            raise CommandError(
                f"The call asks for input mcp_call cannot give ({method!r}); call the tool "
                "through a client that supports it."
            )
        fields = (form.get("requestedSchema") or {}).get("properties") or {}
        self.stderr.write(str(form.get("message", "")))
        if not answer:
            self.stderr.write("--no: declined.")
            return {"action": "decline"}
        others = sorted(name for name, field in fields.items() if field.get("type") != "boolean")
        if others:
            raise CommandError(
                f"The call asks for {', '.join(others)}, which --yes cannot answer (it answers "
                "yes/no questions); the call stops here. Call the tool through a client that "
                "shows forms (demo_project/mcp_client.py)."
            )
        self.stderr.write("--yes: confirmed.")
        return {"action": "accept", "content": dict.fromkeys(fields, True)}


def _text(answer: dict[str, Any]) -> Any:
    """The text content of a result, parsed when it is JSON (an error's ``{"code", ...}``)."""
    texts = [
        block.get("text", "") for block in answer.get("content", []) if block.get("type") == "text"
    ]
    joined = "\n".join(texts)
    try:
        return json.loads(joined)
    except ValueError:
        return joined
