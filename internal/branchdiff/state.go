package branchdiff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// state is what a Resolver keeps, as one process leaves it for the next:
// the CLI runs once per command, and without it would ask git every time.
// Every key in it is checked as it is in a long-lived Resolver, so a state
// left by an older process is used only where nothing it was computed
// from has changed.
type state struct {
	Key       string  `json:"key"`
	Head      bool    `json:"head"`
	Base      string  `json:"base,omitempty"`
	MergeBase string  `json:"merge_base,omitempty"`
	LastKey   string  `json:"last_key,omitempty"`
	Last      Changes `json:"last"`
}

func (r *Resolver) state() state {
	return state{Key: r.key, Head: r.head, Base: r.base, MergeBase: r.mergeBase, LastKey: r.lastKey,
		Last: Changes{Base: r.last.Base, MergeBase: r.last.MergeBase, Files: slices.Clone(r.last.Files)}}
}

func (st state) equal(o state) bool {
	return st.Key == o.Key && st.Head == o.Head && st.Base == o.Base && st.MergeBase == o.MergeBase && st.LastKey == o.LastKey &&
		st.Last.Base == o.Last.Base && st.Last.MergeBase == o.Last.MergeBase && slices.Equal(st.Last.Files, o.Last.Files)
}

// Load takes up what a Resolver saved at path (Save) in an earlier
// process. A missing or unreadable file is an empty start: git is asked.
func (r *Resolver) Load(path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var st state
	if json.Unmarshal(raw, &st) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.key, r.head, r.base, r.mergeBase = st.Key, st.Head, st.Base, st.MergeBase
	r.lastKey, r.last = st.LastKey, st.Last
	r.loaded = st
}

// Save writes what r keeps to path for the next process, atomically (a
// reader sees the old file or the new one), and only when it changed since
// Load.
func (r *Resolver) Save(path string) error {
	r.mu.Lock()
	st := r.state()
	same := st.equal(r.loaded)
	r.mu.Unlock()
	if same {
		return nil
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".branchdiff-*")
	if err != nil {
		return fmt.Errorf("branchdiff: save: %w", err)
	}
	_, werr := f.Write(raw)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("branchdiff: save: %w", werr)
	}
	r.mu.Lock()
	r.loaded = st
	r.mu.Unlock()
	return nil
}
