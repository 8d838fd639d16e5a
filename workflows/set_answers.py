"""Answers that are sets, for questions whose filters hold all they ask (``ResourcePlan.asks``).

- ``entities``: "Which companies invested in Graphwise?", "Suppliers of Veltro Auto based in
  Japan". The answer is the entity set the graph returned (for several relations, the entities all
  of them reach), cited to the graph: no document states it, and the graph is the record of it.
- ``documents``: "News about companies based in Munich", "Latest news on Kestrel". The answer is
  the matching documents themselves, newest first when the collection has a date, each by its
  first sentence (a news item's headline) with its marker.
- ``entities_and_documents``: "Which companies does X supply, and what news is there about them?".
  Both, the entity set first, then the documents about those entities.
- ``membership``: "Does Brightcell Batteries supply Mercury Motors?". Yes or no, from the entity
  set of the relation the question names.
- ``field``: "How many members does the Boston Knights Chess Club have?", "credits phil 230?". The
  filter selects one document and the question names one of the schema's attributes and asks
  nothing else (``asked_attribute``): the answer is that document's value of it.
- ``ranking``: "Which hotel in Rome is the cheapest?", "the 3 clubs with the most members". Every
  document the filter selects (``SearchableCollection.matching``), ranked by its stored value of
  the attribute the superlative names (``selfrag.query.Ranking``); ties share a place, and
  documents without a value are counted, not ranked.
- ``average`` and ``total``: "What is the average yearly fee of chess clubs?", "How many members
  do chess clubs have in total?". The mean or the sum of every matching document's stored value.

Both are checked by construction rather than by a model, and are signed with a verdict that says
so: the entity set is what the parameterised graph query returned; every listed document passed
the question's whole filter, unrelaxed, and is quoted verbatim. A reader asked "News about
companies in Munich" would answer "Yes." at best.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graders.figures import Figure, figures
from selfrag.lang import doer_of, forms, lemma, word_map, word_set
from selfrag.lang.dates import MONTHS
from selfrag.lang.questions import AUXILIARIES, COUNT_OPENING
from selfrag.query import item_words, record_words
from selfrag.reading import split_sentences
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.text import content_terms
from selfrag.values import date_number, date_text
from workflows import records as rec

__all__ = ["SET_REASONS", "SET_STRATEGIES", "SetAnswer", "agent_of", "asked_attribute", "document_listing", "entities_and_documents",
           "entity_answer", "field_answer", "filter_attributes", "filter_values", "graph_citation_id", "membership_answer",
           "aggregate_answer", "compared_answer", "count_by_answer", "distinct_answer", "first_sentence", "none_answer", "ranked_answer", "stated_attribute",
           "unasked_words", "unlocated_answer", "whether_answer"]

SET_REASONS = {
    "graph": "the entity set the graph query returned",
    "listing": "every listed document passed the question's whole filter, unrelaxed, and is quoted as it is",
    "graph_listing": "the entity set the graph query returned, and every listed document passed the filter "
                     "on those entities, unrelaxed, and is quoted as it is",
    "field": "the question's filter selects this one document, and the answer is its value of the attribute "
             "the question names",
    "ranking": "every document the question's filter selects, unrelaxed, was ranked by its stored value of the "
               "attribute the superlative names, in code",
    "average": "the mean, computed in code, of the stored values of every document the question's filter selects, "
               "unrelaxed",
    "total": "the sum, computed in code, of the stored values of every document the question's filter selects, "
             "unrelaxed",
    "distinct": "the distinct values, collected in code, of the attribute the question counts over every document "
                "the question's filter selects, unrelaxed",
    "count_by": "every document the question's filter selects, unrelaxed, was counted by its stored value of the "
                "attribute the question asks for, in code",
    "whether": "the store counted the documents of the item the question names and those of them that have what "
               "it asks, under the question's whole filter",
    "none": "the store counted no document matching the question's whole filter, unrelaxed, and that filter is "
            "all the question asks",
}
"""Each set answer's ``GeneratedAnswer.strategy``, and why it needs no model's verdict (the trace's reason)."""
SET_STRATEGIES = tuple(SET_REASONS)

GRAPH_RESOURCE_PREFIX = "graph:"
"""A citation of the graph itself: ``resource`` is ``graph:<name>``, its text the relation's facts."""


@dataclass(frozen=True)
class SetAnswer:
    answer: str
    short_answer: str
    citations: list[rec.CitedDocument]
    strategy: str
    """``graph`` (the entity set), ``listing`` (the matching documents) or ``graph_listing`` (both):
    ``SET_REASONS``."""


def first_sentence(text: str) -> str:
    """What names a document in a set answer: its first sentence, or its heading when it opens with
    one ("# Adrexin trial ADX-101" above "Drug: Adrexin" lines), on one line, without a final stop.
    Split before the lines are joined: joined, a heading and the "Field: value" lines under it
    read as one sentence."""
    sentences = split_sentences(text)
    first = sentences[0] if sentences else text[:200]
    return " ".join(first.lstrip("#").split()).rstrip(".")


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def graph_citation_id(resolution: Mapping[str, Any]) -> str:
    entity = resolution.get("entity") or {}
    return f"{resolution.get('relation')}/{entity.get('id', '')}"


def _entity_names(resolution: Mapping[str, Any]) -> list[str]:
    return [str(e["name"]) if isinstance(e, Mapping) else str(e) for e in resolution.get("entities") or []]


def _graph_citations(relations: Sequence[Mapping[str, Any]], graph: str,
                     descriptions: Mapping[str, str]) -> list[rec.CitedDocument]:
    """Each relation's entity set as a citation of ``graph``: no document states it, the graph is its record."""
    citations: list[rec.CitedDocument] = []
    for n, r in enumerate(relations, 1):
        name = str(r.get("relation"))
        source = str((r.get("entity") or {}).get("name", ""))
        about = descriptions.get(name, "").rstrip(".")
        reached = _entity_names(r)
        citations.append(rec.CitedDocument(
            number=n, id=graph_citation_id(r),
            text=f"{name} of {source}{f' ({about})' if about else ''}: {', '.join(reached) or 'none'}.",
            metadata={"relation": name, "entity": source, "entities": reached},
            resource=f"{GRAPH_RESOURCE_PREFIX}{graph}"))
    return citations


def _source(r: Mapping[str, Any]) -> str:
    return f"{r.get('relation')} of {(r.get('entity') or {}).get('name', '')}"


def entity_answer(plan: rec.ResourcePlan, graph: str, descriptions: Mapping[str, str], *,
                  yes_no: bool = False) -> SetAnswer | None:
    """The entities every relation of ``plan`` reaches, less the ones the question sets aside
    (``excluded`` resolutions: a negated relation's entities, an entity named after "besides"),
    cited to ``graph``; None without a resolved relation.

    ``descriptions``: each relation's description, for the citation's text. ``yes_no``: the
    question asked whether any exists ("Does X supply any German company?"): "Yes: …" or "No: …".
    """
    relations = [r for r in plan["resolutions"] if r.get("kind") == "relation" and not r.get("excluded")]
    if not relations:
        return None
    excluded = [r for r in plan["resolutions"] if r.get("excluded")]
    aside = {n for r in excluded for n in _entity_names(r)}
    # Alternatives ("in Japan or Korea": the same ``either``) are one set, united.
    grouped: dict[object, list[Mapping[str, Any]]] = {}
    for i, r in enumerate(relations):
        grouped.setdefault(("either", r["either"]) if r.get("either") is not None else i, []).append(r)
    sets = [list(dict.fromkeys(n for r in members for n in _entity_names(r))) for members in grouped.values()]
    common = [n for n in dict.fromkeys(sets[0]) if all(n in s for s in sets[1:]) and n not in aside]
    cited = [*relations, *(r for r in excluded if r.get("kind") == "relation")]
    citations = _graph_citations(cited, graph, descriptions)
    markers = " ".join(f"[{c['number']}]" for c in citations)
    sources = " and ".join(" or ".join(_source(r) for r in members) for members in grouped.values())
    removed = sorted({n for s in sets for n in s} & aside)
    if removed:
        sources += f", not {_join(removed)}"
        negated = [r for r in excluded if r.get("kind") == "relation"]
        if negated:
            sources += f" ({' and '.join(_source(r) for r in negated)})"
    if common:
        answer = f"{_join(common)}. From the knowledge graph: {sources}. {markers}"
        short = _join(common)
    else:
        answer = f"None: in the knowledge graph, no entity is reached by all of {sources}. {markers}"
        short = "None"
    if yes_no:
        answer, short = (f"Yes: {answer}", "Yes") if common else (f"No: {answer[len('None: '):]}", "No")
    return SetAnswer(answer, short, citations, "graph")


def membership_answer(plan: rec.ResourcePlan, graph: str, descriptions: Mapping[str, str]) -> SetAnswer | None:
    """Yes or no: whether the entity the question names (or any of its alternatives: "B or C") is
    among those its relation reaches from the other (``asks`` ``membership``: "Does Brightcell
    Batteries supply Mercury Motors?"), cited to ``graph``. An entity named through the relation's
    other end is checked from both ends (B among A's customers, A among B's suppliers); None when
    the two disagree, for the reader to answer instead.

    "No" reads the graph as the whole record of its relations, as the entity answers do ("Which
    companies does X supply?" names them all).
    """
    live = [r for r in plan["resolutions"] if not r.get("excluded")]
    plain = [r for r in live if r.get("either") is None]
    grouped = [r for r in live if r.get("either") is not None]
    relations = [r for r in plain if r.get("kind") == "relation"]
    mentions = [r for r in plain if r.get("kind") == "mention"]
    if grouped and len(relations) == 1 and not mentions:
        subject, others = relations[0], grouped
    elif not grouped and len(relations) == 1 and len(mentions) == 1:
        subject, others = relations[0], mentions
    elif not grouped and len(relations) == 2 and not mentions:
        subject, others = relations[0], relations[1:]
    else:
        return None

    def name(r: Mapping[str, Any]) -> str:
        return str((r.get("entity") or {}).get("name", ""))

    reached = _entity_names(subject)
    hits: list[str] = []
    for other in others:
        found = name(other) in reached
        if other.get("kind") == "relation" and (name(subject) in _entity_names(other)) != found:
            return None  # the two ends disagree
        if found:
            hits.append(name(other))
    citations = _graph_citations([subject, *(o for o in others if o.get("kind") == "relation")], graph, descriptions)
    markers = " ".join(f"[{c['number']}]" for c in citations)
    if hits:
        answer = (f"Yes. In the knowledge graph, {_join(hits)} {'is' if len(hits) == 1 else 'are'} among "
                  f"{_source(subject)}. {markers}")
    else:
        named = [name(o) for o in others]
        listed = f" ({_join(reached)})" if reached else " (none)"
        which = f"neither {' nor '.join(named)} is" if len(named) > 1 else f"{named[0]} is not"
        answer = f"No. In the knowledge graph, {which} among {_source(subject)}{listed}. {markers}"
    return SetAnswer(answer, "Yes" if hits else "No", citations, "graph")


def filter_attributes(node: Any) -> list[str]:
    """The attributes a plan's filter (a ``FilterNode`` dump) tests, in order, once each."""
    found: list[str] = []
    if isinstance(node, Mapping):
        if isinstance(node.get("attribute"), str):
            found.append(node["attribute"])
        for value in node.values():
            found.extend(filter_attributes(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(filter_attributes(item))
    return list(dict.fromkeys(found))


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, float):
        return _figure(value)  # a float attribute's whole number as written: "1599", not "1599.0"
    return str(value)


def document_listing(documents: Sequence[rec.Document], date_attribute: str | None, k: int, *,
                     yes_no: bool = False, shown: Sequence[str] = (), first: int = 1,
                     total: int | None = None, newest_page: bool = False) -> SetAnswer | None:
    """The matching ``documents``, newest first by ``date_attribute`` when given, each by its first
    sentence and its values of the ``shown`` attributes (the ones the filter tested: why it
    matches); None when there is none. ``yes_no``: the question asked whether any exists ("Are
    there negative news about …?"), so the answer opens with "Yes". ``first``: the first citation's
    number (after citations of another part of the answer). ``total``: how many documents match
    in all (the store's count of the same filter), which the answer and its short answer give when
    the listing is one page of more; None when unknown (then a full page says there may be more).
    ``newest_page``: the page is the newest matches (a newest-first search), not the ones a search
    found most similar, so it may be called "the N newest"."""
    docs = list(documents)
    if not docs:
        return None
    if date_attribute is not None:
        def day(d: rec.Document) -> int | None:
            return date_number(d["metadata"].get(date_attribute))

        dated = sorted((d for d in docs if day(d) is not None), key=lambda d: day(d) or 0, reverse=True)
        docs = dated + [d for d in docs if day(d) is None]
    # One line a document: two chunks of one document are one match.
    seen: set[str] = set()
    unique: list[rec.Document] = []
    for d in docs:
        source = str(d["metadata"].get("doc_id") or d["id"])
        if source not in seen:
            seen.add(source)
            unique.append(d)
    docs = unique
    lines: list[str] = []
    citations: list[rec.CitedDocument] = []
    for n, d in enumerate(docs, first):
        head = first_sentence(str(d["text"]))
        when = d["metadata"].get(date_attribute) if date_attribute is not None else None
        if when is not None and (number := date_number(when)) is not None:
            when = date_text(number)  # stored as YYYYMMDD for range filters; shown as a date
        facts = [str(when)] if when is not None else []
        facts += [f"{a}: {_shown(d['metadata'][a])}" for a in shown
                  if a != date_attribute and d["metadata"].get(a) is not None]
        detail = f" ({'; '.join(facts)})" if facts else ""
        lines.append(f"- {head}{detail} [{n}]")
        citations.append(rec.CitedDocument(number=n, id=d["id"], text=d["text"], metadata=d["metadata"],
                                           resource=d["resource"]))
    matched = len(docs) if total is None else max(total, len(docs))
    count = f"{matched} matching document{'s' if matched != 1 else ''}"
    if total is not None and matched > len(docs):  # one page of more
        if date_attribute is None:
            head = f"{count}; the first {len(docs)}"
        else:
            head = f"{count}; the {len(docs)} newest" if newest_page else f"{count}; {len(docs)} of them, newest first"
    elif total is None and len(docs) >= k:  # a full page, and no count: the search stopped at its limit
        head = f"the {len(docs)} newest matching documents" if date_attribute is not None else count
        head += " (there may be more)"
    else:
        head = count + (", newest first" if date_attribute is not None else "")
    answer = f"{'Yes: ' + head if yes_no else head[0].upper() + head[1:]}:\n" + "\n".join(lines)
    return SetAnswer(answer, "Yes" if yes_no else count, citations, "listing")


_SAID = {"eq": "", "ne": "not ", "gt": "more than ", "gte": "at least ", "lt": "less than ", "lte": "at most ",
         "in": "", "nin": "not ", "contains": "including ", "not_contains": "not including "}
_SAID_OF_TIME = {**_SAID, "gt": "after ", "gte": "from ", "lt": "before ", "lte": "until "}


def _conditions(node: Mapping[str, Any], schema: CollectionSchema) -> str:
    """A filter as a reader says it: "town Ostby and year 2021", "price less than 500", "founded before 1700"."""
    if "arguments" in node:
        parts = [_conditions(a, schema) for a in node["arguments"]]
        op = str(node.get("operator"))
        if op == "not":
            return "not (" + " and ".join(parts) + ")"
        return f" {op} ".join(f"({p})" if " and " in p or " or " in p else p for p in parts)
    value, name = node.get("value"), str(node.get("attribute"))
    info = schema.attribute(name)
    dated = info is not None and info.type == "date"
    words = _SAID_OF_TIME if info is not None and (dated or info.kind == "year") else _SAID

    def one(v: Any) -> str:
        return date_text(n) if dated and (n := date_number(v)) is not None else _shown(v)

    shown = " or ".join(map(one, value)) if isinstance(value, list) else one(value)
    comparator = str(node.get("comparator"))
    return f"{name} {words.get(comparator, comparator + ' ')}{shown}"


def none_answer(plan: rec.ResourcePlan, schema: CollectionSchema, *, yes_no: bool) -> SetAnswer | None:
    """The answer when the question's whole filter, unrelaxed, matches no document of the plan's
    collection (``ResourcePlan.matched``): "No" to a yes/no question ("Were there any records from
    Ostby in 2021?"), none to any other ("How many …?": 0), with the conditions that matched nothing.
    None without a filter (nothing to say matched nothing)."""
    if plan["filter"] is None:
        return None
    said = f"no document in {plan['resource']!r} has {_conditions(plan['filter'], schema)}"
    if yes_no:
        return SetAnswer(f"No: {said}.", "No", [], "none")
    return SetAnswer(f"0 matching documents: {said}.", "0 matching documents", [], "none")


def unlocated_answer(plan: rec.ResourcePlan, schema: CollectionSchema, named: Mapping[str, Any],
                     locators: Sequence[Mapping[str, Any]], chunks: Sequence[Any]) -> SetAnswer:
    """The answer to a yes/no question about an item (``named``: its one condition) at a time it
    has no record of (``locators``: the year or date conditions): "No record: no document in
    'results' has district Quarry and year 2021; those with district Quarry have year 2023." The
    short answer is no "No", which would say the item had a record then. ``chunks``: the item's
    records, cited (at most a page of them)."""
    when = {"operator": "and", "arguments": [dict(named), *map(dict, locators)]}
    who = _conditions(named, schema)
    docs = sorted(_documents(chunks), key=lambda d: str(d.id))
    held = []
    for c in locators:
        attribute = str(c["attribute"])
        info = schema.attribute(attribute)
        values = sorted({v for d in docs if (v := d.metadata.get(attribute)) not in (None, "")}, key=str)
        if info is not None and info.type == "date":
            values = [date_text(n) if (n := date_number(v)) is not None else _shown(v) for v in values]
        if values:
            held.append(f"{attribute} {', '.join(map(_shown, values))}")
    had = f"; those with {who} have {' and '.join(held)}" if held else ""
    page = docs[:max(1, plan["k"])]
    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=plan["resource"])
                 for i, d in enumerate(page, 1)]
    lines = "".join(f"\n- {first_sentence(str(d.text))} [{i}]" for i, d in enumerate(page, 1))
    return SetAnswer(f"No record: no document in {plan['resource']!r} has {_conditions(when, schema)}{had}.{lines}",
                     "No record", citations, "none")


