"""Offline relation recognition: which declared relations a question uses, and on which entity.

No model: the cues come from the schema alone. Each relation's cue words are the lemmas of its
name (weight 2) and of its description (weight 1), each divided by the number of relations that
share the lemma; words naming kinds of things (the graph's labels, "company") are no cues. An optional
embedder adds how much more the question resembles a description than the average description
(cosine similarity, entity names masked).

Entities come from the graph's names and aliases (``MentionMatcher``, then fuzzy on capitalised
words it missed). Each entity gets at most one relation, among those starting at its label:

- an entity whose label no mention attribute holds (a Person, a Country) can only filter through
  a relation, so it takes its best-scoring one even without a cue word when it is the only one;
- an entity of a mention label (an Organization) takes a relation only when a cue word is there;
  otherwise it is a plain mention ("latest news about Neo4j").

Direction: relations that differ only in which end the entity is on (``invested_in`` vs
``investors``) share cue words, so the question's voice decides. The entity is the *subject* when
its strongest cue word (the nearest of them) follows it ("that Neo4j invested in") or follows "by" ("backed by Neo4j"),
and the *object* when the cue precedes it ("that invested in Neo4j") or is an agent noun after a
possessive ("Neo4j's investors"). A relation whose first hop goes ``out`` from the entity expects
a subject, ``in`` an object; a contradicted relation keeps a quarter of its score.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from selfrag.kg.entities import EntityIndex, EntityMatch
from selfrag.kg.mentions import MentionHit, MentionMatcher
from selfrag.kg.records import RelationCondition
from selfrag.kg.schema import GraphLink, Relation
from selfrag.lang import DETERMINERS, FUNCTION_WORDS, Token, lemma, tokenize

__all__ = ["KIND_WORDS", "MIN_CUE_SCORE", "Embedder", "RecognisedRelation", "Recognition", "RelationRecogniser", "recognise_relations"]

Embedder = Callable[[Sequence[str]], Sequence[Sequence[float]]]
"""Texts in, one vector each out (e.g. a LangChain ``Embeddings.embed_documents``)."""

MIN_CUE_SCORE = 0.5
"""Least cue score for an entity of a mention label to take a relation rather than stay a mention."""
_EMBED_WEIGHT = 2.0
_CONTRADICTED = 0.25
_WINDOW = 8
"""Cue words further than this many words from the entity do not count for it."""

_STOP = FUNCTION_WORDS | DETERMINERS | frozenset(
    ["news", "article", "articles", "report", "reports", "latest", "recent", "given", "one", "ones", "entity", "entities"]
)
# Words naming the kind of thing (never the relation between things): with the graph's own labels.
KIND_WORDS = frozenset(["company", "firm", "business", "organisation", "organization", "entity", "thing"])


def _possessive(word: Token) -> bool:
    """Written with a possessive "'s" ("Neo4j's investors"): the normaliser drops it, the cue reads it."""
    return word.text.casefold().endswith(("'s", "’s"))


def _is_agent_noun(lemma: str) -> bool:
    return lemma.endswith(("er", "or", "ist", "ant")) and len(lemma) > 4


@dataclass(frozen=True)
class RecognisedRelation:
    """A relation condition found in a question: the relation, the entity text, how it matched."""

    relation: str
    value: str
    """The entity as written in the question."""
    match: EntityMatch
    """Candidates of the relation's start label: unique, or ambiguous (ask which)."""
    score: float
    cues: tuple[tuple[int, int], ...] = ()
    """Where the relation's own wording is (``sits``, ``board``, ``invested``): its cue words in the
    run of words next to the entity, up to the first word that is neither a cue nor a function or
    kind word. The filter holds them; the search text need not say them again."""

    @property
    def condition(self) -> RelationCondition:
        """The structured query's condition: the entity's canonical name when unique, else the text."""
        return RelationCondition(relation=self.relation, value=self.match.entity.name if self.match.entity else self.value)


