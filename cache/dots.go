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

// colsum sets out[i] to the sum over t of w[t] times the int8 code of
// document lo+i in column cols[t] of codes (columns stride bytes apart):
// the column scan's partial inner products (ann.go).
func colsum(codes []int8, stride int, cols []int32, w []float32, lo int, out []float32) {
	if len(out) == 0 || len(cols) == 0 {
		clear(out)
		return
	}
	for _, c := range cols { // the C side trusts every column
		if c < 0 || (int(c)+1)*stride > len(codes) || lo+len(out) > stride {
			panic("cache: colsum: column out of range")
		}
	}
	C.cfs_colsum((*C.schar)(unsafe.Pointer(&codes[0])), C.longlong(stride), (*C.int)(unsafe.Pointer(&cols[0])),
		(*C.float)(unsafe.Pointer(&w[0])), C.int(len(cols)), C.longlong(lo), C.longlong(len(out)), (*C.float)(unsafe.Pointer(&out[0])))
}
