"""Mistakes of a deployment that used to pass silently or point the wrong way.

* Redis without redis-py: a build store in Django's ``RedisCache``, or ``RedisLockBackend``,
  is a check error (``E143``, ``E144``), not a traceback of ``mcp_build``;
* a ``GROUPS`` entry whose name is a near-miss of another group's (``W051``, "did you mean");
* the login-required hint (``E090``) names the API's real prefix, routed by a regex
  (``^api/v2/``), and the exemption in both styles; the regex it gives clears the error;
* an unwritable build store is logged in one line per process, with its check id.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.management import CommandError, call_command
from django.urls import include, path, re_path
from rest_framework import serializers, viewsets
from rest_framework.routers import SimpleRouter

import mcp_bridge.urls
from mcp_bridge import api_group, locking
from mcp_bridge.checks import check_build_store, check_endpoint_answers, check_membership
from mcp_bridge.store import builds
from mcp_bridge.toolset import registry
from tests.testapp.models import Author

pytestmark = pytest.mark.django_db

# -- Redis without redis-py ----------------------------------------------------------------


@pytest.fixture
def without_redis(monkeypatch):
    """redis-py cannot be imported (``import redis`` raises ImportError)."""
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setattr(locking, "_backends", {})


def test_a_redis_build_store_without_redis_py_is_a_check_error(settings, without_redis):
    settings.CACHES = {
        **settings.CACHES,
        "builds": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:6379/5",
        },
    }
    settings.MCP_BRIDGE = {"BUILD_STORE": {"BACKEND": "cache", "CACHE_ALIAS": "builds"}}
    (message,) = check_build_store()
    assert message.id == "mcp_bridge.E143"
    assert "needs redis" in message.msg and "django-mcp-bridge[redis]" in message.hint
    with pytest.raises(CommandError, match="mcp_bridge.E143"):
        call_command("mcp_build", "catalog")


def test_a_redis_lock_backend_without_redis_py_is_a_check_error(settings, tmp_path, without_redis):
    settings.MCP_BRIDGE = {
        "BUILD_STORE": {"DIRECTORY": str(tmp_path)},
        "LOCK_BACKEND": "mcp_bridge.locking.RedisLockBackend",
    }
    (message,) = check_build_store()
    assert message.id == "mcp_bridge.E144"
    assert "RedisLockBackend" in message.msg and "redis" in message.hint


def test_a_lock_backend_that_cannot_be_imported_is_a_check_error(settings, tmp_path):
    settings.MCP_BRIDGE = {
        "BUILD_STORE": {"DIRECTORY": str(tmp_path)},
        "LOCK_BACKEND": "myproject.locks.NoSuchBackend",
    }
    locking._backends.clear()
    assert [m.id for m in check_build_store()] == ["mcp_bridge.E244"]


# -- a misspelt group ------------------------------------------------------------------------


def test_a_group_in_settings_that_is_a_near_miss_of_another_is_a_warning(settings):
    settings.MCP_BRIDGE = {"GROUPS": {"ledgr": {"include": [{"path": "/cases/ledger/"}]}}}
    (near,) = [m for m in check_membership() if m.id == "mcp_bridge.W051"]
    assert "'ledgr'" in near.msg and "/mcp/ledgr/" in near.msg
    assert "Did you mean 'ledger'?" in near.hint
    # A name of its own is no mistake.
    settings.MCP_BRIDGE = {"GROUPS": {"bookkeeping": {"include": [{"path": "/cases/ledger/"}]}}}
    assert [m for m in check_membership() if m.id == "mcp_bridge.W051"] == []


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("catalgo", "catalog"), ("ordres", "orders"), ("ledgre", "ledger"), ("catalogs", "catalog")],
)
def test_one_swap_or_one_edit_is_a_near_miss(settings, typo, meant):
    # A swap of two neighbours is the commonest typo; difflib's ratio scores it under 0.88.
    settings.MCP_BRIDGE = {"GROUPS": {typo: {"include": [{"path": "/cases/ledger/"}]}}}
    (near,) = [m for m in check_membership() if m.id == "mcp_bridge.W051"]
    assert f"Did you mean {meant!r}?" in near.hint


@pytest.mark.parametrize(
    "declared",
    [
        {
            "api-v1": {"include": [{"path": "/cases/"}]},
            "api-v2": {"include": [{"path": "/cases/"}]},
        },
        {"reports-v1": {"include": [{"path": "/cases/"}]}},  # "reports" exists: numbered apart
        {"ordr": {"include": [{"path": "/cases/"}]}},  # under five characters: too short to tell
    ],
)
def test_numbered_and_short_names_are_not_near_misses(settings, declared):
    settings.MCP_BRIDGE = {"GROUPS": declared}
    assert [m for m in check_membership() if m.id == "mcp_bridge.W051"] == []


# -- the login-required hint names the API's real prefix --------------------------------------


class AuthorSerializer(serializers.ModelSerializer):
    class Meta:
        model = Author
        fields = ["id", "name"]


@api_group("books")
class AuthorViewSet(viewsets.ModelViewSet):
    """Authors."""

    queryset = Author.objects.all()
    serializer_class = AuthorSerializer


class RegexLoginRequiredMiddleware:
    """A login-required middleware whose exemptions are regexes matched against the path
    without its leading slash (``LOGIN_EXEMPT_URLS``), as many projects and packages have."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        path_ = request.path_info.lstrip("/")
        exempt = getattr(settings, "LOGIN_EXEMPT_URLS", ())
        if request.user.is_authenticated or any(re.match(rule, path_) for rule in exempt):
            return self.get_response(request)
        return redirect_to_login(request.get_full_path())


router = SimpleRouter()
router.register("authors", AuthorViewSet)
urlpatterns = [
    re_path(r"^api/v2/", include(router.urls)),
    path("mcp/", include(mcp_bridge.urls)),
]
REGEX_LOGIN = f"{__name__}.RegexLoginRequiredMiddleware"


@pytest.mark.urls(__name__)
def test_the_login_hint_names_the_apis_regex_prefix_and_both_styles(settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, REGEX_LOGIN]
    settings.LOGIN_EXEMPT_URLS = [r"^api/v2/"]
    (error,) = [m for m in check_endpoint_answers() if m.id == "mcp_bridge.E090"]
    assert error.obj == "/mcp/books/"
    assert "prefix (/api/v2/)" in error.hint
    assert "The URLconf routes the API with '^api/v2/'." in error.hint
    assert '"/mcp/" beside "/api/v2/"' in error.hint
    assert 'r"^mcp/" beside r"^api/v2/"' in error.hint
    # The regex the hint gives clears the error.
    settings.LOGIN_EXEMPT_URLS = [r"^api/v2/", r"^mcp/"]
    assert [m.id for m in check_endpoint_answers()] == []


# -- an unwritable build store -----------------------------------------------------------------


def test_an_unwritable_build_store_is_logged_once_per_process_with_its_check_id(
    settings, tmp_path, caplog
):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    settings.MCP_BRIDGE = {
        "BUILD_STORE": {"DIRECTORY": str(blocker / "builds")},
        "LOCK_OPTIONS": {"directory": str(tmp_path / "locks")},
    }
    registry.clear_cache()
    builds._failures.clear()
    with caplog.at_level(logging.DEBUG, logger="mcp_bridge.store"):
        for group in ("catalog", "ledger", "orders"):
            assert registry.get_toolset(group).by_name
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    (warning,) = warnings
    assert warning.exc_info is None and "\n" not in warning.getMessage()
    assert "mcp_bridge.E141" in warning.getMessage()
    assert [m.id for m in check_build_store()] == ["mcp_bridge.E141"]
