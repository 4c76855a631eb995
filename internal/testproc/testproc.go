//go:build linux

// Package testproc holds what tests need to watch real processes they
// start (a watcher they stop with SIGSTOP), read from /proc.
package testproc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// WaitStopped waits until every thread of process pid is stopped (state
// T): kill returns before a SIGSTOP takes effect. It fails the test after
// 5 seconds.
func WaitStopped(t testing.TB, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		stats, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
		stopped := len(stats) > 0
		for _, p := range stats {
			b, err := os.ReadFile(p)
			i := bytes.LastIndexByte(b, ')')
			if err != nil || i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
				stopped = false
			}
		}
		if stopped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is not stopped 5s after SIGSTOP", pid)
		}
	}
}
