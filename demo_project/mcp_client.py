"""A tiny command-line MCP client for trying the demo's endpoints.

Examples (with ``manage.py runserver`` running and the demo data loaded)::

    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/catalog/ list
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/catalog/ --lang uk list
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/catalog/ \\
        call products_search '{"q": "lamp", "max_price": 60}'
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/orders/ \\
        --token customer0000000000000000000000000000demo call orders_retrieve '{"id": 2}'
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/backoffice/ --login call shop_stats

A tool that asks a person to confirm (the backoffice's destructive tools, docs/confirmation.md)
shows its question here and reads the answer from the terminal; ``--yes`` or ``--no`` answers
every question without asking.

``--login`` signs in with OAuth (docs/authorization.md) as the SDK's
``OAuthClientProvider`` does it: discovery from the 401, dynamic client
registration, the browser for the login and consent pages, a callback on a
loopback port of this machine. Tokens are kept in memory, for this run only.

It uses the official MCP Python SDK (``pip install "mcp>=2,<3"``), so it also
shows how any SDK-based client talks to mcp_bridge. The SDK has no client of the MCP Tasks
extension (``io.modelcontextprotocol/tasks``, docs/tasks.md) but the means to write one:
:class:`TasksExtension` below declares it, and when a call is answered with a task it polls
``tasks/get`` to the result, printing each status on stderr::

    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/reports/ \\
        --token staff0000000000000000000000000000000demo call sales_report
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import webbrowser
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp import Client, MCPError, types
from mcp.client.auth import OAuthClientProvider
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp_types import CallToolResult, Request, RequestParams, Result
from pydantic import TypeAdapter

# --- The Tasks extension (SEP-2663) for the SDK's Client ------------------------------------

EXTENSION = "io.modelcontextprotocol/tasks"


class CreateTaskResult(Result):
    """A ``CreateTaskResult``: the task that stands for the call's result."""

    result_type: Literal["task"]
    task_id: str
    status: str
    status_message: str | None = None
    ttl_ms: int | None = None
    poll_interval_ms: int | None = None


class TaskParams(RequestParams):
    task_id: str


