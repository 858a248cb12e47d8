"""Output schemas that real answers fit (issue 19): how many calls a client is refused.

Runs, in process, the calls of the test apps whose OpenAPI is inexact the way real
applications' are (group ``realanswers``, tests/realanswers) and those of the ``results``
group whose schema really contradicts the data (tests/testapp/results_views.py), and
classifies each result as the official ``mcp`` client (2.x) would take it
(``ClientSession.validate_tool_result``: a result that is not ``isError`` must carry
``structuredContent`` when the tool has an ``outputSchema``, and it must validate):

* ``ok``: a success the client accepts, with the data as text and ``structuredContent``;
* ``file``: a success the client accepts, holding a file (an image or resource block);
* ``refused``: a success the client refuses (no ``structuredContent`` beside an
  ``outputSchema``, or ``structuredContent`` that breaks it);
* ``isError``: a read answered as an error because its data breaks the schema;
* ``applied``: a write that was carried out, answered ``isError`` with ``applied: true``.

Also the size of each group's ``tools/list`` (2025-11-25, ``defs`` profile), to show what the
tolerant form costs.

Usage, from the repository root (the test virtualenv)::

    PYTHONPATH=. .venv/bin/python -m bench.output_fit [tolerant|exact]

To measure another version of the package (e.g. the one before the tolerant form), put its
``mcp_bridge`` first on ``PYTHONPATH`` and run the same command without an argument.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from typing import Any


def main(form: str | None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.test.runner import DiscoverRunner
    from django.test.utils import override_settings, setup_test_environment

    setup_test_environment()
    runner = DiscoverRunner(verbosity=0)
    databases = runner.setup_databases()
    bridge = {**settings.MCP_BRIDGE, **({"OUTPUT_SCHEMA": form} if form else {})}
    try:
        with override_settings(MCP_BRIDGE=bridge):
            run()
    finally:
        runner.teardown_databases(databases)


def run() -> None:
    from django.test import Client
    from jsonschema import Draft202012Validator

    from tests.mcp_client import McpClient
    from tests.realanswers.models import Item, Owner, Shelf

    owner = Owner.objects.create(name="ann")
    shelf = Shelf.objects.create(label="top")
    lamp = Item.objects.create(
        name="lamp", owner=owner, shelf=shelf, price="9.50", colours=["red", "blue"]
    )
    desk = Item.objects.create(name="desk", price="120.00")
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("realanswers", "item_list", {}),
        ("realanswers", "item_retrieve", {"id": lamp.pk}),
        ("realanswers", "item_retrieve", {"id": desk.pk}),
        ("realanswers", "item_download", {"id": lamp.pk}),
        ("realanswers", "item_summary", {}),
        ("realanswers", "item_census", {}),
        ("realanswers", "item_create", {"name": "chair", "colours": "red"}),
        ("realanswers", "item_partial_update", {"id": desk.pk, "name": "big desk"}),
        ("realanswers", "item_update", {"id": lamp.pk, "name": "lamp", "price": "8.00"}),
        ("results", "statuses", {}),
        ("results", "loose_rows", {}),
        ("results", "wrong_rows", {}),
        ("results", "add_entry", {"name": "paid", "amount": 3}),
    ]
    clients: dict[str, McpClient] = {}
    schemas: dict[str, dict[str, Any]] = {}
    counts: dict[str, Counter[str]] = {"read": Counter(), "write": Counter()}
    print(f"{'group':12} {'tool':22} {'kind':5} outcome")
    for group, name, arguments in calls:
        if group not in clients:
            clients[group] = McpClient(Client(), f"/mcp/{group}/")
            tools = clients[group].list_tools()
            schemas[group] = {tool["name"]: tool for tool in tools}
        tool = schemas[group][name]
        kind = "read" if tool["annotations"]["readOnlyHint"] else "write"
        result = clients[group].call(name, arguments)
        outcome = classify(result, tool.get("outputSchema"), Draft202012Validator)
        counts[kind][outcome] += 1
        print(f"{group:12} {name:22} {kind:5} {outcome}")
    for kind, counter in counts.items():
        total = sum(counter.values())
        shown = ", ".join(f"{outcome} {n}" for outcome, n in sorted(counter.items()))
        print(f"{kind}s: {total} ({shown})")
    print("tools/list bytes (2025-11-25, defs):")
    for group in ("realanswers", "results", "catalog", "orders", "backoffice"):
        client = McpClient(Client(), f"/mcp/{group}/")
        listed = client.request("tools/list", id=1)
        print(f"  {group:12} {len(listed.content):>8}")


def classify(result: dict[str, Any], schema: dict[str, Any] | None, validator_class: Any) -> str:
    if result.get("isError"):
        try:
            error = json.loads(result["content"][0]["text"])
        except (KeyError, ValueError):
            return "isError"
        applied = isinstance(error.get("data"), dict) and error["data"].get("applied") is True
        return "applied" if applied else "isError"
    if result["content"] and result["content"][0]["type"] in ("image", "resource"):
        return "file" if schema is None else "refused"
    if schema is None:
        return "ok"
    if "structuredContent" not in result:
        return "refused"
    return "ok" if validator_class(schema).is_valid(result["structuredContent"]) else "refused"


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