def whether_answer(chunks: Sequence[Any], resource: str, asked: Mapping[str, Any], *, named: int, having: int,
                   schema: CollectionSchema, k: int) -> SetAnswer | None:
    """Yes or no to a question about the one item its filter names (``rec.WhetherRecord``), from the
    store's counts: ``named`` documents of the item (``asked["subject"]``), ``having`` of them with
    what is asked (``asked["predicate"]``). Yes when all have it (or, with ``asked["any"]``, one);
    no when none has and every one states a value of what is asked (one stating none may have it);
    None when some have and some have not. ``chunks``: the documents shown (those
    that have it, for a yes; the item's, for a no), each with its values of what was asked."""
    if having and having < named and not asked["any"]:
        return None  # yes for some of its records, no for others: which one is meant is not said
    yes = having > 0
    shown = filter_attributes(asked["predicate"])
    if not yes and any(d.metadata.get(a) in (None, "", []) for d in _documents(chunks) for a in shown):
        return None  # a record that states no countries was not "sold in Italy": nor is it said it was not
    who = _conditions(asked["subject"], schema)
    what = _conditions(asked["predicate"], schema)
    if named == 1:
        head = f"the document with {who} {'has' if yes else 'does not have'} {what}"
    elif yes:
        head = f"{'all ' if having == named else ''}{having} of the {named} documents with {who} " \
               f"{'has' if having == 1 else 'have'} {what}"
    else:
        head = f"none of the {named} documents with {who} has {what}"
    docs = sorted(_documents(chunks), key=lambda d: str(d.id))[:max(1, k)]
    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=resource)
                 for i, d in enumerate(docs, 1)]
    lines = []
    for i, d in enumerate(docs, 1):
        facts = "; ".join(f"{a}: {_shown(d.metadata[a])}" for a in shown if d.metadata.get(a) not in (None, ""))
        lines.append(f"- {first_sentence(str(d.text))}{f' ({facts})' if facts else ''} [{i}]")
    word = "Yes" if yes else "No"
    return SetAnswer(f"{word}: {head}:\n" + "\n".join(lines), word, citations, "whether")


