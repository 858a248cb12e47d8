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

A file sent without a name (bare base64, a ``data:`` URI without ``name=``, an object without
``filename``) is named after its argument, with the extension of its media type: the one the
call gives, else the one its first bytes show (XML, JSON, PDF, PNG, JPEG, GIF, ZIP, text),
``file.xml`` for a ZAP report sent as bare base64 (:func:`file_name`). An application that
checks extensions (``FileExtensionValidator``) then sees one it can accept.

A ``resource_link`` is refused with an error that says so (:data:`RESOURCE_LINK`): it names a
file the client holds and the server cannot read. The size is checked before decoding, against
``MCP_BRIDGE["MAX_UPLOAD_BYTES"]`` (code 413, naming the setting).
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps

MULTIPART = "multipart/form-data"
URLENCODED = "application/x-www-form-urlencoded"
_OCTET_STREAM = "application/octet-stream"
#: What the argument of a ``resource_link`` is told (the inputSchema refuses it first, in words
#: a model cannot act on: the executor puts these instead).
RESOURCE_LINK = (
    "is a resource_link, a file the server cannot read: embed the file "
    '({"type": "resource", "resource": {"uri", "blob"}}) or send its bytes '
    '({"data": <base64>, "filename": ...})'
)
#: Python's own table only: the system's mime.types differ from one machine to the next.
_MEDIA_TYPES = mimetypes.MimeTypes(filenames=())
#: Extensions the table lacks or gets wrong (``application/xml`` is ``.xsl`` there).
_EXTENSIONS = {
    "application/xml": ".xml",
    "text/xml": ".xml",
    "application/json": ".json",
    "application/yaml": ".yaml",
    "application/x-yaml": ".yaml",
    "text/yaml": ".yaml",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "image/jpeg": ".jpg",
}
#: The first bytes of common files, and their media types.
_SIGNATURES = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"PK\x03\x04", "application/zip"),
)


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
    """The number of bytes ``text`` (base64, perhaps with whitespace) decodes to, at most:
    a file of exactly ``MAX_UPLOAD_BYTES`` is let through, its padding counted out."""
    stripped = text.rstrip()
    padding = min(2, len(stripped) - len(stripped.rstrip("=")))
    return len(stripped) * 3 // 4 - padding


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
    filename = ""
    is_base64 = False
    for part in parts[1:]:
        if part == "base64":
            is_base64 = True
        elif part.startswith(("name=", "filename=")):
            filename = unquote(part.partition("=")[2])
    if is_base64:
        content = _from_base64(argument, data, limit)
    else:
        content = _from_text(argument, unquote(data), limit)
    return _named(argument, filename, media_type, content)


def _name_of(uri: str) -> str:
    path = urlsplit(uri).path
    return unquote(path.rstrip("/").rpartition("/")[2])


def sniffed_media_type(content: bytes) -> str:
    """The media type the first bytes of ``content`` show: a PDF, PNG, JPEG, GIF or ZIP
    signature, XML or JSON text, other UTF-8 text; ``application/octet-stream`` otherwise."""
    for signature, media_type in _SIGNATURES:
        if content.startswith(signature):
            return media_type
    head = content[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        lowered = head[:64].lower()
        return "text/html" if lowered.startswith((b"<!doctype html", b"<html")) else "text/xml"
    try:
        content[:4096].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 4092:  # not a character cut at the end of the sample
            return _OCTET_STREAM
    return "application/json" if head.startswith((b"{", b"[")) else "text/plain"


def file_name(argument: str, media_type: str) -> str:
    """The name of a file sent without one: its argument's name with the extension of
    ``media_type`` (``file.xml``; ``file.bin`` for an octet stream)."""
    essence = media_type.partition(";")[0].strip().lower()
    extension = _EXTENSIONS.get(essence) or _MEDIA_TYPES.guess_extension(essence)
    if extension is None and essence.endswith(("+json", "+xml")):
        extension = "." + essence.rpartition("+")[2]
    return f"{argument}{extension or '.bin'}"


def _named(argument: str, filename: str, media_type: str, content: bytes) -> UploadedFile:
    """The file, named after its argument and media type when the call gave no name; a file
    without a media type is given the one of its name's extension, else of its first bytes."""
    if media_type == _OCTET_STREAM:
        guessed = _MEDIA_TYPES.guess_type(filename)[0] if filename else None
        media_type = guessed or sniffed_media_type(content)
    return UploadedFile(filename or file_name(argument, media_type), media_type, content)


def is_resource_link(value: Any) -> bool:
    """``value`` is an MCP ``ResourceLink`` (``{"type": "resource_link", "uri", ...}``)."""
    return isinstance(value, dict) and value.get("type") == "resource_link"


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
        return _named(argument, "", _OCTET_STREAM, _from_base64(argument, value, limit))
    if not isinstance(value, dict):
        raise UploadRefused(argument, "is not a file: give its bytes in base64")
    if is_resource_link(value):
        raise UploadRefused(argument, RESOURCE_LINK)
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
        return _named(argument, _name_of(uri), media_type, content)
    # A null is "not given" (the strict schema profile lists every property, nullable).
    value = {key: item for key, item in value.items() if item is not None}
    filename = value.get("filename") or ""
    media_type = value.get("mimeType") or _OCTET_STREAM
    if isinstance(value.get("data"), str) and "text" not in value:
        content = _from_base64(argument, value["data"], limit)
        return _named(argument, filename, media_type, content)
    if isinstance(value.get("text"), str) and "data" not in value:
        content = _from_text(argument, value["text"], limit)
        return _named(argument, filename, media_type, content)
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
