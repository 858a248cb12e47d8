"""The build store: a tool set built once and loaded by other processes (mcp_bridge.store.builds).

Each round trip stores a group's build, forgets it, and loads it with the build itself made
to fail (``registry._build`` raising), so that a passing test proves the tool set came from
the store: in files, in Django's LocMem cache and in a real Redis (skipped with the reason
when absent). The key tests change one input of a build at a time (a setting that shapes the
schemas, a catalogue file, the URLconf's operations, the project's code, the release) and
show that the key changes with it and that the stale build is not served. Concurrent
builders are real OS processes sharing one file store and one lock directory.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import include, path

from mcp_bridge.base.conf import DEFS, bridge_settings
from mcp_bridge.base.errors import ToolSetError
from mcp_bridge.base.protocol import LATEST_HANDSHAKE_REVISION, MODERN_REVISIONS
from mcp_bridge.build import translation
from mcp_bridge.checks import check_build_store
from mcp_bridge.discovery.metatools import SEARCH_TOOL
from mcp_bridge.locking import get_lock_backend
from mcp_bridge.store import backends, builds, codec, keys, packing
from mcp_bridge.toolset import registry
from tests.mcp_client import McpClient
from tests.services import REDIS_URL, redis_prefix, require_redis

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db


def _never_built(*args, **kwargs):
    raise AssertionError("the group was built, not loaded from the store")


def _configure(settings, tmp_path: Path, **build_store) -> Path:
    """A file store (unless ``build_store`` says otherwise) and lock directory of this test."""
    directory = tmp_path / "builds"
    settings.MCP_BRIDGE = {
        "SERVER_NAME": "tests",
        "BUILD_STORE": {"DIRECTORY": str(directory), **build_store},
        "LOCK_OPTIONS": {"directory": str(tmp_path / "locks")},
    }
    registry.clear_cache()
    translation.clear_cache()
    builds._reported.clear()  # a bad stored build is logged once per process and key
    return directory


def _forget() -> None:
    """What a new process starts with: no tool set in memory."""
    registry.clear_cache()
    translation.clear_cache()


@pytest.fixture(params=["files", "locmem", "redis"])
def configured_store(request, settings, tmp_path):
    """A build store of each kind, empty, used by the registry."""
    prefix = redis_prefix("store")
    if request.param == "files":
        _configure(settings, tmp_path)
    else:
        if request.param == "redis":
            require_redis()
            backend = {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": REDIS_URL,
                "KEY_PREFIX": prefix,
            }
        else:
            backend = {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "LOCATION": prefix,
            }
        settings.CACHES = {**settings.CACHES, "builds": backend}
        _configure(settings, tmp_path, BACKEND="cache", CACHE_ALIAS="builds")
    yield request.param
    if request.param == "redis":
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.delete(*keys)


def _listed(path: str) -> list[dict]:
    return McpClient(path=path).list_tools()


def test_round_trip(configured_store, monkeypatch):
    built = registry.get_toolset("ledger")
    listed = _listed("/mcp/ledger/")
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)

    loaded = registry.get_toolset("ledger")

    assert loaded is not built
    assert [t.name for t in loaded.tools] == [t.name for t in built.tools]
    assert list(loaded.by_name) == list(built.by_name)
    for revision in ("2025-03-26", LATEST_HANDSHAKE_REVISION, "2026-07-28"):
        assert [t.as_mcp(revision) for t in loaded.tools] == [
            t.as_mcp(revision) for t in built.tools
        ]
    # Kept packed until read: openrpc.json serves it as built.
    assert isinstance(loaded._openrpc, packing.PackedDocument)
    served = Client().get("/mcp/ledger/openrpc.json")
    assert served.status_code == 200, served.content[:300]
    assert served.json()["methods"] == built.openrpc_in(DEFS)["methods"]
    assert loaded.openrpc == built.openrpc
    assert loaded.warnings == built.warnings
    assert _listed("/mcp/ledger/") == listed
    # The call path works on what was loaded: validators are compiled on first use.
    result = McpClient(path="/mcp/ledger/").call("whoami", {})
    assert result["isError"] is False, result
    refused = McpClient(path="/mcp/ledger/").call("ledger_retrieve", {"id": "not a number"})
    assert refused["isError"] is True


def test_shared_schema_objects_stay_shared(configured_store, monkeypatch):
    """The tools of a build share their ``$defs`` entries; a loaded build does too."""
    registry.get_toolset("cases")
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    loaded = registry.get_toolset("cases")
    shared = {}
    for tool in loaded.tools:
        for name, definition in (tool.result_schema or {}).get("$defs", {}).items():
            shared.setdefault(name, set()).add(id(definition))
    assert shared and all(len(ids) == 1 for ids in shared.values())


def test_caches_stay_apart_when_equal_values_are_shared(configured_store, monkeypatch):
    """Sharing equal JSON values never merges two objects' caches (attributes whose name
    starts with ``_``) or empty containers, which later requests fill."""
    registry.get_toolset("ledger")
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    loaded = registry.get_toolset("ledger")
    caches = [tool._profiled_input for tool in loaded.tools]
    assert len({id(cache) for cache in caches}) == len(caches)
    assert loaded.pages is not loaded.documents
    first, second = loaded.tools[:2]
    first.input_schema_in("inline")
    assert "inline" not in second._profiled_input


def test_a_view_class_without_an_import_path_is_found_in_the_urlconf(settings, tmp_path):
    _configure(settings, tmp_path)
    built = registry.get_toolset("ledger")
    whoami = built.by_name["whoami"].method.source.view_class
    assert not codec._importable(whoami)  # @api_view's WrappedAPIView, made at run time
    index = registry.get_url_index()
    loaded = codec.loads(codec.dumps(built, index), index)
    assert loaded.by_name["whoami"].method.source.view_class is whoami
    # A URLconf without its route: the build is stale, not loaded with a wrong view.
    without = registry.UrlIndex(
        versions=index.versions,
        endpoints=index.endpoints,
        api_path_regexes=[(r, c) for r, c in index.api_path_regexes if c is not whoami],
    )
    with pytest.raises(codec.StaleBuild, match="whoami"):
        codec.loads(codec.dumps(built, index), without)


def test_a_broken_group_is_refused_from_the_store(configured_store, monkeypatch):
    with pytest.raises(ToolSetError) as built:
        registry.get_toolset("badnames")
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    with pytest.raises(ToolSetError) as loaded:
        registry.get_toolset("badnames")
    assert [p.id for p in loaded.value.problems] == [p.id for p in built.value.problems]
    assert [p.msg for p in loaded.value.problems] == [p.msg for p in built.value.problems]
    assert loaded.value.problems[0].obj == built.value.problems[0].obj
    response = McpClient(path="/mcp/badnames/").post(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert response.status_code == 500
    assert b"mcp_bridge.E001" in response.content or b"misconfigured" in response.content


# -- the key ---------------------------------------------------------------------------------


def _key(group: str = "catalog", urlconf=None) -> str:
    return keys.build_key(group, None, urlconf, registry.get_url_index(urlconf)).digest


def test_the_key_changes_with_a_setting_that_shapes_the_schemas(settings, tmp_path):
    _configure(settings, tmp_path)
    before = _key()
    assert _key() == before  # the same inputs, the same key
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OPEN_WORLD": True}
    open_world = _key()
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OPEN_WORLD": False}
    settings.SPECTACULAR_SETTINGS = {**settings.SPECTACULAR_SETTINGS, "ENUM_NAME_OVERRIDES": {}}
    spectacular = _key()
    assert len({before, open_world, spectacular}) == 3


def test_the_key_changes_with_the_release_but_not_with_the_store_or_the_locks(settings, tmp_path):
    _configure(settings, tmp_path)
    before = _key()
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "BUILD_STORE": {**settings.MCP_BRIDGE["BUILD_STORE"], "WAIT": 5, "LEASE": 30},
        "LOCK_OPTIONS": {"directory": "/elsewhere"},  # where the deploy runs, not what it builds
    }
    assert _key() == before
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "BUILD_STORE": {**settings.MCP_BRIDGE["BUILD_STORE"], "RELEASE": "2026-12-01.1"},
    }
    assert _key() != before


def test_the_key_changes_with_a_catalogue_file(settings, tmp_path):
    _configure(settings, tmp_path)
    locale = tmp_path / "locale"
    settings.LOCALE_PATHS = [str(locale)]
    (locale / "uk" / "LC_MESSAGES").mkdir(parents=True)
    before = _key()
    catalogue = locale / "uk" / "LC_MESSAGES" / "mcp_tools.mo"
    catalogue.write_bytes(b"first")
    first = _key()
    catalogue.write_bytes(b"second")
    second = _key()
    assert len({before, first, second}) == 3


def test_an_installed_distributions_catalogues_are_keyed_by_its_version_not_listed(
    settings, tmp_path, monkeypatch
):
    # tmp_path stands for site-packages: what lies there is an installed distribution's.
    monkeypatch.setattr(keys, "_installed_roots", lambda: (str(tmp_path.resolve()) + os.sep,))
    _configure(settings, tmp_path)
    locale = tmp_path / "locale"
    settings.LOCALE_PATHS = [str(locale)]
    (locale / "uk" / "LC_MESSAGES").mkdir(parents=True)
    (locale / "uk" / "LC_MESSAGES" / "mcp_tools.mo").write_bytes(b"first")
    assert keys._catalogue_files() == []
    monkeypatch.undo()
    _configure(settings, tmp_path)
    settings.LOCALE_PATHS = [str(locale)]
    assert [label for label, _ in keys._catalogue_files()] == ["0/uk/LC_MESSAGES/mcp_tools.mo"]


def _page_description(group: str) -> str:
    tool = next(
        t for t in registry.get_toolset(group).tools if "page" in t.input_schema["properties"]
    )
    return tool.input_schema["properties"]["page"]["description"]


def test_a_django_catalogue_of_the_default_language_changed_since_the_build_is_built_again(
    settings, tmp_path
):
    """The build evaluates the lazy texts (DRF's, the bridge's default texts, a help_text) in
    LANGUAGE_CODE: a project's django.mo for it, compiled after the build, is a new build."""
    import polib

    directory = _configure(settings, tmp_path)
    catalogues = tmp_path / "locale" / settings.LANGUAGE_CODE / "LC_MESSAGES"
    catalogues.mkdir(parents=True)
    settings.LOCALE_PATHS = [str(tmp_path / "locale")]
    stored = _page_description("cases")
    assert stored and any(directory.iterdir())  # built and stored

    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    po.append(polib.POEntry(msgid=stored, msgstr="The page, as this project words it."))
    po.save_as_mofile(str(catalogues / "django.mo"))
    _forget()
    # A worker that started before keeps the texts Django read then, and so its key: it never
    # stores its old texts under the new catalogue's key.
    assert _page_description("cases") == stored
    # A new process: Django reads the catalogues again (setting LOCALE_PATHS makes Django's
    # test signals forget its translations, and the store the digest it read them with).
    settings.LOCALE_PATHS = [str(tmp_path / "locale")]
    _forget()
    assert _page_description("cases") == "The page, as this project words it."


