/*
** cfs_dots: inner products of one query vector with many stored ones, for
** the exact semantic scan (dots.go says why it is in C).
**
** The arithmetic is the same as the Go loop it replaced (dot, kept in
** dots_test.go as the reference), lane for lane:
** eight partial sums, lane k adding the products of the elements k, k+8,
** k+16 and so on, any elements past a multiple of eight added to lane 0,
** and the lanes combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)); no fused
** multiply-add. So every build, with or without AVX2, scores alike.
*/
#include <stddef.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "dots.h"

typedef float v8 __attribute__((vector_size(32)));

/* How many vectors ahead the loop asks the memory system for: the vectors
** of a filtered scan are scattered over a large mapping, and their load,
** not the arithmetic, is most of the time. */
#define AHEAD 4

#define DOTS_BODY                                                           \
  for (long long i = 0; i < n; i++) {                                       \
    if (i + AHEAD < n) {                                                    \
      const char *p = (const char *)(vecs + (size_t)(idx ? idx[i + AHEAD] : i + AHEAD) * (size_t)dim); \
      for (int o = 0; o < dim * 4; o += 64) __builtin_prefetch(p + o);      \
    }                                                                       \
    const float *v = vecs + (size_t)(idx ? idx[i] : i) * (size_t)dim;       \
    v8 acc = {0, 0, 0, 0, 0, 0, 0, 0};                                      \
    float s[8];                                                             \
    int j = 0;                                                              \
    for (; j + 8 <= dim; j += 8) {                                          \
      v8 a, b;                                                              \
      memcpy(&a, q + j, sizeof a);                                          \
      memcpy(&b, v + j, sizeof b);                                          \
      acc += a * b;                                                         \
    }                                                                       \
    memcpy(s, &acc, sizeof s);                                              \
    for (; j < dim; j++) s[0] += q[j] * v[j];                               \
    out[i] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])); \
  }

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void dots_avx2(const float *q, const float *vecs, int dim,
                                                      const long long *idx, long long n, float *out) {
  DOTS_BODY
}
#endif

static void dots_generic(const float *q, const float *vecs, int dim, const long long *idx, long long n,
                         float *out) {
  DOTS_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/*
** have_avx2 asks the processor once, on the first scan, not at start-up.
** __builtin_cpu_supports would be shorter, but it links libgcc's
** __cpu_indicator_init, a constructor that runs a dozen cpuid instructions
** in every process before main; under a hypervisor each one traps (perf
** put them at about 0.1 ms of `git contextfs --version`; docs/DESIGN.md,
** "Start-up"). The answer is cached in an atomic:
** two first scans at once both ask and store the same value.
**
** AVX2 needs the instruction (leaf 7, EBX bit 5) and an operating system
** that saves the YMM registers (OSXSAVE, then XCR0 bits 1 and 2).
*/
static int have_avx2(void) {
  static int cached; /* 0 unknown, 1 no, 2 yes */
  int c = __atomic_load_n(&cached, __ATOMIC_RELAXED);
  if (c != 0) return c == 2;
  unsigned a, b, cx, d;
  int yes = 0;
  if (__get_cpuid(1, &a, &b, &cx, &d) && (cx & bit_OSXSAVE)) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &cx, &d)) yes = (b & bit_AVX2) != 0;
  }
  __atomic_store_n(&cached, yes ? 2 : 1, __ATOMIC_RELAXED);
  return yes;
}
#endif

void cfs_dots(const float *q, const float *vecs, int dim, const long long *idx, long long n, float *out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (have_avx2()) {
    dots_avx2(q, vecs, dim, idx, n, out);
    return;
  }
#endif
  dots_generic(q, vecs, dim, idx, n, out);
}

/* cfs_have_avx2 lets the tests see which loop ran. */
int cfs_have_avx2(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  return have_avx2();
#else
  return 0;
#endif
}

/*
** cfs_colsum: the partial inner products of the column scan (ann.go).
** codes holds int8 columns, column c starting at codes + c*stride; for
** each document i in [lo, lo+cnt), out[i-lo] = sum over t < m of
** w[t] * codes[cols[t]*stride + i]. Columns are added one after another
** into out, which stays in the CPU's cache: a block of cnt documents
** reads m runs of cnt bytes, streamed.
*/
typedef signed char c8 __attribute__((vector_size(8)));

#define COLSUM_BODY                                                         \
  for (long long i = 0; i < cnt; i++) out[i] = 0;                           \
  for (int t = 0; t < m; t++) {                                             \
    const signed char *c = codes + (size_t)cols[t] * (size_t)stride + (size_t)lo; \
    float wt = w[t];                                                        \
    long long i = 0;                                                        \
    for (; i + 8 <= cnt; i += 8) {                                          \
      c8 x;                                                                 \
      v8 o;                                                                 \
      memcpy(&x, c + i, sizeof x);                                          \
      memcpy(&o, out + i, sizeof o);                                        \
      o += __builtin_convertvector(x, v8) * wt;                             \
      memcpy(out + i, &o, sizeof o);                                        \
    }                                                                       \
    for (; i < cnt; i++) out[i] += wt * (float)c[i];                        \
  }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The AVX2 loop in intrinsics: GCC turns __builtin_convertvector of eight
** bytes into eight scalar conversions; vpmovsxbd and vcvtdq2ps do them at
** once (the sums are the same: each code is exactly representable). */
__attribute__((target("avx2"))) static void colsum_avx2(const signed char *codes, long long stride, const int *cols,
                                                        const float *w, int m, long long lo, long long cnt, float *out) {
  long long i;
  for (i = 0; i < cnt; i++) out[i] = 0;
  for (int t = 0; t < m; t++) {
    const signed char *c = codes + (size_t)cols[t] * (size_t)stride + (size_t)lo;
    __m256 wt = _mm256_set1_ps(w[t]);
    for (i = 0; i + 8 <= cnt; i += 8) {
      __m128i x = _mm_loadl_epi64((const __m128i *)(c + i));
      __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(x));
      __m256 o = _mm256_loadu_ps(out + i);
      _mm256_storeu_ps(out + i, _mm256_add_ps(o, _mm256_mul_ps(f, wt)));
    }
    for (; i < cnt; i++) out[i] += w[t] * (float)c[i];
  }
}
#endif

static void colsum_generic(const signed char *codes, long long stride, const int *cols, const float *w, int m,
                           long long lo, long long cnt, float *out) {
  COLSUM_BODY
}

void cfs_colsum(const signed char *codes, long long stride, const int *cols, const float *w, int m, long long lo,
                long long cnt, float *out) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (have_avx2()) {
    colsum_avx2(codes, stride, cols, w, m, lo, cnt, out);
    return;
  }
#endif
  colsum_generic(codes, stride, cols, w, m, lo, cnt, out);
}
