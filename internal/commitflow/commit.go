// Package commitflow makes the memory-only commit: it commits the memory
// files that changed in the work tree, and nothing else the user staged,
// through a temporary index, with a message that says what changed. git
// runs no hooks for it, so it runs the pre-commit checks (package check)
// itself.
package commitflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/check"
	"github.com/contextfs/contextfs/internal/config"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/secrets"
)

// Options configure Commit.
type Options struct {
	// Message is the commit message; "" generates one from what changed.
	Message string
	// DryRun reports what would be committed and commits nothing.
	DryRun bool
	// NoVerify commits invalid memories and suspected secrets instead of
	// refusing them, as `git commit --no-verify` skips the pre-commit hook.
	NoVerify bool
	// LeaveRefused commits the changes that pass verification and leaves
	// the files refused (invalid, or holding a suspected secret) as they
	// are in the work tree, listed in Result.LeftOut, instead of
	// committing nothing. The user store commits this way: one file held
	// back for a secret must not keep every later change uncommitted.
	LeaveRefused bool

	// afterStep, when set (by tests), is called after each step of the
	// commit that changes something (the step constants), so that a test
	// can kill the process there.
	afterStep func(step string)
}

// The steps of a commit that change something, in order; see
// docs/RELIABILITY.md for why a kill after any of them is harmless.
const (
	stepLocked    = "locked"    // the commit lock is held and leftovers are gone
	stepStaged    = "staged"    // the temporary index holds the commit's tree
	stepCommitted = "committed" // the commit object is written, unreferenced
	stepIndexed   = "indexed"   // the real index holds the committed paths
	stepMoved     = "moved"     // HEAD is the new commit
	stepCleaned   = "cleaned"   // the temporary index is removed
)

// steps lists the steps in order (for tests and the documentation).
var steps = []string{stepLocked, stepStaged, stepCommitted, stepIndexed, stepMoved, stepCleaned}

func (o Options) step(name string) {
	if o.afterStep != nil {
		o.afterStep(name)
	}
}

// LockFile is the lock, in the git directory's contextfs folder, that
// memory commits of a work tree take in turn: the temporary index has
// one name, and whatever a killed commit left is removed by the next.
const LockFile = "commit.lock"

// indexFile is the temporary index's name in the same folder.
const indexFile = "commit-index"

// File statuses.
const (
	Added    = "added"
	Modified = "modified"
	Renamed  = "renamed"
	Deleted  = "deleted"
)

// File is one file a memory commit adds, modifies, renames or
// deletes. ID, Type and Title are empty for files that are not memories
// (.contextfs/config.yaml, .gitattributes) or cannot be parsed.
type File struct {
	Path    string `json:"path"`
	Status  string `json:"status"` // added | modified | renamed | deleted
	OldPath string `json:"old_path,omitempty"`
	ID      string `json:"id,omitempty"`
	Type    string `json:"type,omitempty"`
	Title   string `json:"title,omitempty"`
}

// Result is what Commit did, or would do.
type Result struct {
	// SHA is the new commit; it is empty after a dry run and when there
	// was nothing to commit.
	SHA string `json:"sha"`
	// Parent is the commit HEAD was before; empty on an unborn branch.
	Parent  string `json:"parent,omitempty"`
	Message string `json:"message"`
	Files   []File `json:"files"`
	// Problems and Secrets are what verification found; they are only
	// ever non-empty with NoVerify, since otherwise nothing is committed.
	Problems []check.Problem   `json:"problems,omitempty"`
	Secrets  []secrets.Finding `json:"secrets,omitempty"`
	// LeftOut are, with Options.LeaveRefused, the files not committed and
	// what was wrong with them.
	LeftOut []check.Problem `json:"left_out,omitempty"`
}

// VerifyError refuses a memory commit: some memories to be committed are
// invalid or hold suspected secrets. Nothing was committed.
type VerifyError struct {
	Problems []check.Problem
	Secrets  []secrets.Finding
}

// Error lists the problems and secrets that stopped the commit.
func (e *VerifyError) Error() string {
	var parts []string
	if n := len(e.Problems); n > 0 {
		parts = append(parts, fmt.Sprintf("%d problem(s)", n))
	}
	if n := len(e.Secrets); n > 0 {
		parts = append(parts, fmt.Sprintf("%d suspected secret(s)", n))
	}
	return "memories not committed: " + strings.Join(parts, " and ")
}

