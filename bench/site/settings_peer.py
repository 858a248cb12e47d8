"""The benchmark site with django-mcp-server instead of mcp_bridge (its own virtualenv).

Stateless, as mcp_bridge is, and token-authenticated at its endpoint
(``DJANGO_MCP_AUTHENTICATION_CLASSES``), so both servers see the same caller.
"""

from .settings import *

INSTALLED_APPS = [app for app in INSTALLED_APPS if app not in ("mcp_bridge", "drf_spectacular")]
INSTALLED_APPS.append("mcp_server")
ROOT_URLCONF = "bench.site.urls_peer"
REST_FRAMEWORK = {k: v for k, v in REST_FRAMEWORK.items() if k != "DEFAULT_SCHEMA_CLASS"}
del MCP_BRIDGE, SPECTACULAR_SETTINGS  # noqa: F821
DJANGO_MCP_GLOBAL_SERVER_CONFIG = {"name": "bench", "stateless": True}
DJANGO_MCP_AUTHENTICATION_CLASSES = ["rest_framework.authentication.TokenAuthentication"]
DJANGO_MCP_ENDPOINT = "mcp/"
DJANGO_MCP_GET_SERVER_INSTRUCTIONS_TOOL = False
