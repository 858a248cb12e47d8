"""What a DRF view uses to ask the caller for input (public: ``mcp_bridge.InputRequired``).

Multi Round-Trip Requests (MCP spec 2026-07-28, "Basic → Patterns → Multi Round-Trip
Requests", SEP-2322): a view that needs something only the caller's side can give (a person's
answer to a form, a completion of the client's model, the client's roots) raises
:class:`InputRequired` with its input requests. Over MCP the ``tools/call`` answers an
``InputRequiredResult``; the client gathers the answers and retries the same call, and the
view runs again on the retry, where :func:`input_responses` holds the answers and
:func:`request_state` the state the view asked to keep. Over plain REST the same exception is
an HTTP 428 (Precondition Required) whose body says what the operation needs::

    {"detail": "...", "resultType": "input_required", "inputRequests": {...}}

so one view serves both. The request builders are :func:`elicitation`, :func:`sampling` and
:func:`roots`. A view never sees a request kind the client did not declare: read
:func:`client_supports` first (the specification forbids sending it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rest_framework.exceptions import APIException

__all__ = [
    "InputRequired",
    "client_supports",
    "elicitation",
    "input_responses",
    "request_state",
    "roots",
    "sampling",
]

#: The attribute of a view's request that holds its :class:`Inputs` (set in one place,
#: :func:`attach_inputs`, by the executor).
INPUTS_ATTRIBUTE = "mcp_inputs"

#: The HTTP status a REST caller gets for :class:`InputRequired` (RFC 6585 §3: the server
#: needs something before it can carry the request out).
INPUT_REQUIRED_STATUS = 428

#: The request methods an ``InputRequests`` value may carry, and the client capability each needs.
CAPABILITY_OF_METHOD = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class _Body(dict[str, Any]):
    """The REST body of :class:`InputRequired`, which also carries the view's ``state`` to the
    executor: DRF's exception handler puts the exception's ``detail`` dict itself in
    ``response.data``. The JSON body is the dict's items only: the state never reaches a REST
    caller unsigned."""

    state: Any = None


class InputRequired(APIException):
    """Raised by a view that needs input from the caller's client before it can answer.

    Args:
        input_requests: ``{key: request}``, each request made by :func:`elicitation`,
            :func:`sampling` or :func:`roots`; the keys are the view's own, and the retry's
            :func:`input_responses` answers under the same keys.
        state: any JSON value the view wants back on the retry (:func:`request_state`), e.g.
            the answers of an earlier round. The bridge signs it into the opaque
            ``requestState``, bound to the tool, the arguments, the caller and an expiry.
        message: the ``detail`` of the REST answer.

    Over MCP (2026-07-28) the call answers an ``InputRequiredResult``. Over REST, and over MCP
    where the client cannot answer, it is an HTTP 428 / ``isError`` result whose body is
    ``{"detail", "resultType": "input_required", "inputRequests"}``.
    """

    status_code = INPUT_REQUIRED_STATUS
    default_detail = "This operation needs input from the caller before it can be carried out."
    default_code = "input_required"

    def __init__(
        self,
        input_requests: Mapping[str, Mapping[str, Any]],
        *,
        state: Any = None,
        message: str | None = None,
    ) -> None:
        if not input_requests and state is None:
            raise TypeError("InputRequired needs input_requests, state or both (SEP-2322).")
        for key, request in input_requests.items():
            if not isinstance(key, str) or not isinstance(request, Mapping):
                raise TypeError(
                    f"InputRequired: {key!r} is not a key (str) and request (from elicitation(), "
                    "sampling() or roots())."
                )
            if request.get("method") not in CAPABILITY_OF_METHOD:
                raise TypeError(
                    f"InputRequired: the request {key!r} has method {request.get('method')!r}; "
                    f"use one of {', '.join(CAPABILITY_OF_METHOD)} (elicitation(), sampling(), roots())."
                )
        self.input_requests = {key: dict(request) for key, request in input_requests.items()}
        self.state = state
        # A plain dict, not DRF's ErrorDetail tree: numbers and booleans of the requests stay
        # JSON numbers and booleans in the REST body (DRF's exception handler sends it as is).
        body = _Body(
            detail=message or str(self.default_detail),
            resultType="input_required",
            inputRequests=self.input_requests,
        )
        body.state = state
        self.detail = body


def elicitation(
    message: str,
    properties: Mapping[str, Mapping[str, Any]],
    *,
    required: list[str] | tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """An ``elicitation/create`` request in form mode: ``message`` is what the person reads,
    ``properties`` the flat JSON Schema properties of the form (strings, numbers, booleans,
    enums: MCP spec, "Client → Elicitation → Requested schema"); ``required`` defaults to
    every property."""
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {name: dict(schema) for name, schema in properties.items()},
                "required": list(properties if required is None else required),
            },
        },
    }


def sampling(prompt: str, *, max_tokens: int, system_prompt: str | None = None) -> dict[str, Any]:
    """A ``sampling/createMessage`` request: one user message ``prompt`` for the client's model."""
    params: dict[str, Any] = {
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }
    if system_prompt is not None:
        params["systemPrompt"] = system_prompt
    return {"method": "sampling/createMessage", "params": params}


