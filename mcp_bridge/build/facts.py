"""The build, facts: what the bridge knows of an operation beyond its OpenAPI text.

drf-spectacular writes what a client needs to *call* an operation. What it *does* is often
not written at all: a ``ModelViewSet`` action without a docstring gets no summary, and its
description says nothing. The view says more, and :class:`OperationFacts` keeps it for the
later steps (default texts, search ranking):

* the **action**: ``list``, ``retrieve``, ``create``, ``update``, ``partial_update``,
  ``destroy``, their bulk forms (``bulk_create``, ``bulk_update``, ``bulk_partial_update``,
  ``bulk_destroy``), or ``custom`` (an ``@action``, an ``APIView`` handler, a function view);
* the **model** (the view's ``queryset.model``, else its ``get_queryset()``, else the
  serializer's ``Meta.model``) with its verbose names and its own docstring;
* the top-level **fields** of the request and the response, as the OpenAPI document has them
  (so ``@extend_schema(request=..., responses=...)`` counts);
* for a list: the **filter**, **ordering** and **search** fields, and the **pagination**;
* what each **path parameter** identifies.

The facts are gathered in two steps. :func:`view_facts` reads the view instance that
drf-spectacular generated the operation with (the only time the bridge has one; its
``action`` and mock request are set), in :meth:`~mcp_bridge.build.openapi.GroupSchemaGenerator.parse`.
:func:`completed_facts` adds what the finished document says (fields, path parameters,
query parameters), in :func:`~mcp_bridge.build.openrpc.build_methods`. Every built
method has them as ``Method.facts``, every tool as ``Tool.facts``.

Sources: DRF, "ViewSets" (actions and ``@action``), "Filtering" (``SearchFilter``,
``OrderingFilter``), "Pagination"; django-filter, "Integration with DRF"
(``filterset_fields``, ``filterset_class``); Django, "Model Meta options"
(``verbose_name``, ``verbose_name_plural``).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from django.db import models
from drf_spectacular.plumbing import get_view_model
from rest_framework import filters, pagination
from rest_framework.generics import GenericAPIView
from rest_framework.settings import api_settings

from mcp_bridge.base.media import essence
from mcp_bridge.schemas.conversion import COMPONENTS_PREFIX, to_json_schema

#: The kinds of action an operation can be (:attr:`OperationFacts.action`).
Action = Literal[
    "list",
    "retrieve",
    "create",
    "update",
    "partial_update",
    "destroy",
    "bulk_create",
    "bulk_update",
    "bulk_partial_update",
    "bulk_destroy",
    "custom",
]
#: The standard viewset actions (DRF's mixins), each its own kind.
STANDARD_ACTIONS = ("list", "retrieve", "create", "update", "partial_update", "destroy")
#: The bulk kinds: one operation on several objects at once. Handler names of this form are
#: the convention of bulk libraries (NetBox's ``BulkUpdateModelMixin``, djangorestframework-bulk).
BULK_ACTIONS = ("bulk_create", "bulk_update", "bulk_partial_update", "bulk_destroy")
#: The kind of a collection-level write of a viewset that is not a standard action: a
#: ``PUT``/``PATCH``/``DELETE`` on the list URL changes or removes the objects it is sent.
_COLLECTION_WRITES = {
    "PUT": "bulk_update",
    "PATCH": "bulk_partial_update",
    "DELETE": "bulk_destroy",
}
#: The kind of a handler of a generic (model-backed) ``APIView``, by HTTP method.
_GENERIC_VIEW_ACTIONS = {
    "POST": "create",
    "PUT": "update",
    "PATCH": "partial_update",
    "DELETE": "destroy",
}
#: The DRF search field prefixes (``^name``: starts with, ``=name``: exact, ``@``: full
#: text, ``$``: regex); the field is the rest.
_SEARCH_PREFIXES = "^=@$"

PaginationStyle = Literal["page_number", "limit_offset", "cursor", "other"]


@dataclass(frozen=True)
class ModelFacts:
    """The model an operation works on.

    Attributes:
        label: ``app_label.ModelName``, e.g. ``"billing.Invoice"``.
        verbose_name, verbose_name_plural: ``Meta.verbose_name(_plural)``, evaluated in the
            language of the build (``LANGUAGE_CODE``).
        docstring: the model's own docstring, cleaned; ``None`` when it has none (Django's
            made-up ``"Invoice(id, number, ...)"`` is not one).
        model: the model class (``Meta`` holds the lazy verbose names, for other languages).
    """

    label: str
    verbose_name: str
    verbose_name_plural: str
    docstring: str | None
    model: type[models.Model] = field(compare=False, repr=False)


@dataclass(frozen=True)
class Pagination:
    """How a list operation is paginated.

    Attributes:
        style: DRF's class it is (or derives from): ``PageNumberPagination``,
            ``LimitOffsetPagination``, ``CursorPagination``; ``"other"`` for another class.
        parameters: the query parameters that choose the page (``("page", "page_size")``).
        page_size: the default page size (``page_size``, ``default_limit``), if set.
    """

    style: PaginationStyle
    parameters: tuple[str, ...]
    page_size: int | None


@dataclass(frozen=True)
class PathParameter:
    """One parameter of an operation's path.

    Attributes:
        name: the parameter (``"id"``, ``"slug"``, ``"invoice_pk"``).
        description: its OpenAPI description, if any.
        lookup_field: when it is the view's lookup (``lookup_url_kwarg`` or
            ``lookup_field``): the model field it matches (``"id"``, ``"slug"``; DRF's ``pk``
            as the model's primary key name); ``None`` for another parameter (a parent's
            id in a nested route).
    """

    name: str
    description: str | None
    lookup_field: str | None


@dataclass(frozen=True)
class OperationFacts:
    """What the build knows of one operation beyond its OpenAPI text (see the module).

    Attributes:
        action: the kind (:data:`Action`).
        http_method: upper case.
        handler_name: the viewset action or the view's handler (``"list"``, ``"cancel"``, ``"get"``).
        detail: whether it works on one object (a URL with its lookup): ``True`` for
            retrieve, update, partial update, destroy and a ``detail=True`` ``@action``;
            ``False`` for list, create, bulk forms and a ``detail=False`` ``@action``;
            ``None`` when unknown (an ``APIView`` without a model).
        model: the model, or ``None`` when the view has none that can be found.
        request_fields: the top-level fields of the request body, in order (writable ones).
        response_fields: the top-level fields of one object of the response (the items of a
            list, the ``results`` of a page), in order (readable ones).
        filter_fields: for a list: the django-filter fields (``filterset_class`` filters,
            else ``filterset_fields``), else the query parameters drf-spectacular found that
            are not search, ordering or pagination.
        ordering_fields: for a list with ``OrderingFilter``: the fields it can order by.
        ordering_parameter: that filter's query parameter (``"ordering"``), else ``None``.
        search_fields: for a list with ``SearchFilter``: the fields its query searches
            (prefixes such as ``^`` stripped).
        search_parameter: that filter's query parameter (``"search"``), else ``None``.
        pagination: for a paginated list, how; else ``None``.
        path_parameters: the path's parameters, in order.
        accepts_list: the request body may be a list of objects (a bulk-capable create or a
            bulk operation).
        action_name: for a custom action, its name: the ``@action``'s, or for an ``APIView``
            handler (``post``) the last literal segment of its path (``/orders/{id}/hold/``
            → ``hold``); set by :func:`~mcp_bridge.build.openrpc.build_methods`.
    """

    action: Action
    http_method: str
    handler_name: str
    detail: bool | None = None
    model: ModelFacts | None = None
    request_fields: tuple[str, ...] = ()
    response_fields: tuple[str, ...] = ()
    filter_fields: tuple[str, ...] = ()
    ordering_fields: tuple[str, ...] = ()
    ordering_parameter: str | None = None
    search_fields: tuple[str, ...] = ()
    search_parameter: str | None = None
    pagination: Pagination | None = None
    path_parameters: tuple[PathParameter, ...] = ()
    accepts_list: bool = False
    action_name: str | None = None
    # Private to the two steps: the ordering is DRF's default (every readable field of the
    # serializer), filled in from the response fields; the django-filter fields were found.
    _ordering_by_default: bool = field(default=False, repr=False, compare=False)
    _filterset: bool = field(default=False, repr=False, compare=False)

    @property
    def verb(self) -> str:
        """The action without its bulk form: ``bulk_destroy`` → ``destroy``."""
        return self.action.removeprefix("bulk_")

    @property
    def is_bulk(self) -> bool:
        """One operation on several objects at once (a bulk kind, or a list body)."""
        return self.action in BULK_ACTIONS


def model_facts(model: type[models.Model] | None) -> ModelFacts | None:
    """The :class:`ModelFacts` of ``model``, or ``None``."""
    if model is None or not (isinstance(model, type) and issubclass(model, models.Model)):
        return None
    meta = model._meta
    singular, plural = readable_names(model)
    return ModelFacts(
        label=f"{meta.app_label}.{model.__name__}",
        verbose_name=singular,
        verbose_name_plural=plural,
        docstring=model_docstring(model),
        model=model,
    )


_NAME_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z]|[^A-Za-z]|$)|[A-Z]?[a-z]+|[0-9]+")


def readable_names(model: type[models.Model]) -> tuple[str, str]:
    """The model's verbose names (``Meta.verbose_name(_plural)`` in the current language), or,
    where the project gave none, the class name as a person writes it: Django's default for
    ``CRM_Contact`` is "cr m_ contact" and its plural "cr m_ contacts"; here it is "CRM contact"
    and "CRM contacts" (an acronym kept whole, ``_`` a space, camelCase split), and a plural
    made by English rules ("analysis" → "analyses", "policy" → "policies") where the project
    gave a singular but no plural."""
    meta = model._meta
    given = getattr(meta, "original_attrs", {})
    if "verbose_name" in given:
        singular = str(meta.verbose_name)
    else:
        found = _NAME_WORD.findall(model.__name__)
        singular = " ".join(w if len(w) > 1 and w.isupper() else w.lower() for w in found)
        singular = singular or str(meta.verbose_name)
    if "verbose_name_plural" in given:
        return singular, str(meta.verbose_name_plural)
    return singular, plural_of(singular)


def plural_of(name: str) -> str:
    """The English plural of a name's last word ("sales order" → "sales orders")."""
    head, _, last = name.rpartition(" ")
    lowered = last.lower()
    if not last or (len(last) > 1 and last.isupper()):
        plural = last + "s"
    elif lowered.endswith("sis"):
        plural = last[:-2] + "es"
    elif lowered.endswith(("s", "x", "z", "ch", "sh")):
        plural = last + "es"
    elif lowered.endswith("y") and lowered[-2:-1] not in ("a", "e", "i", "o", "u"):
        plural = last[:-1] + "ies"
    else:
        plural = last + "s"
    return f"{head} {plural}" if head else plural


