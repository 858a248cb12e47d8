"""The catalogues shipped in the repository: compiled, in sync, complete for the demo.

A fresh machine needs no gettext binaries because the ``.mo`` files are
committed; these tests make sure that every ``.mo`` says exactly what its
``.po`` says (compiled in memory with polib and read back with Python's own
gettext parser, so the comparison is of catalogues, not of bytes).
"""

from __future__ import annotations

import io
from pathlib import Path

import polib
import pytest

import mcp_bridge
from demo_project import settings as demo_settings
from mcp_bridge.build.translation import Catalogue, catalogue_domain, tool_texts
from mcp_bridge.toolset.registry import get_toolset

REPOSITORY = Path(__file__).resolve().parent.parent
LOCALE_DIRS = [Path(p) for p in demo_settings.LOCALE_PATHS] + [
    Path(mcp_bridge.__file__).parent / "locale"
]
PO_FILES = sorted(p for d in LOCALE_DIRS for p in d.glob("*/LC_MESSAGES/*.po"))
MO_FILES = sorted(p for d in LOCALE_DIRS for p in d.glob("*/LC_MESSAGES/*.mo"))


def test_the_repository_ships_catalogues():
    names = {p.relative_to(REPOSITORY).as_posix() for p in PO_FILES}
    assert {
        "locale/uk/LC_MESSAGES/mcp_tools.po",
        "locale/de/LC_MESSAGES/mcp_tools.po",
        "locale/uk/LC_MESSAGES/mcp_tools.catalog.po",
        "locale/de/LC_MESSAGES/mcp_tools.catalog.po",
        "mcp_bridge/locale/uk/LC_MESSAGES/django.po",
        "mcp_bridge/locale/de/LC_MESSAGES/django.po",
    } <= names


def test_every_po_has_its_mo_and_every_mo_its_po():
    assert [p.with_suffix("") for p in PO_FILES] == [p.with_suffix("") for p in MO_FILES]


@pytest.mark.parametrize("po_path", PO_FILES, ids=lambda p: p.relative_to(REPOSITORY).as_posix())
def test_the_mo_file_is_in_sync_with_its_po(po_path: Path):
    expected = Catalogue(io.BytesIO(polib.pofile(str(po_path)).to_binary()))
    with open(po_path.with_suffix(".mo"), "rb") as fp:
        shipped = Catalogue(fp)

    assert shipped.messages() == expected.messages()
    assert shipped.info().get("content-type") == "text/plain; charset=UTF-8"


@pytest.mark.parametrize("language", ["uk", "de"])
def test_the_demo_base_catalogue_translates_every_catalog_tool_text(language, db):
    base = polib.pofile(
        str(REPOSITORY / "locale" / language / "LC_MESSAGES" / f"{catalogue_domain()}.po")
    )
    translated = {(e.msgctxt, e.msgid) for e in base.translated_entries()}
    wanted = {
        (text.context, text.tool)
        for tool in get_toolset("catalog").tools
        for text in tool_texts(tool)
    }

    assert wanted - translated == set()


@pytest.mark.parametrize("language", ["uk", "de"])
def test_the_demo_catalog_group_catalogue_rewords_for_agents(language):
    group = polib.pofile(
        str(REPOSITORY / "locale" / language / "LC_MESSAGES" / f"{catalogue_domain('catalog')}.po")
    )
    reworded = {(e.msgctxt, e.msgid) for e in group.translated_entries()}

    assert ("description", "products_search") in reworded
    assert not any(e.fuzzy or e.obsolete for e in group)
