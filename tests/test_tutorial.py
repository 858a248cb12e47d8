"""docs/tutorial.md, run as written: its files written into a new directory, its commands run
there in subprocesses, and their output compared with the output the tutorial shows.

The tutorial's conventions, which this test reads:

* a ``python`` or ``yaml`` block whose first line is ``# <path>`` is that file, written whole;
  ``# <path> (add at the end)`` is added at the end of the file instead;
* a ``console`` block holds commands (``$ ...``), each followed by the output to expect, in
  which ``…`` stands for any text; a command that shows no output must print nothing. A
  console block after an ``<!-- not run by tests/test_tutorial.py ... -->`` comment is not
  run (the installation: this test runs in the environment the package is installed in);
* ``python manage.py runserver`` starts the server in the background (on a free port, which
  replaces ``127.0.0.1:8000`` everywhere, and restarted when a file has changed since, as the
  development server reloads itself), and ``../django-mcp-bridge/`` is this clone;
* the browser that ``mcp_client.py --login`` opens (``$BROWSER``) signs in with the user and
  password the tutorial gives, allows on the consent page and follows the redirect, as the
  reader does by hand.

Nothing is downloaded: the project uses the packages of this environment (the ``test``
extra holds the ``client`` and ``oauth`` ones).
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
TUTORIAL = (REPO / "docs" / "tutorial.md").read_text()
NOT_RUN = "<!-- not run by tests/test_tutorial.py"
FILE_LINE = re.compile(r"# (?P<path>[\w./-]+\.(?:py|yaml))(?P<append> \(add at the end\))?")
SERVER_ADDRESS = "127.0.0.1:8000"

#: What the reader's browser does after ``--login`` opened it: Django's login page, the consent
#: page, the redirect to the client's loopback callback. The client waits for the browser
#: command to exit before it serves its callback, so the command hands the work to a child.
BROWSER = """
import os, subprocess, sys
from html.parser import HTMLParser
from http.cookiejar import CookieJar
from urllib.parse import urlencode
from urllib.request import HTTPCookieProcessor, build_opener


