"""The self-query planner: question → validated structured query → final Chroma ``where``.

The model proposes; validation repairs (and never lets through a filter that cannot select
anything); the rule-based constructor referees. In ``auto`` mode the rules also run (they are
cheap and deterministic) and win when the model failed, produced nothing usable, or proposed a
filter less grounded in the question than theirs — the guard against a small model's invented
conditions. The model's search text is kept only while it stays on the question
(:func:`~selfrag.query.anchor.check_text`); otherwise the question minus its filter phrases is
searched. In ``rules`` mode (the local profile, see ``profiles``) the model is never asked. A
caller's mandatory filter is always ANDed in, never replaced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel

from selfrag.errors import ConfigError, describe
from selfrag.kg.context import GraphContext
from selfrag.kg.records import RelationCondition
from selfrag.kg.schema import Relation
from selfrag.lang import QUERY_STOP, UNITS, Token, doer_of, forms, lemma, tokenize, wants_latest
from selfrag.lang.questions import (
    AUXILIARIES,
    COUNT_OPENING,
    PREPOSITIONS,
    asks_yes_or_no,
    is_request,
    positive_question,
    wh_words,
)
from selfrag.query._grounding import clauses, grounding
from selfrag.query._lexicon import CUES, ITEM_WORDS, NEGATIONS
from selfrag.query._profile import SchemaProfile, affirmed
from selfrag.query._prompt import build_messages
from selfrag.query.anchor import check_text
from selfrag.query.graph_terms import (
    Asks,
    GraphTerm,
    asks_for,
    find_graph_terms,
    has_graph_terms,
    read_graph_terms,
    validate_relations,
    without_relation_wording,
)
from selfrag.query.model import Change, Comparison, FilterNode, Operation, StructuredQuery
from selfrag.query.relax import describe as describe_node
from selfrag.query.rules import headed_attribute, read_question
from selfrag.query.translate import and_where, to_where
from selfrag.query.validate import Validated, parse_where, validate_query
from selfrag.retry import RetryPolicy, call_with_retries
from selfrag.schema import AttributeInfo, CollectionSchema
from selfrag.text import content_terms

__all__ = ["Computation", "Plan", "SelfQueryPlanner"]

Mode = Literal["auto", "llm", "rules"]

@dataclass(frozen=True)
class Plan:
    """What the retrieval step should do for one question."""

    query: StructuredQuery
    """The validated structured query (its filter excludes the mandatory filter)."""
    where: dict[str, Any] | None
    """The final Chroma ``where``: the generated filter ANDed with the mandatory one."""
    changes: list[Change] = field(default_factory=list)
    """Every repair, fallback and merge, for the trace."""
    source: Literal["llm", "rules"] = "rules"
    """Which constructor produced ``query``."""
    llm_error: str | None = None
    """Why the model's answer was not usable, when it was not."""
    terms: tuple[GraphTerm, ...] = ()
    """Conditions through the collection's knowledge graph (relations, mentions), to resolve
    before the search; ``where`` does not hold them yet."""
    latest: bool = False
    """Filters but no topic: return the newest matching documents rather than search."""
    asks: Asks = None
    """Filters that hold all the question asks: what it wants back (``selfrag.query.graph_terms.Asks``)."""
    computed: Computation | None = None
    """A superlative or an aggregate over one numeric attribute ("the cheapest", "the average
    price"): computed from what the filter selects, which no passage states."""
    whether: Whether | None = None
    """A yes/no question about the one item its filter names, asking what that item's stored
    values hold ("Did Ostby get more than 850 mm of rain in 2022?"): answered by counting."""
    unknown_names: tuple[str, ...] = ()
    """Names the question writes that are a known name and more ("Aurora Sport"): no known item.
    An answer whose cited documents never write them is about something else (not signed)."""
    negated: tuple[str, ...] = ()
    """Attributes a negated condition of the filter needs: "not patched before 2023" selects the
    records patched from 2023 on, and one never patched by neither. Whether such records exist is
    for the store to say (``selfrag.query.unrecorded``)."""

    @property
    def holds_question(self) -> bool:
        """Whether the filter holds every condition the question states: no bound left unread, no
        negation or "or" it cannot hold, no value guessed by meaning, no attribute either of two.
        A value of one record the filter selects is the answer only then."""
        return not any(c.kind in NOT_WHOLE for c in self.changes)

    def shown(self, *, explain: bool = False) -> dict[str, Any]:
        """What ``selfrag plan --json`` prints and ``POST /v1/collections/{name}/plan`` returns:
        the search text, the filter and the limit; the graph conditions and "latest first" when
        there are any; with ``explain``, the constructor, every change and the model's error."""
        row: dict[str, Any] = {"query": self.query.query, "filter": self.where, "limit": self.query.limit}
        if self.terms or self.latest:
            row.update(graph=[t.model_dump(mode="json") for t in self.terms], latest=self.latest)
        if explain:
            row.update(source=self.source, changes=[c.model_dump(mode="json") for c in self.changes], llm_error=self.llm_error)
        return row


@dataclass(frozen=True)
class Whether:
    """A yes/no question whose filter names one item (by its label, an identifier or a name) and asks what
    its stored values hold. ``subject`` selects the item's documents: its name, and a year or a date
    that locates one of its records ("in 2022"); ``predicate`` is the rest, what is asked of them.
    Yes when every one of those documents has it, no when none has; with ``any`` ("ever", "any"),
    yes when one has. Otherwise (some have, some have not) the counts answer nothing."""

    subject: FilterNode
    predicate: FilterNode
    any: bool = False


def _paired(question: str, node: FilterNode | None, schema: CollectionSchema) -> list[str]:
    """Values of one single-valued attribute joined by "and", filtered as either ("HRA … and …
    NSC"), where the question asks for what has both: "both" says so, and so does a question for
    another attribute's values ("Which PIs have an HRA grant and an NSC grant?": the PIs with
    one of each, which no one record shows). "Which grants are from HRA and NSC?" asks for the
    grants of either."""
    headed = headed_attribute(question, schema)
    if headed is not None and (h := schema.attribute(headed)) is not None and h.kind == "identifier":
        headed = None  # "Which grants …" shown by grant_number: the records themselves, one each
    both = re.search(r"\bboth\b", question, re.IGNORECASE) is not None
    out = []
    for c in clauses(node):
        if c.comparator != "in" or not isinstance(c.value, list) or len(c.value) < 2:
            continue
        attr = schema.attribute(c.attribute)
        if attr is None or attr.type != "string" or not (both or (headed is not None and headed != c.attribute)):
            continue
        spots = sorted(m.start() for v in c.value
                       if (m := re.search(rf"(?<!\w){re.escape(str(v))}(?!\w)", question, re.IGNORECASE)) is not None)
        between = question[spots[0]:spots[-1]] if len(spots) >= 2 else ""
        if re.search(r"\band\b", between, re.IGNORECASE) and not re.search(r"\b(?:or|either)\b", between, re.IGNORECASE):
            out.append(f"{c.attribute}: " + " and ".join(map(repr, c.value)))
    return out


_NEVER = re.compile(r"\bnever\b", re.IGNORECASE)
_HAVE_NO = re.compile(r"\b(?:ha(?:ve|s|d)|with|got)\s+no\b|\bwithout\s+any\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\s*how\s+many\b", re.IGNORECASE)
def _counts_every_one(question: str, schema: CollectionSchema) -> bool:
    """Whether "how many" counts every record: no word of the question is a word the
    description and the attributes speak of that is neither the records' own, nor a generic word
    for them ("results"), nor an attribute's name ("How many different destination ports …").
    Not "How many ships are still in port?" of "Port calls of ships": ships and the port are
    what the calls are of, and the question asks of some of them, which nothing reads."""
    profile = SchemaProfile(schema.scalar_view(), {})
    # The records' words: their plural and the nouns before it ("Maintenance requests").
    described = tokenize(schema.description or "")
    first = next((i for i, t in enumerate(described) if forms(t.norm) & profile.record_nouns), -1)
    own = frozenset().union(profile.record_nouns, *(forms(t.norm) for t in described[: first + 1]),
                            *(forms(n) for p in profile.attributes for n in p.name_terms))
    things = profile.item_nouns - ITEM_WORDS
    return not any(forms(t.norm) & things and not forms(t.norm) & (own | ITEM_WORDS) for t in tokenize(question)[2:])


