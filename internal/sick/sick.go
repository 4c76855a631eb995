// Package sick loads the SICK relatedness set (Sentences Involving
// Compositional Knowledge, Marelli et al. 2014) used to measure how well an
// embedder's cosine similarity agrees with human judgements.
//
// The set is not vendored: a copy ships inside the github.com/kelindar/search
// module, which the contextfs module already requires, so it is in the module
// cache after `go mod download`. Locate finds it there without touching the
// network.
package sick

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Module and Version name the module whose zip carries the data set; the
// data set is at DatasetPath inside it.
const (
	Module      = "github.com/kelindar/search"
	Version     = "v0.5.0"
	DatasetPath = "dist/dataset.txt"
)

// EnvPath names the environment variable that, when set, points Locate at a
// copy of the data set outside the module cache.
const EnvPath = "CONTEXTFS_SICK"

// header is the column row the file must start with; checking it catches a
// wrong file early instead of misreading its columns.
var header = []string{"pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment"}

// Pair is one sentence pair with its mean human relatedness score, from 1
// (unrelated) to 5 (same meaning), and its entailment judgement
// (ENTAILMENT, NEUTRAL or CONTRADICTION; empty when the file has no such
// column).
type Pair struct {
	ID         int
	A, B       string
	Score      float64
	Entailment string
}

// Locate returns the path of the SICK data set: the file named by
// $CONTEXTFS_SICK if that is set, otherwise the copy in the Go module cache.
// The error names every place tried and the command that fetches the module.
func Locate() (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		if err := isFile(p); err != nil {
			return "", fmt.Errorf("sick: $%s=%q: %w", EnvPath, p, err)
		}
		return p, nil
	}
	var tried []string
	for _, cache := range modCaches() {
		p := filepath.Join(cache, filepath.FromSlash(Module+"@"+Version), filepath.FromSlash(DatasetPath))
		if isFile(p) == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("sick: data set not found (tried %s); fetch it with `go mod download %s@%s` or set $%s to a copy of %s",
		strings.Join(tried, ", "), Module, Version, EnvPath, DatasetPath)
}

// modCaches lists candidate module cache directories, most authoritative
// first and without duplicates. `go env` is asked first because it applies
// go.env and the user's go env -w settings; the fallbacks cover a missing or
// broken go command.
func modCaches() []string {
	var dirs []string
	add := func(d string) {
		if d != "" && filepath.IsAbs(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	add(goEnv("GOMODCACHE"))
	add(os.Getenv("GOMODCACHE"))
	for _, gp := range filepath.SplitList(os.Getenv("GOPATH")) {
		if gp != "" {
			add(filepath.Join(gp, "pkg", "mod"))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		add(filepath.Join(home, "go", "pkg", "mod"))
	}
	return dirs
}

// goEnv returns the value of `go env name`, or "" if the go command is
// unavailable or slow; a hung toolchain download must not hang the caller.
func goEnv(name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func isFile(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &fs.PathError{Op: "stat", Path: p, Err: errors.New("not a regular file")}
	}
	return nil
}

// Load reads a SICK file: a tab-separated header row followed by one pair per
// row. Errors name the file and line so a damaged copy is easy to find.
func Load(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sick: %w", err)
	}
	defer f.Close()
	pairs, err := parse(f, path)
	if err != nil {
		return nil, fmt.Errorf("sick: %w", err)
	}
	return pairs, nil
}

func parse(r io.Reader, name string) ([]Pair, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	var (
		pairs []Pair
		seen  = make(map[int]int) // pair ID -> line
		line  int
	)
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
			if got := strings.Split(text, "\t"); len(got) < 4 || !slices.Equal(got[:4], header[:4]) {
				return nil, fmt.Errorf("%s:1: header is %q, want columns %q", name, text, strings.Join(header, "\t"))
			}
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		p, err := parseRow(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if prev, dup := seen[p.ID]; dup {
			return nil, fmt.Errorf("%s:%d: pair_ID %d already used on line %d", name, line, p.ID, prev)
		}
		seen[p.ID] = line
		pairs = append(pairs, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty file, want a header row", name)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%s: no pairs after the header", name)
	}
	return pairs, nil
}

func parseRow(text string) (Pair, error) {
	f := strings.Split(text, "\t")
	if len(f) < 4 {
		return Pair{}, fmt.Errorf("%d tab-separated fields, want at least 4 (%s)", len(f), strings.Join(header[:4], ", "))
	}
	id, err := strconv.Atoi(strings.TrimSpace(f[0]))
	if err != nil {
		return Pair{}, fmt.Errorf("pair_ID %q is not an integer", f[0])
	}
	a, b := strings.TrimSpace(f[1]), strings.TrimSpace(f[2])
	if a == "" || b == "" {
		return Pair{}, fmt.Errorf("pair %d: empty sentence", id)
	}
	score, err := strconv.ParseFloat(strings.TrimSpace(f[3]), 64)
	if err != nil {
		return Pair{}, fmt.Errorf("pair %d: relatedness_score %q is not a number", id, f[3])
	}
	if !(score >= 1 && score <= 5) {
		return Pair{}, fmt.Errorf("pair %d: relatedness_score %v is outside [1, 5]", id, score)
	}
	p := Pair{ID: id, A: a, B: b, Score: score}
	if len(f) > 4 {
		p.Entailment = strings.TrimSpace(f[4])
	}
	return p, nil
}

// Spearman returns Spearman's rank correlation of x and y: the Pearson
// correlation of their ranks, with tied values given the average of the
// ranks they span (SICK scores are means of ten judgements, so ties are
// common). It returns NaN if there are fewer than two values, any value is
// NaN, or either input is constant, where the correlation is undefined; it
// panics if the lengths differ, which is a bug in the caller.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("sick.Spearman: len(x)=%d != len(y)=%d", len(x), len(y)))
	}
	if len(x) < 2 || slices.ContainsFunc(x, math.IsNaN) || slices.ContainsFunc(y, math.IsNaN) {
		return math.NaN()
	}
	return pearson(ranks(x), ranks(y))
}

// ranks returns 1-based ranks of v, averaging over ties.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return compareFloat(v[a], v[b]) })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && v[idx[j]] == v[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
