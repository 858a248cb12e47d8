"""The build, OpenAPI: the OpenAPI operations of one API group, from drf-spectacular.

:class:`GroupSchemaGenerator` is drf-spectacular's ``SchemaGenerator``
restricted to the views of one group (and one API version). It honours every
``@extend_schema``, ``OpenApiViewExtension`` and setting the project has, and
remembers for each operation the view it came from, which the later steps need
(tool names, annotations, and how to call the view).

Paths are kept executable: they are the URL patterns' paths with
``{param}`` placeholders, the API version filled in, with no prefix trimmed.
"""

from __future__ import annotations

import inspect
import posixpath
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.urls import URLPattern, URLResolver
from drf_spectacular.drainage import GENERATOR_STATS, add_trace_message, error, get_override, warn
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import (
    ResolvedComponent,
    get_doc,
    is_versioning_supported,
    modify_for_versioning,
    operation_matches_version,
)
from drf_spectacular.settings import patched_settings, spectacular_settings
from rest_framework import serializers, viewsets
from rest_framework.schemas.generators import is_api_view
from rest_framework.settings import api_settings
from rest_framework.versioning import NamespaceVersioning, QueryParameterVersioning

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem
from mcp_bridge.build import password_fields  # noqa: F401 (registers its extension)
from mcp_bridge.build.extension_lookup import remembered_lookups
from mcp_bridge.build.facts import ModelFacts, OperationFacts, view_facts, view_model
from mcp_bridge.build.membership import Membership, Operation, Reason, compile_rules
from mcp_bridge.build.naming import copy_qualifiers
from mcp_bridge.build.spectacular_compat import bridge_generation
from mcp_bridge.decorators import get_groups, get_metadata

#: drf-spectacular settings the bridge needs whatever the project's are:
#: separate request components, so read-only fields never become inputs;
#: untouched paths, so that a path can be filled in and resolved; and the blank and
#: null choices of a choice field kept (``BlankEnum``/``NullEnum`` beside its enum):
#: without them ``postprocess_schema_enums`` drops ``""`` from the choices, and under
#: ``OAS_VERSION`` 3.1 ``null`` too, which the field accepts (pulpcore turns them off).
_REQUIRED_SPECTACULAR_SETTINGS = {
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": True,
    "SCHEMA_PATH_PREFIX_TRIM": False,
    "SCHEMA_PATH_PREFIX_INSERT": "",
    "CAMELIZE_NAMES": False,
}


@dataclass
class OperationSource:
    """Where one OpenAPI operation comes from.

    Attributes:
        path: the executable path template, e.g. ``"/api/v1/products/{slug}/"``.
        method: the HTTP method, upper case.
        view_class: the DRF view class (``WrappedAPIView`` for ``@api_view``).
        handler_name: the viewset action (``"list"``, ``"cancel"``) or the
            ``APIView`` handler method (``"get"``).
        is_viewset: whether the view is a viewset.
        basename: the router basename of a viewset, if it has one.
        metadata: the merged :func:`~mcp_bridge.decorators.get_metadata` of the operation.
        operation_id: the operationId drf-spectacular gave the operation.
        explicit_operation_id: whether that id was set on purpose
            (``extend_schema(operation_id=...)`` or a custom ``AutoSchema``).
        is_list: drf-spectacular sees a list operation (GET of a collection).
        sibling_methods: how many HTTP methods the view serves at this URL with the same
            handler (an ``@action(methods=[...])``), or at all for an ``APIView``/function
            view; read from the view, whatever the group holds.
        copy_qualifier: for a view routed at several URLs of the URLconf, what tells this
            copy apart (see :func:`mcp_bridge.build.naming.copy_qualifiers`), else ``None``.
        versioning_class: the view's DRF versioning class, or ``None``.
        version: the API version the operation was generated for, or ``None``.
        operation: the OpenAPI operation object, filled in once the schema is built.
        membership: why the operation is in the group (:class:`~mcp_bridge.build.membership.Reason`:
            a decorator, or an include rule of ``MCP_BRIDGE["GROUPS"]``).
        facts: what the view instance told of the operation (model, action, filters,
            pagination: :func:`~mcp_bridge.build.facts.view_facts`), completed from the
            document by :func:`~mcp_bridge.build.openrpc.build_methods`.
        class_doc: the view class's docstring when drf-spectacular made it the operation's
            description for want of one of the handler's own, and the class is a viewset
            (whose docstring is what its actions are about): context for each operation's default text, not the text
            (:func:`~mcp_bridge.build.tools.build_tool`).
        body_use: for a viewset's ``@action`` that writes, whose request drf-spectacular took
            from the viewset's serializer for want of ``@extend_schema(request=...)`` or the
            action's ``serializer_class``: how its code reads a body (:func:`body_use`);
            ``None`` for every other operation.
        update_fields: for a ``PUT``/``PATCH`` of a model's object, the OpenAPI schema of each
            field that the view's serializer writes when it has an object to update
            (:func:`update_fields`): the fields the document may lack.
    """

    path: str
    method: str
    view_class: type
    handler_name: str
    is_viewset: bool
    basename: str | None
    metadata: dict[str, Any]
    operation_id: str = ""
    explicit_operation_id: bool = False
    versioning_class: type | None = None
    version: str | None = None
    is_list: bool = False
    sibling_methods: int = 1
    copy_qualifier: str | None = None
    operation: dict[str, Any] = field(default_factory=dict)
    membership: tuple[Reason, ...] = ()
    facts: OperationFacts | None = None
    update_fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    class_doc: str | None = None
    body_use: str | None = None

    @property
    def is_function_view(self) -> bool:
        return self.view_class.__qualname__.endswith("WrappedAPIView")

    @property
    def view_label(self) -> str:
        """``module.Class.handler``, or ``module.function`` for ``@api_view``: names the culprit."""
        cls = self.view_class
        if self.is_function_view:
            return f"{cls.__module__}.{cls.__name__}"
        return f"{cls.__module__}.{cls.__qualname__}.{self.handler_name}"

    @property
    def culprit(self) -> Any:
        """The ``obj`` of a system check message: the view class, or the label of a function view."""
        return self.view_label if self.is_function_view else self.view_class


_LIBRARY_MODULES = ("drf_spectacular.", "rest_framework.")


def explicit_operation_id(inspector: Any, operation_id: str, default_id: str | None) -> bool:
    """Whether the project chose the operationId: it differs from drf-spectacular's
    default, or the project's ``AutoSchema`` subclass overrides ``get_operation_id``
    (then even an id equal to the default is the project's choice)."""
    if operation_id != default_id:
        return True
    # ``view.schema`` may be a weakref proxy: its __class__ is the schema's class.
    for klass in inspector.__class__.__mro__:
        # drf-spectacular's own classes, extend_schema()'s subclasses among them (their
        # override only returns an id when one was given, and then it differs), are not
        # the project's choice.
        if "get_operation_id" in klass.__dict__ and not klass.__module__.startswith(
            _LIBRARY_MODULES
        ):
            return True
    return False


def supports_versioning(versioning_class: type | None) -> bool:
    """Whether the bridge can serve one endpoint per version for this DRF versioning class.

    drf-spectacular's supported classes (URL path, namespace, Accept header),
    plus ``QueryParameterVersioning``, whose version the executor adds to the
    query string. ``HostNameVersioning`` is not supported: views using it are
    published unversioned.
    """
    if not versioning_class:
        return False
    return is_versioning_supported(versioning_class) or issubclass(
        versioning_class, QueryParameterVersioning
    )


