"""The test settings on PostgreSQL: ``DJANGO_SETTINGS_MODULE=tests.settings_postgres pytest``.

The server is read from ``MCP_BRIDGE_TEST_PG_HOST``/``_PORT``/``_USER``/``_PASSWORD``
(default: 127.0.0.1:5432, user ``postgres``, trust authentication), as on the CI machines.
pytest-django creates and drops the ``test_mcp_bridge`` database. Without a reachable server,
or without psycopg (``pip install -e ".[postgres]"``), every test is skipped with the reason
(tests/conftest.py).
"""

import os

from tests.settings import *

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "mcp_bridge",
        "HOST": os.environ.get("MCP_BRIDGE_TEST_PG_HOST", "127.0.0.1"),
        "PORT": os.environ.get("MCP_BRIDGE_TEST_PG_PORT", "5432"),
        "USER": os.environ.get("MCP_BRIDGE_TEST_PG_USER", "postgres"),
        "PASSWORD": os.environ.get("MCP_BRIDGE_TEST_PG_PASSWORD", ""),
        "TEST": {"NAME": "test_mcp_bridge"},
    }
}
