/*
** contextfs's FTS5 ranking function; see rankfn.go for why it exists.
**
**   cfs_topk(fts, docs, window, w_1..w_C)
**     Called on the first row of a full-text query whose expression is the
**     OR of the query's phrases, it ranks every current document that
**     matches any phrase by the BM25 score FTS5's bm25() defines (k1 = 1.2,
**     b = 0.75, column weights w_c, inverse document frequency
**     log((N-n+0.5)/(n+0.5)) floored at 1e-6), with N, n, the row lengths
**     and their average taken over the document set `docs` (the kind's
**     current documents) rather than over every row of the index. It
**     returns the best `window` as a blob of (rowid int64, score float64)
**     pairs in machine byte order, best first, ties by rowid, followed by
**     for each phrase of the query, in order, three float64s: the inverse
**     document frequency it was scored with, the best score one document
**     gets from it before that factor, and the number of documents that
**     match it (idf times best, summed over the phrases, is the query's
**     attainable score: what a document matching every phrase as well as
**     any does would score, the scale on which a search weighs keyword
**     evidence against meaning), and last the number of phrases as an
**     int64.
**
**   cfs_topk(fts, docs, window, w_1..w_C, keep, idf)
**     The same, with keep NULL for every document, and idf a blob of one
**     float64 per phrase: the inverse document frequency to score that
**     phrase with, where above 0, in place of this set's (a search of
**     several stores ranks all of them with the frequencies of their
**     union).
**
**   cfs_topk(fts, docs, window, w_1..w_C, keep)
**     The same, counting only the documents whose rowids are in `keep`, a
**     blob of sorted rowids (int64, machine byte order): the best `window`
**     of those, in one pass, where filtering the unfiltered ranking would
**     need a window wide enough to hold enough of them. The statistics are
**     still the whole set's, so scores are the unfiltered ones.
**
** It scores term at a time: each phrase's matches are read once, in rowid
** order, through xQueryPhrase (the call bm25() uses to count them), and
** their contributions summed per document in an array. That is one pass
** per phrase with no per-row SQL, instead of bm25()'s count pass per
** phrase, a per-row length lookup and a per-row trip through the SQL
** engine and its sorter.
**
** A document set is registered from Go (cfs_docs_new) and released when Go
** no longer needs it (cfs_docs_release); a running query holds a reference,
** so release never frees a set in use.
*/
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fts5rank.h"

/*
** SQLite's functions, resolved when the binary is linked against the SQLite
** that github.com/mattn/go-sqlite3 compiles in. They are weak so that this
** package's own cgo link check, which does not include that object, passes;
** cfs_register reports whether they resolved.
*/
extern int sqlite3_auto_extension(void (*)(void)) __attribute__((weak));
extern int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**) __attribute__((weak));
extern int sqlite3_bind_pointer(sqlite3_stmt*, int, void*, const char*, void (*)(void*)) __attribute__((weak));
extern int sqlite3_step(sqlite3_stmt*) __attribute__((weak));
extern int sqlite3_finalize(sqlite3_stmt*) __attribute__((weak));
extern int sqlite3_busy_timeout(sqlite3*, int) __attribute__((weak));
extern int sqlite3_db_config(sqlite3*, int, ...) __attribute__((weak));
extern char *sqlite3_mprintf(const char*, ...) __attribute__((weak));
extern double sqlite3_value_double(sqlite3_value*) __attribute__((weak));
extern const void *sqlite3_value_blob(sqlite3_value*) __attribute__((weak));
extern int sqlite3_value_bytes(sqlite3_value*) __attribute__((weak));
extern sqlite3_int64 sqlite3_value_int64(sqlite3_value*) __attribute__((weak));
extern void sqlite3_result_blob(sqlite3_context*, const void*, int, void (*)(void*)) __attribute__((weak));
extern void sqlite3_result_error(sqlite3_context*, const char*, int) __attribute__((weak));
extern void sqlite3_result_error_nomem(sqlite3_context*) __attribute__((weak));

