"""A person confirms a call in its MCP App page, where the client cannot ask.

Some hosts render MCP Apps (SEP-1865) but cannot answer the question of a confirming tool: a
client of a handshake-era revision, or one that did not declare the ``elicitation``
capability. For such a client, when it renders the tools' pages
(:func:`~mcp_bridge.base.apps_extension.declares_apps`) and the tool has a page, the call does
not run: its result (:func:`asked_result`, an ``isError`` result) tells the model that a
person must confirm in the page, and carries for the page only, in its ``_meta``
(:data:`META_KEY`), the question, the call and a signed ``requestState`` (:data:`IN_PAGE`,
bound as every state: :mod:`~mcp_bridge.confirmation.state`). The page shows the question
with Confirm and Cancel; Confirm calls :data:`CONFIRM_TOOL`, a tool listed with
``_meta.ui.visibility: ["app"]``, which the host must keep from the model (SEP-1865,
"Visibility"), with the call's name, arguments and that state. Only that tool accepts such a
state, once; the original tool's ``requestState`` refuses it.

What the server cannot know: who pressed the button. A host that breaks the extension's rules
(lets the model call an app-only tool, or shows it the result's ``_meta``) can let the model
confirm alone; docs/apps.md says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_bridge.base.apps_extension import declares_apps
from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.protocol import MODERN_REVISIONS
from mcp_bridge.build.tools import Tool
from mcp_bridge.toolset.registry import ToolSet

#: The app-only tool a page calls when the person presses Confirm.
CONFIRM_TOOL = "mcp_bridge_confirm"
#: The ``_meta`` key of the result that asks in the page: what the page reads (never the model).
META_KEY = "mcp-bridge/confirmation"
#: The ``c`` of a state issued for a confirmation in a page (:mod:`~mcp_bridge.confirmation.state`).
IN_PAGE = "page"


def offered(tool: Tool, toolset: ToolSet, params: Mapping[str, Any], revision: str) -> bool:
    """Whether a person may confirm a call of ``tool`` in its page: the client renders the
    pages, and the tool has one (every tool that asks has a page unless
    ``@mcp_tool(app=False)``: :func:`mcp_bridge.ui.kinds.kind_of`). Never in a group with a
    tool of its own named :data:`CONFIRM_TOOL`: the page's Confirm would call that tool, so its
    callers are refused as clients that cannot ask."""
    if tool.method.source.metadata.get("app") is False or CONFIRM_TOOL in toolset.by_name:
        return False
    return declares_apps(params, revision, revision in MODERN_REVISIONS)


def asked_result(
    tool: Tool, arguments: dict[str, Any], question: str, state: str, destructive: bool
) -> dict[str, Any]:
    """The ``isError`` result of a call that waits for a person to confirm it in its page.

    Its text, which the model reads, says that nothing was done and that a person confirms in
    the page; it carries no state. ``_meta[META_KEY]`` carries what the page needs:
    ``question``, ``name``, ``arguments`` (as the server checked them), ``state`` and
    ``tool`` (:data:`CONFIRM_TOOL`).
    """
    message = (
        f"Nothing was done yet: tool {tool.name!r} asks a person to confirm each call, and "
        f"your client cannot ask them, so the question is in the page shown with this result: "
        f"{question} The person confirms or cancels there; only their press of Confirm in the "
        "page carries out the call. Do not call the tool again for this; wait for the person. "
        "If no page is shown, your client does not render MCP Apps: use a client that declares "
        "the elicitation capability, or `manage.py mcp_call ... --yes` on the server, or ask "
        "the operator about MCP_BRIDGE['CONFIRM_WITHOUT_ELICITATION']."
    )
    data = {
        "status": 428,
        "confirmation": "in_page",
        "question": question,
        "setting": "CONFIRM_WITHOUT_ELICITATION",
    }
    return {
        "content": [
            {"type": "text", "text": dumps({"code": 428, "message": message, "data": data})}
        ],
        "isError": True,
        "_meta": {
            META_KEY: {
                "question": question,
                "name": tool.name,
                "arguments": arguments,
                "state": state,
                "tool": CONFIRM_TOOL,
                "destructive": destructive,
            }
        },
    }
