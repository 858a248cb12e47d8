"""A successful call's data against the tool's ``outputSchema``, as the client receives it.

MCP spec 2025-11-25, "Tools → Output Schema": a server that declares an
``outputSchema`` MUST send structured results that conform, and clients SHOULD
validate them (the official Python client and Claude Code do, and refuse a
result that does not conform). The check is made on the **JSON form** of the
data, the text the client receives: a view's Python data holds values that are
not JSON yet (Django's lazy translation strings, sets, ``Decimal``, ``UUID``,
datetimes, durations: whatever DRF's ``JSONEncoder`` writes). To keep the
fast path, the Python data is checked first (jsonschema-rs with the ``fast``
extra); only when that check fails is the JSON text, already encoded once for
the answer, decoded and checked again, and only that verdict counts.

What a call with a mismatch answers (``MCP_BRIDGE["OUTPUT_VALIDATION"]``). The
application contradicts its own schema; the model still gets the data, as the API sent it, and
a short note of the contradiction, never only a failure. Since ``structuredContent`` must
conform to a declared ``outputSchema``, the answer is an ``isError`` result, which carries none
(:func:`~mcp_bridge.toolcall.results.contradicted_result`):

* ``"error"`` (default), a read (GET/HEAD/OPTIONS): ``isError`` with ``{"code": <the HTTP
  status, e.g. 200>, "message": "The API answered HTTP 200; its data is in data.result, as
  the API sent it. <the mismatch, see below>", "data": {"status": 200, "result": <the view's
  data>, "errors": [...], "hint": ...}}``;
* ``"warn"``, a read: the result as if it matched (``structuredContent`` and
  all); the mismatch is logged on ``mcp_bridge.executor``. Clients that check
  results themselves will still refuse it;
* ``"error"`` or ``"warn"``, a write (any other method) that answered 2xx: the
  write happened, so the answer never says it failed. It is the same ``isError``
  answer, whose message starts "Applied: ..." and whose ``data`` says ``"applied": true``;
* ``"off"``: no check; every 2xx answer is sent as a success.

Each entry of ``errors`` is one problem (:func:`mismatches_of`): ``{"path":
"/result/0/owner", "schemaPath": "properties/result/items/$ref/properties/owner/type",
"keyword": "type", "found": "null"}``, with ``"count": <n>`` when the same problem is in
``n`` items of a list; a missing key is named by its own path (``"/result/id"``,
``"keyword": "required"``, ``"found": "nothing"``), once. The message names the tool and
the first problems in a few lines; ``data.hint`` says what to change in the view, and the
log line gives both remedies (below).

Which answers mismatch at all depends on the published form of the schema
(``MCP_BRIDGE["OUTPUT_SCHEMA"]``): the tolerant form (the default) lets through the
departures real DRF answers make from their OpenAPI (missing keys, ``null``, decimals as
numbers, lists for strings; :func:`mcp_bridge.schemas.conversion.tolerant_output_transform`),
and a bare list where a page is declared (a paginator that pages only when asked), so that a
mismatch is a real contradiction (a list where an object is declared, a text where an integer
is).

The remedies: fix the schema (drf-spectacular's ``@extend_schema_field`` on
the field, ``@extend_schema(responses=...)`` on the view), or declare no
``outputSchema`` for the tool: ``@mcp_tool(output_schema=False)``, or
``MCP_BRIDGE["OMIT_OUTPUT_SCHEMA"]`` per group or tool
(:func:`mcp_bridge.build.tools.declares_output_schema`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import ValidationError

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps_readable, loads
from mcp_bridge.build.tools import Tool
from mcp_bridge.toolcall.results import applied_write_result, contradicted_result
from mcp_bridge.tracing import traced_output_check

logger = logging.getLogger("mcp_bridge.executor")

#: Methods that change nothing (RFC 9110 §9.2.1): a mismatch of their answer may be an error.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: At most this many mismatches are reported in ``data.errors``, and three in the message.
_MAX_ERRORS = 20
_MAX_IN_MESSAGE = 3
_MAX_SCHEMA_TEXT = 80
#: An array index in a JSON Pointer: the same problem in every item of a list is one problem.
_ITEM_INDEX = re.compile(r"/\d+(?=/|$)")

REMEDIES = (
    "Fix the schema (drf-spectacular: @extend_schema_field on the serializer field, or "
    "@extend_schema(responses=...) on the view), or declare no outputSchema for this tool "
    '(@mcp_tool(output_schema=False), or MCP_BRIDGE["OMIT_OUTPUT_SCHEMA"]); see docs/tools.md, '
    '"Output schemas".'
)


@traced_output_check  # a span of its own (mcp_bridge.tracing)
def output_errors(tool: Tool, data: Any, text: str, revision: str) -> list[ValidationError]:
    """The mismatches of the structured content of ``data`` (whose JSON text is ``text``)
    with the tool's ``outputSchema`` for ``revision``; empty when it conforms or there is none."""
    validator = tool.output_validator(revision)
    if validator is None:
        return []
    if _python_data_conforms(validator, tool.structured_content(data, revision)):
        return []  # so does its JSON form
    return list(validator.iter_errors(tool.structured_content(loads(text.encode()), revision)))


