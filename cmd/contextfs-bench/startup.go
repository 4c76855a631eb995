package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// trivialCgo is the baseline of the start-up row: the smallest program
// that links the C runtime, as git-contextfs does.
const trivialCgo = `package main

// int one(void) { return 1; }
import "C"

import "os"

func main() {
	if C.one() != 1 {
		os.Exit(1)
	}
	os.Stdout.WriteString("trivial\n")
}
`

// benchStartup times `git-contextfs --version` against a trivial cgo
// binary built in the same run, alternating the two so both see the same
// machine. CPU time (user + system, from getrusage of the child) is the
// figure the target is set on: it is steadier than wall time on a shared
// machine.
func benchStartup(bin string, runs int) error {
	dir, err := os.MkdirTemp("", "contextfs-bench-startup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(trivialCgo), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module trivial\n\ngo 1.24\n"), 0o644); err != nil {
		return err
	}
	trivial := filepath.Join(dir, "trivial")
	build := exec.Command("go", "build", "-o", trivial, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the trivial cgo binary: %v: %s", err, out)
	}
	var cfsCPU, cfsWall, trCPU, trWall []time.Duration
	for range runs {
		w, c, err := cpuCmd(dir, bin, "--version")
		if err != nil {
			return err
		}
		cfsWall, cfsCPU = append(cfsWall, w), append(cfsCPU, c)
		w, c, err = cpuCmd(dir, trivial)
		if err != nil {
			return err
		}
		trWall, trCPU = append(trWall, w), append(trCPU, c)
	}
	fmt.Println("## Process start")
	fmt.Println()
	fmt.Println("`git-contextfs --version` against a trivial cgo binary built in the same run, alternating. CPU is user + system time from getrusage. The target: `--version` CPU p50 ≤ 1.5 × the trivial binary's.")
	fmt.Println()
	fmt.Println("| program | runs | CPU p50 | wall p50 / p99 |")
	fmt.Println("| --- | ---: | ---: | ---: |")
	fmt.Printf("| `git-contextfs --version` | %d | %s | %s |\n", runs, ms(pct(cfsCPU, 0.5)), pp(cfsWall))
	fmt.Printf("| trivial cgo binary | %d | %s | %s |\n", runs, ms(pct(trCPU, 0.5)), pp(trWall))
	fmt.Printf("| ratio of CPU p50s | | %.2f× | |\n", float64(pct(cfsCPU, 0.5))/float64(pct(trCPU, 0.5)))
	fmt.Println()
	return nil
}

// cpuCmd runs one command to exit and returns its wall time and the CPU
// time (user + system) the kernel accounted to it.
func cpuCmd(dir, name string, args ...string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil && !isExit1(err) {
		return wall, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, out)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return wall, cpu, nil
}
