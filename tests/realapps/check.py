"""Build a real DRF application's whole API with the bridge, and check it (``scripts/realapps``).

Run by ``scripts/realapps`` in the application's own virtualenv, with the repository on
``PYTHONPATH`` (so that this checkout's ``mcp_bridge`` is the one built)::

    python -m tests.realapps.check APP [--fresh] [--update]

Everything happens in this one process, so that the application's group is built once:

1. the application is configured (``tests/realapps/APP/app.py``), its database created when
   missing (``--fresh``: dropped first) and migrated when a migration is pending;
2. a few objects are seeded with the application's own models (idempotent);
3. ``manage.py mcp_tools --validate``: every mcp_bridge system check, the full build of the
   group included, as a project's CI runs it;
4. the group's tool names are compared with ``tests/realapps/APP/tools.txt``: a tool that
   disappeared fails the run, a new one is reported (``--update`` rewrites the list);
5. a handful of read tools are called with ``manage.py mcp_call`` as the seeded user: each must
   answer without ``isError`` and show a seeded object.

Exits with status 1 when a step fails; the last line names the application and what failed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import pathlib
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent


@dataclass(frozen=True)
class Call:
    """One read tool to call: its arguments (a callable when they depend on the seeded rows,
    e.g. an id) and a text its JSON answer must contain (a seeded object's name)."""

    tool: str
    arguments: dict[str, Any] | Callable[[], dict[str, Any]] = field(default_factory=dict)
    expect: str = ""


class Failed(Exception):
    """A step failed: the message says which and what to do."""


def say(app: str, message: str) -> None:
    print(f"realapps {app}: {message}", flush=True)


def read_expected(path: pathlib.Path) -> list[str]:
    """The committed tool names: one a line, ``#`` starts a comment."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def write_expected(path: pathlib.Path, app: Any, names: list[str]) -> None:
    header = (
        f"# The tools of group {app.GROUP!r} built from {app.DISTRIBUTION} "
        f"{app.installed_version()} ({len(names)} tools).\n"
        f"# scripts/realapps fails when one of them disappears. After a deliberate change:\n"
        f"#   scripts/realapps --update {app.NAME}\n"
        f"# then review `git diff tests/realapps/{app.NAME}/tools.txt` and commit it.\n"
    )
    path.write_text(header + "".join(f"{name}\n" for name in names), encoding="utf-8")


def validate(app: Any) -> None:
    """``manage.py mcp_tools --validate``; its report is printed when it fails, and its
    warnings are counted by id."""
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("mcp_tools", validate=True, stdout=out, stderr=err)
    except SystemCheckError as exc:
        print(err.getvalue() or str(exc), file=sys.stderr)
        print(out.getvalue(), file=sys.stderr)
        raise Failed(
            f"`manage.py mcp_tools --validate` failed (the errors are above): {str(exc).strip().splitlines()[-1]}"
        ) from None
    report = out.getvalue() + err.getvalue()
    warnings = Counter(
        word.rstrip(":")
        for line in report.splitlines()
        for word in line.split()[:3]
        if word.startswith("mcp_bridge.W")
    )
    counted = ", ".join(f"{ident} x{n}" for ident, n in sorted(warnings.items()))
    say(app.NAME, "mcp_tools --validate: no error" + (f" (warnings: {counted})" if counted else ""))


def compare_names(app: Any, names: list[str], update: bool, path: pathlib.Path) -> None:
    """Compare the built tool names with the committed list at ``path`` (written when missing
    or with ``update``).

    Raises:
        Failed: a tool of the list is not built any more (each is named).
    """
    if not names:
        raise Failed(
            f"the group {app.GROUP!r} was built with no tools at all: its endpoint serves nothing"
        )
    if update or not path.exists():
        write_expected(path, app, names)
        say(app.NAME, f"wrote {len(names)} tool names to {path}: review and commit it")
        return
    expected = read_expected(path)
    gone = sorted(set(expected) - set(names))
    new = sorted(set(names) - set(expected))
    say(app.NAME, f"{len(names)} tools built, {len(expected)} expected ({path.name})")
    if new:
        say(
            app.NAME,
            f"{len(new)} new tool(s), not in {path}: {', '.join(new)}. If they are meant to be "
            f"there, run `scripts/realapps --update {app.NAME}` and commit the list.",
        )
    if gone:
        shown = ", ".join(gone[:40]) + (f" ... and {len(gone) - 40} more" if len(gone) > 40 else "")
        raise Failed(
            f"{len(gone)} tool(s) of {path} disappeared from the build: {shown}. "
            f"A change of the bridge dropped them (or renamed them: see the new tools above); "
            f"only if that is intended, run `scripts/realapps --update {app.NAME}` and commit the list."
        )


def call_tools(app: Any, toolset: Any) -> int:
    """Call each of ``app.CALLS`` through ``manage.py mcp_call``; returns how many answered."""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    failures = []
    for call in app.CALLS:
        arguments = call.arguments() if callable(call.arguments) else call.arguments
        if call.tool not in toolset.by_name:
            failures.append(f"{call.tool}: no such tool in the build")
            continue
        out, err = io.StringIO(), io.StringIO()
        try:
            call_command(
                "mcp_call",
                app.GROUP,
                call.tool,
                json.dumps(arguments),
                user=app.USER,
                api_version=app.API_VERSION,
                stdout=out,
                stderr=err,
            )
            status = 0
        except SystemExit as exc:  # mcp_call: 1 for an isError result, 2 for a JSON-RPC error
            status = int(exc.code or 0)
        except CommandError as exc:  # refused before the call: no such group or version
            failures.append(f"{call.tool}: mcp_call refused: {exc}")
            continue
        answer = out.getvalue() + err.getvalue()
        if status:
            failures.append(
                f"{call.tool} {json.dumps(arguments)} answered an error: {answer[:600]}"
            )
        elif call.expect not in answer:
            failures.append(
                f"{call.tool} {json.dumps(arguments)} answered without {call.expect!r}: {answer[:600]}"
            )
        else:
            say(app.NAME, f"mcp_call {call.tool}: ok ({len(answer)} bytes)")
    if failures:
        raise Failed(
            f"{len(failures)} of {len(app.CALLS)} tool calls failed:\n  " + "\n  ".join(failures)
        )
    return len(app.CALLS)


def list_as_anonymous(app: Any, version: str | None) -> int:
    """The group's ``tools/list`` for a caller without credentials, filtered by each view's own
    checks (``FILTER_TOOLS_LIST``, the default), in one page and in pages of 50: it answers, and
    the pages hold the same tools; returns how many the caller sees."""
    from django.test import RequestFactory
    from django.test.utils import override_settings

    from mcp_bridge.transport.endpoint import mcp_endpoint

    def listed(cursor: str | None) -> dict[str, Any]:
        params = {} if cursor is None else {"cursor": cursor}
        request = RequestFactory().post(
            "/mcp/",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}),
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
        )
        response = mcp_endpoint(request, app.GROUP, version)
        answer = json.loads(response.content)
        if response.status_code != 200 or "result" not in answer:
            raise Failed(f"tools/list for an anonymous caller: {response.content[:600]!r}")
        return answer["result"]

    whole = {tool["name"] for tool in listed(None)["tools"]}
    paged: list[str] = []
    with override_settings(MCP_BRIDGE={**settings_of_bridge(), "PAGE_SIZE": 50}):
        cursor = None
        while True:
            page = listed(cursor)
            paged += [tool["name"] for tool in page["tools"]]
            cursor = page.get("nextCursor")
            if cursor is None:
                break
    if sorted(paged) != sorted(whole):
        raise Failed(
            f"the anonymous caller's pages hold {len(paged)} tools, its whole list {len(whole)}"
        )
    return len(whole)


def settings_of_bridge() -> dict[str, Any]:
    from django.conf import settings

    return dict(getattr(settings, "MCP_BRIDGE", {}))


def run(app: Any, fresh: bool, update: bool) -> str:
    started = time.monotonic()

    def step(label: str) -> None:
        say(app.NAME, f"{label} ({time.monotonic() - started:.0f} s)")

    app.setup(fresh=fresh)
    step(f"{app.DISTRIBUTION} {app.installed_version()} configured")
    try:
        return _checked(app, update, step, started)
    finally:
        app.cleanup()


def _checked(app: Any, update: bool, step: Callable[[str], None], started: float) -> str:
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    # Always run, even with nothing pending: the post_migrate receivers (content types, the
    # application's own defaults) must have run once, and a run they failed in applied
    # every migration already. Migrations print their progress themselves (Nautobot's data
    # migrations): shown only when they fail.
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            call_command("migrate", verbosity=0, interactive=False)
    except Exception:
        print(printed.getvalue(), file=sys.stderr)
        raise
    step(f"database migrated ({len(pending)} migrations were pending)")
    with app.context():
        app.seed()
        step("database seeded")
        from mcp_bridge.toolset.registry import UnknownEndpoint, get_toolset, resolve_version

        validate(app)
        step("group built and validated")
        try:
            # The build its endpoint serves (what mcp_call and a client get), not another one.
            version = resolve_version(app.GROUP, app.API_VERSION)
        except UnknownEndpoint as exc:
            raise Failed(f"no endpoint serves the group: {exc}") from None
        toolset = get_toolset(app.GROUP, version)
        names = sorted(tool.name for tool in toolset.tools)
        compare_names(app, names, update, HERE / app.NAME / "tools.txt")
        calls = call_tools(app, toolset)
        anonymous = list_as_anonymous(app, version)
        step(f"listed for an anonymous caller: {anonymous} tools, whole and in pages")
    return f"{app.NAME} {len(names)} tools, {calls} calls, {time.monotonic() - started:.0f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app", help="a directory of tests/realapps/")
    parser.add_argument("--fresh", action="store_true", help="drop the database first")
    parser.add_argument("--update", action="store_true", help="rewrite the expected tool list")
    options = parser.parse_args()
    app = importlib.import_module(f"tests.realapps.{options.app}.app")
    try:
        summary = run(app, options.fresh, options.update)
    except Failed as exc:
        say(app.NAME, f"FAILED: {exc}")
        sys.exit(1)
    say(app.NAME, f"passed: {summary}")


if __name__ == "__main__":
    main()
