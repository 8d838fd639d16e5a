"""A faithful, minimal replica of the LangGraph Self-RAG tutorial graph, for latency comparison.

The tutorial (langgraph's ``langgraph_self_rag``) retrieves, grades each document with one
structured call *in a loop*, generates, then checks hallucination and answer quality with two
calls in sequence. Its graders answer ``binary_score: "yes" | "no"``. No self-query step, no
budgets, no trace: it is the baseline, not a product. Only the happy path matters here (every
document relevant, answer grounded and useful), and the same latency-L model serves both graphs.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field

__all__ = ["GradeAnswer", "GradeDocuments", "GradeHallucinations", "build_tutorial_graph"]


class GradeDocuments(BaseModel):
    """Binary score for relevance check on retrieved documents."""

    binary_score: Literal["yes", "no"] = Field(description="Documents are relevant to the question, 'yes' or 'no'")


class GradeHallucinations(BaseModel):
    """Binary score for hallucination present in generation answer."""

    binary_score: Literal["yes", "no"] = Field(description="Answer is grounded in the facts, 'yes' or 'no'")


class GradeAnswer(BaseModel):
    """Binary score to assess answer addresses question."""

    binary_score: Literal["yes", "no"] = Field(description="Answer addresses the question, 'yes' or 'no'")


class TutorialState(TypedDict, total=False):
    question: str
    generation: str
    documents: list[str]


def build_tutorial_graph(model: BaseChatModel, retriever: Any, *, k: int) -> Any:
    """The tutorial's graph around ``model`` and ``retriever`` (anything with ``search(q, where=, k=)``)."""
    doc_grader = model.with_structured_output(GradeDocuments)
    hallucination_grader = model.with_structured_output(GradeHallucinations)
    answer_grader = model.with_structured_output(GradeAnswer)

    def retrieve(state: TutorialState) -> dict[str, Any]:
        hits = retriever.search(state["question"], where=None, k=k)
        return {"documents": [h.text for h in hits]}

    def grade_documents(state: TutorialState) -> dict[str, Any]:
        kept = []
        for doc in state["documents"]:  # the tutorial grades one document after another
            score: Any = doc_grader.invoke([
                SystemMessage("You are a grader assessing relevance of a retrieved document to a user question."),
                HumanMessage(f"Retrieved document: \n\n {doc} \n\n User question: {state['question']}"),
            ])
            if score.binary_score == "yes":
                kept.append(doc)
        return {"documents": kept}

    def generate(state: TutorialState) -> dict[str, Any]:
        context = "\n\n".join(state["documents"])
        out = model.invoke([HumanMessage(f"Answer the question from the context.\nQuestion: {state['question']}\nContext: {context}")])
        return {"generation": str(out.content)}

    def decide_to_generate(state: TutorialState) -> str:
        return "generate" if state["documents"] else END

    def grade_generation(state: TutorialState) -> str:
        grounded: Any = hallucination_grader.invoke([
            SystemMessage("You are a grader assessing whether an LLM generation is grounded in a set of retrieved facts."),
            HumanMessage(f"Set of facts: \n\n {state['documents']} \n\n LLM generation: {state['generation']}"),
        ])
        if grounded.binary_score != "yes":
            return "not supported"
        useful: Any = answer_grader.invoke([
            SystemMessage("You are a grader assessing whether an answer addresses / resolves a question."),
            HumanMessage(f"User question: \n\n {state['question']} \n\n LLM generation: {state['generation']}"),
        ])
        return "useful" if useful.binary_score == "yes" else "not useful"

    g: StateGraph[Any, Any, Any, Any] = StateGraph(TutorialState)
    g.add_node("retrieve", retrieve)  # type: ignore[call-overload]
    g.add_node("grade_documents", grade_documents)  # type: ignore[call-overload]
    g.add_node("generate", generate)  # type: ignore[call-overload]
    g.add_edge(START, "retrieve")
    g.add_edge("retrieve", "grade_documents")
    g.add_conditional_edges("grade_documents", decide_to_generate, ["generate", END])
    g.add_conditional_edges("generate", grade_generation, {"not supported": "generate", "useful": END, "not useful": END})
    return g.compile()