def with_values(listing: SetAnswer, chunks: Sequence[Any], attribute: str) -> SetAnswer:
    """``listing`` led by the distinct values of ``attribute`` over every document of ``chunks``
    (every match: "Which towns have the Kel Moor station?" asks for the towns, which the page of
    records shown may not all reach), sorted; those values are its short answer, but for a yes/no
    question's ("Did any town …?": "Yes", then the towns). As it is when no document has a value."""
    held = [d.metadata.get(attribute) for d in _documents(chunks)]
    # a list's elements each ("Which stations …?": Rudstone Point, Sallow Light)
    values = sorted({_shown(x) for v in held for x in (v if isinstance(v, list) else [v]) if x not in (None, "")},
                    key=str.casefold)
    if not values:
        return listing
    named = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
    if listing.short_answer == "Yes":  # "Did any town …?": yes, and which
        rest = listing.answer.removeprefix("Yes: ")
        return SetAnswer(f"Yes: {named} ({attribute}). {rest[:1].upper()}{rest[1:]}", "Yes", listing.citations,
                         listing.strategy)
    return SetAnswer(f"{named} ({attribute}). {listing.answer}", named, listing.citations, listing.strategy)


def entities_and_documents(entities: SetAnswer, documents: Sequence[rec.Document], date_attribute: str | None, k: int,
                           *, shown: Sequence[str] = (), total: int | None = None) -> SetAnswer:
    """The ``entities`` answer, then the ``documents`` about them (the filter on those entities
    selected them), numbered after the graph's citations. The short answer is the entity set."""
    listing = document_listing(documents, date_attribute, k, shown=shown, first=len(entities.citations) + 1, total=total)
    if listing is None:
        return SetAnswer(f"{entities.answer}\nNo document in the collection matches them.", entities.short_answer,
                         entities.citations, "graph_listing")
    return SetAnswer(f"{entities.answer}\n{listing.answer}", entities.short_answer,
                     [*entities.citations, *listing.citations], "graph_listing")