def test_a_django_catalogue_of_another_language_leaves_the_key(settings, tmp_path):
    _configure(settings, tmp_path)
    settings.LOCALE_PATHS = [str(tmp_path / "locale")]
    (tmp_path / "locale" / "uk" / "LC_MESSAGES").mkdir(parents=True)
    before = _key()
    (tmp_path / "locale" / "uk" / "LC_MESSAGES" / "django.mo").write_bytes(b"a catalogue")
    translation.clear_cache()
    assert _key() == before  # only LANGUAGE_CODE's texts are in a build


def _urlconf(*patterns) -> ModuleType:
    module = ModuleType("tests.test_store_urlconf")
    module.urlpatterns = [*patterns, path("mcp/", include("mcp_bridge.urls"))]
    return module


def test_the_key_changes_with_the_urlconfs_operations(settings, tmp_path):
    _configure(settings, tmp_path)
    catalog_only = _urlconf(path("api/", include("tests.testapp.urls")))
    more = _urlconf(
        path("api/", include("tests.testapp.urls")), path("more/", include("tests.testapp.urls"))
    )
    assert _key(urlconf=catalog_only) != _key(urlconf=more)


def test_the_key_changes_with_the_code_of_a_view(settings, tmp_path, monkeypatch):
    package = tmp_path / "storeproject"
    package.mkdir()
    (package / "__init__.py").write_text("")
    views = package / "views.py"
    views.write_text(
        textwrap.dedent(
            """
            from rest_framework.decorators import api_view
            from rest_framework.response import Response
            from mcp_bridge import api_group

            @api_group("made")
            @api_view(["GET"])
            def ping(request):
                return Response({"ok": True})
            """
        )
    )
    (package / "urls.py").write_text(
        "from django.urls import include, path\nfrom storeproject.views import ping\n"
        'urlpatterns = [path("ping/", ping), path("mcp/", include("mcp_bridge.urls"))]\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    settings.ROOT_URLCONF = "storeproject.urls"
    _configure(settings, tmp_path)
    before = _key("made")
    views.write_text(views.read_text() + "\n# a change in the view's module\n")
    assert _key("made") != before
    for name in ("storeproject", "storeproject.views", "storeproject.urls"):
        sys.modules.pop(name, None)


def test_a_stale_build_is_never_served(settings, tmp_path):
    _configure(settings, tmp_path)
    assert registry.get_toolset("catalog").tools[0].annotations["openWorldHint"] is False
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OPEN_WORLD": True}  # forgets the tool sets
    assert registry.get_toolset("catalog").tools[0].annotations["openWorldHint"] is True
    assert len(list((tmp_path / "builds").glob("catalog.-.*.build"))) == 2


# -- what cannot be stored, and the lease ----------------------------------------------------


def test_a_build_that_cannot_be_pickled_is_served_but_not_stored(
    settings, tmp_path, monkeypatch, caplog
):
    directory = _configure(settings, tmp_path)
    build = registry._build

    def with_a_lambda(*args):
        toolset = build(*args)
        toolset.pages["made by a test"] = lambda: None  # pickle refuses a lambda
        return toolset

    monkeypatch.setattr(registry, "_build", with_a_lambda)
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.store"):
        assert registry.get_toolset("catalog").by_name
    assert "cannot be stored" in caplog.text
    assert not list(directory.glob("*.build"))


def test_a_process_that_waits_too_long_builds_without_storing(settings, tmp_path, caplog):
    directory = _configure(settings, tmp_path, WAIT=0.2)
    key = keys.build_key("catalog", None, None, registry.get_url_index())
    lease = get_lock_backend().acquire(key.lock, timeout=30, wait=0)  # another builder
    assert lease is not None
    try:
        with caplog.at_level(logging.WARNING, logger="mcp_bridge.store"):
            assert registry.get_toolset("catalog").by_name
    finally:
        get_lock_backend().release(lease)
    assert "building it here too" in caplog.text
    assert not list(directory.glob("*.build"))


def test_an_unreadable_stored_build_is_rebuilt(settings, tmp_path, caplog):
    directory = _configure(settings, tmp_path)
    key = keys.build_key("catalog", None, None, registry.get_url_index())
    directory.mkdir(parents=True)
    (directory / f"{key.name}.build").write_bytes(b"not a build")
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.store"):
        assert registry.get_toolset("catalog").by_name
    assert "cannot be read" in caplog.text
    assert codec.loads((directory / f"{key.name}.build").read_bytes(), registry.get_url_index())


def test_a_directory_anyone_may_write_is_not_loaded_from(settings, tmp_path, monkeypatch, caplog):
    directory = _configure(settings, tmp_path)
    registry.get_toolset("catalog")
    directory.chmod(0o777)
    _forget()
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.store"):
        assert registry.get_toolset("catalog").by_name  # built again, not loaded
    assert "writable by every user" in caplog.text
    directory.chmod(0o700)


_BUILDER = """
import json, os, sys, time
import django
django.setup()
from django.conf import settings
from django.test.utils import override_settings
from mcp_bridge.toolset import registry

directory = sys.argv[1]
build = registry._build

def slow_build(*args):
    with open(os.path.join(directory, "builds.log"), "a") as log:
        log.write(f"{os.getpid()}\\n")
    time.sleep(1.5)  # long enough for every other process to meet the lease
    return build(*args)

registry._build = slow_build
store = {"DIRECTORY": os.path.join(directory, "builds")}
with override_settings(MCP_BRIDGE={"BUILD_STORE": store, "LOCK_OPTIONS": {"directory": os.path.join(directory, "locks")}}):
    open(os.path.join(directory, f"ready.{os.getpid()}"), "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(os.path.join(directory, "go")) and time.monotonic() < deadline:
        time.sleep(0.01)
    toolset = registry.get_toolset("ledger")
    print(json.dumps(sorted(toolset.by_name)))
"""


@pytest.mark.slow
def test_concurrent_processes_build_a_key_once(tmp_path):
    """Four processes, each with its own hash seed (a viewset's methods come out of a set,
    in another order in each): one builds, the others wait and load its build."""
    processes = 4
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILDER, str(tmp_path)],
            env={**env, "PYTHONHASHSEED": str(seed)},
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in range(processes)
    ]
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("ready.*"))) < processes:
            assert time.monotonic() < deadline, "the builder processes did not start"
            assert all(child.poll() is None for child in children), [
                child.communicate() for child in children
            ]
            time.sleep(0.05)
        (tmp_path / "go").touch()
        outputs = [child.communicate(timeout=120) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    assert all(child.returncode == 0 for child in children), outputs
    names = {out.strip().splitlines()[-1] for out, _ in outputs}
    assert len(names) == 1 and json.loads(names.pop())  # every process got the same tools
    builders = (tmp_path / "builds.log").read_text().split()
    assert len(builders) == 1, f"{len(builders)} processes built the group: {builders}"


# -- the command -----------------------------------------------------------------------------


def test_mcp_build_writes_every_group_it_is_given(settings, tmp_path, monkeypatch):
    directory = _configure(settings, tmp_path)
    out = io.StringIO()
    call_command("mcp_build", "catalog", "ledger", "--revision", "2026-07-28", stdout=out)
    assert "catalog: 7 tools, 1 pages" in out.getvalue()
    assert {p.name.split(".")[0] for p in directory.glob("*.build")} == {"catalog", "ledger"}
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    loaded = registry.get_toolset("catalog")
    assert loaded.pages  # encoded by the command: the first tools/list encodes nothing
    assert {key[0] for key in loaded.pages} == {"2026-07-28"}


def test_mcp_build_encodes_every_page(settings, tmp_path, monkeypatch):
    _configure(settings, tmp_path)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "PAGE_SIZE": 3}
    out = io.StringIO()
    call_command(
        "mcp_build",
        "catalog",
        *("--revision", LATEST_HANDSHAKE_REVISION, "--profile", "defs", "--profile", "inline"),
        stdout=out,
    )
    assert "catalog: 7 tools, 6 pages" in out.getvalue()  # 3 pages in each of 2 profiles
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    pages = registry.get_toolset("catalog").pages
    assert sorted(
        (key[1], key[4]) for key in pages
    ) == [  # (revision, offset, size, visible, profile, declares MCP Apps)
        (offset, profile) for offset in (0, 3, 6) for profile in ("defs", "inline")
    ]


