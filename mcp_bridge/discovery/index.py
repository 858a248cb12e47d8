"""The build, tool search: a ranked index over the tools of one tool set and language.

A group in search mode (:mod:`mcp_bridge.discovery.modes`) lists a search meta-tool
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
  fields (the facts of :mod:`mcp_bridge.build.facts`), and the path's segments. Parameter
  texts count one level deep only: nested schemas are mostly the same related objects
  again in every tool, and drown the signal;
* **words that mean the same**: abbreviations and their expansions (:data:`ABBREVIATIONS`),
  and the project's own synonyms per group (``MCP_BRIDGE["SEARCH_SYNONYMS"]``).

Words are split on ``_``, ``-``, ``.`` and camelCase, lower-cased, folded (``ä`` → ``a``)
and stemmed lightly (plural and common inflection endings, in English and German), the
same way for the tools and the query. The index is built once per tool set, that is once
per group, version and language (a translated tool set is a copy with its own texts,
which fall back to the source language per text): with the build for the group's own texts
and its default language (and the languages ``manage.py mcp_build --language`` names), else
on the first search in the language; it is plain data (dicts, lists, floats:
:class:`SearchIndex`), kept on the tool set and stored with its build.
A warm search costs one dict lookup per query term and one addition per posting.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import heapq
import math
import re
import threading
import unicodedata
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.utils import translation

from mcp_bridge.build.facts import readable_names
from mcp_bridge.build.tools import Tool
from mcp_bridge.discovery import semantic as semantics

try:  # the ``search`` extra: Snowball's stemmers (docs/discovery.md#ranking)
    import snowballstemmer  # type: ignore[import-untyped,import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - the fallback is tested by monkeypatching
    snowballstemmer = None

_AVAILABLE = frozenset(snowballstemmer.algorithms()) if snowballstemmer is not None else frozenset()

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
        "find",
        "search for",
        "look for",
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
        "set up",
        "setup",
        "generate",
        "upload",
        "invite",
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
        "raise",
        "lower",
        "increase",
        "decrease",
        "reduce",
        "extend",
        "shorten",
        "reschedule",
        "postpone",
        "enable",
        "disable",
        "activate",
        "deactivate",
        "turn on",
        "turn off",
        "erhohe",
        "erhohen",
        "senke",
        "senken",
        "verlangere",
        "verlangern",
        "aktiviere",
        "aktivieren",
        "deaktiviere",
        "deaktivieren",
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
        "take off",
        "clean up",
        "clear out",
        "wipe",
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

#: Words and phrases that mean about the same in the APIs DRF projects publish: the
#: entities of business and network applications, and the verbs of their custom actions
#: ("void" an invoice is to cancel it), in English and German. Each group's members find
#: each other. Written while looking at bench/search_tasks.json, so the recall measured there
#: with it is optimistic for other APIs (docs/benchmarks.md gives it without, too); a project
#: adds its own words with ``SEARCH_SYNONYMS``.
VOCABULARY: tuple[tuple[str, ...], ...] = (
    ("customer", "client", "kunde", "kundin"),
    ("supplier", "vendor", "lieferant"),
    ("company", "firm", "organization", "organisation", "business", "firma", "unternehmen"),
    ("product", "article", "goods", "artikel", "produkt", "ware"),
    ("cart", "basket", "warenkorb"),
    ("invoice", "bill", "rechnung"),
    ("lead", "prospect", "interessent"),
    ("order", "purchase", "bestellung", "auftrag"),
    ("payment", "zahlung"),
    ("subscription", "plan", "abonnement", "abo"),
    ("warehouse", "depot", "storehouse", "lager"),
    ("stock", "inventory", "bestand", "vorrat"),
    ("contact", "contact person", "ansprechpartner", "ansprechpartnerin", "kontakt"),
    ("activity", "call", "meeting", "appointment", "task", "termin", "anruf", "aufgabe"),
    ("prefix", "subnet", "network", "netz", "subnetz", "netzwerk"),
    ("interface", "nic", "network card", "schnittstelle"),
    ("review", "rating", "bewertung"),
    ("coupon", "voucher", "discount code", "gutschein", "rabattcode"),
    ("category", "kategorie"),
    ("tax rate", "vat", "steuersatz", "mehrwertsteuer"),
    ("credit note", "gutschrift"),
    ("memory", "ram", "arbeitsspeicher"),
    ("void", "cancel", "annul", "undo", "revert", "stornieren", "storniere", "storno"),
    ("refund", "reimburse", "give back", "money back", "erstatten", "zuruckerstatten"),
    ("pause", "suspend", "on hold", "pausieren", "aussetzen"),
    ("checkout", "check out", "kasse", "bezahlen"),
    ("receive", "book in", "arrived", "goods receipt", "einbuchen", "eingang", "angekommen"),
    ("convert", "turn into", "umwandeln"),
    ("start", "boot", "power on", "hochfahren", "starten"),
    ("stop", "shut down", "power off", "herunterfahren"),
    ("reboot", "restart", "neu starten", "neustarten"),
    ("adjust", "correct", "stocktake", "inventur", "korrigieren"),
    ("ship", "dispatch", "versenden", "verschicken", "versand"),
    ("send", "email", "mail", "senden", "schicken"),
    ("paid", "settled", "bezahlt", "beglichen"),
    ("overdue", "late", "unpaid", "uberfallig"),
    ("low stock", "running low", "reorder", "nachbestellen", "neige"),
    ("available", "free", "unused", "frei", "verfugbar"),
    ("clear", "empty", "leeren"),
    ("decommission", "retire", "ausmustern"),
    ("schedule", "plan", "einplanen"),
)

#: The share of a resource's name whole in its word's weight (the rest is its stem's).
NOUN_SHARE = 0.7

#: How much an expansion (an abbreviation's, a synonym's) counts beside the query's own word.
EXPANSION_WEIGHT = 0.6
#: Score factors of the verb intent (measured on bench/search_tasks.json, docs/benchmarks.md).
INTENT_MATCH = 1.8
BULK_NOT_ASKED = 0.6
BULK_ASKED_NOT_BULK = 0.8
#: The factors of each kind for a query that names no kind of operation: it asks to read.
NO_VERB = {LIST: 1.6, RETRIEVE: 1.3, CREATE: 1.0, UPDATE: 0.9, DESTROY: 0.6, ACTION: 1.0}
#: The factors for a query that starts with a verb the intents do not know ("issue a gift
#: card", "load 20 euros onto it"): it asks to do something, most likely not to read.
OTHER_VERB = {LIST: 0.8, RETRIEVE: 0.8, CREATE: 1.2, UPDATE: 1.0, DESTROY: 0.7, ACTION: 1.2}
#: The same as NO_VERB, for a query that names one object (a word with a digit: "invoice 2026-00042").
NO_VERB_ONE = {**NO_VERB, LIST: 1.3, RETRIEVE: 1.6}
#: Words that start a question or a request to see: a query starting so asks to read.
READ_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "how",
        "why",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "any",
        "show",
        "see",
        "view",
        "display",
        "find",
        "look",
        "check",
        "count",
        "get",
        "tell",
        "give",
        "open",
    ]
    + [
        "wer",
        "wen",
        "wem",
        "wessen",
        "wo",
        "wann",
        "warum",
        "wieviel",
        "zeig",
        "zeige",
        "zeigen",
        "gib",
        "finde",
        "suche",
    ]
)
#: How much a tool whose resource the query names whole gains (times the square of the
#: share of the resource's words that the query has: "X" is not "X reservations").
RESOURCE_MATCH = 1.0
#: How much a resource word that only a synonym or abbreviation of the query matches counts
#: in the share of the resource's name the query holds.
SYNONYM_COVERAGE = 0.75
#: How many of a query's best candidates (by BM25 and the kind's factor) the resource, name
#: and action factors rank again.
RERANK_DEPTH = 50
#: How many matches beyond the answer a search counts for a caller who may not see every
#: tool (``more``): as many as one search can return (``MAX_LIMIT`` of the meta-tools).
MORE_COUNTED = 20
#: The least score of a tool whose resource the query names, as a share of the best
#: candidate's (times the share of the resource's name the query holds).
RESOURCE_FLOOR = 0.35
#: The most tools the resources a query names may add as candidates (see
#: :meth:`SearchIndex._resource_candidates`): each costs a lookup per query term.
NAMED_MAX = 200
#: The most resource names a query word is looked for in (beyond, it tells none apart).
NAMED_MAX_NAMES = 50
#: Reciprocal rank fusion of the lexical and the semantic rankings (:meth:`SearchIndex._fused`):
#: the constant of each rank, the semantic ranking's weight beside the lexical one's (1), and
#: how many of the semantic ranking's best tools are fused. Tuned on the dev halves of
#: bench/search_eval with a static model distilled from all-MiniLM-L6-v2 (docs/benchmarks.md).
RRF_K = 60
SEMANTIC_WEIGHT = 0.2
SEMANTIC_DEPTH = 20
#: How close in spelling (difflib's ratio) an index term must be to a query term that
#: matches nothing, for :meth:`SearchIndex.closest`.
CLOSE_SPELLING = 0.8
#: The factor of a tool all of whose name's words the query has.
NAME_MATCH = 1.5
#: The factor of a custom action whose own word (not its resource's) the query says.
ACTION_WORD = 1.5
#: The factor of an update that replaces the whole object (PUT) beside its partial update.
WHOLE_UPDATE = 0.97
#: Argument fields (parameters, filters, fields) count at most this much per term, and at
#: most :data:`ARGUMENT_LENGTH` in a tool's length: hundreds of filters neither drown the
#: tool's own words nor make it unfindable.
ARGUMENT_TF = 1.0
ARGUMENT_LENGTH = 12.0

#: Terms below this inverse document frequency (in nearly every tool of the group: over
#: nine in ten) are not searched: they tell no tool from another.
MIN_IDF = 0.1

#: Terms at or above this inverse document frequency (in fewer than about a quarter of
#: the group's tools) choose a query's candidates; commoner ones only add to their scores.
SELECTIVE_IDF = 1.0

#: How much a query word that states an intent (:data:`INTENTS`) counts as a word.
VERB_WEIGHT = 0.3
#: How much a word of a value counts (a quoted text, an identifier: :func:`_value_words`).
VALUE_WEIGHT = 0.1

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

_WORD = re.compile(r"[a-z]+|[0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2,})")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")
_IDENTIFIER = re.compile(r"[0-9]")
#: A token that is a value: a digit beside a separator ("core-rtr-01", "10.0.0.0/24",
#: "GC-7781"), or a digit in five characters or more ("Q7XK2"); not "S3", "IPv4", "L2".
_VALUE_TOKEN = re.compile(r"[0-9].*[-./:_#@]|[-./:_#@].*[0-9]|^(?=\S*[0-9])\S{5,}$")


def fold(text: str) -> str:
    """``text`` lower-cased, camelCase split, accents dropped (``Größe`` → ``grosse``)."""
    text = _CAMEL.sub(" ", text).replace("ß", "ss")
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def light_stem(word: str) -> str:
    """The fallback stemmer, without the ``search`` extra: plural and common inflection
    endings of English and German. It keeps ``-er`` and ``-ing`` (``order`` and ``orders``,
    ``finding`` and ``findings`` each stay one word); Snowball does better
    (docs/discovery.md#ranking)."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement in (
        ("ies", "y"),
        ("sses", "ss"),
        ("ungen", "ung"),
        ("heiten", "heit"),
        ("keiten", "keit"),
        ("ings", "ing"),
        ("ed", ""),
        ("es", ""),
        ("en", ""),
        ("s", ""),
        ("e", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: len(word) - len(suffix)] + replacement
    return word


#: The Snowball algorithm of each language code (ISO 639-1) that Snowball has one for.
SNOWBALL_LANGUAGES = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "eo": "esperanto",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "nb": "norwegian",
    "nn": "norwegian",
    "no": "norwegian",
    "fa": "persian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}

_local = threading.local()


def snowball_algorithm(language: str | None) -> str | None:
    """The Snowball algorithm for a language code (``"de-at"`` → ``"german"``), ``None``
    for a language Snowball lacks or when the ``search`` extra is not installed."""
    if snowballstemmer is None:
        return None
    algorithm = SNOWBALL_LANGUAGES.get(_base_language(language or "en"))
    return algorithm if algorithm in _AVAILABLE else None


@functools.lru_cache(maxsize=200_000)
def _snowball(algorithm: str, word: str) -> str:
    stemmers = _local.__dict__.setdefault("stemmers", {})
    stemmer = stemmers.get(algorithm)
    if stemmer is None:  # one per thread: a Snowball stemmer keeps state while it works
        stemmer = stemmers[algorithm] = snowballstemmer.stemmer(algorithm)
    return str(stemmer.stemWord(word))


def stem(word: str, language: str | None = None) -> str:
    """``word``'s stem in ``language`` (a code; ``None``: English): Snowball's (the
    ``search`` extra), else :func:`light_stem`. The same for the tools and the query."""
    if word.isdigit():
        return word
    algorithm = snowball_algorithm(language)
    if algorithm is None:
        return light_stem(word)
    return _snowball(algorithm, word)


def noun_key(word: str) -> str:
    """``word`` without an English plural ending (``findings`` → ``finding``,
    ``addresses`` → ``address``, ``categories`` → ``category``): how a resource's name is
    matched whole, before a stemmer folds it into a verb (``finding`` → ``find``)."""
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str | None) -> list[str]:
    """The folded words of ``text``, stop words left out, unstemmed."""
    if not text:
        return []
    return [w for w in _WORD.findall(fold(text)) if w not in STOP_WORDS]


