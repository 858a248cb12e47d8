"""The tool set of one group/version: built once, cached, checked.

:func:`get_toolset` runs the pipeline (drf-spectacular → OpenRPC methods → MCP
tools) the first time a group/version is asked for, and keeps the result for
the life of the process. The cache is dropped when a setting that shapes the
tools changes (``setting_changed``, so ``override_settings`` works in tests).

Building also validates: an invalid tool name (E001), a duplicate name (E002), a
name strict clients refuse with ``PORTABLE_TOOL_NAMES = "error"`` (E010), an
argument-name collision (E003), a generation failure (E004), a schema that is not
valid JSON Schema (E005), a reference to a missing component (E020: one that the
group's document lacks is first looked up in the whole API's components, as a client of
the whole schema would resolve it), a ``$ref`` that does not resolve inside its tool (E021)
or ``PREPROCESSING_HOOKS`` that leave the group no operation (E022) makes the build raise
:class:`~mcp_bridge.base.errors.ToolSetError`. The failure is cached too, so
every request to that endpoint answers HTTP 500 until the code is fixed;
other groups are unaffected. Problems that leave the tools usable (a tool that
can never succeed, W020; a hook that drops or rewrites some operations, W021, W022, also
logged when the group is built) do not stop the build: they are kept in
:attr:`ToolSet.warnings` for the system checks.

A process that has not built a group yet loads it from the build store when another
process (or ``manage.py mcp_build``) stored it there, and stores what it builds
(:mod:`mcp_bridge.store.builds`).

``get_toolset(group, version, language)`` returns a per-language copy whose
texts come from the gettext catalogues (:mod:`mcp_bridge.build.translation`); the
copy is derived from the one build, so the generator never runs per language.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_urlconf
from django.utils import translation
from drf_spectacular.settings import spectacular_settings
from jsonschema.exceptions import SchemaError
from rest_framework.settings import api_settings

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem, ToolSetError
from mcp_bridge.base.garbage import collection_deferred
from mcp_bridge.base.limits import shorten
from mcp_bridge.build.naming import MCP_NAME_PATTERN, check_names
from mcp_bridge.build.openapi import (
    GET_OPERATION,
    HookEffect,
    OperationFailure,
    UrlIndex,
    borrow_components,
    build_url_index,
    dangling_refs,
    drop_undescribed_fields,
    generate_group_schema,
    generate_whole_schema,
)
from mcp_bridge.build.openrpc import Method, build_document, build_methods, convert_components
from mcp_bridge.build.preflight import configuration_problems, spectacular_problems
from mcp_bridge.build.resources import ResourceTemplate, resource_templates
from mcp_bridge.build.texts import trimmed_components
from mcp_bridge.build.tools import Tool, build_tool, declares_output_schema
from mcp_bridge.build.translation import (
    catalogue_fingerprint,
    default_language,
    translate_toolset,
    translated_copy,
)
from mcp_bridge.discovery.index import (
    SearchIndex,
    ToolText,
    build_index,
    stems_alike,
    tool_texts,
)
from mcp_bridge.discovery.metatools import MetaTool, search_listing
from mcp_bridge.discovery.modes import Discovery, decide, find_discovery_problems
from mcp_bridge.discovery.semantic import configured_embedder, configured_model, reads_language
from mcp_bridge.schemas.conversion import MissingReference, unresolved_refs
from mcp_bridge.schemas.profiles import convert_document
from mcp_bridge.schemas.validators import check_schema
from mcp_bridge.store.builds import load_or_build
from mcp_bridge.store.packing import PackedDocument

logger = logging.getLogger("mcp_bridge.toolset")

#: MCP spec 2025-11-25, "Tools" → "Tool names" (see :mod:`mcp_bridge.build.naming`).
TOOL_NAME_PATTERN = MCP_NAME_PATTERN

#: Settings whose change invalidates built tool sets.
_WATCHED_SETTINGS = {
    "MCP_BRIDGE",
    "REST_FRAMEWORK",
    "SPECTACULAR_SETTINGS",
    "ROOT_URLCONF",
    "DEBUG",
    "LANGUAGE_CODE",
}


@dataclass
class ToolSet:
    """The published tools of one group/version.

    Attributes:
        group, version: the endpoint (``version`` is ``None`` when unversioned).
        tools: sorted by name; ``tools/list`` pages through this order.
        by_name: the same tools, by name.
        methods: the OpenRPC-style methods the tools were built from.
        openrpc: the OpenRPC document of the group/version (a property: a loaded build
            keeps it packed until it is read).
        pages: ``tools/list`` pages already encoded, filled by the dispatcher; a copy
            made with ``dataclasses.replace`` (a translation) starts empty.
        warnings: the build's problems that do not stop it (``mcp_bridge.W010``, a tool name
            strict clients refuse; ``mcp_bridge.W020``, a tool that can never succeed),
            reported by ``manage.py check`` as warnings.
        documents: ``openrpc`` written in each schema profile asked for so far
            (:meth:`openrpc_in`).
        visibility: how the call pipeline tells which tools a caller may use
            (:mod:`mcp_bridge.toolcall.visibility`), made on the first ``tools/list``.
        discovery: how ``tools/list`` presents the group (:mod:`mcp_bridge.discovery.modes`),
            decided once per build: a translated copy shares it.
        search_indexes: ``{language: SearchIndex}``
            (:class:`~mcp_bridge.discovery.index.SearchIndex`) of these tools, each made on the
            first search in that language (:meth:`index`), or taken from ``prebuilt_indexes``:
            plain data, kept with the tool set.
        prebuilt_indexes: ``{language: (catalogue fingerprint, SearchIndex)}``: the indexes
            of the translated copies that the build made (:meth:`build_search_indexes`), stored
            with it; shared by its copies, which take theirs from it while the catalogues it
            was made from are unchanged
            (:func:`~mcp_bridge.build.translation.catalogue_fingerprint`).
    """

    group: str
    version: str | None
    tools: list[Tool]
    by_name: dict[str, Tool]
    methods: list[Method]
    # The OpenRPC document, or a loaded build's packed copy of it (see the openrpc property).
    _openrpc: dict[str, Any] | PackedDocument
    pages: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    #: Problems that do not stop the build (``mcp_bridge.W0xx``): system check warnings.
    warnings: list[Problem] = field(default_factory=list, init=False, repr=False, compare=False)
    documents: dict[str, dict[str, Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    visibility: Any = field(default=None, init=False, repr=False, compare=False)
    discovery: Discovery = field(default_factory=Discovery, repr=False, compare=False)
    #: ``{tool name: the links of its MCP App record}`` (:mod:`mcp_bridge.ui.links`), made on
    #: first use, per copy (the linked tools' titles are the copy's language).
    app_links: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    #: The language of a translated copy (``None``: the build's own texts): the meta-tools'
    #: texts of search mode are made in it (:mod:`mcp_bridge.discovery.metatools`).
    language: str | None = field(default=None, repr=False, compare=False)
    # Passed on by dataclasses.replace: a translated copy reads the build's.
    prebuilt_indexes: dict[str | None, tuple[str, SearchIndex]] = field(
        default_factory=dict, repr=False, compare=False
    )
    search_indexes: dict[str | None, SearchIndex] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # What tools/list holds, and the meta-tools by name: made once per copy (the pinned
    # tools' texts are the copy's language).
    _listed: list[Tool | MetaTool] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _meta: dict[str, MetaTool] = field(default_factory=dict, init=False, repr=False, compare=False)
    # The resource templates and direct resources, made once per copy (their texts are the
    # tools' of the copy's language: mcp_bridge.build.resources).
    _resources: list[ResourceTemplate] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: Search answers' tool entries, made once per tool, revision and profile (the call
    #: layer's :mod:`mcp_bridge.toolcall.meta_tools` fills it).
    search_entries: dict[Any, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    #: ``{tool name: its file arguments}`` of the upload tools (a form body with a file field,
    #: :mod:`mcp_bridge.toolcall.uploads`); empty when the group has none. Made by the build
    #: and stored with it, so that a loaded group answers it without unpacking its tools; the
    #: endpoint reads a larger body for such a group (:mod:`mcp_bridge.transport.bodies`).
    file_arguments: dict[str, tuple[str, ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __getstate__(self) -> dict[str, Any]:
        """What a stored build keeps (:mod:`mcp_bridge.store.builds`): everything but what
        requests made in this process, which the loading process makes again on first use:
        the visibility plan (it holds the URL patterns' view callbacks) and the search-mode
        listing with its meta-tools and search entries (compiled validators); the OpenRPC
        document is kept packed until it is read (:attr:`openrpc`)."""
        state = self.__dict__.copy()
        # Packed: only openrpc.json reads it, and a loaded group would otherwise hold as much
        # again as its tools (1.1 MB of 12 for 1,000 operations) for a document seldom asked for.
        if not isinstance(self._openrpc, PackedDocument):
            state["_openrpc"] = PackedDocument(self._openrpc)
        state["visibility"] = None
        state["_listed"] = None
        state["_resources"] = None
        state["_meta"] = {}
        state["search_entries"] = {}
        state["app_links"] = {}
        return state

    @property
    def openrpc(self) -> dict[str, Any]:
        """The OpenRPC document of the group/version; a loaded build's is unpacked on its
        first read (``openrpc.json``)."""
        document = self._openrpc
        if isinstance(document, PackedDocument):
            document = self._openrpc = document.unpacked()
        return document

    def listed_tools(self) -> list[Tool | MetaTool]:
        """What ``tools/list`` holds: every tool (direct mode), or the pinned tools and the
        discovery meta-tools (search mode)."""
        listed = self._listed
        if listed is None:
            if self.discovery.search:
                listed = search_listing(self.group, self.tools, self.language)
                self._meta = {meta.name: meta for meta in listed if isinstance(meta, MetaTool)}
            else:
                listed = list(self.tools)
            self._listed = listed
        return listed

    def resources(self) -> list[ResourceTemplate]:
        """The tools that are also resources (:mod:`mcp_bridge.build.resources`), in the
        tools' order: resource templates, and direct resources (no variables)."""
        resources = self._resources
        if resources is None:
            resources = self._resources = resource_templates(self.group, self.tools)
        return resources

    def meta_tool(self, name: Any) -> MetaTool | None:
        """The discovery meta-tool called ``name`` (search mode only), else ``None``."""
        if not self.discovery.search:
            return None
        if self._listed is None:
            self.listed_tools()
        return self._meta.get(name) if isinstance(name, str) else None

    def index(self, language: str | None = None) -> SearchIndex:
        """The search index of these tools for a caller of ``language`` (the negotiated
        language; ``None`` or ``LANGUAGE_CODE``: the source texts only), built on first use,
        with the ``SEARCH_SYNONYMS`` of the group and of ``"*"``."""
        if language == settings.LANGUAGE_CODE:
            language = None
        index = self.search_indexes.get(language)
        if index is None or not _embedded_as_configured(index, language):
            index = self._prebuilt_index(language)
            if index is None:
                index = self._build_index(self.tools, language)
            self.search_indexes[language] = index
        return index

    def _build_index(
        self, tools: list[Tool], language: str | None, texts: list[ToolText] | None = None
    ) -> SearchIndex:
        """A search index of ``tools`` (whose :func:`tool_texts` are ``texts`` when given), with
        their vectors when semantic search is on (``SEARCH_EMBEDDING_MODEL``) for ``language``
        (``SEARCH_EMBEDDING_LANGUAGES``)."""
        embed = configured_embedder() if reads_language(language) else None
        model = (configured_model() or "") if embed is not None else ""
        return build_index(tools, self._synonyms(), language, embed=embed, model=model, texts=texts)

    def _synonyms(self) -> dict[str, Any]:
        synonyms = bridge_settings.SEARCH_SYNONYMS
        return {**synonyms.get("*", {}), **synonyms.get(self.group, {})}

    def _prebuilt_index(self, language: str | None) -> SearchIndex | None:
        entry = self.prebuilt_indexes.get(language)
        if entry is None:
            return None
        fingerprint, index = entry
        if fingerprint != catalogue_fingerprint(self.group, language or settings.LANGUAGE_CODE):
            return None  # a catalogue changed since the build: indexed again
        if not _embedded_as_configured(index, language):
            return None  # semantic search turned on, off, or to another model: made again
        return index

    def build_search_indexes(self, languages: Iterable[str] = ()) -> list[ToolSetError]:
        """Make, as part of the build, the search indexes a search-mode group's searches read:
        the one of its own texts, and the one of each translated copy a caller gets, for the
        language of a caller who names none (:func:`~mcp_bridge.build.translation.default_language`)
        and for each of ``languages`` (codes of ``LANGUAGES``; ``manage.py mcp_build
        --language``). They are kept with the build, so a stored build carries them and a
        process that loads it searches at once.

        Returns:
            The problems of the languages whose catalogues cannot be read (their endpoints
            answer HTTP 500, as without this); none for a group in direct mode.
        """
        if not self.discovery.search:
            return []
        self.index()
        unreadable = []
        for language in dict.fromkeys([default_language(), *languages]):
            key = None if language == settings.LANGUAGE_CODE else language
            try:
                # Made and dropped: the process's translated copies stay the requests' own.
                copy = translated_copy(self, language)
            except ToolSetError as exc:
                unreadable.append(exc)
                continue
            if copy is self and key is None:
                continue  # its callers search the tool set's own texts: indexed above
            texts = tool_texts(copy.tools, key)
            if self._indexed_alike(texts, language):
                index = self.index()  # one index, kept once in a stored build
            else:
                index = self._build_index(copy.tools, key, texts)
            self.prebuilt_indexes[key] = (catalogue_fingerprint(self.group, language), index)
        return unreadable

    def _indexed_alike(self, texts: list[ToolText], language: str) -> bool:
        """Whether the copy of ``language``, whose tools' texts are ``texts``, would be indexed
        as the tool set's own are: its words stem alike, semantic search covers both or
        neither, and its texts, its models' included, read as the source's. So it is with
        Django's default ``LANGUAGE_CODE``, ``"en-us"``, and the ``"en"`` of ``LANGUAGES`` its
        callers negotiate, when no catalogue of ``en`` translates a text."""
        return (
            stems_alike(language, settings.LANGUAGE_CODE)
            and reads_language(language) == reads_language(None)
            and texts == tool_texts(self.tools)
        )

    def openrpc_in(self, profile: str) -> dict[str, Any]:
        """The OpenRPC document with its schemas written in ``profile``, made once per profile."""
        document = self.documents.get(profile)
        if document is None:
            document = self.documents[profile] = convert_document(self.openrpc, profile)
        return document


def _embedded_as_configured(index: SearchIndex, language: str | None) -> bool:
    """Whether ``index``, of the tool set of ``language``, has the vectors of the configured
    model (none when it is ``None`` or does not read the language)."""
    vectors = index.semantic
    wanted = configured_model() if reads_language(language) else None
    return (vectors.model if vectors is not None else None) == wanted


_lock = threading.RLock()
_toolsets: dict[tuple[Any, str, str | None], ToolSet | ToolSetError] = {}
_indexes: dict[Any, UrlIndex] = {}


def clear_cache() -> None:
    """Forget every built tool set (the next request rebuilds)."""
    with _lock:
        _toolsets.clear()
        _indexes.clear()
        _whole_documents.clear()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in _WATCHED_SETTINGS:
        clear_cache()


def active_urlconf(request: Any = None) -> Any:
    """The active URLconf: what the caches are keyed on.

    During a request, the ``urlconf`` a middleware set on ``request`` or ``ROOT_URLCONF``
    (what Django's handler makes active for it, read without asgiref's thread-local, which
    costs more than the rest of the lookup); otherwise ``get_urlconf()`` or ``ROOT_URLCONF``.
    A caller that asks the registry several things for one request computes it once.
    """
    if request is not None:
        return getattr(request, "urlconf", None) or settings.ROOT_URLCONF
    return get_urlconf() or settings.ROOT_URLCONF


def get_groups() -> dict[str, list[str | None]]:
    """Every API group of the active URLconf and its versions (see :func:`~mcp_bridge.build.openapi.discover_groups`)."""
    return get_url_index().versions


def get_url_index(urlconf_key: Any = None) -> UrlIndex:
    """The :class:`~mcp_bridge.build.openapi.UrlIndex` of a URLconf, built on first use.

    Args:
        urlconf_key: the URLconf (a dotted module path or a module; see
            :func:`active_urlconf`): a middleware's ``request.urlconf`` gets its own index.

    One walk of the URL patterns serves group discovery and the generation of every
    group of that URLconf.
    """
    key = urlconf_key or active_urlconf()
    index = _indexes.get(key)  # read without the lock, as get_toolset does
    if index is None:
        with _lock:
            index = _indexes.get(key)
            if index is None:
                index = _indexes[key] = build_url_index(key)
    return index


class UnknownEndpoint(LookupError):
    """A group, or a version of one, that the active URLconf publishes no endpoint for.

    Its text says what is wrong and which groups or versions exist: the endpoint answers it
    with a 404, a management command with its error.
    """


def known_groups(urlconf_key: Any = None) -> str:
    """The API groups of the URLconf, for a message: ``"catalog, orders"`` or ``"none"``."""
    return ", ".join(get_url_index(urlconf_key).versions) or "none"


def check_groups(groups: Iterable[str], urlconf_key: Any = None) -> None:
    """Refuse the names in ``groups`` that are no API group of the URLconf.

    Raises:
        UnknownEndpoint: naming each unknown group and the known ones.
    """
    known = get_url_index(urlconf_key).versions
    unknown = [group for group in groups if group not in known]
    if unknown:
        raise _unknown_groups(unknown, urlconf_key)


def _unknown_groups(unknown: list[str], urlconf_key: Any) -> UnknownEndpoint:
    listed = ", ".join(shorten(repr(group)) for group in unknown)
    plural = "s" if len(unknown) > 1 else ""
    return UnknownEndpoint(
        f"Unknown API group{plural} {listed}. Known groups: {known_groups(urlconf_key)}."
    )


def resolve_version(group: str, version: str | None = None, urlconf_key: Any = None) -> str | None:
    """The API version the endpoint of ``group`` serves when ``version`` is asked for: the
    one place the endpoint, the explorer, ``openrpc.json`` and every management command decide
    it, so that they agree.

    An unversioned group has one endpoint, without a version. A versioned group serves the
    version asked for, or, when none is, DRF's ``REST_FRAMEWORK["DEFAULT_VERSION"]``, as a REST
    request without a version gets.

    Raises:
        UnknownEndpoint: the group is unknown, a version is asked of an unversioned group,
            the version is not one of the group's, or none is asked and the group has no
            default among its versions.
    """
    # Read on every request: the common answers (the version asked for, the default) first.
    versions = get_url_index(urlconf_key).versions.get(group)
    if versions is None:
        raise _unknown_groups([group], urlconf_key)
    if versions == [None]:
        if version is not None:
            raise UnknownEndpoint(
                f"API group {group!r} is not versioned: it has one endpoint, /{group}/, "
                f"and no version {shorten(repr(version))}."
            )
        return None
    if version is None:
        default = api_settings.DEFAULT_VERSION
        if default in versions:
            return str(default)
        raise UnknownEndpoint(
            f"API group {group!r} is versioned and REST_FRAMEWORK['DEFAULT_VERSION'] "
            f"({default!r}) is not one of its versions: name one of {_named(versions)} "
            f"(the endpoints {', '.join(f'{group}/{v}/' for v in versions if v)})."
        )
    if version not in versions:
        raise UnknownEndpoint(
            f"API group {group!r} has no version {shorten(repr(version))}. "
            f"Versions: {_named(versions)}."
        )
    return version


def _named(versions: list[str | None]) -> str:
    return ", ".join(v for v in versions if v)


def get_toolset(
    group: str, version: str | None = None, language: str | None = None, urlconf_key: Any = None
) -> ToolSet:
    """The tool set of a group/version, built on first use.

    Args:
        group, version: the endpoint.
        language: a language code (see :func:`mcp_bridge.build.translation.negotiate_language`):
            the texts come from the gettext catalogues, per :mod:`mcp_bridge.build.translation`.
            ``None``: the code's own texts.
        urlconf_key: :func:`active_urlconf`, when the caller has it already.

    Raises:
        ToolSetError: the group's tools cannot be built, or a catalogue in the
            language's fallback chain cannot be read (the problems are listed).
    """
    urlconf = urlconf_key or active_urlconf()
    key = (urlconf, group, version)
    # A built set is read without the lock (a dict lookup is atomic); the lock only
    # serialises builds, so that one group is never generated twice at once.
    cached = _toolsets.get(key)
    if cached is None:
        cached = _build_once(key, group, version)
    if isinstance(cached, ToolSetError):
        raise cached
    if language is not None:
        return translate_toolset(cached, language, urlconf)
    return cached


def warm_up() -> list[ToolSetError]:
    """Load (or build) every group and version of the active URLconf now, rather than on
    each one's first request: for a server's worker start-up (docs/deploy.md has the
    Gunicorn recipe). Returns the errors of the groups that cannot be built; they stay
    refused, as they would on a request."""
    failed = []
    for group, versions in get_groups().items():
        for version in versions:
            try:
                get_toolset(group, version)
            except ToolSetError as exc:
                failed.append(exc)
    return failed


def _build_once(
    key: tuple[Any, str, str | None], group: str, version: str | None
) -> ToolSet | ToolSetError:
    with _lock:
        cached = _toolsets.get(key)
        if cached is None:
            urlconf = key[0]
            if configuration_problems():  # E080/E081: the build names them, no store is read
                cached = build_toolset(group, version, urlconf)
            else:
                # From the shared store when another process built it (mcp_bridge.store.builds),
                # else built here and stored for the others; the collector off meanwhile
                # (mcp_bridge.base.garbage), for the store's key and unpickling as for a build.
                with collection_deferred():
                    cached = load_or_build(
                        group,
                        version,
                        urlconf,
                        get_url_index(urlconf),
                        lambda: build_toolset(group, version, urlconf),
                        accept=(ToolSet, ToolSetError),
                    )
            _toolsets[key] = cached
        return cached


def build_toolset(
    group: str, version: str | None, urlconf_key: Any = None
) -> ToolSet | ToolSetError:
    """Build a group/version's tool set now, in this process, without the store or the cache.

    Returns:
        The tool set, or the :class:`ToolSetError` of a group that cannot be built
        (returned, not raised, so that it can be cached and stored like a tool set).
    """
    urlconf = urlconf_key or active_urlconf()
    try:
        # Lazy texts (help_text, gettext_lazy titles) are evaluated once, in the
        # default language, whatever language the triggering request activated;
        # translations are applied per language on top, without regenerating.
        # The collector is off while the build's objects pile up (mcp_bridge.base.garbage).
        with translation.override(settings.LANGUAGE_CODE), collection_deferred():
            return _build(group, version, urlconf)
    except ToolSetError as exc:
        return exc


def _no_tools_problem(group: str, version: str | None, offered: list[str]) -> Problem:
    """``mcp_bridge.W025``: the group's build holds none of its operations.

    Its endpoint would list no tools and say nothing: pretix's whole group once came out empty
    this way (drf-spectacular generated a version that none of its views answers).
    """
    where = f"group {group!r}" + (f", version {version!r}," if version else "")
    left_out = (
        f"drf-spectacular's schema left out {_listed(offered)}"
        if offered
        else "drf-spectacular included none of its URL patterns (a view whose schema is None?)"
    )
    return Problem(
        "mcp_bridge.W025",
        f"The {where} builds no tools: {left_out}. Its endpoint lists no tools.",
        "Look for what drf-spectacular skips: @extend_schema(exclude=True), a view's "
        "`schema = None`, or a version the views do not answer (the versioning class's "
        "ALLOWED_VERSIONS, DEFAULT_VERSION); `manage.py spectacular --api-version ...` shows "
        "the same document. If the group is meant to be empty, remove it.",
        group,
    )


def _dropped_field_problem(group: str, where: str, what: str) -> Problem:
    return Problem(
        "mcp_bridge.W024",
        f"The OpenAPI document of group {group!r} holds {what} at {where}, which is not a "
        f"schema: that field is left out of the tools' arguments and outputSchema.",
        "A POSTPROCESSING_HOOKS entry or a schema extension wrote it: give the field a schema "
        "(an object such as {'type': 'string'}, or {} for any value). The rest of each tool "
        "works as it is.",
    )


def _operation_failure_problem(group: str, failure: OperationFailure) -> Problem:
    """``mcp_bridge.E004`` for one operation that could not be described: the view, the step,
    and a hint that holds for that step."""
    exclude = f"{{'view': '{failure.view_label}', 'methods': ['{failure.method}']}}"
    leave_out = (
        f"or leave the operation out of the group with an exclude rule, "
        f"MCP_BRIDGE['GROUPS'][{group!r}]['exclude'] = [{exclude}], and the rest of the group "
        f"is built."
    )
    if failure.step == GET_OPERATION:
        hint = (
            "drf-spectacular raised this describing the view, with the settings the bridge "
            "requires (COMPONENT_SPLIT_REQUEST=True, among others), so `manage.py spectacular` "
            "with the project's own settings may pass. Fix the view's schema (an "
            "@extend_schema, or an OpenApiSerializerFieldExtension for the field), " + leave_out
        )
    else:
        hint = (
            "This is the bridge's own reading of the view, not drf-spectacular's: "
            "`manage.py spectacular` does not meet it. The traceback of `manage.py mcp_build` "
            "shows the line; report it to mcp_bridge with that traceback, " + leave_out
        )
    return Problem(
        "mcp_bridge.E004",
        f"The schema of group {group!r} could not be generated at {failure}",
        hint,
    )


def _build(group: str, version: str | None, urlconf_key: Any) -> ToolSet:
    setup = configuration_problems()  # E080/E081: named as such, not as a generation failure
    if setup:
        raise ToolSetError(group, version, setup)
    index = get_url_index(urlconf_key)
    if index.membership.problems.get(group):  # a malformed MCP_BRIDGE["GROUPS"] rule (E050)
        raise ToolSetError(group, version, index.membership.problems[group])
    spectacular_messages: list[str] = []
    effects: list[HookEffect] = []
    field_problems: list[Problem] = []
    offered: list[str] = []
    try:
        document, sources = generate_group_schema(
            group,
            api_version=version,
            urlconf=urlconf_key,
            index=index,
            messages=spectacular_messages,
            effects=effects,
            field_problems=field_problems,
            offered=offered,
        )
        refs: set[str] = set()  # the document's $ref values, gathered by the same walk
        dropped = drop_undescribed_fields(document, refs)
        if dangling_refs(document, refs):  # a POSTPROCESSING_HOOKS entry's, most often
            _borrow_from_whole_api(document, version, urlconf_key)
            dropped += drop_undescribed_fields(document)  # those of the borrowed components
        field_problems += [_dropped_field_problem(group, where, what) for where, what in dropped]
    except OperationFailure as exc:
        raise ToolSetError(group, version, [_operation_failure_problem(group, exc)]) from exc
    except Exception as exc:  # the project's schema code can raise anything
        raise ToolSetError(
            group,
            version,
            [
                Problem(
                    "mcp_bridge.E004",
                    f"drf-spectacular could not generate the schema of group {group!r}, outside "
                    f"any one view (its URL walk, or a PREPROCESSING_HOOKS or "
                    f"POSTPROCESSING_HOOKS entry): {type(exc).__name__}: {exc}",
                    "The traceback of `manage.py mcp_build` shows where it was raised. The "
                    "bridge generates with MCP_BRIDGE['SPECTACULAR_SETTINGS'] over "
                    "SPECTACULAR_SETTINGS, so `manage.py spectacular` may not meet it.",
                )
            ],
        ) from exc
    hook_errors, hook_warnings = hook_problems(group, effects, emptied=not sources)
    if hook_errors:
        raise ToolSetError(group, version, hook_errors)
    if not sources:
        hook_warnings.append(_no_tools_problem(group, version, offered))
    components = convert_components(document)
    methods = build_methods(sources, components)
    problems = [problem for method in methods for problem in method.problems]
    name_errors, name_warnings = check_names(
        methods, strict=bridge_settings.PORTABLE_TOOL_NAMES == "error"
    )
    name_warnings += spectacular_problems(spectacular_messages) + field_problems
    problems += name_errors
    tools = []
    checked: set[str] = set()  # subschemas found valid, shared by the tools of the build
    seen: dict[int, Any] = {}  # schema objects already walked (the shared $defs entries)
    shared_defs: dict[
        str, dict[str, Any]
    ] = {}  # $defs entries, one object per component and direction
    refs_of: dict[int, tuple[Any, list[str]]] = {}  # the $ref values of each shared $defs entry
    # The tools' $defs without drf-spectacular's choice-list boilerplate; the OpenRPC
    # document keeps the components as generated (mcp_bridge.build.texts).
    tool_components = trimmed_components(components)
    if not problems:
        for method in methods:
            try:
                tool = build_tool(
                    method,
                    tool_components,
                    shared_defs,
                    output_schema=declares_output_schema(group, method),
                )
            except MissingReference as exc:
                problems.append(_missing_reference_problem(group, method, exc))
                continue
            problems += _check_schemas(tool, checked, seen)
            problems += _check_refs(tool, refs_of)
            tools.append(tool)
    discovery = decide(group, tools) if not problems else Discovery()
    discovery_errors, discovery_warnings = find_discovery_problems(group, version, tools, discovery)
    problems += discovery_errors
    if problems:
        raise ToolSetError(group, version, problems)
    info_version = version or str(spectacular_settings.VERSION or "")
    openrpc = build_document(methods, components, title=f"{group}", version=info_version)
    toolset = ToolSet(
        group,
        version,
        tools,
        {t.name: t for t in tools},
        methods,
        openrpc,
        discovery=discovery,
        file_arguments={
            method.name: files
            for method in methods
            if (files := tuple(param.name for param in method.params if param.file))
        },
    )
    toolset.warnings = (
        name_warnings
        + hook_warnings
        + [warning for method in methods for warning in method.warnings]
        + discovery_warnings
    )
    for warning in hook_warnings:  # the tools differ from the views: said at build time too
        logger.warning("%s", warning.msg)
    # A search-mode group's search indexes (its own texts', its default language's) are part
    # of the build: stored with it, so that no process that loads it pays for them on its first
    # search. A catalogue that cannot be read is its language's endpoint's to report (E006).
    toolset.build_search_indexes()
    return toolset


#: The whole API's OpenAPI document per URLconf and version, generated only when a group's
#: references must be resolved from it (:func:`_borrow_from_whole_api`).
_whole_documents: dict[tuple[Any, str | None], dict[str, Any]] = {}


def _borrow_from_whole_api(document: dict[str, Any], version: str | None, urlconf_key: Any) -> None:
    """Resolve the group's dangling references from the whole API's components (see
    :func:`~mcp_bridge.build.openapi.borrow_components`); those the whole API lacks too
    stay, and are E020."""
    key = (urlconf_key, version)
    whole = _whole_documents.get(key)
    if whole is None:
        try:
            whole = generate_whole_schema(api_version=version, urlconf=urlconf_key)
        except Exception:
            logger.warning(
                "The whole API's schema could not be generated to resolve the references of a "
                "group; they are reported as mcp_bridge.E020.",
                exc_info=True,
            )
            whole = {}
        _whole_documents[key] = whole
    borrow_components(document, whole)


def hook_problems(
    group: str, effects: list[HookEffect], emptied: bool
) -> tuple[list[Problem], list[Problem]]:
    """What ``PREPROCESSING_HOOKS`` did to the group: ``(errors, warnings)``.

    E022 when the hooks left the group none of its operations (``emptied``: it would list no
    tools, silently); else W021 for each hook that dropped some, and W022 for each that
    rewrote paths (the tools keep the URL's own paths, which the URLconf routes).
    """
    fix = (
        "Make the hook keep these endpoints, or give the bridge its own hooks with "
        'MCP_BRIDGE["SPECTACULAR_SETTINGS"] = {"PREPROCESSING_HOOKS": [...]} (applied only to '
        "the MCP tools); to leave operations out of a group on purpose, use an exclude rule of "
        'MCP_BRIDGE["GROUPS"].'
    )
    if emptied and any(effect.dropped for effect in effects):
        dropped = "; ".join(
            f"{effect.hook} drops {_listed(effect.dropped)}" for effect in effects if effect.dropped
        )
        return [
            Problem(
                "mcp_bridge.E022",
                f"Group {group!r} has no operation left after drf-spectacular's PREPROCESSING_HOOKS: "
                f"{dropped}. Its endpoint answers HTTP 500 rather than list no tools.",
                fix,
                group,
            )
        ], []
    warnings = []
    for effect in effects:
        if effect.dropped:
            warnings.append(
                Problem(
                    "mcp_bridge.W021",
                    f"Group {group!r}: the PREPROCESSING_HOOKS entry {effect.hook} drops "
                    f"{_listed(effect.dropped)}; they are not tools.",
                    fix,
                    effect.hook,
                )
            )
        if effect.rewritten:
            warnings.append(
                Problem(
                    "mcp_bridge.W022",
                    f"Group {group!r}: the PREPROCESSING_HOOKS entry {effect.hook} rewrites the "
                    f"paths {_listed(effect.rewritten)}; the tools keep the URL's own paths, "
                    "which the URLconf routes.",
                    "Nothing to do if the rewrite is only for the published OpenAPI document; "
                    'MCP_BRIDGE["SPECTACULAR_SETTINGS"] = {"PREPROCESSING_HOOKS": [...]} gives '
                    "the bridge its own list.",
                    effect.hook,
                )
            )
    return [], warnings


def _listed(items: list[str], most: int = 5) -> str:
    shown = ", ".join(items[:most])
    return f"{shown} and {len(items) - most} more" if len(items) > most else shown


def _missing_reference_problem(group: str, method: Method, exc: MissingReference) -> Problem:
    return Problem(
        "mcp_bridge.E020",
        f"Group {group!r}, tool {method.name!r} ({method.source.view_label}, {method.source.method} "
        f"{method.source.path}): its schema holds the reference {exc.ref!r}, which names no "
        f"component of the group's OpenAPI document nor of the whole API's ({exc}).",
        "Hand-written schemas (@extend_schema(operation=...), request=/responses= dicts, "
        "OpenApiSerializerExtension.map_serializer) and POSTPROCESSING_HOOKS must reference "
        "components that drf-spectacular registers: use a serializer instead of a raw "
        "{'$ref': ...}, or register the component.",
        method.source.culprit,
    )


def _check_refs(tool: Tool, refs_of: dict[int, tuple[Any, list[str]]]) -> list[Problem]:
    """Every ``$ref`` of the tool must resolve inside the tool (the metaschema check does
    not look at what a reference points to)."""
    problems = []
    schemas = (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema))
    for label, schema in schemas:
        missing = unresolved_refs(schema, refs_of) if schema is not None else []
        if missing:
            problems.append(
                Problem(
                    "mcp_bridge.E021",
                    f"The {label} of tool {tool.name!r} ({tool.method.source.view_label}) holds "
                    f"references that do not resolve inside the tool: {', '.join(missing)}.",
                    "A client cannot resolve them either; check the hand-written schemas of this view "
                    "(@extend_schema, OpenApiSerializerExtension) and report the input if they have none.",
                    tool.method.source.culprit,
                )
            )
    return problems


def _check_schemas(tool: Tool, checked: set[str], seen: dict[int, Any]) -> list[Problem]:
    problems = []
    schemas = (
        ("inputSchema", tool.input_schema),
        ("outputSchema", tool.output_schema),
        ("2026-07-28 outputSchema", tool.result_schema),
    )
    for label, schema in schemas:
        if schema is None:
            continue
        try:
            check_schema(schema, checked, seen)
        except SchemaError as exc:
            seen.clear()  # the next tools are walked whole, so that each reports its fault
            problems.append(
                Problem(
                    "mcp_bridge.E005",
                    f"The {label} of tool {tool.name!r} ({tool.method.source.view_label}) is not "
                    f"valid JSON Schema 2020-12: {exc.message}",
                    "Check the serializer fields and @extend_schema overrides of this view.",
                    tool.method.source.culprit,
                )
            )
    return problems


def page_size() -> int | None:
    """Tools per ``tools/list`` page; ``None``: one page."""
    return bridge_settings.PAGE_SIZE
