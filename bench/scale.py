"""Benchmark 6: a big group, shaped like a large real API (``bash bench/run scale``).

Groups of 1,000 and 5,000 operations, generated the way large DRF applications look: every
resource has six operations (list, create, retrieve, update, partial_update, destroy), a
paginated list, a status choice field, nested "brief" representations of four related
resources (a fixed set of brief serializers shared across the API, as NetBox's are), tags,
custom fields, and read-only/write-only field pairs (``site`` out, ``site_id`` in).

For each size, in one process and side by side:

* drf-spectacular's own schema for the same views (``SchemaGenerator(patterns=...)``): its
  JSON size and generation time;
* the bridge's first ``tools/list`` of the group (index pre-built): build time, and the bytes
  of the whole list and per tool (mean, max) in the handshake era's answer;
* the same answer gzipped (:mod:`mcp_bridge.transport.compression`), and warm answers with and without.

Run directly: ``DJANGO_SETTINGS_MODULE=bench.site.settings python -m bench.scale [1000 5000]``.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
import types
from typing import Any

from bench import lib

SIZES = (1000, 5000)
OPERATIONS_PER_RESOURCE = 6
#: The related resources every resource links to, by brief representation (shared).
BRIEF_KINDS = ("Site", "Tenant", "Region", "Location", "Rack", "Platform", "Role", "Manufacturer")


def _build_module(size: int) -> types.ModuleType:
    """A URLconf module with ``size`` operations in group ``scale<size>``."""
    from django.urls import include, path
    from drf_spectacular.utils import extend_schema_field
    from rest_framework import mixins, pagination, serializers, viewsets
    from rest_framework.routers import SimpleRouter

    from bench.shop.models import Item
    from mcp_bridge import api_group

    module = types.ModuleType(f"bench_scale_{size}")
    module.__dict__["__name__"] = module.__name__

    def brief(kind: str) -> type[serializers.Serializer]:
        return type(
            f"Brief{kind}Serializer",
            (serializers.Serializer,),
            {
                "__module__": module.__name__,
                "id": serializers.IntegerField(read_only=True),
                "url": serializers.URLField(read_only=True),
                "display": serializers.CharField(read_only=True),
                "name": serializers.CharField(),
                "slug": serializers.SlugField(),
                "description": serializers.CharField(
                    required=False, help_text=f"What the {kind.lower()} is for."
                ),
            },
        )

    briefs = {kind: brief(kind) for kind in BRIEF_KINDS}
    tag = brief("Tag")
    statuses = [
        ("active", "Active"),
        ("planned", "Planned"),
        ("staged", "Staged"),
        ("retired", "Retired"),
    ]

    def resource_serializer(index: int) -> type[serializers.Serializer]:
        attrs: dict[str, Any] = {
            "__module__": module.__name__,
            "id": serializers.IntegerField(read_only=True),
            "url": serializers.URLField(read_only=True),
            "display": serializers.CharField(read_only=True),
            "name": serializers.CharField(max_length=100, help_text="A unique name."),
            "slug": serializers.SlugField(max_length=100),
            "status": serializers.ChoiceField(choices=statuses, help_text="Operational status."),
            "description": serializers.CharField(max_length=200, required=False, allow_blank=True),
            "comments": serializers.CharField(required=False, allow_blank=True),
            "custom_fields": serializers.DictField(required=False),
            "created": serializers.DateTimeField(read_only=True),
            "last_updated": serializers.DateTimeField(read_only=True),
        }
        for offset in range(4):
            kind = BRIEF_KINDS[(index + offset) % len(BRIEF_KINDS)]
            field = kind.lower()

            @extend_schema_field(briefs[kind](allow_null=True))
            class Nested(serializers.SerializerMethodField):
                pass

            attrs[field] = Nested()
            attrs[f"get_{field}"] = lambda self, obj: None
            attrs[f"{field}_id"] = serializers.IntegerField(
                write_only=True, required=False, allow_null=True
            )

        @extend_schema_field(tag(many=True))
        class Tags(serializers.SerializerMethodField):
            pass

        attrs["tags"] = Tags()
        attrs["get_tags"] = lambda self, obj: []
        return type(f"Resource{index}Serializer", (serializers.Serializer,), attrs)

    router = SimpleRouter()
    for index in range(size // OPERATIONS_PER_RESOURCE):
        viewset = type(
            f"Resource{index}ViewSet",
            (
                mixins.ListModelMixin,
                mixins.CreateModelMixin,
                mixins.RetrieveModelMixin,
                mixins.UpdateModelMixin,
                mixins.DestroyModelMixin,
                viewsets.GenericViewSet,
            ),
            {
                "__module__": module.__name__,
                "__doc__": f"Resource {index}: one of the many kinds of things the API manages.",
                "queryset": Item.objects.none(),
                "serializer_class": resource_serializer(index),
                "pagination_class": pagination.LimitOffsetPagination,
            },
        )
        api_group(f"scale{size}")(viewset)
        router.register(f"app{index % 12}/resource{index}", viewset, basename=f"resource{index}")
    module.api_patterns = [path(f"api/scale{size}/", include(router.urls))]
    module.urlpatterns = [*module.api_patterns, path("mcp/", include("mcp_bridge.urls"))]
    sys.modules[module.__name__] = module
    return module


def _best_ms(answer: Any, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        answer()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def _measure(size: int) -> dict[str, Any]:
    from django.test import RequestFactory, override_settings
    from drf_spectacular.generators import SchemaGenerator

    from mcp_bridge.build import translation
    from mcp_bridge.toolset import registry
    from mcp_bridge.transport.endpoint import mcp_endpoint

    module = _build_module(size)
    group = f"scale{size}"
    gc.collect()
    start = time.perf_counter()
    spectacular = SchemaGenerator(patterns=module.api_patterns).get_schema(
        request=None, public=True
    )
    spectacular_seconds = time.perf_counter() - start
    spectacular_bytes = len(json.dumps(spectacular, separators=(",", ":")).encode())

    row: dict[str, Any] = {
        "size": size,
        "operations": sum(len(ops) for ops in spectacular["paths"].values()),
        "spectacular_s": spectacular_seconds,
        "spectacular_kib": spectacular_bytes / 1024,
    }
    with override_settings(ROOT_URLCONF=module.__name__, MCP_BRIDGE={"PAGE_SIZE": None}):
        registry.clear_cache()
        translation.clear_cache()
        registry.get_url_index()
        gc.collect()
        request = RequestFactory().post(
            f"/mcp/{group}/",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
        )
        start = time.perf_counter()
        response = mcp_endpoint(request, group)
        row["bridge_s"] = time.perf_counter() - start
        assert response.status_code == 200, response.content[:300]
        zipped_request = RequestFactory().post(
            f"/mcp/{group}/",
            request.body,
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
            HTTP_ACCEPT_ENCODING="gzip",
        )
        mcp_endpoint(zipped_request, group)  # the page is deflated once, here
        row["warm_plain_ms"] = _best_ms(lambda: mcp_endpoint(request, group))
        row["warm_gzip_ms"] = _best_ms(lambda: mcp_endpoint(zipped_request, group))
        zipped = mcp_endpoint(zipped_request, group)
        assert zipped["Content-Encoding"] == "gzip"
        row["gzip_kib"] = len(zipped.content) / 1024
        tools = json.loads(response.content)["result"]["tools"]
        sizes = [len(json.dumps(tool, separators=(",", ":")).encode()) for tool in tools]
        row.update(
            tools=len(tools),
            bridge_kib=len(response.content) / 1024,
            per_tool_mean_kib=sum(sizes) / len(sizes) / 1024,
            per_tool_max_kib=max(sizes) / 1024,
        )
    row["bytes_ratio"] = row["bridge_kib"] / row["spectacular_kib"]
    row["time_ratio"] = row["bridge_s"] / row["spectacular_s"]
    return row


def rows(sizes: tuple[int, ...] = SIZES) -> list[list[str]]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    out = []
    for size in sizes:
        lib.log(f"scale: {size} operations")
        r = _measure(size)
        out.append(
            [
                r["operations"],
                r["tools"],
                f"{r['spectacular_kib']:.0f}",
                f"{r['bridge_kib']:.0f}",
                f"{r['bytes_ratio']:.2f}",
                f"{r['per_tool_mean_kib']:.1f}",
                f"{r['per_tool_max_kib']:.1f}",
                f"{r['spectacular_s']:.2f}",
                f"{r['bridge_s']:.2f}",
                f"{r['time_ratio']:.2f}",
                f"{r['gzip_kib']:.0f}",
                f"{r['bridge_kib'] / r['gzip_kib']:.0f}",
                f"{r['warm_plain_ms']:.1f}",
                f"{r['warm_gzip_ms']:.1f}",
            ]
        )
    return out


def run(sizes: tuple[int, ...] = SIZES) -> str:
    return lib.table(
        "6. A big group shaped like a large API: drf-spectacular's schema vs the whole tools/list (in process)",
        [
            "operations",
            "tools",
            "spectacular KiB",
            "tools/list KiB",
            "bytes ratio",
            "KiB per tool (mean)",
            "KiB per tool (max)",
            "spectacular s",
            "bridge first list s",
            "time ratio",
            "gzip KiB",
            "gzip factor",
            "warm list ms",
            "warm gzip list ms",
        ],
        rows(sizes),
        "Compact JSON on both sides. The bridge's time is its first tools/list of the group (drf-spectacular's "
        "generation for the group included, the URLconf index built before the clock starts). gzip: the same "
        "answer to a client sending Accept-Encoding: gzip (the page deflated once; warm figures are the best of "
        "5 in-process answers, without HTTP).",
    )


if __name__ == "__main__":
    print(run(tuple(int(a) for a in sys.argv[1:]) or SIZES))
