"""Upload operations: a tool call sent to a multipart view as a real multipart request.

A view whose parsers read a form and no JSON (``parser_classes = [MultiPartParser]``, a
serializer with a ``FileField``) is a tool with one argument per form field
(:func:`mcp_bridge.build.openrpc.file_schema` for a file field). A call sends the view an
ordinary ``multipart/form-data`` request (``application/x-www-form-urlencoded`` for a form
without files), so DRF's parser, the serializer's file validation and the storage all run as
for a REST client.

A file argument takes the forms its schema lists (:func:`uploaded_file`):

* a string: base64 of the bytes, or an RFC 2397 ``data:`` URI (``data:text/xml;name=scan.xml;
  base64,...``: the form SEP-2356 proposes for file inputs);
* ``{"data": <base64>, "filename": ..., "mimeType": ...}`` (``"text"`` instead of ``"data"``
  for a text file);
* an MCP embedded resource, ``{"type": "resource", "resource": {"uri", "mimeType", "blob" |
  "text"}}`` (``EmbeddedResource``, MCP spec 2025-11-25, "Tools" → "Embedded Resources"): the
  file name is the last segment of its ``uri``.

A ``resource_link`` is refused with an error that says so: it names a file the client holds
and the server cannot read. The size is checked before decoding, against
``MCP_BRIDGE["MAX_UPLOAD_BYTES"]`` (code 413, naming the setting).
"""

from __future__ import annotations

import base64
import binascii
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps

MULTIPART = "multipart/form-data"
URLENCODED = "application/x-www-form-urlencoded"
_DEFAULT_NAME = "upload"
_OCTET_STREAM = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class UploadedFile:
    """One file of a call: its name, media type and bytes."""

    filename: str
    media_type: str
    content: bytes


