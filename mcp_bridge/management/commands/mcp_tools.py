"""``manage.py mcp_tools``: inspect the published groups and tools; fail on problems.

Examples::

    manage.py mcp_tools                               # every endpoint, its tools, and why each is there
    manage.py mcp_tools --validate                    # CI: every check, the full build included
    manage.py mcp_tools --validate --fail-on-warn     # ... and warnings (W050...) fail too
    manage.py mcp_tools --base-url http://127.0.0.1:8000
    manage.py mcp_tools catalog --json                # the tools/list of one group, as JSON
    manage.py mcp_tools catalog --api-version v2 --json
    manage.py mcp_tools catalog --language uk --json  # with the texts a uk client gets
    manage.py mcp_tools catalog --schema portable --json  # the schemas a ?schema=portable client gets
    manage.py mcp_tools catalog --probe-output --user alice --follow-lists
    manage.py mcp_tools --tokens                      # what each listing costs, per profile and mode

Each endpoint is shown with its schema profile (``SCHEMA_PROFILE``, or ``--schema``)
and the URL that selects it, so that a user can paste the one that fits a client.

``--probe-output`` calls the group's read-only tools that need no arguments (as
``--user``, each a real request to the endpoint through the middleware stack; see
:mod:`mcp_bridge.management.probe`), reports each result that does not match its
``outputSchema``, and counts the tools it skipped, with the reason; it exits with
status 1 when a result does not match. A ``--user`` that names no user stops it before
anything is built.

It builds the tools exactly as the endpoint does, so it is also a CI check: it
exits with status 1, listing every problem, when a group cannot be built.

Each listed tool says why it is in its group: ``@api_group`` (a decorator), or the
``MCP_BRIDGE["GROUPS"]`` include rule that put it there (:mod:`mcp_bridge.build.membership`).

``--tokens`` prints, for each group, in each schema profile and in both discovery modes
(``MCP_BRIDGE["DISCOVERY"]``, docs/discovery.md), the tools of its ``tools/list``, their
bytes and estimated tokens (:func:`mcp_bridge.base.tokens.estimate_tokens`), and marks the
mode the group is in. The endpoint line of the default output names the mode too.

``--validate`` runs every mcp_bridge system check, the deployment check that builds
every group/version included (:mod:`mcp_bridge.checks`), prints them as
``manage.py check`` does, and exits with status 1 on an error (or, with
``--fail-on-warn``, a warning). It lists no tools.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core import checks
from django.core.management.base import BaseCommand, CommandError
from django.urls import NoReverseMatch, reverse
from django.utils.translation import get_supported_language_variant

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.encoding import dumps_readable
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION
from mcp_bridge.build.naming import is_portable
from mcp_bridge.checks import TAG
from mcp_bridge.discovery.metatools import search_listing
from mcp_bridge.discovery.modes import listing_size
from mcp_bridge.management.probe import Skipped, probe_toolset
from mcp_bridge.schemas.profiles import PROFILES, QUERY_PARAMETER
from mcp_bridge.tasks.policy import TaskPolicy, policy_of
from mcp_bridge.toolset.registry import (
    UnknownEndpoint,
    check_groups,
    get_groups,
    get_toolset,
    resolve_version,
)
from mcp_bridge.transport.endpoint import mcp_endpoint
from mcp_bridge.transport.reach import endpoint_paths


def task_note(policy: TaskPolicy) -> str:
    """What a listed tool may become for a client that declares the Tasks extension
    (docs/tasks.md): every tool's ``202 Accepted`` with a ``Location`` becomes a job task, so
    only the tools whose policy says more, or less, are marked."""
    if policy.mode == "run":
        after = f", after {policy.after:g} s" if policy.after else ""
        return "  [task: run" + after + (", required]" if policy.required else "]")
    if policy.mode == "job" or policy.job_status is not None:
        return "  [task: job" + (", required]" if policy.required else "]")
    if policy.mode == "never":
        return "  [task: never]"
    return "  [task: required]" if policy.required else ""


class Command(BaseCommand):
    help = "List the MCP endpoints and tools of every API group, or print one group's tools/list."
    requires_system_checks: list[str] = []  # the command reports the same problems itself

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("group", nargs="?", help="only this group")
        parser.add_argument(
            "--api-version", dest="api_version", help="the API version (versioned groups)"
        )
        parser.add_argument(
            "--json", action="store_true", help="print the tools/list result as JSON"
        )
        parser.add_argument("--base-url", default="", help="prefix for the printed endpoint URLs")
        parser.add_argument(
            "--language",
            help="translate the texts as for a client of this language (default: the code's texts)",
        )
        parser.add_argument(
            "--schema",
            choices=PROFILES,
            dest="schema_profile",
            help="write the schemas in this profile (default: the SCHEMA_PROFILE setting)",
        )
        parser.add_argument(
            "--probe-output",
            action="store_true",
            help="call the read-only tools that need no arguments and report output mismatches",
        )
        parser.add_argument("--user", help="--probe-output: call as this user (default: anonymous)")
        parser.add_argument(
            "--follow-lists",
            action="store_true",
            help="--probe-output: also fetch each list tool's first item with its retrieve tool",
        )
        parser.add_argument(
            "--tokens",
            action="store_true",
            help="print the tools, bytes and estimated tokens of each listing, per profile and mode",
        )
        parser.add_argument(
            "--validate",
            action="store_true",
            help="run every mcp_bridge check, the full build of every group included; exit 1 on errors",
        )
        parser.add_argument(
            "--fail-on-warn", action="store_true", help="with --validate: warnings fail too"
        )

    def handle(
        self, *args: Any, group: str | None, api_version: str | None, **options: Any
    ) -> None:
        # Before anything is built: a misspelt user must not cost a whole build.
        probe_user = self._probe_user(options.get("user"), options.get("probe_output", False))
        if options["validate"]:
            # Django's own check runner and output; SystemCheckError makes the exit status 1.
            self.check(
                tags=[TAG],
                include_deployment_checks=True,
                display_num_errors=True,
                fail_level=checks.WARNING if options["fail_on_warn"] else checks.ERROR,
            )
            return
        groups = get_groups()
        try:
            if group is not None:
                check_groups([group])
                if api_version is not None:
                    resolve_version(group, api_version)
        except UnknownEndpoint as exc:
            raise CommandError(str(exc)) from exc
        language = self._language(options.get("language"))
        profile = options.get("schema_profile") or bridge_settings.SCHEMA_PROFILE
        failures = []
        selected = {group: groups[group]} if group else groups
        listing: dict[str, Any] = {}
        for name, versions in selected.items():
            for version in versions:
                if api_version and version != api_version:
                    continue
                try:
                    toolset = get_toolset(name, version, language)
                except ToolSetError as exc:
                    failures.append(str(exc))
                    continue
                if options.get("tokens"):
                    self._tokens(toolset)
                    continue
                if options.get("probe_output"):
                    failures += self._probe(
                        toolset, options.get("user"), probe_user, options.get("follow_lists", False)
                    )
                    continue
                tools = [tool.as_mcp(LATEST_HANDSHAKE_REVISION, profile) for tool in toolset.tools]
                if options["json"]:
                    listing[f"{name}/{version}" if version else name] = {"tools": tools}
                    continue
                url = options["base_url"].rstrip("/") + self._endpoint_path(name, version)
                if profile != bridge_settings.SCHEMA_PROFILE:
                    url += f"?{QUERY_PARAMETER}={profile}"
                mode = "search" if toolset.discovery.search else "direct"
                self.stdout.write(
                    f"{url}  ({len(tools)} tools; discovery {toolset.discovery.mode}: {mode}; "
                    f"schema profile {profile}; names: {self._portability(tools)})"
                )
                for tool, built in zip(tools, toolset.tools, strict=True):
                    why = " + ".join(str(reason) for reason in built.method.source.membership)
                    self.stdout.write(
                        f"    {tool['name']:32} {tool.get('title', ''):40} via {why}"
                        f"{task_note(policy_of(built))}"
                    )
        if options["json"]:
            value = next(iter(listing.values())) if len(listing) == 1 else listing
            self.stdout.write(dumps_readable(value))
        if failures:
            raise CommandError("\n".join(failures))

    def _tokens(self, toolset: Any) -> None:
        """One line per schema profile and discovery mode: tools, bytes, estimated tokens."""
        label = f"{toolset.group}/{toolset.version}" if toolset.version else toolset.group
        active = "search" if toolset.discovery.search else "direct"
        self.stdout.write(
            f"{label}  (discovery {toolset.discovery.mode}: {active}; tokens estimated from the "
            f"JSON text of the tools array, {LATEST_HANDSHAKE_REVISION})"
        )
        self.stdout.write(
            f"    {'profile':10} {'mode':8} {'tools':>6} {'bytes':>12} {'tokens':>10}"
        )
        listings = {
            "direct": toolset.tools,
            "search": search_listing(toolset.group, toolset.tools),
        }
        for profile in PROFILES:
            for mode, tools in listings.items():
                size, tokens = listing_size(tools, LATEST_HANDSHAKE_REVISION, profile)
                mark = "*" if mode == active else " "
                self.stdout.write(
                    f"    {profile:10} {mode + mark:8} {len(tools):>6} {size:>12,} {tokens:>10,}"
                )

    @staticmethod
    def _probe_user(username: str | None, probe_output: bool) -> Any:
        """The user ``--user`` names, or ``None``; a clear error for a name that is no user."""
        if username is None:
            return None
        if not probe_output:
            raise CommandError("--user only applies to --probe-output: add --probe-output.")
        model = get_user_model()
        try:
            return model._default_manager.get_by_natural_key(username)
        except model.DoesNotExist:
            raise CommandError(
                f"No user {username!r}: --user takes the {model.USERNAME_FIELD} of an existing "
                f"{model._meta.label} (check the spelling; `manage.py createsuperuser` makes one, "
                "or leave --user out to probe as an anonymous caller)."
            ) from None

    def _probe(
        self, toolset: Any, username: str | None, user: Any, follow_lists: bool
    ) -> list[str]:
        """Print one line per probed call (and its mismatches), then the skipped tools; the
        failures to exit with."""
        label = f"{toolset.group}/{toolset.version}" if toolset.version else toolset.group
        found = [
            e.path
            for e in endpoint_paths(mcp_endpoint, {toolset.group: [toolset.version]})
            if e.version == toolset.version
        ]
        if not found:
            hint = 'add path("mcp/", include("mcp_bridge.urls"))'
            return [f"{label}: no endpoint of this group in the URLconf (mcp_bridge.W084): {hint}."]
        self.stdout.write(
            f"# {label}: probing read-only tools at {found[0]} as {username or 'an anonymous user'}, "
            "through the middleware"
        )
        probe = probe_toolset(toolset, found[0], user=user, follow_lists=follow_lists)
        failures = []
        for report in probe.reports:
            arguments = dumps_readable(report.arguments, indent=None) if report.arguments else ""
            code = "" if report.code is None else str(report.code)
            self.stdout.write(f"{report.tool:32} {report.outcome:9} {code:4} {arguments}".rstrip())
            if report.outcome == "MISMATCH":
                failures.append(
                    f"Tool {report.tool!r}: its data does not match its outputSchema (see above)."
                )
                for error in report.errors:
                    what = (
                        "missing, but required"
                        if error["keyword"] == "required"
                        else f"{error['found']} breaks {error['keyword']}"
                    )
                    more = f" (and {error['count'] - 1} more like it)" if "count" in error else ""
                    self.stdout.write(f"    {error['path']}: {what} at {error['schemaPath']}{more}")
            elif report.outcome == "ERROR":
                self.stdout.write(f"    {report.message.splitlines()[0] if report.message else ''}")
                if not report.reached:
                    failures.append(
                        f"Tool {report.tool!r}: the middleware answered HTTP {report.code} "
                        "instead of the MCP endpoint (see above)."
                    )
        self._print_skipped(probe.skipped, len(toolset.tools))
        return failures

    def _print_skipped(self, skipped: list[Skipped], total: int) -> None:
        if not skipped:
            self.stdout.write(f"# called every tool of {total}")
            return
        self.stdout.write(f"# skipped {len(skipped)} of {total} tools:")
        reasons = {
            "writes": "they write (never called)",
            "arguments": "they require arguments",
            "no outputSchema": "no outputSchema to check them against",
        }
        for reason, text in reasons.items():
            tools = [s for s in skipped if s.reason == reason]
            if not tools:
                continue
            names = ", ".join(
                f"{s.tool} ({', '.join(s.detail)})" if s.detail else s.tool for s in tools
            )
            self.stdout.write(f"#   {len(tools)}, {text}: {names}")

    @staticmethod
    def _portability(tools: list[dict[str, Any]]) -> str:
        """Whether strict clients (Claude, ChatGPT) accept every name of an endpoint."""
        refused = [tool["name"] for tool in tools if not is_portable(tool["name"])]
        if not refused:
            return "portable"
        return f"{len(refused)} of {len(tools)} not portable ({', '.join(refused)}), see mcp_bridge.W010"

    @staticmethod
    def _language(code: str | None) -> str | None:
        """The ``LANGUAGES`` variant an endpoint would negotiate for ``code`` (``de-AT`` → ``de``)."""
        if code is None:
            return None
        try:
            return get_supported_language_variant(code)
        except LookupError:
            raise CommandError(
                f"Unknown language {code!r}: it is not in settings.LANGUAGES."
            ) from None

    @staticmethod
    def _endpoint_path(group: str, version: str | None) -> str:
        try:
            if version:
                return reverse(
                    "mcp_bridge:endpoint-version", kwargs={"group": group, "version": version}
                )
            return reverse("mcp_bridge:endpoint", kwargs={"group": group})
        except NoReverseMatch:
            return f"<mcp_bridge.urls not included>/{group}/"
