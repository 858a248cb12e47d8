"""The supported version combinations, each tested: ``nox -l`` lists them, ``nox -s oldest``
runs one.

A session installs the package with its runtime dependencies pinned to one combination and
only what the tests need (the ``test`` extra of pyproject.toml, read here), not the ``fast`` extra: the pure-Python paths (jsonschema, the json module) are the ones every
user has. ``oldest`` pins each runtime dependency to the floor ``pyproject.toml`` allows, so a
floor that stops working fails here first; ``newest`` takes the newest releases. Extra
arguments go to pytest: ``nox -s oldest -- -k versioning``.

Interpreters are looked up on ``PATH`` (``python3.12``), then under pyenv's root, so a machine
with pyenv needs no ``pyenv global`` change. Needs nox (``pip install nox``, in the ``dev`` extra).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tomllib

import nox

nox.options.sessions = ["oldest", "newest"]
nox.options.reuse_existing_virtualenvs = True


#: What the tests import besides the package (the ``test`` extra less jsonschema-rs and orjson).
#: The environment passes through: ``DJANGO_SETTINGS_MODULE=tests.settings_postgres nox -s
#: oldest`` runs the combination on PostgreSQL.
def _test_tools() -> list[str]:
    """The ``test`` extra of pyproject.toml (what tests/settings.py and the tests import),
    less the ``fast`` extra: one list, so that a new test dependency reaches every session."""
    with open(os.path.join(os.path.dirname(__file__), "pyproject.toml"), "rb") as fp:
        extras = tomllib.load(fp)["project"]["optional-dependencies"]
    fast = {re.split(r"[<>=!\[ ]", requirement)[0].lower() for requirement in extras["fast"]}
    tools = [r for r in extras["test"] if re.split(r"[<>=!\[ ]", r)[0].lower() not in fast]
    return tools  # psycopg among them: .ci/run runs `oldest` on tests.settings_postgres


TEST_TOOLS = _test_tools()

FLOORS = [
    "Django==5.2",
    "djangorestframework==3.15.1",
    "drf-spectacular==0.28.0",
    "jsonschema==4.20.0",
]


def interpreter(version: str) -> str:
    """The first ``python3.X`` that runs: from ``PATH``, else the newest pyenv build of that
    version (a pyenv shim on ``PATH`` fails when the version is not selected)."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    builds = glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", f"python{version}"))
    for candidate in [shutil.which(f"python{version}"), *sorted(builds, reverse=True)]:
        if (
            candidate
            and subprocess.run([candidate, "-c", ""], capture_output=True, check=False).returncode
            == 0
        ):
            return candidate
    return version  # nox reports a missing interpreter by name


def run_tests(session: nox.Session, pins: list[str]) -> None:
    # The package's own runtime requirements are resolved together with the pins, so a
    # pin outside the declared range fails at install time.
    session.install(".", *pins, *TEST_TOOLS)
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *session.posargs)


@nox.session(python=interpreter("3.11"))
def oldest(session: nox.Session) -> None:
    """Python 3.11 and every runtime dependency at its floor."""
    run_tests(session, FLOORS)


@nox.session(python=interpreter("3.12"))
def django60(session: nox.Session) -> None:
    """Python 3.12 and Django 6.0, the other dependencies newest."""
    run_tests(session, ["Django>=6.0,<6.1"])


@nox.session(python=interpreter("3.13"))
def newest(session: nox.Session) -> None:
    """Python 3.13 and the newest release of every runtime dependency (Django 6.1)."""
    run_tests(session, ["Django>=6.1"])
