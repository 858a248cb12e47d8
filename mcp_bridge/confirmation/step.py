"""The confirmation step of a ``tools/call``, and the round of a view that asks.

The executor runs :func:`prepare` once, after ``pre_tool_call`` and before it builds the view's
request. It decides from the call's ``inputResponses`` and ``requestState`` and from the
tool's policy (:mod:`~mcp_bridge.confirmation.policy`) whether the call:

* goes on to the view, with the :class:`~mcp_bridge.confirmation.inputs.Inputs` the view reads
  (the answers, its verified state, the client's capabilities) and the outcome of its
  confirmation (``"confirmed"``, or ``"unconfirmed"`` for a client allowed without one);
* must first be confirmed: :class:`Ask`, whose answer is the ``InputRequiredResult`` with the
  form a person reads (:mod:`~mcp_bridge.confirmation.forms`), once the view's own checks let
  the caller through (a caller it refuses gets its 401, 403 or 404, never the question);
* stops without its view: :class:`Stop`, a JSON-RPC error for a ``requestState`` or
  ``inputResponses`` that cannot be used (:mod:`~mcp_bridge.confirmation.state`), an
  ``isError`` result for a declined form and for a client that cannot ask; for such a client
  that renders MCP Apps, the result that asks in the call's page
  (:mod:`~mcp_bridge.confirmation.in_page`), whose Confirm comes back as ``page_state``.

After the view, :func:`view_asked` turns the view's :class:`InputRequired` (its HTTP 428
answer) into the ``InputRequiredResult``. The executor's one ``except`` answers with what
:class:`Ask` and :class:`Stop` carry, as for every other step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from mcp_bridge.base.encoding import dumps
from mcp_bridge.base.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    INVALID_PARAMS,
    MODERN_REVISIONS,
    JsonRpcError,
)
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation import forms, in_page
from mcp_bridge.confirmation.inputs import CAPABILITY_OF_METHOD, Inputs
from mcp_bridge.confirmation.policy import allows_unconfirmed, asks_confirmation
from mcp_bridge.confirmation.state import (
    PAGE_ONLY,
    StateRefused,
    caller_identity,
    sign_state,
    use_once,
    verify_state,
)
from mcp_bridge.toolset.registry import ToolSet

#: The key of the confirmation form in ``inputRequests`` and ``inputResponses``.
CONFIRM_KEY = "mcp_bridge_confirm"

#: The outcomes the tool-call signals report (``confirmation=``).
ASKED = "asked"
ASKED_IN_PAGE = "asked_in_page"
CONFIRMED = "confirmed"
CONFIRMED_IN_PAGE = "confirmed_in_page"
DECLINED = "declined"
CANCELLED = "cancelled"
UNCONFIRMED = "unconfirmed"
UNAVAILABLE = "unavailable"

#: The ``c`` of a state: the confirmation form was asked with it, or it was given before.
_ASKED_WITH = "ask"
_GIVEN = "done"


class Ask(Exception):
    """The call stops to ask its client for input: the answer is an ``InputRequiredResult``.

    Attributes:
        result: ``{"resultType": "input_required", "inputRequests": ..., "requestState": ...}``.
        outcome: the confirmation outcome for the signals (``"asked"``, or ``None`` when the
            view asked).
    """

    def __init__(self, result: dict[str, Any], outcome: str | None) -> None:
        super().__init__("input_required")
        self.result = result
        self.outcome = outcome


class Stop(Exception):
    """The call stops before its view: ``error`` (a JSON-RPC error) or ``result`` (an
    ``isError`` result), and the confirmation ``outcome`` for the signals."""

    def __init__(
        self,
        outcome: str,
        *,
        error: JsonRpcError | None = None,
        result: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(outcome)
        self.outcome = outcome
        self.error = error
        self.result = result


@dataclass(frozen=True, slots=True)
class Round:
    """What :func:`prepare` decided for a call that goes on to its view.

    Attributes:
        inputs: what the view reads (:mod:`~mcp_bridge.confirmation.inputs`).
        outcome: ``"confirmed"``, ``"unconfirmed"`` or ``None`` (nothing to confirm).
        modern: the revision is 2026-07-28, where a view's question can be carried.
    """

    inputs: Inputs
    outcome: str | None = None
    modern: bool = True


_HANDSHAKE_ROUND = Round(Inputs(), None, False)


def prepare(
    tool: Tool,
    arguments: dict[str, Any],
    params: Mapping[str, Any],
    request: HttpRequest,
    revision: str,
    toolset: ToolSet,
    read_target: Callable[[ToolSet, Tool, dict[str, Any], HttpRequest], Any],
    check_access: Callable[[], None],
    *,
    page_state: str | None = None,
) -> Round:
    """The confirmation step (see the module).

    Args:
        read_target: ``read_target(toolset, tool, arguments, request)`` reads the object the
            call acts on, through the normal pipeline as the caller (the executor's), for the
            form's question; called only when asking.
        check_access: raises the view's own refusal of the caller (its 401, 403 or 404, the
            executor's :func:`~mcp_bridge.toolcall.executor.check_access`); called before a
            person is asked, and before a client that cannot ask is refused, so that neither
            happens to a caller the view would refuse.
        page_state: the ``requestState`` a person's press of Confirm in the call's page sent
            (the app-only tool :data:`~mcp_bridge.confirmation.in_page.CONFIRM_TOOL`): the
            call runs confirmed when it verifies for this call and caller and was issued for
            a page, once.

    Raises:
        Ask: the call must be confirmed first (or confirmed again).
        Stop: the call stops without its view; for a client that renders MCP Apps and cannot
            ask, an ``isError`` result that asks in the page (:mod:`~mcp_bridge.confirmation.in_page`).
    """
    group = toolset.group
    if page_state is not None:
        return _confirmed_in_page(tool, arguments, params, request, revision, toolset, page_state)
    asks = asks_confirmation(tool, group)
    if revision not in MODERN_REVISIONS:  # protocol.is_modern, inlined: once per call
        if asks:
            _without_elicitation(
                tool, arguments, params, request, revision, toolset, read_target, check_access
            )
            return Round(Inputs(), UNCONFIRMED, False)
        return _HANDSHAKE_ROUND
    meta = params.get("_meta")
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    if not isinstance(capabilities, Mapping):
        capabilities = {}
    responses = checked_responses(params)
    token = params.get("requestState")
    if not asks and token is None:  # nearly every call: nothing to confirm, no state
        return Round(Inputs(responses, None, capabilities))
    caller = caller_identity(request)
    version = toolset.version
    bound = (tool.name, group, version, arguments, caller)
    payload: dict[str, Any] = {}
    if token is not None:
        if not isinstance(token, str):
            raise Stop(
                "refused",
                error=JsonRpcError(
                    INVALID_PARAMS, 'Invalid params: "requestState" must be a string.'
                ),
            )
        payload = _verified(token, bound)
        if payload.get("c") == in_page.IN_PAGE:  # the model's path: never a confirmation
            raise Stop(
                PAGE_ONLY,
                error=JsonRpcError(
                    INVALID_PARAMS,
                    "This requestState was issued for the call's MCP App page: only a person's "
                    "press of Confirm in that page carries the call out, and nothing was done. "
                    "Wait for the person to confirm in the page.",
                    data={"reason": PAGE_ONLY},
                ),
            )
    inputs = Inputs(responses, payload.get("s"), capabilities)
    if not asks:
        return Round(inputs)
    if not _can_elicit(capabilities):
        _without_elicitation(
            tool, arguments, params, request, revision, toolset, read_target, check_access
        )
        return Round(inputs, UNCONFIRMED)
    given = payload.get("c")
    if given == _GIVEN:
        _use(payload)
        return Round(inputs, CONFIRMED)
    answer = responses.get(CONFIRM_KEY) if given == _ASKED_WITH else None
    if answer is None:  # a first call, or a retry that did not answer the form: ask (again)
        check_access()  # never a question to a caller the view refuses
        form = forms.confirmation_form(
            tool, arguments, request, lambda: read_target(toolset, tool, arguments, request)
        )
        state = sign_state(
            tool=tool.name,
            group=group,
            version=version,
            arguments=arguments,
            caller=caller,
            confirm=_ASKED_WITH,
        )
        raise Ask(input_required({CONFIRM_KEY: form}, state), ASKED)
    action = answer.get("action")
    content = answer.get("content")
    if action != "accept" or not (isinstance(content, Mapping) and content.get("confirm") is True):
        outcome = CANCELLED if action == "cancel" else DECLINED
        raise Stop(outcome, result=forms.declined_result(tool, outcome, request))
    _use(payload)
    return Round(Inputs(_without_key(responses), None, capabilities), CONFIRMED)


def _ask_in_page(
    tool: Tool,
    arguments: dict[str, Any],
    request: HttpRequest,
    toolset: ToolSet,
    read_target: Callable[[ToolSet, Tool, dict[str, Any], HttpRequest], Any],
    check_access: Callable[[], None],
) -> None:
    """Stop the call with the result that asks a person to confirm it in its page.

    Raises:
        Stop: ``"asked_in_page"``, :func:`~mcp_bridge.confirmation.in_page.asked_result`.
    """
    check_access()  # never a question to a caller the view refuses
    form = forms.confirmation_form(
        tool, arguments, request, lambda: read_target(toolset, tool, arguments, request)
    )
    state = sign_state(
        tool=tool.name,
        group=toolset.group,
        version=toolset.version,
        arguments=arguments,
        caller=caller_identity(request),
        confirm=in_page.IN_PAGE,
    )
    destructive = bool(
        tool.annotations.get("destructiveHint", True)
        and not tool.annotations.get("readOnlyHint", False)
    )
    question = form["params"]["message"]
    raise Stop(
        ASKED_IN_PAGE, result=in_page.asked_result(tool, arguments, question, state, destructive)
    )


def _confirmed_in_page(
    tool: Tool,
    arguments: dict[str, Any],
    params: Mapping[str, Any],
    request: HttpRequest,
    revision: str,
    toolset: ToolSet,
    token: str,
) -> Round:
    """The round of a call a person confirmed in its page: its state verified for this very
    call and caller, issued for a page, and used now (once).

    Raises:
        Stop: the state is refused (tampered, expired, another call or caller, replayed, or
            not issued for a page); nothing runs.
    """
    payload = _verified(
        token,
        (tool.name, toolset.group, toolset.version, arguments, caller_identity(request)),
    )
    if payload.get("c") != in_page.IN_PAGE:
        raise Stop(
            PAGE_ONLY,
            error=JsonRpcError(
                INVALID_PARAMS,
                f"Invalid params: {in_page.CONFIRM_TOOL} takes the state of a confirmation "
                "asked in a page, and this is not one; nothing was done.",
                data={"reason": PAGE_ONLY},
            ),
        )
    _use(payload)
    modern = revision in MODERN_REVISIONS
    meta = params.get("_meta")
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    inputs = Inputs({}, None, capabilities if modern and isinstance(capabilities, Mapping) else {})
    return Round(inputs, CONFIRMED_IN_PAGE, modern)


def view_asked(
    data: Any,
    current: Round,
    tool: Tool,
    arguments: dict[str, Any],
    request: HttpRequest,
    group: str,
    version: str | None,
) -> None:
    """Answer the view's :class:`~mcp_bridge.confirmation.inputs.InputRequired` (its HTTP 428
    answer, ``data``) with an ``InputRequiredResult``, when the revision and the client can
    carry it; else return, and the 428 is answered as the view's error result.

    Raises:
        Ask: the ``InputRequiredResult``, its ``requestState`` bound to this call, carrying
            the call's confirmation when it had one (a state that does is used once).
        Stop: the view asks for input the client did not declare it can give.
    """
    if not current.modern or not isinstance(data, Mapping):
        return
    requests = data.get("inputRequests")
    if data.get("resultType") != "input_required" or not isinstance(requests, Mapping):
        return
    capabilities = current.inputs.capabilities
    missing = sorted(
        {
            CAPABILITY_OF_METHOD.get(r.get("method"), str(r.get("method")))
            for r in requests.values()
            if not _declares(capabilities, r.get("method"))
        }
    )
    if missing:
        raise Stop(
            UNAVAILABLE,
            result=_error_result(
                428,
                f"This tool needs input that your client cannot give: it did not declare the "
                f"{', '.join(missing)} capability. Nothing was done.",
                {"status": 428, "needs": missing, "detail": data.get("detail")},
            ),
        )
    state = sign_state(
        tool=tool.name,
        group=group,
        version=version,
        arguments=arguments,
        caller=caller_identity(request),
        confirm=_GIVEN if current.outcome == CONFIRMED else None,
        view_state=getattr(data, "state", None),
    )
    raise Ask(input_required(dict(requests), state), None)


def input_required(requests: dict[str, Any], state: str) -> dict[str, Any]:
    """An ``InputRequiredResult`` (SEP-2322): its ``resultType``, requests and state."""
    return {"resultType": "input_required", "inputRequests": requests, "requestState": state}


def checked_responses(params: Mapping[str, Any]) -> Mapping[str, Any]:
    """``inputResponses``, checked: an object of objects (SEP-2322, "Error handling").

    Raises:
        Stop: a JSON-RPC error (-32602) naming what is malformed.
    """
    responses = params.get("inputResponses", _ABSENT)
    if responses is _ABSENT:
        return {}
    if not isinstance(responses, Mapping):
        raise Stop(
            "refused",
            error=JsonRpcError(
                INVALID_PARAMS,
                'Invalid params: "inputResponses" must be an object {key: response} answering '
                "the inputRequests of the previous result.",
            ),
        )
    bad = sorted(str(key) for key, value in responses.items() if not isinstance(value, Mapping))
    if bad:
        raise Stop(
            "refused",
            error=JsonRpcError(
                INVALID_PARAMS,
                f"Invalid params: inputResponses {', '.join(map(repr, bad))} must be objects "
                "(an ElicitResult, CreateMessageResult or ListRootsResult).",
                data={"keys": bad},
            ),
        )
    return responses


_ABSENT: Any = object()


def _without_key(responses: Mapping[str, Any]) -> Mapping[str, Any]:
    return {key: value for key, value in responses.items() if key != CONFIRM_KEY}


def _verified(token: str, bound: tuple[str, str, str | None, Any, str]) -> dict[str, Any]:
    tool, group, version, arguments, caller = bound
    try:
        return verify_state(
            token, tool=tool, group=group, version=version, arguments=arguments, caller=caller
        )
    except StateRefused as exc:
        raise Stop(
            exc.reason,
            error=JsonRpcError(INVALID_PARAMS, exc.message, data={"reason": exc.reason}),
        ) from exc


def _use(payload: dict[str, Any]) -> None:
    try:
        use_once(payload)
    except StateRefused as exc:
        raise Stop(
            exc.reason,
            error=JsonRpcError(INVALID_PARAMS, exc.message, data={"reason": exc.reason}),
        ) from exc


def _can_elicit(capabilities: Mapping[str, Any]) -> bool:
    return _declares(capabilities, "elicitation/create")


def _declares(capabilities: Mapping[str, Any], method: Any) -> bool:
    capability = CAPABILITY_OF_METHOD.get(method)
    if capability is None:
        return False
    declared = capabilities.get(capability)
    if capability == "elicitation":
        # An empty object declares form mode (MCP spec, "Client → Elicitation → Capabilities").
        return isinstance(declared, Mapping) and (not declared or "form" in declared)
    return declared is not None


def _without_elicitation(
    tool: Tool,
    arguments: dict[str, Any],
    params: Mapping[str, Any],
    request: HttpRequest,
    revision: str,
    toolset: ToolSet,
    read_target: Callable[[ToolSet, Tool, dict[str, Any], HttpRequest], Any],
    check_access: Callable[[], None],
) -> None:
    """A call that asks, from a client that cannot ask a person: refused, unless the operator
    allows such clients for the group; asked in the call's page where the client renders MCP
    Apps (:mod:`~mcp_bridge.confirmation.in_page`); a caller the view refuses gets the view's
    refusal.

    Raises:
        Stop: ``"asked_in_page"`` (:func:`_ask_in_page`), or ``"unavailable"``, an ``isError``
            result saying why and what to do.
    """
    group = toolset.group
    if allows_unconfirmed(group):
        return  # the view runs, and refuses whom it refuses
    if in_page.offered(tool, toolset, params, revision):
        _ask_in_page(tool, arguments, request, toolset, read_target, check_access)
    check_access()
    if revision in MODERN_REVISIONS:
        why = (
            "your client did not declare the elicitation capability (form mode), so the "
            "question cannot be shown to a person"
        )
        client = "a client that declares the elicitation capability (form mode)"
    else:
        why = (
            f"your client speaks MCP {revision}: the question is an input request of MCP "
            "2026-07-28 (an elicitation form the client shows, answered on a retry of the "
            "call), which a client of an earlier revision cannot receive"
        )
        client = "a client that supports MCP 2026-07-28 and its input requests (elicitation)"
    raise Stop(
        UNAVAILABLE,
        result=_error_result(
            428,
            f"Nothing was done: tool {tool.name!r} asks a person to confirm each call before "
            f"it runs, and {why}. To call it, use {client}; or, from a shell on the server, "
            f"`manage.py mcp_call {group} {tool.name} '<arguments>' --yes`, which confirms it "
            "for you; or ask the operator to set MCP_BRIDGE['CONFIRM_WITHOUT_ELICITATION'] = "
            f"{{{group!r}: True}}, which lets clients that cannot ask call it unconfirmed.",
            {
                "status": 428,
                "confirmation": UNAVAILABLE,
                "setting": "CONFIRM_WITHOUT_ELICITATION",
                "group": group,
            },
        ),
    )


def _error_result(code: int, message: str, data: dict[str, Any]) -> dict[str, Any]:
    # The shape of every isError result of the bridge (mcp_bridge.toolcall.results).
    text = dumps({"code": code, "message": message, "data": data})
    return {"content": [{"type": "text", "text": text}], "isError": True}
