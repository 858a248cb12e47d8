"""``manage.py mcp_call <group> <tool> '<json>'``: call one tool from the shell.

Runs the endpoint's pipeline without a client: the ``tools/call`` JSON-RPC request goes
through :func:`mcp_bridge.dispatch.methods.handle_message` (argument validation, the real DRF view
with its authentication, permissions and throttles, output validation, the tool-call
signals), as ``mcp_stdio`` serves it. Prints the result's ``structuredContent`` (or its text
content) as JSON; an ``isError`` result (invalid arguments among them) is printed on stderr
and exits with status 1, a JSON-RPC error (an unknown tool) with status 2.

Examples::

    manage.py mcp_call catalog products_search '{"q": "lamp"}'
    manage.py mcp_call backoffice shop_stats --user alice
    manage.py mcp_call catalog products_search '{"q": "lamp"}' --language uk --result
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
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION
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
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": parsed},
        }
        # One request, as Django's handler makes it (signals close stale connections).
        signals.request_started.send(sender=self.__class__)
        request = server._request()
        try:
            # Through the encoder the transport uses: results hold pre-encoded parts.
            response = json.loads(dumps(server._handle(json.dumps(message), request)))
            deliver_pending(request)
        finally:
            signals.request_finished.send(sender=self.__class__)
        if "error" in response:
            self.stderr.write(dumps_readable(response["error"]))
            sys.exit(2)
        answer = response["result"]
        if result:
            shown: Any = answer
        elif "structuredContent" in answer:
            shown = answer["structuredContent"].get("result", answer["structuredContent"])
        else:
            shown = _text(answer)
        out = self.stderr if answer.get("isError") else self.stdout
        out.write(dumps_readable(shown))
        if answer.get("isError"):
            sys.exit(1)


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
