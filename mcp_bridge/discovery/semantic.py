"""The build, semantic search: the tools' embeddings, made once per build, fused at search time.

A lexical index finds the words of the API; a user says "ticket type" where the API says
"item". With ``MCP_BRIDGE["SEARCH_EMBEDDING_MODEL"]`` set (and the ``semantic`` extra:
numpy, and tokenizers for the built-in static models), every tool's text is embedded once per
build (:func:`embed_tools`) and kept with the search index, so a stored build carries its
vectors and no worker embeds a tool; a query is embedded at search time, and
:meth:`~mcp_bridge.discovery.index.SearchIndex.search` fuses the two rankings
(reciprocal rank fusion, docs/discovery.md#semantic-search).

The embedding function is pluggable: ``SEARCH_EMBEDDING_FUNCTION`` is the dotted path of a
callable ``embed(texts: list[str], model: str) -> vectors`` (a sequence of equal-length float
sequences, or a 2-D array: one row per text). The default, :func:`static_model`, reads a
static embedding model (the model2vec format: ``model.safetensors`` holding ``embeddings``
and ``tokenizer.json``) from a local folder: a table lookup per token, numpy only, a query in
microseconds. Nothing is downloaded: the model is a folder the deployment ships.
"""

from __future__ import annotations

import functools
import importlib
import json
import pathlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string

from mcp_bridge.base.conf import bridge_settings
from mcp_bridge.base.errors import Problem


@functools.cache
def _extra(module: str) -> Any:
    """A module of the ``semantic`` extra (numpy; tokenizers, the static models' tokenizer),
    imported on first use; ``None`` when it is not installed. Not imported with this module,
    which every process imports (the checks): a project that does not search semantically
    never loads numpy, nor the pool of threads its BLAS starts, whatever else is installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


#: ``embed(texts, model)``: one vector per text.
EmbeddingFunction = Callable[[list[str], str], Any]
#: ``embed(texts)``: the function with its model bound (:func:`configured_embedder`).
Embedder = Callable[[list[str]], Any]


class SemanticUnavailable(RuntimeError):
    """Semantic search is configured but cannot run: the ``semantic`` extra is missing, or
    the embedding function or model cannot be loaded. The message says what to do."""


@dataclass
class Embeddings:
    """The unit-length vectors of one index's tools, as plain data (stored with the build).

    Attributes:
        model: the model they were made with (``SEARCH_EMBEDDING_MODEL``): an index whose
            model is not the configured one is made again.
        dimensions: the length of each vector.
        data: the vectors, row by row in document order, as float16 bytes (half the size
            of float32, and no numpy object in the pickle).
    """

    model: str
    dimensions: int
    data: bytes
    _matrix: Any = field(default=None, repr=False, compare=False)
    #: What searches make once and keep in this process (arrays), never stored.
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_matrix"] = None  # made again from ``data`` on the first search
        state["cache"] = {}
        return state

    def matrix(self) -> Any:
        """The vectors as a float32 array ``(tools, dimensions)``, made on first use."""
        if self._matrix is None:
            numpy = require_numpy()
            rows = numpy.frombuffer(self.data, dtype=numpy.float16)
            self._matrix = rows.reshape(-1, self.dimensions).astype(numpy.float32)
        return self._matrix

    def similarities(self, vector: Any) -> Any:
        """The cosine of each tool's vector with ``vector`` (a unit query vector)."""
        return self.matrix() @ vector


def require_numpy() -> Any:
    """numpy, or :class:`SemanticUnavailable` saying how to install it."""
    numpy = _extra("numpy")
    if numpy is None:
        raise SemanticUnavailable(
            "Semantic search needs numpy: pip install django-mcp-bridge[semantic], or unset "
            'MCP_BRIDGE["SEARCH_EMBEDDING_MODEL"].'
        )
    return numpy


def unit_rows(vectors: Any) -> Any:
    """``vectors`` as a float32 array with rows of length 1 (a zero row stays zero)."""
    numpy = require_numpy()
    matrix = numpy.asarray(vectors, dtype=numpy.float32)
    if matrix.ndim != 2:
        raise SemanticUnavailable(
            f"The embedding function returned an array of shape {matrix.shape}; it must "
            "return one vector per text (a 2-D array or a list of equal-length lists)."
        )
    norms = numpy.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / numpy.where(norms == 0, 1.0, norms)


