"""Translated tool texts: the fallback chain field by field, negotiation, caching, errors.

The module has its own URLconf (group ``fb``, and ``other`` sharing one view)
and writes its catalogues into a temporary ``LOCALE_PATHS`` directory, so each
test states exactly which catalogue holds which text. The default language is
``en``; the client's language is ``uk``.
"""

from __future__ import annotations

import json
from pathlib import Path

import polib
import pytest
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import include, path
from django.utils import translation
from django.utils.functional import Promise
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import api_view
from rest_framework.response import Response

from mcp_bridge import api_group, mcp_tool
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.build.openapi import GroupSchemaGenerator
from mcp_bridge.build.translation import (
    DOMAIN,
    catalogue_domain,
    fallback_chain,
    load_catalogue,
    negotiate_language,
    tool_texts,
)
from mcp_bridge.checks import check_catalogues
from mcp_bridge.toolset.registry import get_toolset
from tests.mcp_client import McpClient

CODE_TITLE = "Code title"
CODE_DESCRIPTION = "Code description."
CODE_Q = "Code description of q."
#: A DRF message that DRF's own catalogues translate into Ukrainian.
LAZY_SOURCE = "This field is required."


@api_group("fb", "other")
@mcp_tool(title=CODE_TITLE)
@extend_schema(
    description=CODE_DESCRIPTION,
    responses=OpenApiTypes.OBJECT,
    parameters=[
        OpenApiParameter("q", str, description=CODE_Q),
        OpenApiParameter(
            "mode", str, enum=["fast", "exact"], description="Code description of mode."
        ),
    ],
)
@api_view(["GET"])
def lookup(request):
    return Response({})


@api_group("fb")
@extend_schema(responses=OpenApiTypes.OBJECT)
@api_view(["GET"])
def untitled(request):
    """Code docstring of untitled."""
    return Response({})


@api_group("lazy")
@mcp_tool(title=translation.gettext_lazy(LAZY_SOURCE))
@extend_schema(
    parameters=[OpenApiParameter("x", str, description=translation.gettext_lazy(LAZY_SOURCE))],
    responses=OpenApiTypes.OBJECT,
)
@api_view(["GET"])
def lazy(request):
    return Response({})


urlpatterns = [
    path("lookup/", lookup),
    path("untitled/", untitled),
    path("lazy/", lazy),
    path("mcp/", include("mcp_bridge.urls")),
]

LANGUAGES = [("en", "English"), ("uk", "Ukrainian"), ("de", "German")]

#: Steps 1-4 of the chain as (group or None for base, language) with client uk, default en.
STEPS = {1: ("fb", "uk"), 2: ("fb", "en"), 3: (None, "uk"), 4: (None, "en")}


@pytest.fixture
def locale_dir(tmp_path: Path, settings) -> Path:
    settings.ROOT_URLCONF = __name__
    settings.LANGUAGE_CODE = "en"
    settings.LANGUAGES = LANGUAGES
    settings.LOCALE_PATHS = [tmp_path]
    return tmp_path


def write_catalogue(
    root: Path, language: str, group: str | None, entries: dict[tuple[str, str], str]
) -> Path:
    """Write ``<root>/<language>/LC_MESSAGES/<domain>.po`` and its compiled ``.mo``."""
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": language}
    for (context, msgid), text in entries.items():
        po.append(polib.POEntry(msgctxt=context, msgid=msgid, msgstr=text))
    directory = root / language / "LC_MESSAGES"
    directory.mkdir(parents=True, exist_ok=True)
    po_path = directory / f"{catalogue_domain(group)}.po"
    po.save(str(po_path))
    po.save_as_mofile(str(po_path.with_suffix(".mo")))
    return po_path.with_suffix(".mo")


def texts(tool) -> dict[str, str | None]:
    return {
        "title": tool.title,
        "description": tool.description,
        "argument:q": tool.input_schema["properties"]["q"].get("description"),
        "argument:mode": tool.input_schema["properties"]["mode"].get("description"),
    }


CODE_TEXTS = {
    "title": CODE_TITLE,
    "description": CODE_DESCRIPTION,
    "argument:q": CODE_Q,
    "argument:mode": "Code description of mode.",
}


