"""The executor: one ``tools/call``, from its ``params`` to its answer, through the real DRF view.

:func:`call_tool` runs the call pipeline's steps in order, as DRF's ``APIView.dispatch``
runs a request's, each a function that returns:

1. find the tool (:func:`find_tool`) and check the arguments against its
   ``inputSchema`` (:func:`checked_arguments`);
2. :data:`~mcp_bridge.signals.pre_tool_call`, whose receivers may refuse the call
   (:meth:`ToolCall.send_pre_tool_call <mcp_bridge.toolcall.events.ToolCall.send_pre_tool_call>`);
3. build the view's request (:func:`build_request`): an ordinary Django request for the
   operation (its HTTP method, the path with the path parameters filled in, the query
   string and a JSON body) carrying the MCP caller's identity (the same headers and
   cookies, and the ``user``/``session`` that middleware attached to the MCP request;
   the user DRF authenticates is written back to the MCP request, see
   :mod:`mcp_bridge.toolcall.identity`), resolved as Django's handler resolves it
   (:mod:`mcp_bridge.toolcall.routing`);
4. run the view (:func:`~mcp_bridge.toolcall.invocation.call_view`), so that the whole
   DRF pipeline runs: authentication, permissions, throttles, versioning, serializer
   validation, pagination and the exception handler. View classes are never patched;
   ``ATOMIC_REQUESTS`` is honoured as Django's handler does;
5. make the result of its response (:func:`response_result`);
6. encode it (:func:`encoded_result`).

The signals are sent around the whole call by the context manager
:class:`~mcp_bridge.toolcall.events.ToolCall`, which reports how the call ended. A step
that stops the call raises :class:`~mcp_bridge.toolcall.results.ToolCallFailed`, which
carries the answer; one ``try``/``except`` turns every failure into the answer.

The results (MCP spec 2025-11-25, "Tools" → "Tool Result"; their shapes are built in
:mod:`mcp_bridge.toolcall.results`):

* 2xx: ``{"content": [{"type": "text", "text": <JSON>}],
  "structuredContent": {"result": <data>}, "isError": false}`` up to
  2025-11-25 (``structuredContent`` had to be an object), and
  ``"structuredContent": <data>`` from 2026-07-28 on (SEP-2106), matching the
  ``outputSchema`` each era is sent. The JSON form of the data is checked
  against that schema first (:mod:`mcp_bridge.toolcall.output`, per
  ``MCP_BRIDGE["OUTPUT_VALIDATION"]``: a mismatch of a read becomes an
  ``isError`` result naming it; a write that was applied says so);
* 2xx text of a plain Django response (``text/plain``, HTML, CSV) with no ``outputSchema``:
  ``{"content": [{"type": "text", "text": <the body>}], "isError": false}``, the body as a
  REST client reads it;
* 2xx file or binary responses: an ``image`` or embedded ``resource`` block
  (:mod:`mcp_bridge.toolcall.files`);
* anything else, or an exception: ``{"content": [{"type": "text", "text":
  '{"code": <HTTP status>, "message": ..., "data": {"status": ..., "detail": ...}}'}],
  "isError": true}``;
* every result made from the view's response carries its HTTP status in
  ``_meta["mcp-bridge/status"]``. Exception details (class, message, traceback) are added
  to ``data`` only when ``DEBUG`` is true.

An unknown tool, ``params`` of the wrong shape, and invalid arguments before 2025-11-25
are answered with a JSON-RPC error (-32602) instead; invalid arguments from 2025-11-25
on with an ``isError`` result (SEP-1303).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponseBase

from mcp_bridge.base.conf import DEFS, STRICT, bridge_settings
from mcp_bridge.base.encoding import dumps_data
from mcp_bridge.base.limits import capped, echoed, shorten, unencodable_text
from mcp_bridge.base.media import is_json_media_type
from mcp_bridge.base.protocol import (
    INVALID_PARAMS,
    JsonRpcError,
    structured_content_may_be_any_json,
    supports_titles_and_output,
    validation_errors_are_tool_results,
)
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation.inputs import INPUT_REQUIRED_STATUS, attach_inputs
from mcp_bridge.confirmation.step import prepare, view_asked
from mcp_bridge.schemas.profiles import without_optional_nulls
from mcp_bridge.toolcall import events
from mcp_bridge.toolcall.access import refusal
from mcp_bridge.toolcall.files import file_result, is_file_response
from mcp_bridge.toolcall.identity import ViewRequest
from mcp_bridge.toolcall.invocation import call_view
from mcp_bridge.toolcall.output import mismatch_result
from mcp_bridge.toolcall.plan import request_plan, view_request
from mcp_bridge.toolcall.results import (
    ToolCallFailed,
    success_result,
    tool_error_result,
    view_error_result,
    with_status,
)
from mcp_bridge.toolcall.routing import resolve_operation
from mcp_bridge.toolcall.uploads import (
    RESOURCE_LINK,
    UploadedFile,
    UploadRefused,
    is_resource_link,
    uploaded_file,
)
from mcp_bridge.toolset.registry import ToolSet
from mcp_bridge.tracing import traced_argument_check

#: Exceptions in the view that reads a confirmation's target: the question goes without its name.
logger = logging.getLogger("mcp_bridge.executor")


def call_tool(
    params: dict[str, Any],
    toolset: ToolSet,
    mcp_request: HttpRequest,
    revision: str,
    profile: str = DEFS,
    answer_instead: Callable[[Tool, HttpResponseBase], dict[str, Any] | None] | None = None,
    *,
    page_confirmation: str | None = None,
) -> dict[str, Any]:
    """Answer the ``tools/call`` of ``params`` (``name``, ``arguments``) on ``toolset``.

    ``profile`` is the schema profile of the endpoint (``?schema=``): with ``strict``, a
    ``null`` for an optional argument means "left out" (:func:`checked_arguments`).

    ``answer_instead`` looks at the view's response once the call is over (its signals sent):
    what it returns, unless ``None``, is the answer instead of the tool's result. The Tasks
    extension (:mod:`mcp_bridge.tasks`) answers a task for a view's ``202 Accepted`` job this
    way, so that such a call takes every step of this one (confirmation, uploads included).

    ``page_confirmation`` is the state a person's press of Confirm in the call's MCP App page
    sent (:mod:`mcp_bridge.ui.confirm`): the confirmation step runs the call confirmed when it
    verifies (:func:`~mcp_bridge.confirmation.step.prepare`).

    Returns:
        The ``CallToolResult``: the view's, or an ``isError`` result for any failure
        of the view, of anything around it (a signal receiver, reading its response,
        checking the output), and for invalid arguments from 2025-11-25 on.

    Raises:
        JsonRpcError: only when the answer is a JSON-RPC error (-32602): an unknown
            tool, ``params`` of the wrong shape, invalid arguments before 2025-11-25.
    """
    call = events.ToolCall(params.get("name"), params.get("arguments"), mcp_request, revision)
    try:
        with call:  # the tool-call signals, sent on the way out
            tool = call.tool = find_tool(toolset, call.name)
            arguments = call.arguments = checked_arguments(tool, call.arguments, revision, profile)
            call.send_pre_tool_call()
            files = uploaded_files(tool, arguments, revision)
            # Whether a person must confirm first, or this is the retry that confirms
            # (mcp_bridge.confirmation): it raises to ask, and to stop the call.
            round_ = prepare(
                tool,
                arguments,
                params,
                mcp_request,
                revision,
                toolset,
                read_target,
                lambda: check_access(tool, arguments, mcp_request, revision),
                page_state=page_confirmation,
            )
            call.confirmation = round_.outcome
            request = build_request(tool, arguments, mcp_request, files)
            attach_inputs(request, round_.inputs)
            response = call.response = call_view(request)
            if response.status_code == INPUT_REQUIRED_STATUS:  # the view may ask for input
                view_asked(
                    getattr(response, "data", None),
                    round_,
                    tool,
                    arguments,
                    mcp_request,
                    toolset.group,
                    toolset.version,
                )
            try:
                result = call.result = response_result(tool, response, request, revision)
            finally:
                if files:  # as Django's handler closes a request's uploads (a temporary file)
                    request.close()
        if answer_instead is not None:
            instead = answer_instead(tool, response)
            if instead is not None:
                return instead
        return encoded_result(tool, result, revision)
    except Exception as exc:  # noqa: BLE001 -- every failure is answered (ToolCallFailed.answer)
        return events.failure_of(exc, call).answer()


def find_tool(toolset: ToolSet, name: Any) -> Tool:
    """The tool of ``toolset`` called ``name``.

    Raises:
        ToolCallFailed: ``"lookup"``, a JSON-RPC error: ``name`` is no string, or no tool.
    """
    if not isinstance(name, str):
        raise ToolCallFailed(
            "lookup",
            error=JsonRpcError(
                INVALID_PARAMS, 'Invalid params: tools/call needs "name", the tool name (a string).'
            ),
        )
    tool = toolset.by_name.get(name)
    if tool is None:
        raise ToolCallFailed(
            "lookup",
            error=JsonRpcError(
                INVALID_PARAMS,
                f"Unknown tool: {shorten(repr(name))}. Call tools/list to see the tools of this endpoint.",
                data={"name": echoed(name)},
            ),
        )
    return tool


@traced_argument_check  # names the server span after the tool; a span of its own
def checked_arguments(
    tool: Tool, arguments: Any, revision: str, profile: str = DEFS
) -> dict[str, Any]:
    """The call's ``arguments`` (``{}`` when absent or ``null``), valid for ``tool``.

    Listed in the ``strict`` profile, every property is required and the optional ones are
    nullable: their ``null`` is read as "left out" before the arguments are checked
    (:func:`~mcp_bridge.schemas.profiles.without_optional_nulls`), so the view sees what a
    REST client that left them out would send.

    Raises:
        ToolCallFailed: ``"lookup"``, a JSON-RPC error: ``arguments`` is no object;
            ``"arguments"``: they do not match the ``inputSchema`` (:func:`argument_errors`):
            an ``isError`` result from 2025-11-25 on (SEP-1303), a JSON-RPC error before,
            both with ``{"code": -32602, "message": ..., "data": {"errors": [...]}}``.
    """
    arguments = arguments_object(arguments)
    if profile == STRICT:
        arguments = without_optional_nulls(tool.input_schema, arguments)
    errors = argument_errors(tool, arguments)
    if not errors:
        return arguments
    raise invalid_arguments(tool.name, errors, revision)


def arguments_object(arguments: Any) -> dict[str, Any]:
    """A call's ``arguments`` as the object they must be (``{}`` when absent or ``null``).

    Raises:
        ToolCallFailed: ``"lookup"``, a JSON-RPC error (-32602): ``arguments`` is no object.
    """
    if arguments is None:
        return {}
    if not isinstance(arguments, dict):
        raise ToolCallFailed(
            "lookup",
            error=JsonRpcError(INVALID_PARAMS, 'Invalid params: "arguments" must be an object.'),
        )
    return arguments


def invalid_arguments(name: str, errors: list[dict[str, str]], revision: str) -> ToolCallFailed:
    """The ``"arguments"`` failure of a call to the tool (or meta-tool) ``name`` whose
    arguments have ``errors``: an ``isError`` result from 2025-11-25 on (SEP-1303), a JSON-RPC
    error before, both with ``{"code": -32602, "message": ..., "data": {"errors": [...]}}``."""
    # At most ERROR_ITEMS faults are named (mcp_bridge.base.limits), the others counted.
    errors, omitted = capped(errors)
    listed = "; ".join(f"{e['argument']}: {e['message']}" for e in errors)
    message = f"Invalid arguments for tool {name!r}: {listed}"
    data: dict[str, Any] = {"errors": errors}
    if omitted:
        message += f"; and {omitted} more"
        data["omitted"] = omitted
    if validation_errors_are_tool_results(revision):
        return ToolCallFailed("arguments", result=tool_error_result(INVALID_PARAMS, message, data))
    return ToolCallFailed("arguments", error=JsonRpcError(INVALID_PARAMS, message, data=data))


def argument_errors(tool: Tool, arguments: Any) -> list[dict[str, str]]:
    """Check ``arguments`` against the tool's ``inputSchema`` (jsonschema, 2020-12), and
    the choice between an object-or-list body's two forms (:meth:`~mcp_bridge.build.openrpc.Method.layout_errors`).

    Returns:
        ``[{"argument": name, "message": text}, ...]``, one entry per fault,
        naming the argument, each fault once (a schema may assert the same thing twice,
        e.g. ``required`` at the top and again in an ``allOf`` branch); empty when the
        arguments are valid. Messages quote at most :data:`~mcp_bridge.base.limits.ECHO_CHARS`
        characters of a value; a string that is not Unicode text (a lone surrogate) is a
        fault of its own (:mod:`mcp_bridge.base.limits`).
    """
    unencodable = unencodable_text(arguments)
    if unencodable:
        return [
            {
                "argument": shorten(where.split("/")[1]),
                "message": f"{shorten(where)}: a string holds a lone surrogate (not Unicode text)",
            }
            for where in unencodable
        ]
    try:
        return _schema_errors(tool, arguments)
    except RecursionError:  # a recursive inputSchema ($ref) followed into deeply nested arguments
        return [{"argument": "", "message": "the arguments are nested too deeply to be checked"}]


def _schema_errors(tool: Tool, arguments: Any) -> list[dict[str, str]]:
    validator = tool.validator
    if validator.is_valid(arguments) and not request_plan(tool).has_two_body_forms:
        # Nearly every call: no error to describe, and no choice between two body forms.
        return []
    errors = []
    for error in validator.iter_errors(arguments):
        if error.validator == "required" and not error.path:
            names = [n for n in error.validator_value if n not in error.instance]
        elif error.validator == "additionalProperties" and not error.path:
            names = [n for n in error.instance if n not in tool.input_schema.get("properties", {})]
        else:
            names = [str(error.path[0])] if error.path else [""]
        for name in names:
            where = "".join(f"[{p!r}]" for p in list(error.path)[1:])
            if len(error.path) == 1 and is_resource_link(error.instance):
                # A file argument's anyOf refuses it in words a model cannot act on.
                message = RESOURCE_LINK
            elif error.validator == "required" and not error.path:
                message = "is required but missing"
            elif error.validator == "additionalProperties" and not error.path:
                message = "is not an argument of this tool"
            else:
                message = f"{where + ': ' if where else ''}{error.message}"
            errors.append({"argument": shorten(name), "message": shorten(message)})
    if isinstance(arguments, dict):
        errors += tool.method.layout_errors(arguments)
    # One problem, one message: jsonschema can report the same fault from several branches.
    unique = {(e["argument"], e["message"]): e for e in errors}
    return sorted(unique.values(), key=lambda e: e["argument"])


def uploaded_files(
    tool: Tool, arguments: dict[str, Any], revision: str
) -> dict[str, UploadedFile | None]:
    """The files of an upload tool's call, decoded (:func:`~mcp_bridge.toolcall.uploads.uploaded_file`):
    ``{argument: file}``, ``None`` for a ``null`` (no file); ``{}`` for any other tool.

    Raises:
        ToolCallFailed: ``"arguments"``: a file larger than ``MAX_UPLOAD_BYTES`` (an
            ``isError`` result, code 413, naming the setting and the limit), or a value that
            is not a file (as :func:`invalid_arguments` words it).
    """
    plan = request_plan(tool)
    files: dict[str, UploadedFile | None] = {}
    for name, _field, is_file in plan.form_fields:
        if not is_file or name not in arguments:
            continue
        value = arguments[name]
        try:
            files[name] = None if value is None else uploaded_file(name, value)
        except UploadRefused as exc:
            if exc.too_large:
                limit = bridge_settings.MAX_UPLOAD_BYTES
                message = f"Invalid arguments for tool {tool.name!r}: {name}: {exc.message}"
                data = {"argument": name, "limit": limit, "setting": "MAX_UPLOAD_BYTES"}
                raise ToolCallFailed(
                    "arguments", result=tool_error_result(413, message, data)
                ) from None
            raise invalid_arguments(
                tool.name, [{"argument": name, "message": exc.message}], revision
            ) from None
    return files


def build_request(
    tool: Tool,
    arguments: dict[str, Any],
    mcp_request: HttpRequest,
    files: dict[str, UploadedFile | None] | None = None,
) -> ViewRequest:
    """The Django request that performs the tool's operation for the MCP caller, made by the
    tool's plan (:mod:`mcp_bridge.toolcall.plan`) and resolved as Django's handler resolves it.

    Raises:
        OperationNotFound: a path parameter's value leads to another view or none (404).
        Resolver404: the operation's path no longer resolves (the URLconf changed).
    """
    plan = request_plan(tool)
    body: bytes | None
    if plan.form_media_type is not None:  # an upload: a real multipart (or URL-encoded) request
        body, content_type = plan.form(arguments, files or {})
    else:
        body, content_type = plan.body(arguments), "application/json"
    # The caller's identity, and whatever DRF authenticates written back (mcp_bridge.toolcall.identity).
    request = view_request(
        plan,
        mcp_request,
        plan.path(arguments),
        plan.query_string(arguments),
        body,
        content_type=content_type,
    )
    source = tool.method.source
    # Against the URLconf Django's handler made active for the MCP request.
    request.resolver_match = resolve_operation(
        request.path_info,
        getattr(mcp_request, "urlconf", None),
        source.path,
        source.view_class,
        source.handler_name,
        source.method,
    )
    return request


def check_access(
    tool: Tool, arguments: dict[str, Any], mcp_request: HttpRequest, revision: str
) -> None:
    """Refuse the call as its view would refuse the caller, before a person is asked to confirm
    it (:mod:`mcp_bridge.toolcall.access`): the view's permissions, and for one object its 404
    and object permissions, through DRF's pipeline without the handler.

    Raises:
        ToolCallFailed: ``"execution"``, the ``isError`` result of the view's refusal (its
            401, 403 or 404, as REST answers it).
    """
    request = build_request(tool, arguments, mcp_request)
    response = refusal(request)
    if response is not None:
        result = response_result(tool, response, request, revision)
        raise ToolCallFailed("execution", result=result)


def read_target(
    toolset: ToolSet, tool: Tool, arguments: dict[str, Any], mcp_request: HttpRequest
) -> Any:
    """The object the call of ``tool`` acts on, for the question of its confirmation
    (:mod:`mcp_bridge.confirmation.forms`): the data of the group's ``GET`` tool at the same
    path, run through the normal pipeline as the caller, without the tool-call signals (it is
    no call of the client's). ``None`` when the group has no such tool, or the view does not
    answer 200 (a caller who may not read it)."""
    source = tool.method.source
    reader = next(
        (
            t
            for t in toolset.tools
            if t.method.source.path == source.path and t.method.source.method == "GET"
        ),
        None,
    )
    if reader is None:
        return None
    path_arguments = {
        p.name: arguments[p.name]
        for p in reader.method.params
        if p.location == "path" and p.name in arguments
    }
    try:
        response = call_view(build_request(reader, path_arguments, mcp_request))
    except Exception:  # the question is asked without the object's name
        logger.warning("Tool %r: reading the object to confirm raised.", tool.name, exc_info=True)
        return None
    if response.status_code != 200:
        return None
    return response_data(response)


def response_data(response: HttpResponseBase) -> Any:
    """The data of a view's response: DRF's ``response.data``, else the decoded JSON of its
    body, else its text (``None`` for an empty body)."""
    if hasattr(response, "data"):
        return response.data
    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
        response.render()
    content = getattr(response, "content", b"")
    if not content:
        return None
    text = content.decode(response.charset or "utf-8", errors="replace")
    if is_json_media_type(response.get("Content-Type", "")):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def response_result(
    tool: Tool, response: HttpResponseBase, request: HttpRequest, revision: str
) -> dict[str, Any]:
    """The ``CallToolResult`` of the view's ``response`` to ``request`` (see the module
    docstring), with ``structuredContent`` as decoded data and the response's HTTP status in
    ``_meta`` (:func:`~mcp_bridge.toolcall.results.with_status`)."""
    return with_status(_result_of(tool, response, request, revision), response.status_code)


def _result_of(
    tool: Tool, response: HttpResponseBase, request: HttpRequest, revision: str
) -> dict[str, Any]:
    status = response.status_code
    if 200 <= status < 300 and is_file_response(response):
        return file_result(tool.name, response, request.build_absolute_uri())
    data = response_data(response)
    if not 200 <= status < 300:
        return view_error_result(status, response.reason_phrase, data, response.get("Retry-After"))
    if tool.result_schema is None and _is_plain_text(response, data):
        # A REST client reads this body as it is: the text block is the same, not a JSON string
        # of it, and a string repeated as structuredContent would tell a client nothing more.
        return success_result(data)
    text = dumps_data(data)
    if not _sends_structured_content(tool, data, revision):
        return success_result(text)
    # Checked as the client receives it: the JSON form of the data (mcp_bridge.toolcall.output).
    mismatch = mismatch_result(tool, data, text, status, revision)
    if mismatch is not None:
        return mismatch
    return success_result(text, tool.structured_content(data, revision))


def _is_plain_text(response: HttpResponseBase, data: Any) -> bool:
    """``data`` is the body of a plain Django response (not DRF's ``Response``) in a text
    media type other than JSON: ``text/plain``, HTML, CSV."""
    return (
        isinstance(data, str)
        and not hasattr(response, "data")
        and not is_json_media_type(response.get("Content-Type", ""))
    )


def _sends_structured_content(tool: Tool, data: Any, revision: str) -> bool:
    if not supports_titles_and_output(revision):
        return False  # 2025-03-26 has no structuredContent
    if structured_content_may_be_any_json(revision):
        # Any JSON value may be sent, but an empty (204) result with no schema has no structure.
        return data is not None or tool.result_schema is not None
    return True


def encoded_result(tool: Tool, result: dict[str, Any], revision: str) -> dict[str, Any]:
    """The result to answer with: its ``structuredContent`` is the very JSON text of the
    text block, spliced in by :func:`~mcp_bridge.base.encoding.dumps` instead of being encoded a
    second time (the spec asks for the data in both places). Signal receivers got the
    decoded data."""
    if "structuredContent" not in result:
        return result
    return {
        **result,
        "structuredContent": tool.encoded_structured_content(
            result["content"][0]["text"], revision
        ),
    }
