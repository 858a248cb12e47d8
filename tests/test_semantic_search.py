"""Semantic search beside the lexical index (docs/discovery.md#semantic-search): the settings,
the tools' vectors made once per build and stored with it, the query's at search time, the
fusion of both rankings, and the built-in static model's reader. A tiny deterministic
embedding (tests/semantic_embedding.py) stands in for a model: the figures of a real one are
in docs/benchmarks.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.build import translation
from mcp_bridge.discovery import semantic
from mcp_bridge.discovery.index import ToolText, embedding_text, index_texts
from mcp_bridge.discovery.metatools import SEARCH_TOOL
from mcp_bridge.toolset import registry
from tests import semantic_embedding
from tests.mcp_client import McpClient

numpy = pytest.importorskip("numpy")

TINY = {
    "SEARCH_EMBEDDING_MODEL": "tiny",
    "SEARCH_EMBEDDING_FUNCTION": "tests.semantic_embedding.embed",
}
SEARCH_CASES = {"SERVER_NAME": "tests", "DISCOVERY": {"cases": "search", "*": "direct"}}


def _answer(query: str, **arguments) -> dict:
    result = McpClient().call(SEARCH_TOOL, {"query": query, **arguments})
    assert result["isError"] is False, result
    return json.loads(result["content"][0]["text"])


@pytest.mark.parametrize(
    "key,value",
    [
        ("SEARCH_EMBEDDING_MODEL", ""),
        ("SEARCH_EMBEDDING_MODEL", 3),
        ("SEARCH_EMBEDDING_FUNCTION", "embed"),
        ("SEARCH_EMBEDDING_FUNCTION", None),
    ],
)
def test_wrong_semantic_settings_fail_loudly(settings, key, value):
    settings.MCP_BRIDGE = {key: value}
    with pytest.raises(ImproperlyConfigured, match=key):
        bridge_settings.validate()


def test_without_a_model_search_is_lexical_and_embeds_nothing(settings, db):
    settings.MCP_BRIDGE = SEARCH_CASES
    semantic_embedding.calls.clear()
    index = registry.get_toolset("cases").index()
    assert index.semantic is None
    assert _answer("memo")["tools"] == []  # no word of the API's
    assert semantic_embedding.calls == []


def test_with_a_model_the_rankings_are_fused(settings, db):
    settings.MCP_BRIDGE = {**SEARCH_CASES, **TINY}
    semantic_embedding.calls.clear()
    toolset = registry.get_toolset("cases")
    index = toolset.index()
    assert index.semantic is not None and index.semantic.model == "tiny"
    # Embedded once, with the build: one text per tool.
    assert [len(texts) for texts in semantic_embedding.calls] == [len(toolset.tools)]
    # "memo" is no word of the API's; the embedding puts it beside the notes.
    answer = _answer("memo")
    assert answer["tools"][0]["name"].startswith("note_")
    assert answer["resources"]  # and the resources to browse, as for no match
    # The lexical ranking still counts: a query the index knows ranks as before.
    assert _answer("delete a report", limit=1)["tools"][0]["name"] == "reports_destroy"
    # The query is embedded at search time; the tools are not embedded again.
    assert [len(texts) for texts in semantic_embedding.calls[1:]] == [1, 1]


def test_the_vectors_are_stored_with_the_build(settings, tmp_path, db, monkeypatch):
    settings.MCP_BRIDGE = {
        **SEARCH_CASES,
        **TINY,
        "BUILD_STORE": {"DIRECTORY": str(tmp_path / "builds")},
        "LOCK_OPTIONS": {"directory": str(tmp_path / "locks")},
    }
    registry.clear_cache()
    translation.clear_cache()
    built = registry.get_toolset("cases").index().semantic
    registry.clear_cache()  # a new process
    translation.clear_cache()
    semantic_embedding.calls.clear()

    def never_built(*args, **kwargs):
        raise AssertionError("the index was built again, not loaded with the build")

    monkeypatch.setattr(registry, "build_index", never_built)
    loaded = registry.get_toolset("cases").index().semantic
    assert loaded is not built and loaded.data == built.data
    assert _answer("memo")["tools"][0]["name"].startswith("note_")
    assert semantic_embedding.calls == [["memo"]]  # only the query


def test_another_model_makes_the_index_again(settings, db, monkeypatch):
    settings.MCP_BRIDGE = {**SEARCH_CASES, **TINY}
    toolset = registry.get_toolset("cases")
    assert toolset.index().semantic.model == "tiny"
    monkeypatch.setattr(semantic, "configured_model", lambda: None)
    monkeypatch.setattr(registry, "configured_model", lambda: None)
    monkeypatch.setattr(registry, "configured_embedder", lambda: None)
    assert toolset.index().semantic is None


def test_a_language_the_model_does_not_read_is_searched_lexically(settings, db):
    # An English model's vectors of German words are noise (docs/benchmarks.md): the German
    # tool set of a model that reads English only is searched by its words alone.
    settings.MCP_BRIDGE = {**SEARCH_CASES, **TINY, "SEARCH_EMBEDDING_LANGUAGES": ["en"]}
    toolset = registry.get_toolset("cases")
    semantic_embedding.calls.clear()
    assert toolset.index("de").semantic is None
    assert semantic_embedding.calls == []
    assert toolset.index().semantic.model == "tiny"  # the source texts, English
    assert semantic.reads_language("en-gb") and not semantic.reads_language("de-at")
    # No query of a German caller is embedded.
    semantic_embedding.calls.clear()
    result = McpClient(**{"Accept-Language": "de"}).call(SEARCH_TOOL, {"query": "Notiz"})
    assert result["isError"] is False, result
    assert semantic_embedding.calls == []
    # Naming the language again makes its index with the vectors.
    settings.MCP_BRIDGE = {**SEARCH_CASES, **TINY, "SEARCH_EMBEDDING_LANGUAGES": ["en", "de"]}
    assert toolset.index("de").semantic.model == "tiny"


def test_search_never_returns_an_invisible_tool_semantically():
    texts = [
        ToolText(name, "list", False, name, "GET", "/x/", [("name", name), ("title", title)])
        for name, title in (("note_list", "List notes"), ("report_list", "List reports"))
    ]

    def embed(batch):
        return semantic_embedding.embed(batch, "tiny")

    index = index_texts(texts, embed=embed, model="tiny")
    vector = semantic.embed_query("memo", embed)
    assert index.search("memo", None, 5, vector)[0][0][0] == "note_list"
    ranked, matched = index.search("memo", frozenset({"report_list"}), 5, vector)
    assert "note_list" not in [name for name, _ in ranked]
    assert matched <= 1


def test_the_embedded_text_is_what_the_tool_is():
    text = ToolText(
        "orders_list",
        "list",
        False,
        "orders",
        "GET",
        "/orders/",
        [
            ("name", "orders list"),
            ("title", "List orders"),
            ("description", "The shop's orders. " * 40),
            ("parameters", "customer id"),
        ],
    )
    embedded = embedding_text(text)
    assert embedded.startswith("orders list. List orders. The shop's orders.")
    assert "customer id" not in embedded and len(embedded) < 400


def test_a_wrong_number_of_vectors_is_refused():
    with pytest.raises(semantic.SemanticUnavailable, match="one per text"):
        semantic.embed_tools(["a", "b"], lambda texts: [[1.0, 0.0]], "m")


def test_a_model_folder_that_is_not_one_says_what_to_ship(tmp_path):
    with pytest.raises(semantic.SemanticUnavailable, match="Nothing is downloaded"):
        semantic.load_static_model(str(tmp_path))


def test_the_static_model_reader(tmp_path: Path):
    tokenizers = pytest.importorskip("tokenizers")
    vocabulary = {"[UNK]": 0, "note": 1, "memo": 2, "report": 3}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    table = numpy.array([[0, 0], [1, 0], [0.9, 0.1], [0, 1]], dtype=numpy.float32)
    header = json.dumps(
        {"embeddings": {"dtype": "F32", "shape": [4, 2], "data_offsets": [0, table.nbytes]}}
    ).encode()
    (tmp_path / "model.safetensors").write_bytes(
        len(header).to_bytes(8, "little") + header + table.tobytes()
    )
    vectors = semantic.static_model(["memo", "note report", ""], str(tmp_path))
    assert numpy.allclose(vectors, [[0.9, 0.1], [0.5, 0.5], [0, 0]])


def test_the_static_models_token_ids_are_the_tokenizers(tmp_path: Path):
    """Words are tokenized once each, unless the tokenizer tokenizes a word by its place."""
    tokenizers = pytest.importorskip("tokenizers")
    vocabulary = {"[UNK]": 0, "note": 1, "\u2581note": 2, "report": 3, "\u2581report": 4}
    # More texts than the few tokenized whole to tell the two kinds of tokenizer apart.
    texts = ["note report", "report note note", "report", ""] * 5

    def model(pre_tokenizer) -> semantic.StaticModel:
        tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocabulary, unk_token="[UNK]"))
        tokenizer.pre_tokenizer = pre_tokenizer
        return semantic.StaticModel(tokenizer, numpy.eye(5, dtype=numpy.float32))

    def whole(static: semantic.StaticModel) -> list[list[int]]:
        encoded = static.tokenizer.encode_batch(texts, add_special_tokens=False)
        return [encoding.ids for encoding in encoded]

    apart = model(tokenizers.pre_tokenizers.Whitespace())
    assert apart.token_ids(texts) == whole(apart) == [[1, 3], [3, 1, 1], [3], []] * 5
    # SentencePiece's marker on every word but the first: "report" alone is not "▁report".
    by_place = model(tokenizers.pre_tokenizers.Metaspace(prepend_scheme="never"))
    assert by_place.token_ids(texts) == whole(by_place) == [[1, 4], [3, 2, 2], [3], []] * 5


def test_a_model_that_cannot_embed_is_a_check_error(settings, tmp_path):
    from mcp_bridge.checks import check_semantic_search

    settings.MCP_BRIDGE = {"SEARCH_EMBEDDING_MODEL": str(tmp_path / "missing")}
    assert [m.id for m in check_semantic_search()] == ["mcp_bridge.E342"]
    settings.MCP_BRIDGE = TINY
    assert check_semantic_search() == []
    settings.MCP_BRIDGE = {}
    assert check_semantic_search() == []


def test_a_project_that_does_not_search_semantically_never_imports_the_extra():
    # numpy is installed here, as in many projects: the bridge, its checks and a search-mode
    # group's build and search leave it, and tokenizers, unimported (numpy's BLAS starts a
    # pool of threads in every worker that imports it).
    script = (
        "import sys, django; django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('check', stdout=open('/dev/null', 'w'))\n"
        "from mcp_bridge.toolset import registry\n"
        "from tests.mcp_client import McpClient\n"
        "from mcp_bridge.discovery.metatools import SEARCH_TOOL\n"
        "from django.test.utils import override_settings\n"
        "with override_settings(MCP_BRIDGE={'SERVER_NAME': 'tests', 'BUILD_STORE': None,"
        " 'DISCOVERY': {'cases': 'search', '*': 'direct'}}):\n"
        "    assert McpClient().call(SEARCH_TOOL, {'query': 'reports'})['isError'] is False\n"
        "print(sorted(m for m in ('numpy', 'tokenizers') if m in sys.modules))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip().splitlines()[-1] == "[]"
