"""Settings of the test suite: SQLite in memory, local-memory cache, token auth."""

from demo_project import settings as demo_settings
from tests.realistic import ENUM_NAME_OVERRIDES as REALISTIC_ENUM_NAME_OVERRIDES

SECRET_KEY = "tests-only-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
USE_TZ = True
LANGUAGE_CODE = "en"
ROOT_URLCONF = "tests.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "polymorphic",
    "simple_history",  # issue 12: history rows of writes made through tools (test_identity)
    "oauth2_provider",  # MCP authorization's tests (tests/test_authorization.py)
    "mcp_bridge",
    "tests.testapp",
    "tests.thirdparty",
    "demo_project.shop",
    # Issue 20: the realistic API of ~200 operations (tests/realistic/), for default texts and
    # search; its German catalogue is the project package's own.
    "tests.realistic",
    "tests.realistic.crm",
    "tests.realistic.billing",
    "tests.realistic.commerce",
    "tests.realistic.inventory",
    "tests.realistic.ipam",
    "tests.realistic.virtualization",
]

MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Issue 12: middleware that holds the request while DRF authenticates inside the view
    # (see tests/test_identity.py); both only act on the test app's Ledger rows.
    "simple_history.middleware.HistoryRequestMiddleware",
    "tests.testapp.middleware.CurrentRequestMiddleware",
]

DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The demo's API settings, so that its tools look here as they do in the demo.
REST_FRAMEWORK = {
    **demo_settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"reports": "1/min", "orders": "1000/min"},
}
# The demo's, with the realistic API's choice sets named too (tests/realistic: drf-spectacular
# caches ENUM_NAME_OVERRIDES for the process, so they cannot be set per group).
SPECTACULAR_SETTINGS = {
    **demo_settings.SPECTACULAR_SETTINGS,
    "ENUM_NAME_OVERRIDES": {
        **demo_settings.SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"],
        **REALISTIC_ENUM_NAME_OVERRIDES,
    },
}
MCP_BRIDGE = {"SERVER_NAME": "tests"}
# The demo's authorization server, for tests/test_authorization.py (whose URLconf mounts it);
# every group stays public unless a test sets MCP_BRIDGE["OAUTH_GROUPS"].
OAUTH2_PROVIDER = demo_settings.OAUTH2_PROVIDER
LOGIN_URL = demo_settings.LOGIN_URL
TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]
STATIC_URL = "/static/"
