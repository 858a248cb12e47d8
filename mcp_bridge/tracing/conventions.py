"""The names the OpenTelemetry semantic conventions for MCP give, and the bridge's own.

Pinned: ``open-telemetry/semantic-conventions-genai``, ``docs/gen-ai/mcp.md`` at commit
``0393513c908bf895e7b3ec480a2c1eb073c584af`` (status "Development"; it links the general
registry of semantic conventions v1.41.1). The MCP server span, its attributes, the metric
``mcp.server.operation.duration`` and its bucket boundaries are as that page writes them.
Names in the ``mcp_bridge.`` namespace are the bridge's own: the conventions have no word for
them (the API group, the stages of a call, the tool errors counted per tool).

This module imports nothing: the names are read by the tests and the documentation too.
"""

from __future__ import annotations

#: The conventions this package follows (docs/tracing.md quotes it).
CONVENTIONS = (
    "open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md "
    "@ 0393513c908bf895e7b3ec480a2c1eb073c584af"
)

#: The instrumentation scope of every span and instrument: the package.
SCOPE = "mcp_bridge"

# -- The MCP server span and the metric (Required, Conditionally Required, Recommended) ----------

MCP_METHOD_NAME = "mcp.method.name"
MCP_PROTOCOL_VERSION = "mcp.protocol.version"
MCP_SESSION_ID = "mcp.session.id"  # never set: the bridge is stateless and issues no session
JSONRPC_REQUEST_ID = "jsonrpc.request.id"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
ERROR_TYPE = "error.type"
RPC_RESPONSE_STATUS_CODE = "rpc.response.status_code"
NETWORK_TRANSPORT = "network.transport"
NETWORK_PROTOCOL_NAME = "network.protocol.name"
NETWORK_PROTOCOL_VERSION = "network.protocol.version"
#: Opt-in (``MCP_BRIDGE["TRACE_ARGUMENTS"]``): the arguments of a tool call, as JSON text.
GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
#: Opt-in (``MCP_BRIDGE["TRACE_ENDUSER"]``), from the general registry's ``enduser`` namespace.
ENDUSER_ID = "enduser.id"
ENDUSER_PSEUDO_ID = "enduser.pseudo.id"

#: ``gen_ai.operation.name`` of a ``tools/call`` (and of no other method).
EXECUTE_TOOL = "execute_tool"
#: ``error.type`` of a ``CallToolResult`` with ``isError: true``.
TOOL_ERROR = "tool_error"
#: The W3C Trace Context and Baggage keys read from ``params._meta`` (SEP-414: unprefixed).
PROPAGATION_KEYS = ("traceparent", "tracestate", "baggage")

#: ``mcp.server.operation.duration``: a histogram, in seconds.
OPERATION_DURATION = "mcp.server.operation.duration"
#: Its ``ExplicitBucketBoundaries``, as the conventions specify them.
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)

# -- The bridge's own ------------------------------------------------------------------------

#: The API group of the endpoint (an MCP server per group).
GROUP = "mcp_bridge.group"
#: The discovery meta-tool a search-mode call went through (``call_read_only_tool``, ...);
#: the span and ``gen_ai.tool.name`` name the real tool.
PROXY = "mcp_bridge.proxy"
#: Where a failed tool call stopped: ``lookup``, ``arguments``, ``refused`` or ``execution``
#: (the ``stage`` of :data:`~mcp_bridge.signals.tool_call_failed`).
FAILURE_STAGE = "mcp_bridge.tool_call.stage"
#: Whether a ``@cached`` lookup found its entry.
CACHE_HIT = "mcp_bridge.cache.hit"
#: Whether a ``@locked`` call got its lease (``False``: the key stayed busy).
LOCK_ACQUIRED = "mcp_bridge.lock.acquired"
#: How many places of the result break the ``outputSchema``.
OUTPUT_ERRORS = "mcp_bridge.output.errors"
#: A counter of failed tool calls, by ``gen_ai.tool.name``, ``error.type`` and group.
TOOL_ERRORS = "mcp_bridge.tool.errors"

#: The names of the child spans of a call's stages.
VALIDATE_ARGUMENTS = "validate arguments"
VIEW = "view"
VALIDATE_OUTPUT = "validate output"
CACHE_LOOKUP = "cache lookup"
LOCK_WAIT = "lock wait"
