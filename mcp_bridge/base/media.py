"""Media types: which responses are files, not text.

Both pipelines ask it: the build declares no ``outputSchema`` for an operation whose 2xx
responses are files (:mod:`mcp_bridge.toolset.openrpc`), and the call turns such a response
into a content block instead of structured data (:mod:`mcp_bridge.toolcall.files`).
"""

from __future__ import annotations

from functools import lru_cache

#: Media types that are text, JSON or XML: everything else is a file.
_TEXT_SUBTYPES = ("json", "xml", "yaml", "javascript", "x-www-form-urlencoded")


@lru_cache(maxsize=256)
def is_binary_media_type(media_type: str) -> bool:
    """Whether a response of this media type is a file, not text (``image/png``,
    ``application/pdf``, ``application/octet-stream``; not ``application/json``,
    ``application/problem+json``, ``text/csv``)."""
    main = media_type.split(";")[0].strip().lower()
    if main.startswith("text/") or main in ("", "*/*"):
        return False
    return not any(main.endswith(sub) or f"+{sub}" in main for sub in _TEXT_SUBTYPES)