_MEASURES = word_map("value_measures")
"""Words asking a value of the one attribute of a kind without naming it: "cost" (money), "weigh"."""
_A_PERSON = re.compile(r"\b(?:who|whom|person|people|full\s+name|first\s+name|surname)\b", re.IGNORECASE)
"""Words of a name attribute's description that say it names a person."""
_NAME_OF = re.compile(r"\s*(?:the\s+)?name\s+of\s+(?:the|a|an)\s+([a-z]+)", re.IGNORECASE)


def _names_the_thing_asked_of(attribute: AttributeInfo, question: str) -> bool:
    """Whether ``attribute`` is the "name of the <thing>" and ``question`` writes that thing ("Who
    performed the operation on Lucy Hall?" of "name of the operation performed"): a thing's name,
    not the person a who-question asks for."""
    m = _NAME_OF.match(attribute.description or "")
    return m is not None and bool(forms(m.group(1).casefold()) & {f for w in re.findall(r"[a-z]+", question.casefold())
                                                                   for f in forms(w)})
_HOW_MUCH_OF = re.compile(r"\s*how\s+much\s+([a-z]+)\b", re.IGNORECASE)
_MONEY_WORDS = word_set("price_nouns") | word_set("price_words") | {"money", "cash", "it", "they", "he", "she", "we",
                                                                       "you", "i", "in", "for", "to", "of", "more", "less"}
"""Words after "how much" that keep it a question of money ("How much rent …", "How much does it
cost …", "How much more …"); a noun other than these is what the amount is of."""
_HOW_MANY_Q = re.compile(r"\s*how\s+many\b", re.IGNORECASE)
_QUANTITY = frozenset(["value"])  # "the value of its capacity"; "many", "much" are stop words
_NOT_A_VALUE = re.compile(r"\bwhy\b|\bhow\b(?!\s+(?:many|much|" + "|".join(map(re.escape, _MEASURES)) + r")\b)",
                          re.IGNORECASE)
"""A reason or steps, never a value: "why", and "how" but for "how much", "how many", "how heavy"."""


_THAN_AN_ITEM = re.compile(r"\bthan\s+(?![$€£¥]?\d)", re.IGNORECASE)
"""A comparison with an item ("cost more than the Okapi Dune"): the items beyond it, not its value."""


def filter_values(node: object, out: list[object]) -> None:
    """Every condition's value in a ``FilterNode`` dump (a list value's members too), into ``out``."""
    if isinstance(node, Mapping):
        if "attribute" in node:
            value = node.get("value")
            out.extend(value if isinstance(value, list) else [value])
        for argument in node.get("arguments") or []:
            filter_values(argument, out)


