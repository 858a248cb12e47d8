"""A tiny command-line MCP client for trying the demo's endpoints.

Examples (with ``manage.py runserver`` running and the demo data loaded)::

    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/catalog/ list
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/catalog/ --lang uk list
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/catalog/ \\
        call products_search '{"q": "lamp", "max_price": 60}'
    python demo_project/mcp_client.py http://127.0.0.1:8000/mcp/orders/ \\
        --token customer0000000000000000000000000000demo call orders_retrieve '{"id": 2}'

It uses the official MCP Python SDK (``pip install "mcp>=2,<3"``), so it also
shows how any SDK-based client talks to mcp_bridge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import httpx2
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

# The SDK's own defaults: a server may keep a response stream open for a long time.
TIMEOUT = httpx2.Timeout(30.0, read=300.0)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="List or call the tools of an MCP endpoint (Streamable HTTP).",
    )
    parser.add_argument("url", help="the endpoint, e.g. http://127.0.0.1:8000/mcp/catalog/")
    parser.add_argument("--token", help="a DRF token, sent as 'Authorization: Token <token>'")
    parser.add_argument(
        "--mode",
        choices=["legacy", "auto"],
        default="auto",
        help="protocol negotiation: 'legacy' forces the initialize handshake, 'auto' "
        "(default) tries server/discover first and falls back to it",
    )
    parser.add_argument("--lang", help="preferred language, sent as Accept-Language (e.g. uk, de)")
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


async def run(args: argparse.Namespace) -> int:
    headers = {}
    if args.token:
        headers["Authorization"] = f"Token {args.token}"
    if args.lang:
        headers["Accept-Language"] = args.lang
    # A client passed in is not closed by the transport, hence the `async with` here.
    async with httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http_client:
        transport = streamable_http_client(args.url, http_client=http_client)
        async with Client(transport, mode=args.mode) as client:
            if args.command == "list":
                await list_tools(client)
                return 0
            is_error = await call_tool(client, args.tool, args.arguments)
            return 1 if is_error else 0


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
