"""Settings of the Gunicorn server that the lock tests start (several worker processes).

The lock backend comes from the environment, so one settings module serves both
backends: ``MCP_TEST_LOCK_BACKEND`` (a dotted path) and ``MCP_TEST_LOCK_OPTIONS``
(JSON). ``MCP_TEST_DIR`` is where the views record their executions.
"""

import json
import os

from tests.settings import *

ROOT_URLCONF = "tests.features.urls"
MCP_BRIDGE = {
    "SERVER_NAME": "tests-locks",
    "LOCK_BACKEND": os.environ.get("MCP_TEST_LOCK_BACKEND", "mcp_bridge.locking.FileLockBackend"),
    "LOCK_OPTIONS": json.loads(os.environ.get("MCP_TEST_LOCK_OPTIONS", "{}")),
}
