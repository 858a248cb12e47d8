"""scripts/realapps' comparison of a real application's tools with its committed list
(tests/realapps/check.py), and the committed lists and pins themselves (docs/realapps.md).

The applications themselves are built by ``scripts/realapps`` in virtualenvs of their own, not
here: these tests check that a disappearing tool fails the run with its name, and that what is
committed for each application can be compared at all.
"""

from __future__ import annotations

import pathlib
import re
from types import SimpleNamespace

import pytest

from tests.realapps.check import Failed, compare_names, read_expected, write_expected

REALAPPS = pathlib.Path(__file__).resolve().parent / "realapps"
APPS = sorted(path.parent.name for path in REALAPPS.glob("*/requirements.txt"))


def _app(name: str = "shop") -> SimpleNamespace:
    return SimpleNamespace(
        NAME=name, GROUP=name, DISTRIBUTION=name, installed_version=lambda: "1.2.3"
    )


@pytest.fixture
def expected(tmp_path):
    path = tmp_path / "tools.txt"
    write_expected(path, _app(), ["orders_list", "orders_retrieve", "products_list"])
    return path


def test_a_tool_that_disappears_fails_the_run_and_is_named(expected, capsys):
    with pytest.raises(Failed) as failed:
        compare_names(_app(), ["orders_list", "products_list"], update=False, path=expected)
    message = str(failed.value)
    assert "1 tool(s)" in message
    assert "orders_retrieve" in message
    assert "orders_list" not in message
    assert "scripts/realapps --update shop" in message


def test_a_new_tool_is_reported_with_how_to_update_the_list(expected, capsys):
    names = ["orders_list", "orders_retrieve", "products_list", "products_search"]
    compare_names(_app(), names, update=False, path=expected)
    out = capsys.readouterr().out
    assert "1 new tool(s)" in out and "products_search" in out
    assert "scripts/realapps --update shop" in out
    assert "4 tools built, 3 expected" in out
    assert read_expected(expected) == ["orders_list", "orders_retrieve", "products_list"]


def test_update_rewrites_the_list_with_a_header_the_reader_skips(expected):
    compare_names(_app(), ["a_list", "b_list"], update=True, path=expected)
    text = expected.read_text()
    assert text.startswith("# The tools of group 'shop' built from shop 1.2.3 (2 tools).")
    assert read_expected(expected) == ["a_list", "b_list"]


def test_a_missing_list_is_written_not_compared(tmp_path, capsys):
    path = tmp_path / "tools.txt"
    compare_names(_app(), ["a_list"], update=False, path=path)
    assert read_expected(path) == ["a_list"]
    assert "review and commit it" in capsys.readouterr().out


def test_there_are_at_least_two_applications():
    assert len(APPS) >= 2, APPS


@pytest.mark.parametrize("app", APPS)
def test_each_application_has_its_settings_seeding_and_list(app):
    folder = REALAPPS / app
    assert (folder / "settings.py").is_file()
    assert (folder / "app.py").is_file()
    names = read_expected(folder / "tools.txt")
    header = (folder / "tools.txt").read_text().splitlines()[0]
    count = re.search(r"\((\d+) tools\)", header)
    assert count and int(count.group(1)) == len(names), header
    assert names == sorted(set(names)), "tools.txt holds each name once, sorted"


@pytest.mark.parametrize("app", APPS)
def test_each_requirement_is_pinned_exactly(app):
    lines = (REALAPPS / app / "requirements.txt").read_text().splitlines()
    requirements = [line for line in lines if line.strip() and not line.startswith("#")]
    assert requirements
    loose = [
        line for line in requirements if not re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==[^=\s]+", line)
    ]
    assert not loose, f"not pinned with ==: {loose}"