def test_mcp_build_stores_a_broken_group_and_exits_with_1(settings, tmp_path, monkeypatch):
    directory = _configure(settings, tmp_path)
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_status:
        call_command("mcp_build", stdout=io.StringIO(), stderr=err)
    assert exit_status.value.code == 1
    assert "badnames: refused" in err.getvalue() and "mcp_bridge.E001" in err.getvalue()
    assert list(directory.glob("badnames.-.*.build"))
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    with pytest.raises(ToolSetError):
        registry.get_toolset("badnames")


def test_mcp_build_prunes_older_builds(settings, tmp_path):
    directory = _configure(settings, tmp_path)
    call_command("mcp_build", "catalog", stdout=io.StringIO())
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "OPEN_WORLD": True}
    out = io.StringIO()
    call_command("mcp_build", "catalog", "--prune", stdout=out)
    assert "deleted catalog.-." in out.getvalue()
    assert len(list(directory.glob("catalog.-.*.build"))) == 1


def test_mcp_build_encodes_the_pages_of_both_eras_by_default(settings, tmp_path, monkeypatch):
    _configure(settings, tmp_path)
    out = io.StringIO()
    call_command("mcp_build", "catalog", stdout=out)
    assert "catalog: 7 tools, 2 pages" in out.getvalue()
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    loaded = registry.get_toolset("catalog")
    # A client of either era gets its first tools/list from the store.
    assert {key[0] for key in loaded.pages} == {LATEST_HANDSHAKE_REVISION, MODERN_REVISIONS[-1]}


