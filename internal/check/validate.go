// Package check finds what is wrong with memory files: invalid files
// (CheckFiles, Validate), what is about to be committed (CheckStaged),
// suspected secrets (ScanFile), files not in canonical form (Format) and
// a broken setup (Hooks, MergeDriver, Config, Memories, Binary: the checks
// contextfs.Doctor runs). The CLI, the MCP server, the hooks and the
// memory commit all call it, so a rule is written once.
package check

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/printable"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// Problem is one thing wrong with a memory file, located by file and line.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Rule    string `json:"rule"` // syntax, type, field, schema, duplicate-id, conflict, secret, link, cycle
	Message string `json:"message"`
}

// String is "path:line: rule: message". A message that already starts
// with its rule's name (a type issue reads "type: unknown type ...") is not
// given it twice.
func (p Problem) String() string {
	// The path comes from the repository: a name with an escape
	// sequence must not reach the terminal as one.
	loc := printable.Path(p.Path)
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, p.Line)
	}
	if strings.HasPrefix(p.Message, p.Rule+": ") {
		return loc + ": " + p.Message
	}
	return fmt.Sprintf("%s: %s: %s", loc, p.Rule, p.Message)
}

// File is a memory file's path and content, from the work tree, the git
// index or a commit.
type File struct {
	Path    string
	Content []byte
}

// CheckFiles validates memory files: syntax, type, fields, the data schema,
// leftover conflict markers, and IDs unique across files and against
// others (ID → path of memories not among files). It is pure: the
// pre-commit hook runs it on staged content. The limits are the defaults.
func CheckFiles(files []File, others map[string]string) []Problem {
	return CheckFilesWith(files, others, memory.Limits{})
}

// CheckFilesWith is CheckFiles under a repository's limits (config
// limits:; zero fields are the defaults): a file over the size limit is
// reported and not parsed. A supersedes cycle is found among files only;
// the callers that know the others' supersedes use checkFiles.
func CheckFilesWith(files []File, others map[string]string, limits memory.Limits) []Problem {
	return checkFiles(files, others, nil, limits)
}

