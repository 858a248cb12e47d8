"""The request of a tool call's view: its path resolved (mcp_bridge.toolcall.routing: Django's
answer, remembered only where it cannot change between requests) and its scheme."""

from __future__ import annotations

import sys
import types

import pytest
from django.conf.urls.i18n import i18n_patterns
from django.http import HttpResponse
from django.test import override_settings
from django.urls import (
    Resolver404,
    get_resolver,
    include,
    path,
    re_path,
    register_converter,
    resolve,
)
from rest_framework import routers, viewsets
from rest_framework.response import Response

from mcp_bridge.toolcall.routing import (
    CACHED_FILLED_PATHS,
    _is_static,
    _resolved,
    _resolved_filled,
    resolve_operation_path,
)


def view(request, **kwargs):
    return HttpResponse("ok")


class CountingConverter:
    """A project's converter: its to_python() may do anything (here: count calls)."""

    regex = "[0-9]+"
    calls = 0

    def to_python(self, value):
        CountingConverter.calls += 1
        return int(value)

    def to_url(self, value):
        return str(value)


register_converter(CountingConverter, "counted")


def _urlconf(name: str, patterns: list) -> str:
    module = types.ModuleType(name)
    module.urlpatterns = patterns
    sys.modules[name] = module
    return name


STATIC = _urlconf(
    "tests._routing_static",
    [
        path(
            "api/",
            include(
                [path("items/<int:pk>/", view, name="item"), re_path(r"^tags/(?P<tag>\w+)/$", view)]
            ),
        ),
        path("other/<slug:slug>/", view, {"extra": "x"}),
    ],
)
CUSTOM = _urlconf("tests._routing_custom", [path("api/items/<counted:pk>/", view)])


class Things(viewsets.ViewSet):
    def list(self, request):
        return Response([])

    def retrieve(self, request, pk=None):
        return Response({"pk": pk})


_router = routers.DefaultRouter()
_router.register("things", Things, basename="thing")
ROUTED = _urlconf("tests._routing_router", [path("api/", include(_router.urls))])
LOCALIZED = _urlconf("tests._routing_i18n", i18n_patterns(path("items/<int:pk>/", view)))


def test_same_answer_as_django_and_remembered():
    first = resolve_operation_path("/api/items/7/", STATIC)
    django_match = resolve("/api/items/7/", STATIC)
    for attribute in (
        "func",
        "args",
        "kwargs",
        "url_name",
        "route",
        "app_names",
        "namespaces",
        "view_name",
        "captured_kwargs",
        "extra_kwargs",
    ):
        assert getattr(first, attribute) == getattr(django_match, attribute), attribute
    assert _is_static(get_resolver(STATIC))
    hits = _resolved.cache_info().hits
    second = resolve_operation_path("/api/items/7/", STATIC)
    assert _resolved.cache_info().hits == hits + 1
    # Each request gets its own match: changing one leaves the next untouched.
    assert second is not first and second.kwargs is not first.kwargs
    second.kwargs["pk"] = 99
    second.tried.clear()
    third = resolve_operation_path("/api/items/7/", STATIC)
    assert third.kwargs == {"pk": 7} and third.tried


def test_default_kwargs_and_regex_groups():
    match = resolve_operation_path("/other/a-b/", STATIC)
    assert match.kwargs == {"slug": "a-b", "extra": "x"} and match.extra_kwargs == {"extra": "x"}
    assert resolve_operation_path("/api/tags/red/", STATIC).kwargs == {"tag": "red"}


def test_drf_router_with_format_suffixes_is_remembered():
    assert _is_static(get_resolver(ROUTED))
    assert resolve_operation_path("/api/things/4/", ROUTED).kwargs == {"pk": "4"}
    assert resolve_operation_path("/api/things/4.json", ROUTED).kwargs == {
        "pk": "4",
        "format": "json",
    }


def test_project_converter_runs_on_every_call():
    resolver = get_resolver(CUSTOM)
    assert not _is_static(resolver)
    before = CountingConverter.calls
    for _ in range(3):
        assert resolve_operation_path("/api/items/5/", CUSTOM).kwargs == {"pk": 5}
    assert CountingConverter.calls == before + 3


@override_settings(LANGUAGES=[("en", "English"), ("fr", "French")], LANGUAGE_CODE="en")
def test_i18n_patterns_are_never_remembered():
    assert not _is_static(get_resolver(LOCALIZED))
    assert resolve_operation_path("/en/items/1/", LOCALIZED).kwargs == {"pk": 1}


def test_unresolvable_path_raises_every_time():
    for _ in range(2):
        with pytest.raises(Resolver404):
            resolve_operation_path("/nowhere/", STATIC)


def test_a_new_urlconf_gives_new_answers():
    with override_settings(ROOT_URLCONF=STATIC):
        assert resolve_operation_path("/api/items/1/").url_name == "item"
    changed = _urlconf(
        "tests._routing_changed", [path("api/items/<int:pk>/", view, name="renamed")]
    )
    with override_settings(ROOT_URLCONF=changed):
        assert resolve_operation_path("/api/items/1/").url_name == "renamed"


@pytest.mark.parametrize(
    ("secure", "forwarded", "proxy_header", "expected"),
    [
        (False, None, None, "http"),
        (True, None, None, "https"),
        (False, "https", ("HTTP_X_FORWARDED_PROTO", "https"), "https"),
        (False, "https", None, "http"),  # the header counts only where the project trusts it
    ],
)
def test_the_views_request_has_the_scheme_of_the_mcp_request(
    db, settings, secure, forwarded, proxy_header, expected
):
    from django.test import RequestFactory

    from mcp_bridge.toolcall import executor
    from mcp_bridge.toolset.registry import get_toolset

    settings.SECURE_PROXY_SSL_HEADER = proxy_header
    tool = next(
        t
        for t in get_toolset("cases").tools
        if not any(p.location == "path" for p in t.method.params)
    )
    headers = {"HTTP_X_FORWARDED_PROTO": forwarded} if forwarded else {}
    mcp_request = RequestFactory().post(
        "/mcp/cases/", "{}", content_type="application/json", secure=secure, **headers
    )
    request = executor.build_request(tool, {}, mcp_request)
    assert mcp_request.scheme == request.scheme == expected
    assert request.is_secure() is (expected == "https")


def test_paths_filled_with_values_are_remembered_apart_and_fewer():
    """One-off paths (an order id each) must not fill the memory of the operations' own paths:
    a soak run grew each worker by ~4 MB that way."""
    resolve_operation_path("/api/items/7/", STATIC)
    remembered = _resolved.cache_info().currsize
    for pk in range(CACHED_FILLED_PATHS * 3):
        assert resolve_operation_path(f"/api/items/{pk}/", STATIC, filled=True).kwargs == {"pk": pk}
    assert _resolved.cache_info().currsize == remembered
    assert _resolved_filled.cache_info().currsize == CACHED_FILLED_PATHS