def embed_tools(texts: list[str], embed: Embedder, model: str) -> Embeddings:
    """The :class:`Embeddings` of the tools' ``texts`` (one per tool, in document order)."""
    numpy = require_numpy()
    matrix = unit_rows(embed(texts)) if texts else numpy.zeros((0, 1), numpy.float32)
    if len(matrix) != len(texts):
        raise SemanticUnavailable(
            f"The embedding function returned {len(matrix)} vectors for {len(texts)} texts; "
            "it must return one per text."
        )
    return Embeddings(model, int(matrix.shape[1]), matrix.astype(numpy.float16).tobytes())


def embed_query(query: str, embed: Embedder) -> Any:
    """The unit vector of ``query``."""
    return unit_rows(embed([query]))[0]


def configured_model() -> str | None:
    """``SEARCH_EMBEDDING_MODEL``: the model semantic search uses, or ``None`` (lexical only)."""
    model = bridge_settings.SEARCH_EMBEDDING_MODEL
    return str(model) if model is not None else None


def reads_language(language: str | None) -> bool:
    """Whether semantic search covers the tool set of ``language`` (``None``: the source
    texts, ``LANGUAGE_CODE``): every language unless ``SEARCH_EMBEDDING_LANGUAGES`` names
    some; a regional code (``de-at``) is covered by its language's (``de``)."""
    languages = bridge_settings.SEARCH_EMBEDDING_LANGUAGES
    if languages is None:
        return True
    code = (language or settings.LANGUAGE_CODE).lower()
    named = {str(entry).lower() for entry in languages}
    return code in named or code.split("-")[0] in named


def configured_embedder() -> Embedder | None:
    """The configured embedding function with its model bound, or ``None`` when
    ``SEARCH_EMBEDDING_MODEL`` is not set.

    Raises:
        SemanticUnavailable: the function cannot be imported, or numpy is missing.
    """
    model = configured_model()
    if model is None:
        return None
    require_numpy()
    return _embedder(bridge_settings.SEARCH_EMBEDDING_FUNCTION, model)


@functools.lru_cache(maxsize=8)
def _embedder(path: str, model: str) -> Embedder:
    try:
        function = import_string(path)
    except ImportError as exc:
        raise SemanticUnavailable(
            f'MCP_BRIDGE["SEARCH_EMBEDDING_FUNCTION"] is {path!r}, which cannot be imported '
            f"({exc}). Name a callable embed(texts, model) that returns one vector per text."
        ) from exc
    return functools.partial(function, model=model)


def find_semantic_problems() -> list[Problem]:
    """``mcp_bridge.E342``: semantic search is configured (``SEARCH_EMBEDDING_MODEL``) and
    cannot run: the ``semantic`` extra is missing, the function cannot be imported, or it
    cannot embed a text with the model (a folder that is not there). Checked by embedding one
    word, so a deploy fails before a build does."""
    if configured_model() is None:
        return []
    try:
        embed = configured_embedder()
        assert embed is not None
        unit_rows(embed(["check"]))
    except Exception as exc:  # noqa: BLE001 -- whatever the project's function raises
        return [
            Problem(
                "mcp_bridge.E342",
                f"Semantic search cannot embed with SEARCH_EMBEDDING_MODEL "
                f"{configured_model()!r}: {type(exc).__name__}: {exc}",
                "Install django-mcp-bridge[semantic], ship the model's folder with the "
                "deployment, or unset SEARCH_EMBEDDING_MODEL (docs/discovery.md#semantic-search).",
                'MCP_BRIDGE["SEARCH_EMBEDDING_MODEL"]',
            )
        ]
    return []


# --- The built-in function: a static model from a local folder ---------------------------------


