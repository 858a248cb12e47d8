"""A "current request" middleware and a change log, as applications write them (django-crum style).

:class:`CurrentRequestMiddleware` keeps the request it received in a context
variable; the ``post_save`` receiver of :class:`~tests.testapp.models.Ledger`
reads ``request.user`` from it and appends ``(row id, username or None)`` to
:data:`CHANGE_LOG`. It refuses an anonymous user as an application's own change
log does (``"ObjectChange.user" must be a "User" instance``).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.db.models.signals import post_save
from django.dispatch import receiver

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
