"""What the person sees: the confirmation form of a call, and the answer when they decline.

The question names what will happen in the person's words: the tool's title (already in the
caller's language: the executor holds the tool set of that language) and, where the bridge can
read it, the object the call acts on as the application names it, e.g. "Delete product 'Arc
LED desk lamp' (id 1)?". The object is read by the executor through the normal pipeline, as
the caller: the tool's operation path with ``GET``, when the view serves one (a viewset's
``retrieve`` beside its ``destroy``); a caller who may not read it sees the question without
its name. A project's own question is ``@mcp_tool(confirm_message=...)``. The texts are
translated in the language of the request (``Accept-Language``, as every tool text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext

from mcp_bridge.base.encoding import dumps
from mcp_bridge.build.tools import Tool
from mcp_bridge.confirmation.policy import custom_message

#: The fields of an object whose value names it, in the order they are tried.
NAME_FIELDS = (
    "name",
    "title",
    "label",
    "display_name",
    "full_name",
    "username",
    "number",
    "code",
    "slug",
    "email",
)
#: The property of the form that carries the answer.
CONFIRM_FIELD = "confirm"


def confirmation_form(
    tool: Tool, arguments: Mapping[str, Any], request: HttpRequest, read_target: Callable[[], Any]
) -> dict[str, Any]:
    """The ``elicitation/create`` request (form mode) that asks a person to confirm the call."""
    target = _target(tool, arguments, read_target)
    with translation.override(
        getattr(request, "LANGUAGE_CODE", None) or translation.get_language()
    ):
        name, ident, lookup = target
        values = {
            "title": tool.title or tool.name,
            "target": name or "",
            "id": ident or "",
            "lookup": lookup,
        }
        own = custom_message(tool)
        if own is not None:
            message = str(own) % values
        elif name and ident:
            message = gettext("%(title)s '%(target)s' (%(lookup)s %(id)s)?") % values
        elif name:
            message = gettext("%(title)s '%(target)s'?") % values
        elif ident:
            message = gettext("%(title)s (%(lookup)s %(id)s)?") % values
        else:
            message = gettext("%(title)s?") % values
        if tool.annotations.get("destructiveHint", True) and not tool.annotations.get(
            "readOnlyHint", False
        ):
            message += " " + gettext("This cannot be undone.")
        return {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        CONFIRM_FIELD: {
                            "type": "boolean",
                            "title": gettext("Confirm"),
                            "description": gettext("Yes, carry out this call."),
                        }
                    },
                    "required": [CONFIRM_FIELD],
                },
            },
        }


def declined_result(tool: Tool, outcome: str, request: HttpRequest) -> dict[str, Any]:
    """The answer to a declined or cancelled confirmation: an ``isError`` result (the call was
    not carried out) whose ``data`` says that nothing changed (``"changed": false``)."""
    with translation.override(
        getattr(request, "LANGUAGE_CODE", None) or translation.get_language()
    ):
        if outcome == "cancelled":
            message = gettext(
                "The person cancelled the confirmation of %(title)s: nothing was changed."
            )
        else:
            message = gettext("The person declined %(title)s: nothing was changed.")
        message %= {"title": tool.title or tool.name}
    data = {"status": 409, "confirmation": outcome, "changed": False}
    text = dumps({"code": 409, "message": message, "data": data})
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _target(
    tool: Tool, arguments: Mapping[str, Any], read_target: Callable[[], Any]
) -> tuple[str | None, str | None, str]:
    """The name of the object the call acts on, the value that identifies it and the name of
    that value (its lookup path parameter: ``"id"``, ``"slug"``), as far as they are known."""
    path = [
        (p.name, arguments[p.name])
        for p in tool.method.params
        if p.location == "path" and p.name in arguments
    ]
    lookup, ident = (path[-1][0], str(path[-1][1])) if path else ("id", None)
    if tool.method.facts.detail is not True:
        return None, ident, lookup
    data = read_target()
    if not isinstance(data, Mapping):
        return None, ident, lookup
    for field in NAME_FIELDS:
        value = data.get(field)
        if field == lookup or isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        if str(value).strip():
            if data.get("id") is not None and not isinstance(data["id"], bool):
                lookup, ident = "id", str(data["id"])  # a person knows an object by its id best
            return str(value), ident, lookup
    return None, ident, lookup