@dataclass(frozen=True)
class Recognition:
    relations: tuple[RecognisedRelation, ...]
    mentions: tuple[EntityMatch, ...]
    """Entities named directly, to filter on their mention attribute."""


class _Cues:
    def __init__(self, link: GraphLink) -> None:
        labels = {r.start for r in link.relations} | {h.label for r in link.relations for h in r.path}
        ignore = _STOP | KIND_WORDS | {lemma(x) for lbl in labels for x in re.findall(r"[A-Z]?[a-z]+", lbl)}
        per: list[dict[str, float]] = []
        for r in link.relations:
            cues: dict[str, float] = {}
            for w in tokenize(r.description):
                if w.lemma not in ignore:
                    cues[w.lemma] = max(cues.get(w.lemma, 0.0), 1.0)
            for part in r.name.split("_"):
                lem = lemma(part)
                if lem not in ignore:
                    cues[lem] = 2.0
            per.append(cues)
        share: dict[str, int] = {}
        for cues in per:
            for lem in cues:
                share[lem] = share.get(lem, 0) + 1
        self.weights = {r.name: {k: v / share[k] for k, v in cues.items()} for r, cues in zip(link.relations, per, strict=True)}


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _find_entities(question: str, index: EntityIndex, matcher: MentionMatcher) -> list[tuple[int, int, str, EntityMatch]]:
    """Entity spans in the question: exact names and aliases, then fuzzy capitalised words left over."""
    hits: list[MentionHit] = matcher.find(question)
    found = [(h.start, h.end, h.text, index.match(h.text, fuzzy=False)) for h in hits]
    taken = [(h.start, h.end) for h in hits]
    # Runs of capitalised words (not at the very start) that no name matched: typos of a name.
    for m in re.finditer(r"(?<!^)(?<![.?!]\s)\b[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3}", question):
        if any(s < m.end() and m.start() < e for s, e in taken) or lemma(m.group()) in _STOP:
            continue
        match = index.match(m.group(), fuzzy=True)
        if match.candidates and match.candidates[0].tier == "fuzzy":
            found.append((m.start(), m.end(), m.group(), match))
    return sorted(found, key=lambda f: f[0])


class RelationRecogniser:
    """Everything fixed per collection, prepared once: cue weights, the name matcher, and the
    descriptions' vectors when an embedder is given. ``recognise`` then reads one question."""

    def __init__(
        self, link: GraphLink, index: EntityIndex, *, matcher: MentionMatcher | None = None, embed: Embedder | None = None
    ) -> None:
        self.link = link
        self.index = index
        self.matcher = matcher or MentionMatcher(index.entities)
        self._cues = _Cues(link)
        self._embed = embed
        self._descriptions: list[Sequence[float]] = (
            list(embed([r.description for r in link.relations])) if embed is not None and link.relations else []
        )
        self._mention_labels = {m.label for m in link.mentions}

    def _semantic(self, question: str, entities: list[tuple[int, int, str, EntityMatch]]) -> dict[str, float]:
        if self._embed is None or not self._descriptions:
            return {}
        masked = question
        for s, e, _, _ in reversed(entities):
            masked = masked[:s] + "it" + masked[e:]
        (vector,) = self._embed([masked])
        cosines = {r.name: _cosine(vector, v) for r, v in zip(self.link.relations, self._descriptions, strict=True)}
        # Relative to the average: every description resembles any question about companies a little.
        mean = sum(cosines.values()) / len(cosines)
        return {name: max(0.0, c - mean) for name, c in cosines.items()}

    def recognise(self, question: str) -> Recognition:
        """The relation conditions and direct entity mentions of ``question`` (see the module docstring)."""
        index = self.index
        entities = _find_entities(question, index, self.matcher)
        all_words = tokenize(question)
        words = [w for w in all_words if not any(s <= w.start < e for s, e, _, _ in entities)]
        semantic = self._semantic(question, entities)
        relations: list[RecognisedRelation] = []
        mentions: list[EntityMatch] = []
        for start, end, text, match in entities:
            labels = {c.entity.label for c in match.candidates}
            best: tuple[float, Relation] | None = None
            for rel in self.link.relations:
                if rel.start not in labels:
                    continue
                score = _score(rel, self._cues.weights[rel.name], words, all_words, start, end)
                score += _EMBED_WEIGHT * semantic.get(rel.name, 0.0)
                if best is None or score > best[0]:
                    best = (score, rel)
            on_mention_label = bool(labels & self._mention_labels)
            if best is not None and (best[0] >= MIN_CUE_SCORE or not on_mention_label):
                rel = best[1]
                cues = _cue_spans(self._cues.weights[rel.name], all_words, start, end)
                relations.append(RecognisedRelation(rel.name, text, index.match(text, label=rel.start), best[0], cues))
            elif on_mention_label:
                kept = [lbl for lbl in labels if lbl in self._mention_labels]
                mentions.append(index.match(text, label=kept[0]) if len(kept) == 1 else match)
        return Recognition(tuple(relations), tuple(mentions))


