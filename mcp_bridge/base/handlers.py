"""Wrapping DRF handlers, for the view decorators :func:`~mcp_bridge.caching.cached` and
:func:`~mcp_bridge.locking.locked`.

A *handler* is what DRF's ``APIView.dispatch`` calls after ``initial()`` has run
authentication, permissions, throttles, content negotiation and versioning: a
viewset action (``list``, an ``@action`` method), an ``APIView`` method
(``get``, ``post``), or the function of an ``@api_view`` view. Wrapping the
handler, rather than ``dispatch`` or the view class, is what lets one
declaration hold for every caller: a REST request and an MCP ``tools/call``
(which runs the real view, see :mod:`mcp_bridge.toolcall.executor`) both reach it, and
both reach it as an identified, authorised caller.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import transaction
from django.http import HttpRequest, HttpResponseBase
from rest_framework.request import Request

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class HandlerCall:
    """One invocation of a wrapped handler.

    Attributes:
        func: the undecorated handler function.
        view: the view instance for a method handler; ``None`` for an
            ``@api_view`` function.
        request: the DRF request (``request.user``, ``request.version`` set).
        args, kwargs: the URL arguments the handler was called with (for a
            router URL ``/orders/{pk}/cancel/``: ``kwargs == {"pk": "7"}``).
    """

    func: Callable[..., Any]
    view: Any
    request: Request
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    @property
    def operation(self) -> str:
        """``"<HTTP method> <module>.<view class>.<handler>"``; ``<module>.<function>`` for ``@api_view``.

        The class is the one serving the request, not the one defining the
        handler: a subclass with another queryset is another operation.
        """
        if self.view is None:
            where = f"{self.func.__module__}.{self.func.__qualname__}"
        else:
            cls = type(self.view)
            where = f"{cls.__module__}.{cls.__qualname__}.{self.func.__name__}"
        return f"{self.request.method} {where}"

    def format(self, template: str) -> str:
        """Fill a key template: URL keyword arguments by name, and ``request``.

        ``"order:{pk}"`` → ``"order:7"``; ``"user:{request.user.pk}"`` also works.

        Raises:
            KeyError: the template names a field that is neither.
        """
        return template.format_map({**self.kwargs, "request": self.request})


def wrap_handler(
    decorator: str, func: F, around: Callable[[HandlerCall, Callable[[], Any]], Any]
) -> F:
    """Wrap ``func`` so that ``around(call, proceed)`` runs in place of it.

    ``proceed()`` runs the handler and returns its response. DRF's ``@action``
    attributes, drf-spectacular's overrides and mcp_bridge's metadata live in the
    function's ``__dict__``; ``functools.wraps`` copies them, so the decorator
    may sit above or below ``@action``, ``@extend_schema``, ``@api_group`` and
    ``@mcp_tool``.

    Raises:
        TypeError: ``func`` is a class, or the view ``@api_view`` returned (the
            decorator would run before authentication there).
    """
    if isinstance(func, type):
        raise TypeError(
            f"@{decorator} cannot go on the class {func.__name__}: put it on the action or "
            f"handler method it applies to (e.g. `def list(self, request, ...)`)."
        )
    if hasattr(func, "cls") and hasattr(func, "initkwargs"):
        raise TypeError(
            f"@{decorator} must go below @api_view, directly on the function:\n\n"
            f"    @api_view([...])\n    @{decorator}(...)\n    def {getattr(func, '__name__', 'view')}(request): ..."
        )

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], (Request, HttpRequest)):
            view, request, rest = None, args[0], args[1:]
        else:
            view, request, rest = args[0], args[1], args[2:]
        call = HandlerCall(func=func, view=view, request=request, args=rest, kwargs=kwargs)  # type: ignore[arg-type]
        return around(call, lambda: func(*args, **kwargs))

    return wrapper  # type: ignore[return-value]


def is_success(response: Any) -> bool:
    """A 2xx Django/DRF response."""
    return isinstance(response, HttpResponseBase) and 200 <= response.status_code < 300


def run_after_commit(func: Callable[[], Any], using: str | None = None) -> None:
    """Run ``func`` when the current transaction commits, or now when there is none.

    Django's ``TestCase`` wraps each test in atomic blocks that never commit;
    Django marks them (``_from_testcase``, as it does for ``durable`` blocks) and
    they do not count here, so a test sees what autocommit would do. An atomic
    block opened by the code under test (``ATOMIC_REQUESTS``, ``transaction.atomic``)
    still defers ``func`` to ``transaction.on_commit``; if it rolls back, ``func``
    never runs.
    """
    connection = transaction.get_connection(using)
    if any(not getattr(block, "_from_testcase", False) for block in connection.atomic_blocks):
        transaction.on_commit(func, using=using)
    else:
        func()
