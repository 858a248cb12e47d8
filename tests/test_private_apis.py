"""The private Django, DRF, gettext and drf-spectacular APIs the bridge relies on are still there
and still behave as it expects: an upgrade that drops one fails here, by name, before it fails
somewhere deep in a tool call. Each use carries a comment pointing here."""

from __future__ import annotations

import gettext
import hashlib
import inspect
import textwrap
from importlib.metadata import version
from pathlib import Path

import pytest
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponse
from drf_spectacular.drainage import GENERATOR_STATS, add_trace_message, error, warn
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry, OpenApiGeneratorExtension, ResolvedComponent
from drf_spectacular.settings import spectacular_settings
from opentelemetry import metrics, trace
from opentelemetry.metrics import _internal as metrics_state
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

import mcp_bridge
from mcp_bridge.build import extension_lookup

LOCALE = Path(mcp_bridge.__file__).parent / "locale"


def test_django_basehandler_make_view_atomic():
    """mcp_bridge.toolcall.executor: ATOMIC_REQUESTS applied to the view of a tool call."""
    view = BaseHandler().make_view_atomic(lambda request: "ran")
    assert view(HttpRequest()) == "ran"


@pytest.mark.django_db  # close() sends request_finished, which closes database connections
def test_django_response_resource_closers():
    """mcp_bridge.toolcall.events: tool_call_delivered runs when the response is closed."""
    ran = []
    response = HttpResponse()
    response._resource_closers.append(lambda: ran.append(True))
    response.close()
    assert ran == [True]


