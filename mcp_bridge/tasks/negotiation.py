"""The Tasks extension's negotiation (``io.modelcontextprotocol/tasks``, SEP-2663).

* The server advertises the extension in ``server/discover``:
  ``capabilities.extensions["io.modelcontextprotocol/tasks"] = {}`` (:data:`DISCOVER_EXTENSIONS`).
* A request declares it in ``params._meta["io.modelcontextprotocol/clientCapabilities"]
  .extensions`` (:func:`declares_tasks`). Only such a ``tools/call`` may be answered with a
  ``CreateTaskResult``; every other client gets the answer it got before, byte for byte.
* ``tasks/get``, ``tasks/update`` and ``tasks/cancel`` from a request that does not declare it,
  and a ``tools/call`` of a tool that can only be served as a task, are refused with -32021
  (Missing Required Client Capability) naming the extension (:func:`missing_capability`).

The handshake era (2025-03-26 .. 2025-11-25) gets no task: 2025-11-25's experimental ``tasks``
capability (a ``task`` param on ``tools/call``, ``tasks/result``, ``tasks/list``) is replaced by
this extension, and the official Python SDK 2.x client has no client for it. Such a client's
``task`` param is ignored and the call runs as before (docs/tasks.md, "Protocol revisions").
"""

from __future__ import annotations

from typing import Any

from mcp_bridge.base.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    JsonRpcError,
)

#: The extension's identifier.
EXTENSION = "io.modelcontextprotocol/tasks"

#: What ``server/discover`` adds to the capabilities: no settings (an empty object).
DISCOVER_EXTENSIONS: dict[str, Any] = {EXTENSION: {}}


def declares_tasks(params: dict[str, Any]) -> bool:
    """Whether a 2026-07-28 request's ``_meta`` declares the Tasks extension."""
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        return False
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY)
    if not isinstance(capabilities, dict):
        return False
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and EXTENSION in extensions


def missing_capability(what: str) -> JsonRpcError:
    """The -32021 error of a request that needs the extension but did not declare it."""
    return JsonRpcError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"Missing required client capability: {what} needs the {EXTENSION} extension. Declare "
        f'it in params._meta["{CLIENT_CAPABILITIES_META_KEY}"].extensions.',
        data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
        http_status=400,
    )