def model_docstring(model: type[models.Model]) -> str | None:
    """The model's own docstring, cleaned; ``None`` for none or Django's made-up one
    (``ModelBase`` sets ``"Name(field, field, ...)"`` on a model without a docstring)."""
    doc = model.__dict__.get("__doc__")
    if not doc:
        return None
    made_up = "{}({})".format(model.__name__, ", ".join(f.name for f in model._meta.fields))
    if doc == made_up:
        return None
    return inspect.cleandoc(doc) or None


def view_model(view: Any) -> type[models.Model] | None:
    """The model of a view: its queryset's, else its serializer class's ``Meta.model``."""
    return _view_model(view)


def _view_model(view: Any) -> type[models.Model] | None:
    model = get_view_model(view, emit_warnings=False)
    if model is not None:
        return model
    serializer_class = None
    try:
        serializer_class = view.get_serializer_class()
    # A project's get_serializer_class() may read the real request (its user, its data),
    # which the mock request lacks, and fail any way: then the class attribute.
    except Exception:  # noqa: BLE001
        serializer_class = getattr(view, "serializer_class", None)
    return getattr(getattr(serializer_class, "Meta", None), "model", None)


def _action(view: Any, handler_name: str, method: str, is_viewset: bool, is_list: bool) -> Any:
    """``(action, detail)`` of an operation (see :class:`OperationFacts`)."""
    if is_viewset:
        if handler_name in STANDARD_ACTIONS:
            return handler_name, handler_name not in ("list", "create")
        if handler_name in BULK_ACTIONS:
            return handler_name, False
        handler = getattr(view, handler_name, None)
        detail = getattr(handler, "detail", None)
        if detail is None:  # a further method of an @action (@<action>.mapping.post)
            detail = _mapped_action_detail(view, handler_name)
        if detail is None and method in _COLLECTION_WRITES:
            # A handler mapped onto the list route by a bulk router, not an @action.
            return _COLLECTION_WRITES[method], False
        return "custom", detail
    model = _view_model(view) if isinstance(view, GenericAPIView) else None
    if model is not None:
        if method == "GET":
            return ("list", False) if is_list else ("retrieve", True)
        if method == "POST" and not _creates(view, model):
            # A state change of an object sent as a POST to a generic view (a CreateAPIView
            # at /orders/{id}/hold/ whose serializer is no model's): an action, not a create.
            return "custom", None
        if method in _GENERIC_VIEW_ACTIONS:
            return _GENERIC_VIEW_ACTIONS[method], None
    return "custom", None


