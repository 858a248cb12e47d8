"""gzip for ``tools/list`` answers, with each page compressed once.

A big group's ``tools/list`` repeats itself: every tool carries the ``$defs`` it reaches, so
the tools of one resource hold the same definitions five or six times (a 1,000-operation
API shaped like a large real one: 3.5 MB of JSON, 3.0 times drf-spectacular's schema of the
same views). The tools stay self-contained; what is repeated is cut on the wire instead,
where gzip's window shares it (the same list: ~68 times smaller).

A page of tools is encoded once per tool set (:class:`~mcp_bridge.base.encoding.EncodedJSON`) and
is the same for every caller, while the envelope around it (the request's ``id``, the
2026-07-28 fields) differs per request. So the page is deflated once, into byte-aligned,
non-final deflate blocks that start from an empty window (``Z_SYNC_FLUSH`` on a fresh
compressor), and each answer is a gzip member made of the envelope's blocks, the page's
blocks and a final block, with the CRC-32 and length of the whole (RFC 1951 §3.2.3,
RFC 1952 §2.3). Only the CRC is computed over the whole body per request (a few ms for
megabytes); nothing is compressed twice.

Only ``tools/list`` answers are compressed: they hold the published texts and schemas, the
same for every caller, so no secret can be guessed from their compressed length (BREACH).
Tool results, which can carry a caller's data next to reflected arguments, never are. A
project with ``django.middleware.gzip.GZipMiddleware`` keeps it: the middleware leaves a
response that already has a ``Content-Encoding`` alone.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from mcp_bridge.base.encoding import EncodedJSON, dumps_bytes
from mcp_bridge.transport.answers import JSONAnswer

#: Smaller answers are sent as they are: gzip's header and trailer would outweigh the gain.
MIN_BYTES = 2048
#: zlib level 6 (the default): the page is compressed once per tool set, so the better ratio
#: costs nothing per request.
_PAGE_LEVEL = 6
#: The per-request envelope is a few dozen bytes.
_ENVELOPE_LEVEL = 1
#: RFC 1952 §2.3: magic, CM=deflate, no flags, no mtime, no extra flags, OS unknown.
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header (RFC 9110 §12.5.3) allows ``gzip``."""
    for item in accept_encoding.split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        quality = params.strip().lower()
        if quality.startswith("q="):
            try:
                return float(quality[2:]) > 0
            except ValueError:
                return False
        return True
    return False


def listed_page(response: Any) -> EncodedJSON | None:
    """The cached page of a ``tools/list`` answer, or ``None`` for any other answer."""
    result = response.get("result") if isinstance(response, dict) else None
    tools = result.get("tools") if isinstance(result, dict) else None
    return tools if type(tools) is EncodedJSON else None


def _deflated(data: bytes, level: int, final: bool) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(
        zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH
    )


def _page_blocks(page: EncodedJSON) -> tuple[bytes, bytes]:
    """The page's UTF-8 bytes and their deflate blocks, made on first use and kept."""
    if page.deflated is None:
        raw = page.text.encode()
        page.deflated = (raw, _deflated(raw, _PAGE_LEVEL, final=False))
    return page.deflated


def gzip_body(body: bytes, page: EncodedJSON | None) -> bytes:
    """``body`` as one gzip member; the bytes of ``page`` inside it are not compressed again.

    Args:
        body: the answer's JSON, as sent without compression.
        page: the cached page that ``body`` contains verbatim (:func:`listed_page`), or
            ``None`` to compress the body as a whole.
    """
    trailer = struct.pack("<II", zlib.crc32(body), len(body) & 0xFFFFFFFF)
    if page is not None:
        raw, blocks = _page_blocks(page)
        # Found by its first bytes, then compared: bytes.find() would preprocess the whole
        # (megabytes long) needle on every call.
        start = body.find(raw[:64])
        if start >= 0 and body.startswith(raw, start):
            before = _deflated(body[:start], _ENVELOPE_LEVEL, final=False)
            after = _deflated(body[start + len(raw) :], _ENVELOPE_LEVEL, final=True)
            return b"".join((_GZIP_HEADER, before, blocks, after, trailer))
    return _GZIP_HEADER + _deflated(body, _PAGE_LEVEL, final=True) + trailer


def json_answer(
    request: HttpRequest, response: dict[str, Any] | list[dict[str, Any]], status: int
) -> HttpResponse:
    """The ``application/json`` HTTP answer of a JSON-RPC response, gzipped when it is a
    ``tools/list`` answer of at least :data:`MIN_BYTES` and the client accepts gzip."""
    # JSON is UTF-8 (RFC 8259 §8.1): bytes here, whatever DEFAULT_CHARSET says.
    body = dumps_bytes(response)
    page = listed_page(response)
    compress = (
        page is not None
        and len(body) >= MIN_BYTES
        and accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", ""))
    )
    answer = JSONAnswer(gzip_body(body, page) if compress else body, status)
    if page is not None:
        patch_vary_headers(answer, ["Accept-Encoding"])
        if compress:
            answer["Content-Encoding"] = "gzip"
    return answer
