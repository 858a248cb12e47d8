"""A settings module for the realistic API alone (``bench/``, ``manage.py mcp_tools``):
the test settings, with its URLconf as the root and the group ``realistic`` declared."""

from tests.realistic import MCP_BRIDGE as REALISTIC_BRIDGE
from tests.settings import *

ROOT_URLCONF = "tests.realistic.urls"
MCP_BRIDGE = REALISTIC_BRIDGE
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
