"""Localised tool texts: gettext catalogues keyed by tool name, negotiated by ``Accept-Language``.

A tool's ``title``, ``description`` and each argument's ``description`` can be
translated, or reworded for agents, in gettext catalogues, without touching the
code. One entry per text (``docs/translation.md`` has the full guide):

* ``msgctxt`` names the field: ``"title"``, ``"description"`` or
  ``"argument:<argument name>"``;
* ``msgid`` is the tool name (``"products_search"``), so one translation
  applies to every API version of the operation;
* ``msgstr`` is the text.

Catalogues are ordinary ``.po``/``.mo`` files in the locale directories Django
uses (``LOCALE_PATHS``, then each installed app's ``locale/``), under two
gettext domains:

* ``mcp_tools`` — the **base** catalogue, for every group:
  ``<locale dir>/<lang>/LC_MESSAGES/mcp_tools.mo``;
* ``mcp_tools.<group>`` — the optional **per-group** catalogue:
  ``<locale dir>/<lang>/LC_MESSAGES/mcp_tools.<group>.mo``. Group names cannot
  contain a dot, so the two never clash, nor with Django's ``django`` domain.

Each field is resolved on its own, first match wins (:func:`fallback_chain`):
group + client language, group + ``LANGUAGE_CODE``, base + client language,
base + ``LANGUAGE_CODE``, then the code's text (``@mcp_tool``,
``extend_schema``, docstring); a title found nowhere is made
from the tool name (``products_list`` → ``Products list``).

Only texts change with the language. A translated tool is a copy of the
untranslated one (:func:`translate_tool`) whose ``inputSchema`` differs in
top-level ``properties.<name>.description`` values only: names, ``$defs``,
``$ref`` targets, ``enum`` values and ``required`` lists are the very same
objects. The schema generator never runs per language: the registry builds a
group/version once (evaluating lazy strings in ``LANGUAGE_CODE``) and
:func:`translate_toolset` derives and caches one copy per language.

The client's language is negotiated with Django's own
:func:`~django.utils.translation.get_language_from_request` (the language
cookie, then ``Accept-Language``, restricted to ``LANGUAGES``; otherwise
``LANGUAGE_CODE``), so ``LocaleMiddleware`` is not required
(:func:`negotiate_language`; the transport labels its answers with the result).

Sources: Django, "Translation" → "How Django discovers translations";
Python's :mod:`gettext` (``.mo`` format, ``pgettext`` contexts); GNU gettext
manual, "Contexts".
"""

from __future__ import annotations

import gettext
import hashlib
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.urls import get_urlconf
from django.utils import translation
from django.utils.autoreload import file_changed
from django.utils.translation import get_language_from_request, to_locale

from mcp_bridge.base.errors import Problem, ToolSetError
from mcp_bridge.build.texts import argument_text, description_from_facts, title_from_facts
from mcp_bridge.build.tools import Tool, with_context, with_file_note

#: The gettext domain of the base catalogue (``mcp_tools.po``/``.mo``).
DOMAIN = "mcp_tools"
#: ``msgctxt`` of a tool's title.
TITLE = "title"
#: ``msgctxt`` of a tool's description.
DESCRIPTION = "description"
#: ``msgctxt`` prefix of an argument's description: ``"argument:q"``.
ARGUMENT_PREFIX = "argument:"

#: Settings that decide which catalogue files exist and which are consulted.
_WATCHED_SETTINGS = {
    "LOCALE_PATHS",
    "INSTALLED_APPS",
    "LANGUAGE_CODE",
    "LANGUAGES",
    "USE_I18N",
    "LANGUAGE_COOKIE_NAME",
}

#: What Python's gettext raises for a file that is not a valid .mo catalogue:
#: bad magic number or corrupt offsets (OSError), truncated header (struct.error),
#: undecodable text or bad Plural-Forms (ValueError), unknown charset (LookupError).
_CORRUPT_CATALOGUE_ERRORS = (OSError, struct.error, ValueError, LookupError)