def recognise_relations(
    question: str,
    link: GraphLink,
    index: EntityIndex,
    *,
    matcher: MentionMatcher | None = None,
    embed: Embedder | None = None,
) -> Recognition:
    """One-off ``RelationRecogniser(link, index, ...).recognise(question)``; build the recogniser
    once per collection instead when asking many questions."""
    return RelationRecogniser(link, index, matcher=matcher, embed=embed).recognise(question)


def _score(rel: Relation, weights: dict[str, float], words: list[Token], all_words: list[Token], start: int, end: int) -> float:
    """Cue words near the entity, weighted; a contradicted direction keeps a quarter."""
    near = [w for w in words if w.lemma in weights and _distance(all_words, w, start, end) <= _WINDOW]
    if not near:
        return 0.0
    score = sum(weights[w.lemma] for w in {w.lemma: w for w in near}.values())
    # The word that says most about this relation ("invested", not "companies") decides the voice.
    top = max(weights[w.lemma] for w in near)
    voice = _voice([w for w in near if weights[w.lemma] == top], all_words, start, end)
    if voice is not None:
        expected = "subject" if rel.path[0].direction == "out" else "object" if rel.path[0].direction == "in" else None
        if expected is not None and expected != voice:
            score *= _CONTRADICTED
    return score


def _cue_spans(weights: dict[str, float], all_words: list[Token], start: int, end: int) -> tuple[tuple[int, int], ...]:
    """The cue words in the runs of words either side of the entity (see ``RecognisedRelation.cues``)."""
    spans: list[tuple[int, int]] = []
    for side in ([w for w in all_words if w.start >= end], [w for w in reversed(all_words) if w.end <= start]):
        for w in side:
            if w.lemma in weights:
                spans.append((w.start, w.end))
            elif w.lemma not in _STOP and w.lemma not in KIND_WORDS and w.norm not in _STOP:
                break
    return tuple(sorted(spans))


def _distance(all_words: list[Token], w: Token, start: int, end: int) -> int:
    if w.start >= end:
        return sum(1 for x in all_words if end <= x.start <= w.start)
    return sum(1 for x in all_words if w.start <= x.start < start)


def _voice(near: list[Token], all_words: list[Token], start: int, end: int) -> str | None:
    """``subject`` or ``object``: which end of the relation the entity is, from word order."""
    cue = min(near, key=lambda w: _distance(all_words, w, start, end))
    if cue.start >= end:
        entity_word = next((w for w in all_words if start <= w.start < end and w.end >= end), None)
        if entity_word is not None and _possessive(entity_word) and _is_agent_noun(cue.lemma):
            return "object"
        return "subject"
    between = [w.lemma for w in all_words if cue.end <= w.start < start]
    return "subject" if "by" in between else "object"
