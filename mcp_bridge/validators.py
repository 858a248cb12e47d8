"""JSON Schema validation of the tools: jsonschema decides, jsonschema-rs answers fast.

jsonschema (``Draft202012Validator``) is the authority for every verdict and
every error message. It is pure Python and walks the schema on every call,
which costs milliseconds for a tool result such as a page of 20 rows, more than
the view itself (see ``docs/benchmarks.md``).

When the optional extra ``mcp-bridge[fast]`` is installed, jsonschema-rs (a
maintained Rust implementation of JSON Schema 2020-12 that passes the official
JSON-Schema-Test-Suite) compiles each schema once and answers "is this
instance valid?" in microseconds. Only a "no" goes to jsonschema, whose errors
are then reported (and whose empty error list would mean "valid" after all).
Schemas checked with a format checker (tool arguments) use jsonschema alone,
since the two libraries assert ``format`` differently.

Sources: JSON Schema 2020-12 Core and Validation; jsonschema's
``Draft202012Validator``; jsonschema-rs's ``Draft202012Validator`` and
``meta.is_valid``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

try:  # the optional extra mcp-bridge[fast]
    import jsonschema_rs
except ImportError:  # pragma: no cover - exercised by forcing the fallback in tests
    jsonschema_rs = None

__all__ = ["SchemaValidator", "check_schema", "fast_validation_available"]


def fast_validation_available() -> bool:
    """Whether jsonschema-rs is installed (``pip install "mcp-bridge[fast]"``)."""
    return jsonschema_rs is not None


class SchemaValidator:
    """A ``Draft202012Validator`` with jsonschema-rs as a fast path for valid instances.

    ``iter_errors``, ``is_valid`` and ``validate`` give jsonschema's results;
    every other attribute (``schema``, ``format_checker``...) is the wrapped
    validator's. Both validators are compiled once, when the tool is built.
    """

    def __init__(self, schema: Any, format_checker: FormatChecker | None = None) -> None:
        self.validator = Draft202012Validator(schema, format_checker=format_checker)
        self._fast: Any = None
        if jsonschema_rs is not None and format_checker is None:
            try:
                self._fast = jsonschema_rs.Draft202012Validator(schema)
            except Exception:  # noqa: BLE001 -- a schema it cannot compile: jsonschema alone
                self._fast = None

    def _surely_valid(self, instance: Any) -> bool:
        if self._fast is None:
            return False
        try:
            return bool(self._fast.is_valid(instance))
        except Exception:  # noqa: BLE001 -- a value it cannot read: jsonschema decides
            return False

    def iter_errors(self, instance: Any) -> Iterator[ValidationError]:
        if self._surely_valid(instance):
            return iter(())
        return self.validator.iter_errors(instance)

    def is_valid(self, instance: Any) -> bool:
        return self._surely_valid(instance) or self.validator.is_valid(instance)

    def validate(self, instance: Any) -> None:
        if not self._surely_valid(instance):
            self.validator.validate(instance)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.validator, name)


def check_schema(schema: dict[str, Any], checked: set[str]) -> None:
    """``Draft202012Validator.check_schema(schema)``, each ``$defs`` entry once per build.

    The metaschema judges every ``$defs`` entry on its own, so a tool schema is
    valid when its root (without ``$defs``) and each of its definitions are.
    The tools of a group copy the same components again and again; ``checked``
    holds the definitions already found valid (as canonical JSON), so each is
    checked once per build instead of once per tool. (jsonschema-rs is not
    used here: its metaschema check does not assert the ``regex`` format of
    ``pattern`` and ``patternProperties`` as jsonschema's does.)

    Raises:
        jsonschema.exceptions.SchemaError: jsonschema's error, as ``check_schema``
            raises it for the whole schema.
    """
    definitions = schema.get("$defs") if isinstance(schema, dict) else None
    if not isinstance(definitions, dict):
        Draft202012Validator.check_schema(schema)
        return
    Draft202012Validator.check_schema({**schema, "$defs": {}})
    for definition in definitions.values():
        key = json.dumps(definition, sort_keys=True, default=repr)
        if key not in checked:
            Draft202012Validator.check_schema({"$defs": {"definition": definition}})
            checked.add(key)