class HiddenFields(HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        named = dict(attrs)
        if tag == "input" and named.get("type") == "hidden" and named.get("name"):
            self.fields[named["name"]] = named.get("value") or ""


def hidden_fields(page):
    parser = HiddenFields()
    parser.feed(page.read().decode())
    return parser.fields


def sign_in_and_allow(url):
    opener = build_opener(HTTPCookieProcessor(CookieJar()))
    login = opener.open(url)  # signed out: redirected to LOGIN_URL
    credentials = {"username": os.environ["TUTORIAL_USER"], "password": os.environ["TUTORIAL_PASSWORD"]}
    consent = opener.open(login.geturl(), urlencode({**hidden_fields(login), **credentials}).encode())
    assert "/o/authorize/" in consent.geturl(), consent.geturl()
    allowed = {**hidden_fields(consent), "allow": "Authorize"}
    opener.open(consent.geturl(), urlencode(allowed).encode()).read()  # to the callback


if os.environ.get("TUTORIAL_BROWSER_CHILD"):
    sign_in_and_allow(sys.argv[1])
else:
    env = {**os.environ, "TUTORIAL_BROWSER_CHILD": "1"}
    subprocess.Popen([sys.executable, *sys.argv], env=env, start_new_session=True)
"""


@dataclass
class Block:
    info: str
    lines: list[str]
    run: bool


@dataclass
class Command:
    line: str
    expected: list[str] = field(default_factory=list)


def blocks(text: str) -> list[Block]:
    """The fenced blocks of ``text``, in order."""
    found: list[Block] = []
    lines = text.splitlines()
    index = 0
    previous = ""
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            end = lines.index("```", index + 1)
            found.append(Block(line[3:].strip(), lines[index + 1 : end], NOT_RUN not in previous))
            index = end
        elif line.strip():
            previous = line
        index += 1
    return found


def commands(block: Block) -> list[Command]:
    parsed: list[Command] = []
    for line in block.lines:
        if line.startswith("$ "):
            parsed.append(Command(line[2:]))
        else:
            parsed[-1].expected.append(line)
    return parsed


def matches(expected: str, output: str) -> bool:
    """Whether ``output`` is ``expected``, each ``…`` of it standing for any text."""
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, output, re.DOTALL) is not None


def normalized(output: str) -> str:
    return "\n".join(line.rstrip() for line in output.replace("\r\n", "\n").splitlines()).strip()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Reader:
    """Follows the tutorial in ``root``: writes its files, runs its commands."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cwd = root
        self.port = free_port()
        self.server: subprocess.Popen[bytes] | None = None
        self.server_log = root / "runserver.log"
        self.changed = False
        bin_dir = root / ".bin"  # `python` and `django-admin` of this environment, first
        bin_dir.mkdir()
        for name, run in (("python", ""), ("django-admin", " -m django")):
            # Scripts, not symlinks: a virtualenv's python is found by its own path.
            (bin_dir / name).write_text(
                f'#!/bin/sh\nexec {shlex.quote(sys.executable)}{run} "$@"\n'
            )
            (bin_dir / name).chmod(0o755)
        browser = root / "browser.py"
        browser.write_text(BROWSER)
        user = re.search(r"--username (\S+)", TUTORIAL)
        password = re.search(r"DJANGO_SUPERUSER_PASSWORD=(\S+)", TUTORIAL)
        assert user and password, "the tutorial creates no user with a password"
        self.env = {
            **{
                k: v
                for k, v in os.environ.items()
                if k not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")
            },
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "BROWSER": f"{shlex.quote(sys.executable)} {shlex.quote(str(browser))} %s",
            # The project's build store and lock files (in the temporary directory) stay here.
            "TMPDIR": str(root),
            "TUTORIAL_USER": user.group(1),
            "TUTORIAL_PASSWORD": password.group(1),
        }

    def here(self, text: str) -> str:
        return text.replace(SERVER_ADDRESS, f"127.0.0.1:{self.port}")

    def write(self, block: Block) -> None:
        named = FILE_LINE.fullmatch(block.lines[0])
        assert named, block.lines[0]
        path = self.cwd / named["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        text = "\n".join(block.lines) + "\n"
        if named["append"]:
            assert path.exists(), f"{named['path']}: added to, but written nowhere before"
            text = path.read_text() + "\n" + text
        path.write_text(text)
        self.changed = True

    def run(self, command: Command) -> None:
        line = self.here(command.line).replace("../django-mcp-bridge/", f"{REPO}/")
        expected = normalized(self.here("\n".join(command.expected)))
        if line.startswith("cd "):
            self.cwd = self.cwd / line[3:]
            return
        if line == "python manage.py runserver":
            self.start_server()
            output = self.server_log.read_text()
            assert matches(expected, normalized(output)), f"$ {command.line}\n{output}"
            return
        if self.server is not None and self.changed and SERVER_ADDRESS in command.line:
            self.start_server()  # as the development server reloads after a change
        done = subprocess.run(
            line,
            shell=True,
            executable="/bin/bash",
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        output = normalized(done.stderr + "\n" + done.stdout)
        assert done.returncode == 0, f"$ {command.line}\nexit status {done.returncode}\n{output}"
        assert matches(expected, output), (
            f"$ {command.line}\nprinted:\n{output}\n\ndocs/tutorial.md shows:\n{expected}"
        )

    def start_server(self) -> None:
        self.stop_server()
        log = self.server_log.open("w")
        self.server = subprocess.Popen(
            ["python", "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
            cwd=self.cwd,
            env={**self.env, "PYTHONUNBUFFERED": "1"},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.changed = False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.server.poll() is None, self.server_log.read_text()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"runserver did not answer:\n{self.server_log.read_text()}")

    def stop_server(self) -> None:
        if self.server is not None:
            self.server.terminate()
            self.server.wait(timeout=30)
            self.server = None


def test_the_tutorial_runs_as_written(tmp_path):
    reader = Reader(tmp_path)
    ran = 0
    try:
        for block in blocks(TUTORIAL):
            if block.info in ("python", "yaml") and FILE_LINE.fullmatch(block.lines[0]):
                reader.write(block)
            elif block.info == "console" and block.run:
                for command in commands(block):
                    reader.run(command)
                    ran += 1
    finally:
        reader.stop_server()
    assert ran >= 20, f"only {ran} commands ran: are the console blocks marked as not run?"


def test_the_sign_in_the_tutorial_describes_is_the_user_it_creates():
    user = re.search(r"--username (\S+)", TUTORIAL)
    password = re.search(r"DJANGO_SUPERUSER_PASSWORD=(\S+)", TUTORIAL)
    assert user and password
    assert f"sign in as `{user.group(1)}` (password `{password.group(1)}`)" in TUTORIAL


def test_every_console_block_but_the_installation_is_run():
    skipped = [block for block in blocks(TUTORIAL) if block.info == "console" and not block.run]
    assert len(skipped) == 1 and "pip install" in "\n".join(skipped[0].lines)
