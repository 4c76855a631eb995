package hooks

import (
	"context"
	"os"
)

// GlobalMergeDriverState is the merge driver as the user's global git
// config has it.
type GlobalMergeDriverState struct {
	// File is the global config file git reads (GIT_CONFIG_GLOBAL, or
	// ~/.gitconfig).
	File string
	// Configured reports that merge.contextfs.driver there is the command
	// this version registers.
	Configured bool
	// Driver is the value there, or "" when unset.
	Driver string
}

// RegisterGlobalMergeDriver sets merge.contextfs.name and
// merge.contextfs.driver in the user's global git config, once per user
// like `git lfs install`: the driver's config is never cloned, while the
// .gitattributes line that routes memories to it is, so with this every
// clone of every repository merges memories field by field. dir is any
// directory to run git from; it need not be a repository. Registering
// again changes nothing.
func RegisterGlobalMergeDriver(ctx context.Context, dir string) error {
	for _, kv := range [][2]string{
		{"merge.contextfs.name", mergeDriverName},
		{"merge.contextfs.driver", mergeDriverCommand},
	} {
		cur, err := git(ctx, dir, "config", "--global", "--get", kv[0])
		if err == nil && cur == kv[1] {
			continue
		}
		if err != nil && exitCode(err) != 1 { // 1: unset
			return err
		}
		if _, err := git(ctx, dir, "config", "--global", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// UnregisterGlobalMergeDriver removes what RegisterGlobalMergeDriver set,
// and the section when nothing else is left in it.
func UnregisterGlobalMergeDriver(ctx context.Context, dir string) error {
	for _, key := range []string{"merge.contextfs.driver", "merge.contextfs.name"} {
		if _, err := git(ctx, dir, "config", "--global", "--unset-all", key); err != nil && exitCode(err) != 5 {
			return err
		}
	}
	if out, err := git(ctx, dir, "config", "--global", "--get-regexp", `^merge\.contextfs\.`); err == nil && out != "" {
		return nil // someone's own keys: leave the section
	}
	if _, err := git(ctx, dir, "config", "--global", "--remove-section", "merge.contextfs"); err != nil && exitCode(err) > 1 && exitCode(err) != 128 {
		return err
	}
	return nil
}

// CheckGlobalMergeDriver reports the merge driver in the user's global
// git config.
func CheckGlobalMergeDriver(ctx context.Context, dir string) (GlobalMergeDriverState, error) {
	st := GlobalMergeDriverState{File: globalConfigFile()}
	v, err := git(ctx, dir, "config", "--global", "--get", "merge.contextfs.driver")
	if err != nil && exitCode(err) != 1 {
		return st, err
	}
	st.Driver = v
	st.Configured = v == mergeDriverCommand
	return st, nil
}

// globalConfigFile names the file `git config --global` writes.
func globalConfigFile() string {
	if p := os.Getenv("GIT_CONFIG_GLOBAL"); p != "" {
		return p
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h + string(os.PathSeparator) + ".gitconfig"
	}
	return "~/.gitconfig"
}
