"""BM25 over one collection's chunks, in an SQLite FTS5 file: changed a chunk at a time, never rebuilt.

Why FTS5 (measured in ``bench/results/lexical-scale``): it is in Python's standard library, keeps
its postings on disk in B-tree pages that SQLite pages in and out (the process holds its page
cache, not the corpus), and adds, replaces or deletes one chunk by touching only that chunk's
postings. bm25s, before it, held every chunk's terms as Python objects (~13 KB a chunk) and
rebuilt its whole index after any change; tantivy would need a dependency and one writer process
per index. FTS5's ``bm25()`` is BM25 with k1 = 1.2, b = 0.75 and the classic idf; on HaluEval dev
it ranks as bm25s's Lucene variant did (lexical recall@4 0.981 → 0.981, MRR@10 0.969 → 0.969).

The terms are ``lexical_terms`` (the self-query's folding), computed here and indexed as text that
FTS5's ``unicode61`` tokenizer splits back into exactly those terms (``_token``), so FTS5's own
tokenising changes nothing. Queries are the question's distinct terms OR-ed.

Over a large collection (``PRUNE_FROM`` chunks or more) common terms do not select chunks, as in
Lucene's common-terms query: FTS5 scores every chunk a query term matches, so a term in most chunks
made a question cost O(collection) (147-293 ms at 100k synthetic chunks, seconds at 1M). A term in
more than ``COMMON_FRACTION`` of the chunks, or in more than ``COMMON_CAP`` chunks whatever the
collection's size (so what a question selects stays bounded as it grows), is common: the chunks
matched are those holding a rare term, and they are scored by all the terms, so the common terms
still rank them (on known-item queries over 100k synthetic chunks, recall@4 0.235 either way, p50
8.5 ms instead of 147). When every term is common, the chunks holding all of them are ranked (an
AND, whose postings intersect), and only if fewer than ``k`` do, all of them OR-ed.

Over such a collection the index also scores the chunks itself, not with ``bm25()``, and reads at
most ``SCORE_LIMIT`` of them (the first the selecting terms match, in rowid order): ``bm25()``
first counts each query term's chunks by walking its whole postings list (a million entries for a
term in every chunk, on every question), then scores every match (an AND of common terms matched
hundreds of thousands at 1M). ``_Bm25`` is the same formula from the ``df`` table, FTS5's own
totals and the chunk's stored terms (equal scores, tested), and ``SCORE_LIMIT`` bounds the
all-common questions' work whatever the collection's size (1M synthetic chunks, the same questions
alternated: lexical p50 71 -> 15 ms, p90 397 -> 46 ms; known-item recall@4 unchanged at 1M and
200k, ``bench/lexical_scoring.py``). A filter matching few chunks has them read and checked here.
Document frequencies are kept in a table of their own, changed with each chunk.

A search can be restricted to some ids (the chunks a metadata filter matched), which is how the
self-query's ``where`` pre-filters lexical retrieval exactly as it pre-filters the dense one: the
restriction applies before the top ``k`` is taken, so a selective filter still gets its best ``k``
(scores are the collection's, as before).

Concurrency: SQLite in WAL mode. Connections are pooled (a search takes an idle one or opens
another, and gives it back: the hybrid search runs BM25 in a new thread per question, so
per-thread connections would pile up); readers never wait for a writer, and writes are
transactions, serialised by SQLite across threads and processes.
"""

from __future__ import annotations

import heapq
import math
import re
import shutil
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from selfrag.retrieval.terms import TERMS_VERSION, lexical_terms
from selfrag.store import ChangeMark

__all__ = ["FORMAT", "LexicalEntry", "LexicalIndex", "LexicalMatch"]

FORMAT = "fts5-2"
"""Version of the file's layout; a file of another format (or terms version) is emptied and rebuilt."""

_TOKENIZER = "unicode61 remove_diacritics 0 tokenchars '._'"
_SEPARATOR = re.compile(r"[^\w.]|_")
_IN = 500
"""Ids per ``IN (...)`` (SQLite caps the variables of one statement)."""
_POOL = 8
"""Idle connections kept per index (more concurrent searches open and close their own)."""
PRUNE_FROM = 20_000
"""Collections of at least this many chunks leave common terms out of a query (module docstring)."""
COMMON_FRACTION = 0.05
"""A term in more than this share of the chunks is common."""
COMMON_CAP = 2_000
"""A term in more than this many chunks is common whatever the collection's size: the postings a
query's terms select then stay bounded as the collection grows (a share alone let a rare term
select 50,000 chunks at 1M). Above ``COMMON_FRACTION * PRUNE_FROM`` (1,000), so a collection just
past ``PRUNE_FROM`` prunes by the share alone."""
_AMONG_PROBE = 5000
"""A restriction to at most this many chunks has them all read and scored by the index (``_Bm25``);
a larger one has FTS5 select among the matches."""