typedef struct cfs_docs cfs_docs;
struct cfs_docs {
  long long id;
  long long *rows;     /* sorted rowids of the current documents */
  unsigned int *lens;  /* their lengths in tokens, all columns */
  long long n;
  double avgdl;
  int refs;            /* the owner (until released) and running queries */
  cfs_docs *next;
  /* at[row - lo] is the position of rowid row, or -1, for the span of
  ** rowids from rows[0]; made on first use (guarded by reg_mu), and only
  ** where rowids are dense enough (at_state 1; 2: not made). A phrase of
  ** a common word matches tens of thousands of rows, and finding each in
  ** rows by search was a fifth of a filtered query. */
  int *at;
  long long lo, span;
  int at_state;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static cfs_docs *reg_head;
static long long reg_next = 1;

static void docs_free(cfs_docs *d) {
  free(d->rows);
  free(d->lens);
  free(d->at);
  free(d);
}

/* docs_index makes d->at if it is not made and rowids are dense enough
** for it (at most four slots per document); a failed allocation leaves
** the search to seek. */
static void docs_index(cfs_docs *d) {
  long long i, span;
  int *at;
  pthread_mutex_lock(&reg_mu);
  if (d->at_state) {
    pthread_mutex_unlock(&reg_mu);
    return;
  }
  span = d->n ? d->rows[d->n - 1] - d->rows[0] + 1 : 0;
  at = span > 0 && span <= 4 * d->n + 1024 ? malloc(sizeof *at * (size_t)span) : 0;
  if (at) {
    memset(at, 0xff, sizeof *at * (size_t)span); /* -1 */
    for (i = 0; i < d->n; i++) at[d->rows[i] - d->rows[0]] = (int)i;
    d->at = at;
    d->lo = d->rows[0];
    d->span = span;
  }
  d->at_state = at ? 1 : 2;
  pthread_mutex_unlock(&reg_mu);
}

/* position returns the position of row in d, or -1, when d->at is made
** (else -2: search for it). */
static inline long long position(const cfs_docs *d, long long row) {
  long long i;
  if (!d->at) return -2;
  i = row - d->lo;
  return i >= 0 && i < d->span ? d->at[i] : -1;
}

/*
** A query's working arrays, sized by the document set: scores and the
** documents touched (acc, touched), the filter's marks (keep), and a
** phrase's matches (m). Allocated fresh, the first two alone are 1.2 MB
** at 100K documents, and every page of them faulted in again, with the
** zero page mapped on the first read of acc and replaced on the first
** write (a TLB flush on each CPU the process runs on), on every query; a
** long-lived process keeps a few and hands them back cleared: acc and
** keep all zero.
*/
typedef struct scratch scratch;
struct scratch {
  double *acc;
  int *touched;
  unsigned char *keep;
  long long cap; /* documents acc, touched and keep hold */
  struct match *m;
  long long mcap;
  scratch *next;
};

static scratch *pool; /* guarded by reg_mu */
static int pooled;
enum { POOL_MAX = 2 }; /* queries run at once: a hybrid search runs one */

static void scratch_free(scratch *s) {
  if (!s) return;
  free(s->acc);
  free(s->touched);
  free(s->keep);
  free(s->m);
  free(s);
}

/* scratch_get returns cleared scratch for n documents, or 0. */
static scratch *scratch_get(long long n) {
  scratch *s, **p;
  if (n < 1) n = 1;
  pthread_mutex_lock(&reg_mu);
  for (p = &pool; *p && (*p)->cap < n; p = &(*p)->next) {
  }
  s = *p;
  if (s) {
    *p = s->next;
    pooled--;
  }
  pthread_mutex_unlock(&reg_mu);
  if (s) return s;
  s = calloc(1, sizeof *s);
  if (!s) return 0;
  s->cap = n;
  s->acc = malloc(sizeof *s->acc * (size_t)n);
  s->touched = malloc(sizeof *s->touched * (size_t)n);
  s->keep = malloc((size_t)n);
  if (!s->acc || !s->touched || !s->keep) {
    scratch_free(s);
    return 0;
  }
  /* Cleared by writing, not calloc: calloc's fresh pages are first read
  ** (acc[p] == 0), which maps the zero page, and then written, which
  ** replaces it and flushes the TLB of every CPU the process runs on. */
  memset(s->acc, 0, sizeof *s->acc * (size_t)n);
  memset(s->keep, 0, (size_t)n);
  return s;
}

/* scratch_put takes back cleared scratch, keeping at most POOL_MAX (the
** largest ones). */
static void scratch_put(scratch *s) {
  scratch *drop = 0;
  if (!s) return;
  pthread_mutex_lock(&reg_mu);
  s->next = pool;
  pool = s;
  if (++pooled > POOL_MAX) {
    scratch **p, **small = &pool;
    for (p = &pool; *p; p = &(*p)->next) {
      if ((*p)->cap < (*small)->cap) small = p;
    }
    drop = *small;
    *small = drop->next;
    pooled--;
  }
  pthread_mutex_unlock(&reg_mu);
  scratch_free(drop);
}

long long cfs_docs_new(const long long *rows, const unsigned int *lens, long long n, double avgdl) {
  cfs_docs *d = calloc(1, sizeof *d);
  if (!d) return 0;
  d->rows = malloc(sizeof *d->rows * (size_t)(n ? n : 1));
  d->lens = malloc(sizeof *d->lens * (size_t)(n ? n : 1));
  if (!d->rows || !d->lens) {
    docs_free(d);
    return 0;
  }
  if (n) {
    memcpy(d->rows, rows, sizeof *d->rows * (size_t)n);
    memcpy(d->lens, lens, sizeof *d->lens * (size_t)n);
  }
  d->n = n;
  d->avgdl = avgdl > 0 ? avgdl : 1;
  d->refs = 1;
  pthread_mutex_lock(&reg_mu);
  d->id = reg_next++;
  d->next = reg_head;
  reg_head = d;
  pthread_mutex_unlock(&reg_mu);
  return d->id;
}

/* cfs_docs_release drops the owner's reference and unregisters the set, so
** no new query can find it; the last running query frees it. */
void cfs_docs_release(long long id) {
  cfs_docs *d = 0, **p;
  pthread_mutex_lock(&reg_mu);
  for (p = &reg_head; *p; p = &(*p)->next) {
    if ((*p)->id == id) {
      d = *p;
      *p = d->next;
      break;
    }
  }
  if (d && --d->refs > 0) d = 0;
  pthread_mutex_unlock(&reg_mu);
  if (d) docs_free(d);
}

static cfs_docs *docs_acquire(long long id) {
  cfs_docs *d;
  pthread_mutex_lock(&reg_mu);
  for (d = reg_head; d && d->id != id; d = d->next) {
  }
  if (d) d->refs++;
  pthread_mutex_unlock(&reg_mu);
  return d;
}

/* cfs_docs_indexed says whether set id finds rows by its rowid index (1),
** by search (2), or has not been queried (0); -1 if unknown. For tests. */
int cfs_docs_indexed(long long id) {
  cfs_docs *d;
  int st = -1;
  pthread_mutex_lock(&reg_mu);
  for (d = reg_head; d && d->id != id; d = d->next) {
  }
  if (d) st = d->at_state;
  pthread_mutex_unlock(&reg_mu);
  return st;
}

static void docs_unref(cfs_docs *d) {
  int last;
  pthread_mutex_lock(&reg_mu);
  last = --d->refs == 0;
  pthread_mutex_unlock(&reg_mu);
  if (last) docs_free(d);
}

/* FTS5's bm25() constants. */
static const double K1 = 1.2, B = 0.75;

/* A phrase's match as the scan finds it: the position in the set and the
** term-frequency part of the score, before the phrase's idf is known. */
typedef struct match {
  int pos;
  double part;
} match;

typedef struct scan {
  const cfs_docs *docs;
  const double *weight;
  int ncol;
  long long next; /* the set's position to search from: rows come in order */
  /* keep, when set, marks the positions whose scores are wanted: the
  ** others are only counted (in others), for the phrase's idf. */
  const unsigned char *keep;
  long long others;
  match *m;
  long long n, cap;
  int oom;
  int raw; /* keep the weighted frequency f in part, not the part (cfs_postings) */
} scan;

/* seek returns the position of row in the set, searching forward from
** s->next (a phrase's rows come in ascending order), or -1. */
static long long seek(scan *s, long long row) {
  const long long *rows = s->docs->rows;
  long long n = s->docs->n, lo = s->next, hi, step = 1;
  if (lo >= n || rows[lo] > row) return -1;
  /* Gallop to bracket the row, then bisect. */
  hi = lo;
  while (hi < n && rows[hi] < row) {
    lo = hi;
    hi += step;
    step *= 2;
  }
  if (hi > n) hi = n;
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    if (rows[mid] < row) lo = mid + 1;
    else hi = mid;
  }
  s->next = lo;
  return lo < n && rows[lo] == row ? lo : -1;
}