_UNRECORDED = re.compile(r"\b(?:no|without)\b[^?.,;]*?\b(?:recorded|on\s+record|stated|specified|listed|given|known)\b",
                         re.IGNORECASE)
"""A value asked to be missing: "no follow-up recorded", "without a price stated"."""

def _either_value(node: FilterNode) -> str | None:
    """The value an "or" of the filter tests on several attributes at once ("Delgado Foods" as
    shipper or consignee); None when there is none."""
    for op in _operations(node):
        if op.operator == "or" and len(op.arguments) > 1 and all(isinstance(a, Comparison) and a.comparator == "eq"
                                                                 for a in op.arguments):
            values = {str(a.value) for a in op.arguments if isinstance(a, Comparison)}
            attributes = {a.attribute for a in op.arguments if isinstance(a, Comparison)}
            if len(values) == 1 and len(attributes) > 1:
                return values.pop()
    return None


def _operations(node: FilterNode) -> list[Operation]:
    if not isinstance(node, Operation):
        return []
    return [node, *(o for a in node.arguments for o in _operations(a))]


def _attribute_asked(question: str, node: FilterNode, schema: CollectionSchema) -> bool:
    """Whether ``question`` names, by its own name after a verb of having, an attribute (no flag)
    its filter ``node`` does not test ("have a departure date" of a boat the filter names): it asks
    of that attribute."""
    had = re.search(r"\b(?:have|has|had|got)\b", question, re.IGNORECASE)
    if had is None:
        return False
    tested = {c.attribute for c in clauses(node)}
    records = SchemaProfile(schema, {}).record_nouns | frozenset().union(*(forms(w) for w in ITEM_WORDS))
    return any(a.name not in tested and a.type != "boolean" and a.kind != "identifier"
               for a in schema.named_in(question[had.end():], items=records))


_WH_OF_ONE = frozenset({"what", "who", "whom", "whose", "when", "where", "why", "how"})


def _asks_of_one_record(question: str, node: FilterNode | None, schema: CollectionSchema, left: bool) -> bool:
    """Whether a wh-question, not "which" nor "how many", names one record by its identifier with
    words of its own ``left`` unread, or keywords ask a word of it ("translater of TJ 3430"): something of that record is asked ("What
    made Liam late for EX-2120?"), not the record itself."""
    wh = wh_words(question)
    if node is None or _HOW_MANY.match(question) or (isinstance(node, Operation) and node.operator in ("or", "not")):
        return False
    ids = {a.name for a in schema.attributes if a.kind == "identifier"}
    named = [str(c.value) for c in clauses(node) if c.attribute in ids and c.comparator == "eq"]
    if wh:
        return wh[0] in _WH_OF_ONE and bool(named) and left  # ("What is PC-3038?" asks for the record)
    # "translater of TJ 3430": a word (not the records' own, nor a word for any record) of the one
    # record, asked as keywords.
    records = SchemaProfile(schema, {}).record_nouns | frozenset().union(*(forms(w) for w in ITEM_WORDS))
    # "documents submitted with SA-7037": keywords naming an attribute of the one record ask for
    # its value, which the record listed does not show.
    attributes = {lemma(a.name.casefold()) for a in schema.attributes if a.kind != "identifier" and "_" not in a.name}
    if named and any(lemma(w.casefold()) in attributes for w in re.findall(r"[A-Za-z]+", question)):
        return True
    for value in named:
        written = r"[\s-]*".join(map(re.escape, re.findall(r"[A-Za-z0-9]+", value)))
        m = re.search(rf"(\w+)\s+(?:of|for)\s+(?:the\s+)?{written}\b", question, re.IGNORECASE)
        if m is not None and not forms(m.group(1).casefold()) & records:
            return True
    return False


_ASKS_WHEN = re.compile(r"\s*(?:when|(?:on\s+)?(?:what|which)\s+(?:date|day|year))\b", re.IGNORECASE)
NOT_WHOLE = ("negation_not_held", "ambiguous_coordination", "unread_bound", "guessed_value", "either_attribute",
             "ambiguous_name", "unrecorded_values", "exclusive_element", "another_role")
"""Changes after which the filter may not hold the question as asked: what it selects is no answer
(no listing, computation or count), though it still guides the search."""


@dataclass(frozen=True)
class Computation:
    """What a superlative or an aggregate asks of the documents the filter selects: them ranked by
    one numeric attribute (``rank``), or its mean (``average``) or sum (``total``); how many
    distinct values of a word attribute they have (``distinct``: "How many towns …?"); or the
    values of a word attribute ranked by how many of them hold each (``count_by``: "Which region
    had the most events?")."""

    op: Literal["rank", "average", "total", "distinct", "count_by"]
    attribute: str
    highest: bool
    """For a ranking: the largest value first (max); else the smallest."""
    n: int
    """How many are asked for ("the 3 cheapest"); 1 for "the cheapest"; 0 for a page of them
    ("the cheapest hotels": the run's ``top_k``)."""
    phrase: str
    """The words as written ("cheapest", "highest guest score", "average price")."""
    candidates: tuple[str, ...]
    """When its measure fits several attributes ("best rated": stars, guest_score): those, and
    ``attribute`` is "" (no ranking; an answer read from a passage is not signed)."""
    whole: bool
    """The filter and the computation hold all the question asks (nothing left to search for,
    nothing repaired, read by the rules): the computation is the answer. Otherwise it is only why an answer
    read from a passage cannot be signed."""
    compared: str = ""
    """A comparative ("Which had more rain in 2022, Ostby or Kelbridge?"): the attribute whose values
    the filter selects as the alternatives; the ranking is the answer only where each selects one
    document."""
    subject: str = ""
    """A yes/no comparison ("Did Ostby get more rain than Kelbridge in 2022?"): the alternative it
    asks about, the one named before "than". Yes when that one's value is the larger (or smaller)."""
    of: str = ""
    """A ``count_by`` of the distinct values of this attribute each value holds ("Which region has
    the most stations?" of yearly station records: stations, not records); "" counts records."""


def _without_asked(node: FilterNode | None, asked: Sequence[FilterNode], located: set[str]) -> FilterNode | None:
    """A model's filter ``node`` without its top-level conditions on what a yes/no question asks
    of the thing it names (``Reading.asked``, which the rules set aside): a model filters on the
    property asked about as readily as a reader would. Attributes in ``located`` (the rules kept a
    condition on them, one that locates the thing) stay."""
    attributes = {c.attribute for n in asked for c in clauses(n)} - located
    parts = [] if node is None else node.arguments if isinstance(node, Operation) and node.operator == "and" else [node]
    kept = [p for p in parts if not {c.attribute for c in clauses(p)} <= attributes]
    return None if not kept else kept[0] if len(kept) == 1 else Operation(operator="and", arguments=kept)