SCORE_LIMIT = 1_000
"""The most chunks one question over a large collection (``PRUNE_FROM`` chunks or more) scores: the
first this many its selecting terms match, in rowid order (module docstring)."""
_K1 = 1.2
_B = 0.75
"""FTS5's ``bm25()`` constants."""


class _Bm25:
    """FTS5's ``bm25()`` over some chunks' stored terms, from the ``df`` table and FTS5's own
    totals: the same scores, without what ``bm25()`` does first on every query, counting each
    term's chunks by walking its whole postings list (1M entries for a term in every chunk)."""

    def __init__(self, idf: dict[str, float], avgdl: float) -> None:
        self.idf = idf
        self.avgdl = avgdl

    @classmethod
    def of(cls, conn: sqlite3.Connection, df: dict[str, int]) -> _Bm25:
        rows, tokens = _averages(conn)
        # max(): a write between the df lookup and this read must not make the log's argument negative.
        idf = {t: max(math.log((max(rows - n, 0) + 0.5) / (n + 0.5)), 1e-6) for t, n in df.items()}
        return cls(idf, tokens / rows if rows else 1.0)

    def top(self, chunks: Iterable[tuple[int, str, str]], k: int) -> list[tuple[str, float]]:
        """The ``k`` best of (rowid, id, terms) by score, then rowid; those scoring nothing left out."""
        # String methods, not a split: a chunk's terms are one space apart (``indexed_text``), so with
        # the spaces doubled " term " counts its occurrences (adjacent ones too).
        needles = [(f" {term} ", idf) for term, idf in self.idf.items()]
        scored = []
        for rowid, chunk_id, text in chunks:
            text = str(text)
            padded = f" {text} ".replace(" ", "  ")
            norm = _K1 * (1 - _B + _B * (text.count(" ") + 1 if text else 0) / self.avgdl)
            score = 0.0
            for needle, idf in needles:
                tf = padded.count(needle)
                if tf:
                    score += idf * tf * (_K1 + 1) / (tf + norm)
            if score > 0:
                scored.append((-score, rowid, chunk_id))
        return [(chunk_id, -neg) for neg, _, chunk_id in heapq.nsmallest(k, scored)]


def _averages(conn: sqlite3.Connection) -> tuple[int, int]:
    """FTS5's row count and total tokens (its "averages" record, id 1 of ``body_data``: SQLite varints)."""
    row = conn.execute("SELECT block FROM body_data WHERE id = 1").fetchone()
    if row is None:
        return 0, 0
    block, i = bytes(row[0]), 0
    values: list[int] = []
    while i < len(block) and len(values) < 2:
        value = 0
        for j in range(9):
            byte = block[i + j]
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
        i += j + 1
    return (values[0], values[1]) if len(values) == 2 else (0, 0)


def _token(term: str) -> str:
    """``term`` as one ``unicode61`` token: characters it would split on become ``_`` (kept by
    ``tokenchars``), so a term is one token and two terms stay two."""
    return _SEPARATOR.sub("_", term)


def indexed_text(terms: Iterable[str]) -> str:
    return " ".join(_token(t) for t in terms)


def _close_all(connections: list[sqlite3.Connection]) -> None:
    for conn in connections:
        conn.close()


def _any(terms: Iterable[str]) -> str:
    return " OR ".join(f'"{t}"' for t in terms)


def _count_terms(conn: sqlite3.Connection, text: str, delta: int) -> None:
    """Each distinct term of an indexed ``text`` is in ``delta`` more (or fewer) chunks."""
    conn.executemany(
        "INSERT INTO df(term, n) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET n = n + excluded.n",
        ((t, delta) for t in set(text.split())),
    )


def _count_chunks(conn: sqlite3.Connection, delta: int) -> None:
    if delta:
        conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'chunks'", (delta,))


