"""What the released distributions hold: the wheel is the app and everything it needs at run
time, nothing else; the sdist is what a distribution packager needs to run the test suite.

``.ci/run`` builds both once with ``python -m build`` and points ``MCP_BRIDGE_DIST_DIR`` at
them, as the release workflow checks the files it publishes. Without that variable the tests
build their own into a temporary directory, which needs the ``release`` extra
(``pip install -e ".[release]"``) and is skipped, with the reason, without it.
"""

from __future__ import annotations

import gettext
import importlib.util
import io
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path, PurePosixPath

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: The file names of both distributions: "django-mcp-bridge" normalised (PEP 625, PEP 427).
STEM = f"{PROJECT['name'].replace('-', '_')}-{PROJECT['version']}"

#: What the test suite opens from the repository, beyond tests/ itself: a packager's run of
#: the suite from the sdist fails without any of them.
NEEDED_BY_THE_TESTS = [
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "manage.py",
    "noxfile.py",
    "mkdocs.yml",
    ".pre-commit-config.yaml",
    ".ci/run",
    ".github/workflows/test.yml",
    "scripts/test",
    "tests/conftest.py",
    "frontend/apps/package-lock.json",
    "tests/settings.py",
    "tests/peers/package.json",
    "tests/peers/package-lock.json",
    "demo_project/settings.py",
    "locale/de/LC_MESSAGES/mcp_tools.mo",
    "bench/README.md",
    "docs/index.md",
]
#: Never in either distribution: what running the tests, the demo or the benchmarks leaves.
LEFTOVERS = ("__pycache__", ".pyc", "node_modules", ".sqlite3", "/.venv", ".artifacts")


def _build_installed() -> bool:
    """Whether `python -m build` runs: build.__main__, not build, is looked up, since a
    setuptools build/ directory left in the checkout (by .ci/run's own `python -m build`) is
    importable as a namespace package named build. Looking up the submodule imports its
    parent, which raises when there is none."""
    try:
        return importlib.util.find_spec("build.__main__") is not None
    except ModuleNotFoundError:
        return False


@pytest.fixture(scope="module")
def dist_dir(tmp_path_factory) -> Path:
    given = os.environ.get("MCP_BRIDGE_DIST_DIR")
    if given:
        return Path(given)
    if not _build_installed():
        pytest.skip('`build` is not installed: pip install -e ".[release]" (as .ci/run does)')
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return out


@pytest.fixture(scope="module")
def wheel(dist_dir) -> zipfile.ZipFile:
    path = dist_dir / f"{STEM}-py3-none-any.whl"
    assert path.is_file(), f"no {path.name} in {dist_dir}: build it with `python -m build`"
    return zipfile.ZipFile(path)


@pytest.fixture(scope="module")
def sdist_names(dist_dir) -> set[str]:
    path = dist_dir / f"{STEM}.tar.gz"
    assert path.is_file(), f"no {path.name} in {dist_dir}: build it with `python -m build`"
    with tarfile.open(path) as archive:
        # Every member sits under "<stem>/"; the names are relative to it.
        return {
            str(PurePosixPath(member.name).relative_to(STEM))
            for member in archive.getmembers()
            if member.isfile()
        }


def package_files() -> set[str]:
    """Every file of mcp_bridge/ in the source tree, as the wheel names them."""
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "mcp_bridge").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_the_wheel_holds_every_file_of_the_app(wheel):
    names = set(wheel.namelist())
    missing = package_files() - names
    assert not missing, f"files of mcp_bridge/ missing from the wheel: {sorted(missing)}"
    # Named too, so that the test fails if the tree itself lost them.
    assert "mcp_bridge/py.typed" in names
    assert "mcp_bridge/templates/mcp_bridge/explorer.html" in names
    for language in ("de", "uk"):
        assert f"mcp_bridge/locale/{language}/LC_MESSAGES/django.mo" in names


def test_the_wheel_catalogues_are_compiled_and_load(wheel):
    catalogues = [n for n in wheel.namelist() if n.endswith(".po")]
    assert catalogues
    for po in catalogues:
        mo = po.removesuffix(".po") + ".mo"
        assert mo in wheel.namelist(), f"{po} ships without its compiled {mo}"
        translations = gettext.GNUTranslations(io.BytesIO(wheel.read(mo)))
        assert translations.info().get("content-type", "").endswith("charset=UTF-8"), mo


def test_the_wheel_holds_nothing_but_the_app(wheel):
    tops = {name.split("/")[0] for name in wheel.namelist()}
    assert tops == {"mcp_bridge", f"{STEM}.dist-info"}, tops
    stray = [n for n in wheel.namelist() if any(part in n for part in LEFTOVERS)]
    assert not stray, stray


def test_the_wheel_metadata_is_the_release(wheel):
    metadata = Parser().parsestr(wheel.read(f"{STEM}.dist-info/METADATA").decode())
    assert metadata["Name"] == "django-mcp-bridge"
    assert metadata["Version"] == PROJECT["version"]
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert f"{STEM}.dist-info/licenses/LICENSE" in wheel.namelist()


def test_the_sdist_holds_what_the_test_suite_needs(sdist_names):
    missing = [path for path in NEEDED_BY_THE_TESTS if path not in sdist_names]
    assert not missing, f"missing from the sdist (add them to MANIFEST.in): {missing}"
    stray = [n for n in sdist_names if any(part in f"/{n}" for part in LEFTOVERS)]
    assert not stray, stray


def test_the_sdist_holds_every_tracked_file(sdist_names):
    """In a git checkout: every file git tracks is in the sdist, but git's own."""
    try:
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an unpacked sdist): nothing to compare with")
    files = {name for name in tracked.split("\0") if name}
    # Git's own files (.gitignore, .gitattributes).
    expected = {n for n in files if not n.startswith(".git") or n.startswith(".github/")}
    missing = expected - sdist_names
    assert not missing, f"tracked files missing from the sdist (MANIFEST.in): {sorted(missing)}"


def test_the_test_suite_collects_from_the_unpacked_sdist(dist_dir, tmp_path):
    """A packager's first step: every test module of the sdist imports, from the sdist's own
    files (its mcp_bridge, tests, demo project and bench), without the repository."""
    with tarfile.open(dist_dir / f"{STEM}.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    unpacked = tmp_path / STEM
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    assert re.search(r"^\d+ tests collected", collected.stdout, flags=re.MULTILINE)
    # The tests ran against the sdist's package, not the checkout's.
    imported = subprocess.run(
        [sys.executable, "-c", "import mcp_bridge; print(mcp_bridge.__file__)"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert Path(imported.stdout.strip()).is_relative_to(unpacked)
