package cache

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// dot is the inner product as the scan computed it in Go before dots.c:
// the reference that cfs_dots must agree with to the bit.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
		s4 += a[i+4] * b[i+4]
		s5 += a[i+5] * b[i+5]
		s6 += a[i+6] * b[i+6]
		s7 += a[i+7] * b[i+7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// TestDotsAgreeWithDot checks that the C kernel gives the portable Go
// loop's scores bit for bit, by position list and by range, for
// dimensions that are and are not multiples of eight.
func TestDotsAgreeWithDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 7, 8, 13, 256, 384} {
		const n = 300
		vecs := make([]float32, n*dim)
		for i := range vecs {
			vecs[i] = r.Float32()*2 - 1
		}
		q := make([]float32, dim)
		for i := range q {
			q[i] = r.Float32()*2 - 1
		}
		idx := []int64{299, 0, 5, 5, 17, 150, 298}
		got := make([]float32, len(idx))
		dots(q, vecs, idx, got)
		for i, p := range idx {
			if want := dot(q, vecs[int(p)*dim:(int(p)+1)*dim]); got[i] != want {
				t.Errorf("dim %d, position %d: dots %v, dot %v", dim, p, got[i], want)
			}
		}
		all := make([]float32, n-3)
		dots(q, vecs[3*dim:], nil, all)
		for i, g := range all {
			if want := dot(q, vecs[(i+3)*dim:(i+4)*dim]); g != want {
				t.Errorf("dim %d, range position %d: dots %v, dot %v", dim, i+3, g, want)
			}
		}
	}
}

// The AVX2 loop is chosen by dots.c's own probe, made on the first scan
// rather than by a constructor at start-up; it must agree with Go's.
func TestDotsUseAVX2ExactlyWhenTheProcessorHasIt(t *testing.T) {
	want := runtime.GOARCH == "amd64" && cpu.X86.HasAVX2
	for range 2 { // the first call probes, the second reads the cached answer
		if got := haveAVX2(); got != want {
			t.Fatalf("haveAVX2() = %v, want %v (golang.org/x/sys/cpu)", got, want)
		}
	}
}
