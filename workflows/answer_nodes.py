"""The answer phase: generate (an answer with citations from the relevant documents only), check
(its groundedness and usefulness) and finalize (a typed outcome and the best answer)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.runnables.config import ContextThreadPoolExecutor
from langgraph.runtime import Runtime

from graders import GradeResult
from graders.figures import figures, nearer_figure, other_year, parallel_year, unnamed_codes, unnamed_phrases
from selfrag.lang import MONTHS, QUERY_STOP, UNITS, forms
from selfrag.lang.questions import PREPOSITIONS, asks_yes_or_no
from selfrag.query import affirmed, find_numbers, headed_attribute, record_words
from selfrag.reading import sentence_spans
from selfrag.schema import CollectionSchema
from selfrag.text import content_terms
from workflows import records as rec
from workflows._names import names
from workflows._phase import (
    Phase,
    asks,
    computation,
    decided_verdict,
    filter_held_figures,
    filtered,
    judged_text,
    nothing_matches,
    planned_text,
    whether,
    whole_computation,
)
from workflows.graph_resolution import graph_context
from workflows.options import RunOptions
from workflows.outcomes import Outcome
from workflows.reading import passage_text
from workflows.resource_retrieval import filter_where, plan_where
from workflows.routing import decide_outcome
from workflows.set_answers import (
    SET_REASONS,
    SET_STRATEGIES,
    SetAnswer,
    agent_of,
    aggregate_answer,
    compared_answer,
    count_by_answer,
    distinct_answer,
    document_listing,
    entities_and_documents,
    entity_answer,
    field_answer,
    filter_attributes,
    membership_answer,
    none_answer,
    one_each,
    ranked_answer,
    stated_attribute,
    unasked_words,
    unlocated_answer,
    whether_answer,
    with_values,
)
from workflows.state import SelfRagState, Turn
from workflows.tokens import AnswerDelta

__all__ = ["COMPUTE_CAP", "RIVAL_PROBABILITY", "AnswerNodes"]

COMPUTE_CAP = 1_000
"""The most chunks a superlative ranks or an aggregate sums ("the cheapest" of more is left to the
reader, unsigned): every match is read, with its text."""

_THERE = re.compile(r"\b(?:is|are|was|were)\s+there\b", re.IGNORECASE)
"""Whether any record exists ("Was there a recount in Quarry in 2021?"): none is "No"."""

RIVAL_PROBABILITY = 0.5
"""An answer is not signed while another document's answer that says otherwise has at least this
reader probability: the reader gives it even odds, so the documents disagree (last year's timetable
and this year's). On HaluEval dev rows 1-1600 (one relevant passage a question, mostly) it unsigns
one answer of 157, a wrong one; any bound from 0.3 to 0.6 does the same there."""


class AnswerNodes(Phase):
    # -- generate: an answer with citations from the relevant documents only --------------------
    def generate(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        docs = state["relevant"]
        gens = list(state["generations"])
        made = self._set_answer(state)
        if made is not None:
            gens.append(rec.GeneratedAnswer(
                number=len(gens) + 1, answer=made.answer, citations=made.citations, documents=[d["id"] for d in docs],
                query=state["query"], attempts=0, error=None, grounded=None, useful=None, strategy=made.strategy,
                citation_source=made.strategy, short_answer=made.short_answer, probability=None, verified=None,
            ))
            return {"generations": gens, "generation_count": state["generation_count"] + 1}
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
            rival=None if out.rival is None else rec.RivalRecord(answer=out.rival.answer, document=out.rival.document,
                                                                 probability=out.rival.probability),
        ))
        return {"generations": gens, "generation_count": state["generation_count"] + 1}

    def _set_answer(self, state: SelfRagState) -> SetAnswer | None:
        """The graph's entity set or the matching documents, when the question's filters hold all
        it asks for (``workflows.set_answers``); None for a question the reader or the model answers."""
        computed = whole_computation(state)
        if computed is not None:
            plan = next(p for p in state["resource_plans"] if p["error"] is None)
            collection = self.c.store.get_collection(plan["resource"])
            chunks = collection.matching(plan_where(plan), cap=COMPUTE_CAP)
            if chunks is None:
                return None
            if computed.get("compared") and not one_each(chunks, str(computed["compared"])):
                return None  # "Ostby or Kelbridge" over years of each: which year's is not said
            if computed["op"] == "rank" and computed.get("subject"):
                return compared_answer(chunks, plan["resource"], computed)
            if computed["op"] == "rank":
                return ranked_answer(chunks, plan["resource"], collection.schema, computed, page=plan["k"],
                                     label=computed.get("compared")
                                     or headed_attribute(state["standalone_question"], collection.schema))
            if computed["op"] == "distinct":
                return distinct_answer(chunks, plan["resource"], computed)
            if computed["op"] == "count_by":
                # The fewest may be a value no match holds: every value the collection holds counts.
                everywhere = [] if computed["highest"] else collection.matching(plan["fixed"], cap=COMPUTE_CAP)
                if everywhere is None:
                    return None
                others = {str(x) for c in everywhere for v in [c.metadata.get(str(computed["attribute"]))]
                          for x in (v if isinstance(v, list) else [v]) if x not in (None, "")}
                return count_by_answer(chunks, plan["resource"], computed, others=sorted(others))
            return aggregate_answer(chunks, plan["resource"], computed)
        field = self.field(state)
        if field is not None:
            plan = next(p for p in state["resource_plans"] if p["error"] is None)
            selected = [d for d in state["relevant"] if d["resource"] == plan["resource"]]
            # Only where the filter selects one document in the whole collection: of several,
            # which one's value the question means is not said, and a question that asks for them
            # ("Which products were recalled in 2020?") is their listing, below.
            if selected and self.c.store.get_collection(plan["resource"]).count_documents(plan_where(plan)) == 1:
                return field_answer(selected[0], field,
                                    count=re.match(r"\s*how\s+many\b", state["standalone_question"], re.IGNORECASE) is not None)
        asked_of = whether(state)
        if asked_of is not None:
            plan = next(p for p in state["resource_plans"] if p["error"] is None)
            collection = self.c.store.get_collection(plan["resource"])
            subject = filter_where(plan["fixed"], asked_of["subject"])
            both = filter_where(subject, asked_of["predicate"])
            named, having = collection.count_documents(subject), collection.count_documents(both)
            if named and having is not None:
                shown = collection.matching(both if having else subject, cap=COMPUTE_CAP)
                if shown is not None:
                    return whether_answer(shown, plan["resource"], asked_of, named=named, having=having,
                                          schema=collection.schema, k=plan["k"])
            return None
        if nothing_matches(state):
            plan = next(p for p in state["resource_plans"] if p["error"] is None)
            collection = self.c.store.get_collection(plan["resource"])
            yes_no = asks_yes_or_no(state["standalone_question"])
            if yes_no and not _THERE.search(state["standalone_question"]):
                unlocated = self._unlocated(plan, collection)
                if unlocated is not None:
                    return unlocated
            return _with_unrecorded(none_answer(plan, collection.schema, yes_no=yes_no), plan)
        asked = asks(state)
        if asked is None:
            return None
        plan = next(p for p in state["resource_plans"] if p["error"] is None)
        collection = self.c.store.get_collection(plan["resource"])
        schema = collection.schema
        date_attr = schema.date_attribute
        # A listing shows one page; the count is of every document the same filter selects, so
        # "N matching documents" is never the page's size signed as the count.
        total = collection.count_documents(plan_where(plan)) if asked in ("documents", "entities_and_documents") else None
        if asked in ("entities", "entities_and_documents", "membership"):
            context = graph_context(schema, self.c.graphs)
            if context is None:
                return None
            about = {r.name: r.description for r in context.link.relations}
            if asked == "membership":
                return membership_answer(plan, context.link.graph, about)
            entities = entity_answer(plan, context.link.graph, about,
                                     yes_no=asked == "entities" and asks_yes_or_no(state["standalone_question"]))
            if entities is None or asked == "entities":
                return entities
            return entities_and_documents(entities, state["relevant"], date_attr.name if date_attr is not None else None,
                                          plan["k"], shown=filter_attributes(plan["filter"]), total=total)
        # "Which towns have …?": each document shown with its town too, and the towns of every
        # match (not only the page shown) first
        headed = headed_attribute(state["standalone_question"], schema)
        listing = document_listing(state["relevant"], date_attr.name if date_attr is not None else None, plan["k"],
                                   yes_no=asks_yes_or_no(state["standalone_question"]),
                                   shown=[*filter_attributes(plan["filter"]), *([headed] if headed else [])], total=total,
                                   newest_page=bool(plan.get("latest")) and not state["rewrite_count"])
        listing = _with_unrecorded(listing, plan)
        if listing is None or headed is None or headed in filter_attributes(plan["filter"]) \
                or _HOW_MANY.match(state["standalone_question"]):
            # "How many battery replacements …?" asks how many matches, not which parts they replaced.
            return listing
        chunks = collection.matching(plan_where(plan), cap=COMPUTE_CAP)
        if chunks is not None and not asks_yes_or_no(state["standalone_question"]) and all(
                c.metadata.get(headed) in (None, "", []) for c in chunks):
            # "What club is Sofia Marin in?": no match records a club, and her results listed say
            # nothing of one. Whatever answers it is a passage's to say.
            return None
        return listing if chunks is None else with_values(listing, chunks, headed)

    # -- check: groundedness and usefulness of the latest answer --------------------------------
    def check(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
        gens = [rec.GeneratedAnswer(**g) for g in state["generations"]]
        current = gens[-1]
        verdicts = list(state["verdicts"])
        if current["error"]:
            verdicts.append(decided_verdict("groundedness", current["number"], False, "ungrounded",
                                     f"generation failed: {current['error']}", failed=True, model="none"))
            current.update({"grounded": False, "useful": False})
            return {"generations": gens, "verdicts": verdicts}
        if current["strategy"] in SET_STRATEGIES:
            # Checked by construction (workflows.set_answers): the graph's own answer, or documents
            # the whole filter selected, quoted as they are. No model is asked, and none is named.
            reason = SET_REASONS[current["strategy"]]
            if current["strategy"] == "graph":
                reason += f": {current['short_answer']}"
            elif current["strategy"] == "graph_listing":
                reason += f" (the entities: {current['short_answer']})"
            verdicts.append(decided_verdict("groundedness", current["number"], True, "grounded", reason))
            verdicts.append(decided_verdict("usefulness", current["number"], True, "useful",
                                            "the question's filters hold all it asks, and this is what they select"))
            current.update({"grounded": True, "useful": True, "verified": True})
            if unknown := _counts_unknown(state):
                # "How many rentals were not handled by Paul Okafor?": the store's "not" selects the
                # rentals that record no agent too. Whether they count is the data's to say (an
                # agent not recorded, or a call no inspector boarded): shown and said, not signed.
                verdicts.append(decided_verdict(
                    "conditions", current["number"], False, "unverified",
                    f"the matches include records that hold no value the negation tests ({unknown}): whether they "
                    "match is not known"))
                current["verified"] = False
            return {"generations": gens, "verdicts": verdicts}
        docs = state["relevant"]
        question, answer, short = state["standalone_question"], current["answer"], current["short_answer"]
        usefulness_question = judged_text(state)
        held = filter_held_figures(state)
        if current["probability"] is not None:
            # The reader's own calibrated probability: an answer it is unsure of is shown, flagged.
            p = current["probability"]
            threshold = self.c.generator.reader.threshold("reader") if self.c.generator.reader is not None else 1.0
            ok = p >= threshold
            reason = f"reader probability {p:.2f} {'>=' if ok else '<'} threshold {threshold:.2f}"
            rival = current.get("rival")
            if ok and rival is not None and rival["probability"] >= RIVAL_PROBABILITY:
                elsewhere = _about_another(question, current, rival["document"], docs)
                if elsewhere:
                    # HaluEval dev: "Who recorded Friends in Low Places?" read "Chris Shiflett" out of a
                    # document about another band, which never names the song: an answer to another
                    # question, no disagreement (on dev rows 1-1000, 17 of 18 rivals stood beside right
                    # answers; 8 of them came from such documents).
                    reason += (f"; document [{rival['document']}] answers {rival['answer']!r}, but never names "
                               f"{', '.join(map(repr, elsewhere))}, which the question and the answer's document do")
                else:
                    ok = False
                    reason += (f", but document [{rival['document']}] answers {rival['answer']!r} (reader probability "
                               f"{rival['probability']:.2f} >= {RIVAL_PROBABILITY:.2f}): the documents disagree")
            if ok and not filtered(state) and (unstated := _years_unstated(question, answer)):
                # "What was the early refill threshold in 2022?" read "80 percent" out of "The
                # threshold stayed at 80 percent." of the 2024 section: a quote that states no year
                # the question asks about says nothing of that year. (A year a filter holds is the
                # filter's: the documents it selected satisfy it without stating it.)
                ok = False
                reason += f", but the quote states no {' or '.join(unstated)}, which the question asks about"
            if ok and short:
                for guard in _QUOTE_GUARDS:
                    if (but := guard(question, short, answer, docs)) is not None:
                        ok = False
                        reason += f", but {but}"
                        break
            verdicts.append(decided_verdict("reader", current["number"], ok, "verified" if ok else "unverified", reason,
                                            model=self._reader_name(), prompt_version="reader/v1"))
            current["verified"] = ok
        if state["relaxations"]:
            # Nothing matched every condition the question stated, so the search dropped some:
            # each document found fails one of them (another product, another year), and an
            # answer read from it answers another question, however well it reads.
            dropped = "; ".join(r["detail"] for r in state["relaxations"])
            verdicts.append(decided_verdict(
                "conditions", current["number"], False, "unverified",
                f"no document matched all the question's conditions; the search {dropped}: the answer is "
                "from documents that are not what was asked about"))
            current["verified"] = False
        if (computed := computation(state)) is not None:
            # "Which hotel is the cheapest?", "the average price": a passage says what one hotel
            # costs, never that no other costs less nor what they cost on average. Only every
            # match's stored value (``ranked_answer``, ``aggregate_answer``) shows that.
            if computed["attribute"]:
                by = computed["attribute"]
            elif computed.get("candidates"):
                by = " or ".join(computed["candidates"]) + ": which one is not said"
            else:
                by = "by no stored attribute: what it ranks by is not recorded"
            what = (f"{'highest' if computed['highest'] else 'lowest'} {by}" if computed["op"] == "rank"
                    else f"each {by} by how many matches hold it" if computed["op"] == "count_by"
                    else f"the number of distinct {by}" if computed["op"] == "distinct" else f"the {computed['op']} of {by}")
            verdicts.append(decided_verdict(
                "ranking" if computed["op"] in ("rank", "count_by") else "aggregate", current["number"], False, "unverified",
                f"the question asks for the {computed['phrase']} ({what}), which no one passage shows; the matches "
                "could not be computed over as asked"))
            current["verified"] = False
        cited = {c["id"] for c in current["citations"]}
        read = [(d["text"], d["metadata"]) for d in docs if d["id"] in cited or not cited]
        if unnamed := unnamed_codes(question, read):
            # "What are the prerequisites for CHEM 210?" answered from ASTR 330's "Prerequisites are
            # ASTR 210 and MATH 220": a passage that never names the code asked about answers
            # another question, however sure the reader is and whatever figure it shares.
            verdicts.append(decided_verdict(
                "names", current["number"], False, "unverified",
                f"the question names {', '.join(unnamed)}, which the cited documents never name: the answer "
                "is about something else"))
            current["verified"] = False
        asked = [n for p in state["resource_plans"] if p["error"] is None for n in p.get("unknown_names", [])]
        if asked and (unwritten := unnamed_phrases(asked, read)):
            # "What's the mileage on the Vesta Aurora Sport?" read from the Vesta Aurora's listing:
            # the question names no known car, and the passage is about another one.
            verdicts.append(decided_verdict(
                "names", current["number"], False, "unverified",
                f"the question names {', '.join(unwritten)}, no known item, which the cited documents never "
                "write: the answer is about something else"))
            current["verified"] = False
        if (unnamed_item := self._unnamed_item(state, short or answer, cited)) is not None:
            # "Which paper found that …?" answered "Paper abstracts", a phrase of another abstract:
            # the question asks which item, and the answer names none the documents are.
            verdicts.append(decided_verdict("attribute", current["number"], False, "unverified", unnamed_item))
            current["verified"] = False
        if (named := self._another_name(state, short or "", cited)) is not None:
            # "Who was the buyer's agent on LST-6003?" read as Ruth Okoye, the listing agent its
            # passage names: the record states no buyer's agent, and the answer is another
            # attribute's value, however sure the reader is.
            verdicts.append(decided_verdict("attribute", current["number"], False, "unverified", named))
            current["verified"] = False
        if (other := self._other_measure(state, short or answer, cited)) is not None:
            # "How many units of the Quill Hand Mixer were sold?" read as the 3,100 units the notice
            # recalls: the figure is a stored value of an attribute that records something else
            # than the question asks, so it answers another question, however well it reads.
            verdicts.append(decided_verdict("attribute", current["number"], False, "unverified", other))
            current["verified"] = False
        if current["probability"] is not None and short and (word := cut_from_word(
                short, [passage_text(d) for d in docs if d["id"] in cited])) is not None:
            # "How many works were acquired in 1995?" read as "11-20", the month and day of
            # "acquired: 1995-11-20": a span cut out of a longer word or code is a piece of
            # another value, however sure the reader is.
            verdicts.append(decided_verdict(
                "span", current["number"], False, "unverified",
                f"the answer {short!r} is part of {word!r} wherever the cited documents write it: a piece of another value"))
            current["verified"] = False
        if current["probability"] is not None and (near := nearer_in_quote(question, short or "", answer)) is not None:
            # "What Hits@10 do graph-based methods get?" read as the 0.472 of "Hits@10 reaches 0.472,
            # close to graph-based methods at 0.481": the clause the question describes states the
            # other figure, so the reader's span is a near miss, however sure reader and critic are.
            verdicts.append(decided_verdict(
                "figure", current["number"], False, "unverified",
                f"the answer {short!r} is stated beside {near!r} in one sentence, and the clause stating "
                f"{near!r} is the one the question's words describe: the answer may be a near miss"))
            current["verified"] = False
        if current["probability"] is not None and short and (stated := other_year(question, short, answer)) is not None:
            # "the notice period … in 2022" read as "Since 2023 the notice period is 7 days": the
            # sentence states the figure for years the question does not ask.
            verdicts.append(decided_verdict(
                "figure", current["number"], False, "unverified",
                f"the answer {short!r} is stated for other years than the question asks: {stated!r}"))
            current["verified"] = False
        if current["probability"] is not None and short and current["verified"] is not False and (
                parallel := parallel_year(question, short, answer, [passage_text(d) for d in docs])) is not None:
            # "the KRT2 budget in the year Mount Kelda erupted" read as "Its budget for 2022 was
            # 48,000 dollars" beside "The KRT2 budget for 2024 was 55,000 dollars": the documents
            # state it for several years, the question writes none, and which one it means is the
            # reader's guess however sure it is.
            verdicts.append(decided_verdict(
                "figure", current["number"], False, "unverified",
                f"the answer {short!r} is stated for a year the question does not write, and {parallel!r} "
                "states it for another: which year's figure the question asks is not read"))
            current["verified"] = False
        useful: GradeResult | None
        if self.c.parallel_checks:
            with ContextThreadPoolExecutor(max_workers=2) as pool:
                g_future = pool.submit(self.c.groundedness.grade, answer, docs, question, short_answer=short, held=held)
                u_future = pool.submit(self.c.usefulness.grade, usefulness_question, answer, docs, short_answer=short)
                grounded, useful = g_future.result(), u_future.result()
        else:
            grounded = self.c.groundedness.grade(answer, docs, question, short_answer=short, held=held)
            useful = (self.c.usefulness.grade(usefulness_question, answer, docs, short_answer=short)
                      if grounded.passed else None)
        results: list[GradeResult | None] = [grounded, useful]
        for res in results:
            if res is not None:
                verdicts.append(res.record(current["number"]))
        current.update({"grounded": grounded.passed, "useful": None if useful is None else useful.passed})
        return {"generations": gens, "verdicts": verdicts}

    def _unlocated(self, plan: rec.ResourcePlan, collection: Any) -> SetAnswer | None:
        """The answer to a yes/no question whose filter matched nothing because the item it names
        has no record in the year or at the date it writes ("Did Quarry have a recount in 2021?"
        of a district whose one record is of 2023): that it has none then, with the years or dates
        it has. A "No" would say it had a record then, without what was asked. None when every
        named value has a record at those times (what was asked is what none has)."""
        node = plan["filter"]
        if node is None:
            return None
        conjuncts = node["arguments"] if node.get("operator") == "and" else [node]
        schema = collection.schema

        def locates(c: dict[str, Any]) -> bool:
            a = schema.attribute(str(c.get("attribute")))
            return a is not None and (a.type == "date" or a.kind == "year")

        locators = [c for c in conjuncts if "attribute" in c and locates(c)]
        if not locators or len(conjuncts) < len(locators) + 2:
            # "Was the Golf listed in 2024?": with nothing asked beside the item and the date, the
            # date is what is asked, and "No" (it was listed in 2023) the answer.
            return None
        for c in conjuncts:
            a = schema.attribute(str(c.get("attribute")))
            if a is None or a.type != "string" or c.get("comparator") != "eq" or not isinstance(c.get("value"), str):
                continue
            alone = filter_where(plan["fixed"], c)
            then = filter_where(plan["fixed"], {"operator": "and", "arguments": [c, *locators]})
            if collection.count_documents(then) != 0 or not collection.count_documents(alone):
                continue
            held = collection.matching(alone, cap=COMPUTE_CAP)
            if held is None:
                return None
            return unlocated_answer(plan, schema, c, locators, held)
        return None

    def _one_schema(self, state: SelfRagState) -> tuple[rec.ResourcePlan, CollectionSchema] | None:
        """The plan and schema of the one collection a question is asked of, when it declares attributes."""
        live = [p for p in state["resource_plans"] if p["error"] is None]
        if len(live) != 1:
            return None
        schema = self.c.store.get_collection(live[0]["resource"]).schema
        return (live[0], schema) if schema.attributes else None

    def _other_measure(self, state: SelfRagState, short: str, cited: set[str]) -> str | None:
        """Why the short answer (a model's whole answer, when it gives none) is a cited record's
        stored value of an attribute the question does not ask (``stated_attribute``,
        ``unasked_words``); None when it is not, or when the question asks that attribute and
        nothing more, or is not asked of one collection with a schema."""
        if not short or (found := self._one_schema(state)) is None:
            return None
        plan, schema = found
        for d in state["relevant"]:
            if d["id"] not in cited or (attribute := stated_attribute(short, d["metadata"], schema)) is None:
                continue
            # What the attribute records, not when it is missing: "sum insured for buildings;
            # missing for contents-only policies" records no contents.
            said = affirmed(schema).attribute(attribute.name) or attribute
            if left := unasked_words(planned_text(state), said, plan["filter"], schema=affirmed(schema)):
                records = f", {attribute.description}," if attribute.description else ""
                return (f"the answer {short[:80]!r} is the stored {attribute.name}{records} of {d['id']}; the question asks "
                        f"{', '.join(sorted(left))!r}, which that attribute does not record")
        return None

    def _another_name(self, state: SelfRagState, short: str, cited: set[str]) -> str | None:
        """Why the short answer is a cited record's stored value of a word attribute other than the
        one the question names by its name ("buyer's agent" of buyers_agent, answered with the
        record's listing_agent); None when it is not, or the question names no attribute, or names
        that one."""
        if not short or (found := self._one_schema(state)) is None:
            return None
        plan, schema = found
        tested = set(filter_attributes(plan["filter"]))
        # A person's role named ("the buyer's agent"), not a thing the question's verb takes ("who
        # reads the instruments": the observer, not an instrument).
        question = state["standalone_question"]
        # Or named by the verb it is the doer of ("Who presents SC-182?": the presenter).
        asked = {a.name for a in schema.named_in(question, items=record_words(schema)) if a.kind == "name"} - tested \
            | {a.name for a in schema.attributes if a.kind == "name" and a.name not in tested and agent_of(a.name, question)}
        if not asked:
            return None
        said = short.strip().rstrip(".").casefold()

        def states(value: Any) -> bool:
            return any(isinstance(v, str) and v.casefold() == said for v in (value if isinstance(value, list) else [value]))

        for d in state["relevant"]:
            if d["id"] not in cited or any(states(d["metadata"].get(name)) for name in asked):
                continue  # one person in both roles: the asked one's value too
            for a in schema.attributes:
                if a.type in ("string", "string[]") and a.name not in asked and a.name not in tested \
                        and states(d["metadata"].get(a.name)):
                    return (f"the answer {short[:80]!r} is the stored {a.name} of {d['id']}; the question asks its "
                            f"{', '.join(sorted(asked))}")
        return None

    def _unnamed_item(self, state: SelfRagState, short: str, cited: set[str]) -> str | None:
        """Why the answer to a question asking which item or which value of a word attribute
        ("Which paper …?", "Which brand …?": ``headed_attribute``) names none of the cited
        documents' values of it (an item by any of its names or identifiers); None when it does,
        or when the question asks no such thing or its filter holds that attribute."""
        if not short or (found := self._one_schema(state)) is None:
            return None
        plan, schema = found
        headed = schema.attribute(headed_attribute(state["standalone_question"], schema) or "")
        if headed is None or headed.type not in ("string", "string[]") or headed.name in filter_attributes(plan["filter"]):
            return None
        calls = [headed.name]
        if headed.kind in ("identifier", "name") or headed.name == schema.label_attribute:
            calls += [a.name for a in schema.attributes if a.type in ("string", "string[]") and a.kind in ("identifier", "name")]
        held = [d["metadata"].get(name) for d in state["relevant"] if d["id"] in cited for name in calls]
        values = {str(x).casefold() for v in held for x in (v if isinstance(v, list) else [v]) if x not in (None, "")}
        said = short.casefold()
        if not values or any(v in said or (len(said) >= 3 and said in v) for v in values):
            return None
        return (f"the question asks which {headed.name}, and the answer {short[:80]!r} names none of the cited "
                "documents'")

    def _reader_name(self) -> str:
        reader = self.c.generator.reader
        return str(getattr(reader, "name", "reader")) if reader is not None else "none"

    # -- finalize: a typed outcome and the best answer ------------------------------------------
    def finalize(self, state: SelfRagState, runtime: Runtime[RunOptions]) -> dict[str, Any]:
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
            names = [r.name for r in self.resources(state, runtime.context)]
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
        short = best["short_answer"] if best is not None and best["answer"] else None
        confidence = best["probability"] if best is not None and best["answer"] else None
        turn = Turn(question=state["question"], standalone_question=state["standalone_question"],
                    answer=answer, outcome=outcome)
        if runtime.context.request_key is not None:
            turn["request_key"] = runtime.context.request_key
            turn["citations"], turn["short_answer"], turn["confidence"] = list(citations), short, confidence
        return {
            "outcome": outcome, "answer": answer, "citations": citations, "stop_reason": stop,
            "short_answer": short, "confidence": confidence, "history": [*(state.get("history") or []), turn],
        }


_JOINERS = "-./:"


def cut_from_word(short: str, texts: Sequence[str]) -> str | None:
    """The longer word or code ``short`` is written inside in ``texts`` ("1995-11-20" of "11-20"),
    when every place they write it is inside one; None when one place writes it whole, or none does.
    A joiner ("-", ".", "/", ":") joins only characters of one class: "16" of "16-year-old" is a
    figure and its unit, "51" of "Collins.51" a missing space. A year at the head of a date ("1995"
    of "1995-11-20") is that date's year; "Yes" and "No" are no spans."""
    wanted = short.strip()
    if not wanted or wanted.casefold() in ("yes", "no"):
        return None

    def joined(a: str, b: str) -> bool:
        return (a.isdigit() and b.isdigit()) or (a.isalpha() and b.isalpha())

    word: str | None = None
    for text in texts:
        for m in re.finditer(re.escape(wanted), text, re.IGNORECASE):
            before, after = text[max(0, m.start() - 2):m.start()], text[m.end():m.end() + 2]
            starts_inside = bool(before) and (before[-1].isalnum() or (
                len(before) == 2 and before[-1] in _JOINERS and joined(before[0], wanted[0])))
            ends_inside = bool(after) and (after[0].isalnum() or (
                len(after) == 2 and after[0] in _JOINERS and joined(after[1], wanted[-1])))
            if ends_inside and not starts_inside and re.fullmatch(r"\d{4}", wanted) and after[0] == "-":
                ends_inside = False  # "1995" of "1995-11-20"
            if not starts_inside and not ends_inside:
                return None
            lo = m.start()
            while lo > 0 and (text[lo - 1].isalnum() or text[lo - 1] in _JOINERS):
                lo -= 1
            hi = m.end()
            while hi < len(text) and (text[hi].isalnum() or (text[hi] in _JOINERS and hi + 1 < len(text) and text[hi + 1].isalnum())):
                hi += 1
            word = word or text[lo:hi]
    return word


def _counts_unknown(state: SelfRagState) -> str:
    """The ids a plan's negated string or list condition counts though they hold no value of it
    (``ResourcePlan.uncounted`` notes ending "counted: …", not "not counted: …"); "" when none."""
    ids = [note.rsplit("counted: ", 1)[1] for p in state["resource_plans"] if p["error"] is None
           for note in p.get("uncounted", []) if not note.rsplit("counted: ", 1)[0].endswith("not ")]
    return ", ".join(ids)


def _with_unrecorded(answer: SetAnswer | None, plan: rec.ResourcePlan) -> SetAnswer | None:
    """``answer`` (the matches of a negated condition) with the records it cannot tell said after
    it: those lacking the attribute the negation needs ("How many loans are not guaranteed?": 17,
    and 3 that record no guarantee either way), not counted, or counted where the store selects
    them too (a string's "not", a list's "without"; ``selfrag.query.unrecorded``): then the answer
    is shown, not signed (``_counts_unknown``)."""
    notes = plan.get("uncounted", [])
    if answer is None or not notes:
        return answer
    lines = []
    for detail in notes:
        name, rest = detail.split(":", 1)
        head, ids = rest.rsplit("counted: ", 1)
        many = "," in ids
        whether = f"so whether {'they match' if many else 'it matches'} is not known"
        lines.append(f"Not counted: {ids}, which record{'' if many else 's'} no {name}, {whether}." if head.endswith("not ")
                     else f"Counted, though {ids} record{'' if many else 's'} no {name}, {whether}.")
    return dataclasses.replace(answer, answer=answer.answer.rstrip() + "\n" + "\n".join(lines))


def nearer_in_quote(question: str, short: str, answer: str) -> str | None:
    """The figure, as written, that a sentence of ``answer`` (the short answer and its quote)
    states beside the short answer's figure in the clause the question's words describe
    (``nearer_figure``); None when no sentence does."""
    if not figures(short):
        return None
    quote = re.sub(r"\[\d{1,3}\]", " ", answer)
    for sentence in sentence_spans(quote):
        if (near := nearer_figure(question, short, sentence.text)) is not None:
            return near.text
    return None


def _about_another(question: str, current: rec.GeneratedAnswer, number: int, docs: Sequence[rec.Document]) -> list[str]:
    """The names the question writes (``workflows._names``) that the answer's cited documents write
    and that no other document the answer was read from writes all of, the one numbered ``number``
    among them included: no other document is about what the question names, so none can say
    otherwise. Empty when there are none (or another document writes them all)."""
    by_id = {d["id"]: d for d in docs}
    read = current["documents"]
    if not 1 <= number <= len(read) or read[number - 1] not in by_id:
        return []
    cited_ids = {c["id"] for c in current["citations"]}
    cited = [(by_id[i]["text"], by_id[i]["metadata"]) for i in cited_ids if i in by_id]
    asked = [n.text for n in names(question, {}, question=True)]
    shared = [n for n in asked if cited and not unnamed_phrases([n], cited)]
    if not shared:
        return []
    others = [by_id[i] for i in read if i not in cited_ids and i in by_id]
    if any(not unnamed_phrases(shared, [(d["text"], d["metadata"])]) for d in others):
        return []  # another document is about it too: the reader's best rival is not the only one
    return unnamed_phrases(shared, [(by_id[read[number - 1]]["text"], by_id[read[number - 1]]["metadata"])])


_HOW_MANY = re.compile(r"\s*how\s+many\b", re.IGNORECASE)


_ALONGSIDE = re.compile(r"\b(?:and|or|nor|with|both|besides|beside|alongside|along|together|other|either|neither|also)\b",
                        re.IGNORECASE)
"""A question that asks for company ("along with Harmony", "Harmony and which other drug", "either
… or …"): what a quote lists beside the thing it names may be just what it asks."""


def listed_beside(question: str, short: str, answer: str) -> str | None:
    """The name the question writes (``workflows._names``) that the quote in ``answer`` joins to
    ``short`` by "and" or "or", at most two words between ("Harmony and brand-name
    Methylphenidate"): two of a kind listed side by side, so the quote says nothing of one about
    the other. None when there is none, or when the question itself asks for company."""
    if not short.strip() or _ALONGSIDE.search(question):
        return None
    quote = re.sub(r"\[\d{1,3}\]", " ", answer)
    said = re.escape(short.strip())
    joint = r"\s+(?:and|or|&)\s+(?:[\w'-]+\s+){0,2}?"
    for name in names(question, {}, question=True):
        named = re.escape(name.text)
        if name.text.casefold() in short.casefold() or short.casefold() in name.text.casefold():
            continue
        if re.search(rf"(?<!\w){named}{joint}{said}(?!\w)", quote, re.IGNORECASE) \
                or re.search(rf"(?<!\w){said}{joint}{named}(?!\w)", quote, re.IGNORECASE):
            return name.text
    return None


_YEAR = re.compile(r"(?<![\d.,])(?:1[89]|20)\d\d(?![\d.,]\d)")


_EARLIER = re.compile(r"\s*(?:before|until|till|prior\s+to|up\s+to)\s+([^,]*?\d{4})\b|\s*(?:previously|formerly)\b",
                      re.IGNORECASE)


def _earlier_time(question: str, short: str, answer: str) -> str | None:
    """The phrase that opens the quoted sentence stating ``short`` with a time it has ended
    ("Before 1 April 2024", "Until 2023", "Previously"), when the question names no year and none of
    those words; None otherwise."""
    if _YEAR.search(question) or re.search(r"\b(?:before|until|till|prior|previously|formerly|used\s+to|was|were|did)\b",
                                          question, re.IGNORECASE):
        return None
    for found in sentence_spans(answer):
        sentence = found.text
        if short in sentence and not sentence.strip().startswith(short) and (m := _EARLIER.match(sentence)) is not None:
            return m.group(0).strip()
    return None


_CASE = re.compile(r"\s*(?:in|for|at|on|under|within|inside|outside|among|with|from)\s+((?:[^\s,;:.]+\s+){0,4}[^\s,;:.]+),\s",
                   re.IGNORECASE)
_CODE_WORD = re.compile(r"[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*")


def _stated_of_a_case(question: str, short: str, answer: str) -> str | None:
    """The phrase opening the quoted sentence that states ``short`` when it names a case by a code
    or a numbered name the question does not ("In zone AB-140,", "For Building 7,"); None
    otherwise. A date opening ("On April 21, 1946,") names a time, not a case."""
    asked = {f for w in _CODE_WORD.findall(question) for f in forms(w.casefold())}
    for found in sentence_spans(answer):
        sentence = found.text
        if short not in sentence or sentence.strip().startswith(short):
            continue
        m = _CASE.match(sentence)
        if m is None or short in m.group(0):
            return None
        ws = _CODE_WORD.findall(m.group(1))
        coded = [w for i, w in enumerate(ws) if (re.search(r"\d", w) and re.search(r"[A-Za-z]", w))
                 or (i + 1 < len(ws) and re.fullmatch(r"\d+[A-Za-z]?", ws[i + 1]) is not None and w.isalpha()
                     and w.casefold() not in MONTHS and w.casefold() not in QUERY_STOP)]
        return m.group(0).strip().rstrip(",") if any(not forms(w.casefold()) & asked for w in coded) else None
    return None


_NUMBERED = re.compile(r"\b([A-Za-z]{2,})\s+(\d+[A-Za-z]?)\b")


def _another_numbered(question: str, short: str) -> tuple[str, str] | None:
    """(the numbered name in ``short``, the one ``question`` writes) when both name the same word
    with other numbers ("Band 2" in the answer, "Band 3" in the question); None otherwise."""
    def named(text: str) -> list[tuple[str, str]]:
        # Not a year after a preposition ("in 1910"): a name and its number ("Band 3", "zone 4").
        return [(w, n) for w, n in _NUMBERED.findall(text) if w.casefold() not in QUERY_STOP
                and w.casefold() not in PREPOSITIONS and not _YEAR.fullmatch(n)]

    asked = {word.casefold(): f"{word} {number}" for word, number in named(question)}
    numbers = {(word.casefold(), number.casefold()) for word, number in named(question)}
    for word, number in named(short):
        if word[:1].isupper() and word.casefold() in asked and (word.casefold(), number.casefold()) not in numbers:
            return f"{word} {number}", asked[word.casefold()]
    return None


_CONTRAST = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|as\s+opposed\s+to|unlike|compared\s+(?:with|to))\b",
                       re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")


def _set_against(question: str, short: str, answer: str) -> str | None:
    """A word of ``question`` that the quoted sentence stating ``short`` writes only after an
    "instead of" (or "rather than", "unlike" …) that follows ``short``, as a qualifier of what it
    sets the figure against ("retail" of "$95 instead of the retail fee" for "What is the retail
    documentation fee?"); None otherwise. A head noun alone after it ("instead of the standard
    rate" for "What drying rate …?") is the thing asked, in another case."""
    asked = frozenset().union(*(forms(w.casefold()) for w in _WORD.findall(question) if w.casefold() not in QUERY_STOP))
    for found in sentence_spans(answer):
        sentence = found.text
        at = sentence.find(short)
        m = _CONTRAST.search(sentence, at + len(short)) if at >= 0 else None
        if m is None:
            continue
        before = frozenset().union(*(forms(w.casefold()) for w in _WORD.findall(sentence[:m.start()])))
        words: list[str] = _WORD.findall(re.split(r"[,;.]", sentence[m.end():])[0])
        for i, w in enumerate(words[:-1]):
            if forms(w.casefold()) & asked and not forms(w.casefold()) & before and words[i + 1].casefold() not in QUERY_STOP:
                return w
    return None


_ASKED_MEASURES = {"tall": {"length"}, "high": {"length"}, "wide": {"length"}, "deep": {"length"},
                   "far": {"length"}, "long": {"length", "time"}, "heavy": {"weight"}}
"""What "how <word>" asks: "how tall" a length, "how long" a length or a time."""


def _another_measure(question: str, short: str) -> tuple[str, str] | None:
    """(the measure "how tall/high/long/…" asks, the other one the short answer's unit is) when
    they differ ("How tall …?" answered "15 square metres"); None otherwise, or when either is
    not said."""
    m = re.match(r"\s*how\s+(\w+)\b", question, re.IGNORECASE)
    asked = _ASKED_MEASURES.get(m.group(1).casefold()) if m is not None else None
    found = find_numbers(short)
    if asked is None or not found:
        return None
    unit = UNITS.get(found[0].unit or "")
    said = "money" if found[0].money else unit.dimension if unit is not None else None
    if said is None or said in asked:
        return None
    return " or ".join(sorted(asked)), said


def _qualified_elsewhere(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> tuple[str, str] | None:
    """For a figure ``short``, a word of ``question`` the quoted sentence stating it lacks, and the
    document with a sentence that has that word, every word the question and the quote share (two
    at least) and a figure the quote does not state: "priority" and the document of "A priority
    review of marking … costs £48.00." for "How much is a priority review of marking?" quoted "a
    review of marking costs £42.00". None otherwise. (Not of a name: "Who did Red Cloud defeat in
    the Powder River War?" is answered by a quote of "Red Cloud's War", another of its names.)"""
    if not _FIGURE.search(short):
        return None  # a figure asked for: a name's quote may lack a word the passage gives elsewhere
    quoted = next((s.text for s in sentence_spans(answer) if short in s.text and s.text.strip().rstrip(".") != short), None)
    if quoted is None:
        return None
    asked = {t for t in content_terms(question) if not t[:1].isdigit()}
    said = content_terms(quoted)
    shared, missing = asked & said, asked - said
    if len(shared) < 2 or not missing:
        return None
    stated = set(_FIGURE.findall(quoted))
    # What the quote's own document says of the question: a rival says all of it too (another
    # row's "album … released … Records" is about another album).
    plain = re.sub(r"\s*\[\d+\]\s*$", "", quoted.strip()).rstrip(".")
    about = asked & set().union(*(content_terms(str(d["text"])) for d in docs if plain in str(d["text"])))
    for d in docs:
        if not about <= content_terms(str(d["text"])):
            continue
        for found in sentence_spans(str(d["text"])):
            terms = content_terms(found.text)
            if shared <= terms and (extra := sorted(missing & terms)) and set(_FIGURE.findall(found.text)) - stated:
                return extra[0], str(d["id"])
    return None


_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def _years_unstated(question: str, answer: str) -> list[str]:
    """The years ``question`` names ("in 2022") that ``answer`` (the short answer and its quote)
    nowhere states, not even inside a date ("2022-09-20")."""
    return [y for y in dict.fromkeys(_YEAR.findall(question)) if y not in answer]


# Each guard says, as a clause after "but", why the reader's answer ``short`` quoted from
# ``answer`` is not what ``question`` asks, however sure the reader is; None when it sees nothing.
QuoteGuard = Callable[[str, str, str, Sequence[rec.Document]], "str | None"]


def _guard_earlier(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "How much does a replacement key fob cost?" read "$12" out of "Before 1 April 2024 … a key
    # fob was $12.": a figure the quote states of a time it has ended is not what the question,
    # which names no such time, asks.
    earlier = _earlier_time(question, short, answer)
    return f"the quote states it of the time {earlier!r}, which the question does not ask about" if earlier else None


def _guard_case(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "How long can disabled badge holders park at a meter?" read "3 hours" out of "In zone
    # AB-140, where the normal maximum stay is 1 hour, badge holders may stay 3 hours.", the
    # exception beside the rule's 4 hours: a figure the quote states of a case the question does
    # not name is not the question's answer.
    case = _stated_of_a_case(question, short, answer)
    return None if case is None else f"the quote states it of the case {case!r}, which the question does not name"


def _guard_numbered(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "How much does Smile Plus pay for Band 3 treatment?" read "80% of Band 2": the short answer
    # names another numbered case than the one the question asks about.
    numbered = _another_numbered(question, short)
    return None if numbered is None else f"the answer is of {numbered[0]!r}, and the question asks about {numbered[1]!r}"


def _guard_against(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "What is the retail documentation fee?" read "$95" out of "The documentation fee is $95
    # instead of the retail fee.": the quote sets its figure against the thing asked about.
    against = _set_against(question, short, answer)
    return None if against is None else f"the quote states it in place of the {against!r} one the question asks about"


def _guard_measure(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "How tall can a fence be without a permit?" read "15 square metres" out of the shed rule: a
    # figure of another measure than the one the question asks is no answer to it.
    measured = _another_measure(question, short)
    return None if measured is None else f"the question asks a {measured[0]} and the answer is a {measured[1]}"


def _guard_qualified(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "How much is a priority review of marking?" read "£42.00" out of "a review of marking costs
    # £42.00", beside "A priority review of marking … costs £48.00.": a quote without the
    # question's qualifier, where another sentence has it with the same words, states the plain
    # thing's figure, not the qualified one's.
    qualified = _qualified_elsewhere(question, short, answer, docs)
    return None if qualified is None else (f"the quote does not state {qualified[0]!r}, which the question asks about "
                                           f"and document {qualified[1]!r} states with the quote's words")


def _guard_beside(question: str, short: str, answer: str, docs: Sequence[rec.Document]) -> str | None:
    # "What is the generic name of Harmony?" read "Methylphenidate" out of "Harmony and brand-name
    # Methylphenidate usually need prior authorization.": what a quote lists beside the thing
    # asked about is another of its kind, not something of it.
    beside = listed_beside(question, short, answer)
    return f"the quote lists it beside {beside!r}, which the question asks about, not as something of it" if beside else None


_QUOTE_GUARDS: tuple[QuoteGuard, ...] = (_guard_earlier, _guard_case, _guard_numbered, _guard_against, _guard_measure,
                                         _guard_qualified, _guard_beside)
