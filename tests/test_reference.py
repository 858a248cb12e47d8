"""docs/reference.md and docs/settings.md say what the package has, and nothing it does not.

Each test compares one kind of public thing with its documentation, both ways:

* the public names (``__all__`` of ``mcp_bridge`` and of its public modules, and
  ``mcp_bridge.urls``' ``endpoint`` and ``well_known``): each is documented in its module's
  section of reference.md, and each ``mcp_bridge.x.y`` that reference.md names imports;
* the loggers: the ``mcp_bridge.*`` loggers of the source are reference.md's list;
* the settings: the keys of ``DEFAULTS`` (and of ``BUILD_STORE_DEFAULTS``) are rows of
  settings.md's ``MCP_BRIDGE`` table, and every key a page or the README names exists;
* the system check ids: every ``mcp_bridge.E…``/``W…`` of the source is a row of a table of
  settings.md, and every id the docs or the README name is still in the source;
* the signals: every ``Signal`` of ``mcp_bridge.signals`` is a row of reference.md's table;
* the management commands: every module of ``mcp_bridge/management/commands/`` is a row of
  reference.md's commands table, with exactly its own options (and their choices) and its
  positional arguments, read from the command's argparse parser.

A failure names the page, the section and what is missing or gone.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from argparse import Action
from pathlib import Path

import pytest
from django.core.management import BaseCommand, load_command_class
from django.dispatch import Signal

import mcp_bridge
import mcp_bridge.management.commands
from mcp_bridge import caching, confirmation, locking, signals, tools
from mcp_bridge.base.conf import BUILD_STORE_DEFAULTS, DEFAULTS

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "mcp_bridge"
DOCS = REPO / "docs"
REFERENCE = (DOCS / "reference.md").read_text()
SETTINGS = (DOCS / "settings.md").read_text()
#: The pages whose mentions of settings and check ids must be true: every docs page and the
#: README (the changelog tells history: an id it names may have gone since).
PAGES = {f"docs/{page.name}": page.read_text() for page in sorted(DOCS.glob("*.md"))}
PAGES["README.md"] = (REPO / "README.md").read_text()

#: Each public module, its public names, and the heading of its section in reference.md.
PUBLIC = {
    "mcp_bridge": (mcp_bridge.__all__, "## `mcp_bridge`: "),
    "mcp_bridge.caching": (caching.__all__, "## `mcp_bridge.caching`: "),
    "mcp_bridge.confirmation": (confirmation.__all__, "## `mcp_bridge.confirmation`: "),
    "mcp_bridge.locking": (locking.__all__, "## `mcp_bridge.locking`: "),
    "mcp_bridge.signals": (signals.__all__, "## `mcp_bridge.signals`: "),
    "mcp_bridge.tools": (tools.__all__, "## The `Tool` a signal carries"),
    # urls' other names (app_name, urlpatterns) are what include() reads, not an API.
    "mcp_bridge.urls": (["endpoint", "well_known"], "## `mcp_bridge.urls`: "),
}

CHECK_ID = re.compile(r"\bmcp_bridge\.[EW]\d{3}\b")
SHORT_CHECK_ID = re.compile(r"(?<![\w.])[EW]\d{3}\b")
LOGGER = re.compile(r"""getLogger\(\s*["'](mcp_bridge(?:\.\w+)*)["']""")


def section(text: str, heading: str, page: str = "docs/reference.md") -> str:
    """The text from the line starting with ``heading`` to the next heading of its level or
    above."""
    start = next((m.start() for m in re.finditer(rf"(?m)^{re.escape(heading)}", text)), None)
    assert start is not None, f"{page} has no section {heading!r}"
    level = len(heading) - len(heading.lstrip("#"))
    end = re.compile(rf"(?m)^#{{1,{level}}} ").search(text, start + len(heading))
    return text[start : end.start() if end else len(text)]


def rows(text: str) -> list[list[str]]:
    """The cells of each row of the Markdown tables in ``text`` (header and rule left out)."""
    table_rows = []
    for line in text.splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        table_rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return table_rows


def first_cells(text: str, pattern: str) -> set[str]:
    """The first cells of the table rows of ``text`` that are one backticked name matching
    ``pattern``, without the backticks."""
    return {cells[0].strip("`") for cells in rows(text) if re.fullmatch(rf"`{pattern}`", cells[0])}


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def where(pattern: re.Pattern[str], value: str) -> str:
    """The first ``path:line`` of the package's source where ``pattern`` finds ``value``."""
    for path in source_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if value in pattern.findall(line):
                return f"{path.relative_to(REPO)}:{number}"
    return "?"


# --- Public names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("module", PUBLIC)
def test_each_public_name_is_documented_in_its_section(module):
    names, heading = PUBLIC[module]
    text = section(REFERENCE, heading)
    missing = [
        name
        for name in names
        if f"`{name}`" not in text and not re.search(rf"\b{re.escape(module)}\.{name}\b", text)
    ]
    assert not missing, (
        f"docs/reference.md, section {heading!r}: public names of {module} not documented: "
        f"{', '.join(missing)}"
    )


@pytest.mark.parametrize("module", PUBLIC)
def test_each_name_a_section_heads_is_public(module):
    names, heading = PUBLIC[module]
    headed = re.findall(r"(?m)^### `(\w+)`", section(REFERENCE, heading))
    headed += re.findall(r"(?m)^### `\w+` and `(\w+)`", section(REFERENCE, heading))
    gone = [name for name in headed if name not in names]
    assert not gone, (
        f"docs/reference.md, section {heading!r} documents names that {module} does not make "
        f"public: {', '.join(gone)}"
    )


def documented_loggers() -> list[str]:
    block = REFERENCE.split("- **Loggers:**", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"(?m)^\s+- `(mcp_bridge(?:\.\w+)*)`", block)


def _resolve(dotted: str) -> object:
    """The object ``dotted`` names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(dotted)


def test_every_dotted_name_the_reference_gives_imports():
    loggers = set(documented_loggers())
    named = set(re.findall(r"\bmcp_bridge(?:\.\w+)+(?![\w…])", REFERENCE))  # not `mcp_bridge.E…`
    named -= loggers
    named = {name for name in named if not CHECK_ID.fullmatch(name)}
    gone = []
    for name in sorted(named):
        try:
            _resolve(name)
        except (ImportError, AttributeError):
            gone.append(name)
    assert not gone, f"docs/reference.md names what does not import: {', '.join(gone)}"


def test_the_loggers_are_those_of_the_source():
    in_source = {name for path in source_files() for name in LOGGER.findall(path.read_text())}
    documented = set(documented_loggers())
    assert not in_source - documented, (
        "docs/reference.md, 'Loggers': loggers of the source not listed: "
        + ", ".join(f"{name} ({where(LOGGER, name)})" for name in sorted(in_source - documented))
    )
    assert not documented - in_source, (
        "docs/reference.md, 'Loggers': listed loggers that no module uses: "
        + ", ".join(sorted(documented - in_source))
    )


# --- Settings -------------------------------------------------------------------------------------

SETTINGS_TABLE = section(SETTINGS, "## `MCP_BRIDGE`", "docs/settings.md")


def test_every_setting_is_a_row_of_the_settings_table_and_every_row_a_setting():
    documented = first_cells(SETTINGS_TABLE, "[A-Z][A-Z_]*")
    missing = [key for key in DEFAULTS if key not in documented]
    gone = sorted(documented - set(DEFAULTS))
    assert not missing, f"docs/settings.md, table of `MCP_BRIDGE`: keys not documented: {missing}"
    assert not gone, f"docs/settings.md, table of `MCP_BRIDGE`: rows for keys that are gone: {gone}"


def test_every_build_store_key_is_in_the_build_store_row():
    (row,) = [cells for cells in rows(SETTINGS_TABLE) if cells[0] == "`BUILD_STORE`"]
    named = set(re.findall(r"`([A-Z][A-Z_]+)`", " ".join(row[1:])))
    missing = [key for key in BUILD_STORE_DEFAULTS if key not in named]
    gone = sorted(named - set(BUILD_STORE_DEFAULTS) - {"BUILD_STORE"})
    assert not missing, f"docs/settings.md, row `BUILD_STORE`: keys not documented: {missing}"
    assert not gone, f"docs/settings.md, row `BUILD_STORE`: keys that are gone: {gone}"


@pytest.mark.parametrize("page", PAGES)
def test_every_setting_a_page_names_exists(page):
    text = PAGES[page]
    named = set(re.findall(r"""MCP_BRIDGE\[\s*["']([A-Z_]+)["']\s*\]""", text))
    named |= set(re.findall(r"""MCP_BRIDGE\s*=\s*\{\s*["']([A-Z_]+)["']""", text))
    store = set(re.findall(r"""BUILD_STORE\[\s*["']([A-Z_]+)["']\s*\]""", text))
    gone = sorted(named - set(DEFAULTS)) + sorted(store - set(BUILD_STORE_DEFAULTS))
    assert not gone, f"{page} names settings that do not exist: {gone}"


# --- System check ids -----------------------------------------------------------------------------


def source_check_ids() -> set[str]:
    return {found for path in source_files() for found in CHECK_ID.findall(path.read_text())}


def test_every_check_id_of_the_source_is_a_row_of_settings_md():
    documented = first_cells(SETTINGS, r"mcp_bridge\.[EW]\d{3}")
    missing = sorted(source_check_ids() - documented)
    assert not missing, (
        "docs/settings.md, 'System checks': check ids of the source with no row in its "
        "tables: " + ", ".join(f"{check_id} ({where(CHECK_ID, check_id)})" for check_id in missing)
    )


@pytest.mark.parametrize("page", PAGES)
def test_every_check_id_a_page_names_exists(page):
    in_source = source_check_ids()
    named = set(CHECK_ID.findall(PAGES[page]))
    named |= {f"mcp_bridge.{short}" for short in SHORT_CHECK_ID.findall(PAGES[page])}
    gone = sorted(named - in_source)
    assert not gone, f"{page} names check ids that no module of mcp_bridge has: {gone}"


# --- Signals --------------------------------------------------------------------------------------


def test_every_signal_is_a_row_of_the_signals_table():
    in_module = {name for name, value in vars(signals).items() if isinstance(value, Signal)}
    documented = first_cells(section(REFERENCE, "## `mcp_bridge.signals`: "), r"\w+")
    assert in_module == set(signals.__all__), "mcp_bridge.signals.__all__ is not its signals"
    assert not in_module - documented, (
        "docs/reference.md, table of `mcp_bridge.signals`: signals not documented: "
        f"{sorted(in_module - documented)}"
    )
    assert not documented - in_module, (
        "docs/reference.md, table of `mcp_bridge.signals`: rows for signals that are gone: "
        f"{sorted(documented - in_module)}"
    )


# --- Management commands --------------------------------------------------------------------------


class _AnyCommand(BaseCommand):
    requires_system_checks = "__all__"  # so that --skip-checks is Django's too


#: The options every Django command has: not the command's own, and not documented per command.
DJANGO_OPTIONS = {
    option
    for action in _AnyCommand().create_parser("manage.py", "any")._actions
    for option in action.option_strings
}
COMMANDS_TABLE = {
    re.match(r"`manage\.py (\w+)", cells[0]).group(1): cells
    for cells in rows(section(REFERENCE, "## Management commands"))
    if cells[0].startswith("`manage.py ")
}
COMMANDS = sorted(
    module.name for module in pkgutil.iter_modules(mcp_bridge.management.commands.__path__)
)


def own_actions(name: str) -> list[Action]:
    parser = load_command_class("mcp_bridge", name).create_parser("manage.py", name)
    return [action for action in parser._actions if not set(action.option_strings) & DJANGO_OPTIONS]


def test_every_command_is_a_row_of_the_commands_table_and_every_row_a_command():
    assert set(COMMANDS) - set(COMMANDS_TABLE) == set(), (
        "docs/reference.md, 'Management commands': commands not in the table: "
        f"{sorted(set(COMMANDS) - set(COMMANDS_TABLE))}"
    )
    assert set(COMMANDS_TABLE) - set(COMMANDS) == set(), (
        "docs/reference.md, 'Management commands': rows for commands that are gone: "
        f"{sorted(set(COMMANDS_TABLE) - set(COMMANDS))}"
    )


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_row_gives_exactly_its_options(name):
    if name not in COMMANDS_TABLE:
        pytest.skip("not in the table: test_every_command_is_a_row_... fails")
    options = COMMANDS_TABLE[name][1]
    where_ = f"docs/reference.md, 'Management commands', row `manage.py {name}`"
    actions = own_actions(name)
    parsed = {option for action in actions for option in action.option_strings}
    documented = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", options))
    assert not parsed - documented, (
        f"{where_}: options not documented: {sorted(parsed - documented)}"
    )
    assert not documented - parsed, (
        f"{where_}: options that are gone: {sorted(documented - parsed)}"
    )
    for action in actions:
        if action.choices is None or not action.option_strings:
            continue
        option = action.option_strings[-1]
        shown = re.search(rf"{re.escape(option)} \{{([^}}]*)\}}", options)
        expected = ",".join(str(choice) for choice in action.choices)
        assert shown is not None and shown.group(1) == expected, (
            f"{where_}: {option} should show its choices as `{option} {{{expected}}}`"
        )


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_row_gives_its_positional_arguments(name):
    if name not in COMMANDS_TABLE:
        pytest.skip("not in the table: test_every_command_is_a_row_... fails")
    usage = COMMANDS_TABLE[name][0].strip("`").removeprefix(f"manage.py {name}")
    documented = re.findall(r"\[[^\]]*\]|<[^>]*>", usage)
    positionals = [action for action in own_actions(name) if not action.option_strings]
    expected = [
        ("[" if action.nargs in ("?", "*") else "<") + ("..." if action.nargs in ("*", "+") else "")
        for action in positionals
    ]
    shown = [
        argument[0] + ("..." if argument.endswith(("...]", "...>")) else "")
        for argument in documented
    ]
    assert shown == expected, (
        f"docs/reference.md, 'Management commands', row `manage.py {name}`: the positional "
        f"arguments are {[action.dest for action in positionals]} (<required>, [optional], "
        f"'...' for several), the row shows {documented}"
    )