def asked_attribute(question: str, search_text: str, schema: CollectionSchema,
                    filter_dump: Mapping[str, Any] | None) -> AttributeInfo | None:
    """The one attribute whose value ``question`` asks, when the filter holds everything else: the
    question names it by its name ("members", "yearly fee") and the search text (the question
    without the filter's conditions) holds nothing but that name, the filter's values as written
    and question words. None for a yes/no question, a why or how question (a reason or steps,
    never a value), a flag, or a question naming no attribute or more than one."""
    if filter_dump is None or _NOT_A_VALUE.search(question) or _THAN_AN_ITEM.search(question):
        return None
    if (opening := COUNT_OPENING.match(question)) is not None \
            and any(forms(w) & record_words(schema) for w in re.findall(r"[a-z]+", question[opening.end():].casefold())):
        return None  # "number of refused permits in Carver ward": a count, not the permit_number
    first = question.split()[:1]
    if first and first[0].lower().strip("¿¡") in AUXILIARIES:
        return None
    tested = set(filter_attributes(filter_dump))
    # The filter's values as the question writes them name no attribute: "Topic" of the title
    # "Clustering Search Results by Topic" is no topics.
    held: list[object] = []
    filter_values(filter_dump, held)
    unvalued = question
    for value in held:
        unvalued = re.sub(rf"(?<!\w){re.escape(str(value))}(?!\w)", " ", unvalued, flags=re.IGNORECASE)
    named = [a for a in schema.named_in(unvalued, items=record_words(schema)) if a.name not in tested and a.type != "boolean"]
    cues = ""
    asked_words = content_terms(search_text)
    if re.match(r"\s*when\b", question, re.IGNORECASE):
        # "When was the meter for EB-1035 read?" asks a date, never read_by that its verb names.
        named = [a for a in named if a.type == "date" or a.kind == "year"]
    if not named and re.match(r"\s*when\b", question, re.IGNORECASE):
        # "When was X recalled?" asks its one date (else its year); of several dates, the one
        # whose name or description the question's words name ("sold" of sold_on).
        dates = ([a for a in schema.attributes if a.type == "date" and a.name not in tested]
                 or [a for a in schema.attributes if a.kind == "year" and a.name not in tested])
        named = dates if len(dates) == 1 else [a for a in dates if _recorded(a) & asked_words]
    if re.match(r"\s*what\s+(?:kind|kinds|type|types|sort|sorts)\s+of\b", question, re.IGNORECASE):
        # "What kind of repair was MR-5138?" asks a category ("type of repair"), never a cost
        # whose description names the repair too.
        sorts = [a for a in schema.attributes if a.type in ("string", "string[]") and a.kind not in ("name", "identifier")
                 and a.name not in tested]
        named = [a for a in named if a in sorts] or [a for a in sorts if _recorded(a) & asked_words]
        cues = " ".join(sorted(asked_words & frozenset().union(*(_recorded(a) for a in named)))) if len(named) == 1 else ""
        if len(named) != 1:
            return None
    if re.match(r"\s*where\b", question, re.IGNORECASE):
        # "Where was sample LS-3401 collected?" asks a place, never collected_by that its verb
        # names: a place named, else the one place whose description uses the question's words
        # ("site where the sample was collected"), not any place ("Where does X work?" of a room).
        places = [a for a in schema.attributes if a.type == "string" and a.kind == "place" and a.name not in tested]
        named = [a for a in named if a.kind == "place"] or [a for a in places if _recorded(a) & asked_words]
    if not named and re.match(r"\s*who\b", question, re.IGNORECASE):
        # "Who wrote Winter Lanterns?": the one name attribute whose description uses a word the
        # question does ("author who wrote the book"), not another of the record's names.
        people = [a for a in schema.attributes if a.type == "string" and a.kind == "name" and a.name not in tested]
        # The doer of the question's verb by name ("Who inspected INS-5611?": the inspector), not
        # a name whose description uses the verb of its own ("the inspected restaurant").
        agents = [(a, verbs) for a in people if (verbs := agent_of(a.name, question))]
        if agents:
            named, cues = [a for a, _ in agents], " ".join(v for _, verbs in agents for v in verbs)
        else:
            # By a word of its description, not the thing a name is of when the question speaks of
            # that thing: "Who performed the operation …?" asks no "name of the operation performed".
            named = [a for a in people if _recorded(a) & asked_words and not _names_the_thing_asked_of(a, question)]
            if len(named) > 1:
                # "Who borrowed EQ-2281?": "student who borrowed the kit", not "the piece of
                # equipment borrowed" (a name by kind): the one a person's words describe.
                named = [a for a in named if _A_PERSON.search(a.description or "")] or named
    if not named and (m := re.match(r"\s*how\s+many\s+(\w+)", question, re.IGNORECASE)):
        # "How many units of X were recalled?": a number attribute a word of whose name is counted.
        counted = content_terms(m.group(1))
        named = [a for a in schema.attributes if a.type == "integer" and a.name not in tested
                 and counted & content_terms(a.name.replace("_", " "))]
    if not named:
        # A measure's own word ("How much does it cost?", "How heavy is it?"): the one attribute
        # of its kind, the word then as good as the attribute's name.
        words = [w for w in re.findall(r"[a-z]+", question.lower()) if w in _MEASURES]
        kinds = {_MEASURES[w] for w in words}
        named = [a for a in schema.attributes if a.kind in kinds and a.name not in tested and a.type != "boolean"]
        if len(named) > 1:
            # "How much rent does Emma Holloway pay?" of monthly_rent and deposit: the one a word of
            # whose name the question writes ("rent"), before one whose description uses its verb
            # ("deposit paid by the tenant"). "How much did LST-6001 sell for?" of list_price and
            # sale_price: the one whose description says what the verb does ("price the property sold for").
            named = ([a for a in named if content_terms(a.name.replace("_", " ")) & asked_words]
                     or [a for a in named if _recorded(a) & asked_words] or named)
        cues = " ".join(words)
    much = _HOW_MUCH_OF.match(question)
    of_a_thing = much is not None and much.group(1).casefold() not in AUXILIARIES \
        and much.group(1).casefold() not in _MONEY_WORDS  # "How much plasma …": an amount of it, no money
    if not named and not of_a_thing and re.match(r"\s*(?:what|how\s+much)\b", question, re.IGNORECASE):
        # "What did LST-6001 sell for?", "How much was it listed for?": the one price whose
        # description uses the question's verb. Only a price: "What was fixed in 2025.2?" asks
        # what, not the number of bugs_fixed.
        money = [a for a in schema.attributes if a.type in ("integer", "float") and a.kind == "money" and a.name not in tested]
        # "How much rent does Emma Holloway pay?": the price a word of whose name is written
        # ("rent"), paying being what is done with any of them, before one whose description
        # alone uses the verb ("deposit paid by the tenant").
        named = [a for a in money if content_terms(a.name.replace("_", " ")) & (asked_words | content_terms(question))]
        if named:
            cues = " ".join(sorted(asked_words & frozenset().union(*(_recorded(a) for a in money))))
        else:
            # Not by the records' own word: "What boat is booking MB-7307?" asks no "total amount
            # charged for the booking".
            named = [a for a in money if _recorded(a) & (asked_words - record_words(schema) - item_words(schema))
                     and not _noun_for_verb(a, question)]
    if len(named) != 1:
        return None
    if re.match(r"\s*who\b", question, re.IGNORECASE) and named[0].kind != "name":
        return None  # "who reads the instruments at Frost Hollow": a person, not its instruments
    if re.match(r"\s*what\s+(?:did|does|do)\b", question, re.IGNORECASE) and named[0].kind == "name":
        # "What did the finder of WR-7370 name the hedgehog?": what the person did, the object of
        # the verb, never the person the subject names.
        return None
    if _HOW_MANY_Q.match(question) and named[0].type == "string" and named[0].kind == "category":
        return None  # "How many of the hazard … were recalled?": a number, never one category's value
    return named[0] if not unasked_words(search_text, named[0], filter_dump, cues=cues, schema=schema) else None


def unasked_words(search_text: str, attribute: AttributeInfo, filter_dump: Mapping[str, Any] | None, *,
                  cues: str | None = None, schema: CollectionSchema | None = None) -> frozenset[str]:
    """The words of ``search_text`` (the question less its filter's conditions) that ask something
    ``attribute`` does not record: not its name, the filter's values as written, a measure's word
    of its kind ("cost" of a price; ``cues``, when given, in their place), or a word its description
    says it records ("announced" of "date the recall was announced"; a name written in capitals,
    "in Canada", asks more). The records' own word, of ``schema`` when given, asks nothing more:
    "the rent of the Hill tenancy" asks the tenancy's rent. Empty when the question asks
    ``attribute`` and nothing more."""
    values: list[object] = []
    if filter_dump is not None:
        filter_values(filter_dump, values)
    asked_words = content_terms(search_text)
    if cues is None:
        cues = " ".join(w for w in re.findall(r"[a-z]+", search_text.lower()) if _MEASURES.get(w) == attribute.kind)
    left = (asked_words - content_terms(attribute.name.replace("_", " ")) - content_terms(cues)
            - content_terms(" ".join(map(str, values))) - _QUANTITY
            - (content_terms(" ".join(item_words(schema))) if schema is not None else set()))
    return frozenset(left - (_recorded(attribute) & content_terms(" ".join(w for w in search_text.split() if w.islower()))))


