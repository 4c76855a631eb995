// Package agentsetup writes the configuration that connects an agent client
// to contextfs: its MCP server entry and, for Claude Code, the session
// hooks that inject the context block at start and end the session at the
// end. It merges into the user's files and never replaces their entries;
// running it twice changes nothing; removal restores each file byte for
// byte when nobody changed it since (a backup of the original is kept
// outside the repository's tracked files); a dry run reports without
// writing. docs/AGENTS.md lists every file per client.
package agentsetup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextfs/contextfs/gitstore"
)

// Clients are the supported agent clients.
var Clients = []string{"claude", "cursor", "codex"}

// ServerName is the name of our entry in the clients' MCP server lists.
const ServerName = "contextfs"

// The commands the configuration runs. git finds git-contextfs on PATH.
const (
	mcpCommand     = "git"
	contextCommand = "git contextfs session start --tool claude-code --resume >/dev/null 2>&1; git contextfs context"
	endCommand     = "git contextfs session end --if-open --outcome unknown"
)

var mcpArgs = []string{"contextfs", "mcp"}

// cursorWorkspace is Cursor's variable for the open project's folder,
// which it substitutes in an MCP entry's command, args and env.
const cursorWorkspace = "${workspaceFolder}"

// Options say what to set up and where.
type Options struct {
	Client string // one of Clients
	User   bool   // the user's own files instead of the project's
	// Root is the repository's work tree; GitDir its git directory, where
	// backups of project files are kept.
	Root, GitDir string
	// Home is the user's home directory; StateDir where backups of the
	// user's files are kept (XDG_STATE_HOME/contextfs).
	Home, StateDir string
	// CodexHome is $CODEX_HOME when set (default Home/.codex).
	CodexHome string
	Remove    bool // take our entries out again
	DryRun    bool // report, write nothing
}

// Change is what happened (or, in a dry run, would happen) to one file.
type Change struct {
	Path   string `json:"path"`
	Action string `json:"action"` // create, update, unchanged, restore, delete
	Before []byte `json:"-"`
	After  []byte `json:"-"`
}

// ConflictError is a file that already holds an entry of the user's own
// under our name; it is left alone.
type ConflictError struct {
	Path, Key string
}

// Error names the file and the entry.
func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s already has its own %s entry; contextfs leaves it alone (remove or rename it to let setup write ours)", e.Path, e.Key)
}

// file is one configuration file and how our entries go in and out.
type file struct {
	path   string
	add    func(old []byte) ([]byte, error)
	remove func(old []byte) ([]byte, error)
}

