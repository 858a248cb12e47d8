"""The build, tool search: a ranked index over the tools of one tool set and language.

A group in search mode (:mod:`mcp_bridge.toolset.discovery`) lists a search meta-tool
instead of its tools; this module ranks the tools for its query. The ranking is BM25
(Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009)
over weighted fields, BM25F-style (each field's term counts are multiplied by its weight
before saturation), with three additions that plain BM25 over the tool texts lacks:

* **the operation's verb**: every tool has a kind (list, retrieve, create, update,
  destroy, bulk, other action), and a query's verbs and phrasings ("what … exist",
  "show all", "details of", "add", "rename", "remove", "several at once", and their
  German forms) say which kinds it asks for (:data:`INTENTS`). A tool of an asked-for
  kind scores higher, a bulk tool lower when the query asks for no bulk operation;
* **what the build knows beyond the OpenAPI texts**: the model's verbose names and
  docstring, the top-level field names of the request and response, the filter and search
  fields (the facts of :mod:`mcp_bridge.toolset.facts`), and the path's segments. Parameter
  texts count one level deep only: nested schemas are mostly the same related objects
  again in every tool, and drown the signal;
* **words that mean the same**: abbreviations and their expansions (:data:`ABBREVIATIONS`),
  and the project's own synonyms per group (``MCP_BRIDGE["SEARCH_SYNONYMS"]``).

Words are split on ``_``, ``-``, ``.`` and camelCase, lower-cased, folded (``ä`` → ``a``)
and stemmed lightly (plural and common inflection endings, in English and German), the
same way for the tools and the query. The index is built once per tool set, that is once
per group, version and language (a translated tool set is a copy with its own texts,
which fall back to the source language per text), on its first search; it is plain data
(dicts, lists, floats: :class:`SearchIndex`), kept on the tool set and picklable with it.
A warm search costs one dict lookup per query term and one addition per posting.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_bridge.toolset.tools import Tool

#: BM25's term-frequency saturation and length normalisation, the usual values.
K1 = 1.2
B = 0.75

#: The weight of each field of a tool's document: a word in the name says more about what
#: the tool does than a word in a parameter's description.
WEIGHTS = {
    "name": 3.0,
    "title": 2.0,
    "resource": 3.0,  # the model's verbose names, the router basename
    "path": 1.5,
    "description": 1.0,
    "model_doc": 0.7,
    "filters": 0.8,
    "fields": 0.4,
    "parameters": 0.4,
    "parameter_texts": 0.2,
}

#: The kinds of operation the ranking tells apart.
LIST, RETRIEVE, CREATE, UPDATE, DESTROY, BULK, ACTION = (
    "list",
    "retrieve",
    "create",
    "update",
    "destroy",
    "bulk",
    "action",
)

#: How people ask for each kind of operation: words and phrases (already folded, unstemmed)
#: in English and German. A phrase matches as consecutive words of the query.
INTENTS: dict[str, tuple[str, ...]] = {
    LIST: (
        "list",
        "lists",
        "all",
        "show all",
        "what",
        "which",
        "exist",
        "existing",
        "every",
        "browse",
        "overview",
        "find all",
        "search",
        "enumerate",
        "how many",
        "alle",
        "liste",
        "auflisten",
        "welche",
        "gibt es",
        "ubersicht",
        "suche",
        "zeige alle",
        "wie viele",
        "aufzahlen",
    ),
    RETRIEVE: (
        "details",
        "detail",
        "details of",
        "get",
        "fetch",
        "look up",
        "lookup",
        "show me the",
        "single",
        "specific",
        "info",
        "information",
        "einzeln",
        "einzelne",
        "einzelnen",
        "informationen",
        "hole",
        "abrufen",
        "genau",
        "anzeigen",
        "zeige den",
        "zeige die",
        "zeige das",
    ),
    CREATE: (
        "add",
        "create",
        "new",
        "reserve",
        "register",
        "make",
        "book",
        "record",
        "submit",
        "place",
        "enter",
        "allocate",
        "anlegen",
        "lege",
        "hinzufugen",
        "fuge",
        "erstelle",
        "erstellen",
        "neu",
        "neue",
        "neuen",
        "neues",
        "reservieren",
        "reserviere",
        "registrieren",
        "erfassen",
        "erfasse",
        "buchen",
        "buche",
        "eintragen",
        "trage",
    ),
    UPDATE: (
        "update",
        "change",
        "rename",
        "edit",
        "modify",
        "set",
        "correct",
        "fix",
        "move",
        "assign",
        "replace",
        "adjust",
        "mark",
        "switch",
        "andern",
        "andere",
        "umbenennen",
        "benenne",
        "bearbeiten",
        "bearbeite",
        "aktualisieren",
        "aktualisiere",
        "setze",
        "setzen",
        "korrigieren",
        "korrigiere",
        "verschieben",
        "verschiebe",
        "zuweisen",
        "markieren",
        "markiere",
    ),
    DESTROY: (
        "delete",
        "remove",
        "drop",
        "erase",
        "get rid of",
        "destroy",
        "discard",
        "purge",
        "loschen",
        "losche",
        "entfernen",
        "entferne",
        "beseitigen",
    ),
    BULK: (
        "several at once",
        "at once",
        "many",
        "multiple",
        "bulk",
        "batch",
        "in one go",
        "several",
        "all of them",
        "en masse",
        "mehrere",
        "auf einmal",
        "gleichzeitig",
        "viele",
        "massen",
        "sammel",
        "alle auf einmal",
    ),
}

#: Abbreviations and what they stand for (folded words): a query with either finds both.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "vm": ("virtual", "machine"),
    "vms": ("virtual", "machine"),
    "ip": ("ip", "address"),
    "ips": ("ip", "address"),
    "asn": ("autonomous", "system", "number"),
    "vlan": ("virtual", "lan"),
    "vrf": ("virtual", "routing", "forwarding"),
    "dns": ("domain", "name"),
    "url": ("link", "address"),
    "id": ("identifier",),
    "qty": ("quantity",),
    "sku": ("stock", "keeping", "unit"),
    "po": ("purchase", "order"),
    "pdf": ("document",),
    "org": ("organization",),
    "dept": ("department",),
    "repo": ("repository",),
    "config": ("configuration",),
    "info": ("information",),
    "stats": ("statistics",),
    "env": ("environment",),
    "db": ("database",),
    "os": ("operating", "system"),
    "acct": ("account",),
    "addr": ("address",),
    "msg": ("message",),
    "img": ("image",),
}

#: How much an expansion (an abbreviation's, a synonym's) counts beside the query's own word.
EXPANSION_WEIGHT = 0.6
#: Score factors of the verb intent (measured on bench/search_tasks.json, docs/benchmarks.md).
INTENT_MATCH = 1.8
BULK_NOT_ASKED = 0.6
BULK_ASKED_NOT_BULK = 0.8

#: How much a query word that states an intent (:data:`INTENTS`) counts as a word.
VERB_WEIGHT = 0.3

#: Words that carry no meaning for ranking (folded, English and German).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "and",
        "or",
        "is",
        "are",
        "be",
        "been",
        "was",
        "were",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "my",
        "our",
        "your",
        "their",
        "me",
        "we",
        "us",
        "you",
        "i",
        "do",
        "does",
        "can",
        "could",
        "would",
        "should",
        "please",
        "want",
        "need",
        "some",
        "there",
        "here",
        "as",
        "into",
        "about",
        "via",
        "per",
        "than",
        "then",
        "so",
        "up",
        "out",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einer",
        "eines",
        "einen",
        "einem",
        "und",
        "oder",
        "ist",
        "sind",
        "zu",
        "zum",
        "zur",
        "im",
        "in",
        "an",
        "auf",
        "mit",
        "von",
        "fur",
        "bei",
        "aus",
        "ich",
        "wir",
        "mein",
        "meine",
        "meinen",
        "unser",
        "unsere",
        "bitte",
        "mir",
        "mich",
        "uns",
        "es",
        "sich",
        "nach",
        "als",
        "wie",
        "was",
        "wo",
    ]
)

_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def fold(text: str) -> str:
    """``text`` lower-cased, camelCase split, accents dropped (``Größe`` → ``grosse``)."""
    text = _CAMEL.sub(" ", text).replace("ß", "ss")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def stem(word: str) -> str:
    """A light stemmer for English and German: plural and common inflection endings.

    Not a linguist's stemmer: it only has to map the forms people type ("invoices",
    "invoice"; "Rechnungen", "Rechnung"; "cancelled", "cancel") to one word, and to do the
    same on both sides.
    """
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ungen", "ung"),
        ("heiten", "heit"),
        ("keiten", "keit"),
        ("ings", ""),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("en", ""),
        ("er", ""),
        ("s", ""),
        ("e", ""),
        ("n", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: len(word) - len(suffix)] + replacement
    return word


def words(text: str | None) -> list[str]:
    """The folded words of ``text``, stop words left out, unstemmed."""
    if not text:
        return []
    return [w for w in _WORD.findall(fold(text)) if w not in STOP_WORDS]


def terms(text: str | None) -> list[str]:
    """The index terms of ``text``: :func:`words`, stemmed."""
    return [stem(w) for w in words(text)]


@dataclass
class SearchIndex:
    """The BM25 index of one tool set (one group, version and language).

    Plain data, so that it is kept and stored with its tool set.

    Attributes:
        names: the tool names, by document number.
        kinds: each tool's kind (:data:`LIST` ...), by document number.
        bulk: whether each tool acts on several objects at once.
        postings: ``{term: (document numbers, BM25 contributions)}``, computed at build
            time, so that a query only adds them up.
        resources: ``{resource label: [document numbers]}`` in first-seen order, for the
            overview of an empty query.
        synonyms: ``{term: [(term, weight), ...]}``: the expansions of a query term.
    """

    names: list[str]
    kinds: list[str]
    bulk: list[bool]
    postings: dict[str, tuple[list[int], list[float]]]
    resources: dict[str, list[int]]
    synonyms: dict[str, list[tuple[str, float]]] = field(default_factory=dict)

    def search(
        self, query: str, visible: frozenset[str] | None = None
    ) -> tuple[list[tuple[str, float]], int]:
        """The tools that match ``query``, best first.

        Args:
            query: plain language or keywords.
            visible: the names the caller may see, or ``None`` for all: search never
                returns a tool the caller cannot see, nor counts it.

        Returns:
            ``([(tool name, score), ...], how many matched)``: every matching tool, sorted.
        """
        weighted = self.query_terms(query)
        scores: dict[int, float] = {}
        for term, weight in weighted.items():
            posting = self.postings.get(term)
            if posting is None:
                continue
            get = scores.get
            for doc, contribution in zip(posting[0], posting[1], strict=True):
                scores[doc] = get(doc, 0.0) + weight * contribution
        if not scores:
            return [], 0
        intents = detect_intents(query)
        kinds, bulk = self.kinds, self.bulk
        if intents:
            asks_bulk = BULK in intents
            for doc in scores:
                factor = INTENT_MATCH if kinds[doc] in intents else 1.0
                if bulk[doc] and not asks_bulk:
                    factor *= BULK_NOT_ASKED
                elif asks_bulk and not bulk[doc]:
                    factor *= BULK_ASKED_NOT_BULK
                scores[doc] *= factor
        else:
            for doc in scores:
                if bulk[doc]:
                    scores[doc] *= BULK_NOT_ASKED
        names = self.names
        ranked = sorted(
            (
                (names[doc], score)
                for doc, score in scores.items()
                if visible is None or names[doc] in visible
            ),
            key=lambda item: (-item[1], item[0]),
        )
        return ranked, len(ranked)

    def query_terms(self, query: str) -> dict[str, float]:
        """The weighted terms of a query: its own words (1.0), then the expansions of
        abbreviations and synonyms (:data:`EXPANSION_WEIGHT`), each term once at its
        highest weight."""
        weighted: dict[str, float] = {}
        query_words = words(query)
        for word in query_words:
            term = stem(word)
            # A verb that says which kind of operation is asked for counts through the
            # intent; as a word it would find names that merely contain it ("page_detail").
            weighted[term] = VERB_WEIGHT if word in _INTENT_WORDS else 1.0
            for expansion, weight in self.synonyms.get(term, ()):
                if weighted.get(expansion, 0.0) < weight:
                    weighted[expansion] = weight
        # A multi-word expansion typed out ("virtual machine") also finds its abbreviation.
        stems = [stem(w) for w in query_words]
        for abbreviation, expansion in ABBREVIATIONS.items():
            expanded = [stem(w) for w in expansion]
            if len(expanded) > 1 and _contains(stems, expanded):
                weighted.setdefault(abbreviation, EXPANSION_WEIGHT)
        return weighted


_INTENT_WORDS = frozenset(
    phrase for phrases in INTENTS.values() for phrase in phrases if " " not in phrase
)


def _contains(sequence: list[str], part: list[str]) -> bool:
    size = len(part)
    return any(sequence[i : i + size] == part for i in range(len(sequence) - size + 1))


def detect_intents(query: str) -> frozenset[str]:
    """The kinds of operation a query asks for (:data:`INTENTS`), from its words and phrases."""
    folded = " " + " ".join(_WORD.findall(fold(query))) + " "
    return frozenset(
        kind
        for kind, phrases in INTENTS.items()
        if any(f" {phrase} " in folded for phrase in phrases)
    )


def tool_kind(tool: Tool) -> tuple[str, bool]:
    """The kind of ``tool``'s operation and whether it acts on several objects at once,
    from the build's facts (:class:`~mcp_bridge.toolset.facts.OperationFacts`); a custom
    action that reads is a list or a retrieve by whether it works on one object."""
    facts = tool.facts
    verb = facts.verb
    kind = {
        "list": LIST,
        "retrieve": RETRIEVE,
        "create": CREATE,
        "update": UPDATE,
        "partial_update": UPDATE,
        "destroy": DESTROY,
    }.get(verb, ACTION)
    if kind == ACTION and facts.http_method in ("GET", "HEAD"):
        kind = RETRIEVE if facts.detail else LIST if tool.method.source.is_list else ACTION
    bulk = facts.is_bulk or "bulk" in tool.name.lower()
    return kind, bulk


def resource_label(tool: Tool) -> str:
    """What a tool acts on, for the overview: the model's plural verbose name, else the
    router basename, else the path's last fixed segment before its parameters."""
    model = tool.facts.model
    if model is not None and model.verbose_name_plural:
        return str(model.verbose_name_plural)
    source = tool.method.source
    if source.basename:
        return source.basename
    segments = [s for s in _PLACEHOLDER.split(source.path)[0].split("/") if s]
    return segments[-1] if segments else tool.name


