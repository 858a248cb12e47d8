"""A "current request" middleware and a change log, as applications write them (django-crum style).

:class:`CurrentRequestMiddleware` keeps the request it received in a context
variable; the ``post_save`` receiver of :class:`~tests.testapp.models.Ledger`
reads ``request.user`` from it and appends ``(row id, username or None)`` to
:data:`CHANGE_LOG`. It refuses an anonymous user as an application's own change
log does (``"ObjectChange.user" must be a "User" instance``).

:class:`LoginRequiredExceptPathsMiddleware`, :class:`MaintenancePageMiddleware` and
:class:`TenantMiddleware` answer (or raise) before any view, as site-wide middleware does
(tests/test_middleware_reach.py).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import HttpResponse

from tests.testapp.models import Ledger

CURRENT_REQUEST: ContextVar[Any] = ContextVar("current_request", default=None)
#: (row id, username) of each saved Ledger row, in order.
CHANGE_LOG: list[tuple[int, str]] = []
#: The username each response left on the request that middleware holds.
SEEN_AFTER_VIEW: list[str | None] = []


class CurrentRequestMiddleware:
    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        token = CURRENT_REQUEST.set(request)
        try:
            response = self.get_response(request)
        finally:
            CURRENT_REQUEST.reset(token)
        user = getattr(request, "user", None)
        SEEN_AFTER_VIEW.append(
            user.get_username() if user is not None and user.is_authenticated else None
        )
        return response


@receiver(post_save, sender=Ledger)
def log_change(sender: Any, instance: Ledger, **kwargs: Any) -> None:
    request = CURRENT_REQUEST.get()
    if request is None:
        return  # saved outside a request (fixtures)
    if not request.user.is_authenticated:
        raise ValueError(
            f'Cannot assign {request.user!r}: "change log user" must be a "User" instance'
        )
    CHANGE_LOG.append((instance.pk, request.user.get_username()))


class LoginRequiredExceptPathsMiddleware:
    """Issue 19, class 2: the site-wide login-required middleware many projects write: every
    path needs a signed-in user except those under ``settings.LOGIN_EXEMPT_PATHS`` (the REST
    prefix among them, since DRF authenticates inside the view); others are redirected to the
    login page, whatever view they reach."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        exempt = getattr(settings, "LOGIN_EXEMPT_PATHS", ())
        if request.user.is_authenticated or request.path.startswith(tuple(exempt)):
            return self.get_response(request)
        return redirect_to_login(request.get_full_path())


class MaintenancePageMiddleware:
    """Answers every request outside ``settings.MAINTENANCE_EXEMPT_PATHS`` with an HTML 503."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        if request.path.startswith(tuple(getattr(settings, "MAINTENANCE_EXEMPT_PATHS", ()))):
            return self.get_response(request)
        return HttpResponse("<h1>Back soon</h1>", status=503, content_type="text/html")


class TenantMiddleware:
    """Finds the tenant of every request outside ``settings.TENANT_EXEMPT_PATHS`` from its
    host, and raises for a host it does not know (Django answers its HTML 500 page)."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        if not request.path.startswith(tuple(getattr(settings, "TENANT_EXEMPT_PATHS", ()))):
            raise LookupError(f"no tenant for the host {request.get_host()!r}")
        return self.get_response(request)
