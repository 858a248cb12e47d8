"""Discovery, the modes: how ``tools/list`` presents a group, direct or through search.

A client puts the whole ``tools/list`` in front of the model on every turn, and a big DRF
group cannot be listed whole (VS Code refuses more than 128 tools; a generated group of
1,000 operations lists about a million tokens). ``MCP_BRIDGE["DISCOVERY"]`` picks one of
two presentations per group (docs/discovery.md):

* **direct**: every tool is listed;
* **search**: ``tools/list`` holds the pinned tools and the discovery meta-tools
  (:mod:`mcp_bridge.discovery.metatools`).

``"auto"`` decides once per build (:func:`decide`), from the direct listing's size: the
same answer for every language, profile and caller of the group.

Token figures are estimates (:func:`mcp_bridge.base.tokens.estimate_tokens`) of the JSON
text a client receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.errors import Problem
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION
from mcp_bridge.base.tokens import estimate_tokens
from mcp_bridge.build.tools import Tool
from mcp_bridge.discovery.metatools import META_TOOL_NAMES

DIRECT = "direct"
SEARCH = "search"
AUTO = "auto"

#: VS Code refuses a ``tools/list`` of more tools than this (W100 names it).
CLIENT_TOOL_LIMIT = 128


def configured_mode(group: str) -> str:
    """The ``DISCOVERY`` mode of ``group``: its own entry, else ``"*"``, else ``"auto"``."""
    setting = bridge_settings.DISCOVERY
    if isinstance(setting, str):
        return setting
    return str(setting.get(group, setting.get("*", AUTO)))


def listing_size(tools: list[Any], revision: str, profile: str) -> tuple[int, int]:
    """``(bytes, estimated tokens)`` of the ``tools`` array a ``tools/list`` answer holds."""
    text = dumps([tool.as_mcp(revision, profile) for tool in tools])
    return len(text.encode()), estimate_tokens(text)


@dataclass(frozen=True)
class Discovery:
    """How a group's ``tools/list`` is presented, decided once per build.

    Attributes:
        mode: the configured mode (``"direct"``, ``"search"``, ``"auto"``).
        search: whether ``tools/list`` lists the pinned tools and the meta-tools.
        tools: how many tools the direct listing has.
        tokens: its estimated tokens (``SCHEMA_PROFILE``, the latest handshake revision),
            or ``None`` when they were not needed to decide.
    """

    mode: str = DIRECT
    search: bool = False
    tools: int = 0
    tokens: int | None = None


def decide(group: str, tools: list[Tool]) -> Discovery:
    """The :class:`Discovery` of a group's tools (see ``DISCOVERY``)."""
    mode = configured_mode(group)
    count = len(tools)
    if mode == SEARCH:
        return Discovery(mode, True, count)
    if mode == AUTO and count > bridge_settings.DISCOVERY_MAX_TOOLS:
        return Discovery(mode, True, count)
    if mode == DIRECT and count > CLIENT_TOOL_LIMIT:
        return Discovery(mode, False, count)  # W100 already: the count says it
    _, tokens = listing_size(tools, LATEST_HANDSHAKE_REVISION, bridge_settings.SCHEMA_PROFILE)
    search = mode == AUTO and tokens > bridge_settings.DISCOVERY_MAX_TOKENS
    return Discovery(mode, search, count, tokens)


def find_discovery_problems(
    group: str, version: str | None, tools: list[Tool], discovery: Discovery
) -> tuple[list[Problem], list[Problem]]:
    """``(errors, warnings)`` of a group's discovery.

    * ``mcp_bridge.E100``: the group is in search mode and a real tool has a meta-tool's
      name (one name, two tools: the client could not tell which it calls);
    * ``mcp_bridge.W100``: the group is in direct mode and its listing has more than
      :data:`CLIENT_TOOL_LIMIT` tools or more than ``DISCOVERY_MAX_TOKENS`` estimated tokens.
    """
    label = f"{group}/{version}" if version else group
    errors: list[Problem] = []
    warnings: list[Problem] = []
    if discovery.search:
        errors += [
            Problem(
                "mcp_bridge.E100",
                f"Tool {tool.name!r} of group {label!r} ({tool.method.source.view_label}) has the "
                f"name of a discovery meta-tool, and the group is in search mode.",
                "Rename the operation (@mcp_tool(name=...)), or set "
                f'MCP_BRIDGE["DISCOVERY"] = {{"{group}": "direct"}}.',
                tool.method.source.culprit,
            )
            for tool in tools
            if tool.name in META_TOOL_NAMES
        ]
    elif discovery.tools > CLIENT_TOOL_LIMIT or (
        discovery.tokens is not None and discovery.tokens > bridge_settings.DISCOVERY_MAX_TOKENS
    ):
        size = f"{discovery.tools} tools"
        if discovery.tokens is not None:
            size += f", about {discovery.tokens:,} tokens"
        warnings.append(
            Problem(
                "mcp_bridge.W100",
                f"Group {label!r} lists all its tools ({size}) on every turn of a conversation: "
                f"VS Code refuses more than {CLIENT_TOOL_LIMIT} tools, and models choose worse "
                f"among many (DISCOVERY_MAX_TOKENS is {bridge_settings.DISCOVERY_MAX_TOKENS:,}).",
                f'Set MCP_BRIDGE["DISCOVERY"] to "auto" or {{"{group}": "search"}} (a search '
                "tool instead of the listing, docs/discovery.md), or split the group.",
                'MCP_BRIDGE["DISCOVERY"]',
            )
        )
    return errors, warnings
