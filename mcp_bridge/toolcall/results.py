"""The answers of a ``tools/call``: every ``CallToolResult`` is built here.

The last step of the call pipeline (MCP spec 2025-11-25, "Tools" → "Tool Result"). A
leaf: it knows the shapes, not the call, so every step of the pipeline
(:mod:`~mcp_bridge.toolcall.executor`, :mod:`~mcp_bridge.toolcall.output`,
:mod:`~mcp_bridge.toolcall.files`, :mod:`~mcp_bridge.toolcall.events`) builds its answer
with it, and it imports only the shared base.

* a success: :func:`success_result`, ``{"content": [{"type": "text", "text": <JSON>}],
  "structuredContent": ..., "isError": false}`` (``structuredContent`` only where the
  revision and the tool send one);
* the HTTP status of the view's response, on every result made from one
  (:func:`with_status`): ``"_meta": {"mcp-bridge/status": 201}``;
* a file: :func:`file_content_result`, an ``image`` block or an embedded ``resource``;
* an error: :func:`tool_error_result`, ``{"content": [{"type": "text", "text":
  '{"code": ..., "message": ..., "data": {...}}'}], "isError": true}``, for a view's
  non-2xx answer (:func:`view_error_result`), a refusal by a ``pre_tool_call`` receiver
  (:func:`refusal_result`), an exception (:func:`exception_result`), and a 2xx answer
  whose data breaks the ``outputSchema``, with that data (:func:`contradicted_result`; a
  write says it was applied, :func:`applied_write_result`);
  :func:`error_of` reads the ``{"code", "message", "data"}`` object back.

A call that stops before it has a result of its own raises :class:`ToolCallFailed`,
which carries its answer (a JSON-RPC error or an ``isError`` result) and the stage
where it stopped.
"""

from __future__ import annotations

import base64
import json
import traceback
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework.exceptions import APIException

from mcp_bridge.base.encoding import EncodedJSON, dumps
from mcp_bridge.base.protocol import JsonRpcError

#: The ``structuredContent`` of a result that sends none.
_NONE: Any = object()
#: The ``_meta`` key of a result made from a view's response: that response's HTTP status
#: (an ``int``, 200 to 599), as the REST API would have answered (MCP spec, "Overview" →
#: "_meta": a prefix of our own, outside the reserved ``mcp``/``modelcontextprotocol`` ones).
STATUS_META_KEY = "mcp-bridge/status"


class ToolCallFailed(Exception):
    """A ``tools/call`` that stopped with an error: where, and what it answers.

    Attributes:
        stage: where the call stopped, as :data:`~mcp_bridge.signals.tool_call_failed`
            names it: ``"lookup"``, ``"arguments"``, ``"refused"`` or ``"execution"``.
        error: the JSON-RPC error to answer with, or ``None``;
        result: else the ``isError`` result to answer with.
        exception: the exception behind the error, or ``None``.
    """

    def __init__(
        self,
        stage: str,
        *,
        error: JsonRpcError | None = None,
        result: dict[str, Any] | None = None,
        exception: BaseException | None = None,
    ) -> None:
        super().__init__(stage)
        self.stage = stage
        self.error = error
        self.result = result
        self.exception = exception

    def error_object(self) -> dict[str, Any]:
        """The ``{"code", "message", "data"}`` object the client receives."""
        if self.error is not None:
            return self.error.as_error()
        return error_of(self.result or {})

    def answer(self) -> dict[str, Any]:
        """The ``isError`` result.

        Raises:
            JsonRpcError: the answer is a JSON-RPC error.
        """
        if self.error is not None:
            raise self.error
        assert self.result is not None  # one of the two is given
        return self.result