def test_mcp_build_exits_with_1_when_a_build_cannot_be_written(settings, tmp_path, monkeypatch):
    _configure(settings, tmp_path)

    def full_disk(self, name, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backends.FileBuildStore, "put", full_disk)
    err = io.StringIO()
    with pytest.raises(SystemExit) as exit_status:
        call_command("mcp_build", "catalog", stdout=io.StringIO(), stderr=err)
    assert exit_status.value.code == 1  # a deploy script stops: every worker would build it
    assert "1 build(s) cannot be written to files in" in err.getvalue()


def test_mcp_build_refuses_a_cache_no_server_shares(settings, tmp_path):
    settings.CACHES = {
        **settings.CACHES,
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    }
    settings.MCP_BRIDGE = {"BUILD_STORE": {"BACKEND": "cache", "CACHE_ALIAS": "local"}}
    with pytest.raises(CommandError, match=r"where no server reads them: \[mcp_bridge.W140\]"):
        call_command("mcp_build", "catalog", stdout=io.StringIO())


def test_mcp_build_refuses_a_directory_the_servers_would_not_load_from(settings, tmp_path):
    directory = _configure(settings, tmp_path)
    directory.mkdir()
    directory.chmod(0o777)
    with pytest.raises(CommandError, match=r"where no server reads them: \[mcp_bridge.E142\]"):
        call_command("mcp_build", "catalog", stdout=io.StringIO())
    assert not list(directory.iterdir())  # nothing built, nothing written


