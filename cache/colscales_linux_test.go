package cache

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mappedRSS is how many bytes of the mapping that starts at b[0] are
// resident in this process (its Rss line in /proc/self/smaps).
func mappedRSS(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&b[0])))
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(strings.Fields(l)[0], "-") && !strings.HasSuffix(strings.Fields(l)[0], ":") {
			in = strings.HasPrefix(l, start)
			continue
		}
		if in && strings.HasPrefix(l, "Rss:") {
			kb, err := strconv.Atoi(strings.Fields(l)[1])
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// The column scales are sampled from a mapped base a chunk at a time,
// each chunk's pages given back before the next is read: sampling one
// vector in fifteen of a million in one pass left the whole base resident
// (the kernel maps the pages around each fault too), 1.3 GB of a
// reindex's peak. Measured as the mapping's resident bytes at each step.
func TestColScalesKeepsOneChunkOfAMappedBaseResident(t *testing.T) {
	const dim = 16
	n := 8 * colChunk
	path := filepath.Join(t.TempDir(), "vectors")
	buf := make([]byte, 4*n*dim)
	want := make([]float32, dim)
	step := max(1, n/colSample)
	for i := range n {
		for j := range dim {
			x := float32(math.Sin(float64(i*dim+j))) * float32(j+1)
			binary.LittleEndian.PutUint32(buf[4*(i*dim+j):], math.Float32bits(x))
			if i%step == 0 {
				want[j] = max(want[j], float32(math.Abs(float64(x))))
			}
		}
	}
	if err := os.WriteFile(path, buf, 0o600); err != nil {
		t.Fatal(err)
	}
	b, unmap, _, err := mapFileID(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	vecs := unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n*dim)
	chunk := 4 * colChunk * dim
	peak, calls, next := 0, 0, 0
	got := colScales(vecs, n, dim, func(lo, hi int) {
		if lo != next || hi <= lo {
			t.Fatalf("read(%d, %d) after vectors up to %d", lo, hi, next)
		}
		next = hi
		calls++
		peak = max(peak, mappedRSS(t, b))
		dropPages(bytesOf(vecs[lo*dim : hi*dim]))
	})
	if next != n || calls < n/colChunk {
		t.Fatalf("read up to %d in %d calls, want %d in %d", next, calls, n, n/colChunk)
	}
	// One chunk, and the pages the kernel maps around the last faults.
	if peak > 2*chunk {
		t.Errorf("%d bytes of the %d-byte base resident at once, want at most %d", peak, len(b), 2*chunk)
	}
	for j := range dim {
		if got[j] != want[j]/127 {
			t.Fatalf("scale[%d] = %v, want %v", j, got[j], want[j]/127)
		}
	}
}
