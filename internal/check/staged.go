package check

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/secrets"
	"github.com/contextfs/contextfs/memory"
)

// StagedCheck is what CheckStaged found in the memory files staged for
// commit.
type StagedCheck struct {
	// Files is the number of staged memory files checked.
	Files int `json:"files"`
	// Problems are the invalid memories, as validate reports them.
	Problems []Problem `json:"problems"`
	// Secrets are the suspected credentials in staged memories.
	Secrets []secrets.Finding `json:"secrets"`
	// Warnings say what weakened the check without stopping it, such as
	// a config whose secret allow lists could not be read.
	Warnings []string `json:"warnings,omitempty"`
}

// Blocking reports whether the commit should be refused.
func (c *StagedCheck) Blocking() bool { return len(c.Problems) > 0 || len(c.Secrets) > 0 }

// All returns the problems and the secrets as one list of problems (a
// secret is rule "secret"), sorted by file and line, the way the
// pre-commit hook prints them.
func (c *StagedCheck) All() []Problem {
	out := make([]Problem, 0, len(c.Problems)+len(c.Secrets))
	out = append(out, c.Problems...)
	for _, f := range c.Secrets {
		out = append(out, secretProblem(f))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// CheckStaged validates the memory files staged in repo's git index (the
// content about to be committed, not the work tree) and scans them for
// secrets. It is the pre-commit hook's check, so it is built to cost
// nothing when no memory is staged: one `git diff --cached` limited to
// .contextfs/, and no config read, no cache opened. Otherwise it reads
// every memory blob of the index in one `git cat-file --batch` process:
// the staged ones to check, the others for their IDs, which must stay
// unique, and for the supersedes a staged file's lead to, which must not
// come back to it. Deleted files are not checked. Formatting is never a
// problem here: `fmt` exists for that.
//
// The work tree's config supplies the secret allow lists. A config that
// cannot be read does not stop the check: the secrets are scanned with no
// allow list, and a warning says why.
func CheckStaged(ctx context.Context, repo *gitstore.Repo) (*StagedCheck, error) {
	res := &StagedCheck{Problems: []Problem{}, Secrets: []secrets.Finding{}}
	staged, nonMemory, err := stagedMemoryPaths(ctx, repo.Root)
	if err != nil {
		return nil, err
	}
	for p := range staged {
		nonMemory = append(nonMemory, p) // checked for symbolic links only
	}
	if err := checkStagedOthers(ctx, repo, nonMemory, res); err != nil {
		return nil, err
	}
	if len(staged) == 0 {
		return res, nil
	}
	entries, err := indexMemoryEntries(ctx, repo.Root)
	if err != nil {
		return nil, err
	}
	oids := make([]string, 0, len(entries))
	for _, e := range entries {
		oids = append(oids, e.oid)
	}
	// A memory over the size limit is reported by its size, never read:
	// git streams it past (ReadBlobsUpTo).
	limits := repoLimits(repo).WithDefaults()
	blobs, over, err := git.Cmd{Dir: repo.Root}.ReadBlobsUpTo(ctx, oids, limits.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	var files []File
	others := map[string]string{}
	otherContent := map[string][]byte{}
	for _, e := range entries {
		if size, ok := over[e.oid]; ok && staged[e.path] {
			res.Files++
			res.Problems = append(res.Problems, Problem{Path: e.path, Rule: "size",
				Message: (&memory.TooLargeError{Path: e.path, Size: size, Limit: limits.MaxFileBytes}).Reason()})
			continue
		}
		content, ok := blobs[e.oid]
		if !ok {
			continue // an intent-to-add entry has no blob yet, or an unstaged file over the limit
		}
		if staged[e.path] {
			files = append(files, File{Path: e.path, Content: content})
			continue
		}
		if id := QuickID(e.path, content); id != "" {
			others[strings.ToLower(id)] = e.path
			otherContent[e.path] = content
		}
	}
	res.Files += len(files)
	if len(files) == 0 {
		return res, nil
	}
	// A staged file may close a supersedes cycle through committed
	// memories. Only the memories its supersedes lead to are decoded, so a
	// commit that supersedes nothing still reads no other file's YAML.
	othersSupersede := func(path string) []string {
		m, _, err := gitstore.Decode(path, otherContent[path])
		if err != nil {
			return nil
		}
		return m.SupersededIDs()
	}
	res.Problems = append(res.Problems, checkFiles(files, others, othersSupersede, limits)...)

	sc, warn := stagedScanner(repo)
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	for _, f := range files {
		res.Secrets = append(res.Secrets, ScanFile(sc, f.Path, f.Content)...)
	}
	return res, nil
}

// stagedScanner returns the repository's secret scanner, or, when the
// config is broken, one with no allow list and a warning: refusing a
// commit for a false positive the user allowed is recoverable, letting a
// real secret through is not.
func stagedScanner(repo *gitstore.Repo) (*secrets.Scanner, string) {
	cfg, err := config.Load(repo)
	if err == nil {
		sc, serr := Scanner(cfg.Secrets)
		if serr == nil {
			return sc, ""
		}
		err = serr
	}
	sc, _ := secrets.NewScanner(secrets.Allow{})
	return sc, fmt.Sprintf("config ignored, secrets scanned with no allow list: %v", err)
}

// indexEntry is a memory file in the git index.
type indexEntry struct {
	path, oid string
}

// stagedMemoryPaths returns the memory files whose staged content differs
// from HEAD (added, copied, modified, renamed, type-changed; not deleted).
// git honours GIT_INDEX_FILE, which it sets for `git commit -a` and
// `git commit PATH`, so this is what the commit will hold.
// The other files staged under .contextfs/ are returned apart.
func stagedMemoryPaths(ctx context.Context, root string) (map[string]bool, []string, error) {
	out, err := git.Run(ctx, root, "diff", "--cached", "--name-only", "--no-renames",
		"--ignore-submodules", "--diff-filter=ACMRT", "-z", "--", gitstore.Dir)
	if err != nil {
		return nil, nil, err
	}
	paths := map[string]bool{}
	var others []string
	for _, p := range strings.Split(string(out), "\x00") {
		switch {
		case gitstore.IsMemoryPath(p):
			paths[p] = true
		case p != "":
			others = append(others, p)
		}
	}
	return paths, others, nil
}

// checkStagedOthers scans the staged files under .contextfs/ that are not
// memories (config, temp files, ...) for secrets, and refuses temporary
// files, symbolic links and names with control characters there. Memory
// paths among paths are only checked for being symbolic links (which the
// memory checks skip); their content is checked with the memories.
func checkStagedOthers(ctx context.Context, repo *gitstore.Repo, paths []string, res *StagedCheck) error {
	if len(paths) == 0 {
		return nil
	}
	out, err := git.Run(ctx, repo.Root, append([]string{"ls-files", "--stage", "-z", "--"}, paths...)...)
	if err != nil {
		return err
	}
	var oids, files []string // files: path, oid, path, oid, ...
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			continue
		}
		base := path.Base(p)
		memoryPath := gitstore.IsMemoryPath(p)
		switch {
		case memoryPath && f[0] != "120000":
		case gitstore.IsTempName(base):
			res.Problems = append(res.Problems, Problem{Path: p, Rule: string(gitstore.OddTemp), Message: "a temporary file of an interrupted write, not a memory: unstage it"})
		case f[0] == "120000":
			res.Problems = append(res.Problems, Problem{Path: p, Rule: string(gitstore.OddSymlink), Message: "a symbolic link is never read as a memory: commit the file instead"})
		case !gitstore.ValidFileName(base):
			res.Problems = append(res.Problems, Problem{Path: p, Rule: string(gitstore.OddName), Message: "the name holds a control character: rename it"})
		}
		if f[0] != "160000" && !memoryPath {
			oids = append(oids, f[1])
			files = append(files, p, f[1])
		}
	}
	blobs, err := git.Cmd{Dir: repo.Root}.ReadBlobs(ctx, oids)
	if err != nil {
		return err
	}
	sc, _ := stagedScanner(repo)
	for i := 0; i+1 < len(files); i += 2 {
		if b, ok := blobs[files[i+1]]; ok {
			res.Secrets = append(res.Secrets, ScanFile(sc, files[i], b)...)
		}
	}
	return nil
}

// indexMemoryEntries lists the regular memory files in the git index with
// their blob IDs. Symbolic links and submodules are never memories, and
// unmerged entries cannot be committed.
func indexMemoryEntries(ctx context.Context, root string) ([]indexEntry, error) {
	out, err := git.Run(ctx, root, "ls-files", "--stage", "-z", "--", gitstore.Dir)
	if err != nil {
		return nil, err
	}
	var entries []indexEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		// "<mode> <oid> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok || !gitstore.IsMemoryPath(path) {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 || f[2] != "0" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		entries = append(entries, indexEntry{path: path, oid: f[1]})
	}
	return entries, nil
}