def test_mcp_build_says_that_prune_is_for_the_file_store(settings, tmp_path):
    settings.CACHES = {
        **settings.CACHES,
        # Refused before anything is built or written: no Redis server is reached.
        "shared": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL},
    }
    settings.MCP_BRIDGE = {"BUILD_STORE": {"BACKEND": "cache", "CACHE_ALIAS": "shared"}}
    with pytest.raises(CommandError, match="--prune deletes the file store's files"):
        call_command("mcp_build", "catalog", "--prune", stdout=io.StringIO())


def test_a_chosen_directory_follows_the_umask_and_the_default_one_is_private(tmp_path, monkeypatch):
    previous = os.umask(0o022)
    try:
        chosen = backends.FileBuildStore(tmp_path / "chosen")
        chosen.make_directory()
        monkeypatch.setattr(backends, "default_build_directory", lambda: tmp_path / "default")
        default = backends.FileBuildStore()
        default.make_directory()
    finally:
        os.umask(previous)
    # The servers' user reads what a deploy step run by another user wrote; nobody else writes.
    assert (tmp_path / "chosen").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "default").stat().st_mode & 0o777 == 0o700


def test_a_directory_anyone_may_write_is_a_check_error(settings, tmp_path, monkeypatch):
    directory = _configure(settings, tmp_path)
    directory.mkdir()
    directory.chmod(0o777)
    assert [m.id for m in check_build_store()] == ["mcp_bridge.E142"]  # loud, not only logged
    directory.chmod(0o755)
    monkeypatch.setattr(backends, "default_build_directory", lambda: directory)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(directory).st_uid + 1)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "BUILD_STORE": {}}  # the default directory
    assert [m.id for m in check_build_store()] == ["mcp_bridge.E142"]  # of another user


