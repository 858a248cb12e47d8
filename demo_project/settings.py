"""Settings of the demo shop.

Meant for local development only: the defaults (DEBUG on, a published secret
key, SQLite) are convenient, not safe. Override them with environment variables
before exposing the server anywhere.
"""

import os
from pathlib import Path

from django.utils.translation import gettext_lazy as _

# The repository root, so that db.sqlite3 and locale/ sit next to manage.py.
BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "django-insecure-demo-shop-key-do-not-use-in-production"
)

DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"

ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
# Comma-separated extra hosts, e.g. DJANGO_ALLOWED_HOSTS="shop.example.com,10.0.0.5".
ALLOWED_HOSTS += [
    h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    # The authorization server of MCP authorization (the "oauth" extra).
    "oauth2_provider",
    "mcp_bridge",
    "demo_project.shop",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions (it may read the language from the session), before CommonMiddleware
    # (which may redirect to a language-prefixed URL).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "demo_project.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "demo_project.wsgi.application"
ASGI_APPLICATION = "demo_project.asgi.application"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        # DEMO_DB_PATH lets tests run the demo (e.g. `mcp_stdio`) on a throwaway database.
        "NAME": os.environ.get("DEMO_DB_PATH") or BASE_DIR / "db.sqlite3",
    }
}

# Throttle counters live here; a per-process cache is enough for a single dev server.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("uk", _("Ukrainian")),
    ("de", _("German")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: API and MCP clients send "Authorization: Token <key>"; the session
        # only matters for the browsable API and the admin.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Open by default; every view states what it needs.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 10,
    # Only scopes are configured: ScopedRateThrottle is opted into per view (orders create).
    "DEFAULT_THROTTLE_RATES": {"orders": "30/min"},
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Demo shop API",
    "DESCRIPTION": "A small shop: a product catalog, customer orders and back-office statistics.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Separate request components (ProductRequest, ...) leave read-only fields such as
    # `id` and `created_at` out of request bodies, so clients are never asked for them.
    "COMPONENT_SPLIT_REQUEST": True,
    # Product and Order both have a `status` field with different choices; without explicit
    # names drf-spectacular warns and invents hashed enum names.
    "ENUM_NAME_OVERRIDES": {
        "ProductStatusEnum": "demo_project.shop.models.Product.Status",
        "OrderStatusEnum": "demo_project.shop.models.Order.Status",
    },
}

# Django's login page, where the OAuth authorization page sends a signed-out user.
LOGIN_URL = "/accounts/login/"

# django-oauth-toolkit as the authorization server of the MCP endpoints (docs/authorization.md):
# authorization code with PKCE S256 only, refresh tokens, dynamic client registration (RFC
# 7591) open to anyone, as MCP clients register themselves, and Client ID Metadata Documents.
OAUTH2_PROVIDER = {
    "SCOPES": {
        "backoffice": _("Staff work through the back-office MCP tools"),
        "orders": _("Your orders through the orders MCP tools"),
    },
    "DEFAULT_SCOPES": ["backoffice", "orders"],
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    # "none": public clients (CLI, desktop, IDE) hold no secret and rely on PKCE.
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
        "none",
        "client_secret_basic",
        "client_secret_post",
    ],
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 30 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "CIMD_ENABLED": True,
    # The callback servers of CLI and desktop clients listen on a port of their choice.
    "ALLOW_LOCALHOST_LOOPBACK": True,
}

MCP_BRIDGE = {
    "SERVER_NAME": "demo-shop",
    # backoffice and orders are protected resources: an OAuth token with the group's scope, or
    # one of the demo's static DRF tokens; catalog stays public.
    "OAUTH_GROUPS": {"backoffice": ["backoffice"], "orders": ["orders"]},
    "OAUTH_AUTHORIZATION_SERVERS": ["/o"],
    # A person confirms the backoffice's destructive tools (products_destroy, products_update)
    # before their view runs: the client shows the form (docs/confirmation.md; mcp_client.py
    # asks on the terminal). The demo's one process records used confirmations in its own cache;
    # a deployment points CONFIRM_CACHE at Redis.
    "CONFIRM": {"backoffice": "destructive"},
    "INSTRUCTIONS": (
        "Tools of a small online shop. Products are identified by their slug, categories, "
        "tags and orders by their id. Prices are decimal strings in EUR. Search the catalog "
        "with products_search before fetching single products; list results are paginated "
        "(10 per page, use the `page` argument)."
    ),
}