def terms(text: str | None, language: str | None = None) -> list[str]:
    """The index terms of ``text``: :func:`words`, stemmed in ``language``."""
    return [stem(w, language) for w in words(text)]


@dataclass(frozen=True)
class Analyzer:
    """How the words of one index (its tools' and its queries') become terms.

    Attributes:
        languages: the stemming languages: the index's own, and the source language when
            the tools' texts are a translation that falls back to it (a word then yields the
            stem of each, when they differ, each at half weight).
        nouns: the noun keys (:func:`noun_key`) of the words that name the API's resources
            (the models' verbose names, the router basenames): such a word is indexed and
            searched whole, so that a resource named like a verb ("finding", "setting",
            "post") keeps meaning the resource.
    """

    languages: tuple[str | None, ...] = (None,)
    nouns: frozenset[str] = frozenset()

    def weighted(self, word: str) -> list[tuple[str, float]]:
        """The terms of one folded word, each with its share of the word's weight."""
        stems = list(dict.fromkeys(stem(word, language) for language in self.languages))
        key = noun_key(word)
        if key in self.nouns and key not in stems:
            # The resource's name whole, and its stem a little: "exporters" still meets
            # "export", but "finding" is first the findings.
            share = (1.0 - NOUN_SHARE) / len(stems)
            return [(key, NOUN_SHARE), *((term, share) for term in stems)]
        return [(term, 1.0 / len(stems)) for term in stems]

    def terms(self, text: str | None) -> list[str]:
        """The terms of ``text`` (each once per word, whatever its weight)."""
        return [term for word in words(text) for term, _ in self.weighted(word)]


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
        idf: each term's inverse document frequency.
        classes: each tool's (kind, bulk) pair, as its index in :data:`_CLASSES`.
        common: ``{term: {document number: contribution}}`` of the terms below
            :data:`SELECTIVE_IDF`, to add them to a query's candidates.
        resources: ``{resource label: [document numbers]}`` in first-seen order, for the
            overview of an empty query.
        synonyms: ``{term: [term, ...]}``: the expansions of a query term.
        phrases: ``[(terms, expansions), ...]``: the expansions of a phrase of the query
            (``"shut down"`` → ``stop``; ``"virtual machine"`` → ``vm``).
        intents: whether the verb intents, the resource and the name rank (``False``:
            plain BM25, for the benchmark's comparison).
        analyzer: how words become terms (:class:`Analyzer`), the same for the query.
        resource_terms: each tool's resource names (verbose names, basename, the
            overview's label), each as a tuple of terms.
        name_terms: the terms of each tool's name.
        resource_of: each tool's resource label, as its position in ``resources``.
        by_name: ``{lower-cased tool name: document number}``.
        verb_phrases: the runs of words of the resource names that hold a word stating an
            intent ("waiting list"), folded, longest first, by that word.
        action_terms: the words of each custom action's name that are not its resource's
            ("approve" of ``stages_approve_create``): a query that says one of them asks
            for that action.
        whole_update: whether each tool is an update that replaces the whole object (PUT):
            a partial update (PATCH) ranks just above it.
        named: ``{term: [(resource name as terms, [document numbers]), ...]}``: the
            resource names that hold each term, with their tools. A query that names a
            resource (half of its name's words or more) makes its tools candidates, however
            common its words are in the group: "rename a page" reaches the pages' updates
            even where a rare word of the query ("renamed") is in other tools' texts only.
        semantic: the tools' embeddings (:class:`~mcp_bridge.discovery.semantic.Embeddings`),
            when the group's search is semantic too (``SEARCH_EMBEDDING_MODEL``); ``None``:
            lexical only.
    """

    names: list[str]
    kinds: list[str]
    bulk: list[bool]
    postings: dict[str, tuple[list[int], list[float]]]
    resources: dict[str, list[int]]
    idf: dict[str, float] = field(default_factory=dict)
    classes: list[int] = field(default_factory=list)
    common: dict[str, dict[int, float]] = field(default_factory=dict)
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    phrases: list[tuple[list[str], list[str]]] = field(default_factory=list)
    intents: bool = True
    analyzer: Analyzer = field(default_factory=Analyzer)
    resource_terms: list[list[tuple[str, ...]]] = field(default_factory=list)
    name_terms: list[tuple[str, ...]] = field(default_factory=list)
    resource_of: list[int] = field(default_factory=list)
    by_name: dict[str, int] = field(default_factory=dict)
    verb_phrases: dict[str, list[str]] = field(default_factory=dict)
    action_terms: list[frozenset[str]] = field(default_factory=list)
    whole_update: list[bool] = field(default_factory=list)
    named: dict[str, list[tuple[tuple[str, ...], list[int]]]] = field(default_factory=dict)
    semantic: Any = None

    def search(
        self,
        query: str,
        visible: Container[str] | None = None,
        limit: int | None = None,
        vector: Any = None,
    ) -> tuple[list[tuple[str, float]], int]:
        """The tools that match ``query``, best first.

        Args:
            query: plain language or keywords.
            visible: the names the caller may see, or ``None`` for all: search never
                returns a tool the caller cannot see, nor counts it. The ranking is the same
                for every caller; the caller's tools are taken from it in its order, and
                ``visible`` is asked only as far as the answer needs (:meth:`_visible_best`).
            limit: how many to return; ``None``: every match.
            vector: the query's unit embedding (:func:`~mcp_bridge.discovery.semantic.embed_query`)
                when the index has :attr:`semantic` vectors: the lexical ranking and the
                semantic one are fused (:meth:`_fused`); ``None``: lexical only.

        Returns:
            ``([(tool name, score), ...], how many matched)``; with ``visible`` and a
            ``limit``, the matches are counted up to ``limit`` + :data:`MORE_COUNTED`.
        """
        ranked, matched, _ = self.ranked(query, visible, limit, vector)
        return ranked, matched

    def ranked(
        self,
        query: str,
        visible: Container[str] | None = None,
        limit: int | None = None,
        vector: Any = None,
    ) -> tuple[list[tuple[str, float]], int, int]:
        """:meth:`search`'s answer, and how many tools the lexical index alone matched
        (none: the query has no word of the API's, and the tools are the semantic ranking's)."""
        weighted = self.query_terms(query)
        postings = self.postings
        # A word that nearly every tool has ("resource" in a group of resources) tells them
        # apart by nothing, and would cost a pass over every tool: a query of such words
        # alone matches nothing (the answer gives the closest tools and the resources).
        found = [t for t in weighted if t in postings and self.idf[t] >= MIN_IDF]
        # Selective terms pick the candidates; a common term (in a good part of the group)
        # only adds to the candidates' scores, looked up in its map rather than walked whole:
        # on a big group that is most of the cost of a query.
        selective = [term for term in found if self.idf[term] >= SELECTIVE_IDF]
        common = [term for term in found if self.idf[term] < SELECTIVE_IDF] if selective else []
        walked = selective or found
        # The longest posting list makes the dict in one go (C speed); the others add to it.
        walked.sort(key=lambda term: -len(postings[term][0]))
        scores: dict[int, float] = {}
        for position, term in enumerate(walked):
            weight = weighted[term]
            documents, contributions = postings[term]
            if position == 0:
                scores = dict(zip(documents, map(weight.__mul__, contributions), strict=True))
                continue
            get = scores.get
            for doc, contribution in zip(documents, contributions, strict=True):
                scores[doc] = get(doc, 0.0) + weight * contribution
        for term in common:
            weight, contribution_of = weighted[term], self.common[term]
            for doc in scores:
                added = contribution_of.get(doc)
                if added is not None:
                    scores[doc] += weight * added
        named = self._resource_candidates(query) if self.named else {}
        if named:
            # The tools of a resource the query names: scored by the query's terms they
            # have, and at least a share of the best candidate's score (a resource's word may
            # be in nearly every tool of the group, and count for nothing in BM25).
            top = max(scores.values(), default=1.0) or 1.0
            for doc, coverage in named.items():
                own = sum(
                    weighted[term]
                    * (
                        self.common[term].get(doc, 0.0)
                        if term in self.common
                        else _contribution(postings[term], doc)
                    )
                    for term in found
                )
                floor = RESOURCE_FLOOR * top * coverage
                scores[doc] = max(scores.get(doc, own), floor)
        exact = self._named(query) if self.intents else []
        for doc in exact:
            scores.setdefault(doc, 0.0)
        semantic = self.semantic is not None and vector is not None
        if not scores and not semantic:
            return [], 0, 0
        names = self.names
        intents = detect_intents(self._without_names(query)) if self.intents else None
        factors = self._factors(intents, query)
        classes = self.classes
        scores = {doc: score * factors[classes[doc]] for doc, score in scores.items()}
        if self.intents and scores:
            # The resource, name and action factors only raise a score (at most about 4.5
            # times): they are worked out for the best candidates only (and the tools named
            # exactly), which keeps a query over thousands of matching tools fast.
            chosen = dict(heapq.nlargest(RERANK_DEPTH, scores.items(), key=lambda item: item[1]))
            chosen.update((doc, scores[doc]) for doc in exact if doc in scores)
            scores.update(self._rerank(query, chosen, intents or frozenset(), exact))
        lexical = len(scores)
        matched_lexically = scores.keys()
        if semantic:
            scores = self._fused(scores, vector, factors, exact)
        if visible is None:
            # (score, -doc): ties go to the first tool by name (tools are sorted by name).
            scored = [(score, -doc) for doc, score in scores.items()]
            best = sorted(scored, reverse=True) if limit is None else heapq.nlargest(limit, scored)
            return [(names[-doc], score) for score, doc in best], len(scores), lexical
        return self._visible_best(scores, visible, limit, matched_lexically)

    def _visible_best(
        self,
        scores: dict[int, float],
        visible: Container[str],
        limit: int | None,
        matched_lexically: Any,
    ) -> tuple[list[tuple[str, float]], int, int]:
        """:meth:`ranked`'s answer for a caller who may see ``visible``: the ranking is the
        same for every caller, and the caller's visibility is asked in its order, for as few
        tools as the answer needs (a caller's visibility may run a tool's check when asked):
        the best ``limit`` it may see, then up to :data:`MORE_COUNTED` more, to count them,
        and, while none of those matched lexically, the lexical matches until one is visible.
        ``limit`` ``None``: every match is asked."""
        names = self.names
        wanted = None if limit is None else limit + MORE_COUNTED
        best: list[tuple[str, float]] = []
        counted = lexical = 0
        # Best first, ties to the first tool by name, taken one at a time: a heap costs the
        # matches a linear pass and each tool taken a logarithm, where sorting every match
        # would cost more than the few an answer takes.
        heap = [(-score, doc) for doc, score in scores.items()]
        heapq.heapify(heap)
        while heap:
            negative_score, doc = heapq.heappop(heap)
            score = -negative_score
            if wanted is not None and counted >= wanted:
                if lexical:
                    break
                if doc not in matched_lexically:
                    continue
            if names[doc] not in visible:
                continue
            if wanted is None or counted < wanted:
                counted += 1
                if limit is None or len(best) < limit:
                    best.append((names[doc], score))
            if doc in matched_lexically:
                lexical += 1
        return best, counted, lexical

    def _fused(
        self,
        scores: dict[int, float],
        vector: Any,
        factors: list[float],
        exact: list[int],
    ) -> dict[int, float]:
        """The lexical ranking (``scores``) and the semantic one fused by reciprocal rank
        (Cormack, Clarke and Büttcher, SIGIR 2009): each tool scores
        ``1 / (RRF_K + its lexical rank) + SEMANTIC_WEIGHT / (RRF_K + its semantic rank)``.
        The semantic ranking is the cosine of the tools' vectors with the query's, times the
        factor of the tool's kind for the query's verb (as the lexical score is), over its
        :data:`SEMANTIC_DEPTH` best visible tools. A tool named exactly stays first."""
        semantic = self.semantic
        similarities = semantic.similarities(vector) * _numpy().asarray(factors)[self._classes()]
        depth = min(SEMANTIC_DEPTH, len(similarities))
        best = _numpy().argpartition(-similarities, depth - 1)[:depth] if depth else []
        ranked = sorted(
            (int(doc) for doc in best if similarities[doc] > 0),
            key=lambda doc: -similarities[doc],
        )
        fused: dict[int, float] = {}
        lexical = sorted(scores, key=lambda doc: (-scores[doc], doc))
        for rank, doc in enumerate(lexical):
            fused[doc] = 1.0 / (RRF_K + rank + 1)
        for rank, doc in enumerate(ranked):
            fused[doc] = fused.get(doc, 0.0) + SEMANTIC_WEIGHT / (RRF_K + rank + 1)
        if exact:
            top = max(fused.values())
            for position, doc in enumerate(exact):
                if doc in fused:
                    fused[doc] = top * 2.0 - position
        return fused

    def _classes(self) -> Any:
        """:attr:`classes` as an array, kept beside the vectors (not stored)."""
        cache = self.semantic.cache
        if "classes" not in cache:
            cache["classes"] = _numpy().asarray(self.classes, dtype=int)
        return cache["classes"]

    def closest(
        self, query: str, visible: Container[str] | None = None, limit: int | None = None
    ) -> tuple[list[tuple[str, float]], int]:
        """For a query that matches nothing: the tools that the index's terms closest in
        spelling to the query's own terms find (a typo, another form of a word), as
        :meth:`search` answers; ``([], 0)`` when no term is close."""
        vocabulary = [term for term, idf in self.idf.items() if idf >= MIN_IDF]
        close = [
            match
            for term in self.query_terms(query)
            if term not in self.idf
            for match in difflib.get_close_matches(term, vocabulary, n=2, cutoff=CLOSE_SPELLING)
        ]
        if not close:
            return [], 0
        return self.search(" ".join(dict.fromkeys(close)), visible, limit)

    def _resource_candidates(self, query: str) -> dict[int, float]:
        """The tools of the resources the query names (half of a resource name's words or
        more, the query's own words: not its verbs, values or expansions), with the share
        of the name it holds."""
        values = _value_words(query)
        content = {
            term
            for word in words(query)
            if word not in _INTENT_WORDS and word not in values
            for term, _ in self.analyzer.weighted(word)
        }
        found: dict[int, float] = {}
        seen: set[tuple[str, ...]] = set()
        for term in content:
            names = self.named.get(term, ())
            if len(names) > NAMED_MAX_NAMES:
                # A word of most resources' names ("resource 17", "resource 18"...) chooses
                # none; a name that holds it is reached by its other words.
                continue
            for name, documents in names:
                if name in seen:
                    continue
                seen.add(name)
                coverage = len(content.intersection(name)) / len(name)
                if coverage >= 0.5:
                    for doc in documents:
                        found[doc] = max(found.get(doc, 0.0), coverage)
        if len(found) > NAMED_MAX:
            # A word in most resources' names ("resource 17", "resource 18"...): only the
            # names the query holds best, and none when even they are too many to tell apart.
            best = max(found.values())
            found = {doc: share for doc, share in found.items() if share == best}
            if len(found) > NAMED_MAX:
                return {}
        return found

    def _without_names(self, query: str) -> str:
        """The query without the resource names that hold a verb word ("waiting list",
        "check-in list"): there the word names a resource, it asks for no kind."""
        found = _WORD.findall(fold(query))
        folded = " " + " ".join(found) + " "
        for word in dict.fromkeys(found):
            for phrase in self.verb_phrases.get(word, ()):
                folded = folded.replace(f" {phrase} ", " _ ")
        return folded

    def _named(self, query: str) -> list[int]:
        """The tools whose exact name the query holds (``dcim_devices_list``, or the whole
        query ``devices list`` when a tool is named ``devices_list``)."""
        lowered = query.strip().lower()
        found = []
        whole = re.sub(r"[\s]+", "_", lowered.strip(" `'\".,;:!?()"))
        if whole in self.by_name:
            found.append(self.by_name[whole])
        for token in re.split(r"[\s,;:!?()'\"`]+", lowered):
            doc = self.by_name.get(token.strip("."))
            if doc is not None and doc not in found:
                found.append(doc)
        return found

    def _rerank(
        self,
        query: str,
        scores: dict[int, float],
        intents: frozenset[str],
        exact: list[int],
    ) -> dict[int, float]:
        """The scores (BM25 times the intent's factor) times the resource's, the name's and
        the action's factors; a
        tool named exactly first; a destructive tool below the reads of its resource unless
        the query asks to remove."""
        analyzer = self.analyzer
        query_words = words(query)
        every = {term for word in query_words for term, _ in analyzer.weighted(word)}
        values = _value_words(query)
        content = {
            term
            for word in query_words
            if word not in _INTENT_WORDS and word not in values
            for term, _ in analyzer.weighted(word)
        }
        expanded = {term for term, weight in self.query_terms(query).items() if term not in content}
        resource_terms, name_terms = self.resource_terms, self.name_terms
        ranked: dict[int, float] = {}
        for doc, score in scores.items():
            factor = 1.0
            # A synonym's match counts less: "orders" is first the orders, not the purchase
            # orders that the vocabulary relates to them.
            coverage = max(
                (
                    (
                        len(content.intersection(alt))
                        + SYNONYM_COVERAGE * len(expanded.intersection(alt))
                    )
                    / len(alt)
                    for alt in resource_terms[doc]
                    if alt
                ),
                default=0.0,
            )
            factor *= 1.0 + RESOURCE_MATCH * coverage * coverage
            name = name_terms[doc]
            if name and every.issuperset(name):
                factor *= NAME_MATCH
            if self.action_terms and content.intersection(self.action_terms[doc]):
                factor *= ACTION_WORD
            if self.whole_update and self.whole_update[doc]:
                factor *= WHOLE_UPDATE
            ranked[doc] = score * factor
        if exact:
            top = max(ranked.values())
            for position, doc in enumerate(exact):
                if doc in ranked:
                    ranked[doc] = top * 2.0 - position
        if DESTROY not in intents and ranked:
            kinds, resource_of = self.kinds, self.resource_of
            best_read: dict[int, float] = {}
            for doc, score in ranked.items():
                if kinds[doc] in (LIST, RETRIEVE):
                    resource = resource_of[doc]
                    best_read[resource] = max(best_read.get(resource, 0.0), score)
            for doc, score in ranked.items():
                if kinds[doc] == DESTROY and doc not in exact:
                    read = best_read.get(resource_of[doc])
                    if read is not None and score >= read:
                        ranked[doc] = read * 0.999
        return ranked

    def _factors(self, intents: frozenset[str] | None, query: str = "") -> list[float]:
        """The score factor of each (kind, bulk) pair (:data:`_CLASSES`) for a query's
        intents (``None``: plain BM25). A query that names no kind of operation and starts
        with no other verb asks to read: lists first (single objects first when it names
        one: a word with a digit), then writes, deletes last."""
        asks_bulk = intents is not None and BULK in intents
        asks_kind = intents is not None and bool(intents - {BULK})
        reads: dict[str, float] = {}
        if intents is not None and not asks_kind:
            if self._other_verb(query):
                reads = OTHER_VERB
            else:
                reads = NO_VERB_ONE if _IDENTIFIER.search(query) else NO_VERB
        factors = []
        for kind, is_bulk in _CLASSES:
            factor = 1.0
            if intents is not None:
                if kind in intents:
                    factor = INTENT_MATCH
                else:
                    factor = reads.get(kind, 1.0)
                if is_bulk and not asks_bulk:
                    factor *= BULK_NOT_ASKED
                elif asks_bulk and not is_bulk:
                    factor *= BULK_ASKED_NOT_BULK
            factors.append(factor)
        return factors

    def _other_verb(self, query: str) -> bool:
        """Whether the query starts with a word that is likely a verb the intents do not
        know ("issue a gift card", "cancel order 12"): not a question or read word, not a
        word of the API's resources, not a number."""
        first = next(iter(_WORD.findall(fold(query))), "")
        return bool(first) and not (
            first.endswith(("ing", "ed"))  # "pending orders": an adjective, not an order
            or first in _INTENT_WORDS
            or first in READ_WORDS
            or first in STOP_WORDS
            or first.isdigit()
            or noun_key(first) in self.analyzer.nouns
        )

    def query_terms(self, query: str) -> dict[str, float]:
        """The weighted terms of a query: its own words (1.0), then the expansions of
        abbreviations and synonyms (:data:`EXPANSION_WEIGHT`), each term once at its
        highest weight."""
        weighted: dict[str, float] = {}
        query_words = words(query)
        values = _value_words(query) if self.intents else frozenset()
        expansions: list[str] = []
        stems: list[str] = []
        analyzer = self.analyzer
        for word in query_words:
            # A verb that says which kind of operation is asked for counts through the
            # intent; as a word it would find names that merely contain it ("page_detail").
            own = VERB_WEIGHT if self.intents and word in _INTENT_WORDS else 1.0
            if word in values:
                own = min(own, VALUE_WEIGHT)
            for term, share in analyzer.weighted(word):
                weighted[term] = max(weighted.get(term, 0.0), own * share)
                expansions += self.synonyms.get(term, ())
                stems.append(term)
        for phrase, expanded in self.phrases:
            if _contains(stems, phrase):
                expansions += expanded
        for term in expansions:
            weighted.setdefault(term, EXPANSION_WEIGHT)
        return weighted


#: Every (kind, bulk) pair, in the order of :meth:`SearchIndex._factors`.
_CLASSES = [
    (kind, is_bulk)
    for kind in (LIST, RETRIEVE, CREATE, UPDATE, DESTROY, ACTION)
    for is_bulk in (False, True)
]

#: Words of tool names that tell the operation, not the action: never an action's own word.
_KIND_WORDS = frozenset(
    [
        "list",
        "create",
        "retrieve",
        "update",
        "partial",
        "destroy",
        "delete",
        "read",
        "api",
        "view",
        "get",
        "post",
        "put",
        "patch",
    ]
)

_INTENT_WORDS = frozenset(
    phrase for phrases in INTENTS.values() for phrase in phrases if " " not in phrase
)


_QUOTED = re.compile(r"'[^']+'|\"[^\"]+\"|“[^”]+”|‘[^’]+’|`[^`]+`")


def _value_words(query: str) -> frozenset[str]:
    """The folded words of the query's values: quoted texts ("a tag 'decommissioning'") and
    identifiers ("core-rtr-01", "GC-7781", "10.0.0.0/24": :data:`_VALUE_TOKEN`). They name
    the objects to act on, not what to do: "core" of "core-rtr-01" must not find the
    ``core_...`` tools. Words also said outside a value keep their weight."""
    inside = [match.group(0) for match in _QUOTED.finditer(query)]
    rest = _QUOTED.sub(" ", query)
    tokens = rest.split()
    identifiers = [token for token in tokens if _VALUE_TOKEN.search(token)]
    inside += identifiers
    outside = {w for token in tokens if token not in identifiers for w in words(token)}
    return frozenset(w for text in inside for w in words(text) if w not in outside)


def _numpy() -> Any:
    return semantics.require_numpy()


def _contribution(posting: tuple[list[int], list[float]], doc: int) -> float:
    """``doc``'s contribution in a term's posting list (sorted by document), else 0."""
    documents, contributions = posting
    position = bisect.bisect_left(documents, doc)
    if position < len(documents) and documents[position] == doc:
        return contributions[position]
    return 0.0


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
    from the build's facts (:class:`~mcp_bridge.build.facts.OperationFacts`); a custom
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


def _fields(tool: Tool, language: str | None = None) -> Iterator[tuple[str, str | None]]:
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
        if language is not None:
            yield from _translated_model_texts(facts.model.model, facts, language)
    for item in (*facts.filter_fields, *facts.search_fields, *facts.ordering_fields):
        yield "filters", item.replace("_", " ")
    for item in (*facts.request_fields, *facts.response_fields):
        yield "fields", item.replace("_", " ")
    for parameter in facts.path_parameters:
        yield "parameter_texts", parameter.description


def _translated_model_texts(
    model: Any, facts: Any, language: str
) -> Iterator[tuple[str, str | None]]:
    """The model's verbose names, and its fields', in ``language`` (Django's catalogues: the
    project's ``verbose_name = _("invoice")``).

    In a variant of the source language (``en`` of ``LANGUAGE_CODE`` ``en-us``), a name that
    reads as the source's is left out: it is the same words again, counted twice, and an index
    that holds nothing else is the source's own
    (:meth:`~mcp_bridge.toolset.registry.ToolSet.build_search_indexes`). In another language
    every name is kept, the untranslated ones too: the German tasks of
    ``bench/search_eval --legacy`` lose one of 98 at recall@5 without them."""
    texts = _model_texts(model, facts, language)
    source_language = settings.LANGUAGE_CODE
    if _base_language(language) == _base_language(source_language):
        source = set(_model_texts(model, facts, source_language))
        texts = [text for text in texts if text not in source]
    yield from texts


def _base_language(code: str) -> str:
    """The language of a code, without its region (``en-us``, ``en_GB`` → ``en``)."""
    return code.lower().replace("_", "-").split("-")[0]


def _model_texts(model: Any, facts: Any, language: str) -> list[tuple[str, str]]:
    """The model's verbose names, and its fields', as they read in ``language``."""
    texts: list[tuple[str, str]] = []
    with translation.override(language):
        meta = model._meta
        texts.extend(("resource", name) for name in readable_names(model))
        for name in dict.fromkeys((*facts.request_fields, *facts.response_fields)):
            try:
                field = meta.get_field(name)
            except FieldDoesNotExist:
                continue
            verbose = getattr(field, "verbose_name", None)
            if verbose:
                texts.append(("fields", str(verbose)))
    return texts


def synonym_tables(
    groups: Iterable[Iterable[str]], analyzer: Analyzer | None = None
) -> tuple[dict[str, list[str]], list[tuple[list[str], list[str]]]]:
    """``(single-term expansions, phrase expansions)`` of groups of words that mean the same:
    every member of a group expands to the terms of the others (made by ``analyzer``)."""
    analyzer = analyzer or Analyzer()
    single: dict[str, dict[str, None]] = {}
    phrases: dict[tuple[str, ...], dict[str, None]] = {}
    for group in groups:
        members = [tuple(analyzer.terms(member)) for member in group]
        members = [member for member in members if member]
        for member in members:
            others = {term: None for other in members if other != member for term in other}
            others = {term: None for term in others if term not in member}
            if not others:
                continue
            if len(member) == 1:
                single.setdefault(member[0], {}).update(others)
            else:
                phrases.setdefault(member, {}).update(others)
    return (
        {term: list(expanded) for term, expanded in single.items()},
        [(list(phrase), list(expanded)) for phrase, expanded in phrases.items()],
    )


@dataclass
class ToolText:
    """What the index knows of one tool, as plain data: the texts of its document and how it
    ranks. :func:`tool_text` makes it from a built tool; the search benchmark stores these of
    real applications (``bench/search_eval``) and indexes them without the applications.

    Attributes:
        name: the tool's name.
        kind: its kind of operation (:data:`LIST` ...).
        bulk: whether it acts on several objects at once.
        resource: what it acts on, for the overview (:func:`resource_label`).
        http_method: the operation's HTTP method.
        path: the operation's URL path, with its ``{parameters}``.
        fields: ``[(field, text), ...]``: its document, the field names of :data:`WEIGHTS`.
    """

    name: str
    kind: str
    bulk: bool
    resource: str
    http_method: str
    path: str
    fields: list[tuple[str, str]]

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the record (:meth:`from_json` reads it back)."""
        return {**self.__dict__, "fields": [list(pair) for pair in self.fields]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolText:
        """The record of :meth:`as_json`'s dict (other keys are ignored)."""
        known = {key: data[key] for key in cls.__dataclass_fields__ if key != "fields"}
        return cls(**known, fields=[(name, text) for name, text in data["fields"]])


#: The fields of a tool's own texts: plain BM25 (the benchmark's comparison) indexes only these.
PLAIN_FIELDS = frozenset({"name", "title", "description", "parameters", "parameter_texts"})


def tool_texts(tools: Iterable[Tool], language: str | None = None) -> list[ToolText]:
    """The :class:`ToolText` of each tool, as :func:`build_index` indexes them in ``language``."""
    return [tool_text(tool, language) for tool in tools]


def tool_text(tool: Tool, language: str | None = None) -> ToolText:
    """The :class:`ToolText` of a built tool, its model's texts also in ``language``."""
    kind, is_bulk = tool_kind(tool)
    return ToolText(
        name=tool.name,
        kind=kind,
        bulk=is_bulk,
        resource=resource_label(tool),
        http_method=tool.facts.http_method,
        path=tool.method.source.path,
        fields=[(name, text) for name, text in _fields(tool, language) if text],
    )


def build_index(
    tools: list[Tool],
    synonyms: dict[str, Iterable[str]] | None = None,
    language: str | None = None,
    *,
    plain: bool = False,
    embed: semantics.Embedder | None = None,
    model: str = "",
    texts: list[ToolText] | None = None,
) -> SearchIndex:
    """The :class:`SearchIndex` of ``tools`` (in their own texts and language).

    Args:
        tools: the tool set's tools.
        synonyms: the project's synonyms for the group (``SEARCH_SYNONYMS``).
        language: the language of the tools' texts: the model's verbose names (and its
            fields') are indexed in it too, beside the source language's.
        plain: plain BM25 over the tools' own texts, for the benchmark's comparison: no
            facts, no verb intents, no abbreviations, no vocabulary.
        embed, model: the embedding function of semantic search, and its model's name
            (:mod:`~mcp_bridge.discovery.semantic`): the tools' vectors are made with the
            index. ``None``: lexical only.
        texts: ``tool_texts(tools, language)``, when the caller made them already.
    """
    source = settings.LANGUAGE_CODE if settings.configured else None
    return index_texts(
        tool_texts(tools, language) if texts is None else texts,
        synonyms,
        plain=plain,
        language=language,
        source_language=source,
        embed=embed,
        model=model,
    )


#: The fields of a tool whose texts are embedded for semantic search, and how many
#: characters of each: what the tool is and does, not its arguments (in a static model, a
#: text's vector is the mean of its words': hundreds of argument names drown the rest).
EMBEDDED_FIELDS = {"title": 200, "resource": 100, "name": 100, "description": 300}


def embedding_text(text: ToolText) -> str:
    """The text of a tool that semantic search embeds (:data:`EMBEDDED_FIELDS`)."""
    parts = [
        value[: EMBEDDED_FIELDS[name]].strip()
        for name, value in text.fields
        if name in EMBEDDED_FIELDS and value
    ]
    return ". ".join(dict.fromkeys(part for part in parts if part))


#: The fields of a tool's arguments: capped (:data:`ARGUMENT_TF`, :data:`ARGUMENT_LENGTH`).
ARGUMENT_FIELDS = frozenset({"parameters", "parameter_texts", "filters", "fields"})


def stems_alike(language: str | None, other: str | None) -> bool:
    """Whether the words of ``language`` and ``other`` (codes; ``None``: English) become the
    same terms: the same Snowball algorithm, or neither has one (the light stemmer)."""
    return snowball_algorithm(language) == snowball_algorithm(other)


def analyzer_for(
    texts: list[ToolText], language: str | None, source_language: str | None, *, plain: bool
) -> Analyzer:
    """The :class:`Analyzer` of an index of ``texts`` in ``language`` (``None``: the source
    language), whose untranslated texts are in ``source_language``."""
    own = language or source_language
    languages: tuple[str | None, ...] = (own,)
    if language and source_language and not stems_alike(language, source_language):
        languages = (language, source_language)
    if plain:
        return Analyzer(languages)
    nouns = {
        noun_key(word)
        for text in texts
        for name, value in text.fields
        if name == "resource"
        for word in words(value)
        if not word.isdigit()
    }
    return Analyzer(languages, frozenset(nouns))


def index_texts(
    texts: list[ToolText],
    synonyms: dict[str, Iterable[str]] | None = None,
    *,
    plain: bool = False,
    language: str | None = None,
    source_language: str | None = None,
    embed: semantics.Embedder | None = None,
    model: str = "",
) -> SearchIndex:
    """The :class:`SearchIndex` of tools given as :class:`ToolText` records (see
    :func:`build_index`; ``source_language``: the language of the texts that are not
    translated, ``LANGUAGE_CODE``)."""
    index = _lexical_index(texts, synonyms, plain, language, source_language)
    if embed is not None:
        index.semantic = semantics.embed_tools([embedding_text(t) for t in texts], embed, model)
    return index


def _lexical_index(
    texts: list[ToolText],
    synonyms: dict[str, Iterable[str]] | None,
    plain: bool,
    language: str | None,
    source_language: str | None,
) -> SearchIndex:
    analyzer = analyzer_for(texts, language, source_language, plain=plain)
    documents: list[dict[str, float]] = []
    lengths: list[float] = []
    resources: dict[str, list[int]] = {}
    resource_terms: list[list[tuple[str, ...]]] = []
    name_terms: list[tuple[str, ...]] = []
    resource_of: list[int] = []
    positions: dict[str, int] = {}
    expanded = _expanded(analyzer)
    # The same texts (a field's name, a related object's description) and words recur tool
    # after tool: each is split, and each word weighed, once per index.
    words_of: dict[str, list[str]] = {}
    weighed: dict[str, list[tuple[str, float]]] = {}
    for number, text in enumerate(texts):
        counts: dict[str, float] = {}
        arguments: dict[str, float] = {}
        alternatives: dict[tuple[str, ...], None] = {}
        own_name: tuple[str, ...] = ()
        for name, value in text.fields:
            if plain and name not in PLAIN_FIELDS:
                continue
            weight = WEIGHTS[name]
            target = arguments if name in ARGUMENT_FIELDS and not plain else counts
            found = []
            split = words_of.get(value)
            if split is None:
                split = words_of[value] = words(value)
            for word in split:
                terms_of = weighed.get(word)
                if terms_of is None:
                    terms_of = weighed[word] = analyzer.weighted(word)
                for term, share in terms_of:
                    target[term] = target.get(term, 0.0) + weight * share
                    found.append(term)
            if name == "resource" and found:
                alternatives[tuple(dict.fromkeys(found))] = None
            elif name == "name" and not own_name:
                own_name = tuple(dict.fromkeys(found))
        label = tuple(dict.fromkeys(analyzer.terms(text.resource)))
        if label:
            alternatives[label] = None
        length = sum(counts.values())
        if arguments:
            length += min(sum(arguments.values()), ARGUMENT_LENGTH)
            for term, count in arguments.items():
                counts[term] = counts.get(term, 0.0) + min(count, ARGUMENT_TF)
        if not plain:
            _add_abbreviations(counts, expanded)
        documents.append(counts)
        lengths.append(length)
        resource_of.append(positions.setdefault(text.resource, len(positions)))
        resources.setdefault(text.resource, []).append(number)
        resource_terms.append(list(alternatives))
        name_terms.append(own_name)
    kind_terms = _KIND_WORDS.union(*(analyzer.terms(word) for word in _KIND_WORDS))
    return index_of(
        [text.name for text in texts],
        documents,
        [text.kind for text in texts],
        [text.bulk for text in texts],
        resources,
        lengths=lengths,
        **_expansions(synonyms, plain, analyzer),
        intents=not plain,
        analyzer=analyzer,
        resource_terms=resource_terms,
        name_terms=name_terms,
        resource_of=resource_of,
        by_name={text.name.lower(): number for number, text in enumerate(texts)},
        verb_phrases=_verb_phrases(texts),
        action_terms=[
            frozenset(name).difference(*alternatives, kind_terms)
            if text.kind == ACTION
            else frozenset()
            for text, name, alternatives in zip(texts, name_terms, resource_terms, strict=True)
        ],
        whole_update=[text.kind == UPDATE and text.http_method == "PUT" for text in texts],
        named={} if plain else _named_resources(resource_terms),
    )


def _named_resources(
    resource_terms: list[list[tuple[str, ...]]],
) -> dict[str, list[tuple[tuple[str, ...], list[int]]]]:
    """:attr:`SearchIndex.named` of the tools' resource names."""
    tools_of: dict[tuple[str, ...], list[int]] = {}
    for doc, alternatives in enumerate(resource_terms):
        for name in alternatives:
            if name:
                tools_of.setdefault(name, []).append(doc)
    named: dict[str, list[tuple[tuple[str, ...], list[int]]]] = {}
    for name, documents in tools_of.items():
        for term in name:
            named.setdefault(term, []).append((name, documents))
    return named


def _verb_phrases(texts: list[ToolText]) -> dict[str, list[str]]:
    """The runs of two or more words of the resource names that hold a word stating an
    intent ("waiting list" of "waiting list entry"), longest first, by that word."""
    phrases: dict[str, set[str]] = {}
    for text in texts:
        for name, value in text.fields:
            if name != "resource":
                continue
            found = _WORD.findall(fold(value))
            for position, word in enumerate(found):
                if word not in _INTENT_WORDS:
                    continue
                for start in range(position + 1):
                    for end in range(max(position + 1, start + 2), len(found) + 1):
                        phrases.setdefault(word, set()).add(" ".join(found[start:end]))
    return {word: sorted(runs, key=len, reverse=True) for word, runs in phrases.items()}


def index_of(
    names: list[str],
    documents: list[dict[str, float]],
    kinds: list[str],
    bulk: list[bool],
    resources: dict[str, list[int]],
    lengths: list[float] | None = None,
    **options: Any,
) -> SearchIndex:
    """The :class:`SearchIndex` of documents given as ``{term: weighted count}``: each
    term's BM25 contribution to each document, computed once.

    Args:
        names, kinds, bulk: the tools' names, kinds and bulk flags, by document number.
        resources: the overview's resources (:attr:`SearchIndex.resources`).
        lengths: each document's length for BM25's normalisation (default: the sum of its
            counts).
        options: the other fields of :class:`SearchIndex` (synonyms, phrases, intents).
    """
    total = len(documents)
    if lengths is None:
        lengths = [sum(doc.values()) for doc in documents]
    average = (sum(lengths) / total) if total else 1.0
    frequency: dict[str, int] = {}
    for doc in documents:
        for term in doc:
            frequency[term] = frequency.get(term, 0) + 1
    postings: dict[str, tuple[list[int], list[float]]] = {}
    idf = {term: math.log(1 + (total - df + 0.5) / (df + 0.5)) for term, df in frequency.items()}
    for number, doc in enumerate(documents):
        norm = K1 * (1 - B + B * lengths[number] / (average or 1.0))
        for term, tf in doc.items():
            entry = postings.setdefault(term, ([], []))
            entry[0].append(number)
            entry[1].append(idf[term] * tf * (K1 + 1) / (tf + norm))
    return SearchIndex(
        names=names,
        kinds=kinds,
        bulk=bulk,
        postings=postings,
        resources=resources,
        idf=idf,
        classes=[_CLASSES.index(pair) for pair in zip(kinds, bulk, strict=True)],
        common={
            term: dict(zip(*postings[term], strict=True))
            for term, value in idf.items()
            if value < SELECTIVE_IDF
        },
        **options,
    )


@functools.lru_cache(maxsize=16)
def _expanded(analyzer: Analyzer) -> list[tuple[str, list[str]]]:
    """The multi-word expansions of :data:`ABBREVIATIONS`, as terms: a tool about a "virtual
    machine" is indexed under ``vm`` too, as strongly as its weaker word, so that "VM 12"
    finds it before a tool whose own texts say "VM" in passing."""
    plain = Analyzer(analyzer.languages)
    return [
        (plain.terms(abbreviation)[0], plain.terms(" ".join(expansion)))
        for abbreviation, expansion in ABBREVIATIONS.items()
        if len(expansion) > 1 and abbreviation not in expansion
    ]


def _add_abbreviations(counts: dict[str, float], expanded: list[tuple[str, list[str]]]) -> None:
    for abbreviation, expansion in expanded:
        if all(term in counts for term in expansion):
            counts[abbreviation] = counts.get(abbreviation, 0.0) + min(
                counts[term] for term in expansion
            )


def _expansions(
    synonyms: dict[str, Iterable[str]] | None, plain: bool, analyzer: Analyzer
) -> dict[str, Any]:
    groups: list[list[str]] = [[word, *others] for word, others in (synonyms or {}).items()]
    if not plain:
        groups += [list(group) for group in VOCABULARY]
        groups += [
            [abbreviation, " ".join(expansion)] for abbreviation, expansion in ABBREVIATIONS.items()
        ]
    single, phrases = synonym_tables(groups, analyzer)
    return {"synonyms": single, "phrases": phrases}