def test_a_build_is_written_for_its_owner_alone_whatever_the_umask(settings, tmp_path):
    directory = _configure(settings, tmp_path)
    previous = os.umask(0)
    try:
        registry.get_toolset("catalog")
    finally:
        os.umask(previous)
    assert directory.stat().st_mode & 0o777 == 0o755
    assert {p.stat().st_mode & 0o777 for p in directory.glob("*.build")} == {0o644}


def test_a_directory_the_servers_may_only_read_is_a_warning(settings, tmp_path, monkeypatch):
    directory = _configure(settings, tmp_path)
    directory.mkdir()

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # As for a server's user in an image whose store the build step wrote (root bypasses modes).
    monkeypatch.setattr(backends.tempfile, "NamedTemporaryFile", read_only)
    assert [m.id for m in check_build_store()] == ["mcp_bridge.W141"]  # no command is stopped


def test_a_worker_logs_whether_it_loaded_or_built(settings, tmp_path, caplog):
    _configure(settings, tmp_path)
    with caplog.at_level(logging.INFO, logger="mcp_bridge.store"):
        registry.get_toolset("catalog")
        _forget()
        registry.get_toolset("catalog")
    messages = [r.getMessage() for r in caplog.records if r.name == "mcp_bridge.store"]
    assert messages[0].startswith("Built catalog.-.") and "and stored it in files in" in messages[0]
    assert messages[1].startswith("Loaded the build catalog.-.")


def test_mcp_build_says_when_a_language_has_nothing_to_index(settings, tmp_path):
    _configure(settings, tmp_path)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "DISCOVERY": "direct"}
    out = io.StringIO()
    call_command("mcp_build", "catalog", "--language", "de", stdout=out)
    assert "--language: no group built here is in search mode" in out.getvalue()


def test_mcp_build_without_a_store_says_so(settings):
    settings.MCP_BRIDGE = {"BUILD_STORE": None}
    with pytest.raises(CommandError, match="no store to write to"):
        call_command("mcp_build")


def _never_indexed(*args, **kwargs):
    raise AssertionError("the search index was built, not loaded with the build")


def _searched(path: str, query: str, **headers: str) -> list[str]:
    result = McpClient(path=path, **headers).call(SEARCH_TOOL, {"query": query, "limit": 3})
    assert result["isError"] is False, result
    return [tool["name"] for tool in json.loads(result["content"][0]["text"])["tools"]]


def test_a_search_groups_index_is_part_of_the_build(configured_store, settings, monkeypatch):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "DISCOVERY": {"cases": "search", "*": "direct"}}
    registry.clear_cache()
    built = registry.get_toolset("cases")
    assert None in built.search_indexes  # made by the build, before any search
    assert registry.get_toolset("catalog").search_indexes == {}  # direct mode: no index
    found = _searched("/mcp/cases/", "delete a report")
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    monkeypatch.setattr(registry, "build_index", _never_indexed)

    # A process that loads the build searches, and gives the overview, with the stored index.
    assert _searched("/mcp/cases/", "delete a report") == found
    overview = McpClient(path="/mcp/cases/").call(SEARCH_TOOL, {"query": ""})
    assert overview["isError"] is False, overview


def _realistic_search_group(settings, tmp_path, **changes):
    from tests.realistic import GROUP, MCP_BRIDGE, URLCONF

    _configure(settings, tmp_path)
    settings.ROOT_URLCONF = URLCONF
    settings.LANGUAGES = [("en", "English"), ("de", "Deutsch")]
    settings.MCP_BRIDGE = {**MCP_BRIDGE, **settings.MCP_BRIDGE, "DISCOVERY": "search"}
    for name, value in changes.items():
        setattr(settings, name, value)
    _forget()
    return GROUP


