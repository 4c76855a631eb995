package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/contextfs/contextfs/internal/testgit"
)

// TestMCPRequestReusingAnInFlightIDIsAnsweredWithAnError holds the
// repository's write lock so that a save stays in flight, sends a second
// request with the save's id, and expects an invalid-request error for it
// at once; once the lock is released the save is answered as usual, and
// the server goes on serving. The SDK alone dropped the second request
// without an answer, and a client waiting on it hung.
func TestMCPRequestReusingAnInFlightIDIsAnsweredWithAnError(t *testing.T) {
	dir := testgit.Init(t)
	lockDir := filepath.Join(dir, ".git", "contextfs")
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(lockDir, "write.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	p := startMCP(t, dir)
	p.initialize()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"save_memory","arguments":{"type":"fact","content":"The build uses a shared cache."}}}`)
	for _, dup := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_status","arguments":{}}}`,
	} {
		p.send(dup)
		r := p.next()
		if string(r.ID) != "7" || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "already in use") {
			t.Fatalf("reply to a request reusing id 7: id %s error %+v result %s", r.ID, r.Error, r.Result)
		}
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	r := p.next()
	if text, isErr := toolText(t, r); string(r.ID) != "7" || isErr {
		t.Fatalf("the save: id %s error %v: %s", r.ID, isErr, text)
	}
	// The id is free again once answered.
	p.ping(7)
	if files, _ := filepath.Glob(filepath.Join(dir, ".contextfs", "memories", "*.md")); len(files) != 1 {
		t.Errorf("%d memory files, want the one save", len(files))
	}
}
