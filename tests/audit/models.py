"""Issue 19, class 2: an invoicing app that keeps audit trails, as real applications do.

:class:`Invoice` is registered with django-auditlog (one ``LogEntry`` per change, its actor
from ``AuditlogMiddleware``), and stamps ``created_by``/``changed_by`` from django-crum's
``get_current_user()`` in ``save()``, as many applications do. On PostgreSQL,
``tests/pgaudit`` also tracks it with django-pghistory (triggers), and django-simple-history is
tested on :class:`tests.testapp.models.Ledger` (tests/test_identity.py).
"""

from __future__ import annotations

from typing import Any

from auditlog.registry import auditlog
from crum import get_current_user
from django.conf import settings
from django.db import models


class Invoice(models.Model):
    number = models.CharField(max_length=20)
    amount = models.DecimalField(max_digits=10, decimal_places=2, default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )

    def save(self, *args: Any, **kwargs: Any) -> None:
        user = get_current_user()
        if user is not None and user.is_authenticated:  # outside a request: as given
            if self.pk is None:
                self.created_by = user
            self.changed_by = user
        super().save(*args, **kwargs)


auditlog.register(Invoice, exclude_fields=["created_by", "changed_by"])
