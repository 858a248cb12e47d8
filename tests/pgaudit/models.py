"""A payments app on PostgreSQL whose trail is kept by django-pghistory.

Installed only by tests/settings_pgaudit.py (pghistory's triggers need PostgreSQL): every
insert, update and delete of a :class:`Payment` writes a ``PaymentEvent`` row (triggers),
linked to the ``pghistory.Context`` that ``HistoryMiddleware`` opened for the HTTP request,
with its ``user`` and ``url``, and the metadata the ``pre_tool_call`` receiver below adds
for a tool call.
"""

from __future__ import annotations

from typing import Any

import pghistory
from django.db import models
from django.dispatch import receiver

from mcp_bridge.signals import pre_tool_call


@pghistory.track(pghistory.InsertEvent(), pghistory.UpdateEvent(), pghistory.DeleteEvent())
class Payment(models.Model):
    reference = models.CharField(max_length=20)
    amount = models.DecimalField(max_digits=10, decimal_places=2, default=0)


@receiver(pre_tool_call)
def add_the_operation_to_the_history_context(sender: Any, tool: Any, **kwargs: Any) -> None:
    """The recipe of docs/endpoint.md ("Middleware and audit trails"): name the tool and the
    REST operation it runs in the context HistoryMiddleware opened (a no-op outside one)."""
    source = tool.method.source
    pghistory.context(mcp_tool=tool.name, operation=f"{source.method} {source.path}")