def test_mcp_build_stores_the_search_index_of_each_language_given(settings, tmp_path, monkeypatch):
    group = _realistic_search_group(settings, tmp_path)
    out = io.StringIO()
    call_command("mcp_build", group, "--language", "de", stdout=out)
    assert f"{group}: " in out.getvalue() and "2 search index(es)" in out.getvalue()
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    monkeypatch.setattr(registry, "build_index", _never_indexed)

    german = _searched(f"/mcp/{group}/", "alle Rechnungen anzeigen", **{"Accept-Language": "de"})
    assert german[0] == "invoice_list"
    assert _searched(f"/mcp/{group}/", "list the invoices")[0] == "invoice_list"
    overview = McpClient(path=f"/mcp/{group}/", **{"Accept-Language": "de"}).call(
        SEARCH_TOOL, {"query": ""}
    )
    assert overview["isError"] is False, overview
    # A language mcp_build was not given is indexed on its first search, as before.
    monkeypatch.undo()
    settings.LANGUAGES = [*settings.LANGUAGES, ("uk", "Українська")]
    assert _searched(f"/mcp/{group}/", "invoices", **{"Accept-Language": "uk"})


def test_the_default_languages_index_is_built_when_it_is_not_the_builds_own(
    settings, tmp_path, monkeypatch
):
    # Django's default LANGUAGE_CODE: its callers negotiate "en" of LANGUAGES, whose tool set is
    # a translated copy, and search that copy's index.
    group = _realistic_search_group(settings, tmp_path, LANGUAGE_CODE="en-us")
    registry.get_toolset(group)
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    monkeypatch.setattr(registry, "build_index", _never_indexed)
    assert _searched(f"/mcp/{group}/", "list the invoices")[0] == "invoice_list"


def test_the_default_language_searches_the_builds_own_index_when_its_texts_are_the_same(
    settings, tmp_path
):
    # LANGUAGE_CODE "en-us", callers "en", no catalogue of "en": the same texts stemmed alike,
    # so one index, built once and stored once.
    group = _realistic_search_group(settings, tmp_path, LANGUAGE_CODE="en-us")
    built = registry.get_toolset(group)
    assert built.prebuilt_indexes["en"][1] is built.search_indexes[None]
    _forget()
    loaded = registry.get_toolset(group)
    assert loaded.prebuilt_indexes["en"][1] is loaded.search_indexes[None]
    assert _searched(f"/mcp/{group}/", "list the invoices")[0] == "invoice_list"


def test_the_default_language_has_an_index_of_its_own_when_a_catalogue_translates_a_name(
    settings, tmp_path
):
    import polib

    # British English callers: the project's en_GB catalogue words the model otherwise.
    catalogues = tmp_path / "locale" / "en_GB" / "LC_MESSAGES"
    catalogues.mkdir(parents=True)
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    po.append(polib.POEntry(msgid="invoice", msgstr="chit"))
    po.append(polib.POEntry(msgid="invoices", msgstr="chits"))
    po.save_as_mofile(str(catalogues / "django.mo"))
    group = _realistic_search_group(
        settings,
        tmp_path,
        LANGUAGE_CODE="en-us",
        LANGUAGES=[("en-gb", "British English"), ("de", "Deutsch")],
        LOCALE_PATHS=[str(tmp_path / "locale")],
    )
    assert translation.default_language() == "en-gb"
    built = registry.get_toolset(group)
    english = built.prebuilt_indexes["en-gb"][1]
    assert english is not built.search_indexes[None]
    assert "chit" in english.postings and "chit" not in built.search_indexes[None].postings
    assert _searched(f"/mcp/{group}/", "show my chits")[0] == "invoice_list"


def test_a_stored_index_is_not_used_once_a_catalogue_changed(settings, tmp_path, monkeypatch):
    group = _realistic_search_group(settings, tmp_path)
    call_command("mcp_build", group, "--language", "de", stdout=io.StringIO())
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    # A django.mo (or mcp_tools.mo) of German recompiled since the build: the German copy's
    # texts and verbose names are the new ones, so its index is made again from them.
    monkeypatch.setattr(registry, "catalogue_fingerprint", lambda group, language: "another")
    indexed = []
    build_index = registry.build_index
    monkeypatch.setattr(
        registry,
        "build_index",
        lambda *args, **kwargs: indexed.append(args[2]) or build_index(*args, **kwargs),
    )
    german = _searched(f"/mcp/{group}/", "alle Rechnungen anzeigen", **{"Accept-Language": "de"})
    assert german[0] == "invoice_list" and indexed == ["de"]


def test_the_catalogue_fingerprint_follows_the_catalogues_contents(settings, tmp_path):
    locale = tmp_path / "locale" / "de" / "LC_MESSAGES"
    locale.mkdir(parents=True)
    settings.LOCALE_PATHS = [str(tmp_path / "locale")]
    translation.clear_cache()
    before = translation.catalogue_fingerprint("cases", "de")
    (locale / "django.mo").write_bytes(b"a catalogue")
    translation.clear_cache()
    with_one = translation.catalogue_fingerprint("cases", "de")
    (locale / "django.mo").write_bytes(b"another catalogue")
    translation.clear_cache()
    changed = translation.catalogue_fingerprint("cases", "de")
    assert len({before, with_one, changed}) == 3
    assert translation.catalogue_fingerprint("cases", "uk") == translation.catalogue_fingerprint(
        "cases", "uk"
    )


