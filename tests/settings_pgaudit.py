"""The test settings on PostgreSQL with django-pghistory: tests/test_audit_trails.py runs
tests/pgaudit/pghistory_trail.py in a pytest of its own with these settings (the main suite
runs on SQLite, and pghistory's triggers need PostgreSQL)."""

import os

from tests.settings_postgres import *
from tests.settings_postgres import DATABASES, INSTALLED_APPS, MIDDLEWARE

INSTALLED_APPS = [*INSTALLED_APPS, "pgtrigger", "pghistory", "tests.pgaudit"]
# After AuthenticationMiddleware, as django-pghistory's documentation asks.
MIDDLEWARE = [*MIDDLEWARE, "pghistory.middleware.HistoryMiddleware"]
ROOT_URLCONF = "tests.pgaudit.urls"
# tests/test_audit_trails.py names a test database of its own per run, so that it can run
# beside the PostgreSQL suite (tests/settings_postgres.py, test_mcp_bridge) and other runs.
DATABASES["default"]["TEST"] = {
    "NAME": os.environ.get("MCP_BRIDGE_TEST_PG_DATABASE", "test_mcp_bridge_pghistory")
}
