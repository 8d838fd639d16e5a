"""The self-query's graph-aware terms: relation conditions, entity mentions, named ranges, dates,
and whether the question has a topic at all.

The generic readers (``rules``, ``validate``) work on a schema's scalar attributes; this module
reads what they do not:

- **relation conditions** ``(relation, value)``: from the offline ``RelationRecogniser`` (or a
  model's proposal, checked by ``validate_relations``: an undeclared relation is dropped and
  recorded, and the value must name an entity of the relation's start label);
- **mentions**: an entity named directly ("news about Neo4j") filters on its mention attribute;
- **named ranges** declared on numeric attributes ("negative" → ``sentiment lt -0.5``);
- **dates**: a relative or absolute date range on the schema's ``date`` attribute, as YYYYMMDD;
- **latest first**: the question asks for the newest ("latest", "most recent") and, once its
  conditions are taken out, names no topic to rank by similarity.

A term whose entity is ambiguous keeps its candidates: the run asks which one is meant.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from selfrag.kg.context import GraphContext
from selfrag.kg.entities import Candidate, EntityMatch
from selfrag.kg.ranges import NamedRange, find_named_ranges
from selfrag.kg.recognition import KIND_WORDS
from selfrag.lang import MONTHS, Token, find_date_ranges, forms, lemma, tokenize, wants_latest
from selfrag.lang.questions import (
    AUXILIARIES,
    REQUEST_VERBS,
    asks_about_all,
    asks_about_any,
    asks_in_general,
    asks_yes_or_no,
    coordinated,
    is_request,
    wh_words,
)
from selfrag.lang.stopwords import DETERMINERS, FUNCTION_WORDS
from selfrag.query._lexicon import NEGATION_PHRASES, NEGATIONS, verb_form
from selfrag.query._profile import SchemaProfile
from selfrag.query.model import Change, Comparison, FilterNode, Operation
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.text import content_terms
from selfrag.values import date_number

__all__ = [
    "EntityChoice",
    "GraphReading",
    "Asks",
    "GraphTerm",
    "asks_for",
    "find_graph_terms",
    "has_graph_terms",
    "negations",
    "read_graph_terms",
    "validate_relations",
    "without_relation_wording",
]

# Words that name documents: a question about them asks whether documents exist, not whether two
# entities are related.
_DOCUMENT_WORDS = ("news article articles report reports story stories update updates document documents item items "
                   "review reviews post posts entry entries")
# What a news question asks when it asks for the events themselves ("What happened at X in 2024?",
# "What did X announce?"): the documents about the set of entities a relation selects are the
# answer. Without one ("What happened in INC-2039?", "to the anemometer at Ashford Ridge in
# 2023"), the story is in a record's text, which a listing of it does not quote: a topic, for the
# reader.
_EVENT_WORDS = "happen occur announce announcement"
_WHAT_HAPPENED = re.compile(r"\s*what\s+(?:has\s+|had\s+|exactly\s+)?(?:happen|occur)", re.IGNORECASE)
"""The question for an event's story ("What happened in INC-2039?"), not for the items it counts
or lists ("How many incidents happened after July 2024?")."""
# Words that name the kind of document or the order wanted, never the topic.
_RECENCY = ("latest", "newest", "recent", "most", "freshest", "last", "first", "later", "earlier", "newer", "older")
"""Words asking for the newest, or bounding a date ("2023 or later"), no topic as written: not by
their stem ("late" in "What made Liam late?" is the topic, the stem "latest" shares)."""
_NOT_TOPIC = (
    _DOCUMENT_WORDS + " "
    "anything something any all company companies organisation organization firm business "
    "today yesterday week month year years since before after during past this next "
    # prepositions the shared stop list keeps, which name no topic either
    "among amongst between within across around toward towards without via per regarding concerning"
)


Asks = Literal["entities", "documents", "entities_and_documents", "membership"] | None
"""What a question whose filters hold all it asks wants back: ``entities``, the entities its relations
reach in the graph ("Which companies invested in Graphwise?"); ``documents``, the matching documents
themselves ("News about companies based in Munich"); ``entities_and_documents``, both, asked in two
questions, the second about the first one's answer ("Which companies does X supply, and what news
is there about them?"); ``membership``, yes or no: whether one named entity is among those a
relation reaches from another ("Does Brightcell Batteries supply Mercury Motors?"); None, a fact
read from the documents."""

# Skipped before the word that says what a question asks for: "which companies", "show me the
# suppliers", "who are the investors".
_LEAD = frozenset(["which", "what", "who", "is", "are", "was", "were", "me", "us", "all", "the", "any", "every", "of",
                   "please", *REQUEST_VERBS])


def asks_for(question: str, terms: Sequence[GraphTerm], *, labels: Sequence[str] = ()) -> Asks:
    """What ``question`` asks for, when nothing but its filters is left in it (its caller checks that).

    - ``entities``: a relation term resolves to one entity, and the question is headed by a word for
      the kind of thing (a kind word, a graph label: "Companies in France that …", "Which firms …"),
      a relation's own word ("Suppliers of Veltro Auto") or "who" right before one ("Who supplies X?").
      A relation's word the question uses twice heads nothing ("Supply chain problems at companies
      that supply X?" asks about problems);
    - ``documents``: a request, not a question ("News about …", ``is_request``); a yes/no question
      ("Are there negative news about …?": yes when a document matches); or a "what" question with
      nothing else in it ("What is the latest news about X?");
    - ``entities_and_documents``: two questions in one, the first asking for the entities, the
      second for the documents about them ("Which companies does X supply, and what news is there
      about them?": the filter is the first one's answer, so it holds the second whole);
    - ``entities`` too for a yes/no question about whether any entity is reached, naming no
      documents ("Does X supply any German company?"), answered yes or no with the set;
    - ``membership``: a yes/no question naming two entities and one relation between them, about
      no documents ("Does Brightcell Batteries supply Mercury Motors?", "Is Rod Halverson on the
      board of Harbor Bank?"): one relation term and a mention, or the relation read from both
      ends through the one word ("supply") that joins them;
    - ``documents`` too for two questions that each ask for the documents; None for any other two
      questions in one, for a yes/no question about all of them ("Are all …?": ``asks_about_all``),
      and otherwise.

    A term the question sets aside (``GraphTerm.excluded``) takes its entities out of the others'.
    """
    parts = coordinated(question)
    if parts is not None:
        first, second, points_back = parts
        asked = (asks_for(first, terms, labels=labels), asks_for(second, ()))
        if points_back and asked == ("entities", "documents"):
            return "entities_and_documents"
        # Both held whole by the filter ("Are there chess clubs in Boston, and were they founded
        # before 1950?"): the matching documents answer both.
        return "documents" if asked == ("documents", "documents") else None
    wh = wh_words(question)
    if len(wh) > 1 or asks_about_all(question):
        return None
    # What is set aside ("Besides Graphwise, which companies …") heads nothing: read without it.
    aside = [*negations(question), *(_span(question, t.value) for t in terms if t.excluded)]
    words = [w for w in tokenize(question) if not any(s <= w.start < e for s, e in aside)]
    relations = [t for t in terms if t.kind == "relation" and t.entity is not None and not t.excluded]
    if relations and asks_yes_or_no(question) and not any(w.norm in _DOCUMENT_WORDS.split() for w in words):
        # About how entities are related, not about documents: the graph answers, or no one does.
        # Documents that mention one entity of each set say nothing about the relation.
        if _names_two_related(question, words, terms):
            return "membership"
        if _one_relation_two_ends(words, relations) or any(t.kind == "mention" and not t.excluded for t in terms):
            return None  # named entities, in a form ``membership`` does not read
        # Whether any is reached ("Does X supply any German company?"): the set, yes or no
        # (``read_graph_terms`` keeps it only with "any", "a", "some"...: ``asks_about_any``).
        return "entities"
    if relations:
        heads = set(KIND_WORDS) | {lemma(x.lower()) for lbl in labels for x in re.findall(r"[A-Z]?[a-z]+", lbl)}
        counts = Counter(w.lemma for w in words)
        cues = {tok.lemma for t in relations for w in t.wording for tok in tokenize(w)}
        cues = {c for c in cues if counts[c] == 1}
        i = 0
        while i < len(words) and words[i].norm in _LEAD:
            i += 1
        i = _past_possessive(question, words, i, relations)
        if i < len(words) and (words[i].lemma in heads or words[i].lemma in cues):
            return "entities"
        if words and words[0].norm == "who" and len(words) > 1 and words[1].lemma in cues:
            return "entities"
    if is_request(question) or wh == ["what"] or (asks_yes_or_no(question) and not asks_in_general(question)):
        # "Are there chess clubs in Boston?": yes when one matches. "Are Boston's chess clubs
        # old?" asks about them in general, which the ones that match do not answer.
        return "documents"
    if wh == ["how"] and re.search(r"\bhow\s+many\b", question, re.IGNORECASE):
        # "How many search incidents were there?": nothing but the filter is left, so what it
        # selects is counted (a figure of the documents' own, "how many people …", leaves words).
        return "documents"
    return None


def _past_possessive(question: str, words: Sequence[Token], i: int, relations: Sequence[GraphTerm]) -> int:
    """Past a relation's entity written as a possessive at ``words[i]`` ("Atlas Capital's portfolio
    companies", "Mercury Motors' suppliers"): the word after it heads the phrase. ``i`` otherwise."""
    if i >= len(words):
        return i
    for t in relations:
        start = question.find(t.value, words[i].start)
        if start != words[i].start:
            continue
        end = start + len(t.value)
        if re.match(r"['’]s?\b|['’]", question[end:end + 2]):
            return next((j for j, w in enumerate(words) if w.start >= end and w.start > words[i].start), len(words))
    return i


def _names_two_related(question: str, words: Sequence[Token], terms: Sequence[GraphTerm]) -> bool:
    """Whether ``terms`` name two entities and one relation between them, and the question is
    about no documents (``asks_for``'s ``membership``)."""
    if any(t.excluded or t.entity is None for t in terms) or any(w.norm in _DOCUMENT_WORDS.split() for w in words):
        return False
    grouped = [t for t in terms if t.either is not None]
    if grouped:
        # "Does A supply B or C?": one relation from A, and the alternatives it may reach
        plain = [t for t in terms if t.either is None]
        if len({t.either for t in grouped}) > 1 or len(plain) != 1 or plain[0].kind != "relation":
            return False
        if all(t.kind == "mention" for t in grouped):
            return True
        return all(t.kind == "relation" for t in grouped) and _one_relation_two_ends(words, [plain[0], *grouped])
    relations = [t for t in terms if t.kind == "relation"]
    mentions = [t for t in terms if t.kind == "mention"]
    if len(relations) == 1 and len(mentions) == 1:
        return True
    return len(relations) == 2 and not mentions and _one_relation_two_ends(words, relations)


def _one_relation_two_ends(words: Sequence[Token], relations: Sequence[GraphTerm]) -> bool:
    """Whether two of ``relations`` are one relation read from both of its ends: "Does A supply B?"
    gives A's customers and B's suppliers, through the one occurrence of their word. Two uses of
    the word are two relations ("Do the companies that supply A also supply B?")."""
    counts = Counter(w.lemma for w in words)
    for i, a in enumerate(relations):
        for b in relations[i + 1:]:
            shared = {lemma(w.lower()) for w in a.wording} & {lemma(w.lower()) for w in b.wording}
            if any(counts[w] == 1 for w in shared):
                return True
    return False


class EntityChoice(BaseModel):
    """One entity a term may name: enough to show, to choose and to resolve."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    label: str
    differences: dict[str, str] = {}
    """What tells it apart from the other candidates (label, country, industry...)."""

    @classmethod
    def of(cls, c: Candidate) -> EntityChoice:
        return cls(id=c.entity.id, name=c.entity.name, label=c.entity.label, differences=dict(c.differences))

    def describe(self) -> str:
        facts = ", ".join(f"{k}: {v}" for k, v in self.differences.items() if k != "label")
        return f"{self.name} ({self.label}{'; ' + facts if facts else ''})"


class GraphTerm(BaseModel):
    """A condition on the graph: documents mentioning the entity (``mention``) or the entities a
    relation reaches from it (``relation``)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["relation", "mention"]
    relation: str | None
    attribute: str
    """The mention attribute the resolved names filter on."""
    value: str
    """The entity as the question wrote it."""
    entity: EntityChoice | None
    """The entity, when the value names exactly one."""
    candidates: list[EntityChoice] = []
    """Every plausible entity when the value is ambiguous (then ``entity`` is None)."""
    either: int | None = None
    """Terms with the same number are alternatives, joined by "or" ("based in Japan or Korea"):
    their entities are united, where separate terms' are intersected."""
    excluded: bool = False
    """The question sets this term aside: a negated relation ("suppliers of X that are not based in
    Japan": the companies in Japan) or an entity ("besides Redwood Ventures", then a ``mention``).
    Its entities are taken out of the other relations' sets; it never filters on its own."""
    wording: tuple[str, ...] = Field(default=(), exclude=True)
    """A relation's own words in the question ("sits", "board"; ``RecognisedRelation.cues``): the
    filter holds them, so the search text drops them (``without_relation_wording``). Not stored."""

    @property
    def ambiguous(self) -> bool:
        return self.entity is None and len(self.candidates) > 1


@dataclass(frozen=True)
class GraphReading:
    terms: list[GraphTerm] = field(default_factory=list)
    filter: FilterNode | None = None
    """Named ranges and the date range, as comparisons on the scalar and date attributes."""
    latest: bool = False
    """Filters but no topic: return the newest matching documents by the date attribute."""
    changes: list[Change] = field(default_factory=list)
    asks: Asks = None
    """What the question asks for when its filters hold all of it (``asks_for``)."""
    negated: list[str] = field(default_factory=list)
    """The date attributes a negated date phrase bounds ("not patched before 2023"): a record
    without the date is selected by neither the range nor its outside (``Plan.negated``)."""


def has_graph_terms(schema: CollectionSchema) -> bool:
    """Whether ``schema`` declares anything this module reads (else the planner is as before)."""
    return schema.graph is not None or schema.date_attribute is not None or any(a.named_ranges for a in schema.attributes)


def _term(kind: Literal["relation", "mention"], relation: str | None, attribute: str, match: EntityMatch) -> GraphTerm:
    choices = [EntityChoice.of(c) for c in match.candidates]
    return GraphTerm(kind=kind, relation=relation, attribute=attribute, value=match.text,
                     entity=choices[0] if len(choices) == 1 else None, candidates=choices if len(choices) > 1 else [])


def _and(nodes: Sequence[FilterNode]) -> FilterNode | None:
    return None if not nodes else nodes[0] if len(nodes) == 1 else Operation(operator="and", arguments=list(nodes))


def validate_relations(conditions: Sequence[object], context: GraphContext) -> tuple[list[GraphTerm], list[Change]]:
    """Relation conditions proposed by a model, checked like any other condition: an undeclared
    relation, or a value naming no entity of the relation's start label, is dropped and recorded."""
    terms: list[GraphTerm] = []
    changes: list[Change] = []
    link = context.link
    for raw in conditions:
        data = raw.model_dump() if isinstance(raw, BaseModel) else raw
        if not isinstance(data, Mapping):
            changes.append(Change(kind="dropped_relation", detail=f"relation condition {str(raw)[:60]!r} is not an object"))
            continue
        name, value = data.get("relation"), data.get("value")
        rel = link.relation(name) if isinstance(name, str) else None
        if rel is None:
            declared = ", ".join(r.name for r in link.relations) or "none"
            changes.append(Change(kind="dropped_relation", detail=f"unknown relation {str(name)[:60]!r} (declared: {declared})"))
            continue
        if not isinstance(value, str) or not value.strip():
            changes.append(Change(kind="dropped_relation", detail=f"{rel.name}: no entity named"))
            continue
        match = context.index.match(value, label=rel.start)
        if match.status == "none":
            changes.append(Change(kind="dropped_relation", detail=f"{rel.name}: {value[:60]!r} is no {rel.start} in the graph"))
            continue
        mention = link.mention_for(rel.result_label)
        assert mention is not None  # GraphLink checks every relation ends at a mention attribute's label
        terms.append(_term("relation", rel.name, mention.attribute, match))
    return terms, changes


def find_graph_terms(
    question: str, schema: CollectionSchema, context: GraphContext | None
) -> tuple[list[GraphTerm], list[Change], str]:
    """The relation conditions and entity mentions of ``question``, and the question with the
    entities' names taken out: the generic readers must not read a name a second time (as a
    fuzzy match to some string attribute's value)."""
    terms: list[GraphTerm] = []
    changes: list[Change] = []
    masked = question
    if context is not None and schema.graph is not None:
        found = context.recogniser.recognise(question)
        placed: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
        for r in found.relations:
            rel = context.link.relation(r.relation)
            assert rel is not None
            mention = context.link.mention_for(rel.result_label)
            assert mention is not None
            terms.append(_term("relation", rel.name, mention.attribute, r.match).model_copy(
                update={"wording": tuple(question[s:e] for s, e in r.cues)}))
            placed.append((*_span(question, r.value), r.cues))
            changes.append(Change(kind="graph_term", detail=f"relation {rel.name} on {r.value!r}"))
            masked = masked.replace(r.value, " ")
        for m in found.mentions:
            if not m.candidates:
                continue
            label = m.candidates[0].entity.label
            mention = context.link.mention_for(label)
            if mention is None:
                continue
            terms.append(_term("mention", None, mention.attribute, m))
            placed.append((*_span(question, m.text), ()))
            changes.append(Change(kind="graph_term", detail=f"documents mentioning {m.text!r} ({mention.attribute})"))
            masked = masked.replace(m.text, " ")
        terms = _alternatives(question, terms, placed, changes)
        terms, negated = _set_aside(question, terms, placed, context, changes)
        if negated:
            changes.append(Change(kind="negation_not_held", detail=(
                f"{negated!r} is about something no graph condition holds: no answer from the filters alone")))
    return terms, changes, " ".join(masked.split())


def _span(question: str, text: str) -> tuple[int, int]:
    start = question.find(text)
    return (start, start + len(text)) if start >= 0 else (len(question), len(question))


def _alternatives(question: str, terms: list[GraphTerm], placed: Sequence[tuple[int, int, tuple[tuple[int, int], ...]]],
                  changes: list[Change]) -> list[GraphTerm]:
    """``terms`` with the ones joined by "or" numbered as alternatives (``GraphTerm.either``): two
    conditions of one relation, nothing but "or" between their names ("in Japan or Korea").

    A bare "and" there is no reading to sign: "suppliers in Japan and Korea" means either (no
    company is in both), "companies that supply X and Y" may mean both. Unless "both" says so, it
    is recorded (``ambiguous_coordination``) and no set answer is given; the filter stays as read.
    """
    order = sorted(range(len(terms)), key=lambda i: placed[i][0])
    group: dict[int, int] = {}
    for a, b in zip(order, order[1:], strict=False):
        ta, tb = terms[a], terms[b]
        if ta.kind != tb.kind or ta.relation != tb.relation or placed[a][1] > placed[b][0]:
            continue
        joint = re.findall(r"[a-z]+", question[placed[a][1]:placed[b][0]].lower())
        if joint in (["or"], ["and", "or"]):
            group[b] = group[a] = group.get(a, a + 1)
        elif joint == ["and"] and "both" not in re.findall(r"[a-z]+", question[:placed[a][0]].lower())[-3:]:
            changes.append(Change(kind="ambiguous_coordination", detail=(
                f"{ta.value!r} and {tb.value!r}: both, or either? No answer from the filters alone")))
    return [t.model_copy(update={"either": group[i]}) if i in group else t for i, t in enumerate(terms)]


# How far a negation reaches forward to what it negates: this many words, all function words
# ("not based in Japan", "except Lumen Optics", "besides the Redwood fund").
_NEGATION_REACH = 3


def negations(question: str) -> list[tuple[int, int]]:
    """Where ``question`` negates: its negation words and phrases (the self-query's own lists:
    "not", "aren't", "never", "except", "other than"...), as character spans, in order."""
    words = tokenize(question)
    norms = [w.norm for w in words]
    spans = [(w.start, w.end) for w in words if w.norm in NEGATIONS]
    for phrase in NEGATION_PHRASES:
        parts = phrase.split()
        for i in range(len(words) - len(parts) + 1):
            if norms[i:i + len(parts)] == parts:
                spans.append((words[i].start, words[i + len(parts) - 1].end))
    # "but not" holds "not": one negation
    return sorted(s for s in set(spans) if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans))


def _set_aside(question: str, terms: list[GraphTerm], placed: Sequence[tuple[int, int, tuple[tuple[int, int], ...]]],
               context: GraphContext, changes: list[Change]) -> tuple[list[GraphTerm], str | None]:
    """``terms`` with the ones the question negates marked ``excluded``, and the first negation
    that no term holds (its words), if any: then no set answer may be given.

    A negation right before an entity's name sets the entity itself aside ("besides Redwood
    Ventures", "…invested in, other than Lumen Optics"), when the answer could hold it; else, and
    inside a term's own words ("Graphwise did not invest in") or right before them ("not based in
    Japan", "not in Japan"), it negates the relation: the entities it reaches are set aside. A
    relation's complement is no set the graph holds: with nothing left to take it from ("Which
    companies did Graphwise not invest in?") the negated terms are dropped, recorded, and the
    question is read.
    """
    words = tokenize(question)
    light = FUNCTION_WORDS | DETERMINERS
    bounds = [(min([s, *(c for c, _ in cues)]), max([e, *(c for _, c in cues)]), s) for s, e, cues in placed]

    def right_after(ne: int, start: int) -> bool:
        between = [w for w in words if ne <= w.start < start]
        return len(between) <= _NEGATION_REACH and all(w.norm in light for w in between)

    marked: dict[int, Literal["relation", "entity"]] = {}
    unheld: str | None = None
    for ns, ne in negations(question):
        target: tuple[int, Literal["relation", "entity"]] | None = None
        # 1. right before an entity's name: the entity ("besides Redwood Ventures", "…, other than Lumen Optics")
        named = sorted((i for i, (_, _, start) in enumerate(bounds) if start >= ne), key=lambda i: bounds[i][2])
        if named and right_after(ne, bounds[named[0]][2]):
            target = (named[0], "entity")
        # 2. inside a term's own words: the relation ("Graphwise did not invest in")
        for i, ((lo, hi, start), (_, end, _)) in enumerate(zip(bounds, placed, strict=True)):
            if target is None and lo <= ns and ne <= hi and not start <= ns < end:
                target = (i, "relation")
        # 3. right before a term's words: the relation ("not based in Japan", "never invested in X")
        after = sorted((i for i, (lo, _, _) in enumerate(bounds) if lo >= ne), key=lambda i: bounds[i][0])
        if target is None and after and right_after(ne, bounds[after[0]][0]):
            target = (after[0], "relation")
        if target is None:
            unheld = unheld or question[ns:ne]
        else:
            marked[target[0]] = target[1]
    # An entity set aside must be one the answer could hold: a country named after "not in" is no
    # company, so there the relation is what is negated ("suppliers not in Japan").
    results = {rel.result_label for t in terms if t.kind == "relation" and t.relation is not None
               and (rel := context.link.relation(t.relation)) is not None}
    out: list[GraphTerm] = []
    for i, t in enumerate(terms):
        how = marked.get(i)
        if how == "entity" and t.kind == "relation" and t.entity is not None and t.entity.label not in results:
            how = "relation"
        if how is None:
            out.append(t)
        elif how == "relation" or t.kind == "mention":
            out.append(t.model_copy(update={"excluded": True}))
        else:
            label = (t.entity or (t.candidates[0] if t.candidates else None))
            mention = context.link.mention_for(label.label) if label is not None else None
            if mention is None:
                unheld = unheld or t.value
                continue
            out.append(GraphTerm(kind="mention", relation=None, attribute=mention.attribute, value=t.value,
                                 entity=t.entity, candidates=t.candidates, excluded=True))
    if any(t.excluded for t in out):
        if any(t.kind == "relation" and not t.excluded for t in out):
            for t in out:
                if t.excluded:
                    what = f"relation {t.relation} on {t.value!r}" if t.relation else repr(t.value)
                    changes.append(Change(kind="excluded", detail=f"set aside: {what} (the question negates it)"))
        else:
            for t in out:
                if t.excluded:
                    what = f"relation {t.relation} on {t.value!r}" if t.relation else repr(t.value)
                    changes.append(Change(kind="dropped_relation", detail=(
                        f"{what} is negated, and no other relation's entities to take it from: "
                        "the graph holds no complement")))
            unheld = unheld or next(t.value for t in out if t.excluded)
            out = [t for t in out if not t.excluded]
    return out, unheld


def read_graph_terms(
    question: str,
    schema: CollectionSchema,
    context: GraphContext | None,
    *,
    today: date,
    topic_text: str | None = None,
    terms: Sequence[GraphTerm] = (),
    filters_elsewhere: bool = False,
    consumed: Sequence[tuple[int, int]] = (),
) -> GraphReading:
    """The named ranges and dates of ``question``, and whether it has a topic left besides them
    and its graph ``terms`` (see ``find_graph_terms``).

    ``topic_text`` is the question with the filter phrases already taken out (the rules' search
    text); what is left of it after these terms, if anything, is the topic. ``filters_elsewhere``:
    the generic readers found conditions too. ``consumed``: the spans of ``question`` their
    conditions came from, which no date is read from again ("in 2022" read as ``year = 2022`` is
    not also a reading date within 2022).
    """

    changes: list[Change] = []
    masked = topic_text if topic_text is not None else question
    nodes: list[FilterNode] = []
    negated: list[str] = []
    ranges = [NamedRange(attribute=a.name, words=tuple(r.words), comparator=r.comparator, value=r.value)
              for a in schema.attributes for r in a.named_ranges]
    range_words: list[str] = []
    for hit in find_named_ranges(question, ranges):
        nodes.append(Comparison(attribute=hit.attribute, comparator=hit.comparator, value=hit.value))
        changes.append(Change(kind="named_range", detail=f"{hit.name!r}: {hit.attribute} {hit.comparator} {hit.value}"))
    range_words = [w for r in ranges for w in r.words]
    date_attr = schema.date_attribute
    if date_attr is not None:
        unread = "".join(" " if any(a <= i < b for a, b in consumed) else ch for i, ch in enumerate(question))
        previous: tuple[int, int] | None = None
        bounded: set[str] = set()
        # "published in 2022 and patched in 2023": each phrase bounds the date its own verb names.
        for span in find_date_ranges(unread, today):
            phrase = question[span.span[0]:span.span[1]].strip() if span.span is not None else "the date"
            if previous is not None and span.span is not None and any(
                    t.norm == "or" for t in tokenize(question[previous[1]:span.span[0]])):
                # "published in 2022 or patched in 2023": either, which a conjunction of filters is not.
                changes.append(Change(kind="ambiguous_coordination", detail=f"{phrase!r}: an alternative to the date "
                                      "before it, which one filter cannot hold; not filtered"))
                continue
            previous = span.span
            if span.span is not None and (more := _ALTERNATIVE_DATE.match(question, span.span[1])) is not None:
                # "published in 2022 or 2023": the year after "or" is no date phrase of its own, and
                # the one before it alone is not what is asked.
                changes.append(Change(kind="ambiguous_coordination", detail=f"{phrase!r}{more.group(0)}: alternatives, of "
                                      "which the filter holds the first only"))
            dated = _dated_attribute(question, span.span, schema) if span.span is not None else date_attr
            if dated is None:
                # "How many trials were there in 2023?" of a start and a completion date: which is not said.
                changes.append(Change(kind="unread_bound", detail=f"{phrase!r}: which date it bounds is not said; not filtered"))
                continue
            if dated.name in bounded:
                # "more emergencies in 2024 than in 2022": two ranges of one date are compared, or
                # alternatives; both at once match nothing, which is no answer.
                changes.append(Change(kind="ambiguous_coordination", detail=f"{phrase!r}: a second range of {dated.name}, "
                                      "compared with the first or an alternative to it, which one filter cannot hold; not filtered"))
                continue
            bounded.add(dated.name)
            bounds: list[FilterNode] = []
            if span.start is not None:
                bounds.append(Comparison(attribute=dated.name, comparator="gte", value=date_number(span.start)))
            if span.end is not None:
                bounds.append(Comparison(attribute=dated.name, comparator="lt", value=date_number(span.end)))
            if span.span is not None and negated_date(question, span.span, consumed):
                # "not published in 2024": the dates outside the range (a record without one is in neither).
                outside: list[FilterNode] = [_outside(b) for b in bounds]
                nodes.append(outside[0] if len(outside) == 1 else Operation(operator="or", arguments=outside))
                negated.append(dated.name)
                changes.append(Change(kind="resolved_date", detail=f"{dated.name}: before {span.start or '…'} or from "
                                      f"{span.end or '…'} on (not in {phrase!r})"))
                continue
            nodes.extend(bounds)
            changes.append(Change(kind="resolved_date", detail=f"{dated.name}: from {span.start or '…'} to before {span.end or '…'}"))
    # A negation's own words ("apart from", "except") are no topic: it is held by a graph term or
    # the question gets no set answer (``_set_aside``).
    # The collection's own words for its items ("the latest notices") name the kind of document, as
    # "news" does: the search text keeps them, the topic does not.
    items = SchemaProfile(schema.scalar_view(), {}).item_nouns
    events = "" if not terms and _WHAT_HAPPENED.match(question) else _EVENT_WORDS
    written = set(re.findall(r"[a-z]+", masked.casefold()))
    not_topic = content_terms(" ".join([_NOT_TOPIC, *(w for w in _RECENCY if w in written), events, *MONTHS, *range_words, *REQUEST_VERBS, *NEGATIONS,
                                        *NEGATION_PHRASES, *items]))
    labels: set[str] = set()
    if context is not None:
        link = context.link
        labels = {r.start for r in link.relations} | {h.label for r in link.relations for h in r.path}
        # A relation's words are held by the filter only when the question's relation term is that
        # relation: "What are the portfolio companies of X?" with no relation read asks about a
        # portfolio, which no filter holds.
        held = {t.relation for t in terms if t.relation is not None}
        not_topic |= content_terms(" ".join([*(r.description for r in link.relations if r.name in held),
                                             *(r.name.replace("_", " ") for r in link.relations if r.name in held),
                                             *(re.sub(r"(?<!^)(?=[A-Z])", " ", lbl) for lbl in labels)]))
    topic = {t for t in content_terms(masked) if not t.isdigit()} - not_topic
    # Newest first when asked for ("latest", "most recent") and there is nothing to rank by
    # similarity: every condition is a filter, no topic is left for a vector search.
    filtered = bool(terms) or bool(nodes) or filters_elsewhere
    latest = date_attr is not None and filtered and not topic and wants_latest(question)
    if latest:
        changes.append(Change(kind="latest_first", detail=f"filters but no topic, newest asked for: newest first by {date_attr.name}"))  # type: ignore[union-attr]
    asks = asks_for(question, terms, labels=sorted(labels)) if filtered and not topic else None
    if asks in ("entities", "membership") and (nodes or filters_elsewhere):
        # The graph's edges carry no dates or scores: "invested in Graphwise before 2023" is no
        # condition on the entity set, only on documents. Read the documents instead; whether any
        # exist, for a yes/no question about such entities ("Any layoffs at X's competitors?").
        yes_no = asks_yes_or_no(question) and not asks_in_general(question)
        asks = "documents" if asks == "entities" and yes_no else None
    elif asks == "entities" and asks_yes_or_no(question) and not asks_about_any(question):
        # "Are X's suppliers Japanese?" asks about all of them: the ones that are do not answer it.
        asks = None
    return GraphReading(terms=list(terms), filter=_and(nodes), latest=latest, changes=changes, asks=asks,
                        negated=list(dict.fromkeys(negated)))


_ALTERNATIVE_DATE = re.compile(r"\s*,?\s*(?:or|and)\s+(?:in\s+)?(?:\d{4}|" + "|".join(MONTHS) + r")\b", re.IGNORECASE)


def negated_date(question: str, span: tuple[int, int], consumed: Sequence[tuple[int, int]] = ()) -> bool:
    """Whether a negation stands before the date phrase at ``span``, through auxiliaries and a verb
    only ("were not published in 2024", "weren't patched before 2023", "not in 2024"), and no other
    condition holds it (``consumed``: "not recorded in 2025" of a flag recorded is the flag's)."""
    before = [t for t in tokenize(question) if t.end <= span[0]]
    for i in range(len(before) - 1, max(-1, len(before) - 4), -1):
        t = before[i]
        if any(a <= t.start < b for a, b in consumed):
            return False
        if t.norm in NEGATIONS:
            return True
        if t.norm in AUXILIARIES or verb_form(t.text, [u.norm for u in before[:i]]):
            continue  # "were", "published", "did not end"
        return False
    return False


def _outside(bound: FilterNode) -> FilterNode:
    """The complement of one bound of a date range: ``gte`` → ``lt``, ``lt`` → ``gte``."""
    assert isinstance(bound, Comparison)
    return bound.model_copy(update={"comparator": "lt" if bound.comparator == "gte" else "gte"})


def _dated_attribute(question: str, span: tuple[int, int], schema: CollectionSchema) -> AttributeInfo | None:
    """The date attribute the date phrase at ``span`` bounds: the one of several whose name or
    description alone uses the word right before the phrase ("completed in 2023" of "date the trial
    was completed"), else the one alone named by a word anywhere in the question ("a completion
    date in 2023"); the only one there is; else the one the items' word names; None when the words
    name none or several."""
    whole = SchemaProfile(schema, {})
    all_profiles = whole.attributes
    profiles = [p for p in all_profiles if p.attr.type == "date"]
    years = [p for p in all_profiles if p.attr.kind == "year" and p.attr.type != "date"]
    if len(profiles) == 1 and years and not any(m in question[span[0]:span[1]].casefold() for m in MONTHS):
        # "artworks from 1917" beside a year attribute ("year the artwork was created"): a bare
        # year bounds the date ("acquired") only when a word of the question is the date's own.
        # "date" itself is every date's word, and a verb too ("works that date from 1917").
        dated = profiles[0].terms - frozenset().union(*(y.terms for y in years)) - {"date", "dated", "dates"}
        if any(lemma(t.norm) in dated or t.norm in dated for t in tokenize(question)):
            return profiles[0].attr
        # Every year that of a thing another attribute names ("year the building was built" of
        # monthly bills): a bare year is the records' own, their one date's.
        return profiles[0].attr if all(whole.of_another_thing(y) for y in years) else None
    if len(profiles) < 2:
        return profiles[0].attr if profiles else None
    own = {p.name: p.terms - frozenset().union(*(q.terms for q in profiles if q is not p)) for p in profiles}
    # The records' own word names the records, not a date named after them ("appointments referred
    # in 2023" of referral_date beside appointment_date).
    tokens = [t for t in tokenize(question) if not forms(t.norm) & whole.record_nouns]
    before = [t for t in tokenize(question) if t.end <= span[0]]
    for words in ([before[-1]] if before else [], tokens):
        named = [p for p in profiles if any(_names_date(t, own[p.name]) for t in words)]
        if len(named) == 1:
            return named[0].attr
        if len(named) > 1:
            return None
    # Words naming none: the records' own date, the one whose name is the items' word (service_date
    # of "Service records" beside next_due_date: "replacements done before 2024").
    items = whole.item_nouns
    own_dates = [p for p in profiles if p.name_terms & items]
    return own_dates[0].attr if len(own_dates) == 1 else None


def _names_date(token: Token, own: frozenset[str]) -> bool:
    """Whether ``token`` is one of a date's own words (``own``), or the verb a noun of them in
    "-al" is made from ("referred" of referral, "arrived" of arrival)."""
    if lemma(token.norm) in own or token.norm in own:
        return True
    base = lemma(token.norm)
    return any(w.endswith("al") and len(w) > 5 and base in (w[:-2], w[:-2] + "e", w[:-3]) for w in own)


def without_relation_wording(text: str, question: str, terms: Sequence[GraphTerm]) -> str:
    """``text`` (the search text read from ``question``) without the relations' own words, which the
    graph filter holds: "sits on the board implement" → "on the implement". A word the question
    uses twice stays (it may also be the topic: "supply shortages at companies that supply X"), and
    so does ``text`` when nothing with content would be left."""
    words = [w for t in terms for w in t.wording]
    if not words:
        return text
    counts = Counter(t.lemma for t in tokenize(question))
    out = text
    for word in words:
        tokens = tokenize(word)
        if len(tokens) == 1 and counts[tokens[0].lemma] == 1:
            out = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", " ", out)
    out = " ".join(out.split())
    return out if content_terms(out) else text