def _callback_groups(method: str, callback: Any) -> tuple[Any, str | None, tuple[str, ...]]:
    """The view class of a URL pattern's callback, the handler name and the groups the
    decorators give one of its operations, read without instantiating the view (a viewset
    callback maps HTTP methods to actions in ``callback.actions``)."""
    cls = getattr(callback, "cls", None)
    if cls is None:
        return None, None, ()
    actions = getattr(callback, "actions", None)
    handler_name = actions.get(method.lower()) if actions else method.lower()
    handler = getattr(cls, handler_name, None) if handler_name else None
    return cls, handler_name, get_groups(cls, handler)


def _handler(view: Any, method: str) -> tuple[str, Any]:
    if isinstance(view, viewsets.ViewSetMixin):
        name = view.action
    else:
        name = method.lower()
    return name, getattr(view, name, None)


#: One operation of the URLconf that belongs to an API group, as drf-spectacular's
#: enumerator walks it: ``(path_regex, method, callback)``. The path itself (the costly
#: ``simplify_regex`` step) is derived later, only for the group being generated.
RawEndpoint = tuple[str, str, Any]


@dataclass
class UrlIndex:
    """The API groups of one URLconf, found in one walk of its URL patterns.

    Attributes:
        versions: ``{group: versions}`` as :func:`discover_groups` returns it.
        endpoints: ``{group: [(path_regex, method, callback), ...]}``, in URLconf order.
        naming: ``{(path_regex, method): (sibling_methods, copy_qualifier)}`` of every
            grouped operation (see :class:`OperationSource`): what default tool names
            need to know of the whole URLconf.
        api_path_regexes: the path regex and view class of every DRF endpoint of the
            URLconf, grouped or not, for :attr:`path_prefix`.
        reasons: ``{group: {(path_regex, method): reasons}}``: why each endpoint is in
            the group (:mod:`mcp_bridge.build.membership`).
        membership: the compiled ``MCP_BRIDGE["GROUPS"]`` of the walk, its rules' hits counted.
    """

    versions: dict[str, list[str | None]]
    endpoints: dict[str, list[RawEndpoint]]
    naming: dict[tuple[str, str], tuple[int, str | None]] = field(default_factory=dict)
    api_path_regexes: list[tuple[str, type]] = field(default_factory=list)
    _path_prefix: str | None = field(default=None, repr=False)

    @property
    def path_prefix(self) -> str:
        """drf-spectacular's path prefix estimate over the *whole* URLconf.

        drf-spectacular strips it from paths to make operationIds (and a project's own
        ``get_operation_id`` often does too). Estimated per group, the same operation
        would get another id in each group it is in; over the URLconf it is the id
        ``manage.py spectacular`` gives it.
        """
        if self._path_prefix is None:
            prefix = spectacular_settings.SCHEMA_PATH_PREFIX
            if prefix is None:
                enumerator = EndpointEnumerator()
                paths = {
                    enumerator.get_path_from_regex(regex) for regex, _ in self.api_path_regexes
                }
                if paths and len({cls for _, cls in self.api_path_regexes}) > 1:
                    prefix = re.escape(posixpath.commonpath(sorted(paths)))
                else:
                    prefix = "/"
            self._path_prefix = prefix if prefix.startswith("^") else "^" + prefix
        return self._path_prefix

    reasons: dict[str, dict[tuple[str, str], tuple[Reason, ...]]] = field(default_factory=dict)
    membership: Membership = field(default_factory=Membership)
    #: ``mcp_bridge.W083``: the operations of a group left out because they cannot run
    #: (:func:`cannot_run`), once per handler.
    unpublished: list[Problem] = field(default_factory=list)


def build_url_index(urlconf: Any = None) -> UrlIndex:
    """Walk the URLconf once and index its grouped operations.

    The walk follows drf-spectacular's ``EndpointEnumerator`` (``path_regex`` is
    the concatenated pattern strings, includes are descended, DRF views whose
    ``schema`` is ``None`` are left out, ``get_allowed_methods`` gives the
    methods), but reads group membership first — the decorators' groups and
    ``MCP_BRIDGE["GROUPS"]`` rules (:mod:`mcp_bridge.build.membership`) — and computes
    the path of an operation only for a ``path``/``path_regex`` rule: in a large
    API the path regex simplification of every URL pattern would cost more than
    generating a small group.
    """
    enumerator = EndpointEnumerator(urlconf=urlconf)
    membership = compile_rules(bridge_settings.GROUPS)
    paths: dict[tuple[str, type], str] = {}  # one per URL pattern, whatever its methods
    # The generator's coerce_path renames {pk} as the document does; it reads only the
    # view's queryset, a class attribute, so the class stands in for a view instance.
    coercer = (
        SchemaGenerator(urlconf=urlconf)
        if any(rule.needs_path for rule in membership.rules)
        else None
    )

    def path_of(path_regex: str, view_class: type) -> str:
        key = (path_regex, view_class)
        if key not in paths:
            assert coercer is not None  # only path rules ask for a path
            paths[key] = coercer.coerce_path(
                enumerator.get_path_from_regex(path_regex), "", view_class
            )
        return paths[key]

    # A group the setting declares has an endpoint even when nothing matches (its rule
    # problems then answer HTTP 500 there, and an empty group lists no tools).
    found: dict[str, set[str | None]] = {group: set() for group in membership.groups}
    endpoints: dict[str, list[RawEndpoint]] = {}
    reasons: dict[str, dict[tuple[str, str], tuple[Reason, ...]]] = {}
    naming: dict[tuple[str, str], tuple[int, str | None]] = {}
    api_path_regexes: list[tuple[str, type]] = []
    copies: dict[tuple[Any, ...], list[str]] = {}
    unpublished: dict[tuple[type, str], set[str]] = {}
    can_run: dict[tuple[Any, str | None], bool] = {}  # cannot_run(), negated, per handler
    for path_regex, callback, namespace, app_names in _url_patterns(
        enumerator.patterns, "", "", ()
    ):
        if not _publishable(callback):
            continue
        api_path_regexes.append((path_regex, callback.cls))
        copies.setdefault(_view_identity(callback), []).append(path_regex)
        methods = enumerator.get_allowed_methods(callback)
        actions = getattr(callback, "actions", None)
        versions: set[str | None] | None = None  # the callback's, made for its first grouped method
        for method in methods:
            cls, handler_name, decorated_groups = _callback_groups(method, callback)
            operation = None
            if membership.rules:
                operation = Operation(
                    path_regex, method, cls, handler_name, namespace, app_names, path_of
                )
            groups = membership.groups_of(operation, decorated_groups)
            if not groups:
                continue
            runs = can_run.get((cls, handler_name))
            if runs is None:
                runs = can_run[(cls, handler_name)] = not cannot_run(
                    cls, getattr(cls, handler_name or "", None)
                )
            if not runs:
                unpublished.setdefault((cls, handler_name or ""), set()).update(groups)
                continue
            if actions:  # a viewset: the methods routed to the same action
                siblings = sum(
                    1 for m in methods if actions.get(m.lower()) == actions.get(method.lower())
                )
            else:
                siblings = sum(1 for m in methods if m not in ("HEAD", "OPTIONS"))
            naming[(path_regex, method)] = (siblings, None)
            if versions is None:
                versions = _callback_versions(cls, callback, namespace)
            for group, why in groups.items():
                found.setdefault(group, set()).update(versions)
                endpoints.setdefault(group, []).append((path_regex, method, callback))
                reasons.setdefault(group, {})[(path_regex, method)] = why
    for regexes in copies.values():
        if len(regexes) < 2:
            continue
        qualifiers = copy_qualifiers([enumerator.get_path_from_regex(regex) for regex in regexes])
        for regex, qualifier in zip(regexes, qualifiers, strict=True):
            for key, (siblings, _) in list(naming.items()):
                if key[0] == regex:
                    naming[key] = (siblings, qualifier)
    result: dict[str, list[str | None]] = {}
    for group, versions in sorted(found.items()):
        # Unversioned views are part of every version of a versioned group, as in
        # drf-spectacular's own versioned schemas.
        named = sorted(v for v in versions if v is not None)
        result[group] = list(named) if named else [None]
    return UrlIndex(
        versions=result,
        endpoints={group: endpoints.get(group, []) for group in result},
        reasons=reasons,
        membership=membership,
        naming=naming,
        api_path_regexes=api_path_regexes,
        unpublished=[
            _unpublished_problem(cls, handler_name, sorted(groups))
            for (cls, handler_name), groups in unpublished.items()
        ],
    )


