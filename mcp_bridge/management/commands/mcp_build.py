"""``manage.py mcp_build``: build every API group and version and write it to the build store.

A deploy step, like ``collectstatic``: run it once per release, before the new processes
start, and each of them loads its groups from the store (``MCP_BRIDGE["BUILD_STORE"]``,
:mod:`mcp_bridge.store.builds`) instead of running drf-spectacular and the build itself.
Every group is built afresh (the store is written, never read), and its ``tools/list``
pages are encoded before it is stored, for the protocol revisions and schema profiles
given (by default the latest revision of each era, the handshake one and the stateless one,
in ``SCHEMA_PROFILE``), so that a loading process answers its first ``tools/list`` without
encoding anything. A search-mode group's
search indexes (docs/discovery.md) of its own texts and of its default language are part of
every build; ``--language`` adds the index of another language its callers negotiate, so that
a loading process answers their first search without indexing anything either.

A group that cannot be built is stored as refused (every process answers HTTP 500 at its
endpoint, as after its own build), printed with its problems, and makes the command exit
with status 1, so that a deploy script stops; so does a build that cannot be written (Redis
down, a full disk). A store no server would read from stops the command before it builds
anything: a cache no other process shares (``W140``), a directory it cannot write (``E141``,
``W141``) or that anyone may write to (``E142``: the servers refuse to load from it), or a
cache that would unpickle a stored value before its signature is checked (``E320``).

Usage::

    python manage.py mcp_build                  # every group and version
    python manage.py mcp_build catalog orders   # some groups
    python manage.py mcp_build --revision 2025-11-25 --revision 2026-07-28 --profile inline
    python manage.py mcp_build --language de --language uk   # search indexes of these languages
    python manage.py mcp_build --prune          # and delete the group's other builds (file store)
"""

from __future__ import annotations

import sys
import time
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError
from django.http import HttpRequest

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    LATEST_HANDSHAKE_REVISION,
    MODERN_REVISIONS,
    PROTOCOL_VERSION_META_KEY,
    SUPPORTED_REVISIONS,
)
from mcp_bridge.dispatch.methods import Call, handle_message
from mcp_bridge.schemas.profiles import PROFILES
from mcp_bridge.store.backends import (
    BuildStore,
    FileBuildStore,
    find_store_problems,
    get_build_store,
)
from mcp_bridge.store.builds import save
from mcp_bridge.store.keys import build_key
from mcp_bridge.toolset.registry import (
    ToolSet,
    UnknownEndpoint,
    build_toolset,
    check_groups,
    get_groups,
    get_url_index,
)

#: The revisions whose pages are encoded by default: the latest of each era, so that a
#: client of either gets its first tools/list from the store.
DEFAULT_REVISIONS = (LATEST_HANDSHAKE_REVISION, MODERN_REVISIONS[-1])


def encode_pages(toolset: ToolSet, revision: str, profile: str) -> int:
    """Answer ``tools/list`` for every page of ``toolset`` once, as the endpoint does for a
    caller who may use every tool, so that the encoded pages are cached on it (and stored
    with it). Returns the page count."""
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
        if revision in MODERN_REVISIONS:
            params["_meta"] = {
                PROTOCOL_VERSION_META_KEY: revision,
                CLIENT_CAPABILITIES_META_KEY: {},
            }
        # The pages of the whole list: what every caller who may use every tool gets (a
        # caller who may use fewer gets pages of their own, encoded on their first list).
        call = Call(
            HttpRequest(),
            toolset,
            revision,
            check_headers=False,
            schema_profile=profile,
            every_tool=True,
        )
        answer = handle_message(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}, call
        )
        if answer is None or "result" not in answer:
            raise CommandError(f"tools/list of group {toolset.group!r} failed: {answer}")
        pages += 1
        cursor = answer["result"].get("nextCursor")
        if cursor is None:
            return pages