class LexicalEntry(NamedTuple):
    """One chunk as the index holds it."""

    id: str
    version: str
    """What its source says this chunk's content is (a document fingerprint or a text hash):
    a different version on a later reconcile means the chunk was replaced."""
    terms: tuple[str, ...]
    """``lexical_terms`` of its text."""


class LexicalMatch(NamedTuple):
    id: str
    score: float
    """The BM25 score (> 0; only comparable within one query)."""


class LexicalIndex:
    """Chunk id → terms, searchable by BM25, in one SQLite file. Thread-safe.

    Args:
        path: The file; None keeps it in a private temporary directory (removed with the index).
        entries: Chunks to add at once.
    """

    def __init__(self, path: Path | None = None, entries: Iterable[LexicalEntry] = ()) -> None:
        if path is None:
            tmp = tempfile.mkdtemp(prefix="selfrag-lexical-")
            self._cleanup: Callable[[], object] | None = weakref.finalize(self, shutil.rmtree, tmp, True)
            path = Path(tmp) / "index.sqlite3"
        else:
            self._cleanup = None
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._idle: list[sqlite3.Connection] = []
        # An index dropped without close() still closes its pooled connections (Python 3.13
        # warns about every sqlite3 connection left to the collector).
        weakref.finalize(self, _close_all, self._idle)
        self._lock = threading.Lock()
        self._closed = False
        self._create()
        self.upsert(entries)

    # -- state ------------------------------------------------------------------------------------
    def __len__(self) -> int:
        with self._conn() as conn:
            return int(conn.execute("SELECT count(*) FROM chunk").fetchone()[0])

    def __contains__(self, chunk_id: object) -> bool:
        with self._conn() as conn:
            return conn.execute("SELECT 1 FROM chunk WHERE id = ?", (chunk_id,)).fetchone() is not None

    def versions(self) -> dict[str, str]:
        """Chunk id → the version indexed (a whole read: only a reconcile needs it)."""
        with self._conn() as conn:
            return dict(conn.execute("SELECT id, version FROM chunk"))

    def terms(self, chunk_id: str) -> tuple[str, ...] | None:
        """The terms indexed for ``chunk_id`` (as tokens), None when it is not indexed."""
        with self._conn() as conn:
            row = conn.execute("SELECT terms FROM chunk WHERE id = ?", (chunk_id,)).fetchone()
        return None if row is None else tuple(str(row[0]).split())

    @property
    def mark(self) -> ChangeMark:
        """How far into its collection's change log this index has applied."""
        return ChangeMark(int(self._meta("seq") or 0), self._meta("token") or "")

    @property
    def built(self) -> bool:
        """Whether the index was ever reconciled with its whole collection (a new or migrated file is not)."""
        return self._meta("built") == "1"

    def set_mark(self, mark: ChangeMark, *, built: bool = True) -> None:
        with self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                [("seq", str(mark.seq)), ("token", mark.token), ("built", "1" if built else "0")],
            )

    # -- writes -----------------------------------------------------------------------------------
    def upsert(self, entries: Iterable[LexicalEntry]) -> int:
        """Add chunks, replacing any of the same id (only their postings change); returns how many were given."""
        n = added = 0
        with self._write() as conn:
            for entry in entries:
                text = indexed_text(entry.terms)
                old = conn.execute("SELECT rowid, terms FROM chunk WHERE id = ?", (entry.id,)).fetchone()
                if old is not None:
                    conn.execute("INSERT INTO body(body, rowid, terms) VALUES ('delete', ?, ?)", old)
                    conn.execute("UPDATE chunk SET version = ?, terms = ? WHERE rowid = ?", (entry.version, text, old[0]))
                    _count_terms(conn, str(old[1]), -1)
                    rowid = old[0]
                else:
                    rowid = conn.execute(
                        "INSERT INTO chunk(id, version, terms) VALUES (?, ?, ?)", (entry.id, entry.version, text)
                    ).lastrowid
                    added += 1
                conn.execute("INSERT INTO body(rowid, terms) VALUES (?, ?)", (rowid, text))
                _count_terms(conn, text, 1)
                n += 1
            _count_chunks(conn, added)
        return n

    def delete(self, ids: Iterable[str]) -> int:
        """Remove chunks by id (their postings only); returns how many were indexed (unknown ids are ignored)."""
        n = 0
        with self._write() as conn:
            for chunk_id in ids:
                old = conn.execute("SELECT rowid, terms FROM chunk WHERE id = ?", (chunk_id,)).fetchone()
                if old is not None:
                    conn.execute("INSERT INTO body(body, rowid, terms) VALUES ('delete', ?, ?)", old)
                    conn.execute("DELETE FROM chunk WHERE rowid = ?", (old[0],))
                    _count_terms(conn, str(old[1]), -1)
                    n += 1
            _count_chunks(conn, -n)
        return n

    # -- search -----------------------------------------------------------------------------------
    def search(self, query: str, k: int, *, among: Collection[str] | None = None) -> list[LexicalMatch]:
        """The ``k`` best chunks for ``query`` by BM25, best first; only those sharing a term with it.

        Args:
            query: Free text, reduced to terms as chunks are (``lexical_terms``).
            k: Most matches returned.
            among: Only these chunk ids compete (a filter's matches); ids not indexed are ignored.
                None: every chunk.
        """
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        tokens = sorted({_token(t) for t in lexical_terms(query)})
        if not tokens:
            return []
        with self._conn() as conn:
            total = self._total(conn)
            if total < PRUNE_FROM and (among is None or len(among) > _AMONG_PROBE):
                rows = self._search(conn, _any(tokens), k, among)  # a small collection: bm25() is cheap
            else:
                rows = self._search_pruned(conn, tokens, total, k, among)
        return [LexicalMatch(str(i), float(s)) for i, s in rows]

    @staticmethod
    def _total(conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key = 'chunks'").fetchone()
        return int(row[0]) if row is not None else 0

    @staticmethod
    def _split_terms(conn: sqlite3.Connection, tokens: list[str], total: int) -> tuple[dict[str, int], list[str], list[str]]:
        """The document frequency of each query term a chunk holds, and the query's rare and common
        terms (module docstring; a term no chunk holds is left out); under ``PRUNE_FROM`` chunks
        every term is rare."""
        df: dict[str, int] = {}
        for i in range(0, len(tokens), _IN):
            part = tokens[i : i + _IN]
            df.update(conn.execute(f"SELECT term, n FROM df WHERE term IN ({','.join('?' * len(part))})", part))
        known = [t for t in tokens if df.get(t, 0) > 0]
        cut = min(COMMON_FRACTION * total, COMMON_CAP) if total >= PRUNE_FROM else math.inf
        return df, [t for t in known if df[t] <= cut], [t for t in known if df[t] > cut]

    def _search_pruned(
        self, conn: sqlite3.Connection, tokens: list[str], total: int, k: int, among: Collection[str] | None
    ) -> list[tuple[str, float]]:
        """A large collection's search: rare terms select (or, all terms common, the chunks holding
        every one; then any), at most ``SCORE_LIMIT`` chunks are read, and they are scored here by
        every term (``_Bm25``: FTS5's ``bm25()``, without its recount of each term's postings)."""
        df, rare, common = self._split_terms(conn, tokens, total)
        if not rare and not common:
            return []
        scorer = _Bm25.of(conn, {t: df[t] for t in [*rare, *common]})
        wanted = None if among is None else list(dict.fromkeys(among))
        if wanted is not None and not wanted:
            return []
        if rare:
            shapes = [(_any(rare), lambda held: not held.isdisjoint(rare))]
        else:
            shapes = [(" AND ".join(f'"{t}"' for t in common), lambda held: held.issuperset(common)),
                      (_any(common), lambda held: not held.isdisjoint(common))]
        rows: list[tuple[str, float]] = []
        for match, holds in shapes:
            rows = scorer.top(self._candidates(conn, match, wanted, holds), k)
            if len(rows) >= k:
                break
        return rows

    @staticmethod
    def _candidates(
        conn: sqlite3.Connection, match: str, wanted: list[str] | None, holds: Callable[[set[str]], bool]
    ) -> Iterator[tuple[int, str, str]]:
        """(rowid, id, terms) of at most ``SCORE_LIMIT`` chunks ``match`` selects (among ``wanted``), in rowid order."""
        if wanted is None:
            yield from conn.execute(
                "SELECT c.rowid, c.id, c.terms FROM (SELECT rowid FROM body WHERE body MATCH ? LIMIT ?) AS m "
                "JOIN chunk c ON c.rowid = m.rowid",
                (match, SCORE_LIMIT),
            )
            return
        conn.execute("DELETE FROM temp.among")
        conn.executemany("INSERT OR IGNORE INTO temp.among(rowid) SELECT rowid FROM chunk WHERE id = ?", ((i,) for i in wanted))
        try:
            if len(wanted) <= _AMONG_PROBE:
                # Few enough to read each (all of them: the ranking is exact): the selection is checked
                # here. FTS5 probed them one by one, and bm25() recounted every term's postings at each
                # (0.3 s for 500 chunks of 10k).
                rows = conn.execute("SELECT c.rowid, c.id, c.terms FROM temp.among AS a JOIN chunk c ON c.rowid = a.rowid")
                yield from (r for r in rows if holds(set(str(r[2]).split())))
            else:
                yield from conn.execute(
                    "SELECT c.rowid, c.id, c.terms FROM (SELECT rowid FROM body WHERE body MATCH ? "
                    "AND rowid IN (SELECT rowid FROM temp.among) LIMIT ?) AS m JOIN chunk c ON c.rowid = m.rowid",
                    (match, SCORE_LIMIT),
                )
        finally:
            conn.execute("DELETE FROM temp.among")

    @staticmethod
    def _search(conn: sqlite3.Connection, match: str, k: int, among: Collection[str] | None) -> list[tuple[str, float]]:
        if among is None:
            return conn.execute(
                "SELECT c.id, -t.score FROM (SELECT rowid, bm25(body) AS score FROM body WHERE body MATCH ? "
                "ORDER BY score, rowid LIMIT ?) AS t JOIN chunk c ON c.rowid = t.rowid ORDER BY t.score, t.rowid",
                (match, k),
            ).fetchall()
        wanted = list(dict.fromkeys(among))
        if not wanted:
            return []
        conn.execute("DELETE FROM temp.among")
        conn.executemany("INSERT OR IGNORE INTO temp.among(rowid) SELECT rowid FROM chunk WHERE id = ?", ((i,) for i in wanted))
        # Most chunks compete (a few are read and scored by ``_search_pruned``): rank the matches and keep those among them.
        sql = (
            "SELECT c.id, -t.score FROM (SELECT rowid, bm25(body) AS score FROM body WHERE body MATCH ? "
            "AND rowid IN (SELECT rowid FROM temp.among) ORDER BY score, rowid LIMIT ?) AS t "
            "JOIN chunk c ON c.rowid = t.rowid ORDER BY t.score, t.rowid"
        )
        try:
            return conn.execute(sql, (match, k)).fetchall()
        finally:
            conn.execute("DELETE FROM temp.among")

    # -- connections --------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connections (and remove a temporary file); the index is unusable after."""
        with self._lock:
            self._closed = True
            idle = list(self._idle)
            self._idle.clear()
        _close_all(idle)
        if self._cleanup is not None:
            self._cleanup()

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        """An idle pooled connection, or a new one; back to the pool after."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the lexical index is closed")
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS among(rowid INTEGER PRIMARY KEY)")
        try:
            yield conn
        finally:
            with self._lock:
                keep = not self._closed and len(self._idle) < _POOL
                if keep:
                    self._idle.append(conn)
            if not keep:
                conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _meta(self, key: str) -> str | None:
        with self._conn() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _create(self) -> None:
        """Create the tables, or empty a file of another format or terms version (it is rebuilt)."""
        with self._write() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('format', 'terms_version')"))
            if found and found != {"format": FORMAT, "terms_version": TERMS_VERSION}:
                conn.execute("DROP TABLE IF EXISTS body")
                conn.execute("DROP TABLE IF EXISTS chunk")
                conn.execute("DROP TABLE IF EXISTS df")
                conn.execute("DELETE FROM meta")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS chunk(rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
                "version TEXT NOT NULL, terms TEXT NOT NULL)"
            )
            conn.execute("CREATE TABLE IF NOT EXISTS df(term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
            # External content: the terms are stored once (in ``chunk``), the FTS5 table holds postings only.
            conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS body USING fts5(terms, content='chunk', content_rowid='rowid', "
                f'tokenize="{_TOKENIZER}")'
            )
            conn.executemany(
                "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)",
                [("format", FORMAT), ("terms_version", TERMS_VERSION), ("built", "0"), ("seq", "0"), ("token", ""),
                 ("chunks", "0")],
            )
