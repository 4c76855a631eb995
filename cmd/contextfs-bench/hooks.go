package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/contextfs/contextfs/internal/git"

	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/memory"
)

// benchHooks measures the hook handlers as git runs them, against the cost
// of an empty shell hook: pre-commit with no memory staged (also through
// the installed hook file: issue 31's ≤ 25 ms) and with 10, and post-merge
// after a pull that changed 10 memories.
func benchHooks(rep *report, bin string, runs int) error {
	dir, err := os.MkdirTemp("", "contextfs-hooks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	up := filepath.Join(dir, "upstream")
	if err := os.MkdirAll(up, 0o755); err != nil {
		return err
	}
	if err := gitIn(up, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	ts := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var paths []string
	for i := 0; i < 200; i++ {
		p, err := writeMemory(up, fmt.Sprintf("Memory number %d about the release process", i), ts)
		if err != nil {
			return err
		}
		paths = append(paths, p)
	}
	os.WriteFile(filepath.Join(up, "main.go"), []byte("package main\n"), 0o644)
	if err := gitIn(up, "add", "-A"); err != nil {
		return err
	}
	if err := gitIn(up, "commit", "-qm", "memories"); err != nil {
		return err
	}
	clone := filepath.Join(dir, "clone")
	if out, err := (git.Cmd{}).Combined(context.Background(), "clone", "-q", up, clone); err != nil {
		return fmt.Errorf("clone: %v: %s", err, out)
	}
	// Warm the cache as a user's first command would.
	if _, _, err := timeCmd(clone, bin, "status"); err != nil {
		return err
	}
	empty := filepath.Join(dir, "empty-hook")
	os.WriteFile(empty, []byte("#!/bin/sh\nexit 0\n"), 0o755)

	// No memory staged: a source change only. Timed three ways in rounds:
	// the pre-commit file `hooks install` writes, run as git runs it (the
	// shell, its block, then the handler); the handler alone; and the
	// empty shell hook. The shims come out again before the pull below,
	// whose post-merge would otherwise run ours first.
	os.WriteFile(filepath.Join(clone, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	gitIn(clone, "add", "main.go")
	if _, _, err := timeCmd(clone, bin, "hooks", "install"); err != nil {
		return err
	}
	shim := filepath.Join(clone, ".git", "hooks", "pre-commit")
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var base, none, shimmed, baseCPU, noneCPU, shimCPU []time.Duration
	for i := 0; i < runs; i++ {
		for _, r := range []struct {
			cmd       *exec.Cmd
			wall, cpu *[]time.Duration
		}{
			{exec.Command(empty), &base, &baseCPU},
			{exec.Command(bin, "hook", "pre-commit"), &none, &noneCPU},
			{exec.Command(shim), &shimmed, &shimCPU},
		} {
			r.cmd.Dir, r.cmd.Env = clone, env
			w, c, _, err := cpuRun(r.cmd)
			if err != nil {
				return err
			}
			*r.wall, *r.cpu = append(*r.wall, w), append(*r.cpu, c)
		}
	}
	if _, _, err := timeCmd(clone, bin, "hooks", "uninstall"); err != nil {
		return err
	}
	var ten, merge []time.Duration
	// Ten new memories staged.
	for i := 0; i < 10; i++ {
		if _, err := writeMemory(clone, fmt.Sprintf("Staged memory %d about retries", i), ts); err != nil {
			return err
		}
	}
	gitIn(clone, "add", "-A")
	for i := 0; i < runs; i++ {
		d, _, err := timeCmd(clone, bin, "hook", "pre-commit")
		if err != nil {
			return err
		}
		ten = append(ten, d)
	}
	gitIn(clone, "reset", "-q", "--hard", "HEAD")
	gitIn(clone, "clean", "-qfd")
	// post-merge after pulling 10 changed memories, repeated.
	for round := 0; round < min(runs, 10); round++ {
		for i := 0; i < 10; i++ {
			appendFile(filepath.Join(up, paths[(round*10+i)%len(paths)]), fmt.Sprintf("\nEdit %d in round %d.\n", i, round))
		}
		if err := gitIn(up, "commit", "-qam", fmt.Sprintf("edit round %d", round)); err != nil {
			return err
		}
		if err := gitIn(clone, "pull", "-q", "--no-rebase", "origin", "main"); err != nil {
			return err
		}
		d, _, err := timeCmd(clone, bin, "hook", "post-merge", "0")
		if err != nil {
			return err
		}
		merge = append(merge, d)
	}
	fmt.Println("## Hooks")
	fmt.Println()
	fmt.Printf("A clone with 200 memories; each handler run as the hook shim runs it (`git-contextfs hook NAME`), %d runs, against an empty `#!/bin/sh` hook in the same run. \"As git runs it\": the pre-commit file `git-contextfs hooks install` writes, run directly (its shell, the block's checks, then the handler), in rounds with the handler alone and the empty hook. CPU is user + system from getrusage, the shell's children included.\n\n", runs)
	fmt.Println("| hook | wall p50 | wall p99 | CPU p50 | target |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: |")
	fmt.Printf("| empty shell hook (baseline) | %s | %s | %s | |\n", ms(pct(base, 0.5)), ms(pct(base, 0.99)), ms(pct(baseCPU, 0.5)))
	fmt.Printf("| pre-commit as git runs it, no memory staged | %s | %s | %s | ≤ 25 ms |\n", ms(pct(shimmed, 0.5)), ms(pct(shimmed, 0.99)), ms(pct(shimCPU, 0.5)))
	fmt.Printf("| pre-commit handler, no memory staged | %s | %s | %s | |\n", ms(pct(none, 0.5)), ms(pct(none, 0.99)), ms(pct(noneCPU, 0.5)))
	fmt.Printf("| pre-commit handler, 10 memories staged | %s | %s | | ≤ 100 ms |\n", ms(pct(ten, 0.5)), ms(pct(ten, 0.99)))
	fmt.Printf("| post-merge after pulling 10 changed memories | %s | %s | | ≤ 200 ms |\n", ms(pct(merge, 0.5)), ms(pct(merge, 0.99)))
	fmt.Println()
	met, note := wallTarget(pct(shimmed, 0.5), pct(shimCPU, 0.5), 25*time.Millisecond)
	rep.add(target{Issue: 31, What: "pre-commit hook as git runs it (the installed file), nothing of ours staged", Goal: "≤ 25 ms wall",
		Wall: pct(shimmed, 0.5), CPU: pct(shimCPU, 0.5), Baseline: "empty `#!/bin/sh` hook " + ms(pct(base, 0.5)) + "; handler alone " + ms(pct(none, 0.5)),
		Met: met, Note: note})
	return nil
}

func writeMemory(root, title string, ts time.Time) (string, error) {
	m := &memory.Memory{ID: memory.NewID(), Type: "fact", Title: title, Created: ts, Updated: ts,
		Tags: []string{"bench"}, Body: title + ".\n\nThe team agreed on this after the incident review.\n"}
	raw, err := gitstore.Encode(m, nil, true)
	if err != nil {
		return "", err
	}
	rel := filepath.Join(".contextfs", "memories", memory.Slug(title)+"-"+m.ID+".md")
	return rel, gitstore.WriteFileAtomic(filepath.Join(root, rel), raw, 0o644)
}
