"""Whether the view refuses the caller, asked before a person is asked to confirm the call.

A tool that asks a person to confirm (:mod:`mcp_bridge.confirmation`) must not put the question
to someone the view would refuse: a customer must not read "Delete a product 'Arc LED desk lamp'
(id 1)?" only to get a 403 once they accept, nor a client that cannot ask get the
confirmation's 428 where REST answers 403. :func:`refusal` runs the view's own checks on the
call's request, through DRF's pipeline, without its handler:

* ``APIView.initial``, which DRF runs before a handler: the format suffix, content
  negotiation, versioning, authentication, ``check_permissions`` and the throttles;
* for a view that acts on one object (a ``GenericAPIView`` whose lookup is in the URL: a
  viewset's ``destroy``, a detail ``@action``), ``get_object()``, whose 404 and
  ``check_object_permissions`` are REST's.

A refusal is answered by the view's ``handle_exception`` and ``finalize_response``: the status,
``detail`` and headers REST gives (401 with ``WWW-Authenticate``, 403, 404, a throttle's 429).
Like the read of the object for the question, this counts as a request for the view's
throttles. Anything else these steps raise (an exception the view's handler does not answer) is
logged on ``mcp_bridge.executor`` and the question is asked: the call itself meets it again if
it is real. A view that is no synchronous DRF ``APIView`` (a plain Django view, adrf's async
views) is not asked here: its call asks, and the view refuses after the person accepted.
"""

from __future__ import annotations

import logging
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from rest_framework.generics import GenericAPIView
from rest_framework.views import APIView

logger = logging.getLogger("mcp_bridge.executor")


def refusal(request: HttpRequest) -> HttpResponseBase | None:
    """The view's answer when its checks refuse the caller of ``request`` (the request the
    executor built for the call, resolved), or ``None`` when they let the caller through (or
    the view is not one this can ask; see the module).

    Raises:
        Exception: what the view's exception handler does not answer (a database error), as
            the view would raise it.
    """
    match = request.resolver_match
    callback = getattr(match, "func", None)
    view_class = getattr(callback, "cls", None)  # APIView.as_view and ViewSetMixin.as_view set it
    if match is None or not (isinstance(view_class, type) and issubclass(view_class, APIView)):
        return None
    if iscoroutinefunction(callback):  # as call_view tells an async view (adrf's)
        return None
    args, kwargs = match.args, match.kwargs
    view = _view(view_class, callback, request, args, kwargs)
    # What APIView.dispatch does up to its handler: DRF's overridable hooks, in its order, so
    # that a view's own initial() (a tenant it sets, a check it adds) runs too
    # (tests/test_input_required.py fails if they change).
    drf_request = view.initialize_request(request, *args, **kwargs)
    view.request = drf_request
    view.headers = view.default_response_headers
    try:
        try:
            view.initial(drf_request, *args, **kwargs)
            if isinstance(view, GenericAPIView) and _acts_on_one_object(view):
                view.get_object()  # its 404, and check_object_permissions
        except Exception as exc:  # noqa: BLE001 -- the view's exception handler answers it
            response = view.handle_exception(exc)  # or raises it again
            return view.finalize_response(drf_request, response, *args, **kwargs)
    except Exception:  # no refusal of the view's: the call itself will tell
        logger.warning(
            "Checking whether %s lets the caller through raised; the question is asked.",
            view_class.__qualname__,
            exc_info=True,
        )
    return None


def _view(
    view_class: type[APIView],
    callback: Any,
    request: HttpRequest,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> APIView:
    """The view instance ``as_view()``'s function makes for a request: its ``initkwargs`` and,
    for a viewset, its HTTP method to action map (as ``ViewSetMixin.as_view`` binds them)."""
    view = view_class(**getattr(callback, "initkwargs", {}))
    actions = getattr(callback, "actions", None)
    if actions is not None:
        actions = dict(actions)
        if "get" in actions and "head" not in actions:
            actions["head"] = actions["get"]
        view.action_map = actions  # type: ignore[attr-defined]
        for method, action in actions.items():
            setattr(view, method, getattr(view, action))
    view.setup(request, *args, **kwargs)
    return view


def _acts_on_one_object(view: APIView) -> bool:
    if not isinstance(view, GenericAPIView):
        return False
    lookup = view.lookup_url_kwarg or view.lookup_field
    return lookup in view.kwargs