static int on_match(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
  scan *s = user;
  long long row = api->xRowid(fts), at = position(s->docs, row);
  if (at == -2) at = seek(s, row);
  Fts5PhraseIter it;
  int col, off;
  double f = 0;
  if (at < 0) return CFS_SQLITE_OK; /* an old version, not current */
  if (s->keep && !s->keep[at]) {
    /* Every weight is positive (see cfs_topk), so a match scores above
    ** zero: count it without reading its positions. */
    s->others++;
    return CFS_SQLITE_OK;
  }
  if (api->xPhraseFirst(fts, 0, &it, &col, &off) != CFS_SQLITE_OK) return CFS_SQLITE_OK;
  for (; col >= 0; api->xPhraseNext(fts, &it, &col, &off)) {
    if (col < s->ncol) f += s->weight[col];
  }
  if (f <= 0) return CFS_SQLITE_OK;
  if (s->n == s->cap) {
    long long cap = s->cap ? 2 * s->cap : 1024;
    match *m = realloc(s->m, sizeof *m * (size_t)cap);
    if (!m) {
      s->oom = 1;
      return CFS_SQLITE_NOMEM;
    }
    s->m = m;
    s->cap = cap;
  }
  s->m[s->n].pos = (int)at;
  /* The same expression, in the same order, as bm25(); termPart in
  ** terms.go repeats it. */
  s->m[s->n].part = s->raw ? f :
      (f * (K1 + 1.0)) / (f + K1 * (1 - B + B * (double)s->docs->lens[at] / s->docs->avgdl));
  s->n++;
  return CFS_SQLITE_OK;
}