def _view_identity(callback: Any) -> tuple[Any, ...]:
    """What makes two URL patterns the same view: its class, the viewset's method-to-action
    mapping and router basename."""
    actions = getattr(callback, "actions", None)
    basename = getattr(callback, "initkwargs", {}).get("basename")
    return (callback.cls, tuple(sorted(actions.items())) if actions else None, basename)


def _url_patterns(
    patterns: Any, prefix: str, namespace: str, app_names: tuple[str, ...]
) -> Iterator[tuple[str, Any, str, tuple[str, ...]]]:
    """``(path_regex, callback, namespace, app_names)`` of every URL pattern, includes
    descended, in URLconf order; ``namespace`` is the instance namespace (``"a:b"``),
    ``app_names`` the ``app_name`` of every enclosing include."""
    for pattern in patterns:
        path_regex = prefix + str(pattern.pattern)
        if isinstance(pattern, URLPattern):
            if not _is_format_suffix_route(pattern):
                yield path_regex, pattern.callback, namespace, app_names
        elif isinstance(pattern, URLResolver):
            inner = namespace
            if pattern.namespace:
                inner = f"{namespace}:{pattern.namespace}" if namespace else pattern.namespace
            names = (*app_names, pattern.app_name) if pattern.app_name else app_names
            yield from _url_patterns(pattern.url_patterns, path_regex, inner, names)


#: The converters DRF's ``format_suffix_patterns`` adds to ``path()`` routes.
_FORMAT_SUFFIX_CONVERTER = re.compile(r"<drf_format_suffix(_path)?:(?P<kwarg>\w+)>$")


def _is_format_suffix_route(pattern: URLPattern) -> bool:
    """A route ``format_suffix_patterns`` added (``/pi{format}``, ``/pi.json``): the same
    operation as the route without the suffix, so it is not a tool of its own. DRF's own
    schema generator skips the ``re_path`` form (``.{format}``); the ``path()`` form's
    converter slips through it."""
    kwarg = api_settings.FORMAT_SUFFIX_KWARG
    route = str(pattern.pattern)
    match = _FORMAT_SUFFIX_CONVERTER.search(route)
    return (match is not None and match["kwarg"] == kwarg) or f"\\.(?P<{kwarg}>" in route


def _is_adrf(cls: type) -> bool:
    return any(klass.__module__.split(".")[0] == "adrf" for klass in cls.__mro__)


def _is_coroutine_handler(cls: type, handler: Any) -> bool:
    """Whether ``handler`` is an ``async def`` (for an ``@api_view``, its function)."""
    if inspect.iscoroutinefunction(handler):
        return True
    if not cls.__qualname__.endswith("WrappedAPIView"):
        return False
    # DRF's @api_view routes every method to a plain ``def handler(...): return func(...)``
    # (rest_framework/decorators.py): the function is the one cell of its closure
    # (tests/test_setups_fail_closed.py fails without it).
    for cell in getattr(handler, "__closure__", None) or ():
        try:
            if inspect.iscoroutinefunction(cell.cell_contents):
                return True
        except ValueError:  # an empty cell
            continue
    return False


def cannot_run(cls: type, handler: Any) -> bool:
    """An ``async def`` handler of a DRF view that is not adrf's: DRF's synchronous dispatch
    would return the coroutine unawaited, so the operation cannot answer (adrf's views await
    it, and so do tools, :mod:`mcp_bridge.toolcall.invocation`)."""
    return handler is not None and _is_coroutine_handler(cls, handler) and not _is_adrf(cls)


def _unpublished_problem(cls: type, handler_name: str, groups: list[str]) -> Problem:
    label = (
        f"{cls.__module__}.{cls.__name__}"
        if cls.__qualname__.endswith("WrappedAPIView")
        else f"{cls.__module__}.{cls.__qualname__}.{handler_name}"
    )
    return Problem(
        "mcp_bridge.W083",
        f"{label} is an async def handler of a DRF view that is not adrf's: DRF runs handlers "
        f"synchronously, so it cannot answer, and it is not published (groups: {', '.join(groups)}).",
        "Make the handler a plain `def` (DRF calls it in the request's thread), or use adrf's "
        "views (adrf.views.APIView, adrf.viewsets.ViewSet, adrf.decorators.api_view), which await it.",
        label,
    )


def _publishable(callback: Any) -> bool:
    """The path-independent part of DRF's ``should_include_endpoint``."""
    if not is_api_view(callback) or callback.cls.schema is None:
        return False
    return not ("schema" in callback.initkwargs and callback.initkwargs["schema"] is None)


def _callback_versions(cls: Any, callback: Any, namespace: str) -> set[str | None]:
    versioning_class = getattr(callback, "initkwargs", {}).get(
        "versioning_class", cls.versioning_class
    )
    if not supports_versioning(versioning_class):
        return {None}
    allowed = set(getattr(versioning_class, "allowed_versions", None) or ())
    default = getattr(versioning_class, "default_version", None)
    if not allowed and namespace and issubclass(versioning_class, NamespaceVersioning):
        # DRF's NamespaceVersioning.determine_version: with no allowed versions, the first
        # namespace the URL is included under is the version (pretix's "api-v1"), whatever the
        # default. Generated unversioned, drf-spectacular would leave every operation out.
        return {namespace.split(":")[0]}
    return allowed or ({default} if default else {None})


