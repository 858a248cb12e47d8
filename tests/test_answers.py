"""The endpoint's JSON answer is the HttpResponse Django makes, and its headers Django's own.

:class:`~mcp_bridge.transport.answers.JSONAnswer` sets what ``HttpResponse.__init__`` sets for
``HttpResponse(body, status=status, content_type="application/json")``, and
:func:`~mcp_bridge.base.headers.put_header` writes the entry ``response[name] = value`` writes:
these tests compare both with Django's, attribute by attribute, so that a Django release that
sets one more, or another way, fails here.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.http import BadHeaderError, HttpResponse

from mcp_bridge.base.headers import header, put_header
from mcp_bridge.transport.answers import JSONAnswer


def _state(response: HttpResponse) -> dict[str, Any]:
    state = dict(vars(response))
    state["headers"] = dict(state["headers"]._store)
    state["cookies"] = state["cookies"].output()
    return state


@pytest.mark.parametrize(
    ("body", "status"), [(b'{"jsonrpc":"2.0"}', 200), (b"{}", 400), (b"", 503)]
)
def test_the_answer_is_what_httpresponse_makes(body: bytes, status: int) -> None:
    made = JSONAnswer(body, status)
    django = HttpResponse(body, status=status, content_type="application/json")
    assert isinstance(made, HttpResponse)
    assert _state(made) == _state(django)
    assert made.content == django.content == body
    assert made.serialize_headers() == django.serialize_headers()
    assert (made.status_code, made.reason_phrase, made.charset) == (
        django.status_code,
        django.reason_phrase,
        django.charset,
    )


@pytest.mark.slow
@pytest.mark.django_db  # close() sends request_finished, which closes the connections
def test_the_answer_behaves_as_an_httpresponse_afterwards() -> None:
    made = JSONAnswer(b"{}")
    made["X-Trace"] = "abc"
    made.set_cookie("seen", "1")
    made.headers["Vary"] = "Accept"
    assert made["Content-Type"] == "application/json" and made["X-Trace"] == "abc"
    assert "seen=1" in made.cookies.output()
    made.close()
    assert made.closed


@pytest.mark.parametrize(
    ("name", "value"), [("Content-Language", "de"), ("Vary", "Accept-Language"), ("X-Ü", "x")]
)
def test_put_header_writes_what_setitem_writes(name: str, value: str) -> None:
    made, django = HttpResponse(), HttpResponse()
    try:
        django[name] = value
    except (BadHeaderError, UnicodeError) as refused:
        with pytest.raises(type(refused)):
            put_header(made, name, value)
        return
    put_header(made, name, value)
    assert made.headers._store == django.headers._store
    assert header(made, name.lower()) == django[name] == value


def test_put_header_refuses_a_newline_as_django_does() -> None:
    with pytest.raises(BadHeaderError):
        put_header(HttpResponse(), "Content-Language", "de\r\nSet-Cookie: a=b")
