"""Nautobot's settings for the real-application check (scripts/realapps): Nautobot's own, with
``mcp_bridge`` installed and its whole REST API as one group declared only in
``MCP_BRIDGE["GROUPS"]``. Loaded by ``nautobot.setup()`` from this file's path (Nautobot loads
its configuration as a ``nautobot_config`` module), with the environment check.py sets.

PostgreSQL as the bridge's own tests find it (``MCP_BRIDGE_TEST_PG_*``, default 127.0.0.1:5432,
user ``postgres``), and Redis as they find it (``MCP_BRIDGE_TEST_REDIS_URL``).
"""

import os

from nautobot.core.settings import *

SECRET_KEY = "mcp-bridge-realapps-not-secret"
ALLOWED_HOSTS = ["*"]
DATABASES["default"].update(
    {
        "NAME": "mcp_bridge_realapps_nautobot",
        "HOST": os.environ.get("MCP_BRIDGE_TEST_PG_HOST", "127.0.0.1"),
        "PORT": os.environ.get("MCP_BRIDGE_TEST_PG_PORT", "5432"),
        "USER": os.environ.get("MCP_BRIDGE_TEST_PG_USER", "postgres"),
        "PASSWORD": os.environ.get("MCP_BRIDGE_TEST_PG_PASSWORD", ""),
        "CONN_MAX_AGE": 0,
    }
)
# Nautobot's own cache (django-redis: it deletes by pattern and locks through it), in the Redis the
# bridge's tests use, under a prefix of its own: app.py deletes these keys when the run ends.
CACHES["default"]["LOCATION"] = os.environ.get(
    "MCP_BRIDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"
)
CACHES["default"]["KEY_PREFIX"] = "mcp-bridge-realapps-nautobot"
INSTALLED_APPS = [*INSTALLED_APPS, "mcp_bridge"]
MCP_BRIDGE = {
    "BUILD_STORE": None,
    "GROUPS": {"nautobot": {"include": [{"path": "/api/"}]}},
}