def roots() -> dict[str, Any]:
    """A ``roots/list`` request: the client's roots (``{"roots": [{"uri", "name"}]}``)."""
    return {"method": "roots/list", "params": {}}


@dataclass(frozen=True, slots=True)
class Inputs:
    """What a retry brought for the view: the answers, the view's verified state, and what
    the client can answer.

    Attributes:
        responses: ``{key: response}`` of ``inputResponses`` (each an object).
        state: the ``state`` the view gave :class:`InputRequired` on the round before, once
            the ``requestState`` carrying it was verified; ``None`` otherwise.
        capabilities: the client's declared capabilities (``clientCapabilities``).
    """

    responses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    state: Any = None
    capabilities: Mapping[str, Any] = field(default_factory=dict)


_NONE = Inputs()


def attach_inputs(request: Any, inputs: Inputs) -> None:
    """Give the view's request ``inputs`` (the executor calls it on the request it builds)."""
    setattr(request, INPUTS_ATTRIBUTE, inputs)


def _inputs(request: Any) -> Inputs:
    # A DRF Request hands unknown attributes to the HttpRequest it wraps.
    inputs = getattr(request, INPUTS_ATTRIBUTE, None)
    return inputs if isinstance(inputs, Inputs) else _NONE


def input_responses(request: Any) -> Mapping[str, Mapping[str, Any]]:
    """The client's answers on this request, ``{key: response}`` under the keys of the
    :class:`InputRequired` that asked: an ``ElicitResult`` (``{"action": "accept" | "decline"
    | "cancel", "content": {...}}``), a ``CreateMessageResult`` or a ``ListRootsResult``.
    Empty on a first call and on every REST request. Keys the view did not ask for may be
    present: ignore them (SEP-2322)."""
    return _inputs(request).responses


def request_state(request: Any) -> Any:
    """The ``state`` the view passed to :class:`InputRequired` on the previous round, verified
    (signed by this server, for this tool, these arguments and this caller, not expired);
    ``None`` on a first call and on every REST request."""
    return _inputs(request).state


def client_supports(request: Any, method: str) -> bool:
    """Whether the caller's client declared the capability that ``method``
    (``"elicitation/create"``, ``"sampling/createMessage"``, ``"roots/list"``) needs. Always
    ``False`` over REST and in the handshake era, where no input can be asked for."""
    capability = CAPABILITY_OF_METHOD.get(method)
    capabilities = _inputs(request).capabilities
    if capability != "elicitation":
        return capability in capabilities
    elicit = capabilities.get("elicitation")
    # An empty {} declares form mode (MCP spec, "Client → Elicitation → Capabilities").
    return isinstance(elicit, Mapping) and (not elicit or "form" in elicit)
