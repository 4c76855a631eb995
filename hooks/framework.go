package hooks

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// The pre-commit framework (pre-commit.com) writes its own hook file and
// recognises it later by one of these identifiers. Re-running `pre-commit
// install` replaces any file holding one of them wholesale, so a block of
// ours inside it would silently vanish; a hook that was there before the
// framework is moved to "<hook>.legacy", which the framework's hook runs
// first and never overwrites. contextfs therefore puts its block in the
// .legacy file whenever the framework owns the hook.
var frameworkIDs = [][]byte{
	[]byte("138fd403232d2ddd5efb44317e38bf03"), // pre-commit 2.x and 3.x
	[]byte("4d9958c90bc262f47553e2c073f14cfe"),
	[]byte("d8ee923c46731b42cd95cc869add4062"),
	[]byte("49fd668cb42069aa1b6048464be5d395"),
	[]byte("79f09a650522a87b0da915d0d983b2de"),
	[]byte("e358c9dae00eac5d06b38dfdb1e33a8c"),
}

// legacySuffix names the file the framework's hook runs before its own
// hooks: the hook that was there before `pre-commit install`.
const legacySuffix = ".legacy"

// FrameworkHookID is the id of contextfs' hook in .pre-commit-hooks.yaml,
// the one a .pre-commit-config.yaml names to run contextfs' checks.
const FrameworkHookID = "contextfs"

// FrameworkConfig is the pre-commit framework's configuration file, at the
// top of the work tree.
const FrameworkConfig = ".pre-commit-config.yaml"

// isFrameworkHook reports whether content is a hook file the pre-commit
// framework wrote and will overwrite on its next install.
func isFrameworkHook(content []byte) bool {
	for _, id := range frameworkIDs {
		if bytes.Contains(content, id) {
			return true
		}
	}
	return false
}

// frameworkOwns reports whether the hook file at p is the framework's.
func frameworkOwns(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	content, err := os.ReadFile(p)
	return err == nil && isFrameworkHook(content)
}

// frameworkRunsUs reports whether the .pre-commit-config.yaml at the top of
// the work tree top lists contextfs' hook for hook name. A config that does
// not parse lists nothing: the framework refuses to run it too.
func frameworkRunsUs(top, name string) bool {
	if top == "" {
		return false
	}
	data, err := os.ReadFile(filepath.Join(top, FrameworkConfig))
	if err != nil {
		return false
	}
	var cfg struct {
		DefaultStages []string `yaml:"default_stages"`
		Repos         []struct {
			Hooks []struct {
				ID     string   `yaml:"id"`
				Stages []string `yaml:"stages"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return false
	}
	for _, r := range cfg.Repos {
		for _, h := range r.Hooks {
			if h.ID != FrameworkHookID {
				continue
			}
			stages := h.Stages
			if len(stages) == 0 {
				stages = cfg.DefaultStages
			}
			if len(stages) == 0 || hasStage(stages, name) {
				return true
			}
		}
	}
	return false
}

// hasStage reports whether stages names hook name; the framework accepts
// "commit" as an old spelling of "pre-commit".
func hasStage(stages []string, name string) bool {
	for _, s := range stages {
		if s == name || (s == "commit" && name == "pre-commit") {
			return true
		}
	}
	return false
}

// moveOutOfFramework takes our blocks out of the framework's hook file at
// p, where an older contextfs or a hand edit put them and where the next
// `pre-commit install` would drop them.
func moveOutOfFramework(p string) error {
	content, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	blocks, err := findBlocks(content)
	if err != nil || len(blocks) == 0 {
		return err
	}
	restored, _ := removeBlocks(content, blocks)
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	return writeFile(p, restored, fi.Mode().Perm())
}

// FrameworkRunsContextfs reports whether the pre-commit framework will run
// contextfs' own framework hook when git runs hook name in the work tree
// whose top is top: .pre-commit-config.yaml lists it for that stage and
// the framework's hook file is the one git runs. contextfs' git-hook block
// (in the framework's .legacy file, or anywhere else) then leaves the check
// to the framework's hook, so that a commit is checked once, not twice.
// The config is read first: without one listing contextfs, which is most
// repositories, no git process is started.
func FrameworkRunsContextfs(ctx context.Context, top, name string) (bool, error) {
	if !frameworkRunsUs(top, name) {
		return false, nil
	}
	dir, err := HooksDir(ctx, top)
	if err != nil {
		return false, err
	}
	return frameworkOwns(filepath.Join(dir, name)), nil
}
