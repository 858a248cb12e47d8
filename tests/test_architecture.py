"""The shape docs/architecture.md describes, checked where import-linter cannot check it.

import-linter (``lint-imports``, run by .ci/run) checks the layers and the forbidden imports of
``pyproject.toml``. These tests check the rest: no package does several jobs (size), the public
``Tool`` carries no storage machinery, and an ordinary ``tools/call`` never passes through the
discovery code.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from django.test import Client

from mcp_bridge import tools
from mcp_bridge.build.tools import Tool
from mcp_bridge.toolcall import meta_tools
from tests.mcp_client import McpClient

PACKAGE = Path(tools.__file__).parent


def _lines(path: Path) -> int:
    return sum(1 for _ in path.open(encoding="utf-8"))


def test_no_package_holds_more_than_a_third_of_the_lines():
    """A package with a third of the code is doing several jobs (the build, persistence,
    search... once all lived in one): give each job its package."""
    total = sum(_lines(path) for path in PACKAGE.rglob("*.py"))
    sizes = {
        package.name: sum(_lines(path) for path in package.rglob("*.py"))
        for package in PACKAGE.iterdir()
        if (package / "__init__.py").exists()
    }
    too_big = {name: size for name, size in sizes.items() if size * 3 > total}
    assert not too_big, f"{too_big} of {total} lines"


def test_the_modules_of_confirmation_are_described_in_the_architecture():
    """Confirmation landed in its reserved place: each of its modules is named in
    docs/architecture.md's account of it."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    account = text[text.index("- **Confirmation**") : text.index("- **Tracing**")]
    for module in sorted((PACKAGE / "confirmation").glob("*.py")):
        if module.name != "__init__.py":
            assert f"`{module.stem}`" in account, module.name


def test_the_modules_of_tasks_are_described_in_the_architecture():
    """MCP tasks landed in their reserved place: each of its modules is named in
    docs/architecture.md's layout."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    layout = text[text.index("├── tasks/") : text.index("├── toolcall/")]
    for module in sorted((PACKAGE / "tasks").glob("*.py")):
        if module.name != "__init__.py":
            assert module.stem in layout, module.name


def test_tracing_has_arrived_and_is_described():
    """tracing is no longer reserved: each of its modules is named in docs/architecture.md,
    and nothing in it imports OpenTelemetry but ``api.py`` (the optional extra)."""
    architecture = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = sorted(p.stem for p in (PACKAGE / "tracing").glob("*.py") if p.stem != "__init__")
    assert modules == ["api", "context", "conventions", "logs", "metrics", "providers", "spans"]
    assert "reserved" not in (PACKAGE / "tracing" / "__init__.py").read_text(encoding="utf-8")
    for module in modules:
        assert f"`tracing/{module}.py`" in architecture, module
        text = (PACKAGE / "tracing" / f"{module}.py").read_text(encoding="utf-8")
        assert module == "api" or "opentelemetry" not in text.replace("opentelemetry-", ""), module


def test_the_public_tool_is_a_plain_class():
    """Packing is the store's detail: the class a signal carries has no storage base class, no
    attribute hook, and is importable from the public module."""
    assert tools.Tool is Tool
    assert Tool.__bases__ == (object,)
    assert "__getattr__" not in vars(Tool) and "__reduce_ex__" not in vars(Tool)
    assert set(tools.__all__) == {
        "Method",
        "ModelFacts",
        "OperationFacts",
        "OperationSource",
        "Pagination",
        "PathParameter",
        "Tool",
    }


@pytest.mark.django_db
@pytest.mark.parametrize("discovery", ["direct", "search"])
def test_a_call_to_a_real_tool_never_passes_through_discovery(settings, monkeypatch, discovery):
    """Dispatch chooses once between a meta-tool and the executor: a real tool's call, in a
    group in direct mode or by its own name in search mode, runs no meta-tool code."""
    settings.MCP_BRIDGE = {"DISCOVERY": discovery}

    def refuse(*args, **kwargs):
        raise AssertionError("a real tool's call reached the meta-tools")

    monkeypatch.setattr(meta_tools, "answer", refuse)
    result = McpClient(Client(), "/mcp/catalog/").call("categories_list", {})
    assert result["isError"] is False, result


@pytest.mark.django_db
def test_a_meta_tool_call_goes_to_the_meta_tools(settings, monkeypatch):
    settings.MCP_BRIDGE = {"DISCOVERY": "search"}
    seen = []
    answer = meta_tools.answer

    def spy(meta, *args, **kwargs):
        seen.append(meta.name)
        return answer(meta, *args, **kwargs)

    monkeypatch.setattr(meta_tools, "answer", spy)
    result = McpClient(Client(), "/mcp/catalog/").call("search_tools", {"query": "categories"})
    assert result["isError"] is False, result
    assert seen == ["search_tools"]


def test_every_folder_of_code_is_a_regular_package_git_keeps():
    """A folder of modules without ``__init__.py`` is a namespace package: it imports, but
    import-linter and the wheel (``packages.find``) miss it; a file ``.gitignore`` matches is
    never committed (``build/`` once hid ``mcp_bridge/build/__init__.py``)."""
    folders = {path.parent for path in PACKAGE.rglob("*.py")}
    assert not [f for f in folders if not (f / "__init__.py").exists()]
    if shutil.which("git") is None or not (PACKAGE.parent / ".git").exists():
        pytest.skip("not a git checkout")
    files = [str(path.relative_to(PACKAGE.parent)) for path in PACKAGE.rglob("*.py")]
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *files],
        cwd=PACKAGE.parent,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    assert ignored == []
