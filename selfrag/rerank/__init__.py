"""The reranking stage between retrieval and grading: retrieve wide, rerank, keep the top ``k``.

    reranker = CrossEncoderReranker(Path("/models/ms-marco-MiniLM-L-6-v2"))   # or NoReranker(),
    # HttpReranker("http://127.0.0.1:8080", model="bge-reranker"), LLMReranker(chat_model)
    top = retrieve_and_rerank(lambda n: hybrid.search(q, where=where, k=n), reranker, q, k=4, factor=3)
    [(r.hit.id, r.score, r.before) for r in top]

Every backend implements ``Reranker`` (texts in, positions and scores out); a failing backend
raises ``ProviderError`` (``provider_unavailable``, 503): a reranker is a model provider, and the
workflow treats it like one (it may keep the fused order instead).
"""

from selfrag.rerank.base import Reranked, RerankedHit, Reranker, check_ranking, rerank_hits, retrieve_and_rerank
from selfrag.rerank.cross_encoder import CrossEncoderReranker
from selfrag.rerank.http import HttpReranker, HttpRetry, RequestFormat
from selfrag.rerank.llm import PROMPT_VERSION, UNJUDGED, LLMReranker, RerankJudgement
from selfrag.rerank.none import NoReranker

__all__ = [
    "PROMPT_VERSION",
    "UNJUDGED",
    "CrossEncoderReranker",
    "HttpReranker",
    "HttpRetry",
    "LLMReranker",
    "NoReranker",
    "RequestFormat",
    "RerankJudgement",
    "Reranked",
    "RerankedHit",
    "Reranker",
    "check_ranking",
    "rerank_hits",
    "retrieve_and_rerank",
]