def _python_data_conforms(validator: Any, structured: Any) -> bool:
    try:
        return bool(validator.is_valid(structured))
    except Exception:  # noqa: BLE001 -- a Python value jsonschema cannot read: the JSON decides
        return False


def mismatch_result(
    tool: Tool, data: Any, text: str, status: int, revision: str
) -> dict[str, Any] | None:
    """The answer to send instead of the plain success, per ``OUTPUT_VALIDATION``
    (see the module docstring), or ``None`` to send the success."""
    mode = bridge_settings.OUTPUT_VALIDATION
    if mode == "off":
        return None
    errors = output_errors(tool, data, text, revision)
    if not errors:
        return None
    problems = mismatches_of(errors)
    hint = mismatch_hint(tool.method.source.view_label, errors)
    # The log tells the developer what to change; the client gets the data and a short note.
    logger.warning(
        "%s", mismatch_message(tool.name, problems, hint if _is_page_or_list(errors) else REMEDIES)
    )
    note = mismatch_message(tool.name, problems, "")
    listed = [problem.entry() for problem in problems[:_MAX_ERRORS]]
    if tool.method.source.method not in _SAFE_METHODS:
        return applied_write_result(status, note, text, listed, hint)
    if mode == "warn":
        return None
    return contradicted_result(status, note, text, listed, hint)


def mismatch_hint(view_label: str, errors: list[ValidationError]) -> str:
    """What to change in the view, with REMEDIES' general advice. Two common cases get their
    own words: a bare list where a page is documented (a paginator that pages only when asked,
    under ``OUTPUT_SCHEMA = "exact"``: the tolerant form accepts both), and an
    ``@action(detail=False)`` returning ``Serializer(many=True).data``, which drf-spectacular
    describes as one object unless ``@extend_schema(responses=Serializer(many=True))`` says so."""
    if any(_is_bare_page(error) for error in errors):
        return (
            f"{view_label} answers a bare list where its OpenAPI response is a page (count, "
            "next, previous, results): its paginator pages only when asked (no limit or page "
            'given). MCP_BRIDGE["OUTPUT_SCHEMA"] = "tolerant" (the default) accepts both; or '
            "give the paginator a default page size (default_limit, PAGE_SIZE)."
        )
    if _is_page_or_list(errors):
        return (
            f"{view_label} returns a list, but its OpenAPI response is one object: add "
            f"@extend_schema(responses=<its serializer>(many=True)) to it."
        )
    return f"Make the serializer or @extend_schema(responses=...) of {view_label} describe what it returns."


def _is_page_or_list(errors: list[ValidationError]) -> bool:
    """A list where one object (or a page) is declared."""
    return any(isinstance(error.instance, list) and _expects_object(error) for error in errors)


def _is_bare_page(error: ValidationError) -> bool:
    properties = error.schema.get("properties") if isinstance(error.schema, dict) else None
    return (
        isinstance(error.instance, list)
        and _expects_object(error)
        and isinstance(properties, dict)
        and "results" in properties
    )


def _expects_object(error: ValidationError) -> bool:
    expected = error.validator_value
    return error.validator == "type" and "object" in (
        expected if isinstance(expected, list) else [expected]
    )


@dataclass
class Mismatch:
    """One mismatch, as the client is told it: where (``path``, the first instance), what was
    found, the schema part it breaks, and in how many places (``count``: the same problem in
    each item of a list is one problem)."""

    path: str
    schema_path: str
    keyword: str
    found: str
    expected: str
    count: int = 1

    def entry(self) -> dict[str, Any]:
        """The entry of ``data.errors``."""
        entry: dict[str, Any] = {
            "path": self.path,
            "schemaPath": self.schema_path,
            "keyword": self.keyword,
            "found": self.found,
        }
        if self.count > 1:
            entry["count"] = self.count
        return entry

    def line(self) -> str:
        more = f" (and {self.count - 1} more like it)" if self.count > 1 else ""
        if self.keyword == "required":
            return f"  {self.path}: missing, but required (at {self.schema_path}){more}"
        return f"  {self.path}: {self.found} breaks {self.expected} (at {self.schema_path}){more}"


