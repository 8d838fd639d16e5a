"""The search phase: latest (newest first, for plans with filters and no topic), retrieve (each
planned resource searched, relaxing its filter when it finds nothing), grade_documents (one
relevance verdict per document) and rewrite (a better query, unless it repeats one tried)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from selfrag.text import content_terms
from workflows import records as rec
from workflows._phase import Phase, asks, filtered, judged_text, planned_text, whole_computation
from workflows.options import RunOptions
from workflows.resource_retrieval import Retrieved, live, search_resources, search_text
from workflows.rewrite import normalise_query
from workflows.state import SelfRagState

__all__ = ["SearchNodes"]


class SearchNodes(Phase):
    # -- latest: filters but no topic → the newest matching documents, no vector search ----------
    def latest(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        update = self._retrieve(state, runtime, newest=True)
        first = next(p for p in live(state["resource_plans"]) if p["latest"])
        date_attr = self.c.store.get_collection(first["resource"]).schema.date_attribute
        assert date_attr is not None  # the planner sets ``latest`` only for a schema with a date
        searched = next(r for r in update["retrievals"][-1]["resources"] if r["resource"] == first["resource"])
        shown: rec.LatestRecord = {"attribute": date_attr.name, "where": searched["where"], "k": first["k"],
                                   "documents": [d["id"] for d in update["documents"] if d["resource"] == first["resource"]]}
        return {**update, "plan": {**state["plan"], "latest": shown}}

    # -- retrieve: filtered search, relaxing the filter step by step when it finds nothing -------
    def retrieve(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        return self._retrieve(state, runtime, newest=False)

    def _retrieve(self, state: SelfRagState, runtime: Runtime[RunOptions], *, newest: bool) -> dict[str, Any]:
        opts = runtime.context
        resources = self.resources(state, opts)
        plans = state["resource_plans"]
        question = state["standalone_question"]
        rewritten = state["query"] if state["rewrite_count"] else None
        got = self._speculated(state, opts) or search_resources(
            resources, plans, store=self.c.store, stage=self.c.retrieval, rewritten=rewritten, question=question,
            min_score=opts.min_score, newest=self.today() if newest else None,
        )
        ids = sorted(f"{d['resource']}/{d['id']}" for d in got.documents)
        seen = state["retrieved_sets"]
        update: dict[str, Any] = {
            "documents": got.documents,
            "where": got.where,
            "resource_plans": got.plans,
            "relaxations": [*state["relaxations"], *got.relaxations],
            "retrieved_sets": [*seen, ids],
            "retrievals": [*state["retrievals"], got.record],
        }
        if seen and ids in seen:
            update["stop_reason"] = "no_progress: the search returned the same documents again"
        return update

    @staticmethod
    def _speculated(state: SelfRagState, opts: RunOptions) -> Retrieved | None:
        """The search already run beside the self-query, when it is this very search (text, where,
        k, min_score) of the turn's first retrieval (``workflows.speculation``)."""
        spec, plans = state["speculated"], state["resource_plans"]
        if spec is None or state["retrieved_sets"] or len(plans) != 1 or plans[0]["filter"] is not None:
            return None
        [plan] = plans
        res = Phase.resources(state, opts)[0]
        min_score = res.search.min_score if res.search.min_score is not None else opts.min_score
        text = search_text(plan, None, state["standalone_question"])
        if (spec["text"], spec["where"], spec["k"], spec["min_score"]) != (text, plan["fixed"], plan["k"], min_score):
            return None
        return Retrieved(documents=spec["documents"], plans=list(plans), relaxations=[], record=spec["retrieval"],
                         where=plan["fixed"])

    # -- grade_documents: one relevance verdict per document, concurrently ----------------------
    def grade_documents(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
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
        # A filter (self-queried or from the graph) already holds the question's conditions
        # ("positive reviews", "films by directors born in Ohio"): what is left to judge is the
        # search text, the question minus those conditions (``judged_text``).
        results = self.c.relevance.grade_many(judged_text(state), todo, concurrency=runtime.context.grade_concurrency)
        if (filtered(state) and (len(content_terms(planned_text(state))) < 2 or asks(state) is not None
                                 or self.field(state) is not None)) or whole_computation(state) is not None:
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
