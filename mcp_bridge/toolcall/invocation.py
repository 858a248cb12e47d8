"""Running the view, in the call pipeline's executor (:mod:`mcp_bridge.toolcall.executor`).

The view is called as Django's handler calls it:

* ``ATOMIC_REQUESTS`` is honoured (``BaseHandler.make_view_atomic``, which refuses an
  ``async`` view under it, as Django's handler does for a REST request);
* an ``async def`` view (adrf's ``APIView``, ``ViewSet`` or ``@api_view``, or any
  callback marked as a coroutine function) is run to completion with asgiref's
  ``async_to_sync``. The MCP endpoint itself is a sync view: under WSGI the coroutine
  gets an event loop of its own; under ASGI Django runs the endpoint in a worker thread
  and ``async_to_sync`` drives the coroutine on the server's event loop, where its
  ``sync_to_async`` calls (the ORM) come back to that same thread, as in a REST call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import lru_cache
from typing import Any, cast

from asgiref.sync import async_to_sync, iscoroutinefunction
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponseBase

from mcp_bridge.tracing import traced_view

_atomic_handler = BaseHandler()


@traced_view  # a span the view's own spans nest under (mcp_bridge.tracing)
def call_view(request: HttpRequest) -> HttpResponseBase:
    """Call the view ``request.resolver_match`` resolved to, with the request and the
    path's arguments; return its response.

    Raises:
        Exception: whatever the view raises (the executor turns it into an ``isError`` result).
    """
    match = request.resolver_match
    assert match is not None  # the executor's build_request resolves or raises
    # Private Django API: ATOMIC_REQUESTS as Django's handler applies it (per database,
    # honouring non_atomic_requests); tests/test_private_apis.py fails if it disappears.
    try:
        is_async = _is_coroutine_function(match.func)
    except TypeError:  # a callback that cannot be a cache key (an unhashable callable object)
        is_async = iscoroutinefunction(match.func)
    view = _atomic_handler.make_view_atomic(match.func)
    if is_async:
        coroutine_view = cast("Callable[..., Awaitable[HttpResponseBase]]", view)
        return async_to_sync(coroutine_view)(request, *match.args, **match.kwargs)
    return view(request, *match.args, **match.kwargs)


@lru_cache(maxsize=1024)
def _is_coroutine_function(callback: Any) -> bool:
    """asgiref's answer for a URL pattern's callback, remembered: it is fixed when the callback
    is made (``async def``, or ``markcoroutinefunction`` at decoration), and asking it again
    walks the callback's wrappers every call. ``make_view_atomic`` wraps only a sync view
    (it refuses an async one), so the callback answers for the view it wraps."""
    return iscoroutinefunction(callback)
