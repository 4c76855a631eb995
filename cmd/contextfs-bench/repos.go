package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
	"github.com/contextfs/contextfs/internal/scope"
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
	// Interleaved, so that both rows see the same machine load. First
	// without watchers (every repository's memory files are stat'ed),
	// then with one running in each repository, as the auto mode leaves a
	// repository of 10,000 memories that a person has worked in.
	rows := []string{}
	for _, watched := range []bool{false, true} {
		if watched {
			os.Setenv("CONTEXTFS_WATCH", "on")
			for _, d := range dirs {
				if _, _, err := timeCmd(d, bin, "watch", "start"); err != nil {
					return err
				}
				defer exec.Command(bin, "-C", d, "watch", "stop").Run()
				timeCmd(d, bin, "search", "warm-up")
			}
		}
		var one, all cpuTimes
		for i := 0; i < runs; i++ {
			q := qs[i%len(qs)]
			w, c, err := timeCPU(dirs[0], bin, "search", "--json", q)
			if err != nil {
				return err
			}
			one.add(w, c)
			w, c, err = timeCPU(dirs[0], bin, "search", "--repos", "all", "--json", q)
			if err != nil {
				return err
			}
			all.add(w, c)
		}
		label := "off"
		if watched {
			label = "running in each"
		}
		rows = append(rows, fmt.Sprintf("| %d × %s | %s | %s | %s | %s |", k, humanN(n), label, one, all, all.ratio(one)))
	}
	fmt.Println("## Search across repositories")
	fmt.Println()
	fmt.Printf("`git-contextfs search --repos all --json` over %d registered repositories (warm caches) against `search --json` in one of them, from process start to exit, interleaved in the same run; wall time, CPU time (user + system) in brackets. Without watchers every repository's memory files are stat'ed; with one running in each (what the auto mode leaves in a repository of 10,000 memories a person works in), each asks its watcher.\n\n", k)
	fmt.Println("| repositories × memories | watchers | one repository p50 / p99 | --repos all p50 / p99 | ratio of p50s |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: |")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Println()
	return nil
}