@pytest.mark.parametrize("field", ["title", "description", "argument:q"])
@pytest.mark.parametrize("step", [1, 2, 3, 4, 5])
def test_each_field_falls_back_step_by_step(locale_dir, field, step):
    # The field is in the catalogues of every step from `step` on; the first of them wins.
    by_catalogue: dict[tuple[str | None, str], dict[tuple[str, str], str]] = {}
    for number, where in STEPS.items():
        if number >= step:
            by_catalogue.setdefault(where, {})[(field, "lookup")] = f"{field} from step {number}"
    for (group, language), entries in by_catalogue.items():
        write_catalogue(locale_dir, language, group, entries)

    tool = get_toolset("fb", None, "uk").by_name["lookup"]

    expected = dict(CODE_TEXTS)
    if step < 5:
        expected[field] = f"{field} from step {step}"
    assert texts(tool) == expected


def test_fields_fall_back_independently(locale_dir):
    write_catalogue(locale_dir, "uk", "fb", {("title", "lookup"): "title from step 1"})
    write_catalogue(locale_dir, "en", "fb", {("argument:mode", "lookup"): "mode from step 2"})
    write_catalogue(
        locale_dir,
        "uk",
        None,
        {("argument:q", "lookup"): "q from step 3", ("title", "lookup"): "title from step 3"},
    )
    write_catalogue(locale_dir, "en", None, {("description", "lookup"): "description from step 4"})

    tool = get_toolset("fb", None, "uk").by_name["lookup"]

    assert texts(tool) == {
        "title": "title from step 1",
        "description": "description from step 4",
        "argument:q": "q from step 3",
        "argument:mode": "mode from step 2",
    }


def test_title_falls_back_to_a_title_made_from_the_tool_name(locale_dir):
    write_catalogue(locale_dir, "uk", None, {("description", "untitled"): "Опис без назви."})

    tool = get_toolset("fb", None, "uk").by_name["untitled"]

    assert tool.title == "Untitled"
    assert tool.description == "Опис без назви."
    assert get_toolset("fb", None, "en").by_name["untitled"].title == "Untitled"


def test_title_from_a_catalogue_replaces_the_name(locale_dir):
    write_catalogue(locale_dir, "en", None, {("title", "untitled"): "Named at last"})

    assert get_toolset("fb", None, "uk").by_name["untitled"].title == "Named at last"
    assert get_toolset("fb", None).by_name["untitled"].title == "Untitled"


def test_a_group_catalogue_is_only_for_its_group(locale_dir):
    write_catalogue(locale_dir, "uk", "fb", {("description", "lookup"): "fb wording"})
    write_catalogue(locale_dir, "uk", None, {("description", "lookup"): "base wording"})

    assert get_toolset("fb", None, "uk").by_name["lookup"].description == "fb wording"
    assert get_toolset("other", None, "uk").by_name["lookup"].description == "base wording"


def test_the_default_language_ignores_other_languages(locale_dir):
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Пошук"})

    assert get_toolset("fb", None, "en").by_name["lookup"].title == CODE_TITLE
    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "Пошук"


def test_a_language_without_catalogues_gets_the_default_language_texts(locale_dir):
    write_catalogue(locale_dir, "en", None, {("title", "lookup"): "English catalogue title"})

    assert get_toolset("fb", None, "de").by_name["lookup"].title == "English catalogue title"


def test_empty_translations_are_missing_translations(locale_dir):
    write_catalogue(locale_dir, "uk", "fb", {("title", "lookup"): ""})
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "from base"})

    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "from base"


def test_fallback_chain_order_and_deduplication(settings):
    settings.LANGUAGE_CODE = "en"
    assert fallback_chain("mcp", "uk") == [
        ("mcp_tools.mcp", "uk"),
        ("mcp_tools.mcp", "en"),
        ("mcp_tools", "uk"),
        ("mcp_tools", "en"),
    ]
    assert fallback_chain("mcp", "en") == [("mcp_tools.mcp", "en"), ("mcp_tools", "en")]


