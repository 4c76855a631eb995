package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/embed"
	"github.com/contextfs/contextfs/internal/git"
)

// benchLookup times the commands that read one memory and what touches it,
// and a save, on a corpus laid out as save lays it out: every memory in
// the one folder .contextfs/memories (the other rows spread their corpora
// over 256 folders, which hides the cost of a large folder). `recall` says
// what supersedes the memory, `related --depth 2` walks its links, and
// `save --dedup off` writes one file. With base set (-lookup-base), a
// second binary runs the same commands on its own copy of the corpus,
// interleaved. The change watcher runs from 10,000 memories, as the auto
// mode starts it; commands are answered cold (CONTEXTFS_WARM=off).
func benchLookup(ctx context.Context, sizes []int, bin, base string, runs int) error {
	var rows []string
	for _, n := range sizes {
		r, err := lookupRows(ctx, n, bin, base, runs)
		if err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
		rows = append(rows, r...)
	}
	fmt.Println("## Lookups and saves in one folder")
	fmt.Println()
	fmt.Println("Every memory in `.contextfs/memories/` (as `save` writes them), the watcher running from 10K memories, commands cold (`CONTEXTFS_WARM=off`), alternating. p50 / p99 wall time, p50 CPU (user + system, the command's plus the watcher's per command) in brackets.")
	fmt.Println()
	fmt.Println("| memories | binary | runs | `recall ID` | `related ID --depth 2` | `save --dedup off` |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: | ---: |")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Println()
	return nil
}

func lookupRows(ctx context.Context, n int, bin, base string, runs int) ([]string, error) {
	tmp, err := os.MkdirTemp("", "contextfs-bench-lookup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, kv := range [][2]string{
		{"XDG_CONFIG_HOME", tmp + "/xdg-config"}, {"XDG_DATA_HOME", tmp + "/xdg-data"}, {"CONTEXTFS_USER_DIR", ""}, {"CONTEXTFS_WARM", "off"},
	} {
		defer os.Setenv(kv[0], os.Getenv(kv[0]))
		os.Setenv(kv[0], kv[1])
	}
	dir := tmp + "/repo"
	if out, err := (git.Cmd{}).Combined(ctx, "init", "-q", dir); err != nil {
		return nil, fmt.Errorf("git init: %v: %s", err, out)
	}
	if _, err := writeCorpus(dir, n, 1); err != nil {
		return nil, err
	}
	// One folder, as save writes them.
	mem := filepath.Join(dir, ".contextfs", "memories")
	subs, err := os.ReadDir(mem)
	if err != nil {
		return nil, err
	}
	var id string
	for _, sub := range subs {
		files, err := os.ReadDir(filepath.Join(mem, sub.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := os.Rename(filepath.Join(mem, sub.Name(), f.Name()), filepath.Join(mem, f.Name())); err != nil {
				return nil, err
			}
			if id == "" {
				name := strings.TrimSuffix(f.Name(), ".md")
				id = name[strings.LastIndexByte(name, '-')+1:]
			}
		}
		os.Remove(filepath.Join(mem, sub.Name()))
	}
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir, Embedder: embed.NewBuiltin()})
	if err != nil {
		return nil, err
	}
	_, err = s.Reindex(ctx)
	s.Close()
	if err != nil {
		return nil, err
	}
	sides := []*saveSide{{label: "this", bin: bin, dir: dir}}
	if base != "" {
		if out, err := exec.Command("cp", "-a", dir, tmp+"/base").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("copy the corpus: %v: %s", err, out)
		}
		sides = append(sides, &saveSide{label: "base", bin: base, dir: tmp + "/base"})
	}
	mode := contextfs.WatchOff
	if n >= contextfs.WatchAutoFiles {
		mode = contextfs.WatchOn
	}
	defer os.Setenv("CONTEXTFS_WATCH", os.Getenv("CONTEXTFS_WATCH"))
	os.Setenv("CONTEXTFS_WATCH", mode)
	if mode == contextfs.WatchOn {
		for _, sd := range sides {
			if _, _, err := timeCmd(sd.dir, sd.bin, "watch", "start"); err != nil {
				return nil, err
			}
			defer exec.Command(sd.bin, "-C", sd.dir, "watch", "stop").Run()
			if sd.watcher, err = watcherPID(sd.dir, sd.bin, os.Environ()); err != nil {
				return nil, err
			}
		}
	}
	times := make([][3]cpuTimes, len(sides))
	for i := -1; i < runs; i++ { // the first round warms the page cache (and builds base's cache)
		for b, sd := range sides {
			for o, args := range [][]string{
				{"recall", id},
				{"related", id, "--depth", "2"},
				{"save", "--type", "fact", "--dedup", "off", fmt.Sprintf("Lookup bench fact %d of %s: the build cache lives in the git directory.", i, sd.label)},
			} {
				before := procCPU(sd.watcher)
				w, c, err := timeCPU(sd.dir, sd.bin, args...)
				if err != nil {
					return nil, err
				}
				daemon := procCPUSettled(sd.watcher) - before
				if i >= 0 {
					times[b][o].add(w, c)
					times[b][o].daemon += daemon
				}
			}
		}
	}
	var rows []string
	for b, sd := range sides {
		t := times[b]
		rows = append(rows, fmt.Sprintf("| %s | %s | %d | %s | %s | %s |", humanN(n), sd.label, runs, t[0], t[1], t[2]))
	}
	return rows, nil
}