class _IndexedEndpointEnumerator(EndpointEnumerator):
    """drf-spectacular's enumerator over endpoints already found by :func:`build_url_index`.

    Only the URL walk is replaced: paths are derived and filtered by the
    enumerator's own ``get_path_from_regex`` and ``should_include_endpoint``, and
    ``get_api_endpoints`` still applies ``PREPROCESSING_HOOKS``, de-duplication
    and ``SORT_OPERATIONS``.
    """

    def __init__(
        self, raw_endpoints: list[RawEndpoint], patterns: Any = None, urlconf: Any = None
    ) -> None:
        super().__init__(patterns, urlconf)
        self.raw_endpoints = raw_endpoints
        self.enumerated: list[Endpoint] = []
        #: What ``PREPROCESSING_HOOKS`` did to the group's endpoints (:meth:`get_api_endpoints`).
        self.hook_effects: list[HookEffect] = []

    # Private drf-spectacular API: the URL walk that get_api_endpoints() calls; overridden so
    # the walk is done once per URLconf (tests/test_private_apis.py).
    def _get_api_endpoints(self, patterns: Any, prefix: str) -> list[Endpoint]:
        endpoints = []
        for path_regex, method, callback in self.raw_endpoints:
            path = self.get_path_from_regex(path_regex)
            if self.should_include_endpoint(path, callback):
                endpoints.append((path, path_regex, method, callback))
        self.enumerated = endpoints
        return endpoints

    # list[Any]: drf-spectacular's endpoints are 4-tuples (Endpoint); DRF's stubs type 3-tuples.
    def get_api_endpoints(self, patterns: Any = None, prefix: str = "") -> list[Any]:
        """drf-spectacular's endpoints (``PREPROCESSING_HOOKS`` applied), each path the URL's own.

        A hook that rewrites an endpoint's path (or its path regex) would publish a tool
        whose path the URLconf does not route, or drop it from the group (whose membership
        is keyed on the path regex): the URL's own path and regex are put back, as
        ``SCHEMA_PATH_PREFIX_TRIM`` is turned off, so that every tool can be called. What
        each hook dropped or rewrote is kept in :attr:`hook_effects` (:func:`hook_effects`).
        """
        endpoints = super().get_api_endpoints(patterns, prefix)
        own = {(path_regex, method): path for path, path_regex, method, _ in self.enumerated}
        untouched = len(endpoints) == len(own) and all(
            own.get((regex, method)) == path for path, regex, method, _ in endpoints
        )
        if untouched:  # the usual case: the hooks left the group's endpoints alone
            return endpoints
        self.hook_effects = hook_effects(self.enumerated)
        routes: dict[tuple[Any, str], list[tuple[str, str]]] = {}
        for path, path_regex, method, callback in self.enumerated:
            routes.setdefault((callback, method), []).append((path, path_regex))
        # A callback routed once tells which URL a rewritten endpoint is.
        by_callback = {key: found[0] for key, found in routes.items() if len(found) == 1}
        restored = []
        for path, path_regex, method, callback in endpoints:
            if own.get((path_regex, method)) != path and (callback, method) in by_callback:
                path, path_regex = by_callback[callback, method]
            restored.append((path, path_regex, method, callback))
        return restored


#: One endpoint as drf-spectacular's enumerator lists it: ``(path, path_regex, method, callback)``.
Endpoint = tuple[str, str, str, Any]


@dataclass
class HookEffect:
    """What one ``PREPROCESSING_HOOKS`` entry did to a group's endpoints.

    Attributes:
        hook: the hook's dotted name.
        dropped: ``"METHOD path"`` of the endpoints it removed.
        rewritten: ``"METHOD path → new path"`` of the endpoints whose path it changed.
    """

    hook: str
    dropped: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)


def hook_effects(endpoints: list[Endpoint]) -> list[HookEffect]:
    """Run the ``PREPROCESSING_HOOKS`` one at a time over ``endpoints`` and tell what each did.

    Hooks are functions of the endpoint list (drf-spectacular's contract), so running them
    again on the same list repeats what the generation saw; this only runs when the group's
    endpoints came out changed.
    """
    effects = []
    current = list(endpoints)
    for hook in spectacular_settings.PREPROCESSING_HOOKS:
        after = hook(endpoints=list(current))
        by_regex = {(path_regex, method): path for path, path_regex, method, _ in after}
        by_callback = {(callback, method): path for path, _, method, callback in after}
        effect = HookEffect(
            f"{getattr(hook, '__module__', '')}.{getattr(hook, '__qualname__', hook)}"
        )
        for path, path_regex, method, callback in current:
            new_path = by_regex.get((path_regex, method)) or by_callback.get((callback, method))
            if new_path is None:
                effect.dropped.append(f"{method} {path}")
            elif new_path != path:
                effect.rewritten.append(f"{method} {path} → {new_path}")
        if effect.dropped or effect.rewritten:
            effects.append(effect)
        current = after
    return effects


