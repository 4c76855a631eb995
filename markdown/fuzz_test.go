package markdown

import (
	"testing"
)

// FuzzParseAgreesWithGoldmark checks that no input panics and that every
// input reads as goldmark reads it: the same blocks at the same offsets,
// with the same plain text.
func FuzzParseAgreesWithGoldmark(f *testing.F) {
	for _, tt := range differentialCases {
		f.Add([]byte(tt.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4<<10 {
			return // longer inputs only slow the fuzzer down
		}
		got := ours(src).String()
		want, ok := theirsNoPanic(src)
		if !ok {
			return
		}
		if got != want.String() {
			t.Errorf("Parse(%q):\n--- goldmark\n%s\n--- ours\n%s", src, want, got)
		}
	})
}

// theirsNoPanic is theirs, reporting false where goldmark panics.
func theirsNoPanic(src []byte) (v view, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return theirs(src), true
}
