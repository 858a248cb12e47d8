"""Every Django system check of mcp_bridge, registered here, with the catalogue of their ids.

As in django-cors-headers, this is the one module that speaks Django's check framework. The
modules that find faults return :class:`~mcp_bridge.base.errors.Problem` values (the same
values the registry raises in a :class:`~mcp_bridge.base.errors.ToolSetError`, so that an
endpoint answers HTTP 500 with the ids ``manage.py check`` shows); each check below asks them,
passing what they need (the groups, the endpoint view), and turns every problem into a
``checks.Warning`` (a ``W`` id) or a ``checks.Error`` (an ``E`` id). :data:`CHECK_IDS` names
every id once, with its one fault: an id is never reused for another fault.

Each check is registered when this module is imported (``McpBridgeConfig.ready``), in two
tiers.

**Every command** (``check``, ``migrate``, ``runserver``...): cheap checks that read the
settings and walk the URLconf once, without generating any schema:

* :func:`check_setup`: the schema class and ``MCP_BRIDGE`` (``E080``; ``E081``, and each
  wrong key's own id, ``E201``-``E295`` and ``E350``, from :mod:`mcp_bridge.base.conf`, through
  :mod:`mcp_bridge.build.preflight`), reported once, then the decorators' tags and the
  endpoint's inclusion (``W080``-``W084``, :mod:`mcp_bridge.diagnostics`);
* :func:`check_membership`: the ``MCP_BRIDGE["GROUPS"]`` rules and names (``E050``, ``W050``, ``W051``,
  :mod:`mcp_bridge.build.membership`), or ``E007`` when the URLconf or a view cannot be
  loaded, so that the API's views cannot be enumerated;
* :func:`check_authorization`: MCP authorization's configuration (``E060``-``E066``,
  ``W060``-``W061``, :mod:`mcp_bridge.transport.authorization`);
* :func:`check_explorer`: the explorer's template (``W131``, :mod:`mcp_bridge.transport.explorer`);
* :func:`check_setting_names`: every key keyed by group names names existing groups
  (:mod:`mcp_bridge.base.setting_names`): an error for the keys that guard confirmation
  (``E300`` ``CONFIRM``, ``E301`` ``CONFIRM_WITHOUT_ELICITATION``), whose misspelt names also
  close every endpoint (:mod:`mcp_bridge.toolset.guards`), a warning for the others (``W040``
  ``OMIT_OUTPUT_SCHEMA``, ``W101`` ``DISCOVERY`` and ``SEARCH_SYNONYMS``, ``W130``
  ``FILTER_TOOLS_LIST``, ``W300`` ``INSTRUCTIONS``); ``OAUTH_GROUPS``' are
  :func:`check_authorization`'s (``E064``, ``W060``);
* :func:`check_build_store`: the store of shared builds (``E140``-``E144``, ``E320``, ``W140``, ``W141``,
  :mod:`mcp_bridge.store.builds`);
* :func:`check_catalogues`, tagged ``translation``: the tool-text catalogues (``E006``,
  ``W001``, ``W002``, :mod:`mcp_bridge.build.translation`).

**Deployment and validation** (``check --deploy``, ``manage.py mcp_tools --validate``):
:func:`check_tool_sets` builds every group/version as the endpoint does
(drf-spectacular's generation and the whole build pipeline) and reports each problem of a
group that cannot be built (``E001``-``E005``, ``E010``, ``E020``-``E022``) with its
``hint`` and the culprit view as ``obj``, each warning of a built tool set (``W010``,
``W020``-``W022``, ``W310``, ``W085``, ``W100``: a big group in direct mode; ``E100``: a tool named like a
discovery meta-tool), and the tools that ``OMIT_OUTPUT_SCHEMA`` (``W040``) and ``CONFIRM``
(``E302``) list that no version of their group has (:mod:`mcp_bridge.base.setting_names`). It
is a deployment check because it costs as much as generating the API's schema: a broken group
must not slow down or stop ``migrate`` and every other command. It still fails loudly: every request to the group's endpoint answers HTTP 500
(system checks do not run under WSGI/ASGI), and ``mcp_tools --validate`` exits with status 1.

:func:`check_endpoint_answers`, also a deployment check, sends each endpoint one
``initialize`` through the project's whole middleware stack, as a client's request arrives
(:mod:`mcp_bridge.transport.reach`), and reports a redirect (``E090``, a login-required
middleware) or an answer that is not JSON (``E091``, an HTML page), with the status, the
``Location`` or ``Content-Type``, and the hint to exempt the MCP prefix as the REST prefix is.

All are tagged ``mcp_bridge`` (and ``urls``, since they need the URLconf, or
``translation``), so that ``check --deploy --tag mcp_bridge`` runs them alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem, ToolSetError
from mcp_bridge.base.setting_names import unknown_groups, unknown_tools
from mcp_bridge.build.preflight import configuration_problems, reported_by_checks
from mcp_bridge.build.translation import find_catalogue_problems
from mcp_bridge.diagnostics import find_setup_problems
from mcp_bridge.discovery.semantic import find_semantic_problems
from mcp_bridge.store.backends import find_lock_problems, find_store_problems
from mcp_bridge.tasks.runs import find_task_problems
from mcp_bridge.toolset.registry import get_groups, get_toolset, get_url_index
from mcp_bridge.transport.authorization import find_authorization_problems
from mcp_bridge.transport.endpoint import mcp_endpoint
from mcp_bridge.transport.explorer import find_explorer_problems
from mcp_bridge.transport.reach import find_unanswered_endpoints

#: The tag of every mcp_bridge check.
TAG = "mcp_bridge"

#: Every check id, once each, with its one fault (and the module that finds it): an id is
#: never reused for another fault. ``E`` ids are errors, ``W`` ids warnings.
CHECK_IDS = {
    # The build of a group (mcp_bridge.toolset: naming, openrpc, registry, translation).
    "mcp_bridge.E001": "a tool name does not match the MCP name pattern",
    "mcp_bridge.E002": "two operations of one group have the same tool name",
    "mcp_bridge.E003": "two arguments of one tool would have the same name",
    "mcp_bridge.E004": "the group's schema could not be generated",
    "mcp_bridge.E005": "a tool's schema is not valid JSON Schema 2020-12",
    "mcp_bridge.E006": "a tool-text gettext catalogue (.mo) cannot be read",
    # Every command (check_membership, check_tool_sets).
    "mcp_bridge.E007": "the API's views cannot be enumerated (the URLconf or a view fails to load)",
    "mcp_bridge.E010": "a tool name is valid MCP but not portable, with PORTABLE_TOOL_NAMES = 'error'",
    "mcp_bridge.W001": "a per-group tool-text catalogue names a group that does not exist",
    "mcp_bridge.W002": "a tool-text .po catalogue has no compiled .mo beside it",
    "mcp_bridge.W010": "a tool name is valid MCP but not portable (a dot, or over 64 characters)",
    # Schema patterns (a block of its own, for merges).
    "mcp_bridge.E020": "a $ref of the group's OpenAPI document names no component",
    "mcp_bridge.E021": "a tool's schema holds a $ref that does not resolve inside the tool",
    "mcp_bridge.W020": "a tool requires a request body that it cannot send (the view parses neither JSON nor a form)",
    "mcp_bridge.W310": "a file field in a request body the tool sends as JSON (the view reads no multipart, or the body has nested serializers)",
    "mcp_bridge.W023": "an @action that reads request.data itself (or whose code cannot be read) takes the viewset's serializer as arguments",
    "mcp_bridge.W024": "a field of a view's serializer cannot be described, and is left out of the tool's arguments",
    "mcp_bridge.W025": "a group (or one of its versions) builds no tools: drf-spectacular's schema holds none of its operations",
    # What drf-spectacular's PREPROCESSING_HOOKS do to a group (mcp_bridge.toolset.registry).
    "mcp_bridge.E022": "PREPROCESSING_HOOKS leave a group none of its operations",
    "mcp_bridge.W021": "a PREPROCESSING_HOOKS entry drops some of a group's operations",
    "mcp_bridge.W022": "a PREPROCESSING_HOOKS entry rewrites paths of a group's operations (the tools keep the URL's paths)",
    # OMIT_OUTPUT_SCHEMA (mcp_bridge.base.setting_names).
    "mcp_bridge.W040": "OMIT_OUTPUT_SCHEMA names a group or tool that does not exist",
    # OMIT_RESOURCES (mcp_bridge.base.setting_names).
    "mcp_bridge.W330": "OMIT_RESOURCES names a group or tool that does not exist",
    # Keys keyed by group names that name nothing (mcp_bridge.base.setting_names,
    # mcp_bridge.toolset.guards); E: the key guards confirmation, and the endpoints refuse.
    "mcp_bridge.E300": "CONFIRM names a group that has no view (every endpoint answers 500: fail closed)",
    "mcp_bridge.E301": "CONFIRM_WITHOUT_ELICITATION names a group that has no view (every endpoint answers 500: fail closed)",
    "mcp_bridge.E302": "CONFIRM lists a tool that no version of its group has (the group's endpoints answer 500: fail closed)",
    "mcp_bridge.W300": "INSTRUCTIONS names a group that has no view",
    # Membership rules and settings (mcp_bridge.build.membership).
    "mcp_bridge.E050": "a MCP_BRIDGE['GROUPS'] membership rule or group entry is malformed",
    "mcp_bridge.W050": "a membership rule matches nothing (an exclude rule: takes nothing out of its group)",
    "mcp_bridge.W051": "MCP_BRIDGE['GROUPS'] declares a group whose name is a near-miss of another group's (a typo?)",
    # The setup (mcp_bridge.build.preflight, mcp_bridge.diagnostics, mcp_bridge.urls).
    "mcp_bridge.E080": "REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS'] is not drf-spectacular's AutoSchema",
    "mcp_bridge.E081": "settings.MCP_BRIDGE cannot be read: it is not a dict, or has an unknown key",
    "mcp_bridge.E082": "mcp_bridge.urls is included but mcp_bridge is not in INSTALLED_APPS",
    "mcp_bridge.W080": "@mcp_tool on an operation in no API group",
    "mcp_bridge.W081": "@api_group on a view, viewset or action that no URL pattern routes to",
    "mcp_bridge.W082": "@api_group/@mcp_tool on a class that is not a DRF view",
    "mcp_bridge.W083": "an operation of a group has an async def handler of a DRF view that is not adrf's (left out)",
    "mcp_bridge.W084": "mcp_bridge.urls is included nowhere in the URLconf",
    "mcp_bridge.W085": "a drf-spectacular warning or error met while generating a group",
    "mcp_bridge.W086": "mcp_bridge.urls is included under a prefix without a trailing slash (path('mcp', ...))",
    # MCP authorization (mcp_bridge.transport.authorization).
    "mcp_bridge.E060": "a protected group's Protected Resource Metadata URL is not served (well_known include missing)",
    "mcp_bridge.E061": "groups are protected but no authorization server is named",
    "mcp_bridge.E062": "groups are protected but django-oauth-toolkit is not installed",
    "mcp_bridge.E063": "OAUTH_GROUPS or OAUTH_DEFAULT names a scope that is empty or holds a space",
    "mcp_bridge.E064": "OAUTH_GROUPS protects a group that has no view (every endpoint answers 500: fail closed)",
    "mcp_bridge.E065": "a local authorization server publishes no metadata where clients look for it",
    "mcp_bridge.E066": "a local authorization server's authorize/ or token/ URL is not routed",
    "mcp_bridge.W060": "OAUTH_GROUPS makes public a group that has no view",
    "mcp_bridge.W061": "a protected group requires a scope the authorization server does not know",
    # Requests through the middleware stack (mcp_bridge.transport.reach).
    "mcp_bridge.E090": "a request to an endpoint is redirected by the middleware stack (login required?)",
    "mcp_bridge.E091": "a request to an endpoint is answered with something other than JSON (an HTML page)",
    # Each caller sees its tools, and the explorer (mcp_bridge.toolcall.visibility,
    # mcp_bridge.transport.explorer).
    "mcp_bridge.W130": "FILTER_TOOLS_LIST names a group that has no view",
    "mcp_bridge.W131": "the tool explorer is on but no template engine finds its template",
    # Discovery of big groups (mcp_bridge.discovery.modes).
    "mcp_bridge.E100": "a tool of a group in search mode has the name of a discovery meta-tool",
    "mcp_bridge.W100": "a group in direct mode lists more than 128 tools or DISCOVERY_MAX_TOKENS tokens",
    "mcp_bridge.W101": "DISCOVERY or SEARCH_SYNONYMS names a group that does not exist",
    # The build store (mcp_bridge.store.builds).
    "mcp_bridge.E140": "BUILD_STORE names a cache alias that settings.CACHES does not have",
    "mcp_bridge.E141": "the build store's directory cannot be created, read or written",
    "mcp_bridge.E142": "the build store's directory may be written by every user (or is a default one of another user): no process loads from it",
    "mcp_bridge.E143": "BUILD_STORE keeps builds in a cache whose client library cannot be imported (RedisCache without redis-py)",
    "mcp_bridge.E144": "LOCK_BACKEND cannot be made (RedisLockBackend without redis-py, or LOCK_OPTIONS it refuses)",
    "mcp_bridge.W141": "the build store's directory can be read but not written (a store a deploy step filled)",
    "mcp_bridge.W140": "BUILD_STORE keeps builds in a cache no other process shares (LocMemCache, DummyCache)",
    "mcp_bridge.E320": "BUILD_STORE keeps builds in a cache that would unpickle a stored value before its signature is checked (database, file, Memcached or an unknown backend)",
    # MCP tasks (mcp_bridge.tasks.runs, docs/tasks.md).
    "mcp_bridge.E150": "TASK_ENGINE is django_tasks, but neither django.tasks nor django-tasks is installed",
    "mcp_bridge.W150": "TASK_CACHE_ALIAS is a per-process cache while the task engine runs tasks in other processes",
    # One id per MCP_BRIDGE key, for a value of the wrong type or range (mcp_bridge.base.conf,
    # SETTINGS, which gives each its hint). In blocks of ten by part of the bridge.
    "mcp_bridge.E201": "MCP_BRIDGE['SERVER_NAME'] is not a non-empty string",
    "mcp_bridge.E202": "MCP_BRIDGE['SERVER_TITLE'] is not a string or None",
    "mcp_bridge.E203": "MCP_BRIDGE['SERVER_VERSION'] is not a string or None",
    "mcp_bridge.E204": "MCP_BRIDGE['INSTRUCTIONS'] is not a string, a {group: string} dict or None",
    "mcp_bridge.E211": "MCP_BRIDGE['MAX_BODY_BYTES'] is not an int >= 1",
    "mcp_bridge.E212": "MCP_BRIDGE['MAX_JSON_DEPTH'] is not an int from 1 to 200",
    "mcp_bridge.E213": "MCP_BRIDGE['MAX_BATCH_SIZE'] is not an int >= 1",
    "mcp_bridge.E214": "MCP_BRIDGE['ALLOWED_ORIGINS'] is not a list of origins ('scheme://host[:port]')",
    "mcp_bridge.E215": "MCP_BRIDGE['EXPLORER'] is not True or False",
    "mcp_bridge.E221": "MCP_BRIDGE['PAGE_SIZE'] is not an int >= 1 or None",
    "mcp_bridge.E222": "MCP_BRIDGE['TOOLS_LIST_TTL_MS'] is not an int >= 0",
    "mcp_bridge.E223": "MCP_BRIDGE['TOOLS_LIST_CACHE_SCOPE'] is not 'public', 'private' or None",
    "mcp_bridge.E224": "MCP_BRIDGE['FILTER_TOOLS_LIST'] is not True, False or a {group: bool} dict",
    "mcp_bridge.E225": "MCP_BRIDGE['SCHEMA_PROFILE'] is not the name of a schema profile",
    "mcp_bridge.E226": "MCP_BRIDGE['FILTER_TOOLS_LIST_TIMEOUT'] is not an int >= 0",
    "mcp_bridge.E231": "MCP_BRIDGE['SPECTACULAR_SETTINGS'] is not a dict with string keys",
    "mcp_bridge.E232": "MCP_BRIDGE['GROUPS'] is not a dict",
    "mcp_bridge.E233": "MCP_BRIDGE['PORTABLE_TOOL_NAMES'] is not 'warn' or 'error'",
    "mcp_bridge.E234": "MCP_BRIDGE['OPEN_WORLD'] is not True or False",
    "mcp_bridge.E235": "MCP_BRIDGE['OUTPUT_SCHEMA'] is not 'tolerant' or 'exact'",
    "mcp_bridge.E236": "MCP_BRIDGE['OMIT_OUTPUT_SCHEMA'] is not a dict of group to True or a list of tool names",
    "mcp_bridge.E241": "MCP_BRIDGE['OUTPUT_VALIDATION'] is not 'error', 'warn' or 'off'",
    "mcp_bridge.E242": "MCP_BRIDGE['MAX_FILE_BYTES'] is not an int >= 0",
    "mcp_bridge.E243": "MCP_BRIDGE['CACHE_ALIAS'] is not a key of settings.CACHES",
    "mcp_bridge.E244": "MCP_BRIDGE['LOCK_BACKEND'] is not a dotted path (or, at the first @locked call, cannot be imported)",
    "mcp_bridge.E245": "MCP_BRIDGE['LOCK_OPTIONS'] is not a dict with string keys",
    "mcp_bridge.E246": "MCP_BRIDGE['MAX_UPLOAD_BYTES'] is not an int >= 0",
    "mcp_bridge.E251": "MCP_BRIDGE['OAUTH_GROUPS'] is not a dict of group to a list of scopes or None",
    "mcp_bridge.E252": "MCP_BRIDGE['OAUTH_DEFAULT'] is not a list of scopes or None",
    "mcp_bridge.E253": "MCP_BRIDGE['OAUTH_AUTHORIZATION_SERVERS'] is not a list of issuer URLs or /paths",
    "mcp_bridge.E254": "MCP_BRIDGE['OAUTH_RESOURCE_ORIGIN'] is not an http(s) origin or None",
    "mcp_bridge.E261": "MCP_BRIDGE['DISCOVERY'] is not a discovery mode or a {group: mode} dict",
    "mcp_bridge.E262": "MCP_BRIDGE['DISCOVERY_MAX_TOOLS'] is not an int >= 1",
    "mcp_bridge.E263": "MCP_BRIDGE['DISCOVERY_MAX_TOKENS'] is not an int >= 1",
    "mcp_bridge.E264": "MCP_BRIDGE['SEARCH_RESULT_TOKENS'] is not an int >= 1",
    "mcp_bridge.E265": "MCP_BRIDGE['SEARCH_SYNONYMS'] is not a {group: {word: [synonyms]}} dict",
    "mcp_bridge.E340": "MCP_BRIDGE['SEARCH_EMBEDDING_MODEL'] is not None or a model name",
    "mcp_bridge.E341": "MCP_BRIDGE['SEARCH_EMBEDDING_FUNCTION'] is not a dotted path",
    "mcp_bridge.E342": "Semantic search cannot embed with SEARCH_EMBEDDING_MODEL (extra, function or model missing)",
    "mcp_bridge.E343": "MCP_BRIDGE['SEARCH_EMBEDDING_LANGUAGES'] is not None or a non-empty list of language codes",
    "mcp_bridge.E271": "MCP_BRIDGE['BUILD_STORE'] is not None or a dict of known keys with sane values",
    "mcp_bridge.E272": "MCP_BRIDGE['CONFIRM'] is not a {group: rule} dict",
    "mcp_bridge.E273": "MCP_BRIDGE['CONFIRM_WITHOUT_ELICITATION'] is not a bool or {group: bool}",
    "mcp_bridge.E274": "MCP_BRIDGE['CONFIRM_TTL'] is not an int >= 1",
    "mcp_bridge.E275": "MCP_BRIDGE['CONFIRM_CACHE'] is not a key of settings.CACHES",
    "mcp_bridge.E281": "MCP_BRIDGE['TRACE_ARGUMENTS'] is not True or False",
    "mcp_bridge.E282": "MCP_BRIDGE['TRACE_ENDUSER'] is not None, 'id' or 'pseudo'",
    "mcp_bridge.E350": "MCP_BRIDGE['TRACE_LOG_CONTEXT'] is not None, True or False",
    "mcp_bridge.E291": "MCP_BRIDGE['TASK_ENGINE'] is not 'thread' or 'django_tasks'",
    "mcp_bridge.E292": "MCP_BRIDGE['TASK_CACHE_ALIAS'] is not a key of settings.CACHES",
    "mcp_bridge.E293": "MCP_BRIDGE['TASK_TTL_MS'] is not an int >= 1000",
    "mcp_bridge.E294": "MCP_BRIDGE['TASK_POLL_INTERVAL_MS'] is not an int >= 1",
    "mcp_bridge.E295": "MCP_BRIDGE['TASK_LEASE_SECONDS'] is not an int >= 1",
    "mcp_bridge.E330": "MCP_BRIDGE['OMIT_RESOURCES'] is not a dict of group to True or a list of tool names",
    "mcp_bridge.E331": "MCP_BRIDGE['RESOURCE_SCHEME'] is not a custom URI scheme (RFC 3986, not http/https/file)",
    "mcp_bridge.E360": "MCP_BRIDGE['APPS'] is not 'declared', 'always' or False",
}

#: Reported by check_membership, which runs with every command, deployment checks included.
_MEMBERSHIP_IDS = {"mcp_bridge.E050", "mcp_bridge.W050", "mcp_bridge.W051"}


@checks.register(checks.Tags.urls, TAG)
def check_setup(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The setup, with every command: E080, E081, E201-E295 alone when one stops every group
    (each group would only fail again, with the same cause), else W080-W084."""
    return _messages(configuration_problems() or find_setup_problems(mcp_endpoint))


