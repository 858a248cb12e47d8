"""Whether a request's client renders MCP Apps (SEP-1865, the ``io.modelcontextprotocol/ui``
extension), as the ``APPS`` setting decides it.

In the base because two layers ask it of the same request: the pages (``tools/list`` names a
tool's page, :mod:`mcp_bridge.ui`) and confirmation (a person may confirm a call in its page
where the client cannot ask, :mod:`mcp_bridge.confirmation.in_page`), which sits below them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.protocol import CLIENT_CAPABILITIES_META_KEY, supports_titles_and_output

#: The extension's identifier (SEP-1865).
EXTENSION = "io.modelcontextprotocol/ui"


def declares_apps(params: Mapping[str, Any], revision: str, modern: bool) -> bool:
    """Whether the client of this request gets the tools' pages (the ``APPS`` setting):
    ``"declared"``, a 2026-07-28 request whose ``_meta`` declares the extension;
    ``"always"``, any client that reads ``_meta`` of a tool (2025-06-18 on); ``False``, none."""
    mode = bridge_settings.APPS
    if mode is False or not supports_titles_and_output(revision):
        return False
    if mode == "always":
        return True
    if not modern:
        return False
    meta = params.get("_meta")
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    return isinstance(extensions, Mapping) and EXTENSION in extensions
