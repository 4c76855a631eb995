// Package agentsetup writes the configuration that connects an agent client
// to contextfs: its MCP server entry and, for Claude Code, the session
// hooks that inject the context block at start and end the session at the
// end. It merges into the user's files and never replaces their entries;
// running it twice changes nothing; removal takes out only our entries,
// from each file as it is now (a backup of the bytes before setup, less
// any entry of ours and kept outside the repository's tracked files, is
// put back only when the file is exactly what setup made of them); a
// symbolic link is written through and kept, except that a project file
// follows no link out of the repository; a dry run reports without
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
	"regexp"
	"slices"
	"strings"
	"sync"

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
	// userContextCommand is the SessionStart hook of the user's own
	// settings: Claude Code runs the user's hooks and the project's
	// together, so in a project whose settings print the block already
	// (ProjectInjects), the user's prints nothing and the block is
	// injected once.
	userContextCommand = "git contextfs session start --tool claude-code --resume >/dev/null 2>&1; git contextfs context --unless-project-hook"
	// The capture hooks (docs/AGENTS.md, "Capture"): recall for each
	// prompt, and a reminder to save what the session settled.
	promptCommand     = "git contextfs hook user-prompt-submit"
	stopCommand       = "git contextfs hook stop"
	preCompactCommand = "git contextfs hook pre-compact"
)

// claudeEvents are the Claude Code hook events setup adds a group to, in
// the order it adds them.
var claudeEvents = []string{"SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"}

// codexEvents are the events setup hooks in Codex's hooks.json (Claude
// Code's format): the recall on every prompt and the reminder to save.
// Codex has the MCP server's instructions for the block and the session,
// and documents no PreCompact or SessionEnd.
var codexEvents = []string{"UserPromptSubmit", "Stop"}

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
	// Home is the user's home directory (for project setup too, whose
	// hooks must not repeat the user's own); StateDir where backups of
	// the user's files are kept (XDG_STATE_HOME/contextfs).
	Home, StateDir string
	// CodexHome is $CODEX_HOME when set (default Home/.codex).
	CodexHome string
	// Project is the repository user setup runs in, if any: its own
	// settings are read for a note on the hooks both would run.
	Project string
	Remove  bool // take our entries out again
	DryRun  bool // report, write nothing
}

// Change is what happened (or, in a dry run, would happen) to one file.
type Change struct {
	Path string `json:"path"`
	// Target is the file read and written when Path is a symbolic link
	// (written through, and kept); "" when Path is the file itself.
	Target string `json:"target,omitempty"`
	// Action is create, update, unchanged, restore, delete, or absent: the
	// file does not exist and stays so, as setup had nothing to write to
	// it (every hook is in the user's own file already) or --remove
	// nothing to take out.
	Action string `json:"action"`
	Before []byte `json:"-"`
	After  []byte `json:"-"`
	// Notes say why setup left something out (a hook the user already
	// has), for the user to read.
	Notes []string `json:"notes,omitempty"`
	// createdDir is the folder setup created for a file --remove
	// deleted, removed once empty.
	createdDir string
}

// ActionAbsent is the Change.Action of a file that does not exist and
// that setup leaves so: "unchanged" would say it is there.
const ActionAbsent = "absent"

// ConflictError is a file that already holds an entry of the user's own
// under our name; it is left alone.
type ConflictError struct {
	Path, Key string
	Line      int // where the entry is, when known (0: not known)
}