@checks.register(checks.Tags.urls, TAG)
def check_membership(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Walk the URLconf once and check the ``MCP_BRIDGE["GROUPS"]`` rules (E050, W050) and
    group names (W051), or E007;
    and the operations the walk left out because they cannot run (W083)."""
    try:
        bridge_settings.validate()
    except ImproperlyConfigured:
        return []  # check_setup reports it (E081, E201-E295)
    try:
        index = get_url_index()
    except Exception as exc:  # noqa: BLE001 -- the URLconf or a view class failed to load
        return _messages([_enumeration_problem(exc)])
    problems = [problem for found in index.membership.problems.values() for problem in found]
    problems += index.membership.unused_rule_problems()
    problems += index.membership.near_miss_problems(index.endpoints)  # W051
    problems += index.unpublished  # W083: async handlers DRF cannot run, left out
    return _messages(problems)


@checks.register(checks.Tags.urls, TAG)
def check_authorization(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """MCP authorization's configuration (E060-E066, W060-W061)."""
    try:
        groups = get_groups()
    except Exception:  # noqa: BLE001 -- the URLconf failed to load: check_membership says E007
        return []
    return _messages(find_authorization_problems(mcp_endpoint, groups))


@checks.register(checks.Tags.urls, TAG)
def check_explorer(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The explorer's template (W131)."""
    try:
        bridge_settings.validate()
    except ImproperlyConfigured:
        return []  # check_setup reports it (E081, E201-E295)
    return _messages(find_explorer_problems())


@checks.register(checks.Tags.urls, TAG)
def check_setting_names(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every key keyed by group names names existing groups: errors for the keys that guard
    access or confirmation (E300, E301), warnings for the others (W040, W101, W130, W300)."""
    try:
        bridge_settings.validate()
        groups = set(get_groups())
    except Exception:  # noqa: BLE001 -- check_setup (E081, E201-E295) or check_membership (E007) says it
        return []
    return _messages(unknown_groups(groups))


@checks.register(TAG)
def check_semantic_search(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Semantic search can embed with the configured model and function (E342)."""
    try:
        bridge_settings.validate()
    except ImproperlyConfigured:
        return []  # check_setup reports it (E081, E201-E295, E340-E341)
    return _messages(find_semantic_problems())


@checks.register(checks.Tags.urls, TAG)
def check_tasks(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The task engine and where task state lives (E150, W150)."""
    try:
        bridge_settings.validate()
    except ImproperlyConfigured:
        return []  # check_setup reports it (E081, E201-E295)
    return _messages(find_task_problems())


@checks.register(checks.Tags.translation, TAG)
def check_catalogues(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The tool-text catalogues (E006, W001, W002)."""
    try:
        groups: set[str] | None = set(get_groups())
    except Exception:  # noqa: BLE001 -- the URLconf failed to load: check_membership says E007
        groups = None
    return _messages(find_catalogue_problems(groups))


@checks.register(TAG)
def check_build_store(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The build store of ``MCP_BRIDGE["BUILD_STORE"]`` can be used (E140-E143, E320, W140, W141), and
    the lock backend that leases its builds can be made (E144, E244)."""
    return _messages(find_store_problems() + find_lock_problems())


@checks.register(checks.Tags.urls, TAG, deploy=True)
def check_tool_sets(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Build the tools of every group/version and report what stops them (a deployment check)."""
    if configuration_problems():
        return []  # E080, E081, E201-E295 stop every group: check_setup says it once
    try:
        groups = get_groups()
    except Exception as exc:  # noqa: BLE001 -- the URLconf or a view class failed to load
        return _messages([_enumeration_problem(exc)])
    problems: list[Problem] = []
    tool_names: dict[str, set[str]] = {}
    for group, versions in groups.items():
        tool_names[group] = set()
        for version in versions:
            try:
                with reported_by_checks():  # drf-spectacular's warnings: W085 here, not logged
                    toolset = get_toolset(group, version)
                tool_names[group].update(toolset.by_name)
            except ToolSetError as exc:
                problems.extend(
                    problem for problem in exc.problems if problem.id not in _MEMBERSHIP_IDS
                )
            else:
                problems.extend(toolset.warnings)
    problems += unknown_tools(tool_names)  # W040, E302: the tools the settings list
    # One problem, one message: a view shared by several groups or versions is reported once.
    unique: list[Problem] = []
    for problem in problems:
        if problem not in unique:
            unique.append(problem)
    return _messages(unique)


@checks.register(checks.Tags.urls, TAG, deploy=True)
def check_endpoint_answers(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Send each endpoint an ``initialize`` through the whole middleware stack (E090, E091)."""
    if configuration_problems():
        return []  # E080, E081, E201-E295: no endpoint answers; check_setup says why
    try:
        groups = get_groups()
    except Exception:  # noqa: BLE001 -- the URLconf failed to load: check_membership says E007
        return []
    rest_paths: dict[str, list[str]] = {}
    for group, versions in groups.items():
        for version in versions:
            try:
                toolset = get_toolset(group, version)
            except ToolSetError:
                continue  # check_tool_sets reports it; the endpoint answers a JSON 500
            rest_paths.setdefault(group, []).extend(t.method.source.path for t in toolset.tools)
    return _messages(find_unanswered_endpoints(mcp_endpoint, groups, rest_paths))


def _messages(problems: Iterable[Problem]) -> list[checks.CheckMessage]:
    """Each problem as a check message: a warning for a ``W`` id, an error for an ``E`` id."""
    return [
        (checks.Warning if problem.id.startswith("mcp_bridge.W") else checks.Error)(
            problem.msg, hint=problem.hint, obj=problem.obj, id=problem.id
        )
        for problem in problems
    ]


def _enumeration_problem(exc: Exception) -> Problem:
    return Problem(
        "mcp_bridge.E007",
        f"mcp_bridge could not enumerate the API's views: {type(exc).__name__}: {exc}",
        "Fix the URLconf or view named in the message; `manage.py spectacular` shows more.",
    )