class SelfQueryPlanner:
    """Plans a filtered search for a question over a collection with a declared schema.

    Args:
        model: the chat model; None allows only rules (``mode="auto"`` then behaves as ``"rules"``).
        method: the ``with_structured_output`` method (``json_schema``, ``function_calling``, ...).
        mode: ``auto`` (model, refereed by the rules), ``llm`` (model only; an unfiltered search of
            the question if it fails) or ``rules`` (never calls the model).
        retries: further attempts after a failed model call (parse errors and transient errors only).
        today: the date relative phrases resolve against; the current date when None.
        wait_initial: first backoff wait in seconds, doubled per attempt up to ``wait_max``.
        max_limit: the largest number of results a question may ask for.
        max_values_shown: how many allowed/known values per attribute the prompt lists.
        embeddings: the collection's embedding model: links words to known values ("veggie" →
            vegetarian) and checks that a model's search text stays close to the question.
        rules_reason: why the model is not asked although one is configured (the local profile);
            recorded in every plan's changes.

    Raises:
        ConfigError: ``mode="llm"`` without a model.
    """

    def __init__(
        self,
        model: BaseChatModel | None,
        *,
        method: str = "json_schema",
        mode: Mode = "auto",
        retries: int = 3,
        today: date | None = None,
        wait_initial: float = 0.5,
        wait_max: float = 8.0,
        max_limit: int = 50,
        max_values_shown: int = 25,
        embeddings: Embeddings | None = None,
        rules_reason: str | None = None,
    ) -> None:
        if mode == "llm" and model is None:
            raise ConfigError("self-query mode 'llm' needs a chat model")
        self.model = model
        self.method = method
        self.mode: Mode = mode
        self.retries = max(0, retries)
        self.today = today
        self.wait_initial = wait_initial
        self.wait_max = wait_max
        self.max_limit = max_limit
        self.max_values_shown = max_values_shown
        self.embeddings = embeddings
        self.rules_reason = rules_reason
        self._structured: Any = None

    @property
    def asks_model(self) -> bool:
        """Whether ``plan`` calls the chat model (the one slow step of a plan)."""
        return self.mode != "rules" and self.model is not None

    def forecast(
        self, question: str, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], *, today: date | None = None
    ) -> str | None:
        """A rules-only guess at whether the plan will narrow ``question`` down: what the
        deterministic readers find in it (a filter, a limit, a date or named range, "latest"),
        or None when they find nothing, so the question is likely searched as it stands.

        Milliseconds and no model call (word-to-value links reuse the embedding cache the plan
        itself fills). A guess: the model may still add a condition the rules missed.
        """
        today = today or self.today or date.today()
        question = positive_question(question)
        scalar = schema.scalar_view()
        reading = read_question(question, scalar, catalogue, today=today, embeddings=self.embeddings)
        rules = validate_query(reading.query, scalar, catalogue, today=today, max_limit=self.max_limit, question=question)
        if rules.query.filter is not None:
            return f"the rules read a filter: {to_where(rules.query.filter)}"
        if rules.query.limit is not None:
            return f"the rules read a limit of {rules.query.limit}"
        if has_graph_terms(schema):
            extra = read_graph_terms(question, schema, None, today=today, topic_text=rules.query.query)
            if extra.filter is not None or extra.latest:
                return "the rules read a date or a named range"
        return None

    def _ask(
        self, question: str, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], today: date,
        relations: Sequence[Relation] = (),
    ) -> Any:
        assert self.model is not None
        if self._structured is None:
            # Built once: building it renders StructuredQuery's JSON schema (~10 ms of CPU, on the
            # critical path of every question otherwise). A benign race builds it twice at most.
            self._structured = self.model.with_structured_output(StructuredQuery, method=self.method)
        runnable = self._structured
        messages = build_messages(question, schema, catalogue, today, max_values=self.max_values_shown, relations=relations)
        retry = RetryPolicy(attempts=self.retries + 1, initial_wait_s=self.wait_initial, max_wait_s=self.wait_max)
        reply, _ = call_with_retries(lambda: runnable.invoke(messages), retry)
        return reply

    def _from_llm(
        self, question: str, schema: CollectionSchema, catalogue: Mapping[str, Sequence[str]], today: date,
        relations: Sequence[Relation] = (),
    ) -> tuple[Validated | None, str | None, list[object]]:
        try:
            raw = self._ask(question, schema, catalogue, today, relations)
        except Exception as exc:  # noqa: BLE001 - any model failure degrades to the rules, never crashes the plan
            return None, describe(exc, 200), []
        proposed = getattr(raw, "relations", None) if not isinstance(raw, Mapping) else raw.get("relations")
        validated = validate_query(raw, schema, catalogue, today=today, max_limit=self.max_limit, question=question)
        if not validated.usable and not proposed:
            return None, "the model's structured query had neither query text nor a usable filter", []
        return validated, None, list(proposed) if isinstance(proposed, (list, tuple)) else []

    def plan(
        self,
        question: str,
        schema: CollectionSchema,
        catalogue: Mapping[str, Sequence[str]],
        *,
        mandatory_where: dict[str, Any] | None = None,
        today: date | None = None,
        graph: GraphContext | None = None,
    ) -> Plan:
        """Plan the search for ``question``; relative dates ("the last five years") resolve against
        ``today``, else the planner's own date, else the current date. ``graph``: the collection's
        linked graph, for relation conditions and entity mentions (``Plan.terms``).

        Raises:
            InvalidFilter: ``mandatory_where`` does not fit ``schema``.
        """
        today = today or self.today or date.today()
        # "Isn't X remote?" asks whether X is remote: its "n't" negates no condition.
        question = positive_question(question)
        full = schema
        # The generic readers know scalar attributes only; dates, arrays and relations are read below.
        schema = full.scalar_view()
        mandatory = to_where(parse_where(mandatory_where, full)) if mandatory_where is not None else None
        llm: Validated | None = None
        llm_error: str | None = None
        proposed: list[object] = []
        if self.mode != "rules" and self.model is not None:
            relations = graph.link.relations if graph is not None else ()
            llm, llm_error, proposed = self._from_llm(question, schema, catalogue, today, relations)
        # The readers below read what descriptions affirm; the model above saw them whole (and the
        # rules' reader cuts them itself, keeping what the cut clauses say of missing values).
        unaffirmed = full
        full = affirmed(full)
        schema = full.scalar_view()
        found: list[GraphTerm] = []
        found_changes: list[Change] = []
        generic_question = question
        if graph is not None:
            found, found_changes, generic_question = find_graph_terms(question, full, graph)
        reading = read_question(generic_question, unaffirmed.scalar_view(), catalogue, today=today,
                                embeddings=self.embeddings, full=unaffirmed)
        # The rules' filter may test a list's elements too (``contains``), which no other reader here does.
        rules = validate_query(reading.query, full.scalar_view(lists=True), catalogue, today=today, max_limit=self.max_limit,
                               question=question)
        chosen, source, note = self._choose(question, llm, llm_error, rules, today)
        changes = list(chosen.changes) + ([note] if note else [])
        query = chosen.query
        if reading.asked:
            if source == "llm":
                located = {c.attribute for c in clauses(rules.query.filter)}
                query = query.model_copy(update={"filter": _without_asked(query.filter, reading.asked, located)})
            changes.extend(Change(kind="asked_property", detail=f"{describe_node(n)}: what the question asks of "
                                  f"{reading.subject!r}, searched, not filtered") for n in reading.asked)
        if source == "rules":
            changes.extend(Change(kind="unread_bound", detail=f"{note}; not filtered") for note in reading.unread)
            changes.extend(Change(kind="guessed_value", detail=f"{note}: a guess by meaning; filtered, nothing "
                                  "computed from it is the answer") for note in reading.guessed)
            changes.extend(Change(kind="either_attribute", detail=f"{note}: the question's words name one of them, "
                                  "which is not said; both searched, nothing computed from them is the answer")
                           for note in reading.either)
            changes.extend(Change(kind="ambiguous_name", detail=f"{note}: which one is meant is not said; filtered, "
                                  "nothing computed from it is the answer") for note in reading.ambiguous)
            changes.extend(Change(kind="ambiguous_coordination", detail=f"{note}: both held together, which the "
                                  "question did not say; nothing computed from the filter is the answer")
                           for note in reading.coordinated)
            # A graph term set aside ("not based in Japan", ``graph_terms``) holds its negation itself.
            changes.extend(Change(kind="negation_not_held", detail=f"{word!r}: a negation no condition holds; "
                                  "nothing computed from the filter is the answer")
                           for word in (reading.unheld_negations if not any(t.excluded for t in found) else ()))
            changes.extend(Change(kind="exclusive_element", detail=f"{note!r}: asked as the only element, which the "
                                  "filter holds as one of them; nothing computed from it is the answer")
                           for note in reading.exclusive)
        changes.extend(Change(kind="ambiguous_coordination", detail=f"{note}: records of each, which one filter cannot "
                              "pair; filtered as either") for note in _paired(question, query.filter, full))
        if source == "llm":
            # The model's search text must stay on the question; else the question minus its filter phrases.
            check = check_text(query.query, question, embeddings=self.embeddings)
            if not check.ok:
                fallback = rules.query.query or question
                changes.append(Change(kind="grounded_query", detail=f"model's search text {query.query[:80]!r} not used "
                                      f"({check.reason}); searching for {fallback!r}"))
                query = query.model_copy(update={"query": fallback})
        if not query.query.strip():
            query = query.model_copy(update={"query": rules.query.query or question})
        terms: list[GraphTerm] = []
        latest = False
        asks: Asks = None
        negated = list(chosen.negated)
        if has_graph_terms(full):
            extra = read_graph_terms(question, full, graph, today=today, topic_text=rules.query.query, terms=found,
                                     filters_elsewhere=query.filter is not None,
                                     consumed=reading.consumed if source == "rules" and generic_question == question else ())
            terms, latest, asks = list(extra.terms), extra.latest, extra.asks
            changes.extend([*found_changes, *extra.changes])
            negated.extend(extra.negated)
            if graph is not None and source == "llm" and proposed:
                # The model's relation conditions, checked; the recogniser's mentions stay.
                checked, dropped = validate_relations(proposed, graph)
                changes.extend(dropped)
                # A model's relation conditions cannot say "not": where the question negates one,
                # the recogniser's reading of it stands.
                if checked and not any(t.excluded for t in terms):
                    terms = [t for t in terms if t.kind == "mention"] + checked
                    if asks is not None:  # still no topic; the model's relations may head it otherwise
                        asks = asks_for(question, terms)
            # Flat conjuncts: relaxation drops one top-level condition at a time.
            nodes = [a for n in (query.filter, extra.filter) if n is not None
                     for a in (n.arguments if isinstance(n, Operation) and n.operator == "and" else [n])]
            combined = None if not nodes else nodes[0] if len(nodes) == 1 else Operation(operator="and", arguments=nodes)
            query = query.model_copy(update={
                "filter": combined,
                "relations": [RelationCondition(relation=t.relation, value=t.value) for t in terms if t.relation],
                # The search text is what documents are judged against: not the filter's words again.
                "query": without_relation_wording(query.query, question, terms),
            })
        if query.filter is not None and (role := _another_role(question, query.filter, full)) is not None:
            changes.append(Change(kind="another_role", detail=role))
        if query.filter is not None and (either := _value_or_measure(question, query.filter, full)) is not None:
            changes.append(Change(kind="either_attribute", detail=either))
        if query.filter is not None and (reading.aggregate is not None or reading.extreme is not None) \
                and (both := _either_value(query.filter)) is not None:
            # "the total freight charge of the Delgado Foods shipments": as shipper or as consignee,
            # which the question does not say; a figure over both is no answer.
            changes.append(Change(kind="either_attribute", detail=f"{both!r} is held by any of several attributes; "
                                  "which one the question means is not said; nothing computed from the filter is the answer"))
        if query.filter is not None and _UNRECORDED.search(question):
            # "Which appointments have no follow-up recorded?": the records without a value, which
            # no filter selects (the store has no test for a missing value), not those holding "no".
            changes.append(Change(kind="unrecorded_values", detail="'no … recorded' asks for the records that hold no "
                                  "value, which no filter selects; nothing computed from the filter is the answer"))
        if any(c.kind in NOT_WHOLE for c in changes):
            # The question negates something no filter holds, joins two conditions with an "and"
            # that may mean either, bounds something no attribute holds, or names a value only
            # guessed by meaning: what the filters select is no answer.
            asks = None
        if asks in ("documents", "entities_and_documents") and source != "rules":
            # What is left of the question (its topic) was read against the rules' filter; the
            # model's filter may hold less of it ("layoffs" dropped), so its matches are no answer.
            asks = None
        # "Which town …?" names the attribute each document the answer shows is shown by.
        headed = headed_attribute(question, full)
        if headed is not None and (_NEVER.search(question) or (_HAVE_NO.search(question) and query.filter is not None
                                                               and (_negated(query.filter) or any(
                                                                   c.comparator == "eq" and c.value is False
                                                                   for c in clauses(query.filter))))) \
                and (h := full.attribute(headed)) is not None and h.kind != "identifier":
            # ("Which drivers have no cancelled orders?": likewise, none of each driver's orders.)
            # "Which stations never had a mean below 5 °C?": of each station's every record, which a
            # filter of records does not hold (a station of 4 °C one year and 6 °C the next is listed).
            changes.append(Change(kind="negation_not_held", detail=f"'never' of each {headed}'s every record: "
                                  "a filter holds it of each record apart; nothing computed from it is the answer"))
        elif _NEVER.search(question) and any(c.comparator in ("ne", "nin") and (state := full.attribute(c.attribute)) is not None
                                             and state.type == "string" and state.kind not in ("name", "identifier", "place")
                                             for c in clauses(query.filter)):
            # "Which food service loans were never approved?": a status holds one state at a time,
            # not its history (a loan repaid was approved once).
            changes.append(Change(kind="negation_not_held", detail="'never' of a state a record holds one of at a "
                                  "time: its history is not recorded; nothing computed from the filter is the answer"))
            asks = None
        elif wants_latest(question) and (reading.extreme is None or not reading.extreme.attribute) \
                and (thing := _dated_thing(question, full)) is not None:
            # "the newest film in the competition" of screenings: the film's year (premiere_year,
            # "year the film premiered"), or the screening's date; which one is not said.
            changes.append(Change(kind="either_attribute", detail=f"'newest' of {thing!r}: its own year or the latest "
                                  "record, which is not said; nothing computed from the filter is the answer"))
            asks = None
        elif query.filter is not None and wants_latest(question) and _kind_named(question, query.filter, full):
            # "newest truck?": the truck built last, or the truck's latest record; which is not said.
            changes.append(Change(kind="either_attribute", detail="'newest' of a kind of item: its own year or its "
                                  "latest record, which is not said; nothing computed from the filter is the answer"))
            asks = None
        elif query.filter is not None and (_NEVER.search(question) or _negated(query.filter)) \
                and _kind_headed(question, query.filter, full):
            # "Which trucks were never serviced at Orchard?", "Which vans did not have a brake
            # service?": trucks, each with many records, not the records (a truck serviced at
            # Harbour and at Orchard has a record not at Orchard).
            changes.append(Change(kind="negation_not_held", detail="'never' of each item's every record: a filter "
                                  "holds it of each record apart; nothing computed from it is the answer"))
            asks = None
        if asks is None and not terms and source == "rules" and query.filter is not None and not reading.residual \
                and not rules.changes and not any(c.kind in NOT_WHOLE for c in changes) and not _names_unfiltered(question, schema, query.filter, ranked=[headed] if headed else []) \
                and (is_request(question) or not reading.leftover):
            # Any schema: the rules' filter holds the whole question, nothing left to search for
            # ("3 bedroom houses under 500k"), and validation repaired nothing in it. A question
            # (not a request) with a word of its own left, even one a search drops ("What is the
            # Duo 14 good for?", "What did the 2019 trial show?"), asks about what the filter
            # selects, not for it. "Which laptops have HDMI ports?" asks for the items it selects.
            asks = asks_for(question, ()) or ("documents" if (reading.which_items or headed) and len(wh_words(question)) == 1
                                              else None)
        if asks is None and query.filter is None and not terms and source == "rules" and _HOW_MANY.match(question) \
                and not reading.residual and not reading.leftover and not reading.unknown_names and not rules.changes \
                and reading.extreme is None and reading.aggregate is None and not any(c.kind in NOT_WHOLE for c in changes) \
                and _counts_every_one(question, full):
            # "How many cases are there?", "How many different judges are there?": no condition
            # and no word left, so of every record (the records themselves, or the distinct values
            # of the word attribute named, below).
            asks = "documents"
        if asks == "documents" and asks_yes_or_no(question) and query.filter is not None \
                and _attribute_asked(question, query.filter, full):
            # "Does Plover have a departure date?": whether its record holds one, not whether it
            # exists.
            asks = None
        if asks == "documents" and source == "rules" and _asks_of_one_record(question, query.filter, full,
                                                                             bool(reading.residual or reading.leftover)):
            # "What was the last port of call of PC-3038?": something of the one record its
            # identifier names, which the record listed is not.
            asks = None
        items = SchemaProfile(schema.scalar_view(), {}).item_nouns | frozenset().union(*(forms(w) for w in ITEM_WORDS))
        # "How many battery replacements …": a value of the headed attribute is a condition on it,
        # so the count is of the matches, not of the values the filter already fixed.
        distinct = (_distinct(question, full, headed) if asks == "documents" and not terms
                    and headed not in {c.attribute for c in clauses(query.filter)}
                    and not _counted_word_taken(question, [*reading.consumed, *reading.dated]) else None)
        # A value of the item's own name ("How many Golfs …") may be a figure the record states.
        naming = {x.name for x in full.attributes if x.kind in ("name", "identifier")}
        named = any(c.attribute in naming for c in clauses(query.filter))
        if asks == "documents" and not terms and not _asks_for_items(question, [*reading.consumed, *reading.dated], items,
                                                                     existing=not named):
            asks = None  # "How many BrightBrew Coffee Makers were recalled?": units, not notices
        computed: Computation | None = None
        date_attr = full.date_attribute
        e = reading.extreme
        newest = (latest and e is not None and e.highest and date_attr is not None
                  and date_attr.name in (e.attribute, *e.candidates))
        # "The latest news about X" is the newest matches first, read from every match's date
        # (``latest``): already the ranking it asks for. A superlative no attribute measures
        # within the one document the filter names ("the best thing about the Boston Knights")
        # is that document's to say.
        within = e is not None and not e.attribute and not e.candidates and _names_one(query.filter, schema)
        compared = _alternatives(query.filter) if e is not None and e.comparative else ""
        if e is not None and e.comparative and not compared:
            e = None  # "cheaper than the Hilton": no alternatives the filter selects to compare
        # "lightest shipment?", "Cheapest hotel in Rome?": a noun phrase headed by its superlative
        # asks which, not whether one exists.
        yes_no = asks_yes_or_no(question) and not (
            e is not None and not e.comparative and question[:e.span[0]].strip().casefold() in ("", "the"))
        if e is None and asks == "documents" and _COMPARING.search(question) and _alternatives(query.filter):
            # "Which enrolled more participants, NCT-7004 or NCT-7010?" with no measure read: the
            # two it selects, listed, name no winner.
            asks = None
        subject, choice = _compared_sides(question, query.filter, compared) if compared and yes_no else ("", False)
        if (e is not None and not newest and not within) or reading.aggregate is not None:
            # A ranking or an aggregate, never a listing: the matching documents as they come
            # would answer "which is the cheapest" or "the average price" with all of them.
            # Never a yes/no question: "Is the Ibis the cheapest hotel in Rome?" ranks the one
            # hotel its name selects, and "the lowest of 1" answers nothing asked.
            # A date superlative's words stay in the search text for the date readers ("the
            # earliest inspection"): they are no topic left.
            # "What is the most common event type?": the attribute a count ranks the values of may
            # be named right after it, when the question is headed by none ("Which region …").
            after = question[e.span[1]:].strip().rstrip("?").strip() if e is not None and e.counted else ""
            counted_by = headed if headed is not None or not after else headed_attribute(f"Which {after}?", full)
            doer = None
            if counted_by is None and e is not None and e.counted:
                # "Who handled the most claims?": the adjuster, and "handled" is its verb.
                doer = _doer(question, full)
                counted_by = doer[0] if doer is not None else None
            left = reading.residual and content_terms(reading.residual) - (
                content_terms(reading.extreme.phrase) if reading.extreme is not None else set()) - (
                content_terms(after) if counted_by is not None and counted_by != headed and doer is None else set()) - (
                content_terms(doer[1]) if doer is not None else set())
            # "When did the most expensive incident start?" asks its date, which a ranking by cost
            # does not give: whole only when the ranking is by a date.
            ranked = full.attribute(e.attribute) if e is not None and e.attribute else None
            dated = ranked is not None and ranked.kind in ("date", "year")
            whole = (source == "rules" and not terms and not left and not rules.changes
                     and (_ASKS_WHEN.match(question) is None or dated)
                     and (not yes_no or bool(subject) or choice)
                     and (e is None or reading.aggregate is None)
                     and not any(c.kind in NOT_WHOLE
                                 for c in changes))
            if e is not None and e.counted:
                # "Which region had the most events?": the values of the attribute asked for, by
                # how many matches hold each. Not of an identifier (one record each) nor without
                # an attribute asked ("Who had the most …" of no attribute read): nothing counts.
                grouped = full.attribute(counted_by) if counted_by is not None else None
                counts = grouped is not None and grouped.type in ("string", "string[]") and grouped.kind != "identifier"
                computed = Computation(op="count_by", attribute=grouped.name if grouped is not None and counts else "",
                                       highest=e.highest, n=query.limit or 1, phrase=e.phrase, candidates=(),
                                       whole=whole and counts and not yes_no,
                                       of=_counted_values(e.phrase, full, grouped.name if grouped is not None else ""))
            elif e is not None and not newest and not within:
                computed = Computation(op="rank", attribute=e.attribute, highest=e.highest,
                                       n=1 if compared else query.limit or (0 if e.several else 1), phrase=e.phrase,
                                       candidates=e.candidates, whole=whole and bool(e.attribute), compared=compared,
                                       subject=subject)
            elif reading.aggregate is not None:
                a = reading.aggregate
                computed = Computation(op=a.op, attribute=a.attribute, highest=False, n=0, phrase=a.phrase,
                                       candidates=(), whole=whole and query.limit is None)
            assert computed is not None
            # What a ranking names each document by ("Which site …?") is in its answer too.
            held = (computed.attribute, schema.label_attribute if computed.op == "rank" else None, headed, computed.of)
            computed = replace(computed, whole=computed.whole and not _names_unfiltered(
                question, schema, query.filter, ranked=[h for h in held if h]))
            asks = None
            by = computed.attribute or " or ".join(computed.candidates) + " (which one is not said)"
            what = (f"{'highest' if computed.highest else 'lowest'} {by} first" if computed.op == "rank"
                    else f"each {by} by how many matches hold it, {'most' if computed.highest else 'fewest'} first"
                    if computed.op == "count_by" else f"the {computed.op} of {by}")
            changes.append(Change(kind="computed", detail=f"{computed.phrase!r}: {what}"
                                  + ("" if computed.whole else "; the question asks more than the filter and this hold")))
        if computed is None and distinct is not None:
            # "How many towns got more than 900 mm?": the towns among the matches, not the records
            # (a town has one a year).
            computed, asks = distinct, None
            changes.append(Change(kind="computed", detail=f"{distinct.phrase!r}: the number of distinct {distinct.attribute}"))
        whether = None
        if asks in (None, "documents") and computed is None and not terms and source == "rules" and query.filter is not None \
                and not reading.residual and not reading.leftover and not rules.changes and asks_yes_or_no(question) \
                and not any(c.kind in NOT_WHOLE for c in changes) \
                and not _names_unfiltered(question, schema, query.filter):
            whether = _whether(question, query.filter, full)
        elif asks in (None, "documents") and computed is None and not terms and source == "rules" and reading.asked \
                and query.filter is not None and _names_one(query.filter, full) and not rules.changes \
                and asks_yes_or_no(question) and not any(c.kind in NOT_WHOLE for c in changes) \
                and not _beyond_conditions(reading.residual, reading.asked, full):
            # "Did INC-2028 cost more than $400,000?": what is asked of the one record its
            # identifier names, set aside from the filter, is counted on that record.
            whether = Whether(subject=query.filter, predicate=_conjoin(reading.asked), any=False)
        if whether is not None:
            # "Is the Pebble Rattle a fire hazard?": what the rattle's notice says, shown, rather
            # than whether any notice of a fire-hazard rattle exists.
            asks = None
            changes.append(Change(kind="computed", detail=f"whether {describe_node(whether.subject)} has "
                                  f"{describe_node(whether.predicate)}: counted"))
        where = and_where(mandatory, to_where(query.filter))
        if self.rules_reason and source == "rules":
            changes.insert(0, Change(kind="model_not_asked", detail=self.rules_reason))
        if mandatory is not None:
            changes.append(Change(kind="merged_mandatory", detail=f"mandatory filter ANDed in: {mandatory}"))
        return Plan(query=query, where=where, changes=changes, source=source, llm_error=llm_error, terms=tuple(terms),
                    latest=latest, asks=asks, computed=computed, whether=whether,
                    unknown_names=tuple(reading.unknown_names), negated=tuple(dict.fromkeys(negated)))

    def _choose(
        self, question: str, llm: Validated | None, llm_error: str | None, rules: Validated, today: date
    ) -> tuple[Validated, Literal["llm", "rules"], Change | None]:
        if self.mode == "rules" or (self.model is None and self.mode == "auto"):
            return rules, "rules", None
        if llm is None:
            if self.mode == "llm":
                plain = Validated(StructuredQuery(query=question), [], usable=True)
                return plain, "llm", Change(kind="fallback", detail=f"model failed ({llm_error}); unfiltered search")
            return rules, "rules", Change(kind="fallback", detail=f"model failed ({llm_error}); used the rule-based query")
        if self.mode == "llm":
            return llm, "llm", None
        # Score = supported conditions minus unsupported ones: an invented condition costs as much as a real one gains.
        scores = {}
        for name, v in (("llm", llm), ("rules", rules)):
            total = sum(1 for _ in clauses(v.query.filter))
            supported = grounding(v.query.filter, question, today=today)
            scores[name] = (supported - (total - supported), supported, total)
        if scores["rules"][0] > scores["llm"][0]:
            (_, rs, rt), (_, ls, lt) = scores["rules"], scores["llm"]
            detail = f"rule-based filter better grounded in the question ({rs}/{rt} conditions supported vs model's {ls}/{lt})"
            return rules, "rules", Change(kind="fallback", detail=detail)
        return llm, "llm", None


