"""The build, texts: default tool texts made from the facts, and drf-spectacular's boilerplate trimmed.

**Default texts.** An operation without a summary, description or docstring (most
``ModelViewSet`` actions of real projects) would be listed as ``ipam_vlans_bulk_destroy``
titled "Ipam vlans bulk destroy", with no description. Its
:class:`~mcp_bridge.build.facts.OperationFacts` say more, and :func:`title_from_facts` and
:func:`description_from_facts` write it: the action, the model's verbose names, what
identifies the object, and for a list its pagination, filters, search and ordering fields::

    List invoices
    List invoices (paginated; filter by status, customer, currency, issue_date, due_date;
    `search` over number, customer name, notes; `ordering` by issue_date, due_date, total).

Explicit texts always win: ``@mcp_tool(title=...)``, ``extend_schema(summary=...,
description=...)``, a docstring, and the gettext catalogues of
:mod:`~mcp_bridge.build.translation`. The templates are in the ``django`` catalogue of
``mcp_bridge`` (``mcp_bridge/locale``) and the verbose names in the project's, so a default
text is written in the caller's language (:func:`localized_texts`).

**Boilerplate trimmed.** drf-spectacular and DRF write the same sentences into every
operation; in a listing of hundreds of tools they cost bytes and say what the schema says
already (:func:`argument_text`, :func:`trimmed_components`):

* the lookup parameter's "A unique integer value identifying this invoice." is dropped: the
  tool's title names the model, the schema the type;
* DRF's pagination parameters' texts are shortened ("A page number within the paginated
  result set." → "Page number.");
* DRF's "A search term." and "Which field to use when ordering the results." name the fields
  searched and the fields to order by (from the facts) instead;
* drf-spectacular's choice lists ("* `draft` - Draft\\n* `sent` - Sent") lose every line whose
  label only repeats its value (the ``enum`` has the values); a line with a label of its own
  stays.

The OpenRPC document keeps drf-spectacular's texts as they are: only the tools are trimmed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from django.utils.translation import get_language, gettext, gettext_noop
from rest_framework import filters, pagination
from rest_framework.schemas.utils import get_pk_description

from mcp_bridge.build.facts import OperationFacts

#: How many fields a default description names before it writes "…".
MAX_FIELDS = 8

#: The kinds of argument text :func:`argument_kind` recognises, each rewritten by
#: :func:`argument_text`: ``None`` as the new text drops the description.
ArgumentKind = str
LOOKUP = "lookup"
PAGE = "page"
PAGE_SIZE = "page_size"
LIMIT = "limit"
OFFSET = "offset"
SEARCH = "search"
ORDERING = "ordering"
CHOICES = "choices"

_CHOICE_LINE = re.compile(r"^\* `(?P<value>[^`]*)` - (?P<label>.*)$")


# The templates, marked for makemessages and translated when used (gettext_noop): only the one
# an operation needs is looked up.
_TITLES = {
    "list": gettext_noop("List %(plural)s"),
    "retrieve": gettext_noop("Get %(name)s"),
    "create": gettext_noop("Create %(name)s"),
    "update": gettext_noop("Replace %(name)s"),
    "partial_update": gettext_noop("Update %(name)s"),
    "destroy": gettext_noop("Delete %(name)s"),
    "bulk_create": gettext_noop("Create several %(plural)s"),
    "bulk_update": gettext_noop("Replace several %(plural)s"),
    "bulk_partial_update": gettext_noop("Update several %(plural)s"),
    "bulk_destroy": gettext_noop("Delete several %(plural)s"),
}
#: A custom action's title: on a collection (``False``) or on one object (``True``).
_CUSTOM_TITLES = {
    False: gettext_noop("%(plural)s: %(action)s"),
    True: gettext_noop("%(name)s: %(action)s"),
}
#: The title of a custom action that writes and is named by one word, a verb ("hold",
#: "cancel", "import"): the verb first, as the standard titles ("Hold purchase order").
_VERB_TITLES = {
    False: gettext_noop("%(action)s %(plural)s"),
    True: gettext_noop("%(action)s %(name)s"),
}
#: The title of a custom action that writes and whose name is a verb with more words
#: ("accept_fields", "bom_copy"): the verb phrase first ("Accept fields of importer session",
#: "Copy bom of part").
_VERB_PHRASE_TITLES = {
    False: gettext_noop("%(action)s of %(plural)s"),
    True: gettext_noop("%(action)s of %(name)s"),
}
#: Verbs a custom action's name may start with (names are code, written in English): a title
#: puts the verb phrase first. A name with none of them keeps "<resource>: <name>".
_ACTION_VERBS = frozenset(
    [
        "accept",
        "activate",
        "add",
        "allocate",
        "approve",
        "archive",
        "assign",
        "attach",
        "authorize",
        "block",
        "book",
        "build",
        "calculate",
        "cancel",
        "charge",
        "check",
        "checkout",
        "claim",
        "clear",
        "clone",
        "close",
        "commit",
        "complete",
        "compute",
        "confirm",
        "connect",
        "convert",
        "copy",
        "count",
        "create",
        "deactivate",
        "decline",
        "delete",
        "deliver",
        "deploy",
        "detach",
        "disable",
        "disconnect",
        "dismiss",
        "download",
        "duplicate",
        "edit",
        "email",
        "enable",
        "end",
        "enqueue",
        "estimate",
        "export",
        "fail",
        "finalize",
        "finish",
        "flag",
        "flush",
        "fork",
        "freeze",
        "fulfil",
        "fulfill",
        "generate",
        "grant",
        "hide",
        "hold",
        "import",
        "install",
        "invalidate",
        "invite",
        "issue",
        "join",
        "kill",
        "label",
        "leave",
        "link",
        "load",
        "lock",
        "login",
        "logout",
        "mark",
        "merge",
        "migrate",
        "move",
        "notify",
        "open",
        "order",
        "pause",
        "pay",
        "ping",
        "pin",
        "place",
        "post",
        "preview",
        "print",
        "process",
        "promote",
        "publish",
        "purge",
        "push",
        "rebuild",
        "receive",
        "recalculate",
        "refresh",
        "refund",
        "regenerate",
        "reindex",
        "reject",
        "release",
        "reload",
        "remove",
        "rename",
        "render",
        "reopen",
        "reorder",
        "repair",
        "replace",
        "reply",
        "report",
        "request",
        "resend",
        "reserve",
        "reset",
        "resolve",
        "restart",
        "restore",
        "resume",
        "retry",
        "return",
        "revert",
        "revoke",
        "rollback",
        "run",
        "save",
        "schedule",
        "scrap",
        "send",
        "set",
        "setup",
        "share",
        "ship",
        "sign",
        "skip",
        "sort",
        "split",
        "start",
        "stop",
        "submit",
        "subscribe",
        "suspend",
        "sync",
        "synchronize",
        "tag",
        "test",
        "toggle",
        "track",
        "transfer",
        "trigger",
        "unarchive",
        "unassign",
        "unblock",
        "unfreeze",
        "unhide",
        "uninstall",
        "unlink",
        "unlock",
        "unmark",
        "unpin",
        "unpublish",
        "unsubscribe",
        "update",
        "upgrade",
        "upload",
        "validate",
        "verify",
        "void",
        "withdraw",
    ]
)
#: The ones also read as nouns, as at the end of "purchase_order" or "sales_report": a name is
#: turned round ("bom_copy" → "copy bom") only on the others.
_NOUN_LIKE_VERBS = frozenset(
    [
        "book",
        "charge",
        "check",
        "count",
        "email",
        "end",
        "flag",
        "fork",
        "hold",
        "issue",
        "label",
        "link",
        "load",
        "lock",
        "mark",
        "order",
        "pin",
        "post",
        "print",
        "process",
        "purge",
        "push",
        "render",
        "reply",
        "report",
        "request",
        "return",
        "run",
        "schedule",
        "scrap",
        "setup",
        "share",
        "sign",
        "sort",
        "split",
        "tag",
        "test",
        "track",
        "transfer",
        "edit",
    ]
)
#: What drf-spectacular appends to an ``APIView`` operation's id for its HTTP method.
_METHOD_SUFFIXES = ("partial_update", "create", "update", "destroy", "list", "retrieve")
_DESCRIPTIONS = {
    "retrieve": gettext_noop("Get the %(name)s with the given `%(parameter)s`."),
    "create": gettext_noop("Create a new %(name)s."),
    "update": gettext_noop(
        "Replace the %(name)s with the given `%(parameter)s`: every field is written, "
        "and fields left out are reset."
    ),
    "partial_update": gettext_noop(
        "Change fields of the %(name)s with the given `%(parameter)s`; "
        "fields left out keep their values."
    ),
    "destroy": gettext_noop("Delete the %(name)s with the given `%(parameter)s`."),
    "bulk_create": gettext_noop("Create several %(plural)s at once: `body` is a list of them."),
    "bulk_update": gettext_noop(
        "Replace several %(plural)s at once: `body` is a list of them, each with its `id`."
    ),
    "bulk_partial_update": gettext_noop(
        "Change fields of several %(plural)s at once: `body` is a list of them, each with its `id`."
    ),
    "bulk_destroy": gettext_noop(
        "Delete several %(plural)s at once: `body` is a list of them, each with its `id`."
    ),
}
_CUSTOM_DESCRIPTIONS = {
    False: gettext_noop("Action `%(action)s` (%(method)s) on %(plural)s."),
    True: gettext_noop(
        "Action `%(action)s` (%(method)s) on the %(name)s with the given `%(parameter)s`."
    ),
}


def _capfirst(text: str) -> str:
    return text[:1].upper() + text[1:]


def _name(facts: OperationFacts) -> str:
    assert facts.model is not None
    return str(facts.model.model._meta.verbose_name)


def _plural(facts: OperationFacts) -> str:
    assert facts.model is not None
    return str(facts.model.model._meta.verbose_name_plural)


def _lookup(facts: OperationFacts) -> str | None:
    """The name of the path parameter that selects the object, if the path has one."""
    for parameter in facts.path_parameters:
        if parameter.lookup_field is not None:
            return parameter.name
    return facts.path_parameters[-1].name if facts.path_parameters else None


def _humanized(field: str) -> str:
    """A model lookup as words: ``customer__name`` → ``customer name``."""
    return field.replace("__", " ").replace("_", " ")


def _listed(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:MAX_FIELDS])
    return shown + (" …" if len(names) > MAX_FIELDS else "")


def title_from_facts(facts: OperationFacts, name: str = "") -> str | None:
    """The default title of an operation, in the active language; ``None`` when the facts
    know no model to name and the tool's ``name`` no action (then the title is the tool name's
    words)."""
    if facts.model is None:
        return _modelless_action_title(facts, name)
    values = {"name": _name(facts), "plural": _plural(facts)}
    if facts.action == "custom":
        action = facts.action_name or facts.handler_name
        values["action"] = action.replace("_", " ")
        writes = facts.http_method != "GET"
        phrase = _verb_first(action) if writes else None
        if writes and "_" not in action:  # one word, a verb: "Hold purchase order"
            template = _VERB_TITLES[bool(facts.detail)]
        elif phrase is not None:  # "Copy bom of part"
            values["action"] = phrase
            template = _VERB_PHRASE_TITLES[bool(facts.detail)]
        else:
            template = _CUSTOM_TITLES[bool(facts.detail)]
    else:
        template = _TITLES[facts.action]
    return _capfirst(gettext(template) % values)


def _verb_first(action: str) -> str | None:
    """An action name of several words as a verb phrase, the verb first (``accept_fields`` →
    ``accept fields``, ``bom_copy`` → ``copy bom``); ``None`` when no end of it is a verb."""
    words = [word for word in action.lower().split("_") if word]
    if len(words) < 2:
        return None
    if words[0] in _ACTION_VERBS:
        return " ".join(words)
    if words[-1] in _ACTION_VERBS and words[-1] not in _NOUN_LIKE_VERBS:
        return " ".join([words[-1], *words[:-1]])
    return None


def _modelless_action_title(facts: OperationFacts, name: str) -> str | None:
    """The title of a custom action that writes on a view without a model, from the tool's
    name: its words before the action name the resource (``machine_restart_create`` →
    "Restart machine", ``importer_session_accept_fields_create`` → "Accept fields of importer
    session"); ``None`` when the name does not end with the action (then the name's words)."""
    action = facts.action_name
    if facts.action != "custom" or not action or facts.http_method == "GET" or not name:
        return None
    stem = name.lower()
    for suffix in _METHOD_SUFFIXES:  # drf-spectacular's operation id: <path words>_<method>
        if stem.endswith("_" + suffix) and not action.lower().endswith(suffix):
            stem = stem[: -len(suffix) - 1]
            break
    action_key = action.lower().replace("-", "_")
    if not stem.endswith("_" + action_key):
        return None
    resource = stem[: -len(action_key) - 1].replace("_", " ").strip()
    if not resource:
        return None
    values = {"name": resource, "plural": resource}
    phrase = _verb_first(action_key)
    if "_" not in action_key:
        values["action"] = action_key
        template = _VERB_TITLES[True]
    elif phrase is not None:
        values["action"] = phrase
        template = _VERB_PHRASE_TITLES[True]
    else:
        return None
    return _capfirst(gettext(template) % values)


def _list_details(facts: OperationFacts) -> list[str]:
    details = []
    if facts.pagination is not None:
        details.append(gettext("paginated"))
    if facts.filter_fields:
        details.append(gettext("filter by %(fields)s") % {"fields": _listed(facts.filter_fields)})
    if facts.search_parameter and facts.search_fields:
        fields = tuple(_humanized(field) for field in facts.search_fields)
        details.append(
            gettext("`%(parameter)s` over %(fields)s")
            % {"parameter": facts.search_parameter, "fields": _listed(fields)}
        )
    elif facts.search_parameter:
        details.append(gettext("`%(parameter)s` to search") % {"parameter": facts.search_parameter})
    if facts.ordering_parameter and facts.ordering_fields:
        details.append(
            gettext("`%(parameter)s` by %(fields)s")
            % {"parameter": facts.ordering_parameter, "fields": _listed(facts.ordering_fields)}
        )
    return details


def description_from_facts(facts: OperationFacts) -> str | None:
    """The default description of an operation, in the active language; ``None`` when the
    facts know no model to name."""
    if facts.model is None:
        return None
    values = {
        "name": _name(facts),
        "plural": _plural(facts),
        "parameter": _lookup(facts) or "id",
        "method": facts.http_method,
        "action": facts.action_name or facts.handler_name,
    }
    if facts.action == "list":
        text = gettext(_TITLES["list"]) % values
        details = _list_details(facts)
        return _capfirst(f"{text} ({'; '.join(details)})." if details else f"{text}.")
    if facts.action == "custom":
        template = _CUSTOM_DESCRIPTIONS[bool(facts.detail)]
    else:
        template = _DESCRIPTIONS[facts.action]
    text = gettext(template) % values
    if facts.action == "create" and facts.accepts_list:
        text += " " + gettext("`body` takes a list of them to create several at once.")
    return _capfirst(text)


@lru_cache(maxsize=16)
def _drf_query_texts(language: str | None) -> dict[str, ArgumentKind]:
    """DRF's texts of its pagination, search and ordering query parameters in ``language``
    (the build's), each with its kind. The ``limit`` and ``page_size`` texts are the same
    sentence, and get the same replacement."""
    texts = {
        PAGE: pagination.PageNumberPagination.page_query_description,
        PAGE_SIZE: pagination.PageNumberPagination.page_size_query_description,
        LIMIT: pagination.LimitOffsetPagination.limit_query_description,
        OFFSET: pagination.LimitOffsetPagination.offset_query_description,
        SEARCH: filters.SearchFilter.search_description,
        ORDERING: filters.OrderingFilter.ordering_description,
    }
    return {str(text): kind for kind, text in texts.items()}


def _is_lookup_boilerplate(description: str, facts: OperationFacts) -> bool:
    """DRF's ``get_pk_description`` of the view's model, as drf-spectacular copies it."""
    if facts.model is None:
        return False
    return description in _lookup_descriptions(facts.model.model, get_language())


@lru_cache(maxsize=1024)
def _lookup_descriptions(model: Any, language: str | None) -> frozenset[str]:
    """DRF's ``get_pk_description`` of each unique field of ``model``, in ``language`` (the
    active one: the texts are translated), worked out once per model and language. DRF and
    drf-spectacular pass it the model field."""
    return frozenset(
        str(get_pk_description(model, field)) for field in model._meta.fields if field.unique
    )


def argument_kind(
    name: str, location: str, description: str | None, facts: OperationFacts
) -> ArgumentKind | None:
    """Which boilerplate an argument's description is (see the module), or ``None``.

    Args:
        name: the parameter's name where it goes (its ``source_name``).
        location: ``"path"``, ``"query"``, ``"body_field"`` or ``"body"``.
        description: its description as the build has it (in ``LANGUAGE_CODE``).
        facts: the operation's facts.
    """
    if not description:
        return None
    if location == "path":
        lookup = any(p.name == name and p.lookup_field for p in facts.path_parameters)
        return LOOKUP if lookup and _is_lookup_boilerplate(description, facts) else None
    if location == "query":
        kind = _drf_query_texts(get_language()).get(description)
        if kind is not None:
            return kind
    if _trimmed_choices(description) != description:
        return CHOICES
    return None


def argument_text(kind: ArgumentKind, description: str, facts: OperationFacts) -> str | None:
    """The text that replaces an argument's boilerplate ``description`` of ``kind`` (from
    :func:`argument_kind`), in the active language; ``None``: no description."""
    if kind == LOOKUP:
        return None
    if kind == PAGE:
        return gettext("Page number.")
    if kind in (PAGE_SIZE, LIMIT):
        return gettext("Results per page.")
    if kind == OFFSET:
        return gettext("Index of the first result.")
    if kind == SEARCH:
        if not facts.search_fields:
            return gettext("Search term.")
        fields = _listed(tuple(_humanized(field) for field in facts.search_fields))
        return gettext("Searches %(fields)s.") % {"fields": fields}
    if kind == ORDERING:
        if not facts.ordering_fields:
            return gettext("Field to order by; `-` in front for descending.")
        return gettext("One of %(fields)s; `-` in front for descending.") % {
            "fields": _listed(facts.ordering_fields)
        }
    if kind == CHOICES:
        return _trimmed_choices(description)
    raise ValueError(f"unknown argument text kind {kind!r}")


_WORD_BREAKS = re.compile(r"[\s_\-]+")


def _same_words(value: str, label: str) -> bool:
    def words(text: str) -> str:
        return _WORD_BREAKS.sub(" ", text).strip().casefold()

    return words(value) == words(label)


def _trimmed_choices(description: str) -> str | None:
    """``description`` without the choice lines whose label repeats the value; ``None``
    when nothing is left."""
    if "* `" not in description:  # no choice line: most descriptions
        return description
    lines = description.split("\n")
    kept = [
        line
        for line in lines
        if not ((match := _CHOICE_LINE.match(line)) and _same_words(match["value"], match["label"]))
    ]
    if len(kept) == len(lines):
        return description
    text = "\n".join(kept).strip()
    return text or None


def trimmed_components(components: dict[str, Any]) -> dict[str, Any]:
    """A copy of converted ``components/schemas`` whose choice-list descriptions are trimmed
    (see the module): what the tools' ``$defs`` are made from. Schemas without such a
    description are the same objects."""
    return {name: _trimmed_schema(schema) for name, schema in components.items()}


#: Keywords whose value is data, never a schema.
_VALUE_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example", "required"})
#: Keywords whose value maps names to schemas.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})


def _trimmed_schema(schema: Any) -> Any:
    if isinstance(schema, list):
        items = [_trimmed_schema(item) for item in schema]
        return schema if all(a is b for a, b in zip(items, schema, strict=True)) else items
    if not isinstance(schema, dict):
        return schema
    changed: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _VALUE_KEYWORDS:
            continue  # values, not schemas
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            # {name: schema}: a property may be named "enum" or "description".
            inner_map = {name: _trimmed_schema(sub) for name, sub in value.items()}
            if any(inner_map[name] is not value[name] for name in value):
                changed[key] = inner_map
            continue
        if key == "description" and isinstance(value, str):
            trimmed = _trimmed_choices(value)
            if trimmed != value:
                changed[key] = trimmed
            continue
        inner = _trimmed_schema(value)
        if inner is not value:
            changed[key] = inner
    if not changed:
        return schema
    result = {**schema, **changed}
    if "description" in changed and changed["description"] is None:
        del result["description"]
    return result
