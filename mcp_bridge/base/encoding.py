"""JSON text of the answers: :func:`dumps`, which can splice in text encoded earlier.

A ``tools/list`` page is the same bytes every time for a tool set, a language
and a protocol revision; encoding its hundred tool objects again on every
request costs more than the rest of the request. Each page is therefore
encoded once and kept as an :class:`EncodedJSON`, which :func:`dumps` writes out
as it is (so is the text block of a tool result, written again as its
``structuredContent``).

Values are encoded as DRF's ``JSONRenderer`` encodes a view's data (its
``JSONEncoder``: Decimal, datetime, UUID, lazy text...), compact, not ASCII-escaped.
With the optional extra ``fast`` (orjson, a maintained JSON library written in
Rust), orjson writes the text and calls DRF's encoder for every type it does not
know, datetimes included, so that the text is the same; a value orjson refuses (an
integer beyond 64 bits) goes through the standard library instead. One
difference remains: a NaN or infinite float becomes ``null`` with orjson and
``NaN`` (not JSON) without it; DRF's renderer refuses it under ``STRICT_JSON``.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

try:  # the optional extra "fast"
    import orjson
except ImportError:  # pragma: no cover - depends on the installation
    orjson = None  # type: ignore[assignment]


class EncodedJSON:
    """A JSON text that :func:`dumps` inserts verbatim where this object stands.

    ``deflated`` is kept for :mod:`mcp_bridge.transport.compression`: the text's UTF-8 bytes and their
    deflate blocks, made once when a client first asks for it gzipped.
    """

    __slots__ = ("deflated", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.deflated: tuple[bytes, bytes] | None = None

    def __repr__(self) -> str:
        return f"EncodedJSON({self.text[:40]!r}...)"


# The stand-in written for an EncodedJSON before the splice: a string no JSON-RPC message
# can carry by chance (a NUL character and a per-process random token).
_MARK = f"\x00mcp-bridge-{secrets.token_hex(8)}-"
_ENCODED_MARK = json.dumps(_MARK, ensure_ascii=False)[:-1]  # without the closing quote


class _Encoder(JSONEncoder):
    """DRF's encoder (Decimal, datetime, UUID, lazy text...), plus :class:`EncodedJSON`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fragments: list[str] = []

    def default(self, obj: Any) -> Any:
        if isinstance(obj, EncodedJSON):
            self.fragments.append(obj.text)
            return f"{_MARK}{len(self.fragments) - 1}"
        return super().default(obj)


#: For values that hold no EncodedJSON (a view's data): one shared instance, since
#: ``JSONEncoder.encode`` keeps no state on the encoder (DRF's ``default`` reads none either).
_data_encoder = JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _standard_dumps(value: Any) -> str:
    encoder = _Encoder(ensure_ascii=False, separators=(",", ":"))
    text = encoder.encode(value)
    for index, fragment in enumerate(encoder.fragments):
        text = text.replace(f'{_ENCODED_MARK}{index}"', fragment, 1)
    return text


# 19 digits in a row: possibly an integer beyond 64 bits, which orjson reads as a float.
# Found by turning every digit into "0" and looking for nineteen of them: two passes in C,
# where a regular expression tries a match at every byte of the body.
_DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19

if orjson is not None:
    # Datetimes and dataclasses go to DRF's encoder, as everything orjson does not know.
    _ORJSON_OPTIONS = (
        orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS
    )
    _drf_default = _data_encoder.default

    def _orjson_default(obj: Any) -> Any:
        if type(obj) is EncodedJSON:
            return orjson.Fragment(obj.text)
        return _drf_default(obj)


def loads(body: bytes) -> Any:
    """The JSON value of a request body (UTF-8, RFC 8259 §8.1), as :func:`json.loads` reads it.

    With orjson, orjson reads it, unless the body holds 19 digits in a row (an integer beyond
    64 bits would come back as a float) or orjson refuses it (``NaN``, a lone surrogate escape,
    another encoding): the standard library then decides, and words any error.

    Raises:
        ValueError: the body is not JSON.
    """
    if orjson is not None and _NINETEEN_DIGITS not in body.translate(_DIGITS_AS_ZEROS):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            pass
    return json.loads(body)


def _orjson_dumps(value: Any) -> bytes | None:
    """orjson's UTF-8 text of ``value``, or ``None`` without orjson or for a value it
    refuses (the standard library then decides, and words any error)."""
    if orjson is None:
        return None
    try:
        return orjson.dumps(value, default=_orjson_default, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError
        return None


def dumps_bytes(value: Any) -> bytes:
    """:func:`dumps` as UTF-8 bytes (RFC 8259 §8.1), for an HTTP body.

    A lone surrogate (which JSON may spell, and an error may quote back) has no UTF-8 form:
    it is written as its JSON escape (``\\ud800``), which stands for the same string.
    """
    encoded = _orjson_dumps(value)
    return (
        encoded
        if encoded is not None
        else _standard_dumps(value).encode("utf-8", "backslashreplace")
    )


def dumps(value: Any) -> str:
    """JSON text as DRF's ``JSONRenderer`` would produce it (Decimal, datetime, UUID, lazy
    text), compact, with each :class:`EncodedJSON` replaced by its text.

    Raises:
        TypeError: a value no encoder can write (DRF's message).
        ValueError: a circular reference.
    """
    encoded = _orjson_dumps(value)
    return encoded.decode() if encoded is not None else _standard_dumps(value)


def dumps_data(value: Any) -> str:
    """:func:`dumps` for a value that holds no :class:`EncodedJSON` (a view's data); without
    orjson, with one shared encoder instead of one per call."""
    if orjson is not None:
        return dumps(value)
    return _data_encoder.encode(value)


class BridgeJSONEncoder(JSONEncoder):
    """DRF's encoder (Decimal, datetime, UUID, lazy text...), with an :class:`EncodedJSON`
    written as the value it stands for: what every JSON text the bridge writes other than an
    answer goes through (a command's output, the OpenRPC document, the text of a schema value
    in a description), so that a value encodes there as it does in a ``tools/list`` answer.
    A model field's ``Decimal`` default in an ``inputSchema`` is a number in every one of
    them."""

    def default(self, obj: Any) -> Any:
        if isinstance(obj, EncodedJSON):
            return json.loads(obj.text)
        return super().default(obj)


def dumps_readable(value: Any, *, indent: int | None = 2) -> str:
    """JSON text for people to read (indented, not ASCII-escaped), encoded as :func:`dumps`
    encodes it (:class:`BridgeJSONEncoder`); ``indent=None``: on one line, with the standard
    library's separators (``", "``, ``": "``), for a value quoted in a sentence.

    Raises:
        TypeError: a value no encoder can write (DRF's message).
    """
    return json.dumps(value, indent=indent, ensure_ascii=False, cls=BridgeJSONEncoder)
