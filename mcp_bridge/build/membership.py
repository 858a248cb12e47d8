"""Group membership declared in settings: ``MCP_BRIDGE["GROUPS"]``.

A project publishes views it cannot (or does not want to) decorate — a
third-party app's viewsets, or many of its own at once — with include and
exclude rules per group::

    MCP_BRIDGE = {
        "GROUPS": {
            "library": {
                "include": [{"namespace": "library"}],
                "exclude": [{"view": "library.views.BookViewSet.destroy"}],
            },
        },
    }

A rule is a dict; every key it has must match (they narrow each other):

``path``
    A URL path prefix, compared with the operation's path as the OpenAPI document
    writes it: leading ``/``, parameters as ``{name}`` (``"/api/books/"`` matches
    ``/api/books/{id}/``). A versioned URL keeps its ``{version}`` placeholder.
``path_regex``
    A regular expression searched (``re.search``) in that same path.
``namespace``
    A URL instance namespace (``include(..., namespace=...)``); ``"a:b"`` for a
    nested one. Operations in nested namespaces below it match too.
``app_name``
    An application namespace (the URLconf's ``app_name``, or ``include((patterns,
    app_name))``): any enclosing include with that ``app_name`` matches.
``view``
    A dotted path: a module (every view defined in it or below it), a view class
    (``"library.views.BookViewSet"``, that class only, not its subclasses), an
    ``@api_view`` function, or one operation, ``"Class.action"`` for a viewset
    action (``list``, ``retrieve``, an ``@action`` method...) or ``"Class.get"``
    for an ``APIView`` handler. Resolved by importing it, so a re-exported name
    works.
``methods``
    HTTP methods (``["GET"]``): narrows the rule to those operations.

How the sources add up, for each operation: its groups are the ``@api_group``
decorators' groups plus every group one of whose ``include`` rules matches it;
then every group one of whose ``exclude`` rules matches it is taken away,
**whatever put the operation there, decorators included** — settings are the
project's last word over code it cannot edit (a third-party app that tags its
own views). :func:`compile_rules` reads the setting once per URL walk
(:func:`mcp_bridge.build.openapi.build_url_index`), which records each operation's
reasons (:class:`Reason`) for ``manage.py mcp_tools`` and for the schema
generator, so that both see the same membership.

A group's ``pin`` rules (the same rules) pick, among the group's own operations, those that
stay in ``tools/list`` when the group is in search mode (:mod:`mcp_bridge.discovery.modes`):
each adds its :class:`Reason` to the operations it pins, and adds no operation.

A group's ``tasks`` rules (the same rules, plus ``"task"``: ``"run"``, ``"job"`` or
``"never"``, and ``"required"``) give its operations a task policy (docs/tasks.md): the first
that matches an operation adds its :class:`Reason`, which :mod:`mcp_bridge.tasks.policy` reads
when the operation's view has no ``@mcp_tool(task=...)``.

Faults (:class:`~mcp_bridge.base.errors.Problem`): a malformed rule or group entry
is ``mcp_bridge.E050`` (the group's endpoint answers HTTP 500 while it stands);
a rule that matches nothing is ``mcp_bridge.W050`` (an ``exclude`` rule "matches"
when it takes an operation out of its group, a ``pin`` rule when it pins one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from types import ModuleType
from typing import Any

from rest_framework.views import APIView

from mcp_bridge.base.errors import Problem
from mcp_bridge.base.spelling import closest
from mcp_bridge.decorators import GROUP_NAME_PATTERN

#: The keys of one rule.
RULE_KEYS = ("path", "path_regex", "namespace", "app_name", "view", "methods")
#: The keys of a ``"tasks"`` rule beside the rule's own: how its operations may become MCP
#: tasks (docs/tasks.md): ``"task"`` (``"run"``, ``"job"`` or ``"never"``), ``"required"`` and
#: ``"after"`` (the seconds a ``"run"`` call waits for its run before it answers a task).
TASK_RULE_KEYS = ("task", "required", "after")
TASK_MODES = ("run", "job", "never")
#: The keys of one group's entry. ``pin`` rules pick, among the group's operations, those
#: that stay in ``tools/list`` when the group is in search mode (docs/discovery.md).
GROUP_KEYS = ("include", "exclude", "pin", "tasks")
_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"}


@dataclass
class Operation:
    """One operation of the URL walk, as the rules see it.

    Attributes:
        path_regex: the concatenated URL pattern strings (drf-spectacular's ``path_regex``).
        method: the HTTP method, upper case.
        view_class: ``callback.cls``.
        handler_name: the viewset action or ``APIView`` handler (``"list"``, ``"get"``).
        namespace: the instance namespace, ``"a:b"``, or ``""``.
        app_names: the ``app_name`` of every enclosing include.
        path_of: turns ``(path_regex, view_class)`` into the OpenAPI path; called only
            when a ``path``/``path_regex`` rule needs it (the simplification is the costly
            step of a walk).
    """

    path_regex: str
    method: str
    view_class: type
    handler_name: str | None
    namespace: str
    app_names: tuple[str, ...]
    path_of: Callable[[str, type], str]
    _path: str | None = field(default=None, repr=False)

    @property
    def path(self) -> str:
        if self._path is None:
            self._path = self.path_of(self.path_regex, self.view_class)
        return self._path


@dataclass(frozen=True)
class _ViewTarget:
    module: str | None = None  # every view defined in this module or below it
    view_class: type | None = None
    handler_name: str | None = None

    def matches(self, operation: Operation) -> bool:
        if self.module is not None:
            module = operation.view_class.__module__
            return module == self.module or module.startswith(self.module + ".")
        if operation.view_class is not self.view_class:
            return False
        return self.handler_name is None or operation.handler_name == self.handler_name


@dataclass(eq=False)
class Rule:
    """One compiled include or exclude rule.

    Attributes:
        group: the group it belongs to.
        kind: ``"include"`` or ``"exclude"``.
        position: its index in that list.
        spec: the rule as written in settings.
        hits: operations it matched (include) or took out of its group (exclude)
            during the last URL walk.
    """

    group: str
    kind: str
    position: int
    spec: dict[str, Any]
    path: str | None = None
    path_regex: re.Pattern[str] | None = None
    namespace: str | None = None
    app_name: str | None = None
    view: _ViewTarget | None = None
    methods: frozenset[str] | None = None
    hits: int = 0

    @property
    def label(self) -> str:
        """``GROUPS["library"]["include"][0]``: where the rule is written."""
        return f'GROUPS["{self.group}"]["{self.kind}"][{self.position}]'

    @property
    def needs_path(self) -> bool:
        return self.path is not None or self.path_regex is not None

    def matches(self, operation: Operation) -> bool:
        if self.methods is not None and operation.method not in self.methods:
            return False
        if self.view is not None and not self.view.matches(operation):
            return False
        if self.namespace is not None and not (
            operation.namespace == self.namespace
            or operation.namespace.startswith(self.namespace + ":")
        ):
            return False
        if self.app_name is not None and self.app_name not in operation.app_names:
            return False
        if self.path is not None and not operation.path.startswith(self.path):
            return False
        return self.path_regex is None or self.path_regex.search(operation.path) is not None


@dataclass(frozen=True)
class Reason:
    """Why an operation is in a group: a decorator (``rule`` is ``None``) or an include rule;
    a ``pin`` rule's reason says that it is pinned there too."""

    rule: Rule | None = None

    @property
    def pins(self) -> bool:
        return self.rule is not None and self.rule.kind == "pin"

    def __str__(self) -> str:
        if self.rule is None:
            return "@api_group"
        return f"{self.rule.label} {self.rule.spec!r}"


#: The reason of a decorator's membership.
DECORATOR = Reason()


@dataclass
class Membership:
    """The compiled ``MCP_BRIDGE["GROUPS"]``.

    Attributes:
        groups: the groups the setting declares, in its order (each has an endpoint,
            even when no operation matches).
        rules: every well-formed rule.
        problems: ``{group: [E050 problems]}``; the key is ``None`` for a fault that
            belongs to no group (the setting is not a dict).
    """

    groups: list[str] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    problems: dict[str | None, list[Problem]] = field(default_factory=dict)

    # Read for every operation of a walk, after compile_rules() has filled `rules`.
    @cached_property
    def includes(self) -> list[Rule]:
        return [rule for rule in self.rules if rule.kind == "include"]

    @cached_property
    def excludes(self) -> list[Rule]:
        return [rule for rule in self.rules if rule.kind == "exclude"]

    @cached_property
    def pins(self) -> list[Rule]:
        return [rule for rule in self.rules if rule.kind == "pin"]

    @cached_property
    def task_rules(self) -> list[Rule]:
        return [rule for rule in self.rules if rule.kind == "tasks"]

    def groups_of(
        self, operation: Operation | None, decorated: tuple[str, ...]
    ) -> dict[str, tuple[Reason, ...]]:
        """The groups of one operation and why: ``{group: reasons}``, decorators' groups first.

        ``operation`` may be ``None`` when there are no rules (nothing to match).
        Counts the hits of the rules that decide.
        """
        result: dict[str, tuple[Reason, ...]] = {group: (DECORATOR,) for group in decorated}
        if operation is None:
            return result
        for rule in self.includes:
            if rule.matches(operation):
                rule.hits += 1
                result[rule.group] = (*result.get(rule.group, ()), Reason(rule))
        for rule in self.excludes:
            if rule.group in result and rule.matches(operation):
                rule.hits += 1
                del result[rule.group]
        for rule in self.pins:  # a pin adds its reason: the operation is pinned in that group
            if rule.group in result and rule.matches(operation):
                rule.hits += 1
                result[rule.group] = (*result[rule.group], Reason(rule))
        decided: set[str] = set()
        for rule in self.task_rules:  # the first that matches gives the task policy in its group
            if rule.group in result and rule.group not in decided and rule.matches(operation):
                rule.hits += 1
                decided.add(rule.group)
                result[rule.group] = (*result[rule.group], Reason(rule))
        return result

    def unused_rules(self) -> list[Rule]:
        """The rules that matched nothing in the last walk (``mcp_bridge.W050``)."""
        return [rule for rule in self.rules if not rule.hits]

    def near_miss_problems(self, groups: Iterable[str]) -> list[Problem]:
        """``mcp_bridge.W051`` for each group this setting declares whose name is a near-miss
        of another group's (``"libary"`` beside the ``"library"`` of ``@api_group``, one edit
        or one swap of neighbours away: :func:`mcp_bridge.base.spelling.near_miss`): a typo
        that would publish a second endpoint, ``/mcp/libary/``, silently."""
        others = set(groups) | set(self.groups)
        problems = []
        for group in self.groups:
            meant = closest(group, others - {group})
            if meant is not None:
                problems.append(
                    Problem(
                        "mcp_bridge.W051",
                        f'MCP_BRIDGE["GROUPS"] declares the group {group!r}, a near-miss of the '
                        f"group {meant!r}: it is published as a group of its own, at "
                        f"/mcp/{group}/.",
                        f"Did you mean {meant!r}? Rename the GROUPS entry; if both groups are "
                        'meant, silence this warning (SILENCED_SYSTEM_CHECKS = ["mcp_bridge.W051"]).',
                        f'MCP_BRIDGE["GROUPS"][{group!r}]',
                    )
                )
        return problems

    def unused_rule_problems(self) -> list[Problem]:
        problems = []
        for rule in self.unused_rules():
            if rule.kind == "tasks":
                what = f"gives no operation of group {rule.group!r} a task policy"
                hint = "A tasks rule picks among the group's own operations: check it against `manage.py mcp_tools`."
            elif rule.kind == "pin":
                what = f"pins no operation of group {rule.group!r}"
                hint = "A pin rule picks among the group's own operations: check it against `manage.py mcp_tools`."
            elif rule.kind == "include":
                what = "matches no operation of the URLconf"
                hint = (
                    "Check the rule against the URLconf: paths are written as in the OpenAPI document "
                    "(leading '/', parameters as {name}); a view rule names the class itself, not a "
                    "subclass; `manage.py mcp_tools` lists what each rule adds."
                )
            else:
                what = f"takes no operation out of group {rule.group!r}"
                hint = "Remove the rule, or make it match an operation the group's include rules or decorators add."
            problems.append(
                Problem(
                    "mcp_bridge.W050",
                    f"Membership rule {rule.label} {rule.spec!r} {what}.",
                    hint,
                    rule.label,
                )
            )
        return problems


def compile_rules(setting: Any) -> Membership:
    """Compile ``MCP_BRIDGE["GROUPS"]`` (``None`` or ``{}``: no rules).

    Never raises for a malformed entry: each fault becomes an ``mcp_bridge.E050``
    :class:`~mcp_bridge.base.errors.Problem` of its group, and the group's other
    well-formed rules are kept (so that W050 still reports on them).
    """
    membership = Membership()
    if not setting:
        return membership
    if not isinstance(setting, dict):
        membership.problems[None] = [
            _problem(
                None,
                f'MCP_BRIDGE["GROUPS"] must be a dict {{group: {{"include": [...], "exclude": [...]}}}}, '
                f"not {type(setting).__name__}.",
                'MCP_BRIDGE["GROUPS"]',
            )
        ]
        return membership
    for group, entry in setting.items():
        where = f'GROUPS["{group}"]'
        if not isinstance(group, str) or not GROUP_NAME_PATTERN.match(group):
            membership.problems.setdefault(None, []).append(
                _problem(
                    None,
                    f"{where}: {group!r} is not a valid group name (pattern {GROUP_NAME_PATTERN.pattern}); "
                    f"it becomes the URL segment of the endpoint /mcp/<group>/.",
                    where,
                )
            )
            continue
        membership.groups.append(group)
        if not isinstance(entry, dict) or set(entry) - set(GROUP_KEYS):
            membership.problems.setdefault(group, []).append(
                _problem(
                    group,
                    f"{where} must be a dict with the keys {GROUP_KEYS}; got {entry!r}.",
                    where,
                )
            )
            continue
        for kind in GROUP_KEYS:
            rules = entry.get(kind, [])
            if not isinstance(rules, (list, tuple)):
                membership.problems.setdefault(group, []).append(
                    _problem(group, f'{where}["{kind}"] must be a list of rules (dicts).', where)
                )
                continue
            for position, spec in enumerate(rules):
                rule = Rule(group, kind, position, spec if isinstance(spec, dict) else {})
                try:
                    _compile(rule, spec)
                except (TypeError, ValueError) as exc:
                    membership.problems.setdefault(group, []).append(
                        _problem(group, f"Membership rule {rule.label} {spec!r}: {exc}", rule.label)
                    )
                    continue
                membership.rules.append(rule)
    return membership


def _problem(group: str | None, message: str, obj: str) -> Problem:
    return Problem(
        "mcp_bridge.E050",
        message,
        "A rule is a dict of one or more of "
        + ", ".join(RULE_KEYS)
        + " (see docs/membership.md); every key it has must match. "
        + ("The group's endpoint answers HTTP 500 until this is fixed." if group else ""),
        obj,
    )


def _compile(rule: Rule, spec: Any) -> None:
    """Fill the rule's matchers from ``spec``; ``TypeError``/``ValueError`` say what is wrong."""
    if not isinstance(spec, dict):
        raise TypeError(f"a rule is a dict, not {type(spec).__name__}.")
    allowed = RULE_KEYS + (TASK_RULE_KEYS if rule.kind == "tasks" else ())
    unknown = sorted(set(spec) - set(allowed), key=str)
    if unknown:
        raise ValueError(
            f"unknown key(s) {', '.join(map(repr, unknown))}; the keys are {', '.join(allowed)}."
        )
    if rule.kind == "tasks":
        if spec.get("task") not in TASK_MODES:
            raise ValueError(
                f"a tasks rule needs 'task', one of {', '.join(map(repr, TASK_MODES))}."
            )
        if not isinstance(spec.get("required", False), bool):
            raise ValueError("'required' must be True or False.")
        after = spec.get("after", 0)
        if isinstance(after, bool) or not isinstance(after, (int, float)) or not 0 <= after <= 60:
            raise ValueError("'after' must be a number of seconds from 0 to 60.")
        spec = {key: value for key, value in spec.items() if key not in TASK_RULE_KEYS}
    if not spec:
        raise ValueError("an empty rule would match every operation; give at least one key.")
    for key in ("path", "path_regex", "namespace", "app_name", "view"):
        if key in spec and (not isinstance(spec[key], str) or not spec[key]):
            raise ValueError(f"{key!r} must be a non-empty string.")
    if "path" in spec:
        if not spec["path"].startswith("/"):
            raise ValueError(
                f"'path' {spec['path']!r} must start with '/' (paths are compared as the OpenAPI document writes them)."
            )
        rule.path = spec["path"]
    if "path_regex" in spec:
        try:
            rule.path_regex = re.compile(spec["path_regex"])
        except re.error as exc:
            raise ValueError(f"'path_regex' is not a valid regular expression: {exc}.") from None
    rule.namespace = spec.get("namespace")
    rule.app_name = spec.get("app_name")
    if "view" in spec:
        rule.view = _resolve_view(spec["view"])
    if "methods" in spec:
        methods = spec["methods"]
        if (
            isinstance(methods, str)
            or not isinstance(methods, (list, tuple, set, frozenset))
            or not methods
        ):
            raise ValueError("'methods' must be a non-empty list of HTTP methods, e.g. ['GET'].")
        upper = {str(m).upper() for m in methods}
        if upper - _METHODS:
            raise ValueError(f"'methods' has unknown HTTP method(s) {sorted(upper - _METHODS)}.")
        rule.methods = frozenset(upper)


def _resolve_view(dotted: str) -> _ViewTarget:
    """Import a ``view`` rule's dotted path: a module, a view, or a view's operation."""
    parts = dotted.split(".")
    module: ModuleType | None = None
    rest: list[str] = []
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            module = import_module(name)
        except ModuleNotFoundError as exc:
            # Only "this prefix is not a module" moves on; a module that fails to import
            # one of its own dependencies is a real error.
            if exc.name is None or not name.startswith(exc.name):
                raise ValueError(f"importing {name!r} failed: {exc}.") from None
            continue
        except Exception as exc:  # noqa: BLE001 -- the module's own code can raise anything
            raise ValueError(f"importing {name!r} failed: {type(exc).__name__}: {exc}.") from None
        rest = parts[cut:]
        break
    if module is None:
        raise ValueError(f"'view' {dotted!r} names no importable module.")
    if not rest:
        return _ViewTarget(module=module.__name__)
    owner: Any = None
    obj: Any = module
    for attribute in rest:
        owner, obj = obj, getattr(obj, attribute, None)
        if obj is None:
            raise ValueError(
                f"'view' {dotted!r}: {attribute!r} is not an attribute of {_name(owner)}."
            )
    if isinstance(obj, type) and issubclass(obj, APIView):
        return _ViewTarget(view_class=obj)
    view_class = getattr(obj, "cls", None)  # an @api_view function, or a view's as_view()
    if isinstance(view_class, type) and issubclass(view_class, APIView):
        return _ViewTarget(view_class=view_class)
    if isinstance(owner, type) and issubclass(owner, APIView) and callable(obj):
        return _ViewTarget(view_class=owner, handler_name=rest[-1])
    raise ValueError(
        f"'view' {dotted!r} is not a DRF view: name a module, a view class, an @api_view function, "
        f"or 'Class.action'."
    )


def _name(obj: Any) -> str:
    return getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