class GroupSchemaGenerator(SchemaGenerator):
    """drf-spectacular's generator, restricted to one API group and version.

    After :meth:`get_schema`, :attr:`sources` lists one :class:`OperationSource`
    per operation, in the generator's order.

    Args:
        group, api_version, urlconf: what to generate.
        index: the URLconf's :class:`UrlIndex`; built here when not given. Only the
            group's endpoints are enumerated and get a view instance.
    """

    def __init__(
        self,
        group: str,
        api_version: str | None = None,
        urlconf: Any = None,
        index: UrlIndex | None = None,
    ) -> None:
        super().__init__(urlconf=urlconf, api_version=api_version)
        self.group = group
        self.index = index
        self.sources: list[OperationSource] = []
        #: ``mcp_bridge.W024``: the fields left out of an operation's arguments, and why.
        self.field_problems: list[Problem] = []
        # update_fields() per (view class, serializer class), and the fields it left out.
        self._updates: dict[tuple[Any, Any], tuple[dict[str, Any], list[tuple[str, str]]]] = {}
        # The view classes' docstrings, read once per class (_class_doc).
        self._class_docs: dict[type, str] = {}
        # The models' facts, made once per model (view_facts).
        self._model_facts: dict[type, ModelFacts | None] = {}

    def _update_fields(
        self, view: Any, inspector: Any, operation: dict[str, Any]
    ) -> tuple[dict[str, dict[str, Any]], list[tuple[str, str]]]:
        """:func:`update_fields` of ``view`` and the fields it left out, worked out once per
        view class and serializer class: the ``PUT`` and the ``PATCH`` of one view make the
        same serializer class with the same unsaved object, so they share it (building the
        serializer and mapping each of its fields is most of what the pass costs).

        Skipped (nothing to add) when the operation's request component was made from the same
        serializer class and that class builds its fields as DRF does, without reading its
        object (:func:`_instance_blind`): then the object changes no field."""
        try:
            serializer_class = view.get_serializer_class()
        # A view without one (an APIView), or one that reads the real request: update_fields
        # meets the same and decides, uncached.
        except Exception:  # noqa: BLE001
            serializer_class = None
        if (
            serializer_class is not None
            and _instance_blind(serializer_class)
            and self._request_made_from(operation, serializer_class)
        ):
            return {}, []
        key = (type(view), serializer_class)
        found = self._updates.get(key) if serializer_class is not None else None
        if found is None:
            left_out: list[tuple[str, str]] = []
            found = (update_fields(view, inspector, left_out), left_out)
            if serializer_class is not None:
                self._updates[key] = found
        return found

    def _request_made_from(self, operation: dict[str, Any], serializer_class: type) -> bool:
        """Whether every request body of ``operation`` is a component that drf-spectacular
        made from ``serializer_class`` (not from another serializer of the same component name,
        which it keeps the first of)."""
        content = (operation.get("requestBody") or {}).get("content") or {}
        if not content:
            return False
        for media in content.values():
            ref = (media.get("schema") or {}).get("$ref") if isinstance(media, dict) else None
            if not isinstance(ref, str) or not ref.startswith(_SCHEMA_COMPONENTS):
                return False
            key = (ref[len(_SCHEMA_COMPONENTS) :], ResolvedComponent.SCHEMA)
            try:
                made_from = self.registry[key].object
            except KeyError:
                return False
            if (
                made_from is None
                or isinstance(made_from, type)
                or not (type(made_from) is serializer_class)
            ):
                return False
        return True

    # Private drf-spectacular API (SchemaGenerator._initialise_endpoints and, in parse(),
    # _get_paths_and_endpoints): overridden and called so that only the group's endpoints get
    # a view instance (tests/test_private_apis.py).
    def _initialise_endpoints(self) -> None:
        if self.endpoints is None:
            index = self.index = self.index or build_url_index(self.urlconf)
            raw = index.endpoints.get(self.group, [])
            self.inspector = _IndexedEndpointEnumerator(raw, self.patterns, self.urlconf)
            self.endpoints = self.inspector.get_api_endpoints()

    def _membership(self, path_regex: str, method: str) -> tuple[Reason, ...]:
        """Why an endpoint is in the group, as the URL walk decided (decorators and
        ``MCP_BRIDGE["GROUPS"]`` rules); ``()``: it is not."""
        assert self.index is not None  # set by _initialise_endpoints
        return self.index.reasons.get(self.group, {}).get((path_regex, method.upper()), ())

    def parse(self, input_request: Any, public: bool) -> dict[str, Any]:
        """``{path: {method: operation}}`` of the group, and :attr:`sources` filled in.

        A copy of drf-spectacular's ``SchemaGenerator.parse`` (``drf_spectacular/generators.py``,
        0.29.0 - 0.30.0, and 0.28.0 but for its ``os.path.commonpath``; ``tests/test_private_apis.py`` holds the hash of its source and fails when an
        upgrade changes it: then re-read this list). The differences, in the order of
        upstream's lines:

        1. **Endpoints:** only those the URL walk put in the group (:meth:`_membership` of
           ``(path_regex, method)``); upstream takes every endpoint of
           ``_get_paths_and_endpoints()``.
        2. **Path prefix:** :attr:`UrlIndex.path_prefix`, estimated over every published URL
           pattern of the *whole URLconf* (before ``PREPROCESSING_HOOKS``); upstream estimates it
           over the endpoints being generated (here one group's), which would give an operation
           another operationId in each group it is in. ``SCHEMA_PATH_PREFIX``, when set, is used
           by both alike.
        3. **Queued messages:** the ``warnings``/``errors`` overrides queued at decoration are
           emitted inside ``add_trace_message(type(view))``, so each names its view; upstream
           emits them without a trace.
        4. **Permissions:** no ``has_view_permissions()`` filter (upstream applies it unless
           ``public``): the tool list does not depend on the caller, and the view's permissions
           run on every call.
        5. **Versioning:** :func:`supports_versioning` decides, not ``is_versioning_supported``
           alone, so ``QueryParameterVersioning`` is versioned too: instead of
           ``modify_for_versioning``, the version is set as ``?version=`` on the mock request's
           query string and as ``request.version`` (upstream warns that the class is unsupported
           and generates it unversioned). A class neither supports (``HostNameVersioning``, a
           project's own) is generated unversioned *without* upstream's "using unsupported
           versioning class" warning. The class and version are recorded on the source
           (``None`` when unversioned).
        6. **Schema class:** no ``assert isinstance(view.schema, AutoSchema)``, and ``view.schema``
           is read once (DRF's ``DefaultSchema`` descriptor hands out a new inspector on each
           access; the same one must answer ``get_operation`` and the operationId and list
           questions below).
        7. **Trace:** ``add_trace_message`` also covers the ``exclude=True`` test and the
           operationId/list decisions below, not only ``get_operation``; it is given
           ``type(view)`` (upstream's ``getattr(view, '__class__', view)``, the same for a view).
        8. **Operation facts recorded** (none upstream), on the same inspector: whether the
           operation was hand-written (``@extend_schema(operation={...})``: ``get_operation``
           never set ``path_prefix`` on the inspector), the base ``AutoSchema.get_operation_id``
           to tell a chosen operationId from the default (:func:`explicit_operation_id`), and
           ``_is_list_view()`` for GET; and what the view instance says of the operation
           beyond the document (:func:`~mcp_bridge.build.facts.view_facts`: its model,
           action kind, filter, search and ordering fields, pagination).
        9. **Path rewriting:** no ``SCHEMA_PATH_PREFIX_TRIM``, ``SCHEMA_PATH_PREFIX_INSERT`` or
           ``CAMELIZE_NAMES`` branches: :func:`generate_group_schema` forces them off
           (``_REQUIRED_SPECTACULAR_SETTINGS``), so paths stay executable URL paths. The leading
           ``/`` is still added, as upstream does.
        10. **Sources:** one :class:`OperationSource` per kept operation is appended to
            :attr:`sources` (reset first), with the view class, handler, metadata, membership
            reasons and the URL walk's naming facts (sibling methods, copy qualifier).

        Otherwise the result, its shape and its order are upstream's.
        """
        # Private drf-spectacular API, overridden above: only the group's endpoints get a view
        # (tests/test_private_apis.py).
        self._initialise_endpoints()
        endpoints = [
            (path, path_regex, method, view)
            # Private drf-spectacular API: the endpoints with their view instances
            # (tests/test_private_apis.py).
            for path, path_regex, method, view in self._get_paths_and_endpoints()
            if self._membership(path_regex, method)
        ]
        assert self.index is not None  # set by _initialise_endpoints
        index = self.index
        path_prefix = index.path_prefix
        # The class the URL pattern routes to: an OpenApiViewExtension's view_replacement()
        # (drf-spectacular's contrib replaces every dj-rest-auth view by a class named
        # ``Fixed``) only describes the view, so names, metadata and routing read the own one.
        own_classes = {
            (path_regex, method): callback.cls
            for path_regex, method, callback in index.endpoints.get(self.group, [])
        }
        result: dict[str, Any] = {}
        self.sources = []
        self.field_problems = []
        self._updates = {}
        for path, path_regex, method, view in endpoints:
            # Messages queued when the view was decorated, as SchemaGenerator.parse emits them.
            with add_trace_message(type(view)):
                for message in get_override(view, "warnings", []):
                    warn(message)
                for message in get_override(view, "errors", []):
                    error(message)
            view.request = spectacular_settings.GET_MOCK_REQUEST(method, path, view, input_request)
            version = None
            versioning_class = view.versioning_class
            if supports_versioning(versioning_class):
                version = self.api_version or versioning_class.default_version
                if not version:
                    continue
                if is_versioning_supported(versioning_class):
                    assert self.inspector is not None  # set by _initialise_endpoints
                    path = modify_for_versioning(
                        self.inspector.patterns, method, path, view, version
                    )
                else:  # QueryParameterVersioning: emulate ?version=... on the mock request
                    # Private DRF API Request._request, whose GET the version is read from
                    # (tests/test_private_apis.py; test_versioning.py fails by-query without it).
                    query = view.request._request.GET.copy()
                    query[versioning_class.version_param] = version
                    view.request._request.GET = query
                    view.request.version = version
                if not operation_matches_version(view, version):
                    continue
            else:
                versioning_class = None

            # One inspector for both calls: DRF's DefaultSchema descriptor hands out a new
            # instance on every attribute access.
            inspector = view.schema
            # A tool reads no operation's "security" (the view's own authentication runs on
            # every call): the inspector's get_auth() (the authentication extensions' lookup,
            # the security components) is skipped on this instance.
            inspector.get_auth = _no_security
            # The trace names the view and its file in every drf-spectacular warning, as
            # `manage.py spectacular` shows them.
            with add_trace_message(type(view)), _step(view, method, path, GET_OPERATION):
                operation = inspector.get_operation(
                    path, path_regex, path_prefix, method, self.registry
                )
            with add_trace_message(type(view)), _step(view, method, path, BRIDGE_READING):
                if not operation:  # removed with @extend_schema(exclude=True)
                    continue
                # AutoSchema.get_operation() records the path first; @extend_schema(operation={...})
                # returns its hand-written operation without calling it (so does a project's own
                # get_operation that never calls super()): then nothing was derived from the view,
                # and an operationId, if any, was written by hand.
                # Private drf-spectacular API, the instance attribute path_prefix
                # (tests/test_private_apis.py; without it test_golden_and_schemas.py fails).
                hand_written = "path_prefix" not in vars(inspector)
                operation_id = operation.get("operationId") or ""
                # Otherwise, the base implementation's id, computed on the same inspector state:
                # when the operation's id differs, the project chose it. An inspector of the
                # base class's get_operation and get_operation_id made the id just so.
                schema_class = inspector.__class__  # view.schema may be a weakref proxy
                if hand_written:
                    default_id = None
                elif (
                    schema_class.get_operation is AutoSchema.get_operation
                    and schema_class.get_operation_id is AutoSchema.get_operation_id
                ):
                    default_id = operation_id
                else:
                    default_id = AutoSchema.get_operation_id(inspector)
                # Private drf-spectacular API: its own list/detail decision
                # (tests/test_private_apis.py; without it test_results.py's probe test fails).
                is_list = not hand_written and method.upper() == "GET" and inspector._is_list_view()
                left_out: list[tuple[str, str]] = []
                if not hand_written and method.upper() in ("PUT", "PATCH"):
                    updated, left_out = self._update_fields(view, inspector, operation)
                else:
                    updated = {}
                self.field_problems += [
                    _left_out_problem(view, method, path, name, why) for name, why in left_out
                ]
                view_class = own_classes.get((path_regex, method.upper()), type(view))
                handler_name, _ = _handler(view, method)
                handler = getattr(view_class, handler_name, None)
                sibling_methods, copy_qualifier = index.naming.get(
                    (path_regex, method.upper()), (1, None)
                )
                if not path.startswith("/"):
                    path = "/" + path
                is_viewset = isinstance(view, viewsets.ViewSetMixin)
                facts = view_facts(
                    view,
                    handler_name,
                    method.upper(),
                    is_viewset=is_viewset,
                    is_list=is_list,
                    known_models=self._model_facts,
                )
                metadata = get_metadata(view_class, handler)
                reads_body = (
                    body_use(view, handler, method.upper(), operation) if is_viewset else None
                )
                class_doc = _class_doc(view, handler, operation, is_viewset, self._class_docs)
            self.sources.append(
                OperationSource(
                    path=path,
                    method=method.upper(),
                    view_class=view_class,
                    handler_name=handler_name,
                    is_viewset=is_viewset,
                    basename=getattr(view, "basename", None),
                    metadata=metadata,
                    operation_id=operation_id,
                    explicit_operation_id=bool(operation_id)
                    and explicit_operation_id(inspector, operation_id, default_id),
                    versioning_class=versioning_class,
                    version=version,
                    is_list=is_list,
                    membership=self._membership(path_regex, method),
                    sibling_methods=sibling_methods,
                    copy_qualifier=copy_qualifier,
                    facts=facts,
                    update_fields=updated,
                    body_use=reads_body,
                    class_doc=class_doc,
                )
            )
            result.setdefault(path, {})[method.lower()] = operation
        return result


