"""The shortest path through the bridge: list the tools of a group, call one that writes, call
one that fails."""

import json

from tests.mcp_client import error_payload
from tests.testapp.models import Post


def test_list_and_call(cases):
    names = [t["name"] for t in cases.list_tools()]
    assert {"posts_create", "posts_retrieve"} <= set(names)
    assert len(names) == len(set(names))  # one tool per name
    result = cases.call(
        "posts_create", {"title": "Hello", "status": "draft", "author": {"name": "Ann"}}
    )
    assert result["isError"] is False
    created = json.loads(result["content"][0]["text"])
    assert result["structuredContent"] == {"result": created}  # 2025-11-25 wraps the value
    post = Post.objects.get(pk=created["id"])
    assert (post.title, post.status, post.author.name) == ("Hello", "draft", "Ann")
    payload = error_payload(cases.call("posts_retrieve", {"id": 999}))
    assert payload["code"] == 404 and payload["data"]["status"] == 404
