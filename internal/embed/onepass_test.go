package embed

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextfs/contextfs/internal/wordvec"
	"github.com/contextfs/contextfs/internal/worldset"
)

// twoPasses embeds texts with h the way the built-in embedder did before
// its halves shared a tokenisation: the hashing embedder over the text,
// then the word-vector tokeniser over it again.
func twoPasses(t *testing.T, s *software, h half, texts []string) [][]float32 {
	t.Helper()
	table, err := wordTable()
	if err != nil {
		t.Fatal(err)
	}
	hv, err := h.hash.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	a := float32(math.Sqrt(float64(h.mix)))
	b := float32(math.Sqrt(float64(1 - h.mix)))
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, s.Dim())
		w := v[:wordvecDim]
		table.SentenceSkipping(new(wordvec.Tokenizer), text, w, h.skip)
		wordvec.Normalize(w)
		for j := range w {
			w[j] *= a
		}
		for j, x := range hv[i] {
			v[wordvecDim+j] = b * x
		}
		wordvec.Normalize(v)
		out[i] = v
	}
	return out
}

// onePassTexts are texts of every kind the tokenisers treat differently:
// contractions in any case, apostrophes that are not contractions,
// identifiers, Han and kana, combining marks, the world set's memories and
// questions, and this repository's Go source and docs in index-sized
// pieces.
func onePassTexts(t *testing.T) []string {
	t.Helper()
	texts := []string{
		"",
		"What database should I use for this new feature?",
		"We use PostgreSQL with connection pooling, max 20 connections per instance.",
		"Why don't we cache it? DON'T. We'Re sure they're fine; it's Bob's, we'll see, I'm done, they'd know, we've won't can't AIN'T.",
		"O'Brien's l'eau rock'n'roll don’t won’t it’s _leading trailing_ __init__ foo__bar x_'",
		"parseHTTPHeader user_id UserID userID2 HTTPServer2Go v1.2.3 SHA256Sum IPv6Addr",
		"数据库 uses PostgreSQL数据库 and カフカ for events; naïve café résumé e\u0301",
		"not no never nor neither: nothing is not cached, never again",
		"the the the the database database database feature",
	}
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range set.Memories {
		texts = append(texts, m.Text)
	}
	for _, q := range append(append(set.World, set.HeldOutWorld...), set.Negated...) {
		texts = append(texts, q.Q)
	}
	for _, f := range []string{"builtin.go", "wordvec.go", "../search/search.go", "../../docs/EMBEDDER.md", "../wordvec/tokens.go"} {
		src, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, Pieces(string(src), 2000)...)
	}
	return texts
}

// TestEmbedWordsMatchesTwoPasses holds the built-in embedder's one pass
// over a text (the hashing half counting the word vectors' words as it
// finds its own features) to the vectors of the two passes it replaced,
// bit for bit, for texts, queries and code queries, with the word memo
// cold and warm.
func TestEmbedWordsMatchesTwoPasses(t *testing.T) {
	texts := onePassTexts(t)
	for _, tc := range []struct {
		name string
		half func(s *software) half
	}{
		{"texts", func(s *software) half { return s.doc }},
		{"queries", func(s *software) half { return s.query }},
		{"code queries", func(s *software) half { return s.code }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewBuiltin().(*software)
			h := tc.half(s)
			want := twoPasses(t, s, h, texts)
			// Twice: the second time every word is in the memo.
			for round := range 2 {
				got, err := s.embed(context.Background(), texts, h)
				if err != nil {
					t.Fatal(err)
				}
				for i := range texts {
					for j := range want[i] {
						if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
							t.Fatalf("round %d, text %d %.60q: component %d is %v, two passes give %v", round, i, texts[i], j, got[i][j], want[i][j])
						}
					}
				}
			}
		})
	}
}

// goldenTexts are texts whose vectors do not change unless the model
// does: the world set, the awkward texts of onePassTexts and the source
// of ky (the quality set's snapshot) in index-sized pieces.
func goldenTexts(t *testing.T) []string {
	t.Helper()
	texts := onePassTexts(t)[:9]
	set, err := worldset.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range set.Memories {
		texts = append(texts, m.Text)
	}
	for _, q := range append(append(set.World, set.HeldOutWorld...), set.Negated...) {
		texts = append(texts, q.Q)
	}
	f, err := os.Open(filepath.FromSlash("../../cmd/contextfs-bench/testdata/quality/ky.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, Pieces(string(b), 2000)...)
	}
	return texts
}

// TestBuiltinVectorsUnchanged pins the SHA-256 of the built-in embedder's
// vectors (texts, queries and code queries) of goldenTexts: a change that
// alters any of them must change the model name, so that cached vectors
// are recomputed, and then this digest.
func TestBuiltinVectorsUnchanged(t *testing.T) {
	texts := goldenTexts(t)
	s := NewBuiltin().(*software)
	for _, tc := range []struct {
		name string
		h    half
		want string
	}{
		{"texts", s.doc, goldenTextsSum},
		{"queries", s.query, goldenQueriesSum},
		{"code queries", s.code, goldenCodeSum},
	} {
		vs, err := s.embed(context.Background(), texts, tc.h)
		if err != nil {
			t.Fatal(err)
		}
		d := sha256.New()
		for _, v := range vs {
			for _, x := range v {
				d.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x)))
			}
		}
		if got := hex.EncodeToString(d.Sum(nil)); got != tc.want {
			t.Errorf("%s of %d texts: vectors' SHA-256 %s, want %s (model %s)", tc.name, len(texts), got, tc.want, s.Model())
		}
	}
}

// The digests of TestBuiltinVectorsUnchanged, recorded with the two-pass
// embedder of commit 5445280 (model builtin/sif-316502927cc0+hash-v2-0.15/320).
const (
	goldenTextsSum   = "4bfd916350991ef90a8ed2b425ebcb2ba7aba99e52a77f583e580eefda924976"
	goldenQueriesSum = "fe9a893d25bc581e0bbdddad6c2f82c6ef84730d23d60cf57a84e7e11db3f9e4"
	goldenCodeSum    = "6a556d4584a12a13dad97df061058e27bab1c35d8580b0f716b607e02015ed25"
)