def _no_security() -> list[dict[str, Any]]:
    return []


#: The steps of one operation's description that can fail (:class:`OperationFailure`).
GET_OPERATION = "drf-spectacular's AutoSchema.get_operation()"
BRIDGE_READING = "mcp_bridge's reading of the view (its serializer, model, filters and handler)"


class OperationFailure(Exception):
    """One operation of a group could not be described: which view, which method and path, and
    which step raised (``step``, one of the ``GET_OPERATION``/``BRIDGE_READING`` texts). The
    original exception is its ``__cause__``."""

    def __init__(self, view_class: type, method: str, path: str, step: str, cause: Exception):
        self.view_label = f"{view_class.__module__}.{view_class.__qualname__}"
        self.method = method.upper()
        self.path = path if path.startswith("/") else "/" + path
        self.step = step
        self.cause = cause
        super().__init__(
            f"{self.method} {self.path} ({self.view_label}), in {step}: "
            f"{type(cause).__name__}: {cause}"
        )


@contextmanager
def _step(view: Any, method: str, path: str, step: str) -> Iterator[None]:
    """Re-raise whatever the block raises as an :class:`OperationFailure` naming the view."""
    try:
        yield
    except OperationFailure:
        raise
    except Exception as exc:  # the project's schema and view code can raise anything
        raise OperationFailure(type(view), method, path, step, exc) from exc


def _left_out_problem(view: Any, method: str, path: str, name: str, why: str) -> Problem:
    view_class = type(view)
    label = f"{view_class.__module__}.{view_class.__qualname__}"
    path = path if path.startswith("/") else "/" + path
    return Problem(
        "mcp_bridge.W024",
        f"{method.upper()} {path} ({label}): the field {name!r} is left out of the tool's "
        f"arguments: {why}.",
        "Describe the field for drf-spectacular (@extend_schema_field on its class, or an "
        "OpenApiSerializerFieldExtension), or mark it read_only if it is never written. The "
        "rest of the tool works as it is.",
        obj=view_class,
    )


#: How an action's code reads the request body: DRF's request.data (and what it is made of),
#: and a serializer given data.
_READS_REQUEST = re.compile(r"\brequest\.(?:data|POST|FILES|body|stream|read)\b")
_SERIALIZES_DATA = re.compile(
    r"(?:get_serializer|serializer_class|Serializer)\s*\((?:[^()]|\([^()]*\))*\bdata\s*="
)
_NO_OVERRIDE = object()


def body_use(view: Any, handler: Any, method: str, operation: dict[str, Any]) -> str | None:
    """How a viewset ``@action`` that writes reads its body, when drf-spectacular gave it the
    viewset's serializer as its request (no ``@extend_schema(request=...)``, no
    ``serializer_class`` on the ``@action``), as it does for every such action:

    * ``"none"``: its code never reads the request body: DRF accepts an empty one, and the
      tool takes no body arguments;
    * ``"serializer"``: it gives the body to a serializer: the request is right;
    * ``"direct"``: it reads ``request.data`` itself: the viewset's serializer is probably not
      its body (``mcp_bridge.W023`` suggests ``@extend_schema(request=...)``);
    * ``"unknown"``: its code cannot be read (also ``W023``).

    ``None`` for any other operation.
    """
    if method not in ("POST", "PUT", "PATCH") or not operation.get("requestBody"):
        return None
    if not hasattr(handler, "mapping") or handler.kwargs.get("serializer_class") is not None:
        return None  # not an @action, or one with a serializer of its own
    if get_override(handler, "request", _NO_OVERRIDE) is not _NO_OVERRIDE:
        return None
    try:
        source = inspect.getsource(inspect.unwrap(handler))
    except (OSError, TypeError):
        return "unknown"
    code = source[source.find("def ") :]  # its decorators say nothing of its body
    if _SERIALIZES_DATA.search(code):
        return "serializer"
    if _READS_REQUEST.search(code):
        return "direct"
    return "none"


