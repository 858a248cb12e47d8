"""The JSON text of the answers (mcp_bridge.base.encoding): the text DRF's JSON encoder writes,
with or without orjson, and EncodedJSON spliced in verbatim."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from collections import OrderedDict

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

from mcp_bridge.base import encoding
from mcp_bridge.base.encoding import EncodedJSON

try:
    import orjson
except ImportError:
    orjson = None
needs_orjson = pytest.mark.skipif(
    orjson is None, reason="the orjson path needs the optional extra 'fast' (pip install orjson)"
)

VALUES = [
    {"id": 3, "name": "Item 3", "price": "3.00"},
    ReturnDict({"id": 1, "tags": ReturnList(["a", "b"], serializer=None)}, serializer=None),
    OrderedDict([("b", 1), ("a", [1, 2.5, None, True, False])]),
    {"price": decimal.Decimal("12.30"), "ratio": 0.1, "big": 10**15, "negative": -3},
    {"at": datetime.datetime(2026, 11, 30, 12, 0, 5, 123456, tzinfo=datetime.UTC)},
    {
        "at": datetime.datetime(2026, 11, 30, 12, 0, 5),
        "on": datetime.date(2026, 1, 2),
        "time": datetime.time(8, 30),
    },
    {
        "at": datetime.datetime(
            2026, 11, 30, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
        )
    },
    {
        "took": datetime.timedelta(seconds=90),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    },
    {"label": gettext_lazy("Hello"), "text": 'é ü 漢字 \u2028 "quoted" \\ \n\t\x01'},
    {1: "int key", None: "null key", False: "bool key"},
    [],
    "plain",
    12,
    None,
]


def _renderer_text(value):
    """What DRF's JSONRenderer writes for a view's data: its encoder, compact, not
    ASCII-escaped (the renderer also escapes U+2028/U+2029 for JavaScript; JSON need not)."""
    return json.dumps(value, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_orjson_and_standard_library_write_what_drf_renders(value):
    expected = _renderer_text(value)
    assert encoding.dumps(value) == expected
    assert encoding.dumps_data(value) == expected
    assert encoding.dumps_bytes(value) == expected.encode()
    assert encoding._standard_dumps(value) == expected


def test_encoded_json_is_spliced_verbatim():
    page = EncodedJSON('[{"name":"a","n":1}]')
    value = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"tools": page, "second": EncodedJSON('{"x":"é"}')},
    }
    expected = '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","n":1}],"second":{"x":"é"}}}'
    assert encoding.dumps(value) == expected
    assert encoding._standard_dumps(value) == expected
    assert encoding.dumps_bytes(value) == expected.encode()


@needs_orjson
def test_orjson_is_the_path_taken_when_installed(monkeypatch):
    assert encoding.orjson is orjson
    # The one value the two paths write differently (module docstring): a NaN or infinite float
    # is null for orjson, NaN/Infinity (not JSON) for the standard library.
    value = {"nan": float("nan"), "inf": float("-inf"), "page": EncodedJSON("[1]")}
    assert encoding._standard_dumps(value) == '{"nan":NaN,"inf":-Infinity,"page":[1]}'
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[0])
        return orjson_dumps(*args, **kwargs)

    orjson_dumps = orjson.dumps
    monkeypatch.setattr(orjson, "dumps", spy)
    assert encoding.dumps(value) == '{"nan":null,"inf":null,"page":[1]}'
    assert encoding.dumps_bytes(value) == b'{"nan":null,"inf":null,"page":[1]}'
    data = {"nan": float("nan"), "n": 1}
    assert encoding.dumps_data(data) == orjson_dumps(data).decode() == '{"nan":null,"n":1}'
    assert calls == [value, value, data]  # every answer, written by orjson


@needs_orjson
def test_integer_beyond_64_bits_falls_back_to_the_standard_library():
    value = {"n": 2**70, "page": EncodedJSON("[1]")}
    with pytest.raises(TypeError):
        orjson.dumps(2**70)
    assert encoding.dumps(value) == '{"n":1180591620717411303424,"page":[1]}'
    assert json.loads(encoding.dumps_bytes(value))["n"] == 2**70


def test_what_nothing_can_encode_raises_drfs_type_error():
    class Opaque:
        pass

    with pytest.raises(TypeError):
        encoding.dumps({"x": Opaque()})
    circular: list = []
    circular.append(circular)
    with pytest.raises(ValueError):
        encoding.dumps(circular)


BODIES = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"id":3}}}',
    b'{"n": 123456789012345678901234567890, "m": -9223372036854775809}',  # beyond 64 bits: exact
    b'{"f": 0.1, "g": 1e400, "h": -0.0, "big": 9223372036854775807}',
    b'{"nan": NaN, "inf": -Infinity}',  # not JSON, but what json.loads has always accepted
    b'{"s": "\\ud800 lone surrogate", "e": "\\u00e9\\n"}',
    '{"text": "é 漢字"}'.encode("utf-16"),  # json.loads detects UTF-16/32 by itself
    '\ufeff{"bom": true}'.encode("utf-8"),
    b'[1, {"a": [true, false, null]}]',
    b'{"a": 1, "a": 2}',
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_loads_reads_what_json_loads_reads(body):
    expected = json.loads(body)
    got = encoding.loads(body)
    assert repr(got) == repr(expected)  # repr: NaN != NaN, and -0.0 == 0.0


@pytest.mark.parametrize("body", [b"", b"{", b'{"a": }', b"\xff\xfe\xfa", b"[1,]"])
def test_loads_refuses_what_json_loads_refuses(body):
    with pytest.raises(ValueError):
        json.loads(body)
    with pytest.raises(ValueError):
        encoding.loads(body)


def test_without_orjson_the_standard_library_answers_alike(monkeypatch):
    """The path of an installation without the fast extra, on the same values and bodies."""
    with_orjson = [
        (encoding.dumps(v), encoding.dumps_data(v), encoding.dumps_bytes(v)) for v in VALUES
    ]
    read_with_orjson = [repr(encoding.loads(body)) for body in BODIES]
    monkeypatch.setattr(encoding, "orjson", None)
    assert [
        (encoding.dumps(v), encoding.dumps_data(v), encoding.dumps_bytes(v)) for v in VALUES
    ] == with_orjson
    assert [repr(encoding.loads(body)) for body in BODIES] == read_with_orjson
    page = {"tools": EncodedJSON("[1]")}
    assert encoding.dumps(page) == '{"tools":[1]}'
