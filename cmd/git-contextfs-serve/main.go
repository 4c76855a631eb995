// Command git-contextfs-serve is the contextfs memory viewer, the program
// that `git contextfs serve` runs: a read-only web site, on the loopback
// interface by default, that shows what the agents of a repository are
// fed (docs/VIEWER.md). It is a program of its own so that git-contextfs,
// which starts for every command and git hook, links no HTTP server
// (docs/DESIGN.md, "Start-up").
//
// It prints the address it serves on as the first line of standard output,
// then serves until interrupted. Exit codes, as git-contextfs's: 0 when
// interrupted; 1 when it fails; 2 when the command line is wrong.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/buildinfo"
	"github.com/contextfs/contextfs/internal/sibling"
	"github.com/contextfs/contextfs/internal/warm"
	"github.com/contextfs/contextfs/internal/workflow"
)

// version is this build's version, as git-contextfs's is (package
// buildinfo): the Makefile sets it for every program at once.
var version = buildinfo.Version()

// DefaultAddr is where the viewer listens without --addr: the loopback
// interface only, on a fixed port so that a bookmarked page still works.
const DefaultAddr = "127.0.0.1:7766"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks a command-line mistake (exit 2).
type usageError struct{ error }

// options are the command line of the viewer.
type options struct {
	dir   string
	addr  string
	open  bool
	repos []string
}

// run runs the viewer with the command line args and returns the exit
// code.
func run(args []string, out, errOut io.Writer) int {
	o := options{}
	cmd := &cobra.Command{
		Use:   "git-contextfs-serve",
		Short: "The contextfs memory viewer; run it as git contextfs serve",
		Long: `Serves a read-only web viewer of the memories of the repository around the
current directory (or --repo) and of your user store: counts and the context
block an agent gets, search, each memory with its links, supersedes chain
and git history, a graph of links, what the branch changes and the working
sessions. "git contextfs serve" runs this program, which is installed beside
git-contextfs; docs/VIEWER.md describes the pages.

It listens on ` + DefaultAddr + ` (the loopback interface only) unless --addr
says otherwise, answers only requests addressed to that host (or localhost),
and prints its URL on the first line of standard output.`,
		Example: `  git contextfs serve
  git contextfs serve --open
  git contextfs serve --addr 127.0.0.1:0 --repos all`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("takes no arguments, got %q\nUsage: %s", args[0], c.UseLine())}
			}
			return nil
		},
		RunE: func(c *cobra.Command, _ []string) error {
			if o.dir != "" {
				if fi, err := os.Stat(o.dir); err != nil || !fi.IsDir() {
					return fmt.Errorf("%s: no such folder", o.dir)
				}
			}
			if v := os.Getenv(sibling.VersionEnv); v != "" && v != version {
				fmt.Fprintf(errOut, "warning: git-contextfs %s started git-contextfs-serve %s; install both from one build (make install)\n", v, version)
			}
			return serve(c.Context(), o, out, errOut)
		},
	}
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	f := cmd.Flags()
	f.StringVarP(&o.dir, "repo", "C", "", "serve the repository around `DIR`")
	f.StringVar(&o.addr, "addr", DefaultAddr, "listen on `HOST:PORT` (port 0: any free port)")
	f.BoolVar(&o.open, "open", false, "open the viewer in the web browser")
	f.StringSliceVar(&o.repos, "repos", nil, "search registered repositories too: all, or `NAME,...`")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nSee '%s -h'.", err, c.CommandPath())}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(errOut, "git-contextfs serve: "+err.Error())
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// serve opens the stores, listens on o.addr and serves until ctx ends.
func serve(ctx context.Context, o options, out, errOut io.Writer) error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr %q: %w (write HOST:PORT, as in 127.0.0.1:7766)", o.addr, err)}
	}
	// git-contextfs's change watcher, started as its own commands start
	// it, lets the viewer's reads see edits without rescanning every file.
	svc, err := workflow.Open(ctx, contextfs.Options{Dir: o.dir, Notices: errOut, StartWatcher: warm.SpawnSiblingWatcher}, errOut)
	if err != nil {
		return err
	}
	defer svc.Close()
	b, err := svc.Browse(o.repos)
	if ie, ok := errors.AsType[*workflow.InputError](err); ok {
		return usageError{fmt.Errorf("--repos: %w", ie.Err)}
	}
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (pass --addr 127.0.0.1:0 for any free port)", o.addr, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !isLoopback(host) {
		fmt.Fprintf(errOut, "warning: serving on %s, which is not the loopback interface: other machines may reach the viewer and read every memory it shows\n", ln.Addr())
	}
	v, err := newViewer(svc, b, viewerOptions{Host: host, Port: addr.Port, Log: errOut, Version: version})
	if err != nil {
		ln.Close()
		return err
	}
	defer v.Close()
	url := v.URL()
	// The first line of standard output is the URL, for people and for
	// the programs (tests, editors) that start the viewer.
	if _, err := fmt.Fprintln(out, url); err != nil {
		ln.Close()
		return err
	}
	if o.open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(errOut, "warning: cannot open a browser (%v); open %s\n", err, url)
		}
	}
	srv := &http.Server{Handler: v.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	return nil
}

// isLoopback reports whether host (as --addr names it) is the loopback
// interface: localhost, 127.0.0.0/8 or ::1. "" and 0.0.0.0 mean every
// interface.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// openBrowser asks the desktop to open url, without waiting for it.
func openBrowser(url string) error {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return errors.New("not supported on Windows")
	}
	c := exec.Command(name, url)
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait() //nolint:errcheck // the browser's exit is not ours to report
	return nil
}
