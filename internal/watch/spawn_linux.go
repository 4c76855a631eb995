package watch

import (
	"fmt"
	"os/exec"
	"syscall"
)

// Spawn starts exe with args in folder dir as a detached daemon and
// returns without waiting for it: in a new session (no controlling
// terminal, so neither the terminal's hangup nor Ctrl-C reach it), with
// standard input, output and error on /dev/null (a caller whose output
// is piped is not kept waiting for EOF by the daemon), and no other
// descriptor (Go opens its own close-on-exec, and os/exec passes only
// the three).
//
// The child is reaped by a goroutine when it exits, rather than
// released: a long-lived caller such as the MCP server would otherwise
// collect a zombie for every daemon that idles out. The goroutine does not
// keep a short-lived caller from exiting.
func Spawn(exe string, args []string, dir string) error {
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("watch: start daemon: %w", err)
	}
	go cmd.Wait()
	return nil
}