// commitPath reports whether Commit commits the work-tree path:
// memory files, the contextfs config, and .gitattributes, where `init`
// registers the merge driver.
func commitPath(p string) bool {
	return gitstore.IsMemoryPath(p) || p == gitstore.Dir+"/"+gitstore.ConfigFile || p == gitstore.Dir+"/"+gitstore.GitignoreFile ||
		p == ".gitattributes"
}

// Commit commits the memory files of repo that differ from HEAD in the
// work tree (added, modified, deleted), with .contextfs/config.yaml,
// .contextfs/.gitignore and .gitattributes when they changed, and nothing else: whatever else the
// user has staged stays staged and uncommitted.
//
// It builds the commit in a temporary index seeded from HEAD, so the real
// index is never half-written. Then it sets the real index entries of the
// committed paths to the new commit, and only then moves HEAD with `git
// update-ref` given the old value, so a commit made meanwhile by someone
// else is never lost. Each of those is one atomic git step (a lock file
// renamed into place), and in this order a kill between any two leaves
// either nothing changed or the memories staged, never an index behind
// HEAD that a plain `git commit` would commit back (docs/RELIABILITY.md).
// A user's own staged version of a memory file is replaced by the
// committed work-tree version. Memory commits of one work tree run in
// turn (LockFile); the next one removes what a killed one left.
//
// `git commit-tree` runs no hooks, so Commit runs the pre-commit checks
// itself, with allow as the secret allow lists: the memories to commit
// must be valid and free of suspected secrets, unless o.NoVerify. It
// refuses to run while a merge, rebase, cherry-pick or revert is in
// progress: a commit in the middle of one would not be the commit that
// operation expects.
func Commit(ctx context.Context, repo *gitstore.Repo, allow config.SecretsConfig, o Options) (*Result, error) {
	if op := operationInProgress(repo.GitDir); op != "" {
		return nil, fmt.Errorf("commit memories: a %s is in progress; finish or abort it first", op)
	}
	unlock, err := repo.LockFile(ctx, LockFile)
	if err != nil {
		return nil, fmt.Errorf("commit memories: %w", err)
	}
	defer unlock()
	index, err := tempIndex(repo.GitDir)
	if err != nil {
		return nil, err
	}
	// Removed before the lock is released (deferred calls run last first).
	defer removeIndex(index)
	o.step(stepLocked)
	work := git.Cmd{Dir: repo.Root, Env: append(os.Environ(), "GIT_LITERAL_PATHSPECS=1")}
	parent, err := headCommit(ctx, work)
	if err != nil {
		return nil, err
	}
	tmp := git.Cmd{Dir: repo.Root, Env: append(slices.Clone(work.Env), "GIT_INDEX_FILE="+index)}

	res := &Result{Parent: parent, Files: []File{}}
	leave := map[string]bool{}
	var changes []rawChange
	var blobs map[string][]byte
	for {
		if changes, err = stage(ctx, tmp, parent, leave); err != nil {
			return nil, err
		}
		if len(changes) == 0 {
			return res, nil
		}
		res.Problems, res.Secrets = nil, nil
		if blobs, err = verify(ctx, tmp, changes, allow, res); err != nil {
			return nil, err
		}
		if len(res.Problems) == 0 && len(res.Secrets) == 0 || o.NoVerify {
			break
		}
		if !o.LeaveRefused {
			return nil, &VerifyError{Problems: res.Problems, Secrets: res.Secrets}
		}
		// Leave out the refused files and verify again: what is left may
		// have leant on them (a link to a memory left out).
		before := len(leave)
		refused := map[string]bool{}
		for _, p := range res.Problems {
			leave[p.Path], refused[p.Path] = true, true
			res.LeftOut = append(res.LeftOut, p)
		}
		for _, f := range res.Secrets {
			leave[f.Path], refused[f.Path] = true, true
			res.LeftOut = append(res.LeftOut, check.Problem{Path: f.Path, Line: f.Line, Rule: "secret",
				Message: "suspected " + f.Description + " (" + f.Redacted + ")"})
		}
		if len(leave) == before { // a problem of no file that could be left out
			return nil, &VerifyError{Problems: res.Problems, Secrets: res.Secrets}
		}
		// A refused file renamed by hand takes the deletion of its old
		// path with it: HEAD keeps the old version until it is fixed.
		sources, err := renameSources(ctx, tmp, parent, changes, blobs, refused)
		if err != nil {
			return nil, err
		}
		for _, p := range sources {
			leave[p] = true
		}
	}
	res.Files = describeChanges(changes, blobs)
	res.Message = strings.TrimSpace(o.Message)
	if res.Message == "" {
		res.Message = Message(res.Files)
	}
	o.step(stepStaged)
	if o.DryRun {
		return res, nil
	}
	if err := write(ctx, work, tmp, changes, res, o); err != nil {
		return nil, err
	}
	if err := removeIndex(index); err != nil {
		return res, err // committed; the next commit removes it
	}
	o.step(stepCleaned)
	return res, nil
}