_COMPARING = re.compile(r"\b(?:more|less|fewer|better|worse)\b(?!\s+than\s+[$€£¥]?\d)|\b\w+er\s+than\b", re.IGNORECASE)
"""A comparison's word, not a bound's ("more than 50")."""


def _alternatives(node: FilterNode | None) -> str:
    """The attribute of a top-level ``in`` (or an ``or`` of ``eq``) on two or more values of one
    string attribute: the alternatives a comparative compares ("Ostby or Kelbridge"); "" for none."""
    conjuncts = node.arguments if isinstance(node, Operation) and node.operator == "and" else [node] if node else []
    for c in conjuncts:
        if isinstance(c, Comparison) and c.comparator == "in" and isinstance(c.value, list) and len(c.value) >= 2 \
                and all(isinstance(v, str) for v in c.value):
            return c.attribute
        if isinstance(c, Operation) and c.operator == "or" and len(c.arguments) >= 2 and all(
                isinstance(a, Comparison) and a.comparator == "eq" and isinstance(a.value, str) for a in c.arguments) \
                and len({a.attribute for a in c.arguments if isinstance(a, Comparison)}) == 1:
            first = c.arguments[0]
            assert isinstance(first, Comparison)
            return first.attribute
    return ""


def _compared_sides(question: str, node: FilterNode | None, attribute: str) -> tuple[str, bool]:
    """How a yes/no question sets the two alternatives of ``attribute`` its filter selects against
    each other: ``(subject, False)`` for "Did <subject> get more rain than <other>?" (the subject
    named before "than", the other after it), ``("", True)`` for a choice asked with "did"
    ("Did Ostby or Kelbridge get more rain?": which, not whether), ``("", False)`` for any other
    (the comparison is then no answer: "Did Ostby get more rain than usual?")."""
    found: list[object] = next((list(c.value) for c in clauses(node) if c.attribute == attribute
                                and c.comparator == "in" and isinstance(c.value, list)), [])
    found = found or [c.value for c in clauses(node) if c.attribute == attribute and c.comparator == "eq"]
    values = [v for v in found if isinstance(v, str)]
    if len(values) != 2 or len(found) != 2:
        return "", False
    where: dict[str, int] = {}
    for v in values:
        hits = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(v)}(?!\w)", question, re.IGNORECASE)]
        if len(hits) != 1:
            return "", False  # named twice, or not as stored (a typo the reader mended): unsure which is which
        where[v] = hits[0]
    (first, at), (other, later) = sorted(where.items(), key=lambda kv: kv[1])
    between = question[at + len(first):later]
    than = re.compile(r"(?<!\w)than(?!\w)", re.IGNORECASE)
    thans = len(than.findall(between))
    if thans == 1 and not than.search(question[later:]):
        return first, False
    if not thans and re.fullmatch(r"\s*,?\s*or\s*", between, re.IGNORECASE):
        return "", True
    return "", False


