/*
 * ring.c - a fixed-size ring buffer of bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "ring.h"

#define RING_MIN 16

/* ring holds the buffer and its cursors. */
struct ring {
	unsigned char *buf;
	size_t cap;
	size_t head;
	size_t tail;
};

typedef enum {
	RING_OK = 0,
	RING_FULL,
	RING_EMPTY,
} ring_status;

typedef struct {
	size_t reads;
	size_t writes;
} ring_stats;

static ring_stats stats;

// ring_new allocates a ring with room for cap bytes.
struct ring *ring_new(size_t cap)
{
	struct ring *r = malloc(sizeof(*r));
	if (r == NULL)
		return NULL;
	if (cap < RING_MIN)
		cap = RING_MIN;
	r->buf = calloc(cap, 1);
	r->cap = cap;
	r->head = r->tail = 0;
	return r;
}

void ring_free(struct ring *r)
{
	if (r) {
		free(r->buf);
		free(r);
	}
}

static size_t ring_len(const struct ring *r)
{
	return r->head - r->tail;
}

ring_status ring_put(struct ring *r, unsigned char c)
{
	if (ring_len(r) == r->cap)
		return RING_FULL;
	r->buf[r->head++ % r->cap] = c;
	stats.writes++;
	return RING_OK;
}

ring_status ring_get(struct ring *r, unsigned char *out)
{
	if (ring_len(r) == 0)
		return RING_EMPTY;
	*out = r->buf[r->tail++ % r->cap];
	stats.reads++;
	return RING_OK;
}
