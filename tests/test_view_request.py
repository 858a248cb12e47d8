"""The view's request of a tool call is the request Django's own WSGIRequest would make.

:class:`~mcp_bridge.toolcall.identity.ViewRequest` sets what ``WSGIRequest.__init__`` sets
without decoding the path twice or parsing its fixed content type
(:mod:`mcp_bridge.toolcall.plan`). These tests build both from the same environ, the way
the bridge built it when it still called ``WSGIRequest.__init__`` (the path as UTF-8 bytes in
latin-1 text, as PEP 3333 has it), and compare every attribute: a Django release that sets
one more, or sets one differently, fails here.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIRequest
from django.test import RequestFactory, override_settings

from mcp_bridge.toolcall.identity import IDENTITY_ATTRIBUTES, ViewRequest
from mcp_bridge.toolcall.plan import RequestPlan, view_request

#: What ViewRequest adds of its own: the MCP request, and the identity copied from it.
_OWN = {"_mcp_request", "_view_user", "_view_auth", *IDENTITY_ATTRIBUTES}


def _plan(method: str = "GET", template: str = "/api/items/{id}/") -> RequestPlan:
    return RequestPlan(
        method=method,
        template=template,
        path_parts=("/api/items/", "id", "/"),
        path_arguments={"id": "id"},
        query=(),
        version_query=None,
        accept="application/json",
        json_accept="application/json",
        whole_body=(),
        body_fields=(),
        has_two_body_forms=False,
    )


def _django_request(environ: dict[str, Any]) -> WSGIRequest:
    """WSGIRequest made from the environ as a WSGI server would hand it over."""
    pep3333 = dict(environ)
    pep3333["PATH_INFO"] = environ["PATH_INFO"].encode().decode("latin-1")
    if "SCRIPT_NAME" in environ:
        pep3333["SCRIPT_NAME"] = environ["SCRIPT_NAME"].encode().decode("latin-1")
    body = environ["wsgi.input"].getvalue()
    pep3333["wsgi.input"] = BytesIO(body)
    return WSGIRequest(pep3333)


def _compared(request: WSGIRequest) -> dict[str, Any]:
    state = {k: v for k, v in vars(request).items() if k not in _OWN}
    stream = state.pop("_stream")
    state["stream"] = (type(stream), stream.limit)
    state["META"] = {k: v for k, v in state.pop("META").items() if k != "wsgi.input"}
    state.pop("environ")  # the same dict as META
    return state


@pytest.mark.parametrize(
    ("method", "path", "body", "script_name"),
    [
        ("GET", "/api/items/3/", None, ""),
        ("POST", "/api/items/", b'{"name": "x"}', ""),
        ("PATCH", "/api/items/caf\u00e9 \u20ac/", b"{}", "/prefix"),
        ("DELETE", "/api/items/a%2Fb/", None, "/deep/prefix/"),
        ("GET", "/api/items/\U0001f600/", None, "/pr\u00e9fix"),
    ],
)
def test_the_view_request_is_what_wsgirequest_makes(
    method: str, path: str, body: bytes | None, script_name: str
) -> None:
    mcp_request = RequestFactory().post(
        "/mcp/bench/",
        b"{}",
        content_type="application/json",
        HTTP_AUTHORIZATION="Token abc",
        HTTP_X_FORWARDED_PROTO="https",
        HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
        # As a WSGI server hands it over (PEP 3333): WSGIRequest decodes it into META.
        SCRIPT_NAME=script_name.encode().decode("latin-1"),
    )
    assert mcp_request.META["SCRIPT_NAME"] == script_name
    made = view_request(_plan(method), mcp_request, path, "page=2&q=%C3%A9", body)
    environ = dict(made.META)
    environ["wsgi.input"] = BytesIO(body or b"")
    django = _django_request(environ)

    assert _compared(made) == _compared(django)
    assert made.body == django.body == (body or b"")
    assert made.read() == django.read()  # the body again, from Django's own BytesIO
    # Reading the body consumed wsgi.input and left it open, as WSGIRequest's LimitedStream does.
    assert made.META["wsgi.input"].read() == b"" and not made.META["wsgi.input"].closed
    assert made.GET == django.GET
    assert made.path == django.path and made.get_full_path() == django.get_full_path()
    assert made.build_absolute_uri() == django.build_absolute_uri()
    assert made.headers == django.headers
    # The transport's headers stay with the MCP request.
    assert "HTTP_MCP_PROTOCOL_VERSION" not in made.META
    if body is None:
        # As a WSGI server hands over a request without a body: no empty Content-Type or
        # Content-Length, which request.headers would list (a REST GET's lists neither).
        rest = RequestFactory().generic(method, path)
        assert not {"CONTENT_TYPE", "CONTENT_LENGTH"} & (set(made.META) | set(rest.META))
        assert "Content-Type" not in made.headers and "Content-Length" not in made.headers
    else:
        assert made.headers["Content-Type"] == "application/json"
        assert made.headers["Content-Length"] == str(len(body))
    assert made.META["HTTP_AUTHORIZATION"] == "Token abc"


@pytest.mark.parametrize("through_handler", [True, False])
def test_force_script_name_is_honoured_as_by_wsgirequest(through_handler: bool) -> None:
    with override_settings(FORCE_SCRIPT_NAME="/forced"):
        mcp_request = RequestFactory().post("/mcp/bench/", b"{}", content_type="application/json")
        if not through_handler:  # a request Django's handlers did not make (stdio)
            del mcp_request.META["SCRIPT_NAME"]
        made = view_request(_plan(), mcp_request, "/api/items/3/", "", None)
        environ = dict(made.META)
        environ["wsgi.input"] = BytesIO(b"")
        django = _django_request(environ)
    assert made.path == django.path == "/forced/api/items/3/"
    assert _compared(made) == _compared(django)


def test_another_content_type_is_parsed_as_django_parses_it() -> None:
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/items/",
        "CONTENT_TYPE": "application/json; charset=latin-1",
        "CONTENT_LENGTH": "2",
        "wsgi.input": BytesIO(b"{}"),
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
    }
    mcp_request = RequestFactory().get("/")
    made = ViewRequest(dict(environ, **{"wsgi.input": BytesIO(b"{}")}), mcp_request)
    django = WSGIRequest(environ)
    assert (made.content_type, made.content_params, made.encoding) == (
        django.content_type,
        django.content_params,
        django.encoding,
    )