// Run sets up (or removes) the client's configuration and reports each
// file. With DryRun nothing is written.
func Run(o Options) ([]Change, error) {
	files, err := filesFor(o)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, f := range files {
		var ch Change
		var err error
		if o.Remove {
			ch, err = removeFile(o, f)
		} else {
			ch, err = addFile(o, f)
		}
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
	return out, nil
}

func filesFor(o Options) ([]file, error) {
	base := o.Root
	if o.User {
		base = o.Home
	}
	if base == "" {
		return nil, errors.New("setup: no directory to write to")
	}
	server := object{{"command", mcpCommand}, {"args", []any{mcpArgs[0], mcpArgs[1]}}}
	switch o.Client {
	case "claude":
		mcpPath := filepath.Join(base, ".mcp.json")
		if o.User {
			mcpPath = filepath.Join(base, ".claude.json")
		}
		return []file{
			jsonServerFile(mcpPath, server),
			claudeHooksFile(filepath.Join(base, ".claude", "settings.json")),
		}, nil
	case "cursor":
		// Cursor starts a server in no documented folder (Claude Code and
		// Codex start it in the project), so its entry names the
		// repository: Cursor puts the open project for ${workspaceFolder}.
		// The entry earlier versions wrote, without it, is ours too.
		cursor := object{{"command", mcpCommand}, {"args", []any{mcpArgs[0], mcpArgs[1], "--repo", cursorWorkspace}}}
		return []file{jsonServerFile(filepath.Join(base, ".cursor", "mcp.json"), cursor, server)}, nil
	case "codex":
		dir := filepath.Join(base, ".codex")
		if o.User && o.CodexHome != "" {
			dir = o.CodexHome
		}
		return []file{codexFile(filepath.Join(dir, "config.toml"))}, nil
	}
	return nil, fmt.Errorf("unknown client %q (want %s)", o.Client, strings.Join(Clients, ", "))
}

// jsonServerFile adds {"mcpServers": {"contextfs": server}}, the format of
// Claude Code's .mcp.json and ~/.claude.json and of Cursor's mcp.json.
// earlier are the entries older versions of setup wrote: found, they are
// replaced by server, and --remove takes them out as it does server.
func jsonServerFile(path string, server object, earlier ...object) file {
	ours := func(cur any) bool {
		return equalJSON(cur, server) || slices.ContainsFunc(earlier, func(e object) bool { return equalJSON(cur, e) })
	}
	return file{path: path,
		add: func(old []byte) ([]byte, error) {
			doc, err := jsonObject(path, old)
			if err != nil {
				return nil, err
			}
			servers, err := childObject(path, doc, "mcpServers")
			if err != nil {
				return nil, err
			}
			if cur, ok := servers.get(ServerName); ok {
				if equalJSON(cur, server) {
					return old, nil
				}
				if !ours(cur) {
					return nil, &ConflictError{Path: path, Key: "mcpServers." + ServerName}
				}
			}
			servers.set(ServerName, server)
			doc.set("mcpServers", servers)
			return formatJSON(doc), nil
		},
		remove: func(old []byte) ([]byte, error) {
			doc, err := jsonObject(path, old)
			if err != nil {
				return nil, err
			}
			servers, err := childObject(path, doc, "mcpServers")
			if err != nil {
				return nil, err
			}
			cur, ok := servers.get(ServerName)
			if !ok || !ours(cur) {
				return old, nil
			}
			servers.del(ServerName)
			doc.set("mcpServers", servers)
			return formatJSON(doc), nil
		}}
}

// claudeHooks are the hook groups Claude Code runs: SessionStart prints
// the context block (hook output is added to the session's context) after
// opening a session; SessionEnd ends it.
func claudeHooks() map[string]object {
	group := func(cmd string) object {
		return object{{"hooks", []any{object{{"type", "command"}, {"command", cmd}}}}}
	}
	return map[string]object{"SessionStart": group(contextCommand), "SessionEnd": group(endCommand)}
}

func claudeHooksFile(path string) file {
	events := []string{"SessionStart", "SessionEnd"}
	return file{path: path,
		add: func(old []byte) ([]byte, error) {
			doc, err := jsonObject(path, old)
			if err != nil {
				return nil, err
			}
			hooks, err := childObject(path, doc, "hooks")
			if err != nil {
				return nil, err
			}
			changed := false
			for _, ev := range events {
				want := claudeHooks()[ev]
				groups, err := childArray(path, hooks, ev)
				if err != nil {
					return nil, err
				}
				if indexGroup(groups, want) >= 0 {
					continue
				}
				hooks.set(ev, append(groups, want))
				changed = true
			}
			if !changed {
				return old, nil
			}
			doc.set("hooks", hooks)
			return formatJSON(doc), nil
		},
		remove: func(old []byte) ([]byte, error) {
			doc, err := jsonObject(path, old)
			if err != nil {
				return nil, err
			}
			hooks, err := childObject(path, doc, "hooks")
			if err != nil {
				return nil, err
			}
			changed := false
			for _, ev := range events {
				groups, err := childArray(path, hooks, ev)
				if err != nil {
					return nil, err
				}
				if i := indexGroup(groups, claudeHooks()[ev]); i >= 0 {
					groups = append(groups[:i], groups[i+1:]...)
					changed = true
					if len(groups) == 0 {
						hooks.del(ev)
					} else {
						hooks.set(ev, groups)
					}
				}
			}
			if !changed {
				return old, nil
			}
			if len(hooks) == 0 {
				doc.del("hooks")
			} else {
				doc.set("hooks", hooks)
			}
			return formatJSON(doc), nil
		}}
}

func indexGroup(groups []any, want object) int {
	for i, g := range groups {
		if equalJSON(g, want) {
			return i
		}
	}
	return -1
}

func jsonObject(path string, raw []byte) (object, error) {
	v, err := parseJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: not valid JSON, nothing written: %w", path, err)
	}
	o, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("%s: the top level is not a JSON object, nothing written", path)
	}
	return o, nil
}

func childObject(path string, o object, key string) (object, error) {
	v, ok := o.get(key)
	if !ok || v == nil {
		return object{}, nil
	}
	c, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("%s: %q is not a JSON object, nothing written", path, key)
	}
	return c, nil
}

func childArray(path string, o object, key string) ([]any, error) {
	v, ok := o.get(key)
	if !ok || v == nil {
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %q is not a JSON array, nothing written", path, key)
	}
	return a, nil
}

// Codex's config.toml gets a marked block; the user's TOML is not parsed
// or rewritten, only appended to.
const (
	codexBegin = "# BEGIN contextfs (git contextfs setup codex)"
	codexEnd   = "# END contextfs"
)

func codexBlock() string {
	return codexBegin + "\n[mcp_servers." + ServerName + "]\ncommand = \"" + mcpCommand + "\"\nargs = [\"" +
		strings.Join(mcpArgs, "\", \"") + "\"]\n" + codexEnd + "\n"
}