def _class_doc(
    view: Any,
    handler: Any,
    operation: dict[str, Any],
    shared: bool,
    known: dict[type, str] | None = None,
) -> str | None:
    """The view class's docstring, when it is the operation's description only because the
    handler has none (drf-spectacular's ``AutoSchema.get_description``) and the class is a
    viewset (``shared``). ``known``: the docstrings already read, by class, for one build."""
    if not shared:
        return None
    view_class = type(view)
    class_doc = known.get(view_class) if known is not None else None
    if class_doc is None:
        class_doc = get_doc(view_class)
        if known is not None:
            known[view_class] = class_doc
    if not class_doc or get_doc(handler) or operation.get("description") != class_doc:
        return None
    return class_doc


_SCHEMA_COMPONENTS = "#/components/schemas/"
#: What a serializer class may override to make its fields depend on its object.
_INSTANCE_HOOKS = (
    "__new__",
    "__init__",
    "many_init",
    "fields",
    "get_fields",
    "get_field_names",
    "get_default_field_names",
    "get_extra_kwargs",
    "include_extra_kwargs",
    "get_uniqueness_extra_kwargs",
    "build_field",
    "build_standard_field",
    "build_relational_field",
    "build_nested_field",
    "build_property_field",
    "build_url_field",
    "build_unknown_field",
)


def _instance_blind(serializer_class: type) -> bool:
    """Whether ``serializer_class`` takes every way of making its fields from DRF itself (its
    own and its bases' code touch none of :data:`_INSTANCE_HOOKS`): then the fields are the
    same with an object and without one."""
    for name in _INSTANCE_HOOKS:
        owner = next((cls for cls in serializer_class.__mro__ if name in vars(cls)), object)
        if owner is not object and not owner.__module__.startswith("rest_framework."):
            return False
    return True


def update_fields(
    view: Any, inspector: Any, left_out: list[tuple[str, str]] | None = None
) -> dict[str, dict[str, Any]]:
    """The OpenAPI schema of every field the view's serializer writes on an update: the
    serializer as REST builds it for a ``PUT``/``PATCH``, with an object to update.

    drf-spectacular asks ``view.get_serializer()`` without an object, as for a create, and
    writes the request component of every write from it (and keeps the first of two
    serializers that share a component name). A field that a serializer makes read-only
    until there is an object (a parent reference set from the URL on create, writable on
    update: ``get_extra_kwargs``/``get_fields`` reading ``self.instance``) is then missing
    from the ``PUT`` request, which REST accepts. The object is an unsaved instance of the
    view's model; ``{}`` when the view has no model or its serializer cannot be made so.

    A field drf-spectacular maps to ``None`` in the request direction (a writable nested
    serializer whose own fields are all read-only: there is nothing of it to write) is left
    out, as drf-spectacular leaves it out of its request components. A field it cannot map,
    or maps to something that is not a schema, is left out too, and ``(name, why)`` is
    appended to ``left_out``: it costs that field, never the tool.
    """
    try:
        model = view_model(view)
        if model is None:
            return {}
        serializer = view.get_serializer(instance=model())
    # A project's serializer may read the real object or request in get_fields() and fail
    # any way on an unsaved one: then the document's component is all there is.
    except Exception:  # noqa: BLE001
        return {}
    if not isinstance(serializer, serializers.Serializer):
        return {}
    schemas: dict[str, dict[str, Any]] = {}
    try:
        fields = serializer.fields
    except Exception:  # noqa: BLE001 - as above
        return {}
    for name, serializer_field in fields.items():
        if serializer_field.read_only:
            continue
        try:
            # Private drf-spectacular API (tests/test_private_apis.py): the mapping of one
            # field, as its own request components map it.
            schema = inspector._map_serializer_field(serializer_field, "request")
            meta = inspector._get_serializer_field_meta(serializer_field, "request")
        except Exception as exc:  # noqa: BLE001 - the project's field code can raise anything
            if left_out is not None:
                left_out.append(
                    (name, f"drf-spectacular cannot map it: {type(exc).__name__}: {exc}")
                )
            continue
        if schema is None:  # nothing of it is written (all its own fields are read-only)
            continue
        if not isinstance(schema, dict) or not isinstance(meta, dict):
            if left_out is not None:
                left_out.append((name, f"drf-spectacular maps it to {schema!r}, not a schema"))
            continue
        schemas[name] = {**schema, **{k: v for k, v in meta.items() if k != "readOnly"}}
    return schemas


def generate_group_schema(
    group: str,
    api_version: str | None = None,
    urlconf: Any = None,
    index: UrlIndex | None = None,
    messages: list[str] | None = None,
    effects: list[HookEffect] | None = None,
    field_problems: list[Problem] | None = None,
    offered: list[str] | None = None,
) -> tuple[dict[str, Any], list[OperationSource]]:
    """Generate the OpenAPI document of one group/version.

    ``urlconf`` is the URLconf to generate from (``None``: ``ROOT_URLCONF``); ``index``
    is its :class:`UrlIndex` (the registry keeps one per URLconf); without it the
    URLconf is walked first. The URLconf also resolves the paths of
    ``NamespaceVersioning`` views (drf-spectacular resolves them against the
    enumerator's patterns), so a middleware's ``request.urlconf`` must be given here.

    drf-spectacular's warnings and errors are not printed: each is appended to ``messages``
    (when given) as drf-spectacular words it, with the view's file and name in front
    (``"/app/views.py: Warning [ProductViewSet]: unable to guess serializer..."``), once.
    What the ``PREPROCESSING_HOOKS`` dropped or rewrote of the group's endpoints is appended to
    ``effects`` (when given; see :meth:`_IndexedEndpointEnumerator.get_api_endpoints`), and the
    fields left out of an operation's arguments (``mcp_bridge.W024``) to ``field_problems``.
    ``offered`` (when given) gets ``"METHOD path"`` of every endpoint of the group handed to
    drf-spectacular, so that a caller can name what it left out of the document.
    An operation that cannot be described raises :class:`OperationFailure`, naming its view
    and the step that failed.

    Returns:
        ``(document, sources)``: the OpenAPI document (drf-spectacular's
        ``get_schema()`` output, post-processing hooks applied) and one
        :class:`OperationSource` per operation, with ``operation`` set to the
        operation object of the document.
    """
    patches = {**bridge_settings.SPECTACULAR_SETTINGS, **_REQUIRED_SPECTACULAR_SETTINGS}
    # Private drf-spectacular API: GENERATOR_STATS keeps the messages of one get_schema()
    # (reset at its start) in _warn_cache/_error_cache (tests/test_private_apis.py).
    # bridge_generation: what drf-spectacular 0.28/0.29 describe less exactly than 0.30
    # (mcp_bridge.build.spectacular_compat), for the bridge's build only.
    # remembered_lookups: drf-spectacular's extension lookups, worked out once per class
    # (mcp_bridge.build.extension_lookup).
    with (
        patched_settings(patches),
        GENERATOR_STATS.silence(),
        bridge_generation(),
        remembered_lookups(),
        _traces_kept_clean(),
    ):
        generator = GroupSchemaGenerator(
            group, api_version=api_version, urlconf=urlconf, index=index
        )
        document = generator.get_schema(request=None, public=True)
        if messages is not None:
            messages += [*GENERATOR_STATS._error_cache, *GENERATOR_STATS._warn_cache]
    if effects is not None and isinstance(generator.inspector, _IndexedEndpointEnumerator):
        effects += generator.inspector.hook_effects
    if field_problems is not None:
        field_problems += generator.field_problems
    if offered is not None and isinstance(generator.inspector, _IndexedEndpointEnumerator):
        offered += [f"{method} {path}" for path, _, method, _ in generator.inspector.enumerated]
    for source in generator.sources:
        source.operation = document["paths"][source.path][source.method.lower()]
    return document, generator.sources