// QuickID returns the id of a memory file without parsing its YAML: the
// value of the top-level "id:" line of the frontmatter, where a top-level
// key always starts its line. Anything unusual (quotes with escapes, YAML
// tags, flow syntax) falls back to the full decoder. It serves the
// duplicate-ID check, which needs the ID of every memory at each commit.
func QuickID(path string, content []byte) string {
	rest := bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	first := true
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimRight(line, "\r")
		if first {
			if string(bytes.TrimRight(line, " \t")) != "---" {
				return "" // no frontmatter, no ID
			}
			first = false
			continue
		}
		if string(bytes.TrimRight(line, " \t")) == "---" || string(bytes.TrimRight(line, " \t")) == "..." {
			return ""
		}
		v, ok := bytes.CutPrefix(line, []byte("id:"))
		if !ok || len(v) > 0 && v[0] != ' ' && v[0] != '\t' {
			continue // "id:x" is not a key in YAML
		}
		if i := bytes.Index(v, []byte(" #")); i >= 0 {
			v = v[:i]
		}
		s := strings.TrimSpace(string(v))
		if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
			s = s[1 : len(s)-1]
		}
		if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == "" {
			return s
		}
		break
	}
	m, _, err := gitstore.Decode(path, content)
	if err != nil {
		return ""
	}
	return m.ID
}