def _creates(view: Any, model: type[models.Model]) -> bool:
    """Whether a generic view's ``POST`` creates an object of its model: its serializer is a
    ``ModelSerializer`` of that model (or a model it derives from, or one derived from it); an
    unknown serializer counts as one."""
    try:
        serializer_class = view.get_serializer_class()
    # As in _view_model: a project's get_serializer_class() may read the real request.
    except Exception:  # noqa: BLE001
        serializer_class = getattr(view, "serializer_class", None)
    if not isinstance(serializer_class, type):
        return True
    meta_model = getattr(getattr(serializer_class, "Meta", None), "model", None)
    if not isinstance(meta_model, type):
        return False
    return issubclass(model, meta_model) or issubclass(meta_model, model)


def _mapped_action_detail(view: Any, handler_name: str) -> bool | None:
    """``detail`` of the ``@action`` whose ``mapping`` routes a method to ``handler_name``."""
    for extra in getattr(view, "get_extra_actions", list)():
        if handler_name in getattr(extra, "mapping", {}).values():
            return getattr(extra, "detail", None)
    return None


def _pagination(view: Any) -> Pagination | None:
    pagination_class = getattr(view, "pagination_class", None)
    if pagination_class is None:
        return None
    paginator = pagination_class()
    if isinstance(paginator, pagination.PageNumberPagination):
        names = (paginator.page_query_param, paginator.page_size_query_param)
        return Pagination("page_number", _present(names), paginator.page_size)
    if isinstance(paginator, pagination.LimitOffsetPagination):
        names = (paginator.limit_query_param, paginator.offset_query_param)
        return Pagination("limit_offset", _present(names), paginator.default_limit)
    if isinstance(paginator, pagination.CursorPagination):
        names = (paginator.cursor_query_param, paginator.page_size_query_param)
        return Pagination("cursor", _present(names), paginator.page_size)
    return Pagination("other", (), getattr(paginator, "page_size", None))