/* better orders documents best first, ties by rowid. */
static int better(const double *acc, const long long *rows, int a, int b) {
  return acc[a] > acc[b] || (acc[a] == acc[b] && rows[a] < rows[b]);
}

/* sift restores the heap property (the worst document on top) from i. */
static void sift(int *h, long long n, long long i, const double *acc, const long long *rows) {
  for (;;) {
    long long w = i, l = 2 * i + 1, r = l + 1;
    int t;
    if (l < n && better(acc, rows, h[w], h[l])) w = l;
    if (r < n && better(acc, rows, h[w], h[r])) w = r;
    if (w == i) return;
    t = h[i], h[i] = h[w], h[w] = t;
    i = w;
  }
}

static void cfs_topk(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                     sqlite3_value **val) {
  int ncol = api->xColumnCount(fts), nphrase = api->xPhraseCount(fts), i, rc = CFS_SQLITE_OK;
  long long window, ntouched = 0, j, k = 0, nb = 0;
  double weight[16], *acc, *bests = 0;
  const unsigned char *idfs = 0;
  long long nidf = 0;
  int *touched, *heap = 0;
  unsigned char *out = 0, *keep = 0;
  const unsigned char *b = 0;
  cfs_docs *docs;
  scratch *sc;
  scan s;
  if ((nVal != 2 + ncol && nVal != 3 + ncol && nVal != 4 + ncol) || ncol > 16) {
    sqlite3_result_error(ctx, "cfs_topk: want the document set, the window, a weight per column, an optional row filter and optional frequencies", -1);
    return;
  }
  docs = docs_acquire(sqlite3_value_int64(val[0]));
  if (!docs) {
    sqlite3_result_error(ctx, "cfs_topk: unknown document set", -1);
    return;
  }
  docs_index(docs);
  sc = scratch_get(docs->n);
  if (!sc) {
    sqlite3_result_error_nomem(ctx);
    docs_unref(docs);
    return;
  }
  acc = sc->acc;
  touched = sc->touched;
  window = sqlite3_value_int64(val[1]);
  if (window < 1) window = 1;
  for (i = 0; i < ncol; i++) weight[i] = sqlite3_value_double(val[2 + i]);
  if (nVal == 4 + ncol) {
    idfs = sqlite3_value_blob(val[3 + ncol]);
    nidf = idfs ? sqlite3_value_bytes(val[3 + ncol]) / 8 : 0;
  }
  if (nVal >= 3 + ncol && sqlite3_value_blob(val[2 + ncol])) {
    /* keep[p]: the document at position p is one the caller wants. Both
    ** lists are sorted, so without the rowid index one merge marks them. */
    long long p = 0;
    b = sqlite3_value_blob(val[2 + ncol]);
    nb = sqlite3_value_bytes(val[2 + ncol]) / 8;
    keep = sc->keep;
    for (j = 0; j < nb && p < docs->n; j++) {
      long long row, at;
      memcpy(&row, b + 8 * j, 8);
      at = position(docs, row);
      if (at == -2) {
        while (p < docs->n && docs->rows[p] < row) p++;
        at = p < docs->n && docs->rows[p] == row ? p : -1;
      }
      if (at >= 0) keep[at] = 1;
    }
  }
  memset(&s, 0, sizeof s);
  s.docs = docs;
  s.weight = weight;
  s.ncol = ncol;
  s.m = sc->m;
  s.cap = sc->mcap;
  /* Only the wanted documents are scored, so only they compete for the
  ** window. Skipping the others' positions needs every match to score
  ** above zero, as it does when every weight is positive; with another
  ** weight, each match is read and the others dropped before the window. */
  s.keep = keep;
  for (i = 0; i < ncol; i++) {
    if (!(weight[i] > 0)) s.keep = 0;
  }
  bests = calloc((size_t)(nphrase ? 3 * nphrase : 1), sizeof *bests);
  if (!bests) goto nomem;
  for (i = 0; i < nphrase; i++) {
    double idf;
    double nmatch;
    s.n = 0;
    s.others = 0;
    s.next = 0;
    rc = api->xQueryPhrase(fts, i, &s, on_match);
    if (s.oom) break;
    if (rc != CFS_SQLITE_OK) break;
    nmatch = (double)(s.n + s.others);
    idf = log(((double)docs->n - nmatch + 0.5) / (nmatch + 0.5));
    if (idf <= 0.0) idf = 1e-6;
    if (i < nidf) {
      double given;
      memcpy(&given, idfs + 8 * i, 8);
      if (given > 0.0) idf = given;
    }
    {
      double best = 0;
      for (j = 0; j < s.n; j++) {
        int p = s.m[j].pos;
        if (acc[p] == 0) touched[ntouched++] = p;
        acc[p] += idf * s.m[j].part;
        if (s.m[j].part > best && (!keep || keep[p])) best = s.m[j].part;
      }
      bests[3 * i] = idf;
      bests[3 * i + 1] = best;
      bests[3 * i + 2] = nmatch;
    }
  }
  if (s.oom) goto nomem;
  if (rc != CFS_SQLITE_OK) {
    sqlite3_result_error(ctx, "cfs_topk: reading the full-text index failed", -1);
    goto done;
  }
  /* The best `window`: a heap with the worst document kept on top. */
  if (window > ntouched) window = ntouched;
  heap = malloc(sizeof *heap * (size_t)(window ? window : 1));
  out = malloc((size_t)(16 * window + 24 * (long long)nphrase + 8));
  if (!heap || !out) goto nomem;
  for (j = 0; j < ntouched; j++) {
    int p = touched[j];
    if (keep && !keep[p]) continue; /* read for a non-positive weight only */
    if (k < window) {
      heap[k++] = p;
      if (k == window) {
        for (i = (int)(window / 2) - 1; i >= 0; i--) sift(heap, window, i, acc, docs->rows);
      }
    } else if (better(acc, docs->rows, p, heap[0])) {
      heap[0] = p;
      sift(heap, window, 0, acc, docs->rows);
    }
  }
  /* Fewer wanted documents than the window: heapify what there is. */
  if (k < window) {
    window = k;
    for (i = (int)(window / 2) - 1; i >= 0; i--) sift(heap, window, i, acc, docs->rows);
  }
  /* Pop the worst first into the back of the output. */
  for (j = window; j > 0; j--) {
    int p = heap[0];
    long long row = docs->rows[p];
    double score = acc[p];
    memcpy(out + 16 * (j - 1), &row, 8);
    memcpy(out + 16 * (j - 1) + 8, &score, 8);
    heap[0] = heap[j - 1];
    sift(heap, j - 1, 0, acc, docs->rows);
  }
  {
    long long np = nphrase;
    memcpy(out + 16 * window, bests, 24 * (size_t)nphrase);
    memcpy(out + 16 * window + 24 * np, &np, 8);
    sqlite3_result_blob(ctx, out, (int)(16 * window + 24 * np + 8), free);
  }
  out = 0;
  goto done;
nomem:
  sqlite3_result_error_nomem(ctx);
done:
  /* Hand the scratch back cleared: the scores touched, the marks set. */
  for (j = 0; j < ntouched; j++) acc[touched[j]] = 0;
  if (keep) {
    if (docs->at) {
      for (j = 0; j < nb; j++) {
        long long row, at;
        memcpy(&row, b + 8 * j, 8);
        if ((at = position(docs, row)) >= 0) keep[at] = 0;
      }
    } else {
      memset(keep, 0, (size_t)docs->n);
    }
  }
  sc->m = s.m;
  sc->mcap = s.cap;
  scratch_put(sc);
  free(heap);
  free(out);
  free(bests);
  docs_unref(docs);
}