// tempIndex returns the temporary index's path in gitDir's contextfs
// folder, with whatever a killed commit left there removed: the caller
// holds LockFile, so no other commit is using it. The file does not
// exist: git refuses an empty file as an index and creates its own. The
// temporary index files of earlier versions (contextfs-index-* in gitDir,
// one per commit) are removed once an hour old, since a commit of such a
// version takes no lock.
func tempIndex(gitDir string) (string, error) {
	index := filepath.Join(gitDir, "contextfs", indexFile)
	if err := os.MkdirAll(filepath.Dir(index), 0o755); err != nil {
		return "", fmt.Errorf("commit memories: temporary index: %w", err)
	}
	if err := removeIndex(index); err != nil {
		return "", err
	}
	old, _ := filepath.Glob(filepath.Join(gitDir, "contextfs-index-*"))
	for _, p := range old {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(p)
		}
	}
	return index, nil
}

// removeIndex removes the temporary index and the lock git takes beside
// it.
func removeIndex(index string) error {
	for _, p := range []string{index, index + ".lock"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("commit memories: temporary index: %w", err)
		}
	}
	return nil
}

// stage fills the temporary index tmp with parent's tree (or none) plus
// the work tree's version of every commitPath, and returns how it
// differs from parent; nil when nothing would change.
func stage(ctx context.Context, tmp git.Cmd, parent string, leave map[string]bool) ([]rawChange, error) {
	var err error
	if parent != "" {
		_, err = tmp.Run(ctx, "read-tree", parent)
	} else {
		_, err = tmp.Run(ctx, "read-tree", "--empty")
	}
	if err != nil {
		return nil, err
	}
	// Tracked at HEAD, or new in the work tree and not ignored.
	out, err := tmp.Run(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", gitstore.Dir, ".gitattributes")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if commitPath(p) && !leave[p] && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	add := tmp
	add.Stdin = nulList(paths)
	if _, err := add.Run(ctx, "add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return nil, err
	}
	base := parent
	if base == "" {
		if base, err = tmp.Output(ctx, "hash-object", "-t", "tree", "--stdin"); err != nil {
			return nil, err
		}
	}
	out, err = tmp.Run(ctx, "diff-index", "--cached", "--raw", "-z", "--no-renames", base)
	if err != nil {
		return nil, err
	}
	return parseRawDiff(out)
}

// verify runs the pre-commit checks on the changed memories staged in
// tmp, recording what they found in res, and returns the blobs it read:
// what is committed, what it replaces, and every other memory of the new
// tree (for their IDs, which must stay unique).
func verify(ctx context.Context, tmp git.Cmd, changes []rawChange, allow config.SecretsConfig, res *Result) (map[string][]byte, error) {
	out, err := tmp.Run(ctx, "ls-files", "--stage", "-z", "--", gitstore.Dir)
	if err != nil {
		return nil, err
	}
	tree := parseStage(out)
	var oids []string
	for _, c := range changes {
		oids = append(oids, c.oldOID, c.newOID)
	}
	for _, oid := range tree {
		oids = append(oids, oid)
	}
	blobs, err := tmp.ReadBlobs(ctx, oids)
	if err != nil {
		return nil, err
	}

	var touched []check.File
	changed := map[string]bool{}
	for _, c := range changes {
		changed[c.path] = true
		if c.status != 'D' && gitstore.IsMemoryPath(c.path) {
			touched = append(touched, check.File{Path: c.path, Content: blobs[c.newOID]})
		}
	}
	others := map[string]string{}
	for p, oid := range tree {
		if changed[p] || !gitstore.IsMemoryPath(p) {
			continue
		}
		if m, _, err := gitstore.Decode(p, blobs[oid]); err == nil && m.ID != "" {
			others[strings.ToLower(m.ID)] = p
		}
	}
	res.Problems = check.CheckFiles(touched, others)
	scanner, err := check.Scanner(allow)
	if err != nil {
		return nil, err
	}
	for _, t := range touched {
		res.Secrets = append(res.Secrets, check.ScanFile(scanner, t.Path, t.Content)...)
	}
	return blobs, nil
}

// renameSources returns the deleted memory paths among changes that the
// added files in refused were renamed from, so that they are left out
// with them: otherwise the deletion would be committed and the addition
// not, and HEAD would lose the memory. A deletion is a refused file's
// source when it had the same ID, as describeChanges pairs a rename, or,
// for a refused file whose ID cannot be read, when git's rename detection
// pairs the two in tmp (where the refused files are still staged).
func renameSources(ctx context.Context, tmp git.Cmd, parent string, changes []rawChange, blobs map[string][]byte, refused map[string]bool) ([]string, error) {
	deleted := map[string]bool{}
	byID := map[string][]string{} // lower-case ID → deleted paths
	for _, c := range changes {
		if c.status != 'D' || !gitstore.IsMemoryPath(c.path) {
			continue
		}
		deleted[c.path] = true
		if m, _, err := gitstore.Decode(c.path, blobs[c.oldOID]); err == nil && m.ID != "" {
			id := strings.ToLower(m.ID)
			byID[id] = append(byID[id], c.path)
		}
	}
	if len(deleted) == 0 {
		return nil, nil
	}
	var sources []string
	unread := map[string]bool{} // refused additions whose ID cannot be read
	for _, c := range changes {
		if c.status != 'A' || !refused[c.path] {
			continue
		}
		if m, _, err := gitstore.Decode(c.path, blobs[c.newOID]); err == nil && m.ID != "" {
			sources = append(sources, byID[strings.ToLower(m.ID)]...)
		} else {
			unread[c.path] = true
		}
	}
	if len(unread) == 0 || parent == "" {
		return sources, nil
	}
	out, err := tmp.Run(ctx, "diff-index", "--cached", "-M", "--diff-filter=R", "--name-status", "-z", parent, "--", gitstore.Dir)
	if err != nil {
		return nil, err
	}
	// "R<score>\0old\0new\0" per rename.
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+2 < len(fields); i += 3 {
		if old, renamed := fields[i+1], fields[i+2]; strings.HasPrefix(fields[i], "R") && unread[renamed] && deleted[old] {
			sources = append(sources, old)
		}
	}
	return sources, nil
}

// write commits the tree of tmp with res.Message on top of res.Parent,
// sets the real index entries of the committed paths to the new commit,
// and then moves HEAD there unless it moved meanwhile (the index entries
// are then put back). The order is what makes a kill harmless; see
// Commit.
func write(ctx context.Context, work, tmp git.Cmd, changes []rawChange, res *Result, o Options) error {
	tree, err := tmp.Output(ctx, "write-tree")
	if err != nil {
		return err
	}
	args := []string{"commit-tree", tree}
	if res.Parent != "" {
		args = append(args, "-p", res.Parent)
	}
	msg := tmp
	msg.Stdin = strings.NewReader(res.Message + "\n")
	sha, err := msg.Output(ctx, append(args, "-F", "-")...)
	if err != nil {
		return err
	}
	o.step(stepCommitted)

	var committed []string
	for _, c := range changes {
		committed = append(committed, c.path)
	}
	// The entries as they are, to put back if HEAD cannot move (every
	// committed path is under these two).
	before, err := work.Run(ctx, "ls-files", "--stage", "-z", "--", gitstore.Dir, ".gitattributes")
	if err != nil {
		return err
	}
	// The index first: until HEAD moves, the memories are merely staged,
	// which any later commit keeps. The other way round, a kill between
	// the two left an index behind HEAD, and the user's next `git commit`
	// deleted or reverted the memories.
	reset := work
	reset.Stdin = nulList(committed)
	if _, err := reset.Run(ctx, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", sha); err != nil {
		return fmt.Errorf("commit memories: staging the memory files in the index, nothing was committed: %w", err)
	}
	o.step(stepIndexed)

	old := res.Parent
	if old == "" {
		old = strings.Repeat("0", len(sha)) // HEAD must still be unborn
	}
	subject, _, _ := strings.Cut(res.Message, "\n")
	if _, err := work.Run(ctx, "update-ref", "-m", "commit (contextfs): "+subject, "HEAD", sha, old); err != nil {
		if rerr := restoreIndex(ctx, work, committed, before, strings.Repeat("0", len(sha))); rerr != nil {
			return fmt.Errorf("commit memories: HEAD moved while committing, nothing was committed (%w); the memory files stay staged: %v", err, rerr)
		}
		return fmt.Errorf("commit memories: HEAD moved while committing, nothing was committed: %w", err)
	}
	res.SHA = sha
	o.step(stepMoved)
	return nil
}

// restoreIndex puts back the index entries of paths as `git ls-files
// --stage -z` listed them (before, which may list more paths, left as
// they are): paths it did not list are removed
// (zero is the null object ID of the repository's hash).
func restoreIndex(ctx context.Context, work git.Cmd, paths []string, before []byte, zero string) error {
	var b strings.Builder
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	listed := map[string]bool{}
	for _, rec := range strings.Split(strings.TrimSuffix(string(before), "\x00"), "\x00") {
		if _, p, ok := strings.Cut(rec, "\t"); ok && want[p] {
			listed[p] = true
			b.WriteString(rec + "\x00")
		}
	}
	for _, p := range paths {
		if !listed[p] {
			// Mode 0 removes the path from the index.
			b.WriteString("0 " + zero + "\t" + p + "\x00")
		}
	}
	info := work
	info.Stdin = strings.NewReader(b.String())
	_, err := info.Run(ctx, "update-index", "-z", "--index-info")
	return err
}

// operationInProgress names the multi-step git operation under way in a
// work tree's git directory, or returns "".
func operationInProgress(gitDir string) string {
	for _, op := range []struct{ file, name string }{
		{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	} {
		if _, err := os.Stat(filepath.Join(gitDir, op.file)); err == nil {
			return op.name
		}
	}
	return ""
}

// rawChange is one line of `git diff-index --raw`.
type rawChange struct {
	status         byte // A, M, D or T
	oldOID, newOID string
	path           string
}

// parseRawDiff parses `git diff-index --raw -z --no-renames` output:
// ":oldmode newmode oldoid newoid S\0path\0" per file.
func parseRawDiff(out []byte) ([]rawChange, error) {
	var cs []rawChange
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(fields) == 1 && fields[0] == "" {
		return nil, nil
	}
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 || meta[4] == "" {
			return nil, fmt.Errorf("git diff-index: unexpected output %q", fields[i])
		}
		c := rawChange{status: meta[4][0], oldOID: meta[2], newOID: meta[3], path: fields[i+1]}
		if strings.Trim(c.oldOID, "0") == "" {
			c.oldOID = ""
		}
		if strings.Trim(c.newOID, "0") == "" {
			c.newOID = ""
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// parseStage parses `git ls-files --stage -z` into path → blob, keeping
// regular files at stage 0 only.
func parseStage(out []byte) map[string]string {
	tree := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[2] != "0" || (f[0] != "100644" && f[0] != "100755") {
			continue
		}
		tree[p] = f[1]
	}
	return tree
}

// describeChanges turns the raw changes into CommitFiles, reading each
// memory's ID, type and title from its committed version (or, when
// deleted, its last one). A deletion and an addition of the same ID are
// one rename.
func describeChanges(changes []rawChange, blobs map[string][]byte) []File {
	var files []File
	for _, c := range changes {
		f := File{Path: c.path}
		content := blobs[c.newOID]
		switch c.status {
		case 'A':
			f.Status = Added
		case 'D':
			f.Status = Deleted
			content = blobs[c.oldOID]
		default:
			f.Status = Modified
		}
		if gitstore.IsMemoryPath(c.path) {
			if m, _, err := gitstore.Decode(c.path, content); err == nil {
				f.ID, f.Type, f.Title = m.ID, m.Type, m.Title
				if f.Title == "" {
					f.Title = title(m.Body)
				}
			}
		}
		files = append(files, f)
	}
	// Pair deletions with additions of the same ID.
	deleted := map[string]int{} // lower-case ID → index in files
	for i, f := range files {
		if f.Status == Deleted && f.ID != "" {
			deleted[strings.ToLower(f.ID)] = i
		}
	}
	gone := map[int]bool{}
	for i, f := range files {
		if f.Status != Added || f.ID == "" {
			continue
		}
		if j, ok := deleted[strings.ToLower(f.ID)]; ok && !gone[j] {
			files[i].Status, files[i].OldPath = Renamed, files[j].Path
			gone[j] = true
		}
	}
	final := files[:0]
	for i, f := range files {
		if !gone[i] {
			final = append(final, f)
		}
	}
	slices.SortFunc(final, func(a, b File) int {
		return cmp.Or(cmp.Compare(statusRank(a.Status), statusRank(b.Status)), cmp.Compare(a.Path, b.Path))
	})
	return final
}

func statusRank(s string) int {
	return slices.Index([]string{Added, Modified, Renamed, Deleted}, s)
}

// Message generates a commit message for files: a subject that
// counts the memories by what happened to them and by type ("contextfs:
// add 2 decisions, update 1 fact"), and a body with one line per file, so
// that `git log` is readable without opening the commit.
func Message(files []File) string {
	verbs := []struct {
		verb     string
		statuses []string
	}{
		{"add", []string{Added}},
		{"update", []string{Modified, Renamed}},
		{"delete", []string{Deleted}},
	}
	var parts []string
	for _, v := range verbs {
		counts := map[string]int{}
		var types, others []string
		for _, f := range files {
			if !slices.Contains(v.statuses, f.Status) {
				continue
			}
			if !gitstore.IsMemoryPath(f.Path) {
				others = append(others, filepath.Base(f.Path))
				continue
			}
			t := f.Type
			if t == "" {
				t = "memory"
			}
			if counts[t] == 0 {
				types = append(types, t)
			}
			counts[t]++
		}
		slices.SortFunc(types, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
		var nouns []string
		if len(types) > 2 {
			n := 0
			for _, c := range counts {
				n += c
			}
			nouns = append(nouns, pluralNoun(n, "memory"))
		} else {
			for _, t := range types {
				nouns = append(nouns, pluralNoun(counts[t], t))
			}
		}
		nouns = append(nouns, others...)
		if len(nouns) > 0 {
			parts = append(parts, v.verb+" "+strings.Join(nouns, " and "))
		}
	}
	var b strings.Builder
	b.WriteString("contextfs: " + strings.Join(parts, ", "))
	b.WriteString("\n\n")
	for _, f := range files {
		fmt.Fprintf(&b, "- %s ", f.Status)
		switch {
		case f.ID != "":
			fmt.Fprintf(&b, "%s %s: %s", f.Type, f.ID, f.Title)
		default:
			b.WriteString(f.Path)
		}
		if f.OldPath != "" {
			fmt.Fprintf(&b, " (was %s)", f.OldPath)
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// pluralNoun writes "1 decision", "2 decisions", "2 dependencies".
func pluralNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		noun += "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsAny(noun[len(noun)-2:len(noun)-1], "aeiou"):
		noun = noun[:len(noun)-1] + "ies"
	default:
		noun += "s"
	}
	return strconv.Itoa(n) + " " + noun
}

// nulList is paths as --pathspec-file-nul reads them.
func nulList(paths []string) io.Reader {
	return strings.NewReader(strings.Join(paths, "\x00") + "\x00")
}

// headCommit returns the commit HEAD points to, or "" on an unborn
// branch.
func headCommit(ctx context.Context, g git.Cmd) (string, error) {
	out, err := g.Output(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if git.ExitCode(err) == 1 && out == "" {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return out, nil
}

// title is the title a memory without one gets from its body, as the
// cache derives it (from the head of the body only).
func title(body string) string {
	if len(body) > 4096 {
		body = body[:4096]
	}
	t, _ := frontmatter.Derive([]byte(body))
	return t
}