func codexFile(path string) file {
	return file{path: path,
		add: func(old []byte) ([]byte, error) {
			s := string(old)
			if strings.Contains(s, codexBlock()) {
				return old, nil
			}
			for _, line := range strings.Split(s, "\n") {
				l := strings.ReplaceAll(strings.TrimSpace(line), " ", "")
				if l == "[mcp_servers."+ServerName+"]" || l == `[mcp_servers."`+ServerName+`"]` {
					return nil, &ConflictError{Path: path, Key: "[mcp_servers." + ServerName + "]"}
				}
			}
			sep := ""
			if s != "" {
				sep = "\n"
				if !strings.HasSuffix(s, "\n") {
					sep = "\n\n"
				}
			}
			return []byte(s + sep + codexBlock()), nil
		},
		remove: func(old []byte) ([]byte, error) {
			s := string(old)
			i := strings.Index(s, codexBlock())
			if i < 0 {
				return old, nil
			}
			before := strings.TrimSuffix(s[:i], "\n")
			if before != "" {
				before += "\n"
			}
			return []byte(before + s[i+len(codexBlock()):]), nil
		}}
}

// backup is what setup remembers of a file it changed: its bytes before,
// and a hash of what setup wrote, so that removal can tell whether anyone
// changed the file since.
type backup struct {
	Path       string `json:"path"`
	Existed    bool   `json:"existed"`
	Original   []byte `json:"original"`
	Written    string `json:"written"`
	CreatedDir string `json:"created_dir,omitempty"`
}

func backupPath(o Options, path string) string {
	dir := filepath.Join(o.GitDir, "contextfs", "setup")
	if o.User {
		dir = filepath.Join(o.StateDir, "setup")
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".json")
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func readFile(path string) ([]byte, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return b, true, nil
}

func addFile(o Options, f file) (Change, error) {
	old, existed, err := readFile(f.path)
	if err != nil {
		return Change{}, err
	}
	next, err := f.add(old)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Path: f.path, Action: "unchanged", Before: old, After: next}
	if existed && bytes.Equal(next, old) {
		return ch, nil
	}
	ch.Action = "update"
	if !existed {
		ch.Action = "create"
	}
	if o.DryRun {
		return ch, nil
	}
	bp := backupPath(o, f.path)
	var bk backup
	if raw, ok, err := readFile(bp); err != nil {
		return ch, err
	} else if ok {
		if err := json.Unmarshal(raw, &bk); err != nil {
			return ch, fmt.Errorf("setup backup %s is damaged: %w", bp, err)
		}
	} else {
		bk = backup{Path: f.path, Existed: existed, Original: old}
		if dir := filepath.Dir(f.path); !existed {
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				bk.CreatedDir = dir
			}
		}
	}
	bk.Written = hash(next)
	if err := writeJSONFile(bp, bk); err != nil {
		return ch, err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return ch, fmt.Errorf("setup: %w", err)
	}
	if err := gitstore.WriteFileAtomic(f.path, next, 0o644); err != nil {
		return ch, fmt.Errorf("write %s: %w", f.path, err)
	}
	return ch, nil
}

func removeFile(o Options, f file) (Change, error) {
	old, existed, err := readFile(f.path)
	if err != nil {
		return Change{}, err
	}
	bp := backupPath(o, f.path)
	var bk *backup
	if raw, ok, err := readFile(bp); err != nil {
		return Change{}, err
	} else if ok {
		bk = &backup{}
		if err := json.Unmarshal(raw, bk); err != nil {
			return Change{}, fmt.Errorf("setup backup %s is damaged: %w", bp, err)
		}
	}
	ch := Change{Path: f.path, Action: "unchanged", Before: old, After: old}
	switch {
	case bk != nil && existed && hash(old) == bk.Written:
		// Nobody touched the file since setup: put back what was there.
		ch.After = bk.Original
		ch.Action = "restore"
		if !bk.Existed {
			ch.Action, ch.After = "delete", nil
		}
	case existed:
		next, err := f.remove(old)
		if err != nil {
			return Change{}, err
		}
		if !bytes.Equal(next, old) {
			ch.Action, ch.After = "update", next
		}
	}
	if o.DryRun {
		return ch, nil
	}
	switch ch.Action {
	case "delete":
		if err := os.Remove(f.path); err != nil {
			return ch, fmt.Errorf("setup: %w", err)
		}
		if bk.CreatedDir != "" {
			_ = os.Remove(bk.CreatedDir) // only if empty
		}
	case "restore", "update":
		if err := gitstore.WriteFileAtomic(f.path, ch.After, 0o644); err != nil {
			return ch, fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	if bk != nil {
		if err := os.Remove(bp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return ch, fmt.Errorf("setup: %w", err)
		}
	}
	return ch, nil
}

func writeJSONFile(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	return gitstore.WriteFileAtomic(path, append(raw, '\n'), 0o600)
}
