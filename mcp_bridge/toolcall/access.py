"""Whether the view refuses the caller, asked before a person is asked to confirm the call.

A tool that asks a person to confirm (:mod:`mcp_bridge.confirmation`) must not put the question
to someone the view would refuse: a customer must not read "Delete a product 'Arc LED desk lamp'
(id 1)?" only to get a 403 once they accept, nor a client that cannot ask get the
confirmation's 428 where REST answers 403. :func:`refusal` runs the view's own checks on the
call's request, through DRF's pipeline, without its handler:

* what ``APIView.initial`` runs before a handler: the format suffix, content negotiation,
  versioning, authentication and ``check_permissions``;
* for a view that acts on one object (a ``GenericAPIView`` whose lookup is in the URL: a
  viewset's ``destroy``, a detail ``@action``), ``get_object()``, whose 404 and
  ``check_object_permissions`` are REST's.

A refusal is answered by the view's ``handle_exception`` and ``finalize_response``: the status,
``detail`` and headers REST gives (401 with ``WWW-Authenticate``, 403, 404). Throttles are left
to the call itself, which counts once when it runs. A view that is no synchronous DRF
``APIView`` (a plain Django view, adrf's async views) is not asked here: its call asks, and the
view refuses after the person accepted, as before.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from rest_framework.generics import GenericAPIView
from rest_framework.views import APIView


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
    # What APIView.dispatch does up to its handler, and initial() but for the throttles: DRF's
    # overridable hooks, called in its order (tests/test_input_required.py fails if they change).
    drf_request = view.initialize_request(request, *args, **kwargs)
    view.request = drf_request
    view.headers = view.default_response_headers
    try:
        view.format_kwarg = view.get_format_suffix(**kwargs)
        negotiated = view.perform_content_negotiation(drf_request)
        drf_request.accepted_renderer, drf_request.accepted_media_type = negotiated
        version, scheme = view.determine_version(drf_request, *args, **kwargs)
        drf_request.version, drf_request.versioning_scheme = version, scheme
        view.perform_authentication(drf_request)
        view.check_permissions(drf_request)
        if _acts_on_one_object(view):
            view.get_object()  # its 404, and check_object_permissions
    except Exception as exc:  # noqa: BLE001 -- the view's handler answers it, or raises it again
        response = view.handle_exception(exc)
        return view.finalize_response(drf_request, response, *args, **kwargs)
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