class Command(BaseCommand):
    help = (
        "Build every MCP API group and version and write it to the build store "
        '(MCP_BRIDGE["BUILD_STORE"]), so that every process loads it instead of building it: '
        "a deploy step, like collectstatic."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("groups", nargs="*", help="Only these API groups (default: all).")
        parser.add_argument(
            "--revision",
            action="append",
            choices=SUPPORTED_REVISIONS,
            help="Encode the tools/list pages for this protocol revision (repeatable; default "
            f"{' and '.join(DEFAULT_REVISIONS)}, the latest of each era).",
        )
        parser.add_argument(
            "--profile",
            action="append",
            choices=PROFILES,
            help='Encode the pages in this schema profile (repeatable; default MCP_BRIDGE["SCHEMA_PROFILE"]).',
        )
        parser.add_argument(
            "--language",
            action="append",
            default=[],
            help="Build the search index of a search-mode group for callers of this language, "
            "a code of LANGUAGES (repeatable; the default language's is always built).",
        )
        parser.add_argument(
            "--prune",
            action="store_true",
            help="Delete the file store's other builds of each group/version: earlier releases', "
            "and those of any other settings writing to the same directory.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            store = get_build_store()
        except ImproperlyConfigured as exc:  # E140, E320: call_command skips the checks
            raise CommandError(str(exc)) from exc
        if store is None:
            raise CommandError(
                'MCP_BRIDGE["BUILD_STORE"] is None: there is no store to write to. Set it to {} '
                'for the default file store, or {"BACKEND": "cache", "CACHE_ALIAS": "..."}.'
            )
        refuse_useless_store(store, prune=options["prune"])
        groups = get_groups()
        try:
            check_groups(options["groups"])
        except UnknownEndpoint as exc:
            raise CommandError(str(exc)) from exc
        known_languages = [code for code, _ in settings.LANGUAGES]
        foreign = [code for code in options["language"] if code not in known_languages]
        if foreign:
            raise CommandError(
                f"Unknown language(s): {', '.join(foreign)}. A caller's language is one of "
                f"LANGUAGES: {', '.join(known_languages)}."
            )
        revisions = options["revision"] or list(DEFAULT_REVISIONS)
        profiles = options["profile"] or [bridge_settings.SCHEMA_PROFILE]
        index = get_url_index()
        refused = unindexed = unstored = search_groups = 0
        self.stdout.write(f"Writing builds to {store.describe()}.")
        for group, versions in groups.items():
            if options["groups"] and group not in options["groups"]:
                continue
            for version in versions:
                label = group + (f" {version}" if version else "")
                start = time.perf_counter()
                build = build_toolset(group, version)
                pages = 0
                if isinstance(build, ToolSet):
                    pages = sum(encode_pages(build, r, p) for r in revisions for p in profiles)
                    # The build made its own texts' index; these are the languages' copies'.
                    for unreadable in build.build_search_indexes(options["language"]):
                        unindexed += 1
                        self.stderr.write(f"{label}: a search index is not built: {unreadable}")
                key = build_key(group, version, None, index)
                size = save(store, key, build, index)
                seconds = time.perf_counter() - start
                unstored += size is None
                stored = (
                    f"{size / 1024:.1f} KiB" if size is not None else "NOT STORED (see the log)"
                )
                if isinstance(build, ToolSetError):
                    refused += 1
                    self.stderr.write(f"{label}: refused, {stored} [{seconds:.2f} s]")
                    for problem in build.problems:
                        self.stderr.write(f"  [{problem.id}] {problem.msg} Hint: {problem.hint}")
                else:
                    search_groups += bool(build.discovery.search)
                    indexes = len(build.search_indexes) + len(build.prebuilt_indexes)
                    searched = f", {indexes} search index(es)" if build.discovery.search else ""
                    self.stdout.write(
                        f"{label}: {len(build.tools)} tools, {pages} pages{searched}, {stored}, "
                        f"key {key.digest[:12]} [{seconds:.2f} s]"
                    )
                if options["prune"] and isinstance(store, FileBuildStore) and size is not None:
                    for path in store.prune(group, version, key.name):
                        self.stdout.write(f"  deleted {path.name}")
        if refused:
            self.stderr.write(
                f"{refused} group/version(s) cannot be built; fix them and run again."
            )
        if unindexed:
            self.stderr.write(
                f"{unindexed} search index(es) cannot be built: a catalogue cannot be read "
                "(its language's endpoint answers HTTP 500); fix it and run again."
            )
        if options["language"] and not search_groups:
            self.stdout.write(
                "--language: no group built here is in search mode, and only those have search "
                'indexes (MCP_BRIDGE["DISCOVERY"], docs/discovery.md); nothing else is per language.'
            )
        if unstored:
            self.stderr.write(
                f"{unstored} build(s) cannot be written to {store.describe()} (the log of "
                "mcp_bridge.store says why): every server process would build them itself; "
                "fix the store and run again."
            )
        if refused or unindexed or unstored:
            sys.exit(1)


def refuse_useless_store(store: BuildStore, *, prune: bool) -> None:
    """Stop before building anything when no server process would read what the command
    writes, or when ``--prune`` cannot do what it says.

    Raises:
        CommandError: a problem of the store's system check (``call_command`` skips the
            checks): a cache no other process shares (``W140``: the builds would die with
            the command), a directory that cannot be written (``E141``, ``W141``) or that no
            process loads from (``E142``); or ``--prune`` given for a cache store.
    """
    problems = find_store_problems()
    if problems:
        first = problems[0]
        raise CommandError(
            f"mcp_build would write its builds where no server reads them: [{first.id}] "
            f"{first.msg} {first.hint}"
        )
    if prune and not isinstance(store, FileBuildStore):
        raise CommandError(
            f"--prune deletes the file store's files; the store is {store.describe()}, whose "
            'builds expire after BUILD_STORE["TIMEOUT"] seconds (or as the cache evicts them): '
            "set a TIMEOUT, or leave --prune out."
        )
