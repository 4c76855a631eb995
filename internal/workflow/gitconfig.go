package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs/frontmatter"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/git"
)

// What an adapter asks of git and of the repository around it for its
// own presentation: the colour setting, the editor, the names a
// revision may be completed to, the top of the work tree. git answers
// each as it answers git's own commands.

// ErrNotRepo is the error of a workflow run outside any git repository.
var ErrNotRepo = gitstore.ErrNotRepo

// WorkTree is the top of the work tree around dir, found as git finds it
// without running git; ErrNotRepo outside any repository.
func WorkTree(dir string) (string, error) {
	repo, err := gitstore.Discover(dir)
	if err != nil {
		return "", err
	}
	return repo.Root, nil
}

// ColorConfig is git's colour setting for contextfs, as git reads its
// own: color.contextfs, else color.ui; "" when neither is set (which
// means auto) or git cannot say.
func ColorConfig(ctx context.Context, dir string) string {
	out, err := git.Output(ctx, dir, "config", "--get-regexp", `^color\.(ui|contextfs)$`)
	if err != nil {
		return "" // none set (exit 1), or no git: auto
	}
	var ui, own string
	for _, line := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToLower(k) {
		case "color.ui":
			ui = v // the last one wins, as in git
		case "color.contextfs":
			own = v
		}
	}
	if own != "" {
		return own
	}
	return ui
}

// Editor is the editor git would open in dir (git var GIT_EDITOR:
// GIT_EDITOR, core.editor, VISUAL, EDITOR, then vi), as a shell command.
func Editor(ctx context.Context, dir string) (string, error) {
	editor, err := git.Cmd{Dir: dir}.Output(ctx, "var", "GIT_EDITOR")
	if err == nil && editor == "" {
		err = errors.New("git names an empty editor")
	}
	return editor, err
}

// EditFile is where a memory edited in the editor is written: in the git
// directory of the repository around dir, as git writes COMMIT_EDITMSG,
// or in a temporary folder outside a repository; done removes that
// folder.
func EditFile(ctx context.Context, dir string) (path string, done func(), err error) {
	out, err := git.Cmd{Dir: dir}.Output(ctx, "rev-parse", "--absolute-git-dir")
	if err == nil && out != "" {
		return filepath.Join(out, "CONTEXTFS_EDITMSG"), func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "contextfs-edit-")
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(tmp, "CONTEXTFS_EDITMSG.md"), func() { os.RemoveAll(tmp) }, nil
}

// EditedText is a memory as a person wrote it in the editor: the title
// and data of its frontmatter, and its body.
type EditedText struct {
	Title string
	Data  map[string]any
	Body  string
}

// ParseEditedText reads text written in the editor as a memory file's
// frontmatter and body; text without frontmatter is all body.
func ParseEditedText(raw []byte) (EditedText, error) {
	var e EditedText
	raw = bytes.TrimLeft(raw, "\n")
	if !bytes.HasPrefix(raw, []byte("---")) {
		e.Body = strings.TrimSpace(string(raw))
		return e, nil
	}
	doc, err := frontmatter.Parse(raw)
	if err != nil {
		return e, err
	}
	if n := doc.Get("title"); n != nil {
		e.Title = strings.TrimSpace(n.Value)
	}
	if n := doc.Get("data"); n != nil {
		if err := n.Decode(&e.Data); err != nil {
			return e, fmt.Errorf("data: %w", err)
		}
	}
	e.Body = strings.TrimSpace(string(doc.Body))
	return e, nil
}

// RevisionNames are the names a revision can be given by in the
// repository around dir, for completion: HEAD, then its branches, tags
// and remote branches, short.
func RevisionNames(ctx context.Context, dir string) ([]string, error) {
	out, err := git.Cmd{Dir: dir}.Output(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags", "refs/remotes")
	if err != nil {
		return nil, err
	}
	return append([]string{"HEAD"}, strings.Fields(out)...), nil
}
