#ifndef RING_H
#define RING_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ring;

/* ring_new allocates a ring with room for cap bytes. */
struct ring *ring_new(size_t cap);
void ring_free(struct ring *r);

/* Point is a pair of coordinates. */
typedef struct point {
	int x;
	int y;
} point_t;

union value {
	int i;
	double d;
};

static inline int ring_is_pow2(size_t n)
{
	return n && !(n & (n - 1));
}

#ifdef __cplusplus
}
#endif

#endif /* RING_H */