// Error names the file (and line) and the entry.
func (e *ConflictError) Error() string {
	at := e.Path
	if e.Line > 0 {
		at = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("%s already has its own %s entry; contextfs leaves it alone (remove or rename it to let setup write ours)", at, e.Key)
}

// file is one configuration file and how our entries go in and out. add
// also returns notes on what it left out and why.
type file struct {
	path   string
	add    func(old []byte) ([]byte, []string, error)
	remove func(old []byte) ([]byte, error)
}

// Run sets up (or removes) the client's configuration and reports each
// file. With DryRun nothing is written.
func Run(o Options) ([]Change, error) {
	files, err := filesFor(o)
	if err != nil {
		return nil, err
	}
	// Every file's links are checked before any file is written.
	reals := make([]string, len(files))
	for i, f := range files {
		if reals[i], err = target(o, f.path); err != nil {
			return nil, err
		}
	}
	var out []Change
	for i, f := range files {
		var ch Change
		var err error
		if o.Remove {
			ch, err = removeFile(o, f, reals[i])
		} else {
			ch, err = addFile(o, f, reals[i])
		}
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
	// A folder setup created for one file (.codex/ for config.toml) may
	// hold another it wrote there (hooks.json), deleted after it: the
	// folder goes once the last is gone, if nothing else is in it.
	for _, ch := range out {
		if ch.createdDir != "" {
			_ = os.Remove(ch.createdDir) // only if empty
		}
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
		// Claude Code runs the hooks of the user's settings and of the
		// project's shared and local ones together, so a project's hooks
		// must not repeat one the user's settings already have.
		var others []string
		var notes []string
		if o.User {
			mcpPath = filepath.Join(base, ".claude.json")
			if o.Project != "" && !o.Remove {
				if p := ProjectInjects(o.Project); p != "" {
					notes = append(notes, fmt.Sprintf("hooks.SessionStart in %s prints the context block too: in that repository the user hook leaves it to that one (context --unless-project-hook), so the block is injected once", p))
				}
			}
		} else {
			others = append(others, filepath.Join(base, ".claude", "settings.local.json"))
			if o.Home != "" {
				others = append(others, filepath.Join(o.Home, ".claude", "settings.json"))
			}
		}
		hooks := claudeHooksFile(filepath.Join(base, ".claude", "settings.json"), others, o.User)
		if len(notes) > 0 {
			add := hooks.add
			hooks.add = func(old []byte) ([]byte, []string, error) {
				b, more, err := add(old)
				return b, append(notes, more...), err
			}
		}
		return []file{jsonServerFile(mcpPath, server), hooks}, nil
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
		// Codex loads the user's hooks.json and the project's together, as
		// Claude Code does its settings: a project's hook must not repeat
		// one the user's file already has.
		var others []string
		if !o.User {
			home := o.CodexHome
			if home == "" && o.Home != "" {
				home = filepath.Join(o.Home, ".codex")
			}
			if home != "" {
				others = append(others, filepath.Join(home, "hooks.json"))
			}
		}
		return []file{codexFile(filepath.Join(dir, "config.toml")),
			hooksFile(filepath.Join(dir, "hooks.json"), "Codex", codexEvents, others, o.User)}, nil
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
		add: func(old []byte) ([]byte, []string, error) {
			doc, err := jsonObject(path, old)
			if err != nil {
				return nil, nil, err
			}
			servers, err := childObject(path, doc, "mcpServers")
			if err != nil {
				return nil, nil, err
			}
			if cur, ok := servers.get(ServerName); ok {
				if equalJSON(cur, server) {
					return old, nil, nil
				}
				if !ours(cur) {
					return nil, nil, &ConflictError{Path: path, Key: "mcpServers." + ServerName}
				}
			}
			servers.set(ServerName, server)
			doc.set("mcpServers", servers)
			return formatJSON(doc), nil, nil
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
// opening a session; SessionEnd ends it. The user's own SessionStart
// leaves the block to a project's (userContextCommand).
func claudeHooks(user bool) map[string]object {
	group := func(cmd string) object {
		return object{{"hooks", []any{object{{"type", "command"}, {"command", cmd}}}}}
	}
	start := contextCommand
	if user {
		start = userContextCommand
	}
	return map[string]object{"SessionStart": group(start), "SessionEnd": group(endCommand),
		"UserPromptSubmit": group(promptCommand), "Stop": group(stopCommand), "PreCompact": group(preCompactCommand)}
}

// hookDoes says what our group for the event does, and equivalentHook
// recognises a command that does it too: a SessionStart hook that prints
// the context block (with or without opening a session), a SessionEnd
// hook that ends the session. A second such hook would inject the block
// twice or end the session twice. A switch, not a map: a package-level
// map literal is built at every start (docs/DESIGN.md, "Start-up").
func hookDoes(ev string) string {
	switch ev {
	case "SessionStart":
		return "git contextfs context"
	case "SessionEnd":
		return "git contextfs session end"
	case "UserPromptSubmit":
		return promptCommand
	case "Stop":
		return stopCommand
	case "PreCompact":
		return preCompactCommand
	}
	return ""
}

// equivalentHook is compiled on first use, for the same reason.
var equivalentHook = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"SessionStart":     regexp.MustCompile(`(?:^|[\s;&|(])git(?:\s+|-)contextfs\s+context(?:$|[\s;&|)])`),
		"SessionEnd":       regexp.MustCompile(`(?:^|[\s;&|(])git(?:\s+|-)contextfs\s+session\s+end(?:$|[\s;&|)])`),
		"UserPromptSubmit": regexp.MustCompile(`(?:^|[\s;&|(])git(?:\s+|-)contextfs\s+hook\s+user-prompt-submit(?:$|[\s;&|)])`),
		"Stop":             regexp.MustCompile(`(?:^|[\s;&|(])git(?:\s+|-)contextfs\s+hook\s+stop(?:$|[\s;&|)])`),
		"PreCompact":       regexp.MustCompile(`(?:^|[\s;&|(])git(?:\s+|-)contextfs\s+hook\s+pre-compact(?:$|[\s;&|)])`),
	}
})

// claudeHooksFile adds our groups (claudeEvents) to a Claude
// Code settings file, but not where the file, or one of others (the
// settings Claude Code reads along with it), already has a hook that does
// the same: then it says so in a note.
func claudeHooksFile(path string, others []string, user bool) file {
	return hooksFile(path, "Claude Code", claudeEvents, others, user)
}

// ProjectInjects names the settings file of the repository at root
// (.claude/settings.json or settings.local.json) whose SessionStart hook
// prints the context block, or "" if neither does. The user's own hook
// (userContextCommand) then prints nothing: Claude Code would run both.
//
// A hook that itself leaves the block to the project's does not count: in
// a home folder that is a repository (dotfiles), the project's settings
// are the user's own, and the block would be left to no one.
func ProjectInjects(root string) string {
	for _, p := range []string{filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json")} {
		raw, ok, err := readFile(p)
		if err != nil || !ok {
			continue
		}
		doc, err := jsonObject(p, raw)
		if err != nil {
			continue
		}
		hooks, err := childObject(p, doc, "hooks")
		if err != nil {
			continue
		}
		groups, err := childArray(p, hooks, "SessionStart")
		if err != nil {
			continue
		}
		for _, g := range groups {
			group, _ := g.(object)
			hs, _ := group.get("hooks")
			list, _ := hs.([]any)
			for _, h := range list {
				hook, _ := h.(object)
				cmd, _ := hook.get("command")
				if c, ok := cmd.(string); ok && equivalentHook()["SessionStart"].MatchString(c) && !strings.Contains(c, deferFlag) {
					return p
				}
			}
		}
	}
	return ""
}

// deferFlag is the flag of context that leaves the block to a project's
// own SessionStart hook.
const deferFlag = "--unless-project-hook"

// hooksFile adds our groups for events to a file of hooks in Claude
// Code's format ({"hooks": {EVENT: [groups]}}), which Codex's hooks.json
// shares; client names the program that runs them, for the notes.
func hooksFile(path, client string, events []string, others []string, user bool) file {
	return file{path: path,
		add: func(old []byte) ([]byte, []string, error) {
			doc, err := jsonObject(path, old)
			if err != nil {
				return nil, nil, err
			}
			hooks, err := childObject(path, doc, "hooks")
			if err != nil {
				return nil, nil, err
			}
			changed := false
			var notes []string
			for _, ev := range events {
				want := claudeHooks(user)[ev]
				groups, err := childArray(path, hooks, ev)
				if err != nil {
					return nil, nil, err
				}
				if indexGroup(groups, want) >= 0 {
					continue
				}
				// An earlier setup wrote the other form of our group
				// (the user's SessionStart before it left the block to
				// a project's): ours, so it is replaced in place.
				if i := indexGroup(groups, claudeHooks(!user)[ev]); i >= 0 {
					groups[i] = want
					hooks.set(ev, groups)
					changed = true
					continue
				}
				if where := equivalentIn(ev, path, groups, others); where != "" {
					note := fmt.Sprintf("hooks.%s in %s already runs %q, so setup adds no second hook", ev, where, hookDoes(ev))
					if where != path {
						note += " to " + path
					}
					notes = append(notes, note+" ("+client+" would run both)")
					continue
				}
				hooks.set(ev, append(groups, want))
				changed = true
			}
			if !changed {
				return old, notes, nil
			}
			doc.set("hooks", hooks)
			return formatJSON(doc), notes, nil
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
				i := indexGroup(groups, claudeHooks(user)[ev])
				if i < 0 {
					i = indexGroup(groups, claudeHooks(!user)[ev]) // an earlier setup's
				}
				if i >= 0 {
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

// equivalentIn names the file that has a hook equivalent to ours for the
// event: path, whose groups are given, or one of others; "" if none does.
// An other file that is missing or unreadable has none.
func equivalentIn(ev, path string, groups []any, others []string) string {
	if hasEquivalent(ev, groups) {
		return path
	}
	for _, p := range others {
		raw, ok, err := readFile(p)
		if err != nil || !ok {
			continue
		}
		doc, err := jsonObject(p, raw)
		if err != nil {
			continue
		}
		hooks, err := childObject(p, doc, "hooks")
		if err != nil {
			continue
		}
		if groups, err := childArray(p, hooks, ev); err == nil && hasEquivalent(ev, groups) {
			return p
		}
	}
	return ""
}

// hasEquivalent reports whether a command hook in groups does what ours
// for the event does.
func hasEquivalent(ev string, groups []any) bool {
	for _, g := range groups {
		group, _ := g.(object)
		hs, _ := group.get("hooks")
		list, _ := hs.([]any)
		for _, h := range list {
			hook, _ := h.(object)
			cmd, _ := hook.get("command")
			if s, ok := cmd.(string); ok && equivalentHook()[ev].MatchString(s) {
				return true
			}
		}
	}
	return false
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

// Codex's config.toml gets a marked block; the user's TOML is not
// rewritten, only read (codexCheck) and appended to.
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
		add: func(old []byte) ([]byte, []string, error) {
			s := string(old)
			if strings.Contains(s, codexBlock()) {
				return old, nil, nil
			}
			if err := codexCheck(path, s); err != nil {
				return nil, nil, err
			}
			sep := ""
			if s != "" {
				sep = "\n"
				if !strings.HasSuffix(s, "\n") {
					sep = "\n\n"
				}
			}
			return []byte(s + sep + codexBlock()), nil, nil
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

// backup is what setup remembers of a file it changed: its bytes before
// the change, less any entry of ours, and a hash of what setup wrote, so
// that the next setup can tell whether anyone changed the file since
// (then the backup is taken afresh). Removal puts Original back only when
// the file is exactly what setup makes of it, so that nothing written
// since is lost.
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

// target is the file to read and write for path: path itself or, when
// path is a symbolic link (dotfile managers link configuration files into
// place), the file it points to, so that a write goes through the link
// and keeps it. The project's files are a repository's, into which
// anyone can commit a link: there a link must stay inside the work tree
// (inRepository), and any other is refused before anything is written.
func target(o Options, path string) (string, error) {
	if !o.User {
		if err := inRepository(o, path); err != nil {
			return "", err
		}
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link setup cannot follow, nothing written: %w", path, err)
	}
	return real, nil
}

// inRepository refuses path, a file of the repository at o.Root, when it
// or a folder on the way to it is a symbolic link that leads out of the
// work tree or into the git directory: a cloned repository must not get
// setup to write the user's files elsewhere (~/.claude/settings.json, any
// other configuration) or git's own. The error names the link and where
// it leads.
func inRepository(o Options, path string) error {
	root, err := filepath.EvalSymlinks(o.Root)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	gitDir := ""
	if o.GitDir != "" {
		if gitDir, err = filepath.EvalSymlinks(o.GitDir); err != nil {
			gitDir = filepath.Clean(o.GitDir)
		}
	}
	rel, err := filepath.Rel(o.Root, path)
	if err != nil || !under(".", rel) {
		return fmt.Errorf("setup: %s is not in the repository %s, nothing written", path, o.Root)
	}
	at, p := o.Root, root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at, p = filepath.Join(at, part), filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil // missing: setup creates it, in the repository
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		dest, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("%s is a symbolic link setup cannot follow, nothing written: %w", at, err)
		}
		switch {
		case !under(root, dest):
			return fmt.Errorf("%s is a symbolic link to %s, outside the repository: project setup follows no link out of it, nothing written (make it a file, or set up your own files with --user)", at, dest)
		case gitDir != "" && under(gitDir, dest):
			return fmt.Errorf("%s is a symbolic link to %s, in the repository's git directory: project setup writes only the work tree's files, nothing written", at, dest)
		}
		p = dest
	}
	return nil
}

// under reports whether p is dir or inside it.
func under(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func readBackup(path string) (*backup, error) {
	raw, ok, err := readFile(path)
	if err != nil || !ok {
		return nil, err
	}
	var bk backup
	if err := json.Unmarshal(raw, &bk); err != nil {
		return nil, fmt.Errorf("setup backup %s is damaged: %w", path, err)
	}
	return &bk, nil
}

// addFile adds f's entries to real, the file f.path stands for (target),
// backing up what was there.
func addFile(o Options, f file, real string) (Change, error) {
	old, existed, err := readFile(real)
	if err != nil {
		return Change{}, err
	}
	next, notes, err := f.add(old)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Path: f.path, Target: linkTarget(f.path, real), Action: "unchanged", Before: old, After: next, Notes: notes}
	if bytes.Equal(next, old) {
		if !existed {
			ch.Action = ActionAbsent // a missing file that gets nothing stays missing
		}
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
	bk, err := readBackup(bp)
	if err != nil {
		return ch, err
	}
	if bk == nil || hash(old) != bk.Written {
		// The first change, or the file changed since setup wrote it:
		// back up what is there now. An older copy would lack what was
		// written since. What is there now can hold some of our entries
		// (an earlier setup's, or a teammate's that was committed): the
		// backup is kept without them, so that removal never puts them
		// back.
		orig, err := f.remove(old)
		if err != nil {
			return ch, err
		}
		bk = &backup{Path: f.path, Existed: existed, Original: orig}
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
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		return ch, fmt.Errorf("setup: %w", err)
	}
	if err := gitstore.WriteFileAtomic(real, next, 0o644); err != nil {
		return ch, fmt.Errorf("write %s: %w", f.path, err)
	}
	return ch, nil
}

// linkTarget is real when it is not path: the file a link leads to.
func linkTarget(path, real string) string {
	if real == path {
		return ""
	}
	return real
}

// madeFrom reports whether cur is exactly what setup makes of orig: then
// orig is cur without our entries, and putting it back loses nothing.
func madeFrom(f file, orig, cur []byte) bool {
	next, _, err := f.add(orig)
	return err == nil && !bytes.Equal(orig, cur) && bytes.Equal(next, cur)
}

// removeFile takes f's entries out of real, the file f.path stands for
// (target), or puts back the backup where that loses nothing.
func removeFile(o Options, f file, real string) (Change, error) {
	old, existed, err := readFile(real)
	if err != nil {
		return Change{}, err
	}
	bp := backupPath(o, f.path)
	bk, err := readBackup(bp)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Path: f.path, Target: linkTarget(f.path, real), Action: "unchanged", Before: old, After: old}
	if !existed {
		ch.Action = ActionAbsent
	}
	restore := bk != nil && existed && madeFrom(f, bk.Original, old)
	switch {
	case restore && bk.Existed:
		// The file holds nothing but the backup and our entries: put the
		// backup back, byte for byte, less any entry of ours in it (an
		// earlier version backed up files that held some).
		orig, err := f.remove(bk.Original)
		if err != nil {
			return Change{}, err
		}
		ch.Action, ch.After = "restore", orig
	case restore && real == f.path:
		ch.Action, ch.After = "delete", nil
	case existed:
		// Otherwise take our entries out of the file as it is now: the
		// backup lacks what was written since.
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
			ch.createdDir = bk.CreatedDir
		}
	case "restore", "update":
		if err := gitstore.WriteFileAtomic(real, ch.After, 0o644); err != nil {
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
