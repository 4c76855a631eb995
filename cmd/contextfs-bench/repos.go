package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/embed"
	"github.com/contextfs/contextfs/git"
	"github.com/contextfs/contextfs/scope"
)

// benchRepos measures `search --repos all` over k registered repositories
// of n memories each against `search` in one of them, through the CLI, in
// the same run. The user's config and store are pointed at a temp dir, so
// the benchmark never touches the real ones.
func benchRepos(ctx context.Context, n, k int, bin string, runs int) error {
	root, err := os.MkdirTemp("", "contextfs-bench-repos-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	for _, kv := range [][2]string{
		{"XDG_CONFIG_HOME", filepath.Join(root, "config")}, {"XDG_DATA_HOME", filepath.Join(root, "data")},
		{"CONTEXTFS_USER_DIR", ""}, {"CONTEXTFS_WATCH", "off"},
	} {
		defer os.Setenv(kv[0], os.Getenv(kv[0]))
		os.Setenv(kv[0], kv[1])
	}
	var cfg scope.Config
	var qs []string
	dirs := make([]string, k)
	for i := range dirs {
		dirs[i] = filepath.Join(root, fmt.Sprintf("repo%d", i))
		if out, err := (git.Cmd{}).Combined(ctx, "init", "-q", dirs[i]); err != nil {
			return fmt.Errorf("git init: %v: %s", err, out)
		}
		q, err := writeCorpus(dirs[i], n, 50)
		if err != nil {
			return err
		}
		qs = q
		// Warm caches, as a user's repositories have.
		s, err := contextfs.Open(ctx, contextfs.Options{Dir: dirs[i], Embedder: embed.NewBuiltin()})
		if err != nil {
			return err
		}
		_, err = s.Reindex(ctx)
		s.Close()
		if err != nil {
			return err
		}
		if _, err := cfg.AddRepo(ctx, dirs[i], ""); err != nil {
			return err
		}
	}
	// Interleaved, so that both rows see the same machine load.
	var one, all []time.Duration
	for i := 0; i < runs; i++ {
		q := qs[i%len(qs)]
		d, _, err := timeCmd(dirs[0], bin, "search", "--json", q)
		if err != nil {
			return err
		}
		one = append(one, d)
		d, _, err = timeCmd(dirs[0], bin, "search", "--repos", "all", "--json", q)
		if err != nil {
			return err
		}
		all = append(all, d)
	}
	fmt.Println("## Search across repositories")
	fmt.Println()
	fmt.Printf("`git-contextfs search --repos all --json` over %d registered repositories (warm caches, no watcher) against `search --json` in one of them, from process start to exit, interleaved in the same run.\n\n", k)
	fmt.Println("| repositories × memories | one repository p50 / p99 | --repos all p50 / p99 | ratio of p50s |")
	fmt.Println("| ---: | ---: | ---: | ---: |")
	fmt.Printf("| %d × %s | %s | %s | %.2f× |\n\n", k, humanN(n), pp(one), pp(all), float64(pct(all, 0.5))/float64(max(1, pct(one, 0.5))))
	return nil
}