@dataclass(frozen=True)
class StaticModel:
    """A static embedding model: a vector per token, a text's vector the mean of its tokens'.

    Attributes:
        tokenizer: the ``tokenizers.Tokenizer`` of ``tokenizer.json``.
        table: float32 array ``(vocabulary, dimensions)``.
    """

    tokenizer: Any
    table: Any

    def encode(self, texts: Sequence[str]) -> Any:
        """The mean of each text's token vectors (zero for a text without tokens)."""
        numpy = require_numpy()
        out = numpy.zeros((len(texts), self.table.shape[1]), numpy.float32)
        for row, ids in enumerate(self.token_ids(list(texts))):
            ids = [i for i in ids if i < len(self.table)]
            if ids:
                out[row] = self.table[ids].mean(axis=0)
        return out

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids, as the tokenizer gives them.

        A tool set's texts repeat a few thousand words: each distinct word is tokenized once
        and the texts' ids are put together from the words' (a sixth of the CPU of tokenizing
        every text, for 5,000 tools). That holds for a tokenizer whose words are tokenized
        apart (BERT's WordPiece, a whitespace pre-tokenizer); one whose tokens depend on the
        word's place in the text (SentencePiece's word marker, left off the first word) is
        found out on the first texts, and then every text is tokenized whole.
        """
        if len(texts) <= _CHECKED_TEXTS:  # a query: nothing to share
            return [e.ids for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]
        words = [text.split() for text in texts]
        distinct = list(dict.fromkeys(word for split in words for word in split))
        encoded = self.tokenizer.encode_batch(distinct, add_special_tokens=False)
        ids_of = dict(zip(distinct, (encoding.ids for encoding in encoded)))
        ids = [[i for word in split for i in ids_of[word]] for split in words]
        sample = texts[:_CHECKED_TEXTS]
        whole = self.tokenizer.encode_batch(sample, add_special_tokens=False)
        if [encoding.ids for encoding in whole] != ids[: len(sample)]:
            return [e.ids for e in self.tokenizer.encode_batch(texts, add_special_tokens=False)]
        return ids


#: How many texts :meth:`StaticModel.token_ids` tokenizes whole too, to find out whether the
#: tokenizer tokenizes words apart.
_CHECKED_TEXTS = 16


def read_safetensors(path: pathlib.Path) -> dict[str, Any]:
    """The tensors of a ``.safetensors`` file as numpy arrays (the format: an 8-byte
    little-endian header length, a JSON header of dtype, shape and offsets, the data)."""
    numpy = require_numpy()
    raw = path.read_bytes()
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8 : 8 + size])
    dtypes = {"F32": numpy.float32, "F16": numpy.float16, "F64": numpy.float64}
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec["dtype"] not in dtypes:
            continue
        start, end = spec["data_offsets"]
        data = raw[8 + size + start : 8 + size + end]
        tensors[name] = numpy.frombuffer(data, dtype=dtypes[spec["dtype"]]).reshape(spec["shape"])
    return tensors


@functools.lru_cache(maxsize=4)
def load_static_model(folder: str) -> StaticModel:
    """The :class:`StaticModel` of a folder in the model2vec format (``model.safetensors``
    with an ``embeddings`` tensor, ``tokenizer.json``).

    Raises:
        SemanticUnavailable: the folder or its files are missing, or the extra is not
            installed.
    """
    numpy = require_numpy()
    tokenizers = _extra("tokenizers")
    if tokenizers is None:
        raise SemanticUnavailable(
            "The static embedding model needs tokenizers: pip install django-mcp-bridge[semantic]."
        )
    where = pathlib.Path(folder)
    weights, vocabulary = where / "model.safetensors", where / "tokenizer.json"
    if not weights.is_file() or not vocabulary.is_file():
        raise SemanticUnavailable(
            f'MCP_BRIDGE["SEARCH_EMBEDDING_MODEL"] is {folder!r}, which is not a folder with '
            "model.safetensors and tokenizer.json (a static model in the model2vec format). "
            "Nothing is downloaded at run time: ship the model's folder with the deployment "
            "and name its path."
        )
    tensors = read_safetensors(weights)
    table = tensors.get("embeddings")
    if table is None:
        table = next(iter(tensors.values()))
    tokenizer = tokenizers.Tokenizer.from_file(str(vocabulary))
    # A tokenizer.json may pad or cut (a transformer's): a static model means every token.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return StaticModel(tokenizer, numpy.asarray(table, dtype=numpy.float32))


def static_model(texts: list[str], model: str) -> Any:
    """The default ``SEARCH_EMBEDDING_FUNCTION``: ``texts`` embedded by the static model in
    the folder ``model`` (:func:`load_static_model`, loaded once per process)."""
    return load_static_model(model).encode(texts)