_NAMING_WORDS = frozenset({"name", "names", "id", "code", "title", "number"})
"""Words of an attribute's name that say it names its item ("station_name", "station_id")."""


def _counted_values(phrase: str, schema: CollectionSchema, grouped: str) -> str:
    """The attribute whose distinct values "the most <word>" counts, when its word names one
    other than ``grouped`` and no identifier (records are one an identifier each): "the most
    stations" of yearly station records counts station. "" counts records."""
    words = re.findall(r"[a-z]+", phrase.casefold())
    if not words:
        return ""
    said = forms(words[-1])
    if said & SchemaProfile(schema, {}).record_nouns:
        return ""  # "the most procedures" of surgical procedures: the records, not procedure's values
    for a in schema.attributes:
        if a.name == grouped or a.type not in ("string", "string[]") or a.kind == "identifier":
            continue
        own = [w for w in re.split(r"[_\W]+", a.name.casefold()) if w and w not in _NAMING_WORDS]
        if len(own) == 1 and forms(own[0]) & said:
            return a.name
    return ""


def _doer(question: str, schema: CollectionSchema) -> tuple[str, str] | None:
    """The one name attribute a "Who <verb> …?" question asks for, and the verb: the one whose
    description uses the verb ("Who handled the most claims?": adjuster, "the adjuster who handled
    the claim") or whose name is the verb's doer ("Who inspected …": inspector); None when none or
    several."""
    tokens = tokenize(question)
    if len(tokens) < 2 or tokens[0].norm != "who" or tokens[1].norm in QUERY_STOP or not tokens[1].norm.isalpha():
        return None
    verb = tokens[1]
    said = forms(verb.norm)

    def does(a: AttributeInfo) -> bool:
        words = re.findall(r"[a-z]+", f"{a.name.replace('_', ' ')} {a.description or ''}".casefold())
        return any(forms(w) & said for w in words) or any(doer_of(w, verb.text) for w in re.split(r"[_\W]+", a.name.casefold()))

    people = [a for a in schema.attributes if a.type in ("string", "string[]") and a.kind == "name" and does(a)]
    return (people[0].name, verb.text) if len(people) == 1 else None


