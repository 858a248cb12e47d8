"""Settings of the second server process of tests/test_confirmation.py: the test settings, with
the backoffice group's destructive tools asking, and the used confirmations in the same Redis
(and under the same key prefix, ``MCP_CONFIRM_PREFIX``) as the test's own server."""

import os

from tests.services import REDIS_URL
from tests.settings import *
from tests.settings import CACHES, MCP_BRIDGE

CACHES = {
    **CACHES,
    "confirmations": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("MCP_CONFIRM_PREFIX", "mcp-bridge-test-confirm"),
    },
}
MCP_BRIDGE = {
    **MCP_BRIDGE,
    "CONFIRM": {"backoffice": "destructive"},
    "CONFIRM_CACHE": "confirmations",
}
