"""``manage.py mcp_makemessages``: extraction, updates that keep translations, compilation."""

from __future__ import annotations

import io
from pathlib import Path

import polib
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import include, path

from mcp_bridge.build.translation import load_catalogue, tool_texts
from mcp_bridge.toolset.registry import get_groups, get_toolset

# The demo's groups only: tests.urls also holds groups that are broken on purpose.
urlpatterns = [
    path("api/", include("demo_project.shop.urls")),
    path("mcp/", include("mcp_bridge.urls")),
]


@pytest.fixture(autouse=True)
def demo_urlconf(settings):
    settings.ROOT_URLCONF = __name__


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("mcp_makemessages", *args, stdout=out)
    return out.getvalue()


def expected_keys(groups) -> set[tuple[str, str]]:
    keys = set()
    for group in groups:
        for version in get_groups()[group]:
            for tool in get_toolset(group, version).tools:
                keys |= {(text.context, text.tool) for text in tool_texts(tool)}
    return keys


def entries(path: Path) -> dict[tuple[str, str], polib.POEntry]:
    return {(e.msgctxt, e.msgid): e for e in polib.pofile(str(path)) if not e.obsolete}


def test_the_base_catalogue_has_every_text_of_every_group(tmp_path):
    output = run("-l", "uk", "--locale-dir", str(tmp_path))

    path = tmp_path / "uk" / "LC_MESSAGES" / "mcp_tools.po"
    assert f"{path}: created" in output
    found = entries(path)
    assert set(found) == expected_keys(get_groups())
    assert ("argument:max_price", "products_search") in found
    search = found[("description", "products_search")]
    assert search.msgstr == ""
    assert (
        search.comment.split()
        == get_toolset("catalog").by_name["products_search"].description.split()
    )
    assert polib.pofile(str(path)).metadata["Language"] == "uk"


def test_a_group_catalogue_has_only_that_groups_texts(tmp_path):
    run("-l", "de", "-g", "catalog", "--locale-dir", str(tmp_path))

    path = tmp_path / "de" / "LC_MESSAGES" / "mcp_tools.catalog.po"
    assert set(entries(path)) == expected_keys(["catalog"])
    assert not (tmp_path / "de" / "LC_MESSAGES" / "mcp_tools.po").exists()


def test_a_tool_in_several_groups_is_one_entry(tmp_path):
    run("-l", "uk", "--locale-dir", str(tmp_path))

    keys = [
        (e.msgctxt, e.msgid)
        for e in polib.pofile(str(tmp_path / "uk" / "LC_MESSAGES" / "mcp_tools.po"))
    ]
    # products_list is published in both catalog and backoffice.
    assert keys.count(("title", "products_list")) == 1
    assert len(keys) == len(set(keys))


def test_updating_keeps_translations_and_flags_changed_sources(tmp_path):
    run("-l", "uk", "--locale-dir", str(tmp_path))
    path = tmp_path / "uk" / "LC_MESSAGES" / "mcp_tools.po"
    po = polib.pofile(str(path))
    for entry in po:
        key = (entry.msgctxt, entry.msgid)
        if key == ("title", "products_search"):
            entry.msgstr = "Пошук товарів"
            entry.tcomment = "Reviewed by the shop team."
        elif key == ("description", "products_search"):
            entry.msgstr = "Старий переклад."
            entry.comment = "The text the code had when this was translated."
    po.append(polib.POEntry(msgctxt="title", msgid="gone.tool", msgstr="Зниклий"))
    po.append(polib.POEntry(msgctxt="title", msgid="gone.untranslated", msgstr=""))
    po.save(str(path))

    output = run("-l", "uk", "--locale-dir", str(tmp_path))

    assert f"{path}: updated" in output
    assert "1 fuzzy" in output
    updated = polib.pofile(str(path))
    by_key = {(e.msgctxt, e.msgid): e for e in updated}
    title = by_key[("title", "products_search")]
    assert (title.msgstr, title.tcomment, title.flags) == (
        "Пошук товарів",
        "Reviewed by the shop team.",
        [],
    )
    description = by_key[("description", "products_search")]
    assert description.msgstr == "Старий переклад."
    assert description.flags == ["fuzzy"]
    assert description.comment.startswith("Search the products that can be ordered")
    # A translated entry of a tool that is gone is kept as obsolete; an empty one is dropped.
    assert by_key[("title", "gone.tool")].obsolete
    assert ("title", "gone.untranslated") not in by_key

    assert f"{path}: unchanged" in run("-l", "uk", "--locale-dir", str(tmp_path))
    run("-l", "uk", "--locale-dir", str(tmp_path), "--no-obsolete")
    assert ("title", "gone.tool") not in {(e.msgctxt, e.msgid) for e in polib.pofile(str(path))}


