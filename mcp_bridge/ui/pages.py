"""``resources/read`` of a ``ui://mcp-bridge/<kind>`` URI: the page of an MCP App.

The page is one self-contained HTML file per kind (``mcp_bridge/static/mcp_bridge/apps/``,
built from ``frontend/apps/``): its script, its style and the extension's SDK are inlined, so
it loads nothing, and its ``_meta.ui.csp`` is empty (no origin may be reached). The only part
written per read is its texts, in the caller's language, as JSON in a script element the
browser does not run; every ``<``, ``>`` and ``&`` in them is escaped, so a translation cannot
end that element. Nothing of a caller's data is in a page: the data reaches it as the tool's
result, through the host.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext

from mcp_bridge.base.limits import echoed, shorten
from mcp_bridge.base.protocol import JsonRpcError, resource_not_found_code
from mcp_bridge.decorators import APP_KINDS
from mcp_bridge.ui.kinds import MIME_TYPE, URI_PREFIX

#: Where the built pages are.
PAGES_DIR = Path(__file__).resolve().parent.parent / "static" / "mcp_bridge" / "apps"

#: The element of a built page whose content :func:`page_html` replaces with the texts.
TEXTS_ELEMENT = '<script type="application/json" id="mcp-bridge-texts">{}</script>'


def is_page_uri(uri: Any) -> bool:
    return isinstance(uri, str) and uri.startswith("ui://")


def texts() -> dict[str, str]:
    """The page's texts in the active language (keys as ``frontend/apps/src/main.js`` reads
    them; ``{name}`` is filled in by the page)."""
    return {
        "loading": gettext("Loading…"),
        "empty": gettext("No results."),
        "error": gettext("The call failed."),
        "failed": gettext("The call failed: {message}"),
        "cancelled": gettext("The call was cancelled."),
        "count": gettext("{count} in all"),
        "previous": gettext("Previous"),
        "next": gettext("Next"),
        "search": gettext("Search"),
        "searchButton": gettext("Search"),
        # A collection's filters and sort order: the list tool's other arguments.
        "filterField": gettext("Filter"),
        "filterValue": gettext("Value of the filter {name}"),
        "addFilter": gettext("Add filter"),
        "removeFilter": gettext("Remove the filter {name}: {value}"),
        "sort": gettext("Sort by"),
        "submit": gettext("Send"),
        "saved": gettext("Done."),
        "required": gettext("Required"),
        "invalidJson": gettext("Enter valid JSON."),
        # A record's related object, read through the tool that reads it (mcp_bridge.ui.links).
        "back": gettext("Back"),
        "openRelated": gettext("Open {field} {value}"),
        # A person confirms a call in the page (mcp_bridge.confirmation.in_page).
        "confirm": gettext("Confirm"),
        "cancel": gettext("Cancel"),
        "notConfirmed": gettext("Cancelled: nothing was done."),
        "confirmedModel": gettext("The person confirmed in the page: {question} It was done."),
        "cancelledModel": gettext("The person cancelled in the page: {question} Nothing was done."),
        # Why the server refused a confirmation (the error's data.reason,
        # mcp_bridge.confirmation.state); the page asks the call again after each.
        "refused.expired": gettext(
            "The confirmation came too late, and nothing was done. Confirm again below."
        ),
        "refused.replayed": gettext(
            "This confirmation was already used, and nothing more was done. Confirm again "
            "below to do it once more."
        ),
        "refused.other_caller": gettext(
            "This confirmation was asked for someone else, and nothing was done."
        ),
        "refused.other_call": gettext(
            "This confirmation was asked for another call, and nothing was done."
        ),
        "refused.tampered": gettext("This confirmation is not valid, and nothing was done."),
        "refused.page_only": gettext("This confirmation is not valid, and nothing was done."),
    }


@functools.cache
def _built(kind: str) -> str:
    return (PAGES_DIR / f"{kind}.html").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=64)
def page_html(kind: str, language: str | None) -> str:
    """The page of ``kind`` with its texts in ``language``."""
    built = _built(kind)
    with translation.override(language):
        encoded = json.dumps(texts(), ensure_ascii=False, sort_keys=True)
    encoded = encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return built.replace(TEXTS_ELEMENT, TEXTS_ELEMENT.replace("{}", encoded), 1)


def read_page(uri: str, request: HttpRequest, revision: str) -> dict[str, Any]:
    """The ``resources/read`` result of a ``ui://`` URI.

    Raises:
        JsonRpcError: the revision's resource-not-found error for a URI that names no page.
    """
    kind = uri[len(URI_PREFIX) :] if uri.startswith(URI_PREFIX) else None
    if kind not in APP_KINDS:
        raise JsonRpcError(
            resource_not_found_code(revision),
            f"Resource not found: {shorten(repr(uri))}. The MCP App pages of this server are "
            + ", ".join(f"{URI_PREFIX}{name}" for name in APP_KINDS)
            + ".",
            data={"uri": echoed(uri)},
        )
    language = getattr(request, "LANGUAGE_CODE", None) or translation.get_language()
    return {
        "contents": [
            {
                "uri": uri,
                "mimeType": MIME_TYPE,
                "text": page_html(kind, language),
                "_meta": {"ui": {"csp": {}, "prefersBorder": True}},
            }
        ]
    }
