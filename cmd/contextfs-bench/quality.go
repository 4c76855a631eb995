package main

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/contextfs/contextfs/internal/git"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// qualityDir holds the derived evaluation sets (see qualitydata.go).
const qualityDir = "cmd/contextfs-bench/testdata/quality"

// codeSets and docSets name the committed sets.
var (
	codeSets = []string{"go-git", "requests", "ky"}
	docSets  = []string{"proposal"}
)

// pickSets reads -quality-sets: the named sets, or every set (SICK
// included) when list is empty.
func pickSets(list string) (map[string]bool, error) {
	all := append(append(append([]string(nil), codeSets...), docSets...), "world", "sick")
	sets := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !slices.Contains(all, name) {
			return nil, fmt.Errorf("-quality-sets: no set %q (sets: %s)", name, strings.Join(all, ", "))
		}
		sets[name] = true
	}
	if len(sets) == 0 {
		for _, name := range all {
			sets[name] = true
		}
	}
	return sets, nil
}

// scores accumulates MRR@10 and Recall@5 over queries.
type scores struct {
	rr   float64
	top5 int
	n    int
}

func (s *scores) add(rank int) {
	s.n++
	if rank >= 1 && rank <= 10 {
		s.rr += 1 / float64(rank)
	}
	if rank >= 1 && rank <= 5 {
		s.top5++
	}
}

func (s scores) mrr() float64    { return s.rr / float64(max(s.n, 1)) }
func (s scores) recall() float64 { return float64(s.top5) / float64(max(s.n, 1)) }

// qualityModes are the rankings measured; "hybrid W" runs hybrid at
// semantic weight W (add some to see the weight's effect; the table shows
// them after its last column).
var qualityModes = []string{contextfs.ModeKeyword, contextfs.ModeSemantic, contextfs.ModeHybrid}

func modeQuery(mode string) (string, *float64) {
	m, w, ok := strings.Cut(mode, " ")
	if !ok {
		return mode, nil
	}
	var x float64
	fmt.Sscan(w, &x)
	return m, &x
}

// benchQuality prints the quality table of the code and document sets named
// in sets: code search on real repositories (file found for a commit
// subject) and long documents (memory found for its title), each against a
// file-level SQLite FTS5 BM25 baseline computed in the same run.
func benchQuality(ctx context.Context, root string, sets map[string]bool) error {
	fmt.Println("## Search quality on real repositories")
	fmt.Println()
	fmt.Println("Code: queries are the subjects of commits that changed exactly one non-test source file; the target is that file, in a snapshot of the repository at one commit. contextfs runs `search --type code` (results folded to files, first occurrence counts); the baseline is SQLite FTS5 (porter, bm25) over whole files, any query word matching. Long documents: design documents of golang/proposal saved as memories under neutral titles, queried by their titles; \"short\" keeps the first 1,500 bytes of each body.")
	fmt.Println()
	fmt.Println("| set | queries | baseline FTS5 MRR@10 / R@5 | keyword MRR@10 / R@5 | semantic MRR@10 / R@5 | hybrid MRR@10 / R@5 | hybrid ÷ baseline (MRR) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, name := range codeSets {
		if !sets[name] {
			continue
		}
		row, err := codeQuality(ctx, root, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Println(row)
	}
	for _, name := range docSets {
		if !sets[name] {
			continue
		}
		for _, short := range []bool{false, true} {
			row, err := docQuality(ctx, root, name, short)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			fmt.Println(row)
		}
	}
	fmt.Println()
	return nil
}

func qualityRow(name string, n int, base scores, by map[string]scores) string {
	cell := func(s scores) string { return fmt.Sprintf("%.3f / %.3f", s.mrr(), s.recall()) }
	ratio := by[contextfs.ModeHybrid].mrr() / max(base.mrr(), 1e-9)
	extra := ""
	for _, m := range qualityModes[3:] {
		extra += fmt.Sprintf(" %s=%.3f", m, by[m].mrr())
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %.2f× |%s", name, n, cell(base), cell(by[contextfs.ModeKeyword]),
		cell(by[contextfs.ModeSemantic]), cell(by[contextfs.ModeHybrid]), ratio, extra)
}

func loadSet(root, name string) (qualitySet, error) {
	var set qualitySet
	raw, err := os.ReadFile(filepath.Join(root, qualityDir, name+".json"))
	if err != nil {
		return set, err
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return set, fmt.Errorf("%s.json: %w", name, err)
	}
	return set, nil
}

// untar writes the snapshot archive's files under dir and returns their
// contents by path.
func untar(archive, dir string) (map[string]string, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	tr := tar.NewReader(zr)
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", archive, err)
		}
		if !filepath.IsLocal(h.Name) {
			return nil, fmt.Errorf("%s: unsafe path %q", archive, h.Name)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[h.Name] = string(body)
		if dir != "" {
			if err := gitstore.WriteFileAtomic(filepath.Join(dir, h.Name), body, 0o644); err != nil {
				return nil, err
			}
		}
	}
}

