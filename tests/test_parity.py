"""A tool call equals its REST call for every value (issue 14).

For each tool of the demo's groups and a set of awkward values (strings a REST client
must percent-encode, integers beyond 53 and 64 bits, nulls, empty lists), the same
operation is called through MCP and through REST, as a REST client would call it
(path values percent-encoded, query values as text, the body as JSON). DRF's
``APIView.initial`` is wrapped for the test to record what the view receives: its
``kwargs``, ``query_params`` and ``data``. Both records must be equal, and both calls
must reach a view or neither.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.test import Client
from rest_framework.views import APIView

from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient

GROUPS = ("catalog", "orders", "backoffice")
STRINGS = [
    "a b",
    "café",
    "100%",
    "a%2Fb",
    "a/b",
    "x+y",
    "q?x=1&y=2",
    "hash#tag",
    "日本語",
    "'\"<>\\",
    "",
    " ",
    "-_.~",
]
INTEGERS = [0, -1, 2**53 + 1, 2**63 + 5, 10**30]
NUMBERS = [1.5, 2**70, -0.0]


def _type_of(schema: dict[str, Any]) -> tuple[str | None, bool]:
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    nullable = "null" in kinds
    main = next((k for k in kinds if k != "null"), None)
    return main, nullable


def _values(schema: dict[str, Any]) -> list[Any]:
    """Awkward values of a property, of its type."""
    if "enum" in schema:
        return list(schema["enum"])
    kind, nullable = _type_of(schema)
    values: list[Any] = [None] if nullable else []
    if kind == "string":
        values += STRINGS
    elif kind == "integer":
        values += INTEGERS
    elif kind == "number":
        values += INTEGERS[:3] + NUMBERS
    elif kind == "boolean":
        values += [True, False]
    elif kind == "array":
        values += [[]]
        items = schema.get("items", {})
        if _type_of(items)[0] in ("string", "integer"):
            values += [_values(items)[:4]]
    elif kind == "object":
        values += [{}]
    return values


def _default(schema: dict[str, Any]) -> Any:
    values = [v for v in _values(schema) if v is not None]
    return values[0] if values else None


def _argument_sets(tool: Any) -> list[dict[str, Any]]:
    properties = tool.input_schema.get("properties", {})
    required = tool.input_schema.get("required", [])
    base = {name: _default(properties[name]) for name in required}
    sets = [base]
    for name, schema in properties.items():
        for value in _values(schema):
            sets.append({**base, name: value})
    return [arguments for arguments in sets if not list(tool.validator.iter_errors(arguments))]


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _rest_call(
    client: Client, tool: Any, arguments: dict[str, Any], headers: dict[str, str]
) -> int:
    """The operation as a REST client sends it."""
    source = tool.method.source
    path, query, fields, body = source.path, [], {}, None
    for param in tool.method.params:
        if param.name not in arguments:
            continue
        value = arguments[param.name]
        if param.location == "path":
            path = path.replace("{" + param.source_name + "}", quote(_text(value), safe=""))
        elif param.location == "query" and value is not None:
            if isinstance(value, list):
                query += [(param.source_name, _text(v)) for v in value]
            else:
                query.append((param.source_name, _text(value)))
        elif param.location == "body_field":
            fields[param.source_name] = value
        elif param.location == "body":
            body = value
    if body is None and any(p.location == "body_field" for p in tool.method.params):
        body = fields
    url = path + ("?" + urlencode(query) if query else "")
    data = json.dumps(body) if body is not None else ""
    response = client.generic(
        source.method,
        url,
        data,
        content_type="application/json",
        headers={"Accept": "application/json", **headers},
    )
    return response.status_code


@pytest.fixture
def seen(monkeypatch):
    """What each DRF view receives, recorded as it starts (before authentication and permissions)."""
    records: list[dict[str, Any]] = []
    initial = APIView.initial

    def recording(self, request, *args, **kwargs):
        try:
            data = request.data
            data = data.dict() if hasattr(data, "dict") else data
        except Exception as exc:  # noqa: BLE001 - the parse error itself is what the view "receives"
            data = f"<{type(exc).__name__}>"
        records.append(
            {
                "view": f"{type(self).__name__}.{getattr(self, 'action', None) or request.method}",
                "args": list(args),
                "kwargs": kwargs,
                "query": {key: request.query_params.getlist(key) for key in request.query_params},
                "data": data,
            }
        )
        return initial(self, request, *args, **kwargs)

    monkeypatch.setattr(APIView, "initial", recording)
    return records


@pytest.mark.parametrize("group", GROUPS)
def test_the_view_receives_the_same_through_mcp_and_rest(group, seen, make_user):
    _, token = make_user("parity", staff=True)
    headers = {"Authorization": f"Token {token}"}
    mcp = McpClient(Client(raise_request_exception=False), f"/mcp/{group}/", **headers)
    rest = Client(raise_request_exception=False)
    compared = 0
    for tool in get_toolset(group, None).tools:
        for arguments in _argument_sets(tool):
            seen.clear()
            mcp.call(tool.name, arguments)
            through_mcp = list(seen)
            seen.clear()
            status = _rest_call(rest, tool, arguments, headers)
            through_rest = list(seen)
            assert through_mcp == through_rest, (tool.name, arguments, status)
            compared += bool(through_rest)
    assert compared > 20
