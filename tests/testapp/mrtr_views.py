"""Issue 36: the fixture tools of the conformance suite's ``input-required-result-*`` scenarios
(@modelcontextprotocol/conformance 0.2.0-alpha), as ordinary DRF views that ask through
:mod:`mcp_bridge.confirmation`. They are the group ``conformance`` (``/mcp/conformance/``),
which ``tests/test_real_peers.py`` runs those scenarios against.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import api_view
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.confirmation import (
    InputRequired,
    client_supports,
    elicitation,
    input_responses,
    request_state,
    roots,
    sampling,
)

NAME_FORM = elicitation("What is your name?", {"name": {"type": "string"}})
CONFIRM_FORM = elicitation("Please confirm", {"ok": {"type": "boolean"}})


def _accepted(answer: object) -> dict:
    """The ``content`` of an accepted ``ElicitResult``, else ``{}``."""
    if isinstance(answer, dict) and answer.get("action") == "accept":
        content = answer.get("content")
        return content if isinstance(content, dict) else {}
    return {}


@mcp_tool(name="test_input_required_result_elicitation", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def elicitation_tool(request):
    """Greets the person by the name they give in a form."""
    name = _accepted(input_responses(request).get("user_name")).get("name")
    if not isinstance(name, str):
        raise InputRequired({"user_name": NAME_FORM})
    return Response(f"Hello, {name}!")


@mcp_tool(name="test_input_required_result_sampling", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def sampling_tool(request):
    """Asks the client's model for the capital of France."""
    answer = input_responses(request).get("capital_question")
    if not answer:
        raise InputRequired(
            {"capital_question": sampling("What is the capital of France?", max_tokens=100)}
        )
    return Response({"answer": answer.get("content")})


@mcp_tool(name="test_input_required_result_list_roots", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def list_roots_tool(request):
    """Lists the client's roots."""
    answer = input_responses(request).get("client_roots")
    if not answer or not isinstance(answer.get("roots"), list):
        raise InputRequired({"client_roots": roots()})
    return Response({"roots": [root.get("uri") for root in answer["roots"]]})


@mcp_tool(name="test_input_required_result_request_state", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def request_state_tool(request):
    """Asks for a confirmation, and checks its own state on the retry."""
    if request_state(request) == {"step": "confirm"} and "confirm" in input_responses(request):
        return Response("state-ok: the requestState came back signed and unchanged")
    raise InputRequired({"confirm": CONFIRM_FORM}, state={"step": "confirm"})


@mcp_tool(name="test_input_required_result_tampered_state", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def tampered_state_tool(request):
    """As test_input_required_result_request_state: a changed requestState is refused."""
    if request_state(request) == {"step": "confirm"} and "confirm" in input_responses(request):
        return Response("state-ok")
    raise InputRequired({"confirm": CONFIRM_FORM}, state={"step": "confirm"})


@mcp_tool(name="test_input_required_result_multiple_inputs", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def multiple_inputs_tool(request):
    """Asks for a form, a completion and the roots at once."""
    asked = {
        "user_name": NAME_FORM,
        "greeting": sampling("Generate a greeting", max_tokens=50),
        "client_roots": roots(),
    }
    answers = input_responses(request)
    if request_state(request) == {"asked": sorted(asked)} and all(k in answers for k in asked):
        return Response({"name": _accepted(answers["user_name"]).get("name"), "complete": True})
    raise InputRequired(asked, state={"asked": sorted(asked)})


@mcp_tool(name="test_input_required_result_multi_round", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def multi_round_tool(request):
    """Asks for a name, then for a colour, keeping the name in its state between rounds."""
    state = request_state(request) or {}
    answers = input_responses(request)
    if state.get("round") == 1 and "step1" in answers:
        name = _accepted(answers["step1"]).get("name")
        raise InputRequired(
            {"step2": elicitation("What is your favourite colour?", {"color": {"type": "string"}})},
            state={"round": 2, "name": name},
        )
    if state.get("round") == 2 and "step2" in answers:
        color = _accepted(answers["step2"]).get("color")
        return Response(f"{state.get('name')} likes {color}.")
    raise InputRequired({"step1": NAME_FORM}, state={"round": 1})


@mcp_tool(name="test_input_required_result_capabilities", read_only=True)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["GET"])
def capabilities_tool(request):
    """Asks only for what the client declared it can answer."""
    wanted = {
        "user_name": NAME_FORM,
        "greeting": sampling("Generate a greeting", max_tokens=50),
        "client_roots": roots(),
    }
    asked = {k: r for k, r in wanted.items() if client_supports(request, r["method"])}
    answers = input_responses(request)
    if not asked or all(k in answers for k in asked):
        return Response({"answered": sorted(answers)})
    raise InputRequired(asked)


ARCHIVED: list[str] = []


@mcp_tool(
    name="test_confirm_archive",
    title="Archive the board",
    confirm=True,
    confirm_message="Really %(title)s? Everyone loses access.",
)
@api_group("conformance")
@extend_schema(responses={200: OpenApiTypes.ANY})
@api_view(["POST"])
def archive_tool(request):
    """Not a conformance fixture: a tool whose decorator asks for a confirmation with a
    message of its own (tests/test_input_required.py)."""
    ARCHIVED.append("board")
    return Response({"archived": len(ARCHIVED)})
