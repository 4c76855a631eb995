package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/git"
)

// Bounds of a digest (the summary End builds when none was written): each
// list keeps its first digestItems entries and says how many more there
// were, so a long session gives a summary of the same size as a short one.
const (
	digestItems = 10
	// MaxPrompts is how many of a session's prompts NotePrompt keeps: the
	// first ones, which say what the session set out to do.
	MaxPrompts = 10
	// promptChars caps the first line kept of each prompt.
	promptChars = 120
)

func promptsFile(repo *gitstore.Repo, id string) string {
	return filepath.Join(Dir(repo), id+".prompts")
}

// capturingFile marks the open session as one whose saves are captured:
// a hook asked the agent to save what the session settled (see
// MarkCapturing). The next prompt of the person clears it.
func capturingFile(repo *gitstore.Repo, id string) string {
	return filepath.Join(Dir(repo), id+".capturing")
}

// NotePrompt records the first line of a prompt the person gave the open
// session (the agent's UserPromptSubmit hook calls it), for the summary
// End builds when the session ends without one; only the first MaxPrompts
// are kept. A new prompt also ends a capture (MarkCapturing): what the
// agent saves from now on, it saves for the person's prompt. Without an
// open session it does nothing.
func NotePrompt(repo *gitstore.Repo, prompt string) error {
	s, err := Current(repo)
	if err != nil || s == nil {
		return err
	}
	if err := os.Remove(capturingFile(repo, s.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session: %w", err)
	}
	line := firstLine(prompt, promptChars)
	if line == "" {
		return nil
	}
	p := promptsFile(repo, s.ID)
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session: %w", err)
	}
	if strings.Count(string(old), "\n") >= MaxPrompts {
		return nil
	}
	if err := gitstore.WriteFileAtomic(p, append(old, line+"\n"...), 0o600); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// MarkCapturing says that what the open session saves until the person's
// next prompt is captured (memory.Source.Captured): a hook, not a person,
// asked the agent to save it. Without an open session it does nothing.
func MarkCapturing(repo *gitstore.Repo) error {
	s, err := Current(repo)
	if err != nil || s == nil {
		return err
	}
	if err := os.WriteFile(capturingFile(repo, s.ID), nil, 0o600); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// capturing reports whether the open session id is capturing.
func capturing(repo *gitstore.Repo, id string) bool {
	_, err := os.Stat(capturingFile(repo, id))
	return err == nil
}

// prompts are the first lines of the prompts NotePrompt kept for id.
func prompts(repo *gitstore.Repo, id string) []string {
	b, err := os.ReadFile(promptsFile(repo, id))
	if err != nil {
		return nil
	}
	if t := strings.TrimSpace(string(b)); t != "" {
		return strings.Split(t, "\n")
	}
	return nil
}

// headOf is the commit HEAD names in root, "" when there is none (a
// repository without commits) or git cannot tell.
func headOf(ctx context.Context, root string) string {
	out, err := git.Output(ctx, root, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// digest is the summary of session s, which saved ids, when nobody wrote
// one: what git and the session's own records know, without a model. The
// same repository state gives the same text. Each list is bounded (see
// digestItems). Git's failures leave their part out: a summary is still
// worth more than none.
func digest(ctx context.Context, st *contextfs.Store, s *Session, ids []string) string {
	var b strings.Builder
	what := "Session " + s.ID
	if s.Tool != "" {
		what += " (" + s.Tool + ")"
	}
	fmt.Fprintf(&b, "%s on branch %s, started %s. Written by contextfs from git and the session's records; nobody wrote a summary.\n",
		what, orNone(s.Branch, "(detached)"), s.Started.UTC().Format(time.RFC3339))
	root := st.Repo.Root
	commits, files := sessionChanges(ctx, root, s)
	list(&b, "Commits", commits)
	list(&b, "Files changed", files)
	var saved, open []string
	for _, id := range ids {
		m, err := st.Resolve(ctx, id)
		if err != nil {
			saved = append(saved, id) // in the user store
			continue
		}
		saved = append(saved, fmt.Sprintf("%s %s: %s", m.ID, m.Type, oneLine(m.Title)))
		if slices.Contains([]string{"todo", "issue", "task"}, m.Type) {
			if st, _ := m.Data["status"].(string); st == "" || st == "open" || st == "in_progress" {
				open = append(open, fmt.Sprintf("%s %s", m.ID, oneLine(m.Title)))
			}
		}
	}
	list(&b, "Memories saved", saved)
	list(&b, "Prompts", prompts(st.Repo, s.ID))
	if n := uncommitted(ctx, root); n > 0 {
		open = append(open, fmt.Sprintf("%d file(s) changed and not committed", n))
	}
	list(&b, "Open work", open)
	return strings.TrimSpace(b.String())
}

// sessionChanges lists the commits made since the session started (from
// the commit it started on, else by date) and the files changed since
// then, committed or not, less the memory files (listed as saved).
func sessionChanges(ctx context.Context, root string, s *Session) (commits, files []string) {
	rng := []string{"--since=" + s.Started.UTC().Format(time.RFC3339), "HEAD"}
	if s.Head != "" {
		rng = []string{s.Head + "..HEAD"}
	}
	if out, err := git.Output(ctx, root, append([]string{"log", "--no-merges", "--reverse", "--format=%h %s"}, rng...)...); err == nil && out != "" {
		commits = strings.Split(out, "\n")
	}
	base := s.Head
	if base == "" {
		return commits, nil
	}
	// The work tree against the start: what the session committed and
	// what it left uncommitted, once each.
	if out, err := git.Output(ctx, root, "diff", "--numstat", "--no-renames", base); err == nil && out != "" {
		for _, l := range strings.Split(out, "\n") {
			f := strings.SplitN(l, "\t", 3)
			if len(f) != 3 || ours(f[2]) {
				continue
			}
			files = append(files, fmt.Sprintf("%s (+%s -%s)", f[2], f[0], f[1]))
		}
	}
	if out, err := git.Output(ctx, root, "ls-files", "--others", "--exclude-standard"); err == nil && out != "" {
		for _, p := range strings.Split(out, "\n") {
			if !ours(p) {
				files = append(files, p+" (new, not added)")
			}
		}
	}
	return commits, files
}

// ours reports whether p is contextfs's own file (a memory, listed as
// saved; its settings), not the session's work.
func ours(p string) bool {
	return gitstore.IsMemoryPath(p) || strings.HasPrefix(p, gitstore.Dir+"/")
}

// uncommitted counts the work tree's changed files, less memory files.
func uncommitted(ctx context.Context, root string) int {
	out, err := git.Output(ctx, root, "status", "--porcelain", "--untracked-files=all")
	if err != nil || out == "" {
		return 0
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 3 && !ours(strings.Trim(l[3:], `"`)) {
			n++
		}
	}
	return n
}

// list writes a titled list of at most digestItems items, and how many
// more there were; nothing when items is empty.
func list(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s (%d):\n", title, len(items))
	for i, it := range items {
		if i == digestItems {
			fmt.Fprintf(b, "- … and %d more\n", len(items)-digestItems)
			break
		}
		fmt.Fprintf(b, "- %s\n", it)
	}
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// firstLine is the first non-blank line of s, on one line, cut to n
// characters.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		l = clean(l)
		if l == "" {
			continue
		}
		if utf8.RuneCountInString(l) > n {
			l = strings.TrimSpace(string([]rune(l)[:n])) + "…"
		}
		return l
	}
	return ""
}
