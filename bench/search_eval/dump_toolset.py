"""Dump the tool set the bridge builds for a real application, for the search evaluation.

Run inside the application's own environment (its virtualenv, with this repository's
``mcp_bridge`` installed, ``mcp_bridge`` in ``INSTALLED_APPS`` and a group holding the
application's whole API in ``MCP_BRIDGE["GROUPS"]``; README.md says how each application was
set up)::

    DJANGO_SETTINGS_MODULE=... python bench/search_eval/dump_toolset.py APP GROUP VERSION [--api-version V] [--context CM] [--jsonl FILE]

It writes ``bench/search_eval/<APP>.tools.json.gz``: the application's name and version, the
group, and one :class:`~mcp_bridge.discovery.index.ToolText` per tool (what the search index
reads of a tool: its texts by field, its kind, its resource; under ``tool``, its title,
description and arguments as a client sees them, for the baselines), so that :mod:`bench.search_eval.run`
builds the bridge's real index over it without the application installed. ``--jsonl`` also
writes one line per tool (name, title, description, HTTP method and path) for the task writers.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def _own_texts(tool: object) -> dict[str, object]:
    """The tool as a client sees it, for the baselines that index only that: title,
    description, and each argument's name and description (not the whole inputSchema)."""
    properties = tool.input_schema.get("properties", {})  # type: ignore[attr-defined]
    return {
        "title": tool.title,  # type: ignore[attr-defined]
        "description": tool.description,  # type: ignore[attr-defined]
        "arguments": {
            name: (schema.get("description") or "") if isinstance(schema, dict) else ""
            for name, schema in properties.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app")
    parser.add_argument("group")
    parser.add_argument("version", help="the application's version, as installed")
    parser.add_argument(
        "--api-version", help="the API version of the group's endpoint (DRF versioning)"
    )
    parser.add_argument(
        "--context",
        help="a dotted path to a context manager to build in (pretix: django_scopes.scopes_disabled)",
    )
    parser.add_argument("--jsonl", help="also write the task writers' tool list here")
    options = parser.parse_args()

    import django

    django.setup()
    from mcp_bridge.discovery.index import tool_text
    from mcp_bridge.toolset.registry import get_toolset

    context = contextlib.nullcontext()
    if options.context:
        module, _, name = options.context.rpartition(".")
        context = getattr(importlib.import_module(module), name)()
    with context:
        toolset = get_toolset(options.group, options.api_version)
    texts = [{**tool_text(tool).as_json(), "tool": _own_texts(tool)} for tool in toolset.tools]
    dump = {
        "app": options.app,
        "version": options.version,
        "group": options.group,
        "tools": texts,
    }
    target = HERE / f"{options.app}.tools.json.gz"
    with gzip.open(target, "wt", encoding="utf-8") as out:
        json.dump(dump, out, ensure_ascii=False, sort_keys=True)
    print(f"{len(texts)} tools -> {target}", file=sys.stderr)
    if options.jsonl:
        path = pathlib.Path(options.jsonl)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as out:
            for tool in toolset.tools:
                line = {
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "method": tool.facts.http_method,
                    "path": tool.method.source.path,
                }
                out.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