def _counted_word_taken(question: str, consumed: Sequence[tuple[int, int]]) -> bool:
    """Whether the word "how many" counts is part of a condition's value ("How many battery
    replacements …" of the service type "battery replacement"): the matches are counted."""
    tokens = tokenize(question)
    if len(tokens) < 3 or (tokens[0].norm, tokens[1].norm) != ("how", "many"):
        return False
    phrase = []
    for tok in tokens[2:]:
        if tok.norm in AUXILIARIES or tok.norm in PREPOSITIONS or tok.norm in QUERY_STOP or not tok.norm.isalpha() \
                or (lemma(tok.norm) != tok.norm and not tok.norm.endswith("s")):
            break  # the noun phrase ends at its verb
        phrase.append(tok)
    # The phrase's last word is what it counts: "coast towns" counts towns, whatever took "coast".
    return bool(phrase) and any(a <= phrase[-1].start < b for a, b in consumed)


def _kind_named(question: str, node: FilterNode, schema: CollectionSchema) -> bool:
    """Whether the filter holds a condition whose value is a kind of the items, written as such
    ("newest truck?" of the fleet's "vans and trucks"): a thing with records of its own."""
    items = SchemaProfile(schema, {}).item_nouns
    written = {t.norm for t in tokenize(question)}
    return any(isinstance(c.value, str) and c.comparator == "eq" and forms(c.value.casefold()) & items
               and forms(c.value.casefold()) & frozenset().union(*(forms(w) for w in written))
               for c in clauses(node))


def _negated(node: FilterNode) -> bool:
    """Whether a filter holds a negated condition ("not at Orchard", "without a battery")."""
    return any(c.comparator in ("ne", "nin", "not_contains") for c in clauses(node)) or (
        isinstance(node, Operation) and (node.operator == "not" or any(_negated(a) for a in node.arguments)))