class GetTaskRequest(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class UpdateTaskParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class UpdateTaskRequest(Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class CancelTaskRequest(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


class DetailedTask(Result):
    """The answer of ``tasks/get``."""

    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


#: Reads a task's ``inputRequests`` as the SDK's own request models, and writes the answers.
INPUT_REQUESTS = TypeAdapter(types.InputRequests)
INPUT_RESPONSES = TypeAdapter(types.InputResponses)


class TasksExtension(ClientExtension):
    """Declare the Tasks extension and poll the tasks a server answers with; a task that asks
    for input (``input_required``) is answered with ``tasks/update``, through the client's own
    callbacks (the elicitation callback shows a form), as the SDK answers an
    ``InputRequiredResult``.

    Args:
        on_status: called with each ``tasks/get`` answer (e.g. to show progress).
        polls: when given, a list that gets one entry per ``tasks/get`` sent.
    """

    identifier = EXTENSION

    def __init__(
        self,
        on_status: Callable[[DetailedTask], None] | None = None,
        polls: list[str] | None = None,
    ) -> None:
        self.on_status = on_status
        self.polls = polls

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.resolve),)

    async def resolve(self, created: CreateTaskResult, ctx: ClaimContext) -> CallToolResult:
        interval = (created.poll_interval_ms or 1000) / 1000
        while True:
            await asyncio.sleep(interval)
            task = await ctx.session.send_request(
                GetTaskRequest(params=TaskParams(task_id=created.task_id)), DetailedTask
            )
            if self.polls is not None:
                self.polls.append(task.status)
            if self.on_status is not None:
                self.on_status(task)
            interval = (task.poll_interval_ms or interval * 1000) / 1000
            if task.status == "input_required" and task.input_requests:
                await self.answer(created.task_id, task.input_requests, ctx)
                continue
            if task.status == "completed" and task.result is not None:
                return CallToolResult.model_validate(task.result)
            if task.status in ("failed", "cancelled"):
                error = task.error or {"code": -32603, "message": f"The task was {task.status}."}
                raise MCPError(error["code"], error["message"], error.get("data"))

    async def answer(self, task_id: str, requests: dict[str, Any], ctx: ClaimContext) -> None:
        """Answer each question of the task through the client's callbacks, in one update (a
        key answered before is ignored by the server, so a repeated poll does no harm)."""
        session = ctx.session
        responses: dict[str, Any] = {}
        for key, request in INPUT_REQUESTS.validate_python(requests).items():
            context = ClientRequestContext(session=session, request_id=key, meta=None)
            response = await session.dispatch_input_request(context, request)
            if isinstance(response, types.ErrorData):
                raise MCPError(response.code, response.message, response.data)
            responses[key] = response
        answers = INPUT_RESPONSES.dump_python(
            responses, by_alias=True, exclude_none=True, mode="json"
        )
        await session.send_request(
            UpdateTaskRequest(params=UpdateTaskParams(task_id=task_id, input_responses=answers)),
            Result,
        )


# The SDK's own defaults: a server may keep a response stream open for a long time.
TIMEOUT = httpx2.Timeout(30.0, read=300.0)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="List or call the tools of an MCP endpoint (Streamable HTTP).",
    )
    parser.add_argument("url", help="the endpoint, e.g. http://127.0.0.1:8000/mcp/catalog/")
    parser.add_argument("--token", help="a DRF token, sent as 'Authorization: Token <token>'")
    parser.add_argument(
        "--login",
        action="store_true",
        help="sign in with OAuth in the browser (the endpoint's authorization server)",
    )
    parser.add_argument(
        "--mode",
        choices=["legacy", "auto"],
        default="auto",
        help="protocol negotiation: 'legacy' forces the initialize handshake, 'auto' "
        "(default) tries server/discover first and falls back to it",
    )
    parser.add_argument("--lang", help="preferred language, sent as Accept-Language (e.g. uk, de)")
    answers = parser.add_mutually_exclusive_group()
    answers.add_argument(
        "--yes", dest="answer", action="store_const", const=True, help="accept every form"
    )
    answers.add_argument(
        "--no", dest="answer", action="store_const", const=False, help="decline every form"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="print the name and title of every tool")
    call = commands.add_parser("call", help="call a tool and print its result")
    call.add_argument("tool", help="the tool name, e.g. products_search")
    call.add_argument(
        "arguments",
        nargs="?",
        default="{}",
        type=json_object,
        help="the arguments as a JSON object (default: {})",
    )
    return parser.parse_args(argv)


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            'the arguments must be a JSON object, e.g. \'{"q": "lamp"}\''
        )
    return value


async def list_tools(client: Client) -> None:
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            title = tool.title or (tool.annotations.title if tool.annotations else None) or ""
            print(f"{tool.name:32} {title}")
        cursor = page.next_cursor
        if cursor is None:
            return


async def call_tool(client: Client, name: str, arguments: dict[str, Any]) -> bool:
    """Print the result of one call; returns whether the tool reported an error."""
    result = await client.call_tool(name, arguments)
    if result.structured_content is not None:
        print(json.dumps(result.structured_content, indent=2, ensure_ascii=False))
    else:
        for block in result.content:
            # Non-text blocks (images, resources) are summarised, not dumped.
            print(getattr(block, "text", None) or f"<{block.type} content>")
    print(f"isError: {str(result.is_error).lower()}")
    return result.is_error