def test_only_texts_change(locale_dir):
    write_catalogue(
        locale_dir,
        "uk",
        None,
        {
            ("title", "lookup"): "Т",
            ("description", "lookup"): "О",
            ("argument:mode", "lookup"): "Режим",
        },
    )
    base = get_toolset("fb", None).by_name["lookup"]
    translated = get_toolset("fb", None, "uk").by_name["lookup"]

    assert translated is not base
    # The same enum object, values only (null: the optional query parameter is "not given").
    assert (
        translated.input_schema["properties"]["mode"]["enum"]
        is base.input_schema["properties"]["mode"]["enum"]
    )
    assert translated.input_schema["properties"]["mode"]["enum"] == ["exact", "fast", None]
    assert translated.input_schema["properties"]["mode"]["description"] == "Режим"
    # The untranslated tool is left alone.
    assert base.input_schema["properties"]["mode"]["description"] == "Code description of mode."
    # A translated label is never an accepted value: validation is the code's.
    assert list(translated.validator.iter_errors({"mode": "Режим"}))
    assert not list(translated.validator.iter_errors({"mode": "fast"}))
    assert _strip_texts(base.as_mcp("2025-11-25")) == _strip_texts(translated.as_mcp("2025-11-25"))


def _strip_texts(tool: dict) -> dict:
    tool = {k: v for k, v in tool.items() if k not in ("title", "description")}
    schema = dict(tool["inputSchema"])
    schema["properties"] = {
        name: {k: v for k, v in prop.items() if k != "description"}
        for name, prop in schema["properties"].items()
    }
    tool["inputSchema"] = schema
    return tool


def test_tool_texts_lists_every_translatable_text(locale_dir):
    tool = get_toolset("fb", None).by_name["lookup"]
    assert [(t.context, t.tool, t.source) for t in tool_texts(tool)] == [
        ("title", "lookup", CODE_TITLE),
        ("description", "lookup", CODE_DESCRIPTION),
        # drf-spectacular sorts query parameters by name.
        ("argument:mode", "lookup", "Code description of mode."),
        ("argument:q", "lookup", CODE_Q),
    ]


# --- caching and the generator -------------------------------------------------------------


@pytest.fixture
def generator_runs(monkeypatch) -> list[str]:
    """Counts drf-spectacular runs: every call of the group generator's ``get_schema``."""
    runs: list[str] = []
    original = GroupSchemaGenerator.get_schema

    def counting(self, *args, **kwargs):
        runs.append(self.group)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(GroupSchemaGenerator, "get_schema", counting)
    return runs


def test_the_generator_runs_once_per_group_whatever_the_languages(locale_dir, generator_runs):
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Пошук"})
    write_catalogue(locale_dir, "de", None, {("title", "lookup"): "Suche"})

    titles = [
        get_toolset("fb", None, language).by_name["lookup"].title
        for language in ("en", "uk", "de", "uk", "en")
    ]
    get_toolset("fb", None)

    assert titles == [CODE_TITLE, "Пошук", "Suche", "Пошук", CODE_TITLE]
    assert generator_runs == ["fb"]
    get_toolset("other", None, "uk")
    assert generator_runs == ["fb", "other"]


def test_each_language_copy_is_built_once(locale_dir):
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Перша"})
    assert get_toolset("fb", None, "uk") is get_toolset("fb", None, "uk")
    assert get_toolset("fb", None, "uk") is not get_toolset("fb", None, "de")


def test_a_language_without_catalogues_gets_the_untranslated_set_itself(locale_dir):
    # No copy is made when no catalogue of the chain exists: every text is the code's.
    assert get_toolset("fb", None, "de") is get_toolset("fb", None)


def test_changing_locale_paths_reloads_the_catalogues(
    locale_dir, tmp_path_factory, settings, generator_runs
):
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Перша"})
    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "Перша"
    elsewhere = tmp_path_factory.mktemp("other_locale")
    write_catalogue(elsewhere, "uk", None, {("title", "lookup"): "Друга"})

    settings.LOCALE_PATHS = [elsewhere]

    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "Друга"
    assert generator_runs == ["fb"]


