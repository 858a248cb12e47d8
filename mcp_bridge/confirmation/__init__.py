"""A view asking the client for input, and a person's confirmation before a call (public:
:class:`InputRequired` and the functions below; docs/confirmation.md).

Multi Round-Trip Requests (MCP spec 2026-07-28, SEP-2322): a ``tools/call`` may answer an
``InputRequiredResult`` whose ``inputRequests`` the client answers on a retry of the same call.
The modules, in the order a call meets them:

* ``policy``: which tools a person confirms (``MCP_BRIDGE["CONFIRM"]``,
  ``@mcp_tool(confirm=...)``);
* ``step``: the step the executor runs before the view (:func:`~mcp_bridge.confirmation.step.prepare`),
  and the round of a view that asks (:func:`~mcp_bridge.confirmation.step.view_asked`);
* ``forms``: what the person reads;
* ``state``: the signed, bound, expiring ``requestState``, used once where it confirms;
* ``in_page``: the result that asks a person in the call's MCP App page, for a client that
  renders the pages but cannot ask;
* ``inputs``: the public part, what a view raises to ask and reads on the retry.

Its layer is below the call pipeline and above the tool set: the executor asks it, and turns
what it raises into the answer through its one ``except``. It never runs a view itself (the
executor hands it the functions that check the view's permissions before a question and that
read a call's target) and never imports the call pipeline, dispatch or the transport.
"""

from mcp_bridge.confirmation.inputs import (
    InputRequired,
    client_supports,
    elicitation,
    input_responses,
    request_state,
    roots,
    sampling,
)

__all__ = [
    "InputRequired",
    "client_supports",
    "elicitation",
    "input_responses",
    "request_state",
    "roots",
    "sampling",
]
