"""The plan phase: condense (follow-up → standalone question), self_query (each resource's plan)
and graph_resolve (each plan's graph conditions → entity sets).

Every question plans a list of resources; one collection is a list of one. Each resource is
self-queried against its own schema (concurrently), with its own search settings, latest flag and
graph terms. A usage failure of one resource (a collection removed, a graph not loaded) is recorded
in its plan and the others still answer; when none can be planned, the first failure is the run's
error. A dependency that fails (the store, the graph server) ends the run: an outage is never an
abstention.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

from langgraph.runtime import Runtime
from pydantic import TypeAdapter

from selfrag.errors import RuntimeFailure, SelfRagError
from selfrag.kg import Entity, resolve_reply
from selfrag.kg.entities import Candidate
from selfrag.lang.questions import asks_yes_or_no
from selfrag.query import Absent, Change, FilterNode, absent_identifiers, and_where, without_unrecorded, written_in
from selfrag.query.graph_terms import EntityChoice, GraphTerm
from selfrag.store import SearchableCollection
from selfrag.store.catalogue import MAX_VALUES
from workflows import records as rec
from workflows._phase import Phase, decided_verdict
from workflows.graph_resolution import clarification, graph_context, resolve_terms
from workflows.memory import recall
from workflows.options import RunOptions
from workflows.resource_retrieval import live, search_resources
from workflows.resources import Resource, concurrently
from workflows.rewrite import normalise_query
from workflows.speculation import Speculation, departure, should_speculate
from workflows.state import SelfRagState

__all__ = ["PlanNodes"]

_FILTER: TypeAdapter[Any] = TypeAdapter(FilterNode)
_TERM: TypeAdapter[rec.GraphTermRecord] = TypeAdapter(rec.GraphTermRecord)
_LOOKUP_CAP = 1_000
"""Most chunks read to tell whether a negated condition leaves records of the kind out (``selfrag.query.unrecorded``)."""


class _Planned(NamedTuple):
    plan: rec.ResourcePlan
    detail: rec.PlanRecord
    """What the planner did for it (structured query, changes, source...), for ``Trace.plan``."""
    speculated: rec.SpeculativeWork | None
    error: SelfRagError | None


def _choice_candidate(choice: EntityChoice) -> Candidate:
    return Candidate(Entity(choice.id, choice.label, choice.name), "name", 100.0, dict(choice.differences))


def _resume(terms: list[GraphTerm], resumed: rec.ResumedChoice | None) -> list[GraphTerm]:
    """The user chose among the candidates last turn: that name now means that entity."""
    if resumed is None:
        return terms
    choice = EntityChoice(id=resumed["id"], name=resumed["name"], label=resumed["label"],
                          differences=resumed["differences"])
    return [t.model_copy(update={"entity": choice, "candidates": []})
            if t.ambiguous and (t.value == resumed["value"] or any(c.id == choice.id for c in t.candidates)) else t
            for t in terms]


def _absent_codes(question: str, coll: SearchableCollection, catalogue: dict[str, list[str]]) -> list[Absent]:
    """The codes ``question`` names in an identifier's shape that no record of ``coll`` has and no
    passage of it writes; none when the store cannot tell (a catalogue at its bound may lack the
    code, a collection past the lookup cap is not read through)."""
    absent = [a for a in absent_identifiers(question, coll.schema, catalogue)
              if len(catalogue.get(a.attribute, [])) < MAX_VALUES]
    if not absent:
        return []
    chunks = coll.matching(None, cap=_LOOKUP_CAP)
    if chunks is None:
        return []
    texts = [c.text for c in chunks]
    return [a for a in absent if not written_in(texts, a.written)]


class PlanNodes(Phase):
    # -- condense: follow-up + thread history → standalone question ------------------------------
    def condense(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        pending = state.get("clarification")
        if pending:
            # The last turn asked which entity a name meant: a reply that picks one resumes that
            # question; anything else is a new question (and the pending one is dropped).
            candidates = [_choice_candidate(EntityChoice.model_validate(c)) for c in pending["candidates"]]
            picked = resolve_reply(state["question"], candidates)
            if picked is not None:
                chosen = next(c for c in pending["candidates"] if c["id"] == picked.entity.id)
                resumed = rec.ResumedChoice(id=chosen["id"], name=chosen["name"], label=chosen["label"],
                                            differences=chosen.get("differences", {}), value=pending["value"])
                plan: rec.PlanRecord = {"condense": {"source": "clarification", "error": None}}
                return {"standalone_question": pending["question"], "clarification": None, "resumed": resumed,
                        "plan": plan}
        update = self._condense(state, runtime)
        return {**update, "clarification": None} if pending else update

    def _condense_catalogue(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, list[str]]:
        # The first collection that opens lends its known values; a failing one is the retrieval's
        # to report, not a reason to refuse the follow-up.
        for res in self.resources(state, runtime.context):
            if res.retriever is None:
                try:
                    return self.c.store.get_collection(res.name).catalogue()
                except SelfRagError:
                    continue
        return {}

    def _condense(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        history = state.get("history") or []
        remembered = recall(state["question"], history)
        if remembered is not None:
            # A question about the conversation: answered from its memory, quoted, no retrieval.
            answer = rec.GeneratedAnswer(
                number=1, answer=remembered, citations=[], documents=[], query="", attempts=0,
                error=None, grounded=True, useful=True, strategy="memory", citation_source="none",
                short_answer=None, probability=None, verified=None,
            )
            verdict = decided_verdict("groundedness", 1, True, "grounded", "quoted from this conversation's history",
                                      prompt_version="memory/v1")
            plan: rec.PlanRecord = {"condense": {"source": "memory", "error": None}}
            return {"standalone_question": state["question"], "plan": plan,
                    "generations": [answer], "generation_count": 1, "verdicts": [verdict],
                    "stop_reason": "answered from the conversation's memory"}
        catalogue = self._condense_catalogue(state, runtime) if history else {}
        out = self.c.condenser.condense(state["question"], history, catalogue)
        condensed: rec.PlanRecord = {"condense": {"source": out.source, "error": out.error}}
        return {"standalone_question": out.question, "plan": condensed}

    # -- self_query: each resource's semantic query, validated filter, limit, latest flag, graph terms
    def self_query(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        opts = runtime.context
        question = state["standalone_question"]
        resources = self.resources(state, opts)
        # Speculation reuses one resource's search beside its model call (not yet merged across several).
        speculate = len(resources) == 1
        outs = concurrently(lambda res: self._plan_one(res, state, opts, speculate=speculate), resources)
        plans = [o.plan for o in outs]
        failed = [o.error for o in outs if o.error is not None]
        if failed and len(failed) == len(outs):
            raise failed[0]  # nothing to answer from: the failure is the run's, not an abstention
        record: rec.PlanRecord = {**state["plan"], **outs[0].detail}
        graphed = next((p for p in plans if p["graph_terms"]), None) or next((p for p in plans if p["latest"]), None)
        if graphed is not None:
            record["graph"] = {"terms": graphed["graph_terms"], "latest": graphed["latest"]}
        # The turn's search text: the one resource's, or the question when each has its own.
        query = plans[0]["query"] if len(plans) == 1 else question
        update: dict[str, Any] = {"resource_plans": plans, "plan": record, "query": query, "queries_seen": [normalise_query(query)],
                  "speculated": outs[0].speculated}
        if not live(plans):
            # Every resource knows the question names a record it does not have: say so, search nothing.
            absent = next(p for p in plans if p["error_code"] == "absent_identifier")
            update.update(no_match=absent["error"], stop_reason=f"absent identifier: {absent['error']}")
        return update

    def _plan_one(self, res: Resource, state: SelfRagState, opts: RunOptions, *, speculate: bool) -> _Planned:
        question = state["standalone_question"]
        k = res.search.k or opts.top_k
        fixed = and_where(opts.mandatory_where, res.search.where)
        off = rec.ResourcePlan(resource=res.name, query=question, fixed=fixed, filter=None, k=k,
                               source="retriever" if res.retriever is not None else "off", error=None,
                               error_code=None, resolutions=[], latest=False, graph_terms=[])
        if res.retriever is not None:
            return _Planned(off, {"source": off["source"]}, None, None)
        spec: Speculation | None = None
        try:
            coll = self.c.store.get_collection(res.name)
            if res.search.self_query is False:
                coll.schema  # noqa: B018 - an unreadable collection fails here, not mid-search
                return _Planned(off, {"source": "off"}, None, None)
            catalogue = coll.catalogue()
            graph = graph_context(coll.schema, self.c.graphs)
            min_score = res.search.min_score if res.search.min_score is not None else opts.min_score
            if speculate and self.c.speculate and should_speculate(
                    self.c.planner, question, coll.schema, catalogue, resumed=state["resumed"] is not None,
                    today=self.today()):
                # Search and grade the question as it stands beside the model call (workflows.speculation):
                # the very search ``retrieve`` would run for a plan that keeps the question.
                def search() -> tuple[list[rec.Document], rec.RetrievalRecord]:
                    got = search_resources((res,), [off], store=self.c.store, stage=self.c.retrieval, rewritten=None,
                                           question=question, min_score=opts.min_score)
                    return got.documents, got.record

                spec = Speculation(self.c.relevance, question, search=search, where=fixed, k=k, min_score=min_score,
                                   concurrency=opts.grade_concurrency)
            plan = self.c.planner.plan(question, coll.schema, catalogue, mandatory_where=fixed, today=self.today(),
                                       graph=graph)
            if plan.negated:
                def lookup(where: dict[str, Any] | None) -> list[Any] | None:
                    chunks = coll.matching(where, cap=_LOOKUP_CAP)
                    return None if chunks is None else [c.metadata for c in chunks]

                plan = without_unrecorded(plan, coll.schema, lookup, mandatory_where=fixed,
                                          listing=not asks_yes_or_no(question))
            absent = _absent_codes(question, coll, catalogue)
        except RuntimeFailure:
            if spec is not None:
                spec.drop("the self-query failed")
            raise
        except SelfRagError as exc:
            if spec is not None:
                spec.drop("the self-query failed")
            failed = rec.ResourcePlan(**{**off, "source": "none", "error": str(exc), "error_code": exc.code})
            return _Planned(failed, {}, None, exc)
        except BaseException:
            if spec is not None:
                spec.drop("the self-query failed")
            raise
        # A plan that keeps the question searches the question itself: the model's rewording of a
        # topical question only loses words (a tiny model's invented search text made it abstain).
        changed = departure(plan, question, k)
        search_text = question if changed is None else plan.query.query or question
        speculated = None
        if spec is not None:
            if changed is None:
                speculated = spec.keep()
            else:
                spec.drop(changed)
        terms = [_TERM.validate_python(t.model_dump(mode="json")) for t in _resume(list(plan.terms), state["resumed"])]
        node = plan.query.filter
        planned = rec.ResourcePlan(
            resource=res.name, query=search_text, fixed=fixed,
            filter=None if node is None else _FILTER.dump_python(node, mode="json"),
            k=plan.query.limit or k, source=plan.source, error=None, error_code=None, resolutions=[],
            latest=plan.latest, graph_terms=terms, asks=plan.asks,
            guessed=any(c.kind == "guessed_value" for c in plan.changes), partial=not plan.holds_question,
            unknown_names=list(plan.unknown_names),
            uncounted=[c.detail for c in plan.changes if c.kind == "unrecorded_values" and "counted: " in c.detail],
            computed=None if plan.computed is None else rec.ComputationRecord(
                op=plan.computed.op, attribute=plan.computed.attribute, highest=plan.computed.highest,
                n=plan.computed.n, phrase=plan.computed.phrase, whole=plan.computed.whole,
                candidates=list(plan.computed.candidates), compared=plan.computed.compared,
                subject=plan.computed.subject, of=plan.computed.of),
            whether=None if plan.whether is None else rec.WhetherRecord(
                subject=_FILTER.dump_python(plan.whether.subject, mode="json"),
                predicate=_FILTER.dump_python(plan.whether.predicate, mode="json"), any=plan.whether.any),
        )
        if absent:
            # "What did INC-2099 cost?" of incidents without one: any answer is another record's.
            said = ", ".join(f"{a.attribute} {a.written!r}" for a in absent)
            planned["error"], planned["error_code"] = (
                f"No record in the collection {res.name!r} has {said}, so I won't answer about another one.",
                "absent_identifier")
            plan = replace(plan, changes=[*plan.changes, Change(kind="absent_identifier", detail=(
                f"{said}: no record has it and no passage writes it; nothing is searched for it"))])
        detail: rec.PlanRecord = {
            "structured_query": plan.query.model_dump(mode="json"),
            "where": plan.where,
            "source": plan.source,
            "changes": [c.model_dump(mode="json") for c in plan.changes],
            "llm_error": plan.llm_error,
            "kept_question": changed is None,
        }
        if spec is not None and spec.record is not None:
            detail["speculation"] = spec.record
        return _Planned(planned, detail, speculated, None)

    # -- graph_resolve: each plan's graph conditions → entity sets → a filter on its mention attributes
    def graph_resolve(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        graphs = self.c.graphs
        assert graphs is not None  # self_query found graph terms only through a configured graph store
        plans = list(state["resource_plans"])
        record = state["plan"]
        no_match: str | None = None
        stop: str | None = None
        shown = False
        for i, p in enumerate(plans):
            if p["error"] is not None or not p["graph_terms"]:
                continue
            context = graph_context(self.c.store.get_collection(p["resource"]).schema, graphs)
            assert context is not None
            terms = [GraphTerm.model_validate(t) for t in p["graph_terms"]]
            got = resolve_terms(graphs, context, terms)
            if got.ambiguous is not None:
                # Never answer for one of the meanings: ask which, whatever the other resources hold.
                ask = clarification(state["standalone_question"], got.ambiguous)
                asked: rec.PlanRecord = {**record, "graph": {**record["graph"], "clarification": ask}}
                return {"clarification": ask, "plan": asked, "resource_plans": plans,
                        "stop_reason": f"needs clarification: {got.ambiguous.value!r} names "
                                       f"{len(got.ambiguous.candidates)} entities"}
            if got.no_match is not None:
                # No document of this resource can match: it answers nothing, never without the condition.
                plans[i] = rec.ResourcePlan(**{**p, "resolutions": got.resolutions, "error": got.no_match,
                                               "error_code": "graph_condition"})
                no_match, stop = no_match or got.no_match, stop or got.stop
            else:
                plans[i] = rec.ResourcePlan(**{**p, "resolutions": got.resolutions, "fixed": and_where(p["fixed"], got.where)})
            if not shown:
                record = {**record, "graph": {**record["graph"], "resolutions": got.resolutions, "where": got.where}}
                shown = True
        update: dict[str, Any] = {"resource_plans": plans, "plan": record}
        if not live(plans):
            update.update(no_match=no_match, stop_reason=stop)
        return update

