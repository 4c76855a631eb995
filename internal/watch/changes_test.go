package watch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestChangeLogMatchesSpecification drives a changeLog with random
// operations and checks every answer against the specification, computed
// from the order of operations rather than from sequence numbers: the
// answer for a token lists exactly the keys recorded after the token was
// issued, or is "full" if events were lost since or more than max keys
// changed. This covers coalescing, compaction and trimming at once.
func TestChangeLogMatchesSpecification(t *testing.T) {
	for _, max := range []int{1, 3, 10, 1000} {
		t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(max), 42))
			l := newChangeLog(max)
			type op struct {
				key        changeKey
				invalidate bool
			}
			var ops []op
			type issued struct {
				seq uint64
				at  int // len(ops) when issued
			}
			var tokens []issued
			for i := 0; i < 4000; i++ {
				switch r := rng.IntN(100); {
				case r < 70:
					k := changeKey{path: fmt.Sprintf("p%d", rng.IntN(40)), prefix: rng.IntN(4) == 0}
					if rng.IntN(3) == 0 && len(ops) > 0 && !ops[len(ops)-1].invalidate {
						k = ops[len(ops)-1].key // bursts of one key
					}
					l.record(k.path, k.prefix)
					ops = append(ops, op{key: k})
				case r < 71:
					l.invalidate()
					ops = append(ops, op{invalidate: true})
				case r < 85:
					tokens = append(tokens, issued{l.issue(), len(ops)})
				default:
					if len(tokens) == 0 {
						continue
					}
					tok := tokens[rng.IntN(len(tokens))]
					full, paths, prefixes := l.since(tok.seq)

					wantFull := false
					want := map[changeKey]bool{}
					for _, o := range ops[tok.at:] {
						if o.invalidate {
							wantFull = true
						}
						want[o.key] = true
					}
					if len(want) > max {
						wantFull = true
					}
					if full != wantFull {
						t.Fatalf("op %d: token issued at op %d: full = %v, want %v (%d keys changed since)", i, tok.at, full, wantFull, len(want))
					}
					if full {
						continue
					}
					got := map[changeKey]bool{}
					for _, p := range paths {
						got[changeKey{p, false}] = true
					}
					for _, p := range prefixes {
						got[changeKey{p, true}] = true
					}
					if len(got) != len(paths)+len(prefixes) {
						t.Fatalf("op %d: duplicate keys in %v %v", i, paths, prefixes)
					}
					for k := range want {
						if !got[k] {
							t.Fatalf("op %d: token issued at op %d: missing %+v", i, tok.at, k)
						}
					}
					for k := range got {
						if !want[k] {
							t.Fatalf("op %d: token issued at op %d: %+v did not change", i, tok.at, k)
						}
					}
				}
			}
			if n := l.pending(); n > 2*max+1 {
				t.Errorf("remembers %d keys, want at most %d", n, 2*max+1)
			}
			if n := len(l.entries); n > 2*l.pending()+65 {
				t.Errorf("log has %d entries for %d keys", n, l.pending())
			}
		})
	}
}

func TestChangeLogFutureTokenIsFull(t *testing.T) {
	l := newChangeLog(10)
	l.record("a", false)
	if full, _, _ := l.since(l.issue() + 1); !full {
		t.Error("a token from the future got a partial answer")
	}
}

func TestTokenRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		tok  string
		inst string
		seq  uint64
		ok   bool
	}{
		{"abc:0", "abc", 0, true},
		{"abc:18446744073709551615", "abc", 1<<64 - 1, true},
		{"", "", 0, false},
		{"abc", "", 0, false},
		{":5", "", 0, false},
		{"abc:", "", 0, false},
		{"abc:-1", "", 0, false},
		{"abc:18446744073709551616", "", 0, false},
		{"abc:1:2", "", 0, false},
	} {
		inst, seq, ok := parseToken(tc.tok)
		if inst != tc.inst || seq != tc.seq || ok != tc.ok {
			t.Errorf("parseToken(%q) = %q, %d, %v; want %q, %d, %v", tc.tok, inst, seq, ok, tc.inst, tc.seq, tc.ok)
		}
		if ok && formatToken(inst, seq) != tc.tok {
			t.Errorf("formatToken(%q, %d) = %q", inst, seq, formatToken(inst, seq))
		}
	}
}

func TestChangeLogInvalidateForgets(t *testing.T) {
	l := newChangeLog(10)
	for i := range 5 {
		l.record(fmt.Sprint(i), false)
	}
	l.invalidate()
	if l.pending() != 0 || len(l.entries) != 0 {
		t.Errorf("after invalidate: %d keys, %d entries remembered", l.pending(), len(l.entries))
	}
	tok := l.issue()
	l.record("x", false)
	full, paths, _ := l.since(tok)
	if full || !slices.Equal(paths, []string{"x"}) {
		t.Errorf("since token after invalidate = %v %v, want [x]", full, paths)
	}
}
