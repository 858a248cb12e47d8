"""Media types: which responses are JSON, which are text, and which are files.

Both pipelines ask it: the build reads the JSON schema of an operation's JSON media type, and
declares no ``outputSchema`` for an operation whose 2xx responses are files
(:mod:`mcp_bridge.build.openrpc`); the call turns a file response into a content block
instead of structured data (:mod:`mcp_bridge.toolcall.files`).

The three kinds (:func:`media_kind`), by the media type's essence (RFC 9110 §8.3.1: type and
subtype, parameters dropped, case ignored):

* ``"json"``: ``application/json``, any ``+json`` structured syntax suffix (RFC 6839 §3.1:
  ``application/problem+json``, ``application/vnd.oai.openapi+json``) and the wildcard
  ``application/*+json`` that OpenAPI documents use for "any JSON";
* ``"text"``: ``text/*``, XML (``application/xml``, ``+xml``), YAML (``application/yaml``,
  ``application/x-yaml``, ``+yaml``, and ``application/vnd.oai.openapi``, the YAML form of an
  OpenAPI document, which drf-spectacular's ``OpenApiYamlRenderer`` writes), JavaScript, form
  data, NDJSON, GraphQL and SQL; and ``*/*`` or no media type at all (nothing says it is a
  file);
* ``"file"``: everything else (``image/png``, ``application/pdf``, ``application/octet-stream``,
  ``application/zip``, ``audio/*``, ``video/*``, ``font/*``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from django.utils.http import parse_header_parameters

MediaKind = Literal["json", "text", "file"]

#: ``application/...`` subtypes that are text although not under ``text/``.
_TEXT_APPLICATION_SUBTYPES = frozenset(
    {
        "xml",
        "yaml",
        "x-yaml",
        "vnd.oai.openapi",
        "javascript",
        "ecmascript",
        "x-www-form-urlencoded",
        "x-ndjson",
        "ndjson",
        "jsonl",
        "graphql",
        "sql",
        "x-sh",
    }
)
#: Structured syntax suffixes (RFC 6839) of text formats.
_TEXT_SUFFIXES = ("+xml", "+yaml")


@lru_cache(maxsize=256)
def essence(media_type: str) -> str:
    """The type and subtype of ``media_type``, lower case, without parameters (Django's own
    header parser, which the request's ``content_type`` comes from too; a response's few
    media types are parsed once each)."""
    return parse_header_parameters(media_type)[0]


@lru_cache(maxsize=256)
def media_kind(media_type: str) -> MediaKind:
    """Whether a body of ``media_type`` is ``"json"``, ``"text"`` or a ``"file"`` (see the
    module docstring)."""
    main = essence(media_type)
    if main in ("", "*/*"):
        return "text"
    kind, _, subtype = main.partition("/")
    if kind == "application" and (subtype == "json" or subtype.endswith("+json")):
        return "json"
    if kind == "text":
        return "text"
    if subtype.endswith(_TEXT_SUFFIXES):
        return "text"
    if kind == "application" and subtype in _TEXT_APPLICATION_SUBTYPES:
        return "text"
    return "file"


def is_json_media_type(media_type: str) -> bool:
    """Whether a body of ``media_type`` is JSON (``application/json``, ``+json``,
    ``application/*+json``)."""
    return media_kind(media_type) == "json"


def is_binary_media_type(media_type: str) -> bool:
    """Whether a response of this media type is a file, neither JSON nor text (``image/png``,
    ``application/pdf``, ``application/octet-stream``; not ``application/json``,
    ``application/problem+json``, ``text/csv``, ``application/vnd.oai.openapi``)."""
    return media_kind(media_type) == "file"