def test_lazy_texts_are_evaluated_once_in_the_default_language(locale_dir):
    with translation.override("uk"):
        assert (
            translation.gettext(LAZY_SOURCE) != LAZY_SOURCE
        )  # DRF translates it: the test means something
        toolsets = {language: get_toolset("lazy", None, language) for language in ("uk", "en")}
    for toolset in toolsets.values():
        tool = toolset.by_name["lazy"]
        assert type(tool.title) is str and tool.title == LAZY_SOURCE
        assert tool.input_schema["properties"]["x"]["description"] == LAZY_SOURCE
        # The standard library's encoder knows nothing of lazy strings: it would raise.
        json.dumps(tool.as_mcp("2025-11-25"))
        assert not _promises(tool.as_mcp("2025-11-25"))


def _promises(value) -> list:
    if isinstance(value, Promise):
        return [value]
    if isinstance(value, dict):
        return [p for v in value.values() for p in _promises(v)]
    if isinstance(value, list):
        return [p for v in value for p in _promises(v)]
    return []


# --- negotiation and headers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept_language", "expected"),
    [
        ("uk", "uk"),
        ("uk-UA,uk;q=0.9,en;q=0.8", "uk"),
        ("de-AT", "de"),
        ("fr-FR,fr;q=0.9", "en"),  # not in LANGUAGES
        ("xx", "en"),  # not a language at all
        ("", "en"),
        ("*", "en"),
    ],
)
def test_negotiation_uses_languages_and_falls_back_to_language_code(
    locale_dir, accept_language, expected
):
    request = RequestFactory().post("/mcp/fb/", HTTP_ACCEPT_LANGUAGE=accept_language)
    assert negotiate_language(request) == expected


@pytest.fixture
def fb(locale_dir, db) -> McpClient:
    from django.test import Client

    return McpClient(Client(), "/mcp/fb/")


def test_the_endpoint_answers_in_the_negotiated_language(fb, locale_dir):
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Пошук"})

    uk = fb.request("tools/list", id=1, **{"Accept-Language": "uk-UA,uk;q=0.9"})
    unknown = fb.request("tools/list", id=1, **{"Accept-Language": "fr"})

    assert uk["Content-Language"] == "uk"
    assert unknown["Content-Language"] == "en"
    for response in (uk, unknown):
        assert "Accept-Language" in [v.strip() for v in response["Vary"].split(",")]
    titles = {
        r: {t["name"]: t["title"] for t in resp.json()["result"]["tools"]}
        for r, resp in (("uk", uk), ("fr", unknown))
    }
    assert titles == {
        "uk": {"lookup": "Пошук", "untitled": "Untitled"},
        "fr": {"lookup": CODE_TITLE, "untitled": "Untitled"},
    }


def test_error_responses_carry_the_language_headers_too(fb):
    response = fb.client.get("/mcp/fb/", HTTP_ACCEPT_LANGUAGE="de")
    assert response.status_code == 405
    assert response["Content-Language"] == "de"
    assert "Accept-Language" in response["Vary"]


# --- broken catalogues ---------------------------------------------------------------------


CORRUPT_FILES = {
    "bad magic number": b"this is not a gettext catalogue at all",
    "truncated header": b"\xde\x12\x04\x95\x00\x00",
    "offsets past the end": b"\xde\x12\x04\x95"
    + b"\x00" * 4
    + b"\x05\x00\x00\x00"
    + b"\x1c\x00\x00\x00" * 2
    + b"\x00" * 12,
}


@pytest.mark.parametrize("content", CORRUPT_FILES.values(), ids=CORRUPT_FILES.keys())
def test_a_broken_catalogue_is_an_error_naming_the_file(locale_dir, content):
    broken = locale_dir / "uk" / "LC_MESSAGES" / f"{DOMAIN}.mo"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(content)

    with pytest.raises(ToolSetError) as raised:
        get_toolset("fb", None, "uk")

    assert [problem.id for problem in raised.value.problems] == ["mcp_bridge.E006"]
    assert str(broken) in str(raised.value)
    # Languages whose chain does not include the file are not affected.
    assert get_toolset("fb", None, "de").by_name["lookup"].title == CODE_TITLE
    messages = check_catalogues()
    assert [(m.id, m.obj) for m in messages] == [("mcp_bridge.E006", str(broken))]
    assert str(broken) in messages[0].msg


