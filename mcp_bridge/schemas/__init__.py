"""JSON Schema, for both pipelines: written from OpenAPI, checked, and rewritten for clients.

* :mod:`~mcp_bridge.schemas.conversion`: OpenAPI 3.0 schema objects to JSON Schema 2020-12,
  ``$ref`` to ``$defs``, the input and output forms of a tool's schemas;
* :mod:`~mcp_bridge.schemas.validators`: compiled validators (jsonschema, or jsonschema-rs with
  the ``fast`` extra) and the metaschema check of a build;
* :mod:`~mcp_bridge.schemas.profiles`: the schema profiles, how a schema is written for a
  client family that refuses part of JSON Schema (``inline``, ``portable``, ``gemini``,
  ``strict``).

Nothing here knows DRF, a tool or a request: it imports only :mod:`mcp_bridge.base`.
"""
