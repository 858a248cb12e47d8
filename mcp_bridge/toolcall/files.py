"""File and binary responses (``FileResponse``, ``StreamingHttpResponse``, a PDF or image
download) as MCP content blocks.

MCP spec 2025-11-25, "Tools → Tool Result": an image is an ``ImageContent``
``{"type": "image", "data": <base64>, "mimeType": ...}``; any other file is an
embedded resource ``{"type": "resource", "resource": {"uri": ..., "mimeType": ...,
"blob": <base64>}}`` (``BlobResourceContents``), whose ``uri`` is the
operation's URL. The view's request accepts the operation's file media types
(:func:`accepted_media_types`). Such operations declare no ``outputSchema``
(:func:`~mcp_bridge.base.media.media_kind` classifies the media types of their OpenAPI
2xx responses: JSON, text, or file) and their results carry no ``structuredContent``.
A text response (YAML, CSV, XML) is not a file: its data is sent as text, or as the
structured data of a DRF ``Response`` rendered as YAML.

The file is read into memory up to ``MCP_BRIDGE["MAX_FILE_BYTES"]``; a larger
one is not read further, and the call answers ``isError`` with ``{"code": 413,
"message": ..., "data": {"status": <the view's status>, "limit": <bytes>,
"setting": "MAX_FILE_BYTES"}}``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponseBase, StreamingHttpResponse

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.headers import header
from mcp_bridge.base.media import essence, is_binary_media_type, media_kind
from mcp_bridge.toolcall.results import file_content_result, tool_error_result


def accepted_media_types(operation: dict[str, Any]) -> list[str]:
    """The ``Accept`` of the view's request for ``operation``: the file media types of its
    2xx responses, then ``*/*``; else, when none of them is JSON, its text media types
    (YAML, CSV, XML), then ``*/*``; otherwise its JSON media types (a vendor ``+json``
    type among them), and ``application/json``.

    A download action whose only renderer writes ``image/png`` (or a schema view whose only
    renderer writes YAML) would otherwise refuse the bridge's ``Accept: application/json``
    with 406 (DRF's content negotiation), as it refuses a REST client asking for JSON. DRF
    tries the most specific media types first, so a view that also has a JSON renderer still
    answers the file; an operation that offers JSON and text answers JSON.
    """
    declared = [
        media_type
        for code, response in operation.get("responses", {}).items()
        if str(code).startswith("2")
        for media_type in (response.get("content") or {})
    ]
    kinds = [media_kind(media_type) for media_type in declared]
    files = [media_type for media_type, kind in zip(declared, kinds) if kind == "file"]
    if files:
        return [*dict.fromkeys(files), "*/*"]
    texts = [
        media_type
        for media_type, kind in zip(declared, kinds)
        if kind == "text" and essence(media_type) not in ("", "*/*")
    ]
    if texts and "json" not in kinds:
        return [*dict.fromkeys(texts), "*/*"]
    # A vendor JSON type (application/vnd.api+json) is asked for by name: a view whose only
    # renderer writes it refuses a plain application/json.
    json_types = [
        essence(media_type)
        for media_type, kind in zip(declared, kinds)
        if kind == "json" and "*" not in media_type
    ]
    return [*dict.fromkeys([*json_types, "application/json"])]


def is_file_response(response: HttpResponseBase) -> bool:
    """A streamed response (``FileResponse`` included), an attachment, or a non-text body
    (a DRF ``Response`` whose renderer is binary, or writes a binary media type)."""
    if isinstance(response, StreamingHttpResponse):
        return True
    if "attachment" in (header(response, "content-disposition") or ""):
        return True
    renderer = getattr(response, "accepted_renderer", None)
    if renderer is not None and not getattr(response, "is_rendered", True):
        # A DRF Response sets its Content-Type when rendered: ask the renderer DRF chose.
        if getattr(renderer, "render_style", "text") == "binary":
            return True
        return is_binary_media_type(getattr(response, "content_type", None) or renderer.media_type)
    return is_binary_media_type(header(response, "content-type") or "")


def _read(response: HttpResponseBase, limit: int) -> bytes | None:
    """The body, or ``None`` when it is larger than ``limit`` (then not read to its end)."""
    if not isinstance(response, StreamingHttpResponse):
        if hasattr(response, "render") and not getattr(response, "is_rendered", True):
            response.render()
        content = bytes(getattr(response, "content", b""))
        return content if len(content) <= limit else None
    chunks, size = [], 0
    for chunk in response.streaming_content:  # type: ignore[union-attr]  # a sync view's response
        chunk = (
            chunk if isinstance(chunk, bytes) else str(chunk).encode(response.charset or "utf-8")
        )
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def file_result(tool_name: str, response: HttpResponseBase, uri: str) -> dict[str, Any]:
    """The ``CallToolResult`` of a 2xx file response of ``tool_name``, fetched from ``uri``."""
    limit = bridge_settings.MAX_FILE_BYTES
    try:
        content = _read(response, limit)
    finally:
        # Only the response's own resources (a FileResponse's file): HttpResponseBase.close()
        # would also send request_finished, which closes the database connection in the middle
        # of the MCP request. _resource_closers is private Django API (django/http/response.py);
        # tests/test_results.py::test_a_file_is_closed fails if it goes.
        for closer in getattr(response, "_resource_closers", ()):
            closer()
    if content is None:
        message = (
            f"The file returned by tool {tool_name!r} is larger than "
            f'MCP_BRIDGE["MAX_FILE_BYTES"] ({limit} bytes); raise the setting or download it over HTTP.'
        )
        data = {"status": response.status_code, "limit": limit, "setting": "MAX_FILE_BYTES"}
        return tool_error_result(413, message, data)
    media_type = essence(response.get("Content-Type", "")) or "application/octet-stream"
    return file_content_result(content, media_type, uri)