def stated_attribute(short_answer: str, metadata: Mapping[str, Any], schema: CollectionSchema) -> AttributeInfo | None:
    """The one attribute whose stored value ``short_answer`` states: a word attribute's value (or a
    list's element) it is, a date it writes, or a number its only figure equals (to the precision
    it is written with: "3.1 million" states 3,100,000). The answer is that attribute's value,
    whatever the question asked. Not of a name or an identifier: which record or person an answer
    names is what a question asks of them. None when none or several are."""
    said = re.sub(r"\s*\[\d+\]", "", short_answer).strip().rstrip(".").casefold()  # a whole answer's citations

    def holds(value: Any) -> bool:
        return any(isinstance(x, str) and x.casefold() == said for x in (value if isinstance(value, list) else [value]))

    worded = [a for a in schema.attributes if a.type in ("string", "string[]") and a.kind not in ("name", "identifier")
              and holds(metadata.get(a.name))]
    if worded:
        return worded[0] if len(worded) == 1 else None
    dated = [a for a in schema.attributes if a.type == "date" and (number := date_number(metadata.get(a.name))) is not None
             and _states_date(short_answer, number)]
    if dated:
        return dated[0] if len(dated) == 1 else None
    found = figures(short_answer)
    if len(found) != 1 or any(w[:1].isupper() for w in short_answer.replace(found[0].text, " ").split()):
        return None  # no figure, or more than one; or a name that holds one ("2024 Marisol Onda")
    held = {a.name: metadata.get(a.name) for a in schema.attributes if a.type in ("integer", "float")}
    numbers = {name: float(v) for name, v in held.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    stated = [a for a in schema.attributes if a.name in numbers
              and found[0].within(Figure(numbers[a.name], 0.0, found[0].percent, str(numbers[a.name])))]
    return stated[0] if len(stated) == 1 else None


def _states_date(text: str, number: int) -> bool:
    """Whether ``text`` writes the stored date ``number`` (YYYYMMDD) to the day and nothing else:
    "2023-04-02", "2 April 2023", "April 2, 2023", "Apr 2 2023"."""
    if date_text(number) in text:
        return True
    words = re.findall(r"[A-Za-z]+|\d+", text)
    months = {MONTHS[w.casefold()] for w in words if w.casefold() in MONTHS}
    numbers = [int(w) for w in words if w.isdigit()]
    names = [w for w in words if w[:1].isupper() and w.casefold() not in MONTHS]
    year, month, day = number // 10000, number // 100 % 100, number % 100
    return not names and months == {month} and sorted(numbers) == sorted([day, year])


def agent_of(name: str, question: str) -> list[str]:
    """The verbs ``question`` uses (as written) of which a word of attribute ``name`` is the agent
    noun: "inspected" of inspector, "directed" of director, "reviews" of reviewer."""
    words = re.split(r"[_\W]+", name.casefold())
    return [w for w in re.findall(r"[a-z]+", question.casefold()) if len(w) > 3 and lemma(w) != w
            and any(doer_of(word, w) for word in words)]


def _noun_for_verb(attribute: AttributeInfo, question: str) -> bool:
    """Whether ``question``'s inflected verb ("claimed") is met in ``attribute``'s description only
    as its bare noun ("pays on each claim"): another thing than the one the verb asks."""
    said: list[str] = re.findall(r"[a-z]+", (attribute.description or "").casefold())
    for word in re.findall(r"[a-z]+", question.casefold()):
        base = lemma(word)
        if base == word or not word.endswith("ed"):
            continue
        met = [w for w in said if lemma(w) == base]
        if met and all(w == base for w in met):
            return True
    return False


def _recorded(attribute: AttributeInfo) -> frozenset[str]:
    """The content words of ``attribute``'s name and description: what it records."""
    return frozenset(content_terms(f"{attribute.name.replace('_', ' ')} {attribute.description or ''}"))


def field_answer(document: rec.Document, attribute: AttributeInfo, *, count: bool = False) -> SetAnswer | None:
    """``document``'s value of ``attribute`` as the answer, with the document's first sentence and
    its marker; None when the document has no such value. ``count`` ("How many countries …?"): a
    list's number of elements is the answer, the elements shown beside it."""
    value = document["metadata"].get(attribute.name)
    if value is None or value == "" or value == []:
        return None
    stored = date_text(number) if attribute.type == "date" and (number := date_number(value)) is not None else _shown(value)
    shown = str(len(value)) if count and isinstance(value, list) else stored
    head = first_sentence(str(document["text"]))
    answer = f"{shown}. {head} ({attribute.name}: {stored}) [1]"
    citation = rec.CitedDocument(number=1, id=document["id"], text=document["text"], metadata=document["metadata"],
                                 resource=document["resource"])
    return SetAnswer(answer, shown, [citation], "field")


def _telling_name(doc: Any, docs: Sequence[Any], names: Sequence[str]) -> str:
    """``doc``'s values of the name attributes ``names``, as many as tell it apart from the other
    ``docs`` ("Okapi Dune" where several cars are Okapis; "Vesta" where one is), in order."""
    parts: list[str] = []
    for name in names:
        value = doc.metadata.get(name)
        if value in (None, ""):
            continue
        parts.append(str(value))
        same = [d for d in docs if all(str(d.metadata.get(n)) == p for n, p in zip(
            [n for n in names if doc.metadata.get(n) not in (None, "")], parts, strict=False))]
        if len(same) <= 1:
            break
    # One-word parts read as one name ("Okapi Dune": a make and a model); a longer one is a name of
    # its own, and the next is another role's ("Nordhavn Shipping, Sofie Jansen": a carrier and a
    # broker; "Ben Carter, Derek Mills": a policyholder and an adjuster), which names the record
    # no better than its identifier does: the first alone.
    return " ".join(parts) if all(len(p.split()) == 1 for p in parts) else parts[0]


def _documents(chunks: Sequence[Any]) -> list[Any]:
    """One chunk a document (its first): a document's chunks carry the same metadata."""
    first: dict[str, Any] = {}
    for c in chunks:
        key = str(c.metadata.get("doc_id") or c.id)
        if key not in first or int(c.metadata.get("chunk_index") or 0) < int(first[key].metadata.get("chunk_index") or 0):
            first[key] = c
    return list(first.values())


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _figure(value: float) -> str:
    """A computed figure as written: whole numbers without a point, others to two decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


AGGREGATE_SHOWN = 10
"""Up to this many documents, an aggregate lists each one's value; beyond, it cites them only."""


def aggregate_answer(chunks: Sequence[Any], resource: str, computed: Mapping[str, Any]) -> SetAnswer | None:
    """The mean (``average``) or the sum (``total``) of ``computed["attribute"]`` over the documents
    of ``chunks`` (every chunk the filter selects), each cited; None when no document has a value."""
    attribute, op = str(computed["attribute"]), str(computed["op"])
    docs = _documents(chunks)
    valued = sorted((d for d in docs if _number(d.metadata.get(attribute))), key=lambda d: str(d.id))
    if not valued:
        return None
    values = [float(d.metadata[attribute]) for d in valued]
    figure = _figure(sum(values) / len(values) if op == "average" else sum(values))
    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=resource)
                 for i, d in enumerate(valued, 1)]
    unvalued = len(docs) - len(valued)
    missing = (f" ({unvalued} more state{'s' if unvalued == 1 else ''} no {attribute} and "
               f"{'is' if unvalued == 1 else 'are'} left out)") if unvalued else ""
    of = f"{len(valued)} matching document{'s' if len(valued) != 1 else ''}{missing}"
    head = f"{figure}: the {'mean' if op == 'average' else 'sum'} of {attribute} over {of}"
    if len(valued) <= AGGREGATE_SHOWN:
        lines = [f"- {first_sentence(str(d.text))} ({attribute}: {_shown(d.metadata[attribute])}) [{i}]" for i, d in enumerate(valued, 1)]
        answer = f"{head}:\n" + "\n".join(lines)
    else:
        answer = f"{head}. " + " ".join(f"[{c['number']}]" for c in citations)
    return SetAnswer(answer, figure, citations, op)


