"""The supported version combinations, each tested: ``nox -l`` lists them, ``nox -s oldest``
runs one.

A session installs the package with its runtime dependencies pinned to one combination and
only the tools the tests need (pytest, the MCP client, the lock tests' server, polib, redis-py),
not the ``fast`` extra: the pure-Python paths (jsonschema, the json module) are the ones every
user has. ``oldest`` pins each runtime dependency to the floor ``pyproject.toml`` allows, so a
floor that stops working fails here first; ``newest`` takes the newest releases. Extra
arguments go to pytest: ``nox -s oldest -- -k versioning``.

Interpreters are looked up on ``PATH`` (``python3.12``), then under pyenv's root, so a machine
with pyenv needs no ``pyenv global`` change. Needs nox (``pip install nox``, in the ``dev`` extra).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess

import nox

nox.options.sessions = ["oldest", "newest"]
nox.options.reuse_existing_virtualenvs = True

#: What the tests import besides the package (the ``test`` extra less jsonschema-rs and orjson).
#: The environment passes through: ``DJANGO_SETTINGS_MODULE=tests.settings_postgres nox -s
#: oldest`` runs the combination on PostgreSQL.
TEST_TOOLS = [
    "pytest>=8",
    "pytest-django>=4.8",
    "mcp>=2,<3",
    "gunicorn>=23",
    "polib>=1.2",
    "redis>=5",
    # For DJANGO_SETTINGS_MODULE=tests.settings_postgres (as .ci/run runs `oldest`).
    "psycopg[binary]>=3.1",
]

#: The floors of ``[project] dependencies``: keep the two in step.
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