class UploadRefused(Exception):
    """A file argument that cannot be sent.

    Attributes:
        argument: the argument's name.
        message: what is wrong, and what to send instead.
        too_large: the file is larger than ``MAX_UPLOAD_BYTES`` (code 413, else -32602).
    """

    def __init__(self, argument: str, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.argument = argument
        self.message = message
        self.too_large = too_large


def _decoded_size(text: str) -> int:
    """The number of bytes ``text`` (base64, perhaps with whitespace) decodes to, at most."""
    return len(text) * 3 // 4


def _from_base64(argument: str, text: str, limit: int) -> bytes:
    if _decoded_size(text) > limit:
        raise UploadRefused(
            argument,
            f'the file is larger than MCP_BRIDGE["MAX_UPLOAD_BYTES"] ({limit} bytes): '
            "send a smaller file, or upload it over HTTP",
            too_large=True,
        )
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise UploadRefused(
            argument,
            "is not base64: give the file's bytes in base64 (RFC 4648), a data: URI, or "
            '{"text": ..., "filename": ...} for a text file',
        ) from None


def _from_text(argument: str, text: str, limit: int) -> bytes:
    content = text.encode("utf-8")
    if len(content) > limit:
        raise UploadRefused(
            argument,
            f'the file is larger than MCP_BRIDGE["MAX_UPLOAD_BYTES"] ({limit} bytes): '
            "send a smaller file, or upload it over HTTP",
            too_large=True,
        )
    return content


def _data_uri(argument: str, uri: str, limit: int) -> UploadedFile:
    """An RFC 2397 ``data:[<media type>][;name=<file name>][;base64],<data>`` URI."""
    header, comma, data = uri[5:].partition(",")
    if not comma:
        raise UploadRefused(argument, "is a data: URI without a comma before its data")
    parts = header.split(";")
    media_type = parts[0] or "text/plain"
    filename = _DEFAULT_NAME
    is_base64 = False
    for part in parts[1:]:
        if part == "base64":
            is_base64 = True
        elif part.startswith(("name=", "filename=")):
            filename = unquote(part.partition("=")[2]) or _DEFAULT_NAME
    if is_base64:
        content = _from_base64(argument, data, limit)
    else:
        content = _from_text(argument, unquote(data), limit)
    return UploadedFile(filename, media_type, content)


def _name_of(uri: str) -> str:
    path = urlsplit(uri).path
    return unquote(path.rstrip("/").rpartition("/")[2]) or _DEFAULT_NAME


def uploaded_file(argument: str, value: Any, limit: int | None = None) -> UploadedFile:
    """The file a file argument's ``value`` holds (see the module for its forms).

    Raises:
        UploadRefused: not a file the call can send: larger than ``limit`` (default
            ``MAX_UPLOAD_BYTES``), not base64, a ``resource_link``, or an object without data.
    """
    limit = bridge_settings.MAX_UPLOAD_BYTES if limit is None else limit
    if isinstance(value, str):
        if value.startswith("data:"):
            return _data_uri(argument, value, limit)
        return UploadedFile(_DEFAULT_NAME, _OCTET_STREAM, _from_base64(argument, value, limit))
    if not isinstance(value, dict):
        raise UploadRefused(argument, "is not a file: give its bytes in base64")
    if value.get("type") == "resource_link":
        raise UploadRefused(
            argument,
            "is a resource_link, which names a file the server cannot read: embed the file "
            '({"type": "resource", "resource": {"uri", "mimeType", "blob"}}) or give its bytes '
            "in base64",
        )
    if value.get("type") == "resource" and isinstance(value.get("resource"), dict):
        resource = value["resource"]
        uri = str(resource.get("uri", ""))
        media_type = resource.get("mimeType") or _OCTET_STREAM
        if isinstance(resource.get("blob"), str):
            content = _from_base64(argument, resource["blob"], limit)
        elif isinstance(resource.get("text"), str):
            content = _from_text(argument, resource["text"], limit)
        else:
            raise UploadRefused(argument, 'is an embedded resource without "blob" or "text"')
        return UploadedFile(_name_of(uri), media_type, content)
    # A null is "not given" (the strict schema profile lists every property, nullable).
    value = {key: item for key, item in value.items() if item is not None}
    filename = value.get("filename") or _DEFAULT_NAME
    media_type = value.get("mimeType") or _OCTET_STREAM
    if isinstance(value.get("data"), str) and "text" not in value:
        return UploadedFile(filename, media_type, _from_base64(argument, value["data"], limit))
    if isinstance(value.get("text"), str) and "data" not in value:
        return UploadedFile(filename, media_type, _from_text(argument, value["text"], limit))
    raise UploadRefused(argument, 'needs either "data" (base64) or "text", and not both')


def _form_text(value: Any) -> str:
    """A form field's value as text, as an HTML form or ``requests`` writes it: ``true`` /
    ``false``, numbers as written, an object as JSON, ``null`` as an empty field."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return dumps(value)
    return str(value)


def form_pairs(fields: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """``(field, text)`` of each plain form field; a list is the field repeated (what DRF's
    ``ListField`` and ``MultipleChoiceField`` read from a form)."""
    pairs: list[tuple[str, str]] = []
    for name, value in fields:
        if isinstance(value, list):
            pairs.extend((name, _form_text(item)) for item in value)
        else:
            pairs.append((name, _form_text(value)))
    return pairs


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def multipart_body(
    fields: list[tuple[str, str]], files: list[tuple[str, UploadedFile | None]]
) -> tuple[bytes, str]:
    """``(body, content type)`` of a ``multipart/form-data`` request (RFC 7578) with these
    text fields and files (``None``: the field sent empty, no file)."""
    boundary = f"mcp-bridge-{secrets.token_hex(16)}"
    chunks: list[bytes] = []
    for name, text in fields:
        chunks.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"\r\n\r\n'.encode()
            + text.encode("utf-8")
            + b"\r\n"
        )
    for name, upload in files:
        if upload is None:
            chunks.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"\r\n\r\n\r\n'.encode()
            )
            continue
        chunks.append(
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"; '
                f'filename="{_quoted(upload.filename)}"\r\n'
                f"Content-Type: {upload.media_type}\r\n\r\n"
            ).encode()
            + upload.content
            + b"\r\n"
        )
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"{MULTIPART}; boundary={boundary}"


def form_body(
    media_type: str, fields: list[tuple[str, Any]], files: list[tuple[str, UploadedFile | None]]
) -> tuple[bytes, str]:
    """``(body, content type)`` of the form request of a call: multipart, or URL-encoded for a
    view that reads only that (then there are no files)."""
    pairs = form_pairs(fields)
    if media_type == URLENCODED:
        return urlencode(pairs).encode("ascii"), URLENCODED
    return multipart_body(pairs, files)