def _kind_headed(question: str, node: FilterNode, schema: CollectionSchema) -> bool:
    """Whether the word a "which"/"what"/"how many" question is headed by is the value of a
    condition on a category that the collection names its things by ("Which trucks …" of
    vehicle_class truck): a kind of thing the records are about, not the records themselves."""
    tokens = tokenize(question)
    start = 2 if len(tokens) > 2 and (tokens[0].norm, tokens[1].norm) == ("how", "many") else 1
    if len(tokens) <= start or tokens[0].norm not in ("which", "what", "how"):
        return False
    phrase = []
    for tok in tokens[start:]:
        if tok.norm in AUXILIARIES or tok.norm in PREPOSITIONS or tok.norm in NEGATIONS or tok.norm in ("the", "a", "an", "to", "of") \
                or not tok.norm.isalpha() or (lemma(tok.norm) != tok.norm and not tok.norm.endswith("s")):
            break  # the noun phrase ends at its verb
        phrase.append(tok)
    if not phrase:
        return False
    head = forms(phrase[-1].norm)  # "Which approved loans …": loans, approved only qualifies them
    # A kind the collection's description names its records' things by ("the fleet's vans and
    # trucks", each with many service records), not a kind of the records themselves ("Which SUVs
    # are not hybrid?" of cars in stock, one record each).
    items = SchemaProfile(schema, {}).item_nouns
    return any(isinstance(c.value, str) and forms(c.value.casefold()) & head & items
               and (a := schema.attribute(c.attribute)) is not None and a.kind not in ("identifier", "name")
               for c in clauses(node) if isinstance(c, Comparison) and c.comparator == "eq")


def _distinct(question: str, schema: CollectionSchema, headed: str | None) -> Computation | None:
    """A "how many" question that counts the values of a word attribute its filter leaves open
    ("How many towns have the Harrow Fen station?"): the number of distinct values among the
    matches. Not of an identifier, whose values are the documents."""
    attr = schema.attribute(headed) if headed is not None else None
    if attr is None or attr.type not in ("string", "string[]") or attr.kind == "identifier":
        return None
    tokens = tokenize(question)
    if len(tokens) < 3 or (tokens[0].norm, tokens[1].norm) != ("how", "many"):
        return None
    return Computation(op="distinct", attribute=attr.name, highest=False, n=0, phrase=f"how many {attr.name}",
                       candidates=(), whole=True)


def _asks_for_items(question: str, consumed: Sequence[tuple[int, int]], items: frozenset[str], *,
                    existing: bool = False) -> bool:
    """Whether a "how many"/"what" question whose filter holds it asks for the items that filter
    selects. Not when the phrase it counts ends in a word a value took: "How many BrightBrew
    Coffee Makers were recalled?" asks how many units (a figure of the notice), "How many fires
    were reported?" how many fires; "How many Kestrel Home recalls …" counts recalls (``items``:
    the collection's words for its items, and the generic ones). Nor "What
    did …?", which asks what something did ("What did the batteries leak onto?"); the caller leaves
    graph questions alone, whose news are what the entities did ("What did X's investors announce?")."""
    tokens = tokenize(question)
    if len(tokens) > 2 and tokens[0].norm == "how" and tokens[1].norm == "many":
        start = 2
    elif len(tokens) > 1 and tokens[0].norm == "what":
        if tokens[1].norm in ("did", "does", "do"):
            return False
        start = 1
    else:
        return True
    phrase = []
    for tok in tokens[start:]:
        if tok.norm in AUXILIARIES or tok.norm in PREPOSITIONS or tok.norm in ("the", "a", "an"):
            break
        phrase.append(tok)

    def taken(tok: Token) -> bool:
        return any(a <= tok.start < b for a, b in consumed)

    # A word for the items counts them, whatever follows ("How many recalls affected more than
    # 50,000 units?"); otherwise the phrase's last word is what it counts.
    if any(forms(t.norm) & items and not taken(t) for t in phrase):
        return True
    if existing and phrase and tokens[0].norm == "how":
        # "How many hatchbacks are there?", "… do you have?": nothing follows the value but that
        # they exist (or more conditions), so it counts what the value selects. ``existing``: the
        # filter names no one item by its name, whose figures a record may state.
        rest = tokens[start + len(phrase):]
        # "… in total" / "… in all" at the end says the same of a count.
        in_all = tokens[-1] if len(tokens) > 1 and tokens[-2].norm == "in" and tokens[-1].norm in ("total", "all") else None
        if all((t.norm in QUERY_STOP and t.norm not in NEGATIONS) or taken(t) or not t.norm.isalnum() or t is in_all
               for t in rest):
            return True
    return not phrase or not taken(phrase[-1])


_PERSON = re.compile(r"\b(?:who|whom|person|people)\b", re.IGNORECASE)
"""A name attribute's description that says it names a person in a role ("person who gives the talk")."""
_THERE = re.compile(r"\s*(?:is|are|was|were)\s+there\b", re.IGNORECASE)
_EVER = re.compile(r"\b(?:ever|any|at any time)\b", re.IGNORECASE)


def _another_role(question: str, node: FilterNode, schema: CollectionSchema) -> str | None:
    """Why the filter's person is asked of another role than the one it holds them in, or None:
    the verb the person does is the doer's verb of another name attribute, not of the one that
    holds them ("Did Sara Lind observe any sightings?": observer, while she is a verifier). What
    the filter selects then answers another question: she verified them."""
    people = {a.name for a in schema.attributes if a.type in ("string", "string[]") and a.kind == "name"}
    held = {c.attribute for c in clauses(node)}
    naming = {a.name for a in schema.attributes if a.kind in ("name", "identifier")}
    for c in clauses(node):
        if c.attribute not in people or c.comparator not in ("eq", "contains") or not isinstance(c.value, str):
            continue
        if any(o.attribute in naming and o.attribute != c.attribute for o in clauses(node)):
            # "What year did Elena Rose publish Fields of Amber?": the record is named; the person
            # only locates it, and an author "publishes" as a publisher does.
            continue
        verb = _done_by(question, c.value)
        described = (attr.description or "") if (attr := schema.attribute(c.attribute)) is not None else ""
        if verb is None or any(doer_of(word, verb) for word in re.split(r"[_\W]+", c.attribute.casefold())) \
                or forms(verb) & frozenset().union(*(forms(w) for w in re.findall(r"[a-z]+", described.casefold()))):
            continue  # "did Sara Lind verify": her own role's verb; "the inspected restaurant": done to it
        doers = [b for b in sorted(people - held) if any(doer_of(word, verb) for word in re.split(r"[_\W]+", b.casefold()))]
        if doers:
            return (f"{verb!r} is what the {doers[0]} does, and the filter holds {c.value!r} as {c.attribute}: "
                    "what it selects answers another question; nothing computed from it is the answer")
    return None


def _dated_thing(question: str, schema: CollectionSchema) -> str | None:
    """The noun after "newest"/"latest"/"oldest" when it is not the records' own word but the
    thing a year attribute is the year of ("film" of "year the film premiered"); None otherwise."""
    m = re.search(r"\b(?:newest|latest|most\s+recent|oldest|earliest)\s+([a-z]+)", question, re.IGNORECASE)
    if m is None:
        return None
    noun = m.group(1).casefold()
    profile = SchemaProfile(schema, {})
    if forms(noun) & profile.record_nouns:
        return None
    dated = [a for a in schema.attributes if a.kind == "year"
             and forms(noun) & set(re.findall(r"[a-z]+", (a.description or "").casefold()))]
    return noun if dated else None


def _measure_named(said: list[str], name: list[str]) -> bool:
    """Whether the words ``said`` (lemmas) are the attribute name ``name`` but for its unit."""
    return bool(said) and [lemma(w) for w in name[:len(said)]] == said \
        and all(w in UNITS or len(w) <= 2 for w in name[len(said):])


def _value_or_measure(question: str, node: FilterNode, schema: CollectionSchema) -> str | None:
    """Why a word value the filter holds may instead name a number attribute ("glucose LS-3104",
    "What was the creatinine of LS-3410?": an element of tests_ordered, or glucose_mg_dl's value):
    the value's own words are that attribute's name, and the question uses no word of the value's
    attribute ("ordered", "tests") to say it is the one. None when no value is such a name."""
    items = SchemaProfile(schema, {}).item_nouns
    asked = content_terms(question) - content_terms(" ".join(items))
    for c in clauses(node):
        attr = schema.attribute(c.attribute)
        if not isinstance(c.value, str) or attr is None or attr.type not in ("string", "string[]") \
                or attr.kind in ("name", "identifier"):
            continue
        # The value's words are the number attribute's name but its unit ("glucose" of
        # glucose_mg_dl): not a name with a word of its own beside them ("approved" of approved_amount).
        said = [lemma(w) for w in re.findall(r"[a-z0-9]+", c.value.casefold())]
        measures = [a.name for a in schema.attributes
                    if a.type in ("integer", "float") and _measure_named(said, re.split(r"[_\W]+", a.name.casefold()))]
        own = content_terms(f"{attr.name.replace('_', ' ')} {attr.description or ''}") - content_terms(c.value)
        if measures and not (asked & own):
            return (f"{c.value!r}: a value of {attr.name} or the question's {' or '.join(measures)}, which is not "
                    "said; nothing computed from the filter is the answer")
    return None