def distinct_answer(chunks: Sequence[Any], resource: str, computed: Mapping[str, Any]) -> SetAnswer | None:
    """How many distinct values of ``computed["attribute"]`` the documents of ``chunks`` (every chunk
    the filter selects) have ("How many towns …?"), each value named and cited to its first document;
    a list attribute counts its elements. None when no document has a value."""
    attribute = str(computed["attribute"])
    docs = sorted(_documents(chunks), key=lambda d: str(d.id))
    first: dict[str, Any] = {}
    for d in docs:
        value = d.metadata.get(attribute)
        for v in value if isinstance(value, list) else [] if value in (None, "") else [value]:
            first.setdefault(str(v), d)
    if not first:
        return None
    values = sorted(first, key=str.casefold)
    cited: list[Any] = []
    for v in values:
        if first[v] not in cited:
            cited.append(first[v])
    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=resource)
                 for i, d in enumerate(cited, 1)]
    unvalued = sum(1 for d in docs if d.metadata.get(attribute) in (None, "", []))
    missing = (f"; {unvalued} of them state{'s' if unvalued == 1 else ''} no {attribute} and "
               f"{'is' if unvalued == 1 else 'are'} not counted") if unvalued else ""
    of = f"{len(docs)} matching document{'s' if len(docs) != 1 else ''}"
    head = f"{len(values)} distinct {attribute} value{'s' if len(values) != 1 else ''} among {of}{missing}"
    lines = [f"- {v} [{cited.index(first[v]) + 1}]" for v in values]
    short = f"{len(values)}: {', '.join(values)}" if len(values) <= AGGREGATE_SHOWN else str(len(values))
    return SetAnswer(f"{head}:\n" + "\n".join(lines), short, citations, "distinct")


def count_by_answer(chunks: Sequence[Any], resource: str, computed: Mapping[str, Any], *,
                    others: Sequence[str] = ()) -> SetAnswer | None:
    """The values of ``computed["attribute"]`` ranked by how many documents of ``chunks`` (every
    chunk the filter selects) hold each ("Which region had the most events?"), the first
    ``computed["n"]`` places (ties share one), most first or, without ``highest``, fewest first;
    a list attribute counts each of its elements. ``computed["of"]``: the attribute whose distinct
    values each holds are counted instead of its documents ("the most stations" of yearly station
    records). ``others``: the attribute's values over the whole collection, which count none here
    ("the fewest volcanic events": a region with none).

    None when no document has a value, or when the documents that state none are enough to
    change the first places (three unrecorded regions could be the second's, and the first's lead
    is two): which value has the most is then not known."""
    attribute, highest = str(computed["attribute"]), bool(computed["highest"])
    n = max(1, int(computed.get("n") or 1))
    docs = sorted(_documents(chunks), key=lambda d: str(d.id))
    held: dict[str, list[Any]] = {}
    for d in docs:
        value = d.metadata.get(attribute)
        for v in dict.fromkeys(_elements(value)):
            held.setdefault(str(v), []).append(d)
    if not held:
        return None
    for v in others:
        held.setdefault(str(v), [])
    unvalued = sum(1 for d in docs if d.metadata.get(attribute) in (None, "", []))
    of_attribute = str(computed.get("of") or "")

    def size(v: str) -> int:
        # "the most stations" of yearly records: the distinct stations, not their records.
        if not of_attribute:
            return len(held[v])
        return len({str(x) for d in held[v] for x in _elements(d.metadata.get(of_attribute))})

    order = sorted(held, key=lambda v: (-size(v) if highest else size(v), v.casefold()))
    counts = [size(v) for v in order]
    cut = counts[min(n, len(order)) - 1]
    first = [v for v in order if (size(v) >= cut if highest else size(v) <= cut)]
    rest = [size(v) for v in order if v not in first]
    if unvalued and rest:
        # A record that states no value may be any value's: enough of them could lift the next
        # one level with the last place (or, fewest first, lift a last place off it).
        gap = cut - rest[0] if highest else rest[0] - cut
        if unvalued >= gap:
            return None
    if unvalued and not highest:
        return None  # an unrecorded record may be the fewest's own
    cited: list[Any] = []
    for v in first:
        for d in held[v][:1]:
            if d not in cited:
                cited.append(d)
    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=resource)
                 for i, d in enumerate(cited, 1)]

    def marker(v: str) -> str:
        return f" [{cited.index(held[v][0]) + 1}]" if v in first and held[v] else ""

    of = f"{len(docs)} matching document{'s' if len(docs) != 1 else ''}"
    missing = (f"; {unvalued} of them state{'s' if unvalued == 1 else ''} no {attribute}, too few to change it"
               if unvalued else "")
    most = "most" if highest else "fewest"
    shown = order[:max(len(first) + 2, 5)]
    lines = [f"- {v}: {size(v)}{marker(v)}" for v in shown]
    if len(first) == 1 or n > 1:
        named = ", ".join(f"{v} ({size(v)})" for v in first)
        lead = (f"{first[0]} has the {most} ({size(first[0])} of {of} have {attribute} {first[0]}){missing}"
                if len(first) == 1 and not of_attribute else
                f"{first[0]} has the {most} distinct {of_attribute} ({size(first[0])}) of {of}{missing}"
                if len(first) == 1 else f"The {len(first)} values of {attribute} with the {most}, of {of}{missing}")
    else:
        named = ", ".join(first[:-1]) + f" and {first[-1]} ({cut} each)"
        lead = f"{len(first)} values of {attribute} share the {most}, {cut} each, of {of}{missing}"
    return SetAnswer(f"{lead}:\n" + "\n".join(lines), named, citations, "count_by")


