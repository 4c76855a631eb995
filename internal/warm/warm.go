// Package warm answers read-only commands (search, context, a page of
// list, a save) inside a repository's watcher, over stores it keeps open
// between calls: a fresh process would rebuild the cache's connection,
// its vectors and the embedder's tables to answer one query. The watcher
// runs the same command code over the same files, syncing first as every
// command does, so the answer is the one the command would have printed;
// on any doubt the server declines and the command runs cold, as it
// always could.
//
// The server owns the protocol (Request, Answer), the trust checks and
// the open stores; what a command line means is the program's, behind
// Runner. A daemon is trusted only when it is the very program asking
// (the same executable file, BuildID) run by the same user (the socket's
// peer credentials, checked by package watch). The caller's environment
// travels with the request: the variables that decide where the stores
// and settings are, and what git reads, are applied in the watcher for
// the call (see Carried), those that point git at another repository
// must match (see pinned), and the rest (PATH among them) cannot change
// an answer. See docs/DESIGN.md, "Warm answers".
package warm

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
)

// CallName is the watch call that runs a command line.
const CallName = "run"

// Request is what a command sends to the watcher.
type Request struct {
	// Build identifies the sending program; see BuildID.
	Build string `json:"build"`
	// Env is the sender's environment, KEY=VALUE: the server applies
	// what changes answers (Carried) and compares what it cannot apply.
	Env []string `json:"env"`
	// Args is the command line to run, starting with -C ROOT.
	Args []string `json:"args"`
	// Color and Width are the sender's standard output: whether it is
	// coloured and the terminal width to fit lines to (0: none), which
	// the watcher, writing to a buffer, cannot know. Standard error is
	// coloured by the sender as it writes it.
	Color bool `json:"color,omitempty"`
	Width int  `json:"width,omitempty"`
}

// Answer is what the command would have written and its exit code.
type Answer struct {
	Code   int    `json:"code"`
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
}

// BuildID names the running executable file: its device, inode, size and
// modification time, and version. Two processes with the same ID run the
// same bytes; a rebuilt or upgraded binary gets a new one.
func BuildID(version string) (string, error) {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		exe, xerr := os.Executable()
		if xerr != nil {
			return "", err
		}
		if f, err = os.Open(exe); err != nil {
			return "", err
		}
	}
	defer f.Close()
	return fileBuildID(f, version)
}

func fileBuildID(f *os.File, version string) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	id := fmt.Sprintf("%s:%d:%d", version, fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(":%d:%d", st.Dev, st.Ino)
	}
	return id, nil
}

// pinned reports whether key points git at another repository or other
// files of it: the watcher serves one work tree, whose changes it
// watches, so a caller with another value is declined.
func pinned(key string) bool {
	switch key {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
		"GIT_DISCOVERY_ACROSS_FILESYSTEM":
		return true
	}
	return false
}

// carried reports whether key can change what a command reads or prints
// and is applied in the watcher for the call: where the user store and
// settings are (HOME, the XDG base directories, CONTEXTFS_*), what git
// reads (GIT_*: its config, identities), the embedder's endpoint and key.
// Not carried: a terminal session's other XDG_ variables, PATH (the
// git found there reads the same repository, and the programs contextfs
// runs are found beside it), what git adds running a program
// (GIT_EXEC_PATH), what only concerns the asking process
// (CONTEXTFS_WARM, CONTEXTFS_PEAK_RSS) and whether to use a watcher
// (CONTEXTFS_WATCH: a process that asks has decided), nor the pinned
// variables.
func carried(key, apiKeyEnv string) bool {
	switch {
	case key == "CONTEXTFS_WARM", key == "CONTEXTFS_PEAK_RSS", key == "CONTEXTFS_WATCH",
		key == "GIT_EXEC_PATH", pinned(key):
		return false
	case key == "HOME", key == apiKeyEnv && key != "",
		key == "XDG_CONFIG_HOME", key == "XDG_DATA_HOME", key == "XDG_STATE_HOME", key == "XDG_CACHE_HOME",
		strings.HasPrefix(key, "CONTEXTFS_"), strings.HasPrefix(key, "GIT_"), strings.HasPrefix(key, "OPENAI_"):
		return true
	}
	return false
}

// Carried is the part of env (KEY=VALUE lines) that the watcher applies
// for a call, sorted.
func Carried(env []string, apiKeyEnv string) []string {
	return subset(env, func(k string) bool { return carried(k, apiKeyEnv) })
}

// pinnedOf is the part of env that must match the watcher's own, sorted.
func pinnedOf(env []string) []string { return subset(env, pinned) }

func subset(env []string, keep func(string) bool) []string {
	var out []string
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && keep(k) {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}

// apply makes the process environment's carried variables those of
// want, given that they are now those of have.
func apply(have, want []string) error {
	wantKeys := map[string]bool{}
	for _, kv := range want {
		k, v, _ := strings.Cut(kv, "=")
		wantKeys[k] = true
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	for _, kv := range have {
		if k, _, _ := strings.Cut(kv, "="); !wantKeys[k] {
			if err := os.Unsetenv(k); err != nil {
				return err
			}
		}
	}
	return nil
}