@contextmanager
def _traces_kept_clean() -> Iterator[None]:
    """Leave drf-spectacular's trace stack as it was, whatever the block raised.

    drf-spectacular's ``add_trace_message`` pops its entry only when its block ends without an
    exception, so a view that fails to generate would prefix every later warning of the
    process with its name. Private drf-spectacular API: ``GENERATOR_STATS._traces``
    (tests/test_private_apis.py; without it tests/test_build_shapes.py leaves traces behind).
    """
    depth = len(GENERATOR_STATS._traces)
    try:
        yield
    finally:
        del GENERATOR_STATS._traces[depth:]


def generate_whole_schema(api_version: str | None = None, urlconf: Any = None) -> dict[str, Any]:
    """The OpenAPI document of the whole API (every view, as ``manage.py spectacular`` makes it,
    with the bridge's required settings), for :func:`borrow_components`. Its messages are not
    reported: each group's own generation reports those of its views."""
    patches = {**bridge_settings.SPECTACULAR_SETTINGS, **_REQUIRED_SPECTACULAR_SETTINGS}
    with patched_settings(patches), GENERATOR_STATS.silence():
        generator = SchemaGenerator(urlconf=urlconf, api_version=api_version)
        return generator.get_schema(request=None, public=True)


def drop_undescribed_fields(
    document: dict[str, Any], refs: set[str] | None = None
) -> list[tuple[str, str]]:
    """Take out of ``document``, in place, every field whose schema is not a schema, and return
    ``(where, what)`` for each: ``where`` a JSON pointer into the document. ``refs`` (when
    given) gets every ``$ref`` value of the document on the way, for :func:`dangling_refs`.

    drf-spectacular (or a project's ``POSTPROCESSING_HOOKS`` entry) can leave ``None`` where a
    property, an array's ``items`` or a parameter's schema belongs. JSON Schema's schemas are
    objects and booleans: anything else is dropped (a property, also from its ``required``
    list), and a parameter keeps an empty schema, so that it costs that field and never the
    tool that holds it.
    """
    dropped: list[tuple[str, str]] = []
    # (where, node, whether the node maps names to schemas: its keys are names, never keywords).
    # ``where`` is the node's parent's entry and its own key, made a JSON pointer only for a
    # dropped field: formatting one for each of a big group's ~60,000 nodes cost more than the
    # walk.
    stack: list[tuple[Any, Any, bool]] = [(None, document, False)]
    while stack:
        where, node, name_map = stack.pop()
        if isinstance(node, list):
            stack.extend(
                ((where, i), item, False)
                for i, item in enumerate(node)
                if isinstance(item, (dict, list))
            )
            continue
        if not isinstance(node, dict):
            continue
        if name_map:
            stack.extend(
                ((where, name), value, False)
                for name, value in node.items()
                if isinstance(value, (dict, list))
            )
            continue
        ref = node.get("$ref")
        if refs is not None and isinstance(ref, str):
            refs.add(ref)
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name in [n for n, schema in properties.items() if not _is_schema(schema)]:
                dropped.append((_pointer(where, "properties", name), repr(properties.pop(name))))
                if isinstance(node.get("required"), list) and name in node["required"]:
                    node["required"] = [n for n in node["required"] if n != name]
        if "items" in node and not _is_schema(node["items"]):
            dropped.append((_pointer(where, "items"), repr(node.pop("items"))))
        if "in" in node and "name" in node and "schema" in node and not _is_schema(node["schema"]):
            dropped.append((_pointer(where, "schema"), repr(node["schema"])))
            node["schema"] = {}
        # Only containers can hold a field: the strings, numbers and flags that are most of a
        # document's values are not stacked.
        stack.extend(
            ((where, key), value, key in _NAME_MAPS)
            for key, value in node.items()
            if isinstance(value, (dict, list))
        )
    return dropped


def _pointer(where: Any, *keys: Any) -> str:
    """The JSON pointer (``#/a/b``, unescaped as before) of a node whose place is ``where``
    (``(parent's place, key)`` pairs down from the document, ``None`` at its root), followed
    by ``keys``."""
    parts = [str(key) for key in reversed(keys)]
    while where is not None:
        where, key = where
        parts.append(str(key))
    return "#/" + "/".join(reversed(parts)) if parts else "#"


#: The keys of OpenAPI and JSON Schema whose value maps names (chosen by the project) to schemas.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "schemas"})


def _is_schema(value: Any) -> bool:
    return isinstance(value, (dict, bool))


_COMPONENT_REF = re.compile(r"^#/components/(?P<section>[^/]+)/(?P<name>[^/]+)$")


def dangling_refs(document: dict[str, Any], refs: set[str] | None = None) -> set[tuple[str, str]]:
    """``(section, name)`` of every ``#/components/<section>/<name>`` reference of ``document``
    that names no component of it. ``refs``: the document's ``$ref`` values when already
    gathered (:func:`drop_undescribed_fields`); without them the document is walked."""
    if refs is None:
        refs = set()
        stack: list[Any] = [document]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str):
                    refs.add(ref)
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    components = document.get("components") or {}
    missing = set()
    for ref in refs:
        match = _COMPONENT_REF.match(ref)
        if match and match["name"] not in (components.get(match["section"]) or {}):
            missing.add((match["section"], match["name"]))
    return missing


def borrow_components(document: dict[str, Any], whole: dict[str, Any]) -> list[str]:
    """Copy into ``document`` the components its references name but it lacks, from the whole
    API's document ``whole`` (and those they reference in turn), as a client of the whole
    API's schema would resolve them.

    A ``POSTPROCESSING_HOOKS`` entry may reference components that only some views register
    (an error envelope, a shared enum): a group without those views would hold dangling
    references. Returns the ``#/components/...`` references copied in.
    """
    source = whole.get("components") or {}
    borrowed: list[str] = []
    while True:
        found = [
            (section, name)
            for section, name in sorted(dangling_refs(document))
            if name in (source.get(section) or {})
        ]
        if not found:
            return borrowed
        components = document.setdefault("components", {})
        for section, name in found:
            components.setdefault(section, {})[name] = source[section][name]
            borrowed.append(f"#/components/{section}/{name}")


def discover_groups(urlconf: Any = None) -> dict[str, list[str | None]]:
    """Find every API group of the URLconf and the API versions it is served in.

    Returns:
        ``{group: versions}``, sorted by group. ``versions`` is ``[None]`` for an
        unversioned group; otherwise the versions the group's views allow
        (their versioning class's ``allowed_versions``, or its
        ``default_version`` when any version is allowed), sorted.
    """
    return build_url_index(urlconf).versions