def catalogue_domain(group: str | None = None) -> str:
    """The gettext domain of a catalogue: ``"mcp_tools"``, or ``"mcp_tools.<group>"`` for one group."""
    return DOMAIN if group is None else f"{DOMAIN}.{group}"


def argument_context(argument: str) -> str:
    """The ``msgctxt`` of an argument's description: ``"argument:<argument>"``."""
    return f"{ARGUMENT_PREFIX}{argument}"


@dataclass(frozen=True)
class ToolText:
    """One translatable text of a tool: a catalogue entry.

    Attributes:
        context: the ``msgctxt``: :data:`TITLE`, :data:`DESCRIPTION` or
            :func:`argument_context`.
        tool: the ``msgid``: the tool name.
        source: the code's text (step 5 of the chain), ``None`` when the code
            has none (an argument without description).
    """

    context: str
    tool: str
    source: str | None


def tool_texts(tool: Tool) -> list[ToolText]:
    """Every translatable text of an untranslated tool, in the order a translator reads them.

    The title, the description, then one entry per argument (top-level
    ``inputSchema`` property), whether or not the code describes it, so that
    translators can also fill in what the code left out.
    """
    texts = [
        ToolText(TITLE, tool.name, tool.title),
        ToolText(DESCRIPTION, tool.name, tool.description or None),
    ]
    for argument, schema in tool.input_schema.get("properties", {}).items():
        description = schema.get("description") if isinstance(schema, dict) else None
        texts.append(ToolText(argument_context(argument), tool.name, description or None))
    return texts


class CatalogueError(ImproperlyConfigured):
    """A catalogue file cannot be read.

    Attributes:
        path: the ``.mo`` file.
        reason: what gettext reported.
    """

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"The gettext catalogue {path} cannot be read: {reason}. Recompile it from its .po "
            f"file (`manage.py mcp_makemessages --compile` or `manage.py compilemessages`)."
        )


class Catalogue(gettext.GNUTranslations):
    """One compiled catalogue (``.mo`` file) of tool texts.

    :meth:`lookup` tells a missing entry from a translation, which
    ``pgettext`` cannot (it answers the msgid for both), and the fallback chain
    needs to know where to go on.

    Attributes:
        path: the file it was read from.
    """

    path: Path

    def lookup(self, context: str, msgid: str) -> str | None:
        """The ``msgstr`` of (``msgctxt``, ``msgid``); ``None`` when missing or empty.

        An empty ``msgstr`` is "not translated", as ``msgfmt`` treats it.
        """
        # GNU gettext stores a context as "<msgctxt>\x04<msgid>" (as Python's pgettext reads it).
        # Private gettext API: _catalog, the parsed .mo, since pgettext() answers the msgid for a
        # missing entry and "missing" must be told apart (tests/test_private_apis.py).
        text = self._catalog.get(f"{context}\x04{msgid}")  # type: ignore[attr-defined]
        return text if isinstance(text, str) and text else None

    def messages(self) -> dict[tuple[str | None, str], str]:
        """Every singular entry with a translation: ``{(msgctxt or None, msgid): msgstr}``.

        The header entry (``msgid ""``) is left out; used to compare a ``.mo``
        with its ``.po``.
        """
        found: dict[tuple[str | None, str], str] = {}
        for key, text in self._catalog.items():  # type: ignore[attr-defined]  # private gettext API, as in lookup()
            if not isinstance(key, str) or not key or not text:
                continue
            context, separator, msgid = key.rpartition("\x04")
            found[(context if separator else None, msgid)] = text
        return found


def load_catalogue(path: Path) -> Catalogue:
    """Read one ``.mo`` file.

    Raises:
        CatalogueError: the file cannot be opened or is not a valid catalogue;
            the message names the file.
    """
    try:
        with open(path, "rb") as fp:
            catalogue = Catalogue(fp)
    except _CORRUPT_CATALOGUE_ERRORS as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CatalogueError(path, f"{type(exc).__name__}: {reason}") from exc
    catalogue.path = path
    return catalogue


