package cache

// The exact semantic scan spends its time loading vectors, not
// multiplying them: a duplicate check at 100K memories scores the 10,000
// memories of one type, scattered over a 100 MB mapping, and Go's loop
// (which the compiler neither vectorises nor lets prefetch) took 4.4 ms
// for them where cfs_dots (dots.c), asking for each vector a few ahead
// and multiplying eight lanes at a time, takes 0.4 ms, with the same
// scores to the bit (TestDotsAgreeWithDot).

/*
#include "dots.h"
*/
import "C"

import "unsafe"

// dots sets out[i] to the inner product of q with the vector at position
// idx[i] of vecs, or, when idx is nil, position i. Every vector is
// len(q) long.
func dots(q, vecs []float32, idx []int64, out []float32) {
	n := len(out)
	if n == 0 || len(q) == 0 {
		return
	}
	dim := len(q)
	var ip *C.longlong
	if idx != nil {
		idx = idx[:n]
		for _, i := range idx { // the C side trusts every position
			if i < 0 || (int(i)+1)*dim > len(vecs) {
				panic("cache: dots: vector position out of range")
			}
		}
		ip = (*C.longlong)(unsafe.Pointer(&idx[0]))
	} else if n*dim > len(vecs) {
		panic("cache: dots: too few vectors")
	}
	C.cfs_dots((*C.float)(unsafe.Pointer(&q[0])), (*C.float)(unsafe.Pointer(&vecs[0])), C.int(dim), ip,
		C.longlong(n), (*C.float)(unsafe.Pointer(&out[0])))
}

// haveAVX2 reports whether dots runs its AVX2 loop on this processor.
func haveAVX2() bool { return C.cfs_have_avx2() != 0 }