def _present(names: tuple[str | None, ...]) -> tuple[str, ...]:
    return tuple(name for name in names if name)


def _backend(view: Any, kind: type) -> Any:
    for backend in getattr(view, "filter_backends", None) or ():
        if isinstance(backend, type) and issubclass(backend, kind):
            return backend()
    return None


def _search(view: Any) -> tuple[tuple[str, ...], str | None]:
    backend = _backend(view, filters.SearchFilter)
    fields = tuple(getattr(view, "search_fields", None) or ())
    if backend is None or not fields:
        return (), None
    names = tuple(dict.fromkeys(str(name).lstrip(_SEARCH_PREFIXES) for name in fields))
    return names, backend.search_param


def _ordering(view: Any) -> tuple[tuple[str, ...], str | None, bool]:
    """``(fields, parameter, by_default)``: ``by_default`` when the view leaves the fields to
    DRF (every readable serializer field: ``ordering_fields`` unset or ``"__all__"``)."""
    backend = _backend(view, filters.OrderingFilter)
    if backend is None:
        return (), None, False
    fields = getattr(view, "ordering_fields", None)
    if fields is None or fields == "__all__":
        return (), backend.ordering_param, True
    names = tuple(field if isinstance(field, str) else field[0] for field in fields)
    return names, backend.ordering_param, False


