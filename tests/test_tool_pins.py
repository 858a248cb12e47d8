"""The lint and type-check tools are pinned alike in ``.ci/run`` and ``.pre-commit-config.yaml``,
and mypy runs over the dependency floors that pyproject.toml declares.

pre-commit reads its hook environments from its own YAML file only, so the two lists are kept
identical by hand; this test fails as soon as they drift.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
#: An exact pin as both files quote it: "name==version".
PIN = re.compile(r'"([A-Za-z0-9][A-Za-z0-9._-]*)==([^"\s]+)"')
#: The optional packages mcp_bridge imports (their extras), which mypy sees at their floors too.
TYPED_EXTRAS = ("fast", "redis", "i18n", "oauth", "otel")


def pins(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, version in PIN.findall(text):
        key = name.lower().replace("_", "-")
        assert found.setdefault(key, version) == version, f"{name} is pinned twice, differently"
    return found


def ci_pins() -> dict[str, str]:
    """What CI installs: the pins of .ci/run and of the ``lint`` extra it installs (ruff,
    import-linter); a tool pinned in both must be pinned alike."""
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return pins((ROOT / ".ci" / "run").read_text() + "".join(f'"{r}"' for r in lint["lint"]))


def pre_commit_pins() -> dict[str, str]:
    return pins((ROOT / ".pre-commit-config.yaml").read_text())


def test_ci_and_pre_commit_pin_the_same_tools():
    ci, pre_commit = ci_pins(), pre_commit_pins()
    # Every hook's pin is CI's, and CI's mypy environment (.ci/run) is the hook's, entry for entry.
    assert {name: ci.get(name) for name in pre_commit} == pre_commit
    assert pins((ROOT / ".ci" / "run").read_text()).items() <= pre_commit.items()
    assert {"ruff", "mypy", "django-stubs", "djangorestframework-stubs"} <= set(ci_pins())


def test_mypy_runs_over_the_declared_floors():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [
        *project["dependencies"],
        *(r for extra in TYPED_EXTRAS for r in project["optional-dependencies"][extra]),
    ]
    pinned = ci_pins()
    for text in declared:
        requirement = Requirement(text)
        (floor,) = [s.version for s in requirement.specifier if s.operator == ">="]
        name = requirement.name.lower().replace("_", "-")
        assert name in pinned, f"{name} is not pinned for mypy (its floor: {floor})"
        assert Version(pinned[name]) == Version(floor), (name, pinned[name], floor)


def test_mypy_targets_the_oldest_python():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    requires = pyproject["project"]["requires-python"]
    assert requires.startswith(">=")
    assert pyproject["tool"]["mypy"]["python_version"] == requires.removeprefix(">=")