def _fields(tool: Tool) -> Iterator[tuple[str, str | None]]:
    """``(field, text)`` pairs of a tool's document (see :data:`WEIGHTS`)."""
    yield "name", tool.name.replace("_", " ").replace(".", " ").replace("-", " ")
    yield "title", tool.title
    yield "description", tool.description
    source = tool.method.source
    yield "path", _PLACEHOLDER.sub(" ", source.path).replace("/", " ").replace("-", " ")
    if source.basename:
        yield "resource", source.basename.replace("-", " ").replace("_", " ")
    properties = tool.input_schema.get("properties", {})
    for argument, schema in properties.items():
        yield "parameters", argument.replace("_", " ")
        if isinstance(schema, dict):
            yield "parameter_texts", schema.get("description")
    facts = tool.facts
    if facts.model is not None:
        yield "resource", facts.model.verbose_name
        yield "resource", facts.model.verbose_name_plural
        yield "model_doc", facts.model.docstring
    for item in (*facts.filter_fields, *facts.search_fields, *facts.ordering_fields):
        yield "filters", item.replace("_", " ")
    for item in (*facts.request_fields, *facts.response_fields):
        yield "fields", item.replace("_", " ")
    for parameter in facts.path_parameters:
        yield "parameter_texts", parameter.description


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def synonym_table(
    extra: dict[str, Iterable[str]] | None = None,
) -> dict[str, list[tuple[str, float]]]:
    """``{term: [(term, weight), ...]}``: :data:`ABBREVIATIONS` and the project's synonyms,
    both ways, as stemmed terms."""
    table: dict[str, dict[str, float]] = {}

    def link(a: str, b: str) -> None:
        if a != b:
            table.setdefault(a, {})[b] = EXPANSION_WEIGHT

    for abbreviation, expansion in ABBREVIATIONS.items():
        for term in terms(" ".join(expansion)):
            link(stem(abbreviation), term)
    for word, others in (extra or {}).items():
        group = {*terms(word)}
        for other in others:
            group.update(terms(other))
        for a in group:
            for b in group:
                link(a, b)
    return {term: sorted(expansions.items()) for term, expansions in table.items()}