def _filterset_fields(view: Any) -> tuple[str, ...] | None:
    """The django-filter fields of the view, or ``None`` when it uses no django-filter
    backend (read duck-typed: the bridge does not require django-filter)."""
    backends = getattr(view, "filter_backends", None) or ()
    if not any(hasattr(backend, "get_filterset_class") for backend in backends):
        return None
    filterset_class = getattr(view, "filterset_class", None)
    if filterset_class is not None:
        return tuple(getattr(filterset_class, "base_filters", {}))
    fields = getattr(view, "filterset_fields", None)
    if not fields:
        return None
    return tuple(fields)


def _lookup_field(view: Any, model: type[models.Model] | None) -> tuple[str | None, str | None]:
    """``(url kwarg, model field)`` of the view's lookup, ``pk`` named as the model's key."""
    lookup_field = getattr(view, "lookup_field", None)
    if not lookup_field:
        return None, None
    kwarg = getattr(view, "lookup_url_kwarg", None) or lookup_field
    if lookup_field == "pk" and model is not None:
        lookup_field = model._meta.pk.name
    return kwarg, lookup_field


def view_facts(
    view: Any,
    handler_name: str,
    method: str,
    *,
    is_viewset: bool,
    is_list: bool,
    known_models: dict[Any, ModelFacts | None] | None = None,
) -> OperationFacts:
    """The facts the view instance holds (step one, see the module).

    Args:
        view: the view drf-spectacular generated the operation with (``action`` and the
            mock ``request`` set).
        handler_name: the viewset action or handler (``OperationSource.handler_name``).
        method: the HTTP method, upper case.
        is_viewset, is_list: as on :class:`~mcp_bridge.build.openapi.OperationSource`.
        known_models: the :func:`model_facts` already made, by model, kept by the caller
            for one build (the texts are in the build's language).
    """
    model = _view_model(view)
    action, detail = _action(view, handler_name, method, is_viewset, is_list)
    known = {} if known_models is None else known_models
    if model not in known:
        known[model] = model_facts(model)
    facts = OperationFacts(
        action=action,
        http_method=method,
        handler_name=handler_name,
        detail=detail,
        model=known[model],
    )
    lookup_kwarg, lookup_field = _lookup_field(view, model)
    if lookup_kwarg:
        facts = replace(facts, path_parameters=(PathParameter(lookup_kwarg, None, lookup_field),))
    if not is_list:
        return facts
    search_fields, search_parameter = _search(view)
    ordering_fields, ordering_parameter, by_default = _ordering(view)
    filterset = _filterset_fields(view)
    return replace(
        facts,
        filter_fields=filterset or (),
        search_fields=search_fields,
        search_parameter=search_parameter,
        ordering_fields=ordering_fields,
        ordering_parameter=ordering_parameter,
        pagination=_pagination(view),
        _ordering_by_default=by_default,
        _filterset=filterset is not None,
    )


def _resolve(schema: Any, components: dict[str, Any]) -> Any:
    seen: set[str] = set()
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen or not ref.startswith(COMPONENTS_PREFIX):
            break
        seen.add(ref)
        schema = components.get(ref[len(COMPONENTS_PREFIX) :], {})
    return schema


