package embed

import (
	"bufio"
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// What Serve writes, readAnswer reads back: the vectors of the built-in
// embedder, bit for bit, and an embedder's error as an answer, not as a
// broken pipe.
func TestServeAndReadAnswerAgree(t *testing.T) {
	texts := []string{"pooled database connections", "a", "deploys go out on Tuesdays"}
	var out bytes.Buffer
	in := `{"texts":["pooled database connections","a","deploys go out on Tuesdays"]}` + "\n" + `{"texts":[]}` + "\n"
	if err := Serve(context.Background(), strings.NewReader(in), &out, NewBuiltin()); err != nil {
		t.Fatal(err)
	}
	want, err := NewBuiltin().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&out)
	got, _, err := readAnswer(r, len(texts))
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("vector %d differs after the pipe", i)
		}
	}
	if _, _, err := readAnswer(r, 0); err == nil {
		t.Error("an answer of no vectors read as vectors; the protocol has none (the embedder sends no empty request)")
	}
}

// FuzzReadAnswer: no answer a broken or foreign program writes makes the
// embedder panic, or return vectors other than n of one dimension.
func FuzzReadAnswer(f *testing.F) {
	var served bytes.Buffer
	Serve(context.Background(), strings.NewReader(`{"texts":["x","y"]}`+"\n"), &served, NewBuiltin())
	f.Add(served.Bytes(), 2)
	f.Add([]byte(`{"error":"embed: POST x: 503","unavailable":true}`+"\n"), 1)
	f.Add([]byte(`{"n":1,"dim":2}`+"\n\x00\x00\x80?\x00\x00\x00@"), 1)
	f.Add([]byte("<html>\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		vecs, a, err := readAnswer(bufio.NewReader(bytes.NewReader(data)), n)
		if err != nil || a.Error != "" {
			if vecs != nil {
				t.Fatalf("vectors with an error: %v %+v", err, a)
			}
			return
		}
		if len(vecs) != n {
			t.Fatalf("%d vectors for %d texts", len(vecs), n)
		}
		for _, v := range vecs {
			if len(v) == 0 || len(v) != len(vecs[0]) {
				t.Fatalf("dimensions %d and %d", len(v), len(vecs[0]))
			}
		}
	})
}
