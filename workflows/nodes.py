"""The nodes of the Self-RAG graph, one small function each, named as in the diagram.

Nodes read the state and the run's options (``Runtime[RunOptions]``), call out through
``Components``, and return only the fields they write. They never raise to steer the graph:
routing (``workflows.routing``) decides from the state alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Literal

from langchain_core.runnables.config import ContextThreadPoolExecutor
from langgraph.runtime import Runtime
from pydantic import TypeAdapter

from graders import GradeResult, Verdict
from selfrag.errors import GraphUnavailable, SelfRagError
from selfrag.kg import Entity, GraphContext, mention_where, resolve_relation, resolve_reply
from selfrag.kg.entities import Candidate
from selfrag.query import FilterNode, and_where, to_where
from selfrag.query.graph_terms import EntityChoice, GraphTerm
from selfrag.schema import CollectionSchema
from selfrag.store import SearchableCollection
from selfrag.text import content_terms
from workflows import records as rec
from workflows import summaries
from workflows.components import Components
from workflows.memory import recall
from workflows.options import RunOptions
from workflows.resource_retrieval import retrieve_resources
from workflows.resources import plan_resources
from workflows.retrieval import Searched, to_document
from workflows.rewrite import normalise_query
from workflows.speculation import Speculation, departure, should_speculate
from workflows.state import SelfRagState, Turn
from workflows.summaries import NodeSummary
from workflows.tokens import AnswerDelta
from workflows.tracing import node_span

__all__ = ["NODES", "NODE_NAMES", "Node", "NodeSpec", "SelfRagNodes", "node_spec", "recursion_limit_for"]

Node = Callable[[SelfRagState, Runtime[RunOptions]], dict[str, Any]]


def timed(name: str, fn: Node, tracer: Any = None) -> Node:
    """Append the node's wall time to ``timings`` (the trace's path comes from it); with an
    OpenTelemetry ``tracer``, run it inside a span (``workflows.tracing``)."""

    def node(state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        start = time.perf_counter()
        with node_span(tracer, name):
            update = fn(state, runtime)
        ms = round((time.perf_counter() - start) * 1000, 2)
        return {**update, "timings": [*state["timings"], rec.Timing(node=name, ms=ms)]}

    node.__name__ = name
    return node


_FILTER: TypeAdapter[Any] = TypeAdapter(FilterNode)


def _dump(node: Any) -> dict[str, Any] | None:
    # The state holds plain JSON: checkpoints must not pickle our classes.
    return None if node is None else _FILTER.dump_python(node, mode="json")


def _load(data: Any) -> Any:
    return None if data is None else _FILTER.validate_python(data)


def _doc(hit: Any, resource: str, rank: int, retriever: str) -> rec.Document:
    score = round(float(hit.score), 4)
    return rec.Document(id=hit.id, text=hit.text, metadata=dict(hit.metadata), score=score, resource=resource,
                        sources=[rec.SourceRankRecord(retriever=retriever, rank=rank, score=score)])


def _verdict(kind: str, generation: int, passed: bool, label: str, reason: str, *, failed: bool = False,
             model: str = "deterministic", prompt_version: str = "", claims: list[dict[str, object]] | None = None) -> Verdict:
    """A verdict the workflow decides itself (memory, a verbatim quote, a failed generation)."""
    return Verdict(kind=kind, subject=None, passed=passed, label=label, reason=reason, llm_label=None, score=None,
                   failed=failed, error=None, attempts=0, prompt_version=prompt_version, model=model,
                   generation=generation, claims=claims or [])


_TERM: TypeAdapter[rec.GraphTermRecord] = TypeAdapter(rec.GraphTermRecord)


def _term_record(term: GraphTerm) -> rec.GraphTermRecord:
    return _TERM.validate_python(term.model_dump(mode="json"))


def _choice_candidate(choice: EntityChoice) -> Candidate:
    entity = Entity(choice.id, choice.label, choice.name)
    return Candidate(entity, "name", 100.0, dict(choice.differences))


def _ask_which(term: GraphTerm) -> str:
    options = "\n".join(f"{n}. {c.describe()}" for n, c in enumerate(term.candidates, 1))
    return (f"Which {term.value!r} do you mean? Reply with a name or a number:\n{options}")


def _no_match(term: GraphTerm, relation_description: str, result_label: str) -> str:
    assert term.entity is not None
    return (f"No document can match: in the graph, {term.entity.name} has no {result_label} through "
            f"'{term.relation}' ({relation_description.rstrip('.')}). I won't answer without that condition.")


class SelfRagNodes:
    def __init__(self, components: Components, *, today: Callable[[], date] = date.today) -> None:
        self.c = components
        self.today = today

    def as_dict(self) -> dict[str, Node]:
        return {spec.name: timed(spec.name, spec.run.__get__(self), self.c.tracer) for spec in NODES}

    def _collection(self, state: SelfRagState) -> SearchableCollection:
        return self.c.store.get_collection(state["collection"])

    def _graph(self, schema: CollectionSchema) -> GraphContext | None:
        """The collection's linked graph, or None when it links none.

        Raises:
            GraphUnavailable: it links one and no graph store is configured or reachable.
            GraphNotFound: the linked graph is not loaded.
        """
        if schema.graph is None:
            return None
        if self.c.graphs is None:
            raise GraphUnavailable("this collection filters through a knowledge graph, and no graph store is configured")
        return self.c.graphs.get(schema.graph)

    def _search(
        self, coll: SearchableCollection, resource: str, text: str, *, fixed: dict[str, Any] | None,
        node: FilterNode | None, k: int, min_score: float | None, question: str,
    ) -> tuple[list[rec.Document], Searched, rec.RetrievalRecord]:
        """One collection's retrieval: search (dense or hybrid) relaxing ``node`` when nothing
        matches, rerank, keep ``k``; with its trace record."""
        stage = self.c.retrieval
        start = time.perf_counter()
        found = stage.search_relaxing(coll, resource, text, fixed=fixed, node=node, k=stage.wide(k), min_score=min_score)
        hits, rerank = stage.rerank(question, found.hits, stage.keep(k))
        searched = rec.ResourceRetrieval(resource=resource, query=text, where=found.where, k=k, hits=len(found.hits),
                                         error=None, error_code=None, ms=round((time.perf_counter() - start) * 1000, 2))
        record = rec.RetrievalRecord(query=text, resources=[searched], rerank=rerank,
                                     fusion=stage.hybrid.fusion if stage.indexes is not None else "dense")
        return [to_document(h) for h in hits], found, record

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
        if not runtime.context.resources:
            return self._collection(state).catalogue()
        # Several resources: the first that opens lends its known values; a failing one is the
        # retrieval's to report, not a reason to refuse the follow-up.
        for res in runtime.context.resources:
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
            verdict = _verdict("groundedness", 1, True, "grounded", "quoted from this conversation's history",
                               prompt_version="memory/v1")
            plan: rec.PlanRecord = {"condense": {"source": "memory", "error": None}}
            return {"standalone_question": state["question"], "plan": plan,
                    "generations": [answer], "generation_count": 1, "verdicts": [verdict],
                    "stop_reason": "answered from the conversation's memory"}
        catalogue = self._condense_catalogue(state, runtime) if history else {}
        out = self.c.condenser.condense(state["question"], history, catalogue)
        condensed: rec.PlanRecord = {"condense": {"source": out.source, "error": out.error}}
        return {"standalone_question": out.question, "plan": condensed}

    # -- self_query: question → semantic query + validated filter + limit ------------------------
    def self_query(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        opts = runtime.context
        question = state["standalone_question"]
        if opts.resources:
            plans = plan_resources(opts.resources, question, store=self.c.store, planner=self.c.planner,
                                   graphs=self.c.graphs, top_k=opts.top_k, today=self.today())
            several: rec.PlanRecord = {**state["plan"], "source": "resources", "resources": plans}
            return {"resource_plans": plans, "plan": several,
                    "query": question, "queries_seen": [normalise_query(question)]}
        coll = self._collection(state)
        catalogue = coll.catalogue()
        spec: Speculation | None = None
        if self.c.speculate and should_speculate(self.c.planner, question, coll.schema, catalogue,
                                                 resumed=state["resumed"] is not None, today=self.today()):
            # Search and grade the question as it stands beside the model call (workflows.speculation):
            # the very search ``retrieve`` would run for a plan that keeps the question.
            certain = and_where(opts.mandatory_where, None)
            spec = Speculation(
                self.c.relevance, question,
                search=lambda: self._search(coll, state["collection"], question, fixed=certain, node=None,
                                            k=opts.top_k, min_score=opts.min_score, question=question)[::2],
                where=certain, k=opts.top_k, min_score=opts.min_score, concurrency=opts.grade_concurrency,
            )
        try:
            plan = self.c.planner.plan(
                question, coll.schema, catalogue, mandatory_where=opts.mandatory_where, today=self.today(),
                graph=self._graph(coll.schema),
            )
        except BaseException:
            if spec is not None:
                spec.drop("the self-query failed")
            raise
        # A plan that keeps the question searches the question itself: the model's rewording of a
        # topical question only loses words (a tiny model's invented search text made it abstain).
        changed = departure(plan, question, opts.top_k)
        search_text = question if changed is None else plan.query.query or question
        speculated = None
        if spec is not None:
            if changed is None:
                speculated = spec.keep()
            else:
                spec.drop(changed)
        terms = list(plan.terms)
        resumed = state["resumed"]
        if resumed is not None:
            # The user chose among the candidates last turn: that name now means that entity.
            choice = EntityChoice(id=resumed["id"], name=resumed["name"], label=resumed["label"],
                                  differences=resumed["differences"])
            terms = [t.model_copy(update={"entity": choice, "candidates": []})
                     if t.ambiguous and (t.value == resumed["value"] or any(c.id == choice.id for c in t.candidates)) else t
                     for t in terms]
        graph_terms = [_term_record(t) for t in terms]
        record: rec.PlanRecord = {
            **state["plan"],
            "structured_query": plan.query.model_dump(mode="json"),
            "where": plan.where,
            "source": plan.source,
            "changes": [c.model_dump(mode="json") for c in plan.changes],
            "llm_error": plan.llm_error,
            "kept_question": changed is None,
        }
        if graph_terms or plan.latest:
            record["graph"] = {"terms": graph_terms, "latest": plan.latest}
        if spec is not None and spec.record is not None:
            record["speculation"] = spec.record
        return {
            "graph_terms": graph_terms,
            "latest": plan.latest,
            "plan": record,
            "query": search_text,
            "query_filter": _dump(plan.query.filter),
            "limit": plan.query.limit,
            "queries_seen": [normalise_query(search_text)],
            "speculated": speculated,
        }

    # -- graph_resolve: relation conditions → entity sets → a filter on the mention attributes ---
    def graph_resolve(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        coll = self._collection(state)
        context = self._graph(coll.schema)
        assert context is not None  # self_query found graph terms only through the collection's graph
        terms = [GraphTerm.model_validate(t) for t in state["graph_terms"]]
        record = state["plan"]["graph"]
        ambiguous = next((t for t in terms if t.ambiguous), None)
        if ambiguous is not None:
            ask = rec.Clarification(question=state["standalone_question"], value=ambiguous.value,
                                    relation=ambiguous.relation,
                                    candidates=[c.model_dump(mode="json") for c in ambiguous.candidates],
                                    prompt=_ask_which(ambiguous))
            asked: rec.PlanRecord = {**state["plan"], "graph": {**record, "clarification": ask}}
            return {"clarification": ask, "plan": asked,
                    "stop_reason": f"needs clarification: {ambiguous.value!r} names {len(ambiguous.candidates)} entities"}
        store = self.c.graphs.store if self.c.graphs is not None else None
        assert store is not None
        clauses: list[dict[str, Any]] = []
        resolutions: list[dict[str, Any]] = []
        for term in terms:
            assert term.entity is not None
            if term.kind == "mention":
                names = [term.entity.name]
                resolutions.append({"kind": "mention", "entity": term.entity.model_dump(mode="json"),
                                    "attribute": term.attribute, "entities": [term.entity.name]})
            else:
                assert term.relation is not None
                declared = context.link.relation(term.relation)
                assert declared is not None
                entity = context.index.get(term.entity.id) or Entity(term.entity.id, term.entity.label, term.entity.name)
                res = resolve_relation(store, context.link, term.relation, entity)
                resolutions.append({"kind": "relation", **res.model_dump(mode="json")})
                if not res.entities:
                    # No document can match: say so; never drop the condition and search without it.
                    sentence = _no_match(term, declared.description, declared.result_label)
                    empty: rec.PlanRecord = {**state["plan"], "graph": {**record, "resolutions": resolutions, "where": None}}
                    return {"no_match": sentence, "graph_where": None, "plan": empty,
                            "stop_reason": f"no entity: {term.relation} of {term.entity.name} is empty in the graph"}
                names = res.names
            clause = mention_where(term.attribute, names)
            assert clause is not None
            clauses.append(clause)
        graph_where = clauses[0] if len(clauses) == 1 else {"$and": clauses}
        resolved: rec.PlanRecord = {**state["plan"], "graph": {**record, "resolutions": resolutions, "where": graph_where}}
        return {"graph_where": graph_where, "plan": resolved}

    # -- latest: filters but no topic → the newest matching documents, no vector search ----------
    def latest(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        opts = runtime.context
        coll = self._collection(state)
        date_attr = coll.schema.date_attribute
        assert date_attr is not None  # the planner sets ``latest`` only for a schema with a date
        k = state["limit"] or opts.top_k
        where = and_where(and_where(opts.mandatory_where, state["graph_where"]), to_where(_load(state["query_filter"])))
        hits = coll.newest(attribute=date_attr.name, where=where, k=k, today=self.today())
        docs = [_doc(h, state["collection"], n, "latest") for n, h in enumerate(hits, 1)]
        plan: rec.PlanRecord = {**state["plan"], "latest": {"attribute": date_attr.name, "where": where, "k": k,
                                                             "documents": [d["id"] for d in docs]}}
        return {"documents": docs, "where": where, "plan": plan,
                "retrieved_sets": [*state["retrieved_sets"], sorted(d["id"] for d in docs)]}

    # -- retrieve: filtered search, relaxing the filter step by step when it finds nothing -------
    def retrieve(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        opts = runtime.context
        stage = self.c.retrieval
        if opts.resources:
            rewritten = state["query"] if state["rewrite_count"] else None
            hits, relaxed, record = retrieve_resources(
                opts.resources, state["resource_plans"], store=self.c.store, stage=stage, query=rewritten,
                question=state["standalone_question"], min_score=opts.min_score,
            )
            docs = [to_document(h) for h in hits]
            where, node, relaxed = None, None, [*state["relaxations"], *relaxed]
        else:
            coll = self._collection(state)
            k = state["limit"] or opts.top_k
            # The graph's entity sets hold like the caller's mandatory filter: ANDed in, never relaxed.
            fixed = and_where(opts.mandatory_where, state["graph_where"])
            # A self-query that moved every word into the filter leaves a search text like "highly":
            # ranking (and the relevance signal, the retrieval cosine) would follow noise. Search with
            # the question itself then; the filter still selects.
            text = state["query"] if len(content_terms(state["query"])) >= 2 else state["standalone_question"]
            node = _load(state["query_filter"])
            spec = state["speculated"]
            if spec is not None and not state["retrieved_sets"] and node is None and (
                    (spec["text"], spec["where"], spec["k"], spec["min_score"]) == (text, fixed, k, opts.min_score)):
                # This very search (text, where, k, min_score), already run beside the self-query.
                docs, where, record, relaxed = spec["documents"], fixed, spec["retrieval"], list(state["relaxations"])
            else:
                docs, found, record = self._search(coll, state["collection"], text, fixed=fixed, node=node, k=k,
                                                   min_score=opts.min_score, question=state["standalone_question"])
                where, node, relaxed = found.where, found.node, [*state["relaxations"], *found.relaxations]
        ids = sorted(f"{d['resource']}/{d['id']}" if opts.resources else d["id"] for d in docs)
        seen = state["retrieved_sets"]
        update: dict[str, Any] = {
            "documents": docs,
            "where": where,
            "query_filter": _dump(node),
            "relaxations": relaxed,
            "retrieved_sets": [*seen, ids],
            "retrievals": [*state["retrievals"], record],
        }
        if seen and ids in seen:
            update["stop_reason"] = "no_progress: the search returned the same documents again"
        return update

    # -- grade_documents: one relevance verdict per document, concurrently ----------------------
    def grade_documents(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        question = state["standalone_question"]
        graded = list(state["graded"])
        # Same question, same document: reuse the verdict (two resources may share a chunk id).
        known = {(g["resource"], g["id"]): g for g in graded}
        spec = state["speculated"]
        present = {(d["resource"], d["id"]) for d in state["documents"]}
        for entry in spec["graded"] if spec is not None else []:
            # Graded beside the self-query against this same question (workflows.speculation).
            key = (entry["resource"], entry["id"])
            if key not in known and key in present:
                graded.append(entry)
                known[key] = entry
        todo = [d for d in state["documents"] if (d["resource"], d["id"]) not in known]
        filtered = state["query_filter"] is not None or state["graph_where"] is not None
        if filtered and len(content_terms(state["query"])) >= 2:
            # A filter (self-queried or from the graph) already holds the question's conditions
            # ("positive reviews", "films by directors born in Ohio"): what is left to judge is the
            # search text, the question minus those conditions. The full question would ask the
            # critic for conditions the document's text need not state.
            question = state["query"]
        results = self.c.relevance.grade_many(question, todo, concurrency=runtime.context.grade_concurrency)
        if filtered and len(content_terms(state["query"])) < 2:
            # The self-query turned the whole question into its filter ("a science fiction film rated
            # above 8.5"): every document the filter selected is an answer, whatever its text says.
            results = [
                r if r.passed else replace(r, passed=True, label=self.c.relevance.positive,
                                           reason="selected by the question's own filter, which is all the question asks")
                for r in results
            ]
        for doc, res in zip(todo, results, strict=False):
            entry = rec.GradedDocument(id=doc["id"], metadata=doc["metadata"], score=doc["score"], query=state["query"],
                                       resource=doc["resource"], sources=doc["sources"], relevant=res.passed,
                                       grade=res.record())
            graded.append(entry)
            known[(doc["resource"], doc["id"])] = entry
        relevant = [d for d in state["documents"] if known[(d["resource"], d["id"])]["relevant"]]
        return {"graded": graded, "relevant": relevant}

    # -- rewrite: a better query, unless it repeats one already tried ----------------------------
    def rewrite(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        gens = state["generations"]
        reason = (
            "the answer did not address the question" if state["relevant"] and gens
            else "no retrieved document was relevant"
        )
        out = self.c.rewriter.rewrite(state["standalone_question"], state["query"], reason)
        seen = list(state["queries_seen"])
        record: rec.RewriteRecord = {"from": state["query"], "to": out.query, "reason": reason, "source": out.source,
                                 "error": out.error}
        update: dict[str, Any] = {
            "rewrites": [*state["rewrites"], record],
            "rewrite_count": state["rewrite_count"] + 1,
        }
        norm = normalise_query(out.query)
        if norm in seen:
            update["stop_reason"] = "no_progress: the rewrite repeated an earlier query"
        else:
            update["query"] = out.query
            update["queries_seen"] = [*seen, norm]
        return update

    # -- generate: an answer with citations from the relevant documents only --------------------
    def generate(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        docs = state["relevant"]
        gens = list(state["generations"])
        last_verdicts = state["verdicts"]
        feedback = None
        if gens and gens[-1]["grounded"] is False:
            feedback = next((v["reason"] for v in reversed(last_verdicts) if v["kind"] == "groundedness"), None)
        budget_left = state["max_generations"] - state["generation_count"]
        same_documents = [g for g in gens if g["documents"] == [d["id"] for d in docs]]
        only_ungrounded = bool(same_documents) and all(g["grounded"] is False for g in same_documents)
        fallback = self.c.extractive_fallback and self.c.generator.reader is not None
        if self.c.extractive_only or (fallback and budget_left == 1 and only_ungrounded):
            out = self.c.generator.read(state["standalone_question"], docs)
        else:
            number = len(gens) + 1
            writer = runtime.stream_writer

            def on_token(text: str, attempt: int) -> None:
                # Read by the engine's "custom" stream mode (``workflows.tokens``).
                writer(AnswerDelta(text, number, attempt))

            out = self.c.generator.generate(state["standalone_question"], docs, feedback=feedback,
                                            on_token=on_token if runtime.context.stream_tokens else None)
        cited = [
            rec.CitedDocument(number=n, id=docs[n - 1]["id"], text=docs[n - 1]["text"], metadata=docs[n - 1]["metadata"],
                              resource=docs[n - 1]["resource"])
            for n in out.citations
        ]
        gens.append(rec.GeneratedAnswer(
            number=len(gens) + 1, answer=out.answer, citations=cited, documents=[d["id"] for d in docs],
            query=state["query"], attempts=out.attempts, error=out.error, grounded=None, useful=None,
            strategy=out.strategy, citation_source=out.citation_source, short_answer=out.short_answer,
            probability=out.probability, verified=None,
        ))
        return {"generations": gens, "generation_count": state["generation_count"] + 1}

    # -- check: groundedness and usefulness of the latest answer --------------------------------
    def check(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        gens = [rec.GeneratedAnswer(**g) for g in state["generations"]]
        current = gens[-1]
        verdicts = list(state["verdicts"])
        if current["error"]:
            verdicts.append(_verdict("groundedness", current["number"], False, "ungrounded",
                                     f"generation failed: {current['error']}", failed=True, model="none"))
            current.update({"grounded": False, "useful": False})
            return {"generations": gens, "verdicts": verdicts}
        docs = state["relevant"]
        question, answer, short = state["standalone_question"], current["answer"], current["short_answer"]
        usefulness_question = self._usefulness_question(state)
        if current["probability"] is not None:
            # The reader's own calibrated probability: an answer it is unsure of is shown, flagged.
            p = current["probability"]
            threshold = self.c.generator.reader.threshold("reader") if self.c.generator.reader is not None else 1.0
            ok = p >= threshold
            verdicts.append(_verdict("reader", current["number"], ok, "verified" if ok else "unverified",
                                     f"reader probability {p:.2f} {'>=' if ok else '<'} threshold {threshold:.2f}",
                                     model=self._reader_name(), prompt_version="reader/v1"))
            current["verified"] = ok
        useful: GradeResult | None
        if self.c.parallel_checks:
            with ContextThreadPoolExecutor(max_workers=2) as pool:
                g_future = pool.submit(self.c.groundedness.grade, answer, docs, question, short_answer=short)
                u_future = pool.submit(self.c.usefulness.grade, usefulness_question, answer, docs, short_answer=short)
                grounded, useful = g_future.result(), u_future.result()
        else:
            grounded = self.c.groundedness.grade(answer, docs, question, short_answer=short)
            useful = (self.c.usefulness.grade(usefulness_question, answer, docs, short_answer=short)
                      if grounded.passed else None)
        results: list[GradeResult | None] = [grounded, useful]
        for res in results:
            if res is not None:
                verdicts.append(res.record(current["number"]))
        current.update({"grounded": grounded.passed, "useful": None if useful is None else useful.passed})
        return {"generations": gens, "verdicts": verdicts}

    def _reader_name(self) -> str:
        reader = self.c.generator.reader
        return str(getattr(reader, "name", "reader")) if reader is not None else "none"

    @staticmethod
    def _usefulness_question(state: SelfRagState) -> str:
        """What the answer must address: the search text when a filter already holds the question's
        conditions (an answer need not repeat "positive" or "latest" to be useful), else the question."""
        filtered = state["query_filter"] is not None or state["graph_where"] is not None
        if filtered and len(content_terms(state["query"])) >= 2:
            return state["query"]
        return state["standalone_question"]

    # -- finalize: a typed outcome and the best answer ------------------------------------------
    def finalize(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        from workflows.outcomes import Outcome
        from workflows.routing import decide_outcome

        outcome, best, stop = decide_outcome(state)
        # condense clears a pending clarification every turn: one here was asked by this turn.
        ask = state.get("clarification")
        if ask:
            asked = Outcome.NEEDS_CLARIFICATION.value
            turn = Turn(question=state["question"], standalone_question=state["standalone_question"],
                        answer=ask["prompt"], outcome=asked)
            if runtime.context.request_key is not None:
                turn["request_key"] = runtime.context.request_key
            return {"outcome": asked, "answer": ask["prompt"], "citations": [], "stop_reason": stop,
                    "history": [*(state.get("history") or []), turn]}
        citations: list[rec.CitedDocument] = []
        if best is None and state["no_match"]:
            answer = state["no_match"]
        elif best is None:
            names = [r.name for r in runtime.context.resources]
            where = (f"the collection {state['collection']!r}" if len(names) < 2
                     else "the resources " + ", ".join(map(repr, names)))
            answer = f"I don't know: no document in {where} was relevant to this question, so I won't guess."
        elif not best["answer"]:
            # Every generation failed: say so rather than return nothing. Why it failed (the
            # model's or a parser's own text) is in the trace's generations, never in the answer.
            answer = "I couldn't produce an answer from the relevant documents, so I won't guess."
            citations = []
        else:
            answer, citations = best["answer"], best["citations"]
        turn = Turn(question=state["question"], standalone_question=state["standalone_question"],
                    answer=answer, outcome=outcome)
        if runtime.context.request_key is not None:
            turn["request_key"] = runtime.context.request_key
            turn["citations"] = list(citations)
        return {
            "outcome": outcome, "answer": answer, "citations": citations, "stop_reason": stop,
            "short_answer": best["short_answer"] if best is not None and best["answer"] else None,
            "confidence": best["probability"] if best is not None and best["answer"] else None,
            "history": [*(state.get("history") or []), turn],
        }


@dataclass(frozen=True)
class NodeSpec:
    """Everything the rest of the house derives from a node: declare a node here and only here.

    The graph registers ``run`` under ``name`` (its edges stay in ``workflows.graph``: where a
    node sits is the diagram's business); the SSE stream and the CLI's progress read
    ``summarize``; the recursion limit counts ``repeats``; per-turn resets come from the state type.
    """

    name: str
    run: Callable[..., dict[str, Any]]
    """A ``SelfRagNodes`` method: ``(self, state, runtime) -> the fields it writes``."""
    summarize: Callable[[SelfRagState], NodeSummary] = summaries.written
    """What it did, from its update: the CLI's progress line and the SSE event's data (by default
    the fields it wrote; a node with something better to say has its own in ``workflows.summaries``)."""
    event: str | None = None
    """The SSE event it streams as (the diagram's name), or None for bookkeeping nodes."""
    repeats: Literal["once", "rewrite", "generation"] = "once"
    """Which budget can make it run again in one turn (each rewrite, each generation)."""


NODES: tuple[NodeSpec, ...] = (
    NodeSpec("condense", SelfRagNodes.condense, summaries.condense, event=None),
    NodeSpec("self_query", SelfRagNodes.self_query, summaries.self_query, event="self_query"),
    NodeSpec("graph_resolve", SelfRagNodes.graph_resolve, summaries.graph_resolve, event="graph_resolve"),
    NodeSpec("latest", SelfRagNodes.latest, summaries.latest, event="latest"),
    NodeSpec("retrieve", SelfRagNodes.retrieve, summaries.retrieve, event="retrieve", repeats="rewrite"),
    NodeSpec("grade_documents", SelfRagNodes.grade_documents, summaries.grade_documents, event="grade", repeats="rewrite"),
    NodeSpec("rewrite", SelfRagNodes.rewrite, summaries.rewrite, event="rewrite", repeats="rewrite"),
    NodeSpec("generate", SelfRagNodes.generate, summaries.generate, event="generate", repeats="generation"),
    NodeSpec("check", SelfRagNodes.check, summaries.check, event="check", repeats="generation"),
    NodeSpec("finalize", SelfRagNodes.finalize, summaries.finalize, event=None),
)
NODE_NAMES = tuple(spec.name for spec in NODES)
_BY_NAME = {spec.name: spec for spec in NODES}


def node_spec(name: str) -> NodeSpec | None:
    """The declaration of the node ``name`` (None for a name the graph does not have)."""
    return _BY_NAME.get(name)


def recursion_limit_for(max_rewrites: int, max_generations: int) -> int:
    """A LangGraph recursion limit that the budgets can never reach.

    Each node runs once per turn, plus once more per rewrite or generation its ``repeats`` names;
    a margin absorbs the rest. The budgets, not this limit, are what stop the loop.
    """
    extra = {"once": 0, "rewrite": max_rewrites, "generation": max_generations}
    return sum(1 + extra[spec.repeats] for spec in NODES) + 5
