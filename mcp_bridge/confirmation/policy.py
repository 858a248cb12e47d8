"""Who asks: which tools a person must confirm before their view runs.

A tool asks when its operation's ``@mcp_tool(confirm=...)`` says so (``True`` asks in every
group, ``False`` never), else when its group's rule in ``MCP_BRIDGE["CONFIRM"]`` (or the
``"*"`` rule, for the groups not named) covers it:

* ``"destructive"``: the tools whose annotations say they may destroy (``readOnlyHint`` false
  and ``destructiveHint`` true or absent, the MCP default): ``DELETE`` and ``PUT``
  operations unless ``@mcp_tool(destructive=False)``;
* ``"writes"``: every tool that is not read-only;
* a list of tool names: those tools;
* ``"never"``: none.

The answer depends on the tool and its group only, so it is worked out once per group and
tool and kept until a setting changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.signals import setting_changed

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.build.tools import Tool

#: The rules a group may have in ``MCP_BRIDGE["CONFIRM"]`` besides a list of tool names.
RULES = ("destructive", "writes", "never")

_decided: dict[tuple[str, str, str, str], bool] = {}


def asks_confirmation(tool: Tool, group: str) -> bool:
    """Whether a call of ``tool`` in ``group`` waits for a person's confirmation."""
    source = tool.method.source  # the name alone may stand for another operation in another version
    key = (group, tool.name, source.method, source.path)
    decided = _decided.get(key)
    if decided is None:
        decided = _decided[key] = _decide(tool, group)
    return decided


def _decide(tool: Tool, group: str) -> bool:
    own = tool.method.source.metadata.get("confirm")
    if own is not None:
        return bool(own)
    rules: Mapping[str, Any] = bridge_settings.CONFIRM
    rule = rules.get(group, rules.get("*", "never"))
    annotations = tool.annotations
    if rule == "writes":
        return not annotations.get("readOnlyHint", False)
    if rule == "destructive":
        return not annotations.get("readOnlyHint", False) and annotations.get(
            "destructiveHint", True
        )
    if isinstance(rule, (list, tuple)):
        return tool.name in rule
    return False


def custom_message(tool: Tool) -> Any:
    """The ``@mcp_tool(confirm_message=...)`` of the tool's operation, or ``None``."""
    return tool.method.source.metadata.get("confirm_message")


def allows_unconfirmed(group: str) -> bool:
    """Whether ``MCP_BRIDGE["CONFIRM_WITHOUT_ELICITATION"]`` lets a client that cannot ask a
    person call the tools of ``group`` that ask, without a confirmation."""
    allowed = bridge_settings.CONFIRM_WITHOUT_ELICITATION
    if isinstance(allowed, Mapping):
        return bool(allowed.get(group, allowed.get("*", False)))
    return bool(allowed)


def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting == "MCP_BRIDGE":
        _decided.clear()


setting_changed.connect(_forget)
