package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"github.com/contextfs/contextfs/internal/git"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/contextfs/contextfs/chunker"
)

// qualitySet is the derived evaluation data of one repository, committed
// under testdata/quality so that the quality bench runs offline: the
// snapshot's files are in <name>.tar.gz beside it.
type qualitySet struct {
	Name    string         `json:"name"`
	Repo    string         `json:"repo"`
	Commit  string         `json:"commit"`
	License string         `json:"license"`
	Note    string         `json:"note"`
	Queries []qualityQuery `json:"queries"`
}

// qualityQuery is one query and the file (or memory title) it should find.
type qualityQuery struct {
	Query  string `json:"query"`
	Target string `json:"target"`
	Commit string `json:"commit,omitempty"`
}

// maxSnapshotFile leaves generated tables and fixtures out of a snapshot.
const maxSnapshotFile = 200 << 10

// extractCode derives a code-search set from the git directory of a
// mirror: the snapshot is HEAD's text files that contextfs indexes; the
// queries are the subjects of (at most max, newest first) commits that
// changed exactly one file, a non-test source file that still exists at
// HEAD under the same path.
func extractCode(gitDir, name, repo, license, outDir string, maxQ int) error {
	head, err := gitOut(gitDir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	head = strings.TrimSpace(head)
	ls, err := gitOut(gitDir, "ls-tree", "-r", "-l", "HEAD")
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(ls), "\n") {
		meta, p, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 4 || f[1] != "blob" || f[0] == "120000" {
			continue
		}
		var size int
		fmt.Sscan(f[3], &size)
		if size > maxSnapshotFile || chunker.Language(p) == "" || strings.Contains("/"+p, "/testdata/") {
			continue
		}
		exists[p] = true
		files = append(files, p)
	}
	log, err := gitOut(gitDir, "log", "--no-merges", "--format=@@%H %s", "--name-only", "HEAD")
	if err != nil {
		return err
	}
	set := qualitySet{Name: name, Repo: repo, Commit: head, License: license,
		Note: "queries: subjects of commits that changed exactly one non-test source file that exists at the snapshot commit; target: that file"}
	seen := map[string]bool{}
	for _, block := range strings.Split(log, "@@")[1:] {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		hash, subj, _ := strings.Cut(lines[0], " ")
		var changed []string
		for _, l := range lines[1:] {
			if l = strings.TrimSpace(l); l != "" {
				changed = append(changed, l)
			}
		}
		if len(changed) != 1 {
			continue
		}
		p := changed[0]
		if !exists[p] || chunker.IsProse(p) || chunker.IsTest(p) || !isSource(p) {
			continue
		}
		subj = strings.TrimSpace(subj)
		if len(strings.Fields(subj)) < 3 || seen[subj] || autoSubject.MatchString(subj) {
			continue
		}
		seen[subj] = true
		set.Queries = append(set.Queries, qualityQuery{Query: subj, Target: p, Commit: hash[:12]})
		if len(set.Queries) == maxQ {
			break
		}
	}
	if err := writeSet(outDir, set); err != nil {
		return err
	}
	return writeSnapshot(gitDir, head, files, filepath.Join(outDir, name+".tar.gz"))
}

// autoSubject matches subjects written by bots or release tooling, which
// say nothing about the code.
var autoSubject = regexp.MustCompile(`(?i)^(bump|release|v?\d+\.\d+|merge|revert|update dependency|build\(deps\)|chore\(deps\))`)

func isSource(p string) bool {
	switch chunker.Language(p) {
	case "", "text", "markdown":
		return false
	}
	return true
}

// extractDocs derives the long-document set from golang/proposal: the
// design documents of at least minBytes, each body without its title line;
// the query is the title with its "Proposal:" prefix removed.
func extractDocs(gitDir, name, repo, license, outDir string, minBytes, maxDocs int) error {
	head, err := gitOut(gitDir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	head = strings.TrimSpace(head)
	ls, err := gitOut(gitDir, "ls-tree", "-r", "--name-only", "HEAD", "design/")
	if err != nil {
		return err
	}
	set := qualitySet{Name: name, Repo: repo, Commit: head, License: license,
		Note: "queries: each design document's title (without 'Proposal:'); target: the document, saved as a memory under a neutral title"}
	var files []string
	for _, p := range strings.Split(strings.TrimSpace(ls), "\n") {
		if path.Ext(p) != ".md" {
			continue
		}
		body, err := gitOut(gitDir, "show", head+":"+p)
		if err != nil || len(body) < minBytes {
			continue
		}
		title, _, ok := strings.Cut(strings.TrimSpace(body), "\n")
		if !ok || !strings.HasPrefix(title, "# ") {
			continue
		}
		title = strings.TrimSpace(strings.TrimPrefix(title, "# "))
		title = strings.TrimSpace(regexp.MustCompile(`(?i)^(design\s+)?(draft|proposal)\s*:\s*`).ReplaceAllString(title, ""))
		if len(strings.Fields(title)) < 2 {
			continue
		}
		set.Queries = append(set.Queries, qualityQuery{Query: title, Target: p})
		files = append(files, p)
		if len(files) == maxDocs {
			break
		}
	}
	if err := writeSet(outDir, set); err != nil {
		return err
	}
	return writeSnapshot(gitDir, head, files, filepath.Join(outDir, name+".tar.gz"))
}

func writeSet(outDir string, set qualitySet) error {
	raw, err := json.MarshalIndent(set, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, set.Name+".json"), append(raw, '\n'), 0o644)
}

func writeSnapshot(gitDir, commit string, files []string, out string) error {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, p := range files {
		body, err := gitOut(gitDir, "show", commit+":"+p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func gitOut(gitDir string, args ...string) (string, error) {
	out, err := git.Run(context.Background(), "", append([]string{"--git-dir", gitDir}, args...)...)
	return string(out), err
}

// extractAll derives every committed set from the mirrors under root.
func extractAll(root string) error {
	code := []struct{ name, repo, license string }{
		{"go-git", "go-git/go-git", "Apache-2.0"},
		{"requests", "psf/requests", "Apache-2.0"},
		{"ky", "sindresorhus/ky", "MIT"},
	}
	for _, c := range code {
		gitDir := filepath.Join(root, strings.ReplaceAll(c.repo, "/", "+"), "repo")
		if err := extractCode(gitDir, c.name, c.repo, c.license, qualityDir, 150); err != nil {
			return fmt.Errorf("%s: %w", c.repo, err)
		}
	}
	return extractDocs(filepath.Join(root, "golang+proposal", "repo"), "proposal", "golang/proposal", "BSD-3-Clause", qualityDir, 8000, 100)
}