def test_a_broken_catalogue_makes_the_endpoint_fail_loudly(fb, locale_dir, settings):
    settings.DEBUG = True
    broken = locale_dir / "uk" / "LC_MESSAGES" / f"{catalogue_domain('fb')}.mo"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"garbage")

    response = fb.request("tools/list", id=1, **{"Accept-Language": "uk"})

    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == -32603
    assert [p["id"] for p in error["data"]["problems"]] == ["mcp_bridge.E006"]
    assert str(broken) in error["data"]["problems"][0]["message"]


def test_checks_warn_about_unknown_groups_and_uncompiled_catalogues(locale_dir):
    typo = write_catalogue(locale_dir, "uk", "fbb", {("title", "lookup"): "x"})
    uncompiled = write_catalogue(locale_dir, "de", None, {("title", "lookup"): "x"}).with_suffix(
        ".po"
    )
    uncompiled.with_suffix(".mo").unlink()

    messages = check_catalogues()

    assert sorted((m.id, m.obj) for m in messages) == [
        ("mcp_bridge.W001", str(typo)),
        ("mcp_bridge.W002", str(uncompiled)),
    ]


def test_manage_py_check_runs_the_catalogue_check(locale_dir):
    broken = locale_dir / "uk" / "LC_MESSAGES" / f"{DOMAIN}.mo"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"garbage")
    from django.core.management.base import SystemCheckError

    with pytest.raises(SystemCheckError, match="mcp_bridge.E006"):
        call_command("check", tags=["translation"])


def test_load_catalogue_reads_contexts(locale_dir):
    path = write_catalogue(
        locale_dir, "uk", None, {("title", "lookup"): "Пошук", ("description", "lookup"): ""}
    )
    catalogue = load_catalogue(path)
    assert catalogue.lookup("title", "lookup") == "Пошук"
    assert catalogue.lookup("description", "lookup") is None
    assert catalogue.lookup("title", "missing") is None
    assert catalogue.messages() == {("title", "lookup"): "Пошук"}


def test_mcp_tools_previews_the_texts_of_a_language(locale_dir):
    import io

    from django.core.management.base import CommandError

    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Пошук"})
    out = io.StringIO()

    call_command("mcp_tools", "fb", "--language", "uk-UA", "--json", stdout=out)

    assert {t["name"]: t["title"] for t in json.loads(out.getvalue())["tools"]} == {
        "lookup": "Пошук",
        "untitled": "Untitled",
    }
    with pytest.raises(CommandError, match="'fr'"):
        call_command("mcp_tools", "fb", "--language", "fr", stdout=io.StringIO())


def test_a_recompiled_catalogue_shows_up_after_the_autoreloader_reports_it(
    locale_dir, generator_runs
):
    from django.utils.autoreload import file_changed

    path = write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Перша"})
    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "Перша"
    write_catalogue(locale_dir, "uk", None, {("title", "lookup"): "Друга"})
    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "Перша"  # cached until told

    file_changed.send(sender=None, file_path=path)

    assert get_toolset("fb", None, "uk").by_name["lookup"].title == "Друга"
    assert generator_runs == ["fb"]


def test_a_regional_language_falls_back_to_its_base_language(locale_dir, settings):
    settings.LANGUAGES = [*LANGUAGES, ("de-at", "Austrian German")]
    write_catalogue(locale_dir, "de_AT", None, {("title", "lookup"): "Suche (AT)"})
    write_catalogue(
        locale_dir,
        "de",
        None,
        {("title", "lookup"): "Suche", ("description", "lookup"): "Beschreibung"},
    )

    tool = get_toolset("fb", None, "de-at").by_name["lookup"]

    assert (tool.title, tool.description) == ("Suche (AT)", "Beschreibung")
    assert get_toolset("fb", None, "de").by_name["lookup"].title == "Suche"
