"""Why the misses miss: ``python -m bench.search_eval.diagnose [--split held-out]``.

For each application, the tasks whose expected tool is not first, sorted by cause:

* **no shared word**: no content word of the query (stemmed as the index stems it, stop words
  and verbs left out, synonyms and abbreviations added) is in the expected tool's document: no
  lexical ranking can find it; the query says it in the users' words, the tool in the API's;
* **kind**: a tool of the expected tool's resource ranks above it (the right resource, the
  wrong operation);
* **other**: another resource's tool ranks above it, whether the query names a word of the
  expected tool's resource names or not (then the query says it in the users' words, the
  tool in the API's: "ticket type" for pretix's items, "site" for Nautobot's locations).
"""

from __future__ import annotations

import argparse
import collections

from bench.search_eval import run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="held-out", choices=run.SPLITS)
    options = parser.parse_args()
    from django.conf import settings

    settings.configure(USE_I18N=False)
    import django

    django.setup()
    from mcp_bridge.discovery.index import _INTENT_WORDS, ToolText, index_texts, words

    for app in run.apps():
        dump = run.load_dump(app)
        texts = [ToolText.from_json(tool) for tool in dump["tools"]]
        index = index_texts(texts)
        number = {text.name: i for i, text in enumerate(texts)}
        documents: dict[int, set[str]] = collections.defaultdict(set)
        for term, (docs, _) in index.postings.items():
            for doc in docs:
                documents[doc].add(term)
        causes: collections.Counter[str] = collections.Counter()
        tasks = [task for task in run.load_tasks(app) if task["split"] == options.split]
        for task in tasks:
            ranked = [name for name, _ in index.search(task["query"], None, 50)[0]]
            if ranked and ranked[0] in task["expected"]:
                causes["first"] += 1
                continue
            content = {
                term
                for word in words(task["query"])
                if word not in _INTENT_WORDS
                for term, _ in index.analyzer.weighted(word)
            }
            content |= set(index.query_terms(task["query"]))
            wanted = [number[name] for name in task["expected"] if name in number]
            if not any(content & documents[doc] for doc in wanted):
                causes["no shared word"] += 1
                continue
            resources = {texts[doc].resource for doc in wanted}
            above = ranked[: next((i for i, n in enumerate(ranked) if n in task["expected"]), 50)]
            if above and texts[number[above[0]]].resource in resources:
                causes["kind"] += 1
            elif any(
                content.intersection(alternative)
                for doc in wanted
                for alternative in index.resource_terms[doc]
            ):
                causes["other, its resource named"] += 1
            else:
                causes["other, its resource not named"] += 1
        print(app, options.split, len(tasks), dict(causes))


if __name__ == "__main__":
    main()
