"""Settings of the processes tests/test_tasks_processes.py starts: two servers and the
django-tasks database worker (``db_worker``), sharing a SQLite file (the task queue and the
users) and Redis (the task state and the test jobs), as separate machines would share a
database and a cache.

``MCP_TEST_DIR`` holds the SQLite file; ``MCP_TEST_PREFIX`` keeps this run's Redis keys apart.
"""

import os

from tests.services import REDIS_URL
from tests.settings import *
from tests.settings import INSTALLED_APPS

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(os.environ["MCP_TEST_DIR"], "db.sqlite3"),
        "OPTIONS": {"timeout": 30},
    }
}
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ["MCP_TEST_PREFIX"],
    }
}
INSTALLED_APPS = [*INSTALLED_APPS, "django_tasks", "django_tasks_db"]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
MCP_BRIDGE = {
    "SERVER_NAME": "tests-tasks",
    "TASK_ENGINE": "django_tasks",
    "TASK_LEASE_SECONDS": 3,
    "TASK_POLL_INTERVAL_MS": 200,
}