def mismatches_of(errors: list[ValidationError]) -> list[Mismatch]:
    """The problems behind ``errors``, once each, in the order found.

    * a ``required`` error names the missing key by its own path (``/result/id``,
      ``found: "nothing"``), once per key, instead of the object and the whole list;
    * an ``anyOf``/``oneOf`` error (a nullable ``$ref``, a union) is replaced by the
      errors of the branch that the value's type matches, when one does;
    * the same problem in several items of a list (the same schema part, the same path but
      for the item indexes) is one problem with a ``count``.
    """
    problems: dict[tuple[str, str, str], Mismatch] = {}
    objects_seen: set[tuple[str, str]] = set()  # jsonschema reports each missing key apart
    for error in _leaf_errors(errors):
        where = (_pointer(error.absolute_path), _schema_pointer(error))
        if error.validator == "required":
            if where in objects_seen:
                continue
            objects_seen.add(where)
        for problem in _problems_of(error):
            key = (_ITEM_INDEX.sub("/*", problem.path), problem.schema_path, problem.keyword)
            if key in problems:
                problems[key].count += 1
            else:
                problems[key] = problem
    return list(problems.values())


def _pointer(parts: Iterable[Any]) -> str:
    return "/" + "/".join(str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def _schema_pointer(error: ValidationError) -> str:
    return "/".join(str(part) for part in error.absolute_schema_path)


def _leaf_errors(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    for error in errors:
        branch = _matching_branch(error) if error.validator in ("anyOf", "oneOf") else None
        if branch:
            yield from _leaf_errors(branch)
        else:
            yield error


def _matching_branch(error: ValidationError) -> list[ValidationError] | None:
    """The errors of the one branch of a union whose type the value has (its errors are
    deeper than the value itself), or ``None`` when no branch, or more than one, does."""
    by_branch: dict[Any, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    typed = [
        branch
        for branch in by_branch.values()
        if not any(
            sub.validator in ("type", "const", "enum") and not sub.relative_path for sub in branch
        )
    ]
    return typed[0] if len(typed) == 1 else None


def _problems_of(error: ValidationError) -> Iterator[Mismatch]:
    path = _pointer(error.absolute_path)
    schema_path = _schema_pointer(error)
    if error.validator == "required" and isinstance(error.instance, dict):
        required = error.validator_value if isinstance(error.validator_value, list) else []
        for name in required:
            if name not in error.instance:
                yield Mismatch(
                    path=_pointer([*error.absolute_path, name]),
                    schema_path=schema_path,
                    keyword="required",
                    found="nothing",
                    expected="a required key",
                )
        return
    yield Mismatch(
        path=path,
        schema_path=schema_path,
        keyword=str(error.validator),
        found=_describe(error.instance),
        expected=_schema_text(error),
    )


def mismatch_message(tool_name: str, problems: list[Mismatch], remedies: str = REMEDIES) -> str:
    """A few lines: the tool, the first problems (path, what was found, the schema part it
    broke) and both remedies. The data itself is never copied (a value is described by its
    JSON type and size)."""
    lines = [f"The data of tool {tool_name!r} does not match its outputSchema:"]
    lines.extend(problem.line() for problem in problems[:_MAX_IN_MESSAGE])
    if len(problems) > _MAX_IN_MESSAGE:
        lines.append(f"  ... and {len(problems) - _MAX_IN_MESSAGE} more")
    if remedies:
        lines.append(remedies)
    return "\n".join(lines)


def _schema_text(error: ValidationError) -> str:
    try:
        value = dumps_readable(error.validator_value, indent=None)
    except ValueError:  # a circular value
        value = "..."
    if len(value) > _MAX_SCHEMA_TEXT:
        value = value[: _MAX_SCHEMA_TEXT - 3] + "..."
    return f'"{error.validator}": {value}'


def _describe(value: Any) -> str:
    """The JSON type of ``value`` and its size, never its content (except a short scalar)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return f"the number {text}" if len(text) <= 20 else "a number"
    if isinstance(value, str):
        return (
            f"the string {json.dumps(value, ensure_ascii=False)}"
            if len(value) <= 20
            else f"a string of {len(value)} characters"
        )
    if isinstance(value, list):
        return f"an array of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        keys = ", ".join(list(map(str, value))[:5])
        return (
            f"an object with keys {keys}{', ...' if len(value) > 5 else ''}"
            if value
            else "an empty object"
        )
    return type(value).__name__