/*
** cfs_postings(fts, docs, w_1..w_C): called on the first row of a query of
** one phrase, returns every current document of `docs` that matches it, in
** rowid order, with its weighted frequency f (the sum over the phrase's
** occurrences of their column's weight, from which the term-frequency part
** of its BM25 score follows with the document's length): a blob of the
** phrase's idf over the set (float64, as cfs_topk computes it, after 8
** bytes of padding), then (position in the set int64, f float64) pairs,
** in machine byte order. The keyword ranker keeps these lists, compacted
** (terms.go), and ranks a later query of the same words from them, without
** reading the index again.
*/
static void cfs_postings(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nVal,
                         sqlite3_value **val) {
  int ncol = api->xColumnCount(fts), i, rc;
  double weight[16];
  cfs_docs *docs;
  scan s;
  unsigned char *out;
  long long j;
  if (nVal != 1 + ncol || ncol > 16 || api->xPhraseCount(fts) != 1) {
    sqlite3_result_error(ctx, "cfs_postings: want one phrase, the document set and a weight per column", -1);
    return;
  }
  docs = docs_acquire(sqlite3_value_int64(val[0]));
  if (!docs) {
    sqlite3_result_error(ctx, "cfs_postings: unknown document set", -1);
    return;
  }
  docs_index(docs);
  for (i = 0; i < ncol; i++) weight[i] = sqlite3_value_double(val[1 + i]);
  memset(&s, 0, sizeof s);
  s.docs = docs;
  s.weight = weight;
  s.ncol = ncol;
  s.raw = 1;
  rc = api->xQueryPhrase(fts, 0, &s, on_match);
  if (s.oom) {
    sqlite3_result_error_nomem(ctx);
  } else if (rc != CFS_SQLITE_OK) {
    sqlite3_result_error(ctx, "cfs_postings: reading the full-text index failed", -1);
  } else if (!(out = malloc((size_t)(16 * (s.n + 1))))) {
    sqlite3_result_error_nomem(ctx);
  } else {
    double nmatch = (double)s.n, idf = log(((double)docs->n - nmatch + 0.5) / (nmatch + 0.5));
    long long zero = 0;
    if (idf <= 0.0) idf = 1e-6;
    memcpy(out, &zero, 8);
    memcpy(out + 8, &idf, 8);
    for (j = 0; j < s.n; j++) {
      long long pos = s.m[j].pos;
      memcpy(out + 16 * (j + 1), &pos, 8);
      memcpy(out + 16 * (j + 1) + 8, &s.m[j].part, 8);
    }
    sqlite3_result_blob(ctx, out, (int)(16 * (s.n + 1)), free);
  }
  free(s.m);
  docs_unref(docs);
}