def test_gettext_catalog_of_a_parsed_mo():
    """mcp_bridge.build.translation.Catalogue: msgctxt entries read from ``_catalog``."""
    mo = next(LOCALE.glob("*/LC_MESSAGES/*.mo"))
    with mo.open("rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    assert isinstance(catalogue._catalog, dict) and catalogue._catalog


@pytest.mark.django_db
def test_drf_request_reads_force_auth_user(django_user_model):
    """mcp_bridge.toolcall.executor and mcp_stdio --user: DRF's forced authentication."""
    user = django_user_model.objects.create_user("forced")
    http = HttpRequest()
    http._force_auth_user = user
    request = Request(http)
    assert request.user == user
    assert request._request is http  # openapi.py: the mock request's GET is replaced there


@pytest.mark.django_db
def test_drf_request_authenticator_and_csrf_exemption(django_user_model, rf):
    """mcp_bridge.toolcall.visibility: one caller's authentication reused through
    ``Request._authenticator``, and CSRF left out with ``_dont_enforce_csrf_checks``."""
    from rest_framework.authentication import SessionAuthentication

    user = django_user_model.objects.create_user("sessioned")
    http = rf.post("/", data={})
    http.user = user
    http._dont_enforce_csrf_checks = True  # else SessionAuthentication refuses the POST (CSRF)
    request = Request(http, authenticators=[SessionAuthentication()])
    assert request.user == user
    assert isinstance(request._authenticator, SessionAuthentication)
    again = Request(rf.get("/"), authenticators=[SessionAuthentication()])
    again._authenticator, again.user, again.auth = request._authenticator, user, None
    assert again.successful_authenticator is request._authenticator and again.user == user


def test_drf_spectacular_private_hooks():
    """mcp_bridge.build.openapi: the generator's URL walk and list/detail decision."""
    assert callable(EndpointEnumerator._get_api_endpoints)
    assert callable(SchemaGenerator._initialise_endpoints)
    assert callable(SchemaGenerator._get_paths_and_endpoints)
    assert callable(AutoSchema._is_list_view)
    # mcp_bridge.build.openapi.update_fields: one serializer field mapped for a request.
    assert callable(AutoSchema._map_serializer_field)
    assert callable(AutoSchema._get_serializer_field_meta)
    # GroupSchemaGenerator._request_made_from: a component looked up by (name, type).
    registry = ComponentRegistry()
    registry.register(ResolvedComponent("Item", ResolvedComponent.SCHEMA, {}, object=3))
    assert registry[("Item", ResolvedComponent.SCHEMA)].object == 3


def test_drf_spectacular_generator_stats_caches():
    """mcp_bridge.build.openapi: the messages of one get_schema(), read from GENERATOR_STATS."""
    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence(), add_trace_message(AutoSchema):
        warn("a warning")
        error("an error")
    assert [*GENERATOR_STATS._warn_cache] == [next(iter(GENERATOR_STATS._warn_cache))]
    assert "[AutoSchema]: a warning" in next(iter(GENERATOR_STATS._warn_cache))
    assert "an error" in next(iter(GENERATOR_STATS._error_cache))
    GENERATOR_STATS.reset()


def test_drf_spectacular_keeps_its_trace_stack_in_generator_stats_traces():
    """mcp_bridge.build.openapi._traces_kept_clean: add_trace_message pushes onto
    GENERATOR_STATS._traces, and leaves its entry there when its block raises."""
    depth = len(GENERATOR_STATS._traces)
    with pytest.raises(RuntimeError), add_trace_message(AutoSchema):
        assert GENERATOR_STATS._traces[-1][2] == "AutoSchema"
        raise RuntimeError
    assert len(GENERATOR_STATS._traces) == depth + 1
    del GENERATOR_STATS._traces[depth:]


def test_drf_spectacular_get_operation_sets_path_prefix():
    """mcp_bridge.build.openapi: an operation derived from the view leaves the instance
    attribute ``path_prefix`` on its inspector (a hand-written one never sets it)."""

    class Echo(APIView):
        def get(self, request):
            return Response({})

    view = Echo()
    view.request = spectacular_settings.GET_MOCK_REQUEST("GET", "/echo/", view, None)
    view.args, view.kwargs, view.format_kwarg = (), {}, None
    inspector = view.schema
    assert "path_prefix" not in vars(inspector)
    assert inspector.get_operation("/echo/", "^echo/$", "^/", "GET", ComponentRegistry())
    assert vars(inspector)["path_prefix"] == "^/"


#: sha256 of drf-spectacular's ``SchemaGenerator.parse`` source (dedented), per release range:
#: the releases whose ``parse`` mcp_bridge.build.openapi.GroupSchemaGenerator.parse was
#: compared with, line by line. 0.29.0 and 0.30.0 (the newest release as of this writing) have
#: the same ``parse``. 0.28.0 (the floor) differs in one line: it estimates the path prefix with
#: ``os.path.commonpath`` where 0.29 uses ``posixpath.commonpath`` (a Windows fix), and the copy
#: uses ``posixpath`` on every release, so it behaves as 0.29's there.
KNOWN_PARSE_SOURCES = {
    "078e2d6470a0e99470a1f7fed6a1b0188d5ac6139d221659b6008964ead56dd1": "0.28.0",
    "4ceb8b683d54019ce111c999cfc93dae0b57dd72746033dbafa508517b09bbdc": "0.29.0 - 0.30.0",
}


def test_drf_spectacular_field_mapping_without_extensions():
    """mcp_bridge.build.spectacular_compat.BlankFormattedStringExtension (drf-spectacular
    before 0.30): a field mapped with ``bypass_extensions``, then its validators inserted."""

    class Echo(APIView):
        def get(self, request):
            return Response({})

    view = Echo()
    view.request = spectacular_settings.GET_MOCK_REQUEST("GET", "/echo/", view, None)
    inspector = view.schema
    inspector.registry = ComponentRegistry()
    field = serializers.SlugField()
    schema = inspector._map_serializer_field(field, "request", bypass_extensions=True)
    inspector._insert_field_validators(field, schema)
    assert schema["type"] == "string" and "pattern" in schema


#: sha256 of drf-spectacular's ``OpenApiGeneratorExtension.get_match`` and ``_matches``, 0.28 -
#: 0.30 (0.29 only annotated get_match's argument), which mcp_bridge.build.extension_lookup
#: remembers per class while the bridge generates.
KNOWN_EXTENSION_LOOKUP_SOURCES = {
    "get_match": {
        "52435342996eeb43c89acfcaa694dd95cab81fa44e4643aa3c694e40457dcd1f",  # 0.28
        "4d5422eb03bd944c8bcbd51f265efef86856865a591194d9ac429cf85d221245",  # 0.29, 0.30
    },
    "_matches": {"42248ce06f538c357c464af9fab05cf3bd9e001160938fe32c30aa424d348552"},
}


def test_drf_spectacular_extension_matching():
    """mcp_bridge.build.spectacular_compat (drf-spectacular before 0.30) and
    mcp_bridge.build.extension_lookup: an extension class decides with its ``_matches``
    classmethod, asked by ``get_match`` in priority order, and upstream's ``_matches`` reads
    only the target's class. An upgrade that changes either fails here: then re-read
    extension_lookup, which remembers the answer per class, and update the hashes."""
    assert isinstance(inspect.getattr_static(OpenApiGeneratorExtension, "_matches"), classmethod)
    for name, function in (
        ("get_match", extension_lookup._upstream_get_match),
        ("_matches", extension_lookup._upstream_matches),
    ):
        source = textwrap.dedent(inspect.getsource(function))
        digest = hashlib.sha256(source.encode()).hexdigest()
        assert digest in KNOWN_EXTENSION_LOOKUP_SOURCES[name], (
            f"drf-spectacular's OpenApiGeneratorExtension.{name} changed (installed version "
            f"{version('drf-spectacular')}): re-read mcp_bridge.build.extension_lookup, then "
            f"update KNOWN_EXTENSION_LOOKUP_SOURCES (sha256 {digest})."
        )


def test_drf_spectacular_schema_generator_parse_is_the_one_copied():
    """mcp_bridge.build.openapi.GroupSchemaGenerator.parse copies SchemaGenerator.parse with
    the differences its docstring lists: an upgrade that changes upstream's fails here, so that
    whoever upgrades re-reads the copy."""
    source = textwrap.dedent(inspect.getsource(SchemaGenerator.parse))
    digest = hashlib.sha256(source.encode()).hexdigest()
    assert digest in KNOWN_PARSE_SOURCES, (
        f"drf-spectacular's SchemaGenerator.parse changed (installed version "
        f"{version('drf-spectacular')}): re-read mcp_bridge.build.openapi.GroupSchemaGenerator"
        f".parse, which copies it, then update the hash (KNOWN_PARSE_SOURCES, sha256 {digest})."
    )


def test_response_headers_keep_a_lower_case_store() -> None:
    """mcp_bridge.base.headers: Django's ResponseHeaders keeps each header in ``_store`` under its
    lower-case name as ``(name, value)``; the call pipeline reads it there (an absent header
    through ``in`` or ``get`` costs a KeyError)."""
    from django.http import HttpResponse

    from mcp_bridge.base.headers import header

    response = HttpResponse(b"{}", content_type="application/json")
    response["Content-Disposition"] = "attachment; filename=a.pdf"
    assert response.headers._store["content-disposition"] == (
        "Content-Disposition",
        "attachment; filename=a.pdf",
    )
    assert header(response, "content-type") == response["Content-Type"] == "application/json"
    assert header(response, "content-disposition") == "attachment; filename=a.pdf"
    assert header(response, "vary") is None and not response.has_header("Vary")


def test_opentelemetry_global_providers_are_module_globals():
    """mcp_bridge.tracing.providers: the global tracer and meter providers read without a
    call, to tell in a few instructions whether one was set since the last look."""
    assert trace._TRACER_PROVIDER is None or trace._TRACER_PROVIDER is trace.get_tracer_provider()
    assert metrics_state._METER_PROVIDER is None or (
        metrics_state._METER_PROVIDER is metrics.get_meter_provider()
    )
