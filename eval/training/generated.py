"""Reading examples made from the sentences of real passages: yes/no questions with near-miss
noes, and why/how questions answered by the stated reason or means.

Why this exists: HaluEval gives the reader 245 yes/no answers among 8,000 and almost no why or how
question. The reader trained on it (v2) answers "Does the gym refund fees within 14 days?" with
a span, and "Why are fees not refunded?" with the sentence's subject. Here:

- **yes**: a sentence that states something with an auxiliary verb ("Refunds are issued within
  14 days.") becomes the question it answers by moving the auxiliary to the front ("Are refunds
  issued within 14 days?"); "has"/"had" as a main verb and a regular past tense take "does"/"did"
  ("Did the council approve the plan?");
- **no**: the same question with one figure or one name changed, answered by the same sentence:
  a near miss, where the words match and the fact does not;
- **why**: a sentence giving a reason ("…, because …", "… due to …", "… so that …") gives the
  why question of its main clause; the answer is the reason;
- **how**: a sentence giving a means ("… by moving the servers …") gives the how question of its
  main clause, answered by the means; a goal with its steps ("To renew a pass, sign in and …")
  gives "how do you renew a pass?", answered by the steps;
- **none**: a generated question against another passage.

Every example keeps its sentence as the evidence. The passages are HaluEval's training rows
(encyclopaedia) and fitz-gov's training contexts (business, health, science and history prose),
so the reader meets other genres than HaluEval's. These rules make training data only: the trained
reader answers questions, and nothing here runs when one is asked. A sentence the rules cannot
turn cleanly (a long or clausal subject, a question, a quotation) is skipped, not guessed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from eval.training.examples import ReaderExample, _near_miss
from selfrag.reading.sentences import sentence_spans

__all__ = ["GeneratedQuestion", "build_generated", "questions_from"]

# Auxiliaries that front a yes/no question as they stand ("may"/"might"/"must" read oddly fronted).
_AUX = ("is", "are", "was", "were", "has", "have", "had", "can", "could", "will", "would", "should")
_DO = {"has": "Does", "have": "Do", "had": "Did"}
# Determiners and pronouns that lose their capital when the auxiliary moves before them; any other
# first word keeps it (it may be a name; the reader's tokenizer is uncased, so either reads the same).
_FUNCTION = {"the", "a", "an", "this", "these", "that", "those", "its", "their", "his", "her", "our", "most",
             "many", "some", "each", "every", "all", "both", "several", "such", "it", "they", "he", "she", "we",
             "no", "one", "two", "three", "in", "at", "by", "for", "on", "during", "after", "before"}
_CLAUSAL = re.compile(r"\b(?:that|which|who|whom|whose|when|where|while|if|although|though)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"^(?P<subj>[A-Z][^,;:()\"“”]*?) (?P<verb>" + "|".join(_AUX) + r"|[a-z]{3,}ed) (?P<rest>[^\"“”]+)$")
_REASON_AFTER = re.compile(r"^(?P<main>.+?),? (?P<conn>because of|because|due to|owing to|so that|in order to|"
                           r"as a result of|thanks to) (?P<reason>[^;]+?)[.]?$")
_REASON_BEFORE = re.compile(r"^(?P<conn>Because of|Because|Due to|Owing to) (?P<reason>[^,;]+), (?P<main>.+?)[.]?$")
# "X happened, so Y": why Y? X.  "To renew a pass, sign in and …": how do you renew a pass?
_RESULT = re.compile(r"^(?P<reason>[^,;]+?), so (?!that\b)(?P<main>[^;]+?)[.]?$")
_GOAL = re.compile(r"^To (?P<goal>[a-z][^,;]+), (?P<steps>[^;]+?)[.]?$")
_MEANS = re.compile(r"^(?P<main>.+?),? by (?P<means>[a-z]+ing\b[^;]*?)[.]?$")
_NAME = re.compile(r"(?<=\s)[A-Z][\w'&-]+(?: (?:of |the |de |and )?[A-Z][\w'&-]+)*")
_LEADING_ADVERBIAL = re.compile(r"^(?:[A-Z]\w*(?: \w+){0,3}), (?=[A-Za-z])")


@dataclass(frozen=True)
class GeneratedQuestion:
    question: str
    kind: str
    """``yes``, ``no``, ``span`` (why/how: the answer is ``answer``)."""
    answer: str = ""
    """For a why/how question: the reason or the means, as the sentence states it."""
    genre: str = "yesno"
    """``yesno``, ``why`` or ``how``."""


def _lemma(past: str, vocabulary: Collection[str]) -> str | None:
    """The base form of a regular past tense, checked against a word list (the tokenizer's
    vocabulary): "moved" → "move", "opened" → "open", "stopped" → "stop", "carried" → "carry"."""
    if past.endswith("ied") and past[:-3] + "y" in vocabulary:
        return past[:-3] + "y"
    for cand in (past[:-1], past[:-2]):
        if cand in vocabulary and len(cand) >= 3:
            return cand
    if len(past) > 4 and past[-3] == past[-4] and past[:-3] in vocabulary:
        return past[:-3]
    return None


def _subject(subj: str) -> str | None:
    words = subj.split()
    if not 1 <= len(words) <= 7 or _CLAUSAL.search(subj) or any(w.lower() in _AUX for w in words):
        return None
    if words[0].lower() in _FUNCTION:
        words[0] = words[0].lower()
    return " ".join(words)


def _question_of(clause: str, vocabulary: Collection[str]) -> str | None:
    """``clause`` (a statement, no final period) as its yes/no question, or None."""
    m = _CLAUSE.match(clause.strip())
    if m is None:
        return None
    subj = _subject(m["subj"])
    verb, rest = m["verb"], m["rest"].strip()
    if subj is None or not rest:
        return None
    nxt = rest.split()[0]
    if verb in _DO and not (nxt == "been" or nxt.endswith(("ed", "en", "wn"))):
        return f"{_DO[verb]} {subj} have {rest}?"
    if verb in _AUX:
        return f"{verb.capitalize()} {subj} {rest}?"
    # A lexical past tense: the subject must look like a noun phrase (no article after its first
    # word but in "of the"), or "The state follows a modified …" would read "follows a" as subject.
    words = subj.split()
    if len(words) > 5 or any(w in ("a", "an", "the") and words[i - 1] != "of" for i, w in enumerate(words) if i):
        return None
    base = _lemma(verb, vocabulary)
    return None if base is None else f"Did {subj} {base} {rest}?"


def _strip(sentence: str) -> str | None:
    s = " ".join(sentence.split())
    if not s.endswith(".") or any(c in s for c in "?!\"“”") or not 6 <= len(s.split()) <= 40:
        return None
    return s[:-1]


def questions_from(sentence: str, vocabulary: Collection[str], rng: random.Random) -> list[GeneratedQuestion]:
    """The questions one sentence answers (module docstring); [] when none can be made cleanly."""
    body = _strip(sentence)
    if body is None:
        return []
    out: list[GeneratedQuestion] = []
    plain = _LEADING_ADVERBIAL.sub("", body)
    yes = _question_of(plain, vocabulary)
    if yes is not None:
        out.append(GeneratedQuestion(yes, "yes"))
        no = _near_miss(yes, rng)
        if no is None:
            names = [n for n in _NAME.findall(" " + yes) if n not in yes.split(" ", 1)[0]]
            others = [n for n in _NAME.findall(" " + body) if n not in yes]
            if names and others:
                no = yes.replace(rng.choice(names), rng.choice(others), 1)
        if no is not None and no != yes:
            out.append(GeneratedQuestion(no, "no"))
    goal = _GOAL.match(body)
    if goal is not None and len(goal["steps"].split()) >= 2:
        form = rng.choice(("How do you {}?", "How can I {}?", "how to {}", "how do i {}"))
        out.append(GeneratedQuestion(form.format(goal["goal"]), "span", goal["steps"], "how"))
        return out
    for pattern, genre, group in ((_REASON_AFTER, "why", "reason"), (_REASON_BEFORE, "why", "reason"),
                                  (_RESULT, "why", "reason"), (_MEANS, "how", "means")):
        m = pattern.match(body)
        if m is None:
            continue
        main = _LEADING_ADVERBIAL.sub("", m["main"].strip())
        main = main[0].upper() + main[1:]
        answer = m[group].strip()
        if len(main.split()) < 3 or len(answer.split()) < 2:
            continue
        asked = _question_of(main, vocabulary)
        if asked is not None:
            question = f"{genre.capitalize()} {asked[0].lower()}{asked[1:]}"
        else:  # the way people type it: "why the festival moved to August"
            question = f"{genre} {main[0].lower()}{main[1:]}"
        out.append(GeneratedQuestion(question, "span", answer, genre))
        break
    return out


def build_generated(passages: Sequence[str], count: int, seed: int, vocabulary: Collection[str]) -> list[ReaderExample]:
    """About ``count`` reader examples from ``passages``, seeded: yes and no in equal numbers,
    every why/how question found, and a tenth asked of another passage (``none``)."""
    rng = random.Random(f"generated:{seed}")
    by_kind: dict[str, list[ReaderExample]] = {"yes": [], "no": [], "span": []}
    for passage in passages:
        for s in sentence_spans(passage):
            for q in questions_from(passage[s.start:s.end], vocabulary, rng):
                if q.kind == "span":
                    at = passage.find(q.answer, s.start, s.end)
                    if at < 0:
                        continue
                    by_kind["span"].append(ReaderExample(q.question, passage, "span", at, at + len(q.answer), (s.start, s.end)))
                else:
                    by_kind[q.kind].append(ReaderExample(q.question, passage, q.kind, evidence=(s.start, s.end)))
    for items in by_kind.values():
        rng.shuffle(items)
    n_span = min(len(by_kind["span"]), count // 3)
    n_yesno = min(len(by_kind["yes"]), len(by_kind["no"]), (count - count // 10 - n_span) // 2)
    out = by_kind["span"][:n_span] + by_kind["yes"][:n_yesno] + by_kind["no"][:n_yesno]
    if len(passages) > 1:
        for e in rng.sample(out, min(count - len(out), len(out) // 9)):
            other = rng.choice(passages)
            if other != e.passage:
                out.append(ReaderExample(e.question, other, "none", evidence=(0, 0)))
    rng.shuffle(out)
    return out