// checkFiles is CheckFilesWith that, with othersSupersede, also follows
// the supersedes of memories not among files (it is given their path, from
// others, and is asked only about memories a checked file's supersedes
// lead to), so that a file closing a cycle through committed memories is
// caught too.
func checkFiles(files []File, others map[string]string, othersSupersede func(path string) []string, limits memory.Limits) []Problem {
	limits = limits.WithDefaults()
	var out []Problem
	type decoded struct {
		m   *memory.Memory
		doc *frontmatter.Document
	}
	var linked []decoded // hygiene: links are checked once every ID is known
	ids := map[string]string{}
	for id, p := range others {
		ids[id] = p
	}
	for _, f := range files {
		if n := int64(len(f.Content)); n > limits.MaxFileBytes {
			out = append(out, Problem{Path: f.Path, Rule: "size", Message: (&memory.TooLargeError{Path: f.Path, Size: n, Limit: limits.MaxFileBytes}).Reason()})
			continue
		}
		if lines := conflictLines(f.Content); len(lines) > 0 {
			for _, line := range lines {
				out = append(out, Problem{Path: f.Path, Line: line, Rule: "conflict", Message: "unresolved merge conflict marker"})
			}
			continue
		}
		m, doc, err := gitstore.Decode(f.Path, f.Content)
		if err != nil {
			p := Problem{Path: f.Path, Rule: "syntax", Message: err.Error()}
			var de *gitstore.DecodeError
			if errors.As(err, &de) {
				p.Line, p.Message = de.Line, de.Msg
			}
			out = append(out, p)
			continue
		}
		for _, is := range memory.ValidateWith(m, limits) {
			rule := "field"
			switch {
			case is.Field == "type":
				rule = "type"
			case strings.HasPrefix(is.Field, "data"):
				rule = "schema"
			}
			out = append(out, Problem{Path: f.Path, Line: fieldLine(doc, is.Field), Rule: rule, Message: is.String()})
		}
		if _, _, is := Expires(doc); is != nil {
			out = append(out, Problem{Path: f.Path, Line: fieldLine(doc, is.Field), Rule: "field", Message: is.String()})
		}
		linked = append(linked, decoded{m, doc})
		if m.ID != "" {
			id := strings.ToLower(m.ID)
			if prev, dup := ids[id]; dup && prev != f.Path {
				out = append(out, Problem{Path: f.Path, Line: doc.KeyLine("id"), Rule: "duplicate-id",
					Message: fmt.Sprintf("id %s is also used by %s", m.ID, prev)})
			} else {
				ids[id] = f.Path
			}
		}
	}
	known := func(id string) bool { _, ok := ids[strings.ToLower(id)]; return ok }
	for _, d := range linked {
		// A supersedes entry naming no memory is not reported: it is the
		// history of a version deleted since (a natural clean-up), and it
		// hides nothing. save --supersedes checks that the ID exists.
		for _, is := range memory.DanglingLinks(d.m, known) {
			out = append(out, Problem{Path: d.m.Path, Line: fieldLine(d.doc, is.Field), Rule: "link", Message: is.String()})
		}
	}
	checked := make([]cycleMember, len(linked))
	for i, d := range linked {
		checked[i] = cycleMember(d)
	}
	out = append(out, supersedesCycles(checked, others, othersSupersede)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// conflictLines returns the 1-based line of each merge conflict: its
// "<<<<<<< " marker, or, for a conflict whose opening marker was deleted
// and the rest left, its first marker left. A file with several
// conflicts gets one line each, so that none is found only after the
// others are resolved.
func conflictLines(b []byte) []int {
	// A "=======" line alone is Markdown (a heading's underline), not a
	// conflict: git writes it only between a "<<<<<<< " and a ">>>>>>> "
	// line, so it counts only beside one of those.
	var out []int
	open := false             // inside a conflict that "<<<<<<< " opened
	stray, strong := 0, false // the first marker of one that has lost it
	for line := 1; len(b) > 0; line++ {
		l, rest, _ := bytes.Cut(b, []byte("\n"))
		b = rest
		switch {
		case bytes.HasPrefix(l, []byte("<<<<<<< ")):
			out = append(out, line)
			open, stray, strong = true, 0, false
		case open:
			open = !bytes.HasPrefix(l, []byte(">>>>>>> "))
		case bytes.HasPrefix(l, []byte(">>>>>>> ")):
			out = append(out, cmp.Or(stray, line))
			stray, strong = 0, false
		case bytes.HasPrefix(l, []byte("||||||| ")):
			stray, strong = cmp.Or(stray, line), true
		case string(bytes.TrimRight(l, "\r")) == "=======" && line > 1:
			stray = cmp.Or(stray, line)
		}
	}
	if stray > 0 && strong {
		out = append(out, stray)
	}
	return out
}

// fieldLine finds the file line of a dotted field such as data.status, or
// of a list item such as links[2].
func fieldLine(doc *frontmatter.Document, field string) int {
	parts := strings.Split(field, ".")
	n := doc.Front
	line := 0
	for _, p := range parts {
		if key, idx, ok := strings.Cut(p, "["); ok && n != nil && n.Kind == yaml.MappingNode {
			i, err := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if v := doc.Get(key); n == doc.Front && v != nil && err == nil && v.Kind == yaml.SequenceNode && i < len(v.Content) {
				return v.Content[i].Line + 1
			}
			p = key
		}
		if n == nil || n.Kind != yaml.MappingNode {
			break
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				line = n.Content[i].Line + 1
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return line
}

// Validate checks the given memory files of repo (work-tree paths,
// relative to the current directory or absolute), or every memory file
// when none is given, and returns the problems and the number of files
// checked. It reads files, not the cache.
func Validate(repo *gitstore.Repo, paths []string) ([]Problem, int, error) {
	return validate(repo, paths, nil)
}

// ValidateWithSecrets is Validate that also scans the files for secrets
// with sc: a memory holding a committed credential is a problem (rule
// "secret") like an invalid one, so a CI gate on validate catches it.
func ValidateWithSecrets(repo *gitstore.Repo, paths []string, sc *secrets.Scanner) ([]Problem, int, error) {
	return validate(repo, paths, sc)
}

// validate checks paths (every memory file when none) and, with sc, scans
// them for secrets.
func validate(repo *gitstore.Repo, paths []string, sc *secrets.Scanner) ([]Problem, int, error) {
	limits := repoLimits(repo)
	var files []File
	if len(paths) == 0 {
		entries, err := repo.List()
		if err != nil {
			return nil, 0, err
		}
		var tooLarge []Problem
		for _, e := range entries {
			b, err := repo.ReadFile(e.Path)
			if tl, ok := errors.AsType[*memory.TooLargeError](err); ok {
				tooLarge = append(tooLarge, Problem{Path: e.Path, Rule: "size", Message: tl.Reason()})
				continue
			}
			if err != nil {
				return nil, 0, err
			}
			files = append(files, File{Path: e.Path, Content: b})
		}
		// Symlinks and odd names are skipped as memories: say so.
		odd, _ := repo.Oddities()
		for _, o := range odd {
			if o.Kind != gitstore.OddTemp {
				tooLarge = append(tooLarge, Problem{Path: o.Path, Rule: string(o.Kind), Message: o.Advice()})
			}
		}
		return append(withSecrets(CheckFilesWith(files, nil, limits), files, sc), tooLarge...), len(files) + len(tooLarge), nil
	}
	var listed []gitstore.Entry // the memory files, listed once if a folder is named
	seen := map[string]bool{}   // a file named twice (and through its folder) is checked once
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, 0, err
		}
		rel := repo.Rel(abs)
		if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			return nil, 0, fmt.Errorf("validate %s: outside the repository %s", p, repo.Root)
		}
		if err := repo.NoSymlink(rel); err != nil {
			return nil, 0, fmt.Errorf("validate: %w", err)
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			// A folder stands for the memory files under it.
			if listed == nil {
				if listed, err = repo.List(); err != nil {
					return nil, 0, err
				}
			}
			for _, e := range listed {
				if (rel == "." || strings.HasPrefix(e.Path, strings.TrimSuffix(rel, "/")+"/")) && !seen[e.Path] {
					seen[e.Path] = true
					b, err := repo.ReadFile(e.Path)
					if err != nil {
						return nil, 0, fmt.Errorf("validate: %w", err)
					}
					files = append(files, File{Path: e.Path, Content: b})
				}
			}
			continue
		}
		if seen[rel] {
			continue
		}
		seen[rel] = true
		b, err := gitstore.ReadFileLimited(abs, repo.MaxFileBytes)
		if err != nil {
			return nil, 0, fmt.Errorf("validate: %w", err)
		}
		files = append(files, File{Path: rel, Content: b})
	}
	// IDs must also be unique against the memories not named, and a named
	// file's supersedes may close a cycle through them.
	others := map[string]string{}
	supersedes := map[string][]string{}
	if entries, err := repo.List(); err == nil {
		named := map[string]bool{}
		for _, f := range files {
			named[f.Path] = true
		}
		for _, e := range entries {
			if named[e.Path] {
				continue
			}
			if b, err := repo.ReadFile(e.Path); err == nil {
				if m, _, err := gitstore.Decode(e.Path, b); err == nil && m.ID != "" {
					others[strings.ToLower(m.ID)] = e.Path
					supersedes[e.Path] = m.SupersededIDs()
				}
			}
		}
	}
	probs := checkFiles(files, others, func(path string) []string { return supersedes[path] }, limits)
	return withSecrets(probs, files, sc), len(files), nil
}

// withSecrets adds what sc finds in files to probs, sorted by file and
// line; with no scanner it returns probs as they are.
func withSecrets(probs []Problem, files []File, sc *secrets.Scanner) []Problem {
	if sc == nil {
		return probs
	}
	for _, f := range files {
		for _, fd := range ScanFile(sc, f.Path, f.Content) {
			probs = append(probs, secretProblem(fd))
		}
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Path != probs[j].Path {
			return probs[i].Path < probs[j].Path
		}
		return probs[i].Line < probs[j].Line
	})
	return probs
}

// secretProblem is a secret finding as a Problem of rule "secret", which
// names the secret only redacted.
func secretProblem(f secrets.Finding) Problem {
	return Problem{Path: f.Path, Line: f.Line, Rule: "secret",
		Message: fmt.Sprintf("%s %s (rule %s, fingerprint %s)", f.Description, f.Redacted, f.Rule, f.Fingerprint)}
}

// repoLimits are the limits of repo's config (limits:), or the defaults
// when the config cannot be read: the config check reports that.
func repoLimits(repo *gitstore.Repo) memory.Limits {
	cfg, err := config.Load(repo)
	if err != nil {
		return memory.Limits{}
	}
	return cfg.Limits
}