def test_compile_writes_mo_files_without_gettext_binaries(tmp_path):
    run("-l", "uk", "--locale-dir", str(tmp_path))
    path = tmp_path / "uk" / "LC_MESSAGES" / "mcp_tools.po"
    po = polib.pofile(str(path))
    for entry in po:
        if (entry.msgctxt, entry.msgid) == ("title", "products_search"):
            entry.msgstr = "Пошук товарів"
        if (entry.msgctxt, entry.msgid) == ("title", "products_list"):
            entry.msgstr = "Чернетка"
            entry.flags.append("fuzzy")
    po.save(str(path))

    output = run("-l", "uk", "--locale-dir", str(tmp_path), "--compile")

    assert f"{path.with_suffix('.mo')}: compiled" in output
    catalogue = load_catalogue(path.with_suffix(".mo"))
    # Fuzzy entries stay out of the .mo, as with msgfmt.
    assert catalogue.messages() == {("title", "products_search"): "Пошук товарів"}
    assert "compiled" not in run("-l", "uk", "--locale-dir", str(tmp_path), "--compile")


def test_check_reports_stale_catalogues_and_writes_nothing(tmp_path):
    with pytest.raises(CommandError, match="out of date") as raised:
        run("-l", "uk", "--locale-dir", str(tmp_path), "--check")
    assert "missing" in str(raised.value)
    assert not (tmp_path / "uk").exists()

    run("-l", "uk", "--locale-dir", str(tmp_path))
    run("-l", "uk", "--locale-dir", str(tmp_path), "--check")  # up to date: no error
    path = tmp_path / "uk" / "LC_MESSAGES" / "mcp_tools.po"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            'msgid "products_search"', 'msgid "products.old"', 1
        )
    )

    with pytest.raises(CommandError, match=str(path)):
        run("-l", "uk", "--locale-dir", str(tmp_path), "--check")


def test_all_updates_every_existing_locale(tmp_path):
    (tmp_path / "de" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "pt_BR" / "LC_MESSAGES").mkdir(parents=True)

    run("--all", "--locale-dir", str(tmp_path))

    assert sorted(
        p.relative_to(tmp_path).as_posix() for p in tmp_path.glob("*/LC_MESSAGES/*.po")
    ) == [
        "de/LC_MESSAGES/mcp_tools.po",
        "pt_BR/LC_MESSAGES/mcp_tools.po",
    ]


def test_language_codes_become_locale_names(tmp_path):
    run("-l", "pt-br", "--locale-dir", str(tmp_path))
    assert (tmp_path / "pt_BR" / "LC_MESSAGES" / "mcp_tools.po").exists()


def test_the_default_directory_is_the_first_locale_path(tmp_path, settings):
    settings.LOCALE_PATHS = [tmp_path / "first", tmp_path / "second"]
    run("-l", "uk")
    assert (tmp_path / "first" / "uk" / "LC_MESSAGES" / "mcp_tools.po").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--locale-dir", "x"], "--locale"),
        (["-l", "uk", "-g", "nope", "--locale-dir", "x"], "Unknown API group 'nope'"),
        (["-l", "uk"], "LOCALE_PATHS"),
    ],
)
def test_usage_errors(args, message, settings):
    settings.LOCALE_PATHS = []
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_a_group_that_cannot_be_built_fails_the_command(tmp_path, settings):
    settings.ROOT_URLCONF = "tests.urls"
    with pytest.raises(CommandError, match="mcp_bridge.E002"):
        run("-l", "uk", "--locale-dir", str(tmp_path))
    assert not (tmp_path / "uk").exists()
