package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/contextfs/contextfs/internal/git"
)

// benchIndex measures indexing a real code base: a full index (throughput,
// CPU time and peak RSS) against universal-ctags over the same files and,
// with base set, against that baseline binary, interleaved in the same
// run (median of runs each, every one from an empty cache); then an
// incremental re-index after a commit touching 10 files, and a switch back
// to an indexed branch. The default tree is the Go toolchain's src/cmd/go
// (about 9 MB), so that `make bench` stays short; the README's figures are
// for src/cmd (-index-src).
func benchIndex(src, bin, base string, runs int) error {
	if src == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		src = filepath.Join(strings.TrimSpace(string(out)), "src", "cmd", "go")
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("index source: %w", err)
	}
	dir, err := os.MkdirTemp("", "contextfs-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	repo := filepath.Join(dir, "repo")
	if out, err := exec.Command("cp", "-r", src, repo).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %v: %s", src, err, out)
	}
	exec.Command("chmod", "-R", "u+w", repo).Run()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "import"}} {
		if err := gitIn(repo, args...); err != nil {
			return err
		}
	}
	files, _ := git.Run(context.Background(), repo, "ls-files")
	nfiles := len(strings.Fields(string(files)))

	var res struct {
		Files  int     `json:"files"`
		Parsed int     `json:"parsed"`
		Chunks int     `json:"chunks"`
		Bytes  int64   `json:"bytes"`
		Secs   float64 `json:"seconds"`
	}
	// Full index, interleaved: the baseline (if any), this binary and
	// ctags, each from scratch every round.
	var walls, cpus, baseWalls, baseCPUs, ctagsWalls, ctagsCPUs []time.Duration
	var rss int64
	cacheDir := filepath.Join(repo, ".git", "contextfs")
	for round := 0; round < max(runs, 1); round++ {
		if base != "" {
			os.RemoveAll(cacheDir)
			w, c, _, err := cpuRSSCmd(repo, base, "index", "--json")
			if err != nil {
				return err
			}
			baseWalls, baseCPUs = append(baseWalls, w), append(baseCPUs, c)
		}
		os.RemoveAll(cacheDir)
		w, c, r, err := cpuRSSCmd(repo, bin, "index", "--json")
		if err != nil {
			return err
		}
		walls, cpus, rss = append(walls, w), append(cpus, c), max(rss, r)
		if _, err := exec.LookPath("ctags"); err == nil {
			w, c, _, err := cpuRSSCmd(repo, "sh", "-c", "git ls-files | ctags -L - -f "+filepath.Join(dir, "tags"))
			if err != nil {
				return fmt.Errorf("ctags: %w", err)
			}
			ctagsWalls, ctagsCPUs = append(ctagsWalls, w), append(ctagsCPUs, c)
		}
	}
	d := pct(walls, 0.5)
	out, _ := exec.Command(bin, "-C", repo, "index", "status", "--json").Output()
	var st struct {
		Files  int `json:"files"`
		Chunks int `json:"chunks"`
	}
	json.Unmarshal(out, &st)
	// Re-run to read the summary (nothing is parsed the second time).
	out2, _ := exec.Command(bin, "-C", repo, "index", "--json").Output()
	json.Unmarshal(out2, &res)
	mb := float64(res.Bytes) / 1e6

	// Baselines: universal-ctags over the same tracked files, and the
	// baseline binary.
	ctags, ratio := "n/a", "n/a"
	if len(ctagsWalls) > 0 {
		cd := pct(ctagsWalls, 0.5)
		ctags = fmt.Sprintf("%s (%.1f MB/s, CPU %s)", ms(cd), mb/cd.Seconds(), ms(pct(ctagsCPUs, 0.5)))
		ratio = fmt.Sprintf("%.2f× ctags's MB/s", cd.Seconds()/d.Seconds())
	}

	// Incremental: commits touching 10 files, re-indexed.
	var inc []time.Duration
	goOut, _ := git.Run(context.Background(), repo, "ls-files", "*.go")
	goFiles := strings.Fields(string(goOut))
	for round := 0; round < 5; round++ {
		for i := 0; i < 10; i++ {
			f := filepath.Join(repo, goFiles[(round*10+i)%len(goFiles)])
			appendFile(f, fmt.Sprintf("\n// benchRound%d%d marks an edit.\nfunc benchRound%d%d() {}\n", round, i, round, i))
		}
		if err := gitIn(repo, "commit", "-qam", fmt.Sprintf("round %d", round)); err != nil {
			return err
		}
		d, _, err := timeCmd(repo, bin, "index", "--json")
		if err != nil {
			return err
		}
		inc = append(inc, d)
	}
	// Branch switch back to an indexed branch.
	var sw []time.Duration
	for round := 0; round < 5; round++ {
		if err := gitIn(repo, "checkout", "-qB", "feature"); err != nil {
			return err
		}
		for i := 0; i < 10; i++ {
			appendFile(filepath.Join(repo, goFiles[(100+round*10+i)%len(goFiles)]), fmt.Sprintf("\n// feature %d %d\n", round, i))
		}
		if err := gitIn(repo, "commit", "-qam", "feature"); err != nil {
			return err
		}
		if _, _, err := timeCmd(repo, bin, "index", "--json"); err != nil {
			return err
		}
		if err := gitIn(repo, "checkout", "-q", "main"); err != nil {
			return err
		}
		d, _, err := timeCmd(repo, bin, "index", "--json")
		if err != nil {
			return err
		}
		sw = append(sw, d)
		gitIn(repo, "branch", "-qD", "feature")
	}

	fmt.Println("## Code indexing")
	fmt.Println()
	fmt.Printf("Repository: a copy of `%s` (%d tracked files, %.1f MB indexed in %d files, %d chunks), committed to a fresh git repository. `git-contextfs index` end to end with the built-in embedder; baseline: universal-ctags over the same tracked files in the same run.\n\n", src, nfiles, mb, st.Files, st.Chunks)
	fmt.Println("| measure | contextfs | baseline |")
	fmt.Println("| --- | ---: | ---: |")
	fmt.Printf("| full index (median of %d) | %s (%.1f MB/s, %.0f files/s, CPU %s; %s) | ctags: %s |\n",
		len(walls), ms(d), mb/d.Seconds(), float64(res.Files)/d.Seconds(), ms(pct(cpus, 0.5)), ratio, ctags)
	if len(baseWalls) > 0 {
		bd := pct(baseWalls, 0.5)
		fmt.Printf("| full index, baseline `%s` | %s (%.1f MB/s, CPU %s) | this binary: %.2f× the MB/s, %.2f× the CPU |\n",
			filepath.Base(base), ms(bd), mb/bd.Seconds(), ms(pct(baseCPUs, 0.5)), bd.Seconds()/d.Seconds(),
			pct(cpus, 0.5).Seconds()/pct(baseCPUs, 0.5).Seconds())
	}
	fmt.Printf("| peak RSS, full index | %.0f MB | |\n", float64(rss)/1024)
	fmt.Printf("| re-index after a commit touching 10 files (p50 / max of 5) | %s / %s | |\n", ms(pct(inc, 0.5)), ms(pct(inc, 1)))
	fmt.Printf("| switch back to an indexed branch, then index (p50 / max of 5) | %s / %s | |\n", ms(pct(sw, 0.5)), ms(pct(sw, 1)))
	fmt.Println()
	return nil
}

// cpuRSSCmd is cpuCmd with the peak RSS (in KB) as well.
func cpuRSSCmd(dir, name string, args ...string) (wall, cpu time.Duration, rss int64, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil && !isExit1(err) {
		return wall, 0, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		rss = ru.Maxrss
	}
	return wall, cpu, rss, nil
}

func gitIn(dir string, args ...string) error {
	args = append([]string{"-c", "user.name=Bench", "-c", "user.email=bench@example.com", "-c", "core.hooksPath=/dev/null"}, args...)
	if out, err := (git.Cmd{Dir: dir}).Combined(context.Background(), args...); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}

func appendFile(p, s string) {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return
	}
	f.WriteString(s)
	f.Close()
}
