/* Inner products for the semantic scan; see dots.c. */
#ifndef CONTEXTFS_DOTS_H
#define CONTEXTFS_DOTS_H

/* cfs_dots sets out[i] to the inner product of q with the vector at
** position idx[i] of vecs (position i when idx is NULL), each dim floats. */
void cfs_dots(const float *q, const float *vecs, int dim, const long long *idx, long long n, float *out);

/* cfs_colsum sets out[i] for i < cnt to the sum over t < m of
** w[t] * codes[cols[t]*stride + lo + i]: the column scan of ann.go. */
void cfs_colsum(const signed char *codes, long long stride, const int *cols, const float *w, int m, long long lo,
                long long cnt, float *out);

/* cfs_have_avx2 reports whether cfs_dots uses its AVX2 loop. */
int cfs_have_avx2(void);

#endif
