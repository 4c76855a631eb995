package watch

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestOnChangeComesOnceABurstSettles(t *testing.T) {
	var calls, running, overlapped atomic.Int32
	// Long enough that a loaded machine under -race writes the burst
	// within it.
	settle := 250 * time.Millisecond
	d := startDaemon(t, ServeOptions{Settle: settle, OnChange: func() {
		if running.Add(1) > 1 {
			overlapped.Add(1)
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		calls.Add(1)
	}})
	// A burst: five files a few milliseconds apart, well within Settle.
	start := time.Now()
	for i := range 5 {
		writeFile(t, filepath.Join(d.mem, "memories", fmt.Sprintf("m%d.md", i)), "x")
		time.Sleep(5 * time.Millisecond)
	}
	if n := calls.Load(); n != 0 && time.Since(start) < settle {
		t.Fatalf("OnChange called %d times during the burst", n)
	}
	waitFor(t, "OnChange after the burst", func() bool { return calls.Load() == 1 })
	time.Sleep(3 * settle)
	if n := calls.Load(); n != 1 {
		t.Errorf("OnChange called %d times for one burst, want 1", n)
	}
	// A second burst, a second call.
	writeFile(t, filepath.Join(d.mem, "memories", "later.md"), "x")
	waitFor(t, "OnChange after the second burst", func() bool { return calls.Load() == 2 })
	if overlapped.Load() != 0 {
		t.Error("two OnChange calls ran at once")
	}
}

func TestNoOnChangeWithoutChanges(t *testing.T) {
	var calls atomic.Int32
	startDaemon(t, ServeOptions{Settle: 10 * time.Millisecond, OnChange: func() { calls.Add(1) }})
	time.Sleep(100 * time.Millisecond)
	if n := calls.Load(); n != 0 {
		t.Errorf("OnChange called %d times with nothing changed", n)
	}
}
