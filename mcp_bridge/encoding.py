"""JSON text of the answers: :func:`dumps`, which can splice in text encoded earlier.

A ``tools/list`` page is the same bytes every time for a tool set, a language
and a protocol revision; encoding its hundred tool objects again on every
request costs more than the rest of the request. Each tool's JSON is therefore
encoded once (:meth:`mcp_bridge.tools.Tool.listing_json`) and the page is an
:class:`EncodedJSON` that :func:`dumps` writes out as it is.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

__all__ = ["EncodedJSON", "dumps", "dumps_data"]


class EncodedJSON:
    """A JSON text that :func:`dumps` inserts verbatim where this object stands."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"EncodedJSON({self.text[:40]!r}...)"


# The stand-in written for an EncodedJSON before the splice: a string no JSON-RPC message
# can carry by chance (a NUL character and a per-process random token).
_MARK = f"\x00mcp-bridge-{secrets.token_hex(8)}-"


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


def dumps_data(value: Any) -> str:
    """:func:`dumps` for a value that holds no :class:`EncodedJSON` (a view's data), without
    building an encoder per call."""
    return _data_encoder.encode(value)


def dumps(value: Any) -> str:
    """JSON text as DRF's ``JSONRenderer`` would produce it (Decimal, datetime, UUID, lazy
    text), compact, with each :class:`EncodedJSON` replaced by its text."""
    encoder = _Encoder(ensure_ascii=False, separators=(",", ":"))
    text = encoder.encode(value)
    for index, fragment in enumerate(encoder.fragments):
        text = text.replace(json.dumps(f"{_MARK}{index}", ensure_ascii=False), fragment, 1)
    return text
