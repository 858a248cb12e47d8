"""What an output-validation error says: short, naming the view and the fix.

A successful call whose structured content breaks the tool's ``outputSchema`` becomes an
``isError`` result (``MCP_BRIDGE["OUTPUT_VALIDATION"] = "error"``, see
:mod:`mcp_bridge.executor`). jsonschema's own messages quote the instance (a page of rows
would be copied into the error, and the model's context); these say what was found and what
the schema expects, name the view, and say what to change.

The common case: an ``@action(detail=False)`` that returns ``Serializer(many=True).data``
without ``@extend_schema(responses=Serializer(many=True))``. drf-spectacular describes such an
action's response as one object (only ``list`` is a list view to it), so every call from a
client fails validation; the message names the ``extend_schema`` line to add.
"""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import ValidationError

__all__ = ["describe_output_mismatch"]

#: At most this many schema errors are listed in the message (all are in ``data.errors``).
LISTED = 5
#: jsonschema messages longer than this are cut (they may quote the instance).
MESSAGE_CHARS = 160

_JSON_TYPES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    type(None): "null",
}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _short(error: ValidationError) -> str:
    if error.validator == "type":
        return f"{_json_type(error.instance)} where the outputSchema has type {error.validator_value!r}"
    message = error.message
    return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 1] + "…"


def _expects_object(error: ValidationError) -> bool:
    expected = error.validator_value
    return error.validator == "type" and "object" in (
        expected if isinstance(expected, list) else [expected]
    )


def describe_output_mismatch(
    tool_name: str, view_label: str, errors: list[ValidationError]
) -> tuple[str, str, list[dict[str, str]]]:
    """The message, the hint and the listed errors of an output mismatch.

    Args:
        tool_name: the tool.
        view_label: the view, ``module.Class.action`` (``OperationSource.view_label``).
        errors: jsonschema's errors for the structured content (at least one).

    Returns:
        ``(message, hint, errors)``: ``errors`` is ``[{"path": "/result", "message": ...}]``,
        each message without a copy of the data.
    """
    listed = [
        {
            "path": "/" + "/".join(str(part) for part in error.absolute_path),
            "message": _short(error),
        }
        for error in errors
    ]
    if any(isinstance(error.instance, list) and _expects_object(error) for error in errors):
        hint = (
            f"{view_label} returns a list, but its OpenAPI response is one object: add "
            f"@extend_schema(responses=<its serializer>(many=True)) to it "
            f'(or set MCP_BRIDGE["OUTPUT_VALIDATION"] = "warn").'
        )
    else:
        hint = (
            f"Make the serializer or @extend_schema(responses=...) of {view_label} describe what "
            f'it returns (or set MCP_BRIDGE["OUTPUT_VALIDATION"] = "warn").'
        )
    shown = "; ".join(f"{e['path']}: {e['message']}" for e in listed[:LISTED])
    more = f" (and {len(listed) - LISTED} more)" if len(listed) > LISTED else ""
    message = (
        f"The response of tool {tool_name!r} does not match its outputSchema: {shown}{more}. {hint}"
    )
    return message, hint, listed