/* cfs_init runs for every new SQLite connection (an auto-extension),
** inside sqlite3_open and so before the opener sets a busy timeout: it sets
** one of its own, since another connection may hold the database's lock.
** The opener's own setting replaces it afterwards. A connection without
** the function would fail every search, so failing to register fails the
** open instead. */
static int cfs_init(sqlite3 *db, char **err, const void *thunk) {
  fts5_api *api = 0;
  sqlite3_stmt *st = 0;
  int rc;
  (void)thunk;
  sqlite3_busy_timeout(db, 10000);
  /* No checkpoint when the last connection closes: the write-ahead log
  ** stays for the next process, which then neither recreates it (a
  ** directory fsync and a header fsync) nor pays the checkpoint's two
  ** fsyncs at exit. Checkpoints still run as the log grows
  ** (wal_autocheckpoint), and a crash at any point leaves a consistent
  ** database, as synchronous=NORMAL promises: see docs/RELIABILITY.md. */
  if (sqlite3_db_config) sqlite3_db_config(db, CFS_SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
  rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0);
  if (rc == CFS_SQLITE_OK) {
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(st);
    rc = sqlite3_finalize(st);
  }
  if (rc == CFS_SQLITE_OK && (!api || api->iVersion < 2)) rc = CFS_SQLITE_ERROR;
  if (rc == CFS_SQLITE_OK) rc = api->xCreateFunction(api, "cfs_topk", 0, cfs_topk, 0);
  if (rc == CFS_SQLITE_OK) rc = api->xCreateFunction(api, "cfs_postings", 0, cfs_postings, 0);
  if (rc != CFS_SQLITE_OK && err) *err = sqlite3_mprintf("contextfs: cannot register cfs_topk with FTS5 (error %d)", rc);
  return rc;
}

/* cfs_register makes every connection opened from now on know the
** functions; -1 if SQLite's functions were not linked in. */
int cfs_register(void) {
  if (!sqlite3_auto_extension || !sqlite3_prepare_v2 || !sqlite3_bind_pointer || !sqlite3_step ||
      !sqlite3_finalize || !sqlite3_busy_timeout || !sqlite3_mprintf || !sqlite3_value_double || !sqlite3_value_int64 || !sqlite3_result_blob ||
      !sqlite3_result_error || !sqlite3_result_error_nomem)
    return -1;
  return sqlite3_auto_extension((void (*)(void))cfs_init);
}