def _object_schema(schema: Any, components: dict[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """``(object schema, is a list)``: the object of a schema that is one, a list of them, a
    page of them (``results``), or a union of an object and a list of it."""
    schema = _resolve(schema, components)
    if not isinstance(schema, dict):
        return None, False
    if schema.get("type") == "array" or "array" in (schema.get("type") or ()):
        inner, _ = _object_schema(schema.get("items"), components)
        return inner, True
    for union in ("anyOf", "oneOf"):
        branches = schema.get(union)
        if isinstance(branches, list):
            found = [_object_schema(branch, components) for branch in branches]
            objects = [obj for obj, _ in found if obj is not None]
            if objects:
                return objects[0], any(is_list for _, is_list in found)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None, False
    results = _resolve(properties.get("results"), components)
    is_page = {"count", "results"} <= set(properties) or {"next", "results"} <= set(properties)
    if is_page and isinstance(results, dict) and results.get("type") == "array":
        inner, _ = _object_schema(results.get("items"), components)
        return inner, True
    return schema, False


def _field_names(schema: dict[str, Any] | None, components: dict[str, Any], skip: str) -> tuple:
    if schema is None:
        return ()
    return tuple(
        name
        for name, sub in schema.get("properties", {}).items()
        if not (isinstance(sub, dict) and _resolve(sub, components).get(skip))
        and not (isinstance(sub, dict) and sub.get(skip))
    )


def _json_schema(content: dict[str, Any]) -> Any:
    for media_type, media in (content or {}).items():
        base = essence(media_type)
        if base == "application/json" or base.endswith("+json"):
            return media.get("schema")
    return None


def completed_facts(
    facts: OperationFacts,
    operation: dict[str, Any],
    components: dict[str, Any],
) -> OperationFacts:
    """The facts with what the OpenAPI operation says (step two, see the module).

    Args:
        facts: :func:`view_facts` of the operation.
        operation: its OpenAPI operation object.
        components: the document's converted ``components/schemas`` (JSON Schema 2020-12).
    """
    request_body = operation.get("requestBody") or {}
    raw_request = _json_schema(request_body.get("content", {}))
    request, accepts_list = (
        _object_schema(to_json_schema(raw_request), components) if raw_request else (None, False)
    )
    response: dict[str, Any] | None = None
    responses = operation.get("responses", {})
    for code in sorted(code for code in responses if str(code).startswith("2")):
        raw_response = _json_schema(responses[code].get("content") or {})
        if raw_response:
            response, _ = _object_schema(to_json_schema(raw_response), components)
        break
    response_fields = _field_names(response, components, "writeOnly")

    parameters = [p for p in operation.get("parameters", []) if isinstance(p, dict)]
    lookup = {p.name: p.lookup_field for p in facts.path_parameters}
    path_parameters = tuple(
        PathParameter(
            name=p["name"],
            description=p.get("description") or None,
            lookup_field=lookup.get(p["name"], _coerced_lookup(p["name"], facts, lookup)),
        )
        for p in parameters
        if p.get("in") == "path"
    )

    action = facts.action
    if action == "create" and accepts_list and request is not None and _list_only(raw_request):
        action = "bulk_create"
    changes: dict[str, Any] = {
        "action": action,
        "request_fields": _field_names(request, components, "readOnly"),
        "response_fields": response_fields,
        "path_parameters": path_parameters,
        "accepts_list": accepts_list,
    }
    if facts._ordering_by_default:
        changes["ordering_fields"] = response_fields
    if facts.verb == "list":
        query = [p["name"] for p in parameters if p.get("in") == "query"]
        # A list that takes DRF's search or ordering parameter without the filter classes
        # (a hand-written filter documented with @extend_schema): the parameter is known,
        # the fields are not.
        if facts.search_parameter is None and api_settings.SEARCH_PARAM in query:
            changes["search_parameter"] = api_settings.SEARCH_PARAM
        if facts.ordering_parameter is None and api_settings.ORDERING_PARAM in query:
            changes["ordering_parameter"] = api_settings.ORDERING_PARAM
        if not facts._filterset:
            not_filters = {
                api_settings.SEARCH_PARAM,
                api_settings.ORDERING_PARAM,
                facts.search_parameter,
                facts.ordering_parameter,
                *(facts.pagination.parameters if facts.pagination else ()),
                api_settings.URL_FORMAT_OVERRIDE,
            }
            changes["filter_fields"] = tuple(name for name in query if name not in not_filters)
    return replace(facts, **changes)


def _coerced_lookup(name: str, facts: OperationFacts, lookup: dict[str, str | None]) -> str | None:
    """drf-spectacular renames a ``{pk}`` path parameter ``{id}`` (``SCHEMA_COERCE_PATH_PK``):
    the view's ``pk`` lookup is then the parameter ``id``."""
    if name == "id" and "pk" in lookup:
        return lookup["pk"]
    return None


def _list_only(raw: Any) -> bool:
    """The request body is a list and only a list (not a union with one object)."""
    return isinstance(raw, dict) and raw.get("type") == "array"
