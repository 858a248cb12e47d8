"""A newcomer's first hour, as a test: a `django-admin startproject` project with one small DRF
viewset follows the README's steps, then makes each classic mistake and gets a check id.

Everything runs in subprocesses of a real project directory, as a user would run it:
``manage.py check``, ``mcp_call``, and ``mcp_stdio`` started from the desktop configuration of
docs/endpoint.md exactly as written (paths filled in) by the official MCP client, from another
working directory. ``MCP_BRIDGE_NEWCOMER_PYTHON`` names the interpreter of the project (default:
this one), so the same test checks a wheel installed in a fresh virtualenv.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

import mcp_bridge

# Out of the fast lane (pytest -m "not slow"): a startproject project in subprocesses.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("MCP_BRIDGE_NEWCOMER_PYTHON", sys.executable)

VIEWS = '''
from rest_framework import serializers, viewsets
from rest_framework.decorators import api_view
from rest_framework.response import Response

from mcp_bridge import api_group

ROWS = [{"id": 1, "name": "lamp"}, {"id": 2, "name": "desk"}]


class ThingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="What the thing is called.")


@api_group("things")
class ThingViewSet(viewsets.ViewSet):
    """The things we have."""

    serializer_class = ThingSerializer

    def list(self, request):
        return Response(ThingSerializer(ROWS, many=True).data)


if MISTAKE == "decorator_order":
    @api_view(["GET"])
    @api_group("things")
    def stats(request):
        return Response({})
'''

# The README's step 1, appended to what startproject wrote; MISTAKE undoes one part of it.
SETTINGS = """
import os
MISTAKE = os.environ.get("MISTAKE", "")
INSTALLED_APPS += ["rest_framework", "drf_spectacular", "things"]
if MISTAKE != "not_installed":
    INSTALLED_APPS += ["mcp_bridge"]
REST_FRAMEWORK = {"DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema"}
if MISTAKE == "schema_class":
    REST_FRAMEWORK = {}
if MISTAKE == "misspelt_setting":
    MCP_BRIDGE = {"PAGESIZE": 10}
if MISTAKE == "body_size_text":
    MCP_BRIDGE = {"MAX_BODY_BYTES": "1MB"}
if MISTAKE == "depth_word":
    MCP_BRIDGE = {"MAX_JSON_DEPTH": "deep"}
if MISTAKE == "origins_string":
    MCP_BRIDGE = {"ALLOWED_ORIGINS": "https://app.example.com"}
"""

URLS = """
import os
from django.urls import include
from rest_framework.routers import DefaultRouter
from things.views import ThingViewSet

router = DefaultRouter()
router.register("things", ThingViewSet, basename="things")
urlpatterns += [path("api/", include(router.urls))]
if os.environ.get("MISTAKE") == "slashless":
    urlpatterns += [path("mcp", include("mcp_bridge.urls"))]
elif os.environ.get("MISTAKE") != "no_urls":
    urlpatterns += [path("mcp/", include("mcp_bridge.urls"))]
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("newcomer")
    subprocess.run([PYTHON, "-m", "django", "startproject", "mysite", str(root)], check=True)
    (root / "things").mkdir()
    (root / "things" / "__init__.py").write_text("")
    (root / "things" / "views.py").write_text(
        'import os\nMISTAKE = os.environ.get("MISTAKE", "")\n' + VIEWS
    )
    with (root / "mysite" / "settings.py").open("a") as settings:
        settings.write(SETTINGS)
    with (root / "mysite" / "urls.py").open("a") as urls:
        urls.write(URLS)
    return root


def manage(project: Path, *args: str, mistake: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DJANGO_SETTINGS_MODULE", "PYTHONPATH")
    }
    env["MISTAKE"] = mistake
    return subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_the_three_steps_work_on_a_startproject_project(project):
    checked = manage(project, "check")
    assert checked.returncode == 0, checked.stderr
    assert "mcp_bridge" not in checked.stdout + checked.stderr  # nothing to report
    called = manage(project, "mcp_call", "things", "things_list")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == [{"id": 1, "name": "lamp"}, {"id": 2, "name": "desk"}]


def test_the_documented_desktop_configuration_works_as_written(project, tmp_path):
    text = (REPO / "docs" / "endpoint.md").read_text()
    block = next(
        b for b in re.findall(r"```json\n(.*?)\n```", text, re.DOTALL) if "mcpServers" in b
    )
    block = block.replace("/path/to/project/.venv/bin/python", PYTHON)
    block = block.replace("/path/to/project/", f"{project}/")
    (server,) = json.loads(block)["mcpServers"].values()
    server["args"][server["args"].index("catalog")] = "things"
    # A desktop client starts it elsewhere, with an environment of its own (LANGUAGE_CODE is
    # startproject's "en-us", which is not a code of the default LANGUAGES).
    params = StdioServerParameters(
        command=server["command"], args=server["args"], cwd=str(tmp_path), env={}
    )

    async def session():
        async with Client(params) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            return names, await client.call_tool("things_list", {}), client.server_info

    names, result, server_info = anyio.run(session)
    assert names == ["things_list"]
    # No SPECTACULAR_SETTINGS["VERSION"]: the bridge's version, not drf-spectacular's "0.0.0".
    assert server_info is not None and server_info.version == mcp_bridge.__version__
    # The client's default mode negotiates 2026-07-28, whose structuredContent is the list itself.
    assert result.is_error is False and result.structured_content == [
        {"id": 1, "name": "lamp"},
        {"id": 2, "name": "desk"},
    ]


@pytest.mark.parametrize(
    "mistake,check_id",
    [
        ("schema_class", "mcp_bridge.E080"),
        ("misspelt_setting", "mcp_bridge.E081"),
        ("not_installed", "mcp_bridge.E082"),
        ("no_urls", "mcp_bridge.W084"),
        ("slashless", "mcp_bridge.W086"),
        ("decorator_order", "TypeError"),
    ],
)
def test_each_mistake_gets_its_own_check_id(project, mistake, check_id):
    checked = manage(project, "check", mistake=mistake)
    output = checked.stdout + checked.stderr
    assert check_id in output, output
    assert output.count(check_id) == 1 or check_id == "TypeError"  # once, not per group
    if check_id.startswith("mcp_bridge.E") or check_id == "TypeError":
        assert checked.returncode != 0


@pytest.mark.parametrize(
    "mistake,key,check_id",
    [
        ("body_size_text", "MAX_BODY_BYTES", "mcp_bridge.E211"),
        ("depth_word", "MAX_JSON_DEPTH", "mcp_bridge.E212"),
        ("origins_string", "ALLOWED_ORIGINS", "mcp_bridge.E214"),
    ],
)
def test_a_wrong_value_is_named_with_its_key_s_own_check_id(project, mistake, key, check_id):
    checked = manage(project, "check", mistake=mistake)
    output = checked.stdout + checked.stderr
    assert checked.returncode != 0, output
    assert output.count(check_id) == 1, output  # once, not per group
    assert f'({check_id}) settings.MCP_BRIDGE["{key}"] is ' in output
    assert "HINT: " in output and "docs/" in output