def build_index(tools: list[Tool], synonyms: dict[str, Iterable[str]] | None = None) -> SearchIndex:
    """The :class:`SearchIndex` of ``tools`` (in their own texts and language).

    Args:
        tools: the tool set's tools.
        synonyms: the project's synonyms for the group (``SEARCH_SYNONYMS``).
    """
    documents: list[dict[str, float]] = []
    resources: dict[str, list[int]] = {}
    kinds: list[str] = []
    bulk: list[bool] = []
    for number, tool in enumerate(tools):
        counts: dict[str, float] = {}
        for name, text in _fields(tool):
            weight = WEIGHTS[name]
            for term in terms(text):
                counts[term] = counts.get(term, 0.0) + weight
        documents.append(counts)
        kind, is_bulk = tool_kind(tool)
        kinds.append(kind)
        bulk.append(is_bulk)
        resources.setdefault(resource_label(tool), []).append(number)
    total = len(documents)
    average = (sum(sum(doc.values()) for doc in documents) / total) if total else 1.0
    frequency: dict[str, int] = {}
    for doc in documents:
        for term in doc:
            frequency[term] = frequency.get(term, 0) + 1
    postings: dict[str, tuple[list[int], list[float]]] = {}
    for number, doc in enumerate(documents):
        norm = K1 * (1 - B + B * sum(doc.values()) / (average or 1.0))
        for term, tf in doc.items():
            df = frequency[term]
            idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
            entry = postings.setdefault(term, ([], []))
            entry[0].append(number)
            entry[1].append(idf * tf * (K1 + 1) / (tf + norm))
    return SearchIndex(
        names=[tool.name for tool in tools],
        kinds=kinds,
        bulk=bulk,
        postings=postings,
        resources=resources,
        synonyms=synonym_table(synonyms),
    )
