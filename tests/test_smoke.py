from tests.mcp_client import error_payload


def test_list_and_call(cases):
    names = [t["name"] for t in cases.list_tools()]
    print(names)
    result = cases.call(
        "posts_create", {"title": "Hello", "status": "draft", "author": {"name": "Ann"}}
    )
    print(result)
    assert result["isError"] is False
    result = cases.call("posts_retrieve", {"id": 999})
    print(error_payload(result))