def form_answerer(preset: bool | None) -> Any:
    """The elicitation callback: show a server's form (``elicitation/create``, form mode) on the
    terminal and read the person's answer, field by field; ``preset`` answers a yes/no form
    without asking (``--yes``, ``--no``)."""

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        print(f"\n{params.message}", file=sys.stderr)
        schema = getattr(params, "requested_schema", None) or {}
        content: dict[str, Any] = {}
        for name, field in schema.get("properties", {}).items():
            label = field.get("title") or name
            if field.get("type") == "boolean":
                if preset is not None:
                    value: Any = preset
                else:
                    reply = await asyncio.to_thread(input, f"{label} [y/N]: ")
                    value = reply.strip().lower() in ("y", "yes", "j", "ja", "т", "так")
                print(f"{label}: {'yes' if value else 'no'}", file=sys.stderr)
            else:
                reply = await asyncio.to_thread(input, f"{label}: ")
                value = float(reply) if field.get("type") in ("number", "integer") else reply
                if field.get("type") == "integer":
                    value = int(value)
            content[name] = value
        if preset is False or (
            content
            and not any(v is True for v in content.values())
            and all(isinstance(v, bool) for v in content.values())
        ):
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=content)

    return answer


class MemoryTokenStorage:
    """The SDK's TokenStorage, in memory: the registration and tokens of one run."""

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


async def oauth_provider(url: str) -> tuple[OAuthClientProvider, asyncio.Server]:
    """The SDK's OAuth client, with its redirect URI served on a loopback port (RFC 8252)."""
    received: asyncio.Future[dict[str, list[str]]] = asyncio.get_running_loop().create_future()

    async def callback(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await reader.readline()).decode("latin-1")
        while (await reader.readline()).strip():
            pass  # the headers
        target = request_line.split(" ")[1] if request_line.count(" ") >= 2 else "/"
        query = parse_qs(urlsplit(target).query)
        body = b"Signed in: you can close this tab." if "code" in query else b"No code here."
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
            + body
        )
        await writer.drain()
        writer.close()
        if "code" in query and not received.done():
            received.set_result(query)

    server = await asyncio.start_server(callback, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async def redirect_handler(authorization_url: str) -> None:
        print(f"Sign in in your browser: {authorization_url}", file=sys.stderr)
        webbrowser.open(authorization_url)

    async def callback_handler() -> AuthorizationCodeResult:
        query = await received
        return AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )

    metadata = OAuthClientMetadata(
        client_name="mcp_bridge demo client",
        redirect_uris=[f"http://127.0.0.1:{port}/callback"],
        grant_types=["authorization_code", "refresh_token"],
        token_endpoint_auth_method="none",
    )
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=MemoryTokenStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    return provider, server


async def run(args: argparse.Namespace) -> int:
    headers = {}
    if args.token:
        headers["Authorization"] = f"Token {args.token}"
    if args.lang:
        headers["Accept-Language"] = args.lang
    auth = None
    if args.login:
        auth, callback_server = await oauth_provider(args.url)
    try:
        return await talk(args, headers, auth)
    finally:
        if args.login:
            callback_server.close()


async def talk(args: argparse.Namespace, headers: dict[str, str], auth: Any) -> int:
    # A client passed in is not closed by the transport, hence the `async with` here.
    async with httpx2.AsyncClient(headers=headers, auth=auth, timeout=TIMEOUT) as http_client:
        transport = streamable_http_client(args.url, http_client=http_client)
        tasks = TasksExtension(on_status=_print_status)
        async with Client(
            transport,
            mode=args.mode,
            extensions=[tasks],
            elicitation_callback=form_answerer(args.answer),
        ) as client:
            if args.command == "list":
                await list_tools(client)
                return 0
            is_error = await call_tool(client, args.tool, args.arguments)
            return 1 if is_error else 0


def _print_status(task: DetailedTask) -> None:
    print(f"task {task.task_id[:12]}…: {task.status}: {task.status_message or ''}", file=sys.stderr)


def _innermost(exc: BaseException) -> BaseException:
    # anyio task groups inside the SDK wrap failures (a refused connection...) in groups.
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return asyncio.run(run(args))
    except Exception as exc:
        error = _innermost(exc)
        if isinstance(error, MCPError):
            # A protocol-level error (unknown tool, invalid arguments...), not a tool failure.
            print(f"MCP error {error.code}: {error.message}", file=sys.stderr)
        elif isinstance(error, httpx2.HTTPError):
            print(f"HTTP error talking to {args.url}: {error}", file=sys.stderr)
        else:
            raise
        return 2


if __name__ == "__main__":
    sys.exit(main())
