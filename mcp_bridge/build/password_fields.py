"""The build, OpenAPI step: a serializer's password field is a ``"format": "password"`` string.

DRF marks a password field with ``style={"input_type": "password"}``: its browsable API and
HTML forms then draw a password input. drf-spectacular (0.30) describes the field as a plain
string, so nothing in a tool's ``inputSchema`` tells a form (the MCP App form page,
:mod:`mcp_bridge.ui`) to hide what is typed. While the bridge generates a group's schema
(:func:`~mcp_bridge.build.spectacular_compat.bridge_generation`), such a ``CharField`` is
described with OpenAPI's ``password`` format (``OpenApiTypes.PASSWORD``). A format JSON Schema
does not define is not asserted on arguments, and the application's own OpenAPI document
(``SpectacularAPIView``, ``manage.py spectacular``) stays what its drf-spectacular writes.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerFieldExtension

from mcp_bridge.build.spectacular_compat import is_generating, without_meta


class PasswordFieldExtension(OpenApiSerializerFieldExtension):
    """A ``CharField`` (or subclass) whose style's ``input_type`` is ``"password"``.

    Below every other extension of the field (the project's, a contrib module's, the bridge's
    own for older drf-spectacular releases), which wins as it would without this one.
    """

    target_class = "rest_framework.fields.CharField"
    match_subclasses = True
    priority = -2

    # Private drf-spectacular API (tests/test_private_apis.py): get_match asks _matches.
    @classmethod
    def _matches(cls, target: Any) -> bool:
        style = getattr(target, "style", None)
        return (
            is_generating()
            and isinstance(style, dict)
            and style.get("input_type") == "password"
            and super()._matches(target)
        )

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> Any:
        # Private drf-spectacular API (tests/test_private_apis.py): the field as drf-spectacular
        # maps it without extensions; it gives this result the field's meta and validators again.
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if not isinstance(schema, dict) or schema.get("type") != "string":
            return schema
        meta = auto_schema._get_serializer_field_meta(self.target, direction)
        return {**without_meta(schema, meta), "format": "password"}