def _elements(value: Any) -> list[Any]:
    """A stored value's elements: a list's, a scalar alone, none for a missing one."""
    if isinstance(value, list):
        return list(value)
    return [] if value in (None, "") else [value]


def one_each(chunks: Sequence[Any], attribute: str) -> bool:
    """Whether each value of ``attribute`` among the documents of ``chunks`` is one document's, and
    there are two or more: alternatives a comparison can set against each other."""
    values = [d.metadata.get(attribute) for d in _documents(chunks)]
    return len(values) >= 2 and len(set(map(str, values))) == len(values)


def compared_answer(chunks: Sequence[Any], resource: str, computed: Mapping[str, Any]) -> SetAnswer | None:
    """A yes/no comparison of two alternatives ("Did Ostby get more rain than Kelbridge in 2022?"):
    yes when the one asked about (``computed["subject"]``, its value of ``computed["compared"]``)
    has the larger value of ``computed["attribute"]`` (the smaller when ``highest`` is false), both
    values shown and cited, the one asked about first. Equal values are a no: neither has more.
    None unless the chunks are exactly those two documents, each with a value."""
    attribute, label, subject = str(computed["attribute"]), str(computed["compared"]), str(computed["subject"])
    docs = _documents(chunks)
    asked = [d for d in docs if str(d.metadata.get(label)) == subject]
    others = [d for d in docs if str(d.metadata.get(label)) != subject]
    if len(docs) != 2 or len(asked) != 1 or not all(_number(d.metadata.get(attribute)) for d in docs):
        return None
    one, other = asked[0], others[0]
    a, b = float(one.metadata[attribute]), float(other.metadata[attribute])
    yes = a > b if computed["highest"] else a < b
    word = "Yes" if yes else "No"
    if a == b:
        why = f"{subject} and {other.metadata[label]} have the same {attribute} ({_shown(a)})"
    else:
        why = f"{subject} has {attribute} {_shown(one.metadata[attribute])}, {other.metadata[label]} {_shown(other.metadata[attribute])}"
    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=resource)
                 for i, d in enumerate((one, other), 1)]
    return SetAnswer(f"{word}: {why} [1][2].", word, citations, "ranking")


def ranked_answer(chunks: Sequence[Any], resource: str, schema: CollectionSchema, ranking: Mapping[str, Any],
                  page: int, *, label: str | None = None) -> SetAnswer | None:
    """The documents of ``chunks`` (every chunk the filter selects: ``SearchableCollection.matching``)
    ranked by their stored value of ``ranking["attribute"]``, the first ``ranking["n"]`` places, or
    ``page`` of them when ``n`` is 0 ("the cheapest hotels"); ties share one and are all shown.
    None when no document has a value.

    A document is one ``doc_id``: its chunks carry the same metadata, and its first chunk's first
    sentence names it when no ``name``/``title`` attribute does, or ``label`` (the attribute the
    question asks for: "Which town …?")."""
    attribute = str(ranking["attribute"])
    highest = bool(ranking["highest"])
    n = max(1, int(ranking.get("n") or page))
    docs = _documents(chunks)
    info = schema.attribute(attribute)

    def key(d: Any) -> float | None:
        # A date (read back as ISO text) ranks by its YYYYMMDD number.
        v = d.metadata.get(attribute)
        if info is not None and info.type == "date":
            return None if (number := date_number(v)) is None else float(number)
        return float(v) if _number(v) else None

    valued = sorted(((k, d) for d in docs if (k := key(d)) is not None),
                    key=lambda kd: (-kd[0] if highest else kd[0], str(kd[1].id)))
    if not valued:
        return None
    # The first n places; a tie at the last place keeps every document of that value.
    cut = valued[min(n, len(valued)) - 1][0]
    shown = [d for k, d in valued if (k >= cut if highest else k <= cut)]
    # A record called by an identifier ("R07") is named by its first name attribute too: the
    # identifier alone tells someone who asked "which recall" nothing. The attribute a question
    # asks for ("Which product …?") names it alone.
    also: list[str] = []
    if label is not None and len(docs) > 1 and len({str(d.metadata.get(label)) for d in docs}) == 1:
        # "Which of Judge Grace Kim's cases …": the judge the filter holds names every match, so
        # it tells none apart; the records' own label does.
        label = None
    label = label or schema.label_attribute
    if label is not None and (called_by := schema.attribute(label)) is not None and called_by.kind == "identifier":
        also = [a.name for a in schema.attributes if a.type == "string" and a.kind == "name"]
    if info is not None and info.type == "date":
        most = "latest" if highest else "earliest"
    else:
        most = "highest" if highest else "lowest"

    def called(d: Any) -> str:
        if label is not None and d.metadata.get(label) not in (None, ""):
            name = _telling_name(d, docs, also)
            return str(d.metadata[label]) + (f", {name}" if name else "")
        return first_sentence(str(d.text))

    def value(d: Any) -> str:
        return f"{attribute}: {_shown(d.metadata[attribute])}"

    citations = [rec.CitedDocument(number=i, id=d.id, text=d.text, metadata=dict(d.metadata), resource=resource)
                 for i, d in enumerate(shown, 1)]
    of = f"of {len(docs)} matching document{'s' if len(docs) != 1 else ''}"
    unvalued = len(docs) - len(valued)
    missing = (f" ({unvalued} of them state{'s' if unvalued == 1 else ''} no {attribute} and "
               f"{'is' if unvalued == 1 else 'are'} not ranked)") if unvalued else ""
    if len({(called(d), value(d)) for d in shown}) == 1 and len(shown) > 1 and label is not None:
        # "Which policyholder in Austin has the most prior claims?": two of Tom Becker's claims
        # state his 3; one policyholder, named once.
        d = shown[0]
        markers = "".join(f"[{i}]" for i in range(1, len(shown) + 1))
        answer = (f"{called(d)}: the {most} {attribute} ({_shown(d.metadata[attribute])}) {of}{missing}; "
                  f"{len(shown)} of its documents state it. {markers}")
        return SetAnswer(answer, f"{called(d)} ({value(d)})", citations, "ranking")
    if len(shown) == 1:
        d = shown[0]
        head = first_sentence(str(d.text))
        about = "" if head == called(d) else f" {head}."
        answer = f"{called(d)}: the {most} {attribute} ({_shown(d.metadata[attribute])}) {of}{missing}.{about} [1]"
        return SetAnswer(answer, f"{called(d)} ({value(d)})", citations, "ranking")
    lead = (f"{len(shown)} share the {most} {attribute}" if n == 1
            else f"The {len(shown)} with the {most} {attribute}")
    lines = [f"- {called(d)} ({value(d)}) [{i}]" for i, d in enumerate(shown, 1)]
    answer = f"{lead}, {of}{missing}:\n" + "\n".join(lines)
    return SetAnswer(answer, "; ".join(f"{called(d)} ({value(d)})" for d in shown), citations, "ranking")