def locale_dirs() -> list[Path]:
    """The directories searched for catalogues, highest priority first.

    ``LOCALE_PATHS`` in order, then ``<app>/locale`` of each installed app in
    ``INSTALLED_APPS`` order: the priority Django gives its own catalogues
    ("How Django discovers translations").
    """
    candidates = [Path(path) for path in settings.LOCALE_PATHS]
    candidates += [Path(config.path) / "locale" for config in apps.get_app_configs()]
    return [path for path in dict.fromkeys(candidates) if path.is_dir()]


def catalogue_files(domain: str, language: str) -> list[Path]:
    """The compiled catalogues of ``domain`` in ``language`` (and the variants Django's loader
    tries: ``de-at`` is ``de_AT``, then ``de``), in the search order of :func:`locale_dirs`."""
    global _searched_dirs
    if _searched_dirs is None:  # the same for every (domain, language): listed once
        _searched_dirs = locale_dirs()
    files = []
    for localedir in _searched_dirs:
        # gettext.find expands "de-at" → de_AT, de (and normalized variants), as Django's loader does.
        found = gettext.find(domain, str(localedir), languages=[to_locale(language)], all=True)
        files += [Path(path) for path in found]
    return files


def fallback_chain(group: str, language: str) -> list[tuple[str, str]]:
    """The ``(domain, language)`` catalogues consulted for one text, in order (steps 1-4).

    1. the group's catalogue in the client's language;
    2. the group's catalogue in ``LANGUAGE_CODE``;
    3. the base catalogue in the client's language;
    4. the base catalogue in ``LANGUAGE_CODE``.

    Step 5, the code's text, is not a catalogue. When the client's language is
    ``LANGUAGE_CODE`` the repeated steps are left out.
    """
    default = settings.LANGUAGE_CODE
    group_domain = catalogue_domain(group)
    steps = [
        (group_domain, language),
        (group_domain, default),
        (DOMAIN, language),
        (DOMAIN, default),
    ]
    return list(dict.fromkeys(steps))