def _done_by(question: str, name: str) -> str | None:
    """The verb ``name`` does in ``question``: after an auxiliary that makes it the subject ("Did
    Sara Lind observe", "has Sara Lind observed"), before "by" it ("sightings observed by Sara
    Lind"), or a past form right after it with no "by" before ("sightings Sara Lind observed").
    None otherwise: "books by Elena Rose published in the 2020s" says who wrote them, and
    "published" is what was done to the books."""
    named = re.escape(name)
    if m := re.search(rf"\b(?:did|does|do|has|have|had|will|would|can|could)\s+{named}\s+([a-z]+)\b", question, re.IGNORECASE):
        return m.group(1).casefold()
    if m := re.search(rf"\b([a-z]+)\s+by\s+{named}(?!\w)", question, re.IGNORECASE):
        return m.group(1).casefold() if lemma(m.group(1).casefold()) != m.group(1).casefold() else None
    if not re.search(rf"\b(?:by|was|were|is|are|been|be|get|got)\s+(?:the\s+)?{named}(?!\w)", question, re.IGNORECASE) \
            and (m := re.search(rf"(?<!\w){named}\s+([a-z]+ed)\b", question, re.IGNORECASE)):
        return m.group(1).casefold()  # not "Was Olive & Thyme inspected?": what was done to it
    return None


def _whether(question: str, node: FilterNode, schema: CollectionSchema) -> Whether | None:
    """The item a yes/no question names and what it asks of it (``Whether``), when its filter's
    conjuncts are one condition naming it by its label, an identifier or a name, conditions on a year or a
    date (which of its records), and at least one more (what is asked); or the name and the year or
    date alone, which is then what is asked. None otherwise."""
    conjuncts = node.arguments if isinstance(node, Operation) and node.operator == "and" else [node]
    label = schema.label_attribute

    def names(c: FilterNode) -> bool:
        return isinstance(c, Comparison) and c.comparator == "eq" and isinstance(c.value, str) and (
            c.attribute == label or ((a := schema.attribute(c.attribute)) is not None and a.kind in ("identifier", "name")))

    def locates(c: FilterNode) -> bool:
        return isinstance(c, Comparison) and (a := schema.attribute(c.attribute)) is not None and (
            a.type == "date" or a.kind == "year")

    # One item, named by one attribute or by several ("the Torvik Ridgeback": make and model).
    named = [c for c in conjuncts if names(c)]
    if not named or len({c.attribute for c in named if isinstance(c, Comparison)}) != len(named):
        return None
    subject = [c for c in conjuncts if any(c is n for n in named) or locates(c)]
    predicate = [c for c in conjuncts if not any(c is s for s in subject)]
    if not predicate and not _THERE.match(question):
        # "Was the Polo listed before March 2024?": with nothing else asked, the date is no choice
        # of which record but what is asked. ("Are there records from Ostby in 2021?" asks whether
        # any match: the "none match" count answers it.)
        subject, predicate = named, [c for c in conjuncts if not any(c is n for n in named)]
    if not predicate:
        return None
    # A person in a role ("Did Irene Curie give a keynote?") takes part in many records, and the
    # question asks whether any has it; an item named by its label or identifier is asked of all
    # its records ("Is the Pebble Rattle a fire hazard?").
    person = all(isinstance(c, Comparison) and c.attribute != label and (a := schema.attribute(c.attribute)) is not None
                 and a.kind == "name" and _PERSON.search(a.description or "") is not None for c in named) \
        and not any(c.comparator == "in" and isinstance(c.value, list) and len(c.value) > 1 for c in clauses(_conjoin(predicate)))
    # (Not of several values asked together: "Did Maria Hale collect LS-3104 and LS-3140?" asks both.)
    return Whether(subject=_conjoin(subject), predicate=_conjoin(predicate), any=bool(_EVER.search(question)) or person)


def _beyond_conditions(residual: str, asked: Sequence[FilterNode], schema: CollectionSchema) -> bool:
    """Whether the words left of a question whose conditions were set aside ask more than those
    conditions: a word no asked attribute's name or description uses, nor its value, cue, figure
    or unit ("resolved within 90 minutes": "resolved" is no word of a duration; "cost more than
    400,000" asks the cost alone)."""
    profile = SchemaProfile(schema, {})
    asked_clauses = list(clauses(_conjoin(asked) if asked else None))
    if any((a := schema.attribute(c.attribute)) is None or a.kind == "identifier" for c in asked_clauses):
        return True  # "Did HRA-22-118 get more than HRA-22-1180?": another record, compared, not a property
    if re.search(r"\b(?:\w+er|more|less|fewer)\s+than\b", residual, re.IGNORECASE) \
            and not any(c.comparator in ("gt", "gte", "lt", "lte") for c in asked_clauses):
        return True  # "Was X larger than Y?": a comparison no figure of the predicate holds
    if re.search(r"\b(?:only|just|exclusively|solely|alone)\b", residual, re.IGNORECASE):
        return True  # "Does SA-2021-0017 affect only 5.0?": no other element, which containing 5.0 is not
    if re.search(r"\b(?:about|around|approximately|roughly|nearly|almost|circa|mostly|mainly|largely|partly)\b|~",
                 residual, re.IGNORECASE):
        return True  # "Did INC-2028 cost about $400,000?": near a figure, which no comparison holds
    if len(asked_clauses) > 1 and re.search(r"\b(?:or|either|nor)\b", residual, re.IGNORECASE):
        return True  # "Did INC-2014 affect login or checkout?": either, which their conjunction is not
    known: set[str] = set()
    for c in asked_clauses:
        if (p := profile.by_name.get(c.attribute)) is not None:
            known |= p.terms
        for v in c.value if isinstance(c.value, list) else [c.value]:
            known |= {w for t in tokenize(str(v)) for w in forms(t.norm)}
    cue_words = {w for cue in CUES for w in cue.split()}
    for t in tokenize(residual):
        word = t.norm
        if word in QUERY_STOP or word in cue_words or word in UNITS or t.lemma in UNITS \
                or not word.replace(",", "").replace(".", "").isalpha() or forms(word) & known:
            continue
        return True
    return False


def _conjoin(parts: Sequence[FilterNode]) -> FilterNode:
    return parts[0] if len(parts) == 1 else Operation(operator="and", arguments=list(parts))


def _names_one(node: FilterNode | None, schema: CollectionSchema) -> bool:
    """Whether the filter selects one item by what it is called (its label or an identifier)."""
    return any(c.comparator == "eq" and (c.attribute == schema.label_attribute or (
        (a := schema.attribute(c.attribute)) is not None and a.kind == "identifier")) for c in clauses(node))


def _names_unfiltered(question: str, schema: CollectionSchema, node: FilterNode | None, *,
                      ranked: Sequence[str] = ()) -> bool:
    """Whether ``question`` names, by its name, an attribute its filter does not test ("How many
    members do rowing clubs have?", "credits phil 230?"): it asks that attribute's values, which
    the documents the filter selects do not answer by being selected. A flag named is a condition
    the filter would hold, not a value asked; ``ranked``, the attribute a superlative ranks by or
    an aggregate sums (and what a ranking names each document by), is held by that computation."""
    tested = {c.attribute for c in clauses(node)} | set(ranked)
    records = SchemaProfile(schema, {}).record_nouns
    # "number of refused permits …" counts the permits, as "how many" does: no permit_number named.
    opening = COUNT_OPENING.match(question)
    if opening is not None and any(forms(t.norm) & records for t in tokenize(question[opening.end():])):
        question = question[opening.end():]
    return any(a.name not in tested and a.type != "boolean" for a in schema.named_in(question, items=records))