func codeQuality(ctx context.Context, root, name string) (string, error) {
	set, err := loadSet(root, name)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "contextfs-quality-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	files, err := untar(filepath.Join(root, qualityDir, name+".tar.gz"), dir)
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "snapshot"}} {
		if _, err := git.Run(ctx, dir, args...); err != nil {
			return "", err
		}
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: qualityEmbedder(), VectorIndexFrom: qualityANNFrom})
	if err != nil {
		return "", err
	}
	defer s.Close()
	if _, err := s.Index(ctx, contextfs.IndexOptions{Full: true}); err != nil {
		return "", err
	}
	base, err := newBaseline(files)
	if err != nil {
		return "", err
	}
	defer base.Close()
	var bs scores
	by := map[string]scores{}
	var dq []dumpQuery
	for _, q := range set.Queries {
		got, err := base.search(q.Query)
		dq = append(dq, dumpQuery{Query: q.Query, Target: q.Target, Base: got})
		if err != nil {
			return "", err
		}
		bs.add(rankOf(got, q.Target))
		for _, mode := range qualityModes {
			m, w := modeQuery(mode)
			res, err := s.SearchIndexed(ctx, contextfs.Query{Text: q.Query, Types: []string{"code"}, Mode: m, SemanticWeight: w, Limit: 60})
			if err != nil {
				return "", err
			}
			var paths []string
			seen := map[string]bool{}
			for _, r := range res {
				if !seen[r.Path] {
					seen[r.Path] = true
					paths = append(paths, r.Path)
				}
			}
			sc := by[mode]
			sc.add(rankOf(paths, q.Target))
			by[mode] = sc
		}
	}
	if err := dumpCandidates(ctx, s, name, []string{"code"}, dq); err != nil {
		return "", err
	}
	return qualityRow(set.Repo+" @ "+set.Commit[:8], len(set.Queries), bs, by), nil
}

// shortBody is the length of a "short" document: the head of the body, cut
// at a line end.
const shortBody = 1500

func docQuality(ctx context.Context, root, name string, short bool) (string, error) {
	set, err := loadSet(root, name)
	if err != nil {
		return "", err
	}
	files, err := untar(filepath.Join(root, qualityDir, name+".tar.gz"), "")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "contextfs-quality-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if _, err := git.Run(context.Background(), "", "init", "-q", dir); err != nil {
		return "", err
	}
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	bodies := map[string]string{}
	for i, q := range set.Queries {
		body := files[q.Target]
		_, body, _ = strings.Cut(strings.TrimSpace(body), "\n") // drop the title line
		if short && len(body) > shortBody {
			cut := strings.LastIndexByte(body[:shortBody], '\n')
			if cut < 0 {
				cut = shortBody
			}
			body = strings.ToValidUTF8(body[:cut], "")
		}
		body = strings.TrimSpace(body) + "\n"
		m := &memory.Memory{ID: fmt.Sprintf("d%05d", i), Type: "doc", Title: fmt.Sprintf("Document %d", i+1), Created: ts, Updated: ts, Body: body}
		bodies[m.ID] = body
		raw, err := gitstore.Encode(m, nil, true)
		if err != nil {
			return "", err
		}
		if err := gitstore.WriteFileAtomic(filepath.Join(dir, ".contextfs", "docs", m.ID+".md"), raw, 0o644); err != nil {
			return "", err
		}
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: qualityEmbedder(), VectorIndexFrom: qualityANNFrom})
	if err != nil {
		return "", err
	}
	defer s.Close()
	if _, err := s.Sync(ctx); err != nil {
		return "", err
	}
	base, err := newBaseline(bodies)
	if err != nil {
		return "", err
	}
	defer base.Close()
	var bs scores
	by := map[string]scores{}
	var dq []dumpQuery
	for i, q := range set.Queries {
		id := fmt.Sprintf("d%05d", i)
		got, err := base.search(q.Query)
		dq = append(dq, dumpQuery{Query: q.Query, Target: id, Base: got})
		if err != nil {
			return "", err
		}
		bs.add(rankOf(got, id))
		for _, mode := range qualityModes {
			m, w := modeQuery(mode)
			res, err := s.SearchIndexed(ctx, contextfs.Query{Text: q.Query, Types: []string{"doc"}, Mode: m, SemanticWeight: w, Limit: 10})
			if err != nil {
				return "", err
			}
			var ids []string
			for _, r := range res {
				ids = append(ids, r.ID)
			}
			sc := by[mode]
			sc.add(rankOf(ids, id))
			by[mode] = sc
		}
	}
	dname := name
	if short {
		dname += "-short"
	}
	if err := dumpCandidates(ctx, s, dname, []string{"doc"}, dq); err != nil {
		return "", err
	}
	label := set.Repo + " design docs, whole bodies"
	if short {
		label = set.Repo + " design docs, first 1,500 bytes"
	}
	return qualityRow(label, len(set.Queries), bs, by), nil
}

func rankOf(list []string, target string) int {
	for i, x := range list {
		if x == target {
			return i + 1
		}
	}
	return 0
}

// baseline is the plain file-level BM25 the issue measures against: one
// FTS5 row per file, Porter stemming, any query word matching, bm25()
// order. It uses SQLite directly, not contextfs's cache.
type baseline struct{ db *sql.DB }

func newBaseline(docs map[string]string) (*baseline, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(name UNINDEXED, body, tokenize='porter unicode61')`); err != nil {
		db.Close()
		return nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, err
	}
	for name, body := range docs {
		if _, err := tx.Exec(`INSERT INTO f(name, body) VALUES (?, ?)`, name, body); err != nil {
			tx.Rollback()
			db.Close()
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		db.Close()
		return nil, err
	}
	return &baseline{db}, nil
}

func (b *baseline) search(q string) ([]string, error) {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		words = append(words, `"`+w+`"`)
	}
	if len(words) == 0 {
		return nil, nil
	}
	rows, err := b.db.Query(`SELECT name FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10`, strings.Join(words, " OR "))
	if err != nil {
		return nil, fmt.Errorf("baseline %q: %w", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (b *baseline) Close() error { return b.db.Close() }