def success_result(text: str, structured_content: Any = _NONE) -> dict[str, Any]:
    """A successful result whose text block is ``text`` (the data's JSON), with
    ``structuredContent`` when one is given."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if structured_content is not _NONE:
        result["structuredContent"] = structured_content
    result["isError"] = False
    return result


def with_status(result: dict[str, Any], status: int) -> dict[str, Any]:
    """``result``, a ``CallToolResult`` made from a view's response, with that response's
    HTTP ``status`` in ``_meta`` (:data:`STATUS_META_KEY`): what a person trying the tool
    reads first (the tool explorer shows it), and what a log of the calls can keep."""
    result["_meta"] = {STATUS_META_KEY: status}
    return result


def file_content_result(content: bytes, media_type: str, uri: str) -> dict[str, Any]:
    """A successful result holding a file: an ``ImageContent`` for an ``image/*`` type,
    else an embedded resource (``BlobResourceContents``) whose ``uri`` is where it came from."""
    data = base64.b64encode(content).decode("ascii")
    if media_type.startswith("image/"):
        block: dict[str, Any] = {"type": "image", "data": data, "mimeType": media_type}
    else:
        block = {"type": "resource", "resource": {"uri": uri, "mimeType": media_type, "blob": data}}
    return {"content": [block], "isError": False}


def tool_error_result(code: int, message: str, data: dict[str, Any]) -> dict[str, Any]:
    """An ``isError`` ``CallToolResult`` whose text is ``{"code", "message", "data"}`` JSON."""
    text = dumps({"code": code, "message": message, "data": data})
    return {"content": [{"type": "text", "text": text}], "isError": True}


def view_error_result(
    status: int, reason_phrase: str, data: Any, retry_after: str | None
) -> dict[str, Any]:
    """The answer to a view's non-2xx response: ``code`` is its status, ``message`` its
    ``detail`` when that is a string (DRF's exception handler writes one), else the
    reason phrase; ``data.retryAfter`` repeats a ``Retry-After`` header."""
    detail = data.get("detail") if isinstance(data, dict) else None
    message = str(detail) if isinstance(detail, str) else reason_phrase
    error_data: dict[str, Any] = {"status": status, "detail": data}
    if retry_after:
        error_data["retryAfter"] = retry_after
    return tool_error_result(status, message, error_data)


def refusal_result(exc: APIException) -> dict[str, Any]:
    """The answer to an ``APIException`` raised outside a view (a ``pre_tool_call``
    receiver): the shape DRF's exception handler gives the same exception in a view."""
    detail = exc.detail if isinstance(exc.detail, (list, dict)) else {"detail": exc.detail}
    message = str(exc.detail) if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    data: dict[str, Any] = {"status": exc.status_code, "detail": detail}
    if getattr(exc, "wait", None):
        data["retryAfter"] = str(int(exc.wait))  # type: ignore[attr-defined]
    return tool_error_result(exc.status_code, message, data)


def exception_result(exc: BaseException, *, not_found: bool) -> dict[str, Any]:
    """The answer to an exception in or around the view: the client's 404 when
    ``not_found`` (a path parameter that leads to no view); a 413 naming Django's
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` when the view's form parsing refused the plain fields
    of an upload (``RequestDataTooBig``; REST answers 400); else a 500 whose ``data``
    names the exception (class, message, traceback) only when ``DEBUG`` is true."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return tool_error_result(
            413,
            f"The form fields besides the files are larger than Django's "
            f"DATA_UPLOAD_MAX_MEMORY_SIZE ({limit} bytes), which the view's parser applies: "
            "send less, or raise that setting.",
            {"status": 413, "setting": "DATA_UPLOAD_MAX_MEMORY_SIZE", "limit": limit},
        )
    if not_found:
        return tool_error_result(
            404, "Not Found", {"status": 404, "detail": {"detail": "Not found."}}
        )
    data: dict[str, Any] = {"status": 500}
    if settings.DEBUG:
        data["exception"] = f"{type(exc).__module__}.{type(exc).__qualname__}"
        data["message"] = str(exc)
        data["traceback"] = "".join(traceback.format_exception(exc))
    return tool_error_result(500, "Internal Server Error", data)


def applied_write_result(
    status: int, message: str, text: str, errors: list[dict[str, str]], hint: str
) -> dict[str, Any]:
    """The answer to a write that was carried out but whose data breaks the
    ``outputSchema`` (:mod:`mcp_bridge.toolcall.output`): :func:`contradicted_result`, saying
    that it was applied (``data.applied``), so that it is not repeated."""
    return contradicted_result(status, message, text, errors, hint, applied=True)


def contradicted_result(
    status: int,
    message: str,
    text: str,
    errors: list[dict[str, str]],
    hint: str,
    *,
    applied: bool = False,
) -> dict[str, Any]:
    """The answer to a 2xx response whose data breaks the tool's ``outputSchema``
    (:mod:`mcp_bridge.toolcall.output`): the data (JSON ``text``) in ``data.result``, as
    the API sent it, and ``message``, the note of the contradiction. ``isError``, since
    ``structuredContent`` must conform to a declared ``outputSchema`` and clients refuse
    a success whose does not (MCP spec, "Tools → Output Schema"); an ``isError`` result
    carries none, and clients read its text as it is."""
    lead = (
        f"Applied: the operation was carried out (HTTP {status}); do not repeat it. Its data is "
        "in data.result."
        if applied
        else f"The API answered HTTP {status}; its data is in data.result, as the API sent it."
    )
    data: dict[str, Any] = {"status": status}
    if applied:
        data["applied"] = True
    data.update({"result": EncodedJSON(text), "errors": errors, "hint": hint})
    return tool_error_result(status, f"{lead} {message}", data)


def error_of(result: dict[str, Any]) -> dict[str, Any]:
    """The ``{"code", "message", "data"}`` object of an ``isError`` result (its text block);
    for an ``InputRequiredResult``, ``code`` ``None`` and the keys of its requests."""
    if result.get("resultType") == "input_required":
        keys = sorted(result.get("inputRequests") or {})
        return {
            "code": None,
            "message": f"Input required from the client: {', '.join(keys) or 'requestState only'}",
            "data": {"inputRequests": keys},
        }
    try:
        error = json.loads(result["content"][0]["text"])
    except (KeyError, IndexError, TypeError, ValueError):
        error = None
    return (
        error if isinstance(error, dict) else {"code": None, "message": str(result.get("content"))}
    )
