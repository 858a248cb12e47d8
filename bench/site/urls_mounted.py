"""The benchmark site's URLs laid out as a project mounts its APIs: the REST views under one
``include()`` (``path("api/", include(router.urls))``), the bridge under another
(``path("mcp/", include("mcp_bridge.urls"))``), and the other benchmarks' URLs after both.

The same URLs as :mod:`bench.site.urls`, whose layout puts the REST views first at flat paths and
the endpoint behind every other pattern. ``bench.instructions`` counts either
(``DJANGO_SETTINGS_MODULE=bench.site.settings_mounted``): what the layout moves is URL resolution
alone, which a REST request and a ``tools/call`` pay by where their patterns sit.
"""

from django.urls import include, path

from bench.site.urls import FLOORS_AND_ENDPOINT, OTHER_BENCHMARKS, REST_VIEWS

urlpatterns = [
    path("api/", include(REST_VIEWS)),
    *FLOORS_AND_ENDPOINT,
    *OTHER_BENCHMARKS,
]
