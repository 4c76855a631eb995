package chunker

/*
#include <stddef.h>
// Declared by tree-sitter's api.h; defined in the go-tree-sitter package,
// which this binary links.
void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
	void *(*new_realloc)(void *, size_t), void (*new_free)(void *));
static void contextfs_ts_default_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
*/
import "C"

import "sync"

// useLibcAllocator points tree-sitter back at its default allocator (libc
// malloc). go-tree-sitter installs allocator functions that call back into
// Go for every allocation only to call C.malloc there: the same heap, so
// nothing allocated before the switch is freed wrongly, but each crossing
// from C into Go costs more than the allocation, and a parse makes
// thousands. Measured: parsing runs about twice as fast without them.
var useLibcAllocator = sync.OnceFunc(func() { C.contextfs_ts_default_allocator() })
