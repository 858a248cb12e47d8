"""Schema profiles over real HTTP: the official MCP Python client on ``/mcp/<group>/?schema=...``.

The URL is what a user pastes into a client: the query must survive the client's own
requests, the listed schemas must be in the profile, and the tools must work as usual.
"""

from __future__ import annotations

import json

import pytest

from mcp_bridge.schemas.profiles import GEMINI, INLINE, PORTABLE, PROFILES, STRICT
from tests.mcp_client import McpClient
from tests.test_end_to_end import demo_data, run_client  # noqa: F401 -- demo_data is a fixture
from tests.test_profiles import assert_profile_shape

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]  # the official MCP client against a live server


@pytest.mark.parametrize("profile", [INLINE, PORTABLE, GEMINI, STRICT])
def test_client_lists_and_calls_through_a_profile_url(live_server, demo_data, profile):  # noqa: F811
    async def work(client):
        tools = (await client.list_tools()).tools
        result = await client.call_tool("categories_list", {})
        return tools, result

    _, (tools, result) = run_client(f"{live_server.url}/mcp/catalog/?schema={profile}", work)
    listed = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]
    assert len(listed) == 7
    for tool in listed:
        assert_profile_shape(tool["inputSchema"], profile, f"{tool['name']}:inputSchema")
        assert_profile_shape(tool["outputSchema"], profile, f"{tool['name']}:outputSchema")
    text = json.dumps(listed)
    if profile != INLINE:
        assert "$ref" not in text and "$defs" not in text
    else:
        assert text.count('"$ref"') > 0  # the category tree's cycle, and only that
    assert result.is_error is False
    assert len(result.structured_content["result"]) > 0


def test_an_unknown_profile_is_an_http_400_naming_the_profiles(live_server):
    response = McpClient(live_server.url, "/mcp/catalog/?schema=compact").request(
        "tools/list", id=1
    )
    assert response.status_code == 400
    assert response.json()["error"]["data"] == {
        "schema": "compact",
        "profiles": list(PROFILES),
    }