class TranslatableToolSet(Protocol):
    """What :func:`translate_toolset` reads of a tool set: the registry's
    :class:`~mcp_bridge.toolset.registry.ToolSet` (a dataclass, copied with
    ``dataclasses.replace``). Translation comes before the tool set in the build, so it names
    the fields it needs rather than importing the registry, which imports it."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def group(self) -> str: ...

    @property
    def version(self) -> str | None: ...

    @property
    def tools(self) -> list[Tool]: ...

    @property
    def discovery(self) -> Any: ...


_ToolSetT = TypeVar("_ToolSetT", bound=TranslatableToolSet)

_lock = threading.RLock()
_searched_dirs: list[Path] | None = None
_catalogues: dict[tuple[str, str], list[Catalogue] | CatalogueError] = {}
#: (urlconf, group, version, language) -> (the untranslated tool set, its translated copy).
_translated: dict[tuple[Any, str, str | None, str], tuple[Any, Any]] = {}


def clear_cache() -> None:
    """Forget every loaded catalogue, translated tool set and negotiated language (the next
    request reloads)."""
    global _searched_dirs
    with _lock:
        _searched_dirs = None
        _catalogues.clear()
        _translated.clear()
        _negotiated.cache_clear()


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting in _WATCHED_SETTINGS:
        clear_cache()


@receiver(file_changed)
def _on_file_changed(*, file_path: Path, **kwargs: Any) -> None:
    # runserver's autoreloader reports recompiled .mo files and, thanks to Django's own
    # receiver, does not restart for them: forget ours too, so a compilemessages shows up.
    if file_path.suffix == ".mo":
        clear_cache()


def _load(domain: str, language: str) -> list[Catalogue]:
    key = (domain, language)
    with _lock:
        loaded = _catalogues.get(key)
        if loaded is None:
            try:
                loaded = [load_catalogue(path) for path in catalogue_files(domain, language)]
            except CatalogueError as exc:
                loaded = exc  # remembered: a broken file is reported on every request, not re-read
            _catalogues[key] = loaded
    if isinstance(loaded, CatalogueError):
        raise loaded
    return loaded


def _chain_lookup(group: str, language: str) -> Callable[[str, str], str | None] | None:
    """``(msgctxt, msgid) -> msgstr or None`` over the group's fallback chain, or ``None``
    when no catalogue of the chain exists."""
    # A file met twice (with client de-at and default de, both steps reach de/) is asked
    # once, at its first place, which is where it would win anyway.
    by_path: dict[Path, Catalogue] = {}
    for domain, step_language in fallback_chain(group, language):
        for catalogue in _load(domain, step_language):
            by_path.setdefault(catalogue.path, catalogue)
    catalogues = list(by_path.values())
    if not catalogues:
        return None

    def lookup(context: str, msgid: str) -> str | None:
        for catalogue in catalogues:
            text = catalogue.lookup(context, msgid)
            if text is not None:
                return text
        return None

    return lookup


def _texts_from_facts(tool: Tool) -> tuple[dict[str, str], dict[str, str]]:
    """The texts the build wrote from the facts (``tool.generated``, ``tool.generated_arguments``),
    written again in the active language: ``({"title": ..., "description": ...}, {argument:
    ...})``. Two dictionaries: an argument may be named ``title`` or ``description``, and keeps
    its own text (an argument whose boilerplate was dropped has none)."""
    facts = tool.facts
    made: dict[str, str] = {}
    title = title_from_facts(facts, tool.name) if TITLE in tool.generated else None
    description = (
        with_file_note(
            with_context(description_from_facts(facts), tool.method.context), tool.method
        )
        if DESCRIPTION in tool.generated
        else None
    )
    if title:
        made[TITLE] = title
    if description:
        made[DESCRIPTION] = description
    arguments: dict[str, str] = {}
    for argument, (kind, original) in tool.generated_arguments.items():
        text = argument_text(kind, original, facts)
        if text is not None:
            arguments[argument] = text
    return made, arguments


def translate_tool(
    tool: Tool, lookup: Callable[[str, str], str | None], *, rewrite_defaults: bool = False
) -> Tool:
    """A copy of ``tool`` with the texts ``lookup`` finds, the code's texts elsewhere.

    Args:
        tool: an untranslated tool (its texts are the code's, step 5).
        lookup: ``(msgctxt, msgid) -> msgstr or None``, e.g. a catalogue chain.
        rewrite_defaults: write the texts the build made from the facts again, in the active
            language (:mod:`mcp_bridge.build.texts`), where ``lookup`` finds none.

    Returns:
        A new :class:`~mcp_bridge.build.tools.Tool`; ``tool`` is not changed. Only
        ``title``, ``description`` and the ``description`` of top-level
        ``inputSchema`` properties can differ; every other value, and every
        nested schema object, is shared with ``tool``.
    """
    made, made_arguments = _texts_from_facts(tool) if rewrite_defaults else ({}, {})
    title = lookup(TITLE, tool.name) or made.get(TITLE) or tool.title or tool.name
    description = lookup(DESCRIPTION, tool.name) or made.get(DESCRIPTION) or tool.description
    properties = tool.input_schema.get("properties", {})
    translated: dict[str, Any] = {}
    for argument, schema in properties.items():
        text = lookup(argument_context(argument), tool.name)
        if text is None:
            text = made_arguments.get(argument)
        if text is not None and isinstance(schema, dict) and schema.get("description") != text:
            schema = {**schema, "description": text}
        translated[argument] = schema
    changes: dict[str, Any] = {"title": title, "description": description}
    if any(translated[name] is not properties[name] for name in properties):
        changes["input_schema"] = {**tool.input_schema, "properties": translated}
    return replace(tool, **changes)


def translate_toolset(toolset: _ToolSetT, language: str, urlconf_key: Any = None) -> _ToolSetT:
    """The tool set with its texts in ``language``, built once per (group, version, language).

    Args:
        toolset: the untranslated tool set of the registry.
        language: a language code, as :func:`negotiate_language` returns it.
            A language without catalogues gets the ``LANGUAGE_CODE`` texts.
        urlconf_key: the active URLconf, when the caller has it already
            (:func:`mcp_bridge.toolset.registry.active_urlconf`).

    Raises:
        ToolSetError: a catalogue of the chain cannot be read (``mcp_bridge.E006``,
            naming the file).
    """
    key = (
        urlconf_key or get_urlconf() or settings.ROOT_URLCONF,
        toolset.group,
        toolset.version,
        language,
    )
    # Read without the lock (a dict lookup is atomic); the lock only serialises the copying.
    cached = _translated.get(key)
    if cached is not None and cached[0] is toolset:
        return cached[1]
    with _lock:
        cached = _translated.get(key)
        # Keyed on the untranslated set's identity too: when the registry rebuilds it
        # (settings or URLconf changed), the copy made from the old one is stale.
        if cached is not None and cached[0] is toolset:
            return cached[1]
        translated = translated_copy(toolset, language)
        _translated[key] = (toolset, translated)
        return translated


def translated_copy(toolset: _ToolSetT, language: str) -> _ToolSetT:
    """The tool set with its texts in ``language``, made now and kept nowhere
    (:func:`translate_toolset` keeps one per language): ``toolset`` itself when every text is
    the code's already.

    Raises:
        ToolSetError: a catalogue of the chain cannot be read (``mcp_bridge.E006``).
    """
    try:
        lookup = _chain_lookup(toolset.group, language)
    except CatalogueError as exc:
        raise ToolSetError(toolset.group, toolset.version, [_catalogue_problem(exc)]) from exc
    # The texts made from the facts are in LANGUAGE_CODE; another language writes them
    # again with its own templates (mcp_bridge's django catalogue) and verbose names.
    other = _other_language(language)
    rewrite = other and any(tool.generated or tool.generated_arguments for tool in toolset.tools)
    if lookup is None and not rewrite:  # every tool text is the code's already
        # In search mode the meta-tools' own texts are in mcp_bridge's catalogue of the
        # language: a copy that only says which language they are made in.
        return (
            replace(toolset, language=language) if other and toolset.discovery.search else toolset
        )
    chain = lookup or _no_entry
    with translation.override(language):
        tools = [translate_tool(tool, chain, rewrite_defaults=rewrite) for tool in toolset.tools]
    return replace(
        toolset, tools=tools, by_name={tool.name: tool for tool in tools}, language=language
    )


def catalogue_fingerprint(group: str, language: str) -> str:
    """A digest of the contents of every catalogue the texts of ``group`` in ``language`` come
    from: the tool-text catalogues of its fallback chain, and the ``django`` catalogues of the
    language (the models' verbose names, the templates of the default texts). What was made from
    them (a search index stored with a build) is stale when it differs."""
    digest = hashlib.sha256()
    sources = [*fallback_chain(group, language), ("django", language)]
    for domain, catalogue_language in sources:
        for path in catalogue_files(domain, catalogue_language):
            digest.update(f"{domain}/{catalogue_language}:".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def default_language() -> str:
    """The language a caller who names none gets (:func:`negotiate_language` without a cookie
    or ``Accept-Language``): ``LANGUAGE_CODE``, or its variant in ``LANGUAGES``."""
    return _negotiated(None, "")


def _no_entry(context: str, msgid: str) -> str | None:
    return None


def _other_language(language: str) -> bool:
    """Whether ``language`` is not the one the build's texts were written in."""
    return to_locale(language).lower() != to_locale(settings.LANGUAGE_CODE).lower()


def _catalogue_problem(exc: CatalogueError) -> Problem:
    return Problem(
        "mcp_bridge.E006",
        str(exc),
        "Recompile the .mo file from its .po (`manage.py mcp_makemessages --compile`), or delete it.",
        str(exc.path),
    )


def negotiate_language(request: HttpRequest) -> str:
    """The language of an MCP request's tool texts: a code of ``LANGUAGES``, or ``LANGUAGE_CODE``.

    Django's :func:`~django.utils.translation.get_language_from_request`
    (without URL-prefix detection): the ``LANGUAGE_COOKIE_NAME`` cookie, then
    ``Accept-Language`` in order of preference (``uk-UA`` matches ``uk``);
    an unknown or missing language gives ``LANGUAGE_CODE``. The result is
    always one of a bounded set, so the per-language caches stay small.

    Django's answer depends on those two values and the settings only, and a
    client sends the same ones on every request: it is remembered per pair
    (256 pairs at most; forgotten when a language setting changes).
    """
    cookie = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return _negotiated(cookie, request.META.get("HTTP_ACCEPT_LANGUAGE", ""))


@lru_cache(maxsize=256)
def _negotiated(cookie: str | None, accept_language: str) -> str:
    probe = HttpRequest()
    if cookie is not None:
        probe.COOKIES[settings.LANGUAGE_COOKIE_NAME] = cookie
    if accept_language:
        probe.META["HTTP_ACCEPT_LANGUAGE"] = accept_language
    return get_language_from_request(probe)


def _catalogue_files_everywhere() -> Iterator[tuple[Path, str | None]]:
    """Every ``mcp_tools`` ``.mo`` file in the locale directories, with its group (``None`` for base)."""
    for localedir in locale_dirs():
        for path in sorted(localedir.glob(f"*/LC_MESSAGES/{DOMAIN}*.mo")):
            domain = path.stem
            if domain == DOMAIN:
                yield path, None
            elif domain.startswith(f"{DOMAIN}."):
                yield path, domain[len(DOMAIN) + 1 :]


def find_catalogue_problems(groups: set[str] | None) -> list[Problem]:
    """Every tool-text catalogue can be read and belongs to a group.

    ``mcp_bridge.E006`` for a ``.mo`` file that cannot be read (the endpoints serving a
    language whose chain includes it answer HTTP 500), ``mcp_bridge.W001`` for a per-group
    catalogue whose group does not exist (a typo in a file name would otherwise be silently
    ignored) and ``mcp_bridge.W002`` for a ``.po`` file that has no compiled ``.mo`` beside it.

    Args:
        groups: the API groups (:func:`mcp_bridge.checks.check_catalogues` asks the registry),
            or ``None`` when they cannot be enumerated: no ``W001`` then.
    """
    problems: list[Problem] = []
    for path, group in _catalogue_files_everywhere():
        try:
            load_catalogue(path)
        except CatalogueError as exc:
            problems.append(_catalogue_problem(exc))
        if group is not None and groups is not None and group not in groups:
            problems.append(
                Problem(
                    "mcp_bridge.W001",
                    f"The catalogue {path} is for API group {group!r}, which does not exist, so it is never used.",
                    f"Rename it after one of the groups ({', '.join(sorted(groups)) or 'none'}): "
                    f"{DOMAIN}.<group>.po / .mo.",
                    str(path),
                )
            )
    for localedir in locale_dirs():
        for po_path in sorted(localedir.glob(f"*/LC_MESSAGES/{DOMAIN}*.po")):
            if not po_path.with_suffix(".mo").exists():
                problems.append(
                    Problem(
                        "mcp_bridge.W002",
                        f"The catalogue {po_path} has no compiled .mo file, so its texts are not used.",
                        "Run `manage.py mcp_makemessages --compile` or `manage.py compilemessages`.",
                        str(po_path),
                    )
                )
    return problems
