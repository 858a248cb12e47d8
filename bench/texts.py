"""Benchmark: what the default texts add to a listing and what the boilerplate trimming saves.

For the demo's groups and the realistic API (tests/realistic, 225 operations, no docstrings),
the ``tools/list`` of each group at 2025-11-25 in the default profile, as the bridge encodes
it (every tool's ``Tool`` object, summed), built four ways in one process:

* **before**: neither default texts nor trimming (the bridge before issue 20);
* **defaults**: default titles and descriptions from the facts, boilerplate kept;
* **trimmed**: boilerplate trimmed, no default texts;
* **shipped**: both, as the bridge builds it now.

Counts, not timings: bytes and estimated tokens (:func:`mcp_bridge.base.tokens.estimate_tokens`).
``python -m bench.texts`` prints the table (docs/tools.md quotes it).
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from unittest import mock

VARIANTS = ("before", "defaults", "trimmed", "shipped")


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.realistic.settings")
    import django

    django.setup()


def _patches(variant: str) -> list[mock._patch]:
    from mcp_bridge.build import tools
    from mcp_bridge.toolset import registry

    patches = []
    if variant in ("before", "trimmed"):
        patches += [
            mock.patch.object(tools, "title_from_facts", lambda facts: None),
            mock.patch.object(tools, "description_from_facts", lambda facts: None),
        ]
    if variant in ("before", "defaults"):
        patches += [
            mock.patch.object(tools, "argument_kind", lambda *args: None),
            mock.patch.object(registry, "trimmed_components", lambda components: components),
        ]
    return patches


def listing_bytes(group: str, urlconf: str, bridge: dict, variant: str) -> tuple[int, bytes]:
    """``(tools, encoded Tool objects)`` of the group's listing built as ``variant``."""
    from django.test import override_settings

    from mcp_bridge.base.encoding import dumps_bytes
    from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION
    from mcp_bridge.toolset import registry

    with ExitStack() as stack:
        stack.enter_context(override_settings(ROOT_URLCONF=urlconf, MCP_BRIDGE=bridge))
        for patch in _patches(variant):
            stack.enter_context(patch)
        registry.clear_cache()
        toolset = registry.get_toolset(group)
        encoded = b"".join(dumps_bytes(t.as_mcp(LATEST_HANDSHAKE_REVISION)) for t in toolset.tools)
        count = len(toolset.tools)
    registry.clear_cache()
    return count, encoded


def main() -> None:
    _setup()
    from mcp_bridge.base.tokens import estimate_tokens
    from tests.realistic import GROUP, MCP_BRIDGE, URLCONF

    demo = {"SERVER_NAME": "tests"}
    groups = [
        ("catalog", "tests.urls", demo),
        ("orders", "tests.urls", demo),
        ("backoffice", "tests.urls", demo),
        (GROUP, URLCONF, MCP_BRIDGE),
    ]
    header = ["group", "tools", *VARIANTS, "trimming saves", "per tool"]
    rows = []
    for group, urlconf, bridge in groups:
        sizes, tokens = {}, {}
        count = 0
        for variant in VARIANTS:
            count, encoded = listing_bytes(group, urlconf, bridge, variant)
            sizes[variant], tokens[variant] = len(encoded), estimate_tokens(encoded)
        saved = sizes["defaults"] - sizes["shipped"]
        rows.append(
            [
                group,
                count,
                *(f"{sizes[v]:,} B ({tokens[v]:,} tok)" for v in VARIANTS),
                f"{saved:,} B ({saved / sizes['defaults']:.1%})",
                f"{saved / count:.0f} B",
            ]
        )
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")


if __name__ == "__main__":
    main()
