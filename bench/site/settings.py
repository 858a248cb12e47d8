"""Settings of the benchmark site, served by gunicorn (``bench/run``).

Production-like: DEBUG off, token authentication, no debug toolbar; SQLite in
``bench/.data/`` (created and seeded by ``bench/run``). ``settings_peer`` swaps
mcp_bridge for django-mcp-server.
"""

import os
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("BENCH_DATA_DIR", BENCH_DIR / ".data"))

SECRET_KEY = "bench-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en"
USE_I18N = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
ROOT_URLCONF = "bench.site.urls"
WSGI_APPLICATION = "bench.site.wsgi.application"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "mcp_bridge",
    "bench.shop",
]

# Django's default project middleware, less what needs templates.
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

# Persistent connections, as a deployment that cares about latency has them: a new SQLite
# connection per request would add the same fixed cost to both sides of every ratio.
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": DATA_DIR / "bench.sqlite3",
        "CONN_MAX_AGE": 600,
    }
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Warnings and errors to stderr, as a production server would. The root handler also keeps
# the peer's SDK (mcp 1.x FastMCP) from installing its own INFO handler on the root logger,
# which would log every request of the peer only.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"level": "WARNING", "handlers": ["console"]},
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Benchmark API",
    "VERSION": "1.0.0",
    "COMPONENT_SPLIT_REQUEST": True,
}
# Pages of 100, as before PAGE_SIZE defaulted to one page: the listing benchmark's figures
# (the first page of gen1000) stay comparable with earlier runs.
# No build store: every benchmark process builds its groups itself, so that two processes
# started side by side (bench.instructions counts FEW and MANY requests at once) start up
# alike; bench.coldstart sets its own store for the cases that load from one.
# Direct listings: the listing and scale benchmarks measure pages of real tools (above 40
# tools, DISCOVERY's default "auto" would list the discovery meta-tools); bench.discovery sets
# its own modes.
MCP_BRIDGE = {"SERVER_NAME": "bench", "PAGE_SIZE": 100, "BUILD_STORE": None, "DISCOVERY": "direct"}
