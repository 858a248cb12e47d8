"""The test URLconf with the payments API (tests/settings_pgaudit.py)."""

from django.urls import include, path

from tests.pgaudit.views import router
from tests.urls import urlpatterns as test_urlpatterns

urlpatterns = [path("pay/", include(router.urls)), *test_urlpatterns]