def test_mcp_build_says_which_index_it_cannot_build_and_exits_with_1(
    settings, tmp_path, monkeypatch
):
    group = _realistic_search_group(settings, tmp_path)
    unreadable = ToolSetError(group, None, [])
    copy = registry.translated_copy

    def unreadable_german(toolset, language):
        if language == "de":
            raise unreadable
        return copy(toolset, language)

    monkeypatch.setattr(registry, "translated_copy", unreadable_german)
    err = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("mcp_build", group, "--language", "de", stdout=io.StringIO(), stderr=err)
    assert exited.value.code == 1
    assert f"{group}: a search index is not built" in err.getvalue()
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    assert registry.get_toolset(group).tools  # the group itself was stored


def test_mcp_build_refuses_a_language_callers_cannot_negotiate(settings, tmp_path):
    _configure(settings, tmp_path)
    settings.LANGUAGES = [("en", "English")]
    with pytest.raises(CommandError, match="Unknown language.*xx.*LANGUAGES: en"):
        call_command("mcp_build", "--language", "xx")


def test_without_a_store_every_process_builds(settings, tmp_path):
    settings.MCP_BRIDGE = {"BUILD_STORE": None}
    registry.clear_cache()
    assert backends.get_build_store() is None
    assert registry.get_toolset("catalog").by_name


# -- the setting and its checks --------------------------------------------------------------


@pytest.mark.parametrize(
    "value, message",
    [
        ("files", "use a dict"),
        ({"BACKEND": "s3"}, "\"BACKEND\" is 's3'"),
        ({"DIRECOTRY": "/tmp"}, "Unknown key"),
        ({"WAIT": -1}, '"WAIT" is -1'),
        ({"LEASE": 0}, '"LEASE" is 0'),
        ({"TIMEOUT": "forever"}, '"TIMEOUT"'),
        ({"RELEASE": 7}, '"RELEASE" is 7'),
    ],
)
def test_a_wrong_build_store_setting_fails_loudly(settings, value, message):
    settings.MCP_BRIDGE = {"BUILD_STORE": value}
    with pytest.raises(ImproperlyConfigured, match=message):
        bridge_settings.validate()


def test_checks_of_the_store(settings, tmp_path):
    settings.MCP_BRIDGE = {"BUILD_STORE": {"BACKEND": "cache", "CACHE_ALIAS": "nope"}}
    assert [m.id for m in check_build_store()] == ["mcp_bridge.E140"]
    settings.CACHES = {
        **settings.CACHES,
        "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    }
    settings.MCP_BRIDGE = {"BUILD_STORE": {"BACKEND": "cache", "CACHE_ALIAS": "local"}}
    assert [m.id for m in check_build_store()] == ["mcp_bridge.W140"]
    blocker = tmp_path / "a file"
    blocker.write_text("")
    settings.MCP_BRIDGE = {"BUILD_STORE": {"DIRECTORY": str(blocker / "builds")}}
    assert [m.id for m in check_build_store()] == ["mcp_bridge.E141"]
    settings.MCP_BRIDGE = {"BUILD_STORE": {"DIRECTORY": str(tmp_path / "builds")}}
    assert check_build_store() == []
    settings.MCP_BRIDGE = {"BUILD_STORE": None}
    assert check_build_store() == []


def test_warm_up_loads_every_group_and_names_the_broken_ones(settings, tmp_path, monkeypatch):
    _configure(settings, tmp_path)
    failed = registry.warm_up()
    assert {error.group for error in failed} == {"badnames", "dupes"}
    monkeypatch.setattr(registry, "_build", _never_built)  # every group is in memory now
    assert registry.get_toolset("catalog").by_name
    with pytest.raises(ToolSetError):
        registry.get_toolset("badnames")


_LOADER = """
import django
django.setup()
from mcp_bridge.toolset import registry

def never_built(*args):
    raise SystemExit("built, not loaded")

registry._build = never_built
print(len(registry.get_toolset("ledger").tools))
"""


@pytest.mark.slow
def test_the_default_store_needs_no_configuration(tmp_path):
    """``mcp_build`` in one process, the first request's tool set in another, with the test
    settings as they are (no BUILD_STORE: the default file store)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", "PYTHONPATH": str(ROOT)}
    built = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "mcp_build", "ledger"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    assert "ledger: 7 tools" in built.stdout
    loaded = subprocess.run(
        [sys.executable, "-c", _LOADER],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "7"
