"""WSGI application of the multi-process lock tests (run by Gunicorn with ``--preload``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.features.server_settings")
application = get_wsgi_application()

# Built once in the master, before the workers fork, so that no worker spends its first
# call generating the schema while the tests measure timing.
from mcp_bridge.toolset.registry import get_toolset

get_toolset("features", None)
