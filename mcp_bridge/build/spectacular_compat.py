"""The build, OpenAPI step: what drf-spectacular 0.28 and 0.29 describe less exactly than 0.30.

Applications pin drf-spectacular 0.28 or 0.29, and the bridge supports them. drf-spectacular
0.30 fixed two descriptions that the bridge's tools depend on; on an older release the bridge
supplies the same description itself, **only while it generates a group's schema**
(:func:`bridge_generation`, entered by :func:`mcp_bridge.build.openapi.generate_group_schema`),
so that the application's own OpenAPI document (``SpectacularAPIView``, ``manage.py
spectacular``) stays exactly what its drf-spectacular release writes:

* **django-polymorphic's own DRF serializer** (``polymorphic.contrib.drf.serializers
  .PolymorphicSerializer``, django-polymorphic 4.10+): 0.30 added
  ``DjangoPolymorphicSerializerExtension``; before, the serializer is described as an empty
  object, and the tool accepts no ``body``. :class:`DjangoPolymorphicSerializerExtension` is
  the same extension (django-rest-polymorphic's, pointed at the other class).
* **A blank-allowed string with a format or pattern** (``URLField(allow_blank=True)``,
  ``EmailField(allow_blank=True)``, a ``SlugField`` that may be blank): 0.30 writes
  ``oneOf: [<the string>, {"type": "string", "maxLength": 0}]``; before, only the formatted
  string, and the bridge, which asserts formats on arguments, would refuse the ``""`` the
  view accepts. :class:`BlankFormattedStringExtension` writes the 0.30 form. drf-spectacular
  gives an extension's schema the field's meta once more, so the extension takes it out first
  (:func:`without_meta`): under ``OAS_VERSION`` 3.1 a nullable ``CharField`` that may be
  blank (pulpcore's ``HStoreField`` values, ``SetLabel.value``) was written ``["string",
  "null", "null"]``.

On 0.30 and later neither extension is defined: drf-spectacular's own description applies.
What remains different on the older releases is in ``docs/tools.md`` ("drf-spectacular
releases"), and ``nox -s oldest`` runs the suite on the floor.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from drf_spectacular.contrib import rest_polymorphic
from drf_spectacular.extensions import OpenApiSerializerFieldExtension

_generating: ContextVar[bool] = ContextVar("mcp_bridge_generating", default=False)

#: Whether this drf-spectacular release describes both cases itself (0.30 and later).
DESCRIBES_DJANGO_POLYMORPHIC = hasattr(rest_polymorphic, "DjangoPolymorphicSerializerExtension")

#: The keywords 0.30 keeps outside the ``oneOf`` of a blank-allowed string
#: (``drf_spectacular.openapi.AutoSchema._insert_field_validators``, 0.30).
_OUTER_KEYWORDS = frozenset(
    {"readOnly", "writeOnly", "nullable", "deprecated", "description", "title"}
)
_CONSTRAINTS = ("format", "pattern", "minLength")


@contextmanager
def bridge_generation() -> Iterator[None]:
    """Within: the bridge generates a group's schema, and the extensions of this module apply."""
    token = _generating.set(True)
    try:
        yield
    finally:
        _generating.reset(token)


def is_generating() -> bool:
    """Whether the bridge is generating a group's schema (:func:`bridge_generation`)."""
    return _generating.get()


def blank_or_formatted(schema: dict[str, Any]) -> dict[str, Any]:
    """A string schema with a format, pattern or minimum length that also accepts ``""``,
    written as drf-spectacular 0.30 writes it: the constraints in a ``oneOf`` branch beside
    ``{"type": "string", "maxLength": 0}``, the texts and flags outside."""
    if schema.get("type") != "string" or not any(k in schema for k in _CONSTRAINTS):
        return schema
    outer = {k: v for k, v in schema.items() if k in _OUTER_KEYWORDS}
    inner = {k: v for k, v in schema.items() if k not in _OUTER_KEYWORDS}
    return {**outer, "oneOf": [inner, {"type": "string", "maxLength": 0}]}


def without_meta(schema: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a field as ``_map_serializer_field`` maps it, its ``meta`` applied) without
    what the meta added, for an extension whose result drf-spectacular gives the same meta
    again (``append_meta(<the extension's schema>, meta)``).

    Applied twice, the meta of a nullable field is harmless under OpenAPI 3.0 (``nullable:
    true`` is set twice), not under 3.1, where each application appends ``"null"`` to the
    type: ``["string", "null", "null"]``, which JSON Schema refuses (the items of ``type``
    are unique), and a ``oneOf`` with texts beside it, which 0.28 and 0.29 cannot make
    nullable at all (an assertion). So the ``"null"`` of the type, and the keywords that
    the meta sets again, are taken out here."""
    bare = {key: value for key, value in schema.items() if key not in meta}
    types = bare.get("type")
    if meta.get("nullable") and isinstance(types, list):
        kept = [name for name in types if name != "null"]
        bare["type"] = kept[0] if len(kept) == 1 else kept
    return bare


if not DESCRIBES_DJANGO_POLYMORPHIC:

    class DjangoPolymorphicSerializerExtension(rest_polymorphic.PolymorphicSerializerExtension):
        """drf-spectacular 0.30's extension of the same name, for 0.28 and 0.29: django-polymorphic
        4.10 took django-rest-polymorphic's serializer in, under this path, with the same API."""

        target_class = "polymorphic.contrib.drf.serializers.PolymorphicSerializer"
        optional = True  # django-polymorphic without its DRF module: no warning

        # Private drf-spectacular API (tests/test_private_apis.py): get_match asks _matches.
        @classmethod
        def _matches(cls, target: Any) -> bool:
            return _generating.get() and super()._matches(target)

    class BlankFormattedStringExtension(OpenApiSerializerFieldExtension):
        """A blank-allowed ``CharField`` (and subclass) as drf-spectacular 0.30 describes it.

        The lowest priority: any other extension of the field (the project's, a contrib
        module's) wins, as it would on 0.30 where this one does not exist.
        """

        target_class = "rest_framework.fields.CharField"
        match_subclasses = True
        priority = -1

        @classmethod
        def _matches(cls, target: Any) -> bool:
            return (
                _generating.get()
                and bool(getattr(target, "allow_blank", False))
                and super()._matches(target)
            )

        def map_serializer_field(self, auto_schema: Any, direction: Any) -> Any:
            # Private drf-spectacular API (tests/test_private_apis.py): the field as drf-spectacular
            # maps it without extensions, then its validators (format, pattern, lengths), which
            # _map_basic_serializer inserts after this returns; inserting them again there finds
            # no "type" at the top and changes nothing.
            schema = auto_schema._map_serializer_field(
                self.target, direction, bypass_extensions=True
            )
            if not isinstance(schema, dict):
                return schema
            meta = auto_schema._get_serializer_field_meta(self.target, direction)
            schema = without_meta(schema, meta)
            auto_schema._insert_field_validators(self.target, schema)
            return blank_or_formatted(schema)
