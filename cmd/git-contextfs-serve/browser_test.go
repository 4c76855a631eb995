package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/testgit"
)

// programs builds git-contextfs and git-contextfs-serve side by side, as
// make install puts them, once per test binary: `git-contextfs serve`
// finds the viewer beside itself.
var programs = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "contextfs-serve-bin-")
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", dir+string(filepath.Separator), "../git-contextfs", ".")
	var errb bytes.Buffer
	build.Stderr = &errb
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build git-contextfs and git-contextfs-serve: %v\n%s", err, errb.String())
	}
	return dir, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := programs(); err == nil && dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// binDir returns the folder of the built programs, building them first.
func binDir(t *testing.T) string {
	t.Helper()
	dir, err := programs()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// cli runs git-contextfs in dir and returns its standard output.
func cli(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command(filepath.Join(binDir(t), "git-contextfs"), args...)
	c.Dir = dir
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		t.Fatalf("git-contextfs %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// saveID saves a memory with the CLI and returns its ID.
func saveID(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var m struct{ ID string }
	if err := json.Unmarshal([]byte(cli(t, dir, append([]string{"save", "--json"}, args...)...)), &m); err != nil || m.ID == "" {
		t.Fatalf("save %v: no ID (%v)", args, err)
	}
	return m.ID
}

// demoRepo is the repository of the browser test and of the screenshots
// in docs/: a small team's memories, linked, one of them evolved, and a
// hostile one. It returns the folder and the IDs by name.
func demoRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := testgit.Init(t)
	cli(t, dir, "init")
	ids := map[string]string{}
	ids["arch"] = saveID(t, dir, "--type", "architecture", "--tag", "arch", "--title", "Services talk over NATS; the gateway is the only public entry",
		"Every service publishes and subscribes on NATS subjects named `svc.<name>.<event>`. Only the API gateway listens on a public port.")
	ids["fact"] = saveID(t, dir, "--type", "fact", "--tag", "db", "--title", "Postgres allows 200 connections in production",
		"`max_connections` is 200 on the production cluster, which five API instances share.")
	ids["pool"] = saveID(t, dir, "--type", "decision", "--tag", "db", "--path", "db/**", "--title", "Use pgx with a pool of 20 connections",
		"We pool **20** connections per instance with pgx.\n\npgbouncer in transaction mode added 3 ms per query and broke prepared statements.")
	ids["error"] = saveID(t, dir, "--type", "error", "--tag", "ci", "--title", "EADDRINUSE in the integration tests",
		"The tests bound port 5432 while a developer's Postgres ran. **Fix:** listen on port 0 and read the address back.")
	ids["release"] = saveID(t, dir, "--type", "procedural", "--tag", "release", "--title", "Release checklist",
		"1. `make test`\n2. Tag `vX.Y.Z` and push the tag.\n3. Check the deploy in the dashboard.")
	cli(t, dir, "link", ids["pool"], ids["fact"], "--rel", "depends_on")
	cli(t, dir, "link", ids["error"], ids["pool"], "--rel", "related")
	cli(t, dir, "link", ids["arch"], ids["pool"], "--rel", "references")
	cli(t, dir, "link", ids["release"], ids["error"], "--rel", "references")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "Memories: architecture, pool size, CI port clash, release")
	var evolved struct{ ID string }
	out := cli(t, dir, "evolve", ids["pool"], "--json", "--reason", "correction", "--title", "Use pgx with a pool of 40 connections",
		"We pool **40** connections per instance with pgx: five instances stay under `max_connections` 200.\n\npgbouncer in transaction mode added 3 ms per query and broke prepared statements.")
	if err := json.Unmarshal([]byte(out), &evolved); err != nil || evolved.ID == "" {
		t.Fatalf("evolve: no ID in %q (%v)", out, err)
	}
	ids["pool2"] = evolved.ID
	ids["hostile"] = saveID(t, dir, "--type", "fact", "--title", hostileTitle, hostileBody)
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "Memories: the pool grows to 40")
	return dir, ids
}

// startServe starts `git-contextfs serve args...` in dir and returns the
// URL it prints first; the viewer is stopped when the test ends.
func startServe(t *testing.T, dir string, args ...string) (url string, stderr *syncBuffer) {
	t.Helper()
	c := exec.Command(filepath.Join(binDir(t), "git-contextfs"), append([]string{"serve"}, args...)...)
	c.Dir = dir
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &syncBuffer{}
	c.Stderr = stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			c.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		s, _ := r.ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(io.Discard, r)
	}()
	select {
	case url = <-line:
	case <-time.After(120 * time.Second): // far above the second it takes
		t.Fatalf("serve printed no URL; stderr:\n%s", stderr)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("serve's first line is %q, not its URL; stderr:\n%s", url, stderr)
	}
	return url, stderr
}

// needBrowser returns node and the folder of the Playwright script, or
// skips the test with the reason (fails it under CI, which installs them).
func needBrowser(t *testing.T) (node, dir string) {
	t.Helper()
	dir, _ = filepath.Abs("../../tests/viewer")
	var missing []string
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		missing = append(missing, "Debian's chromium (/usr/bin/chromium: apt-get install chromium)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		missing = append(missing, "playwright-core (cd tests/viewer && npm ci)")
	}
	if len(missing) > 0 {
		msg := "the browser test needs " + strings.Join(missing, ", ")
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, dir
}

// artifacts is the folder the test's screenshots are kept in:
// $CONTEXTFS_TEST_ARTIFACTS/name (CI keeps it), else a temporary one.
func artifacts(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if root := os.Getenv("CONTEXTFS_TEST_ARTIFACTS"); root != "" {
		dir = filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// browserReport is what viewer.mjs saw.
type browserReport struct {
	Dialogs, PageErrors, RequestsElsewhere, Screenshots []string
	Home                                                struct{ H1, Total string }
	Search                                              struct {
		URL     string
		Results []string
	}
	Memory struct {
		URL, Title                        string
		BodyStrong                        []string
		Fields                            map[string]string
		OutLinks, InLinks, Chain, Commits []string
	}
	History struct {
		URL      string
		Versions []struct {
			Title   string
			Current bool
			Commits int
		}
	}
	Graph struct {
		Nodes         []string
		Edges, Dashed int
		Box           struct{ Width, Height float64 }
		Clicked       string
	}
	Hostile struct {
		Title                    string
		Pwned                    any
		Scripts, Iframes, Images int
		Links                    []*string
	}
}

func TestViewerInABrowser(t *testing.T) {
	node, script := needBrowser(t)
	isolate(t)
	dir, ids := demoRepo(t)
	url, stderr := startServe(t, dir, "--addr", "127.0.0.1:0")
	out := artifacts(t, "viewer")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, node, filepath.Join(script, "viewer.mjs"))
	c.Dir = script
	c.Env = append(os.Environ(), "VIEWER_URL="+url, "VIEWER_OUT="+out, "VIEWER_QUERY=pgx pool connections",
		"VIEWER_TITLE=Use pgx with a pool of 40 connections", "VIEWER_HOSTILE="+ids["hostile"])
	var so, se bytes.Buffer
	c.Stdout, c.Stderr = &so, &se
	if err := c.Run(); err != nil {
		t.Fatalf("viewer.mjs: %v\n%s\n%s\nserve's stderr:\n%s", err, se.String(), so.String(), stderr)
	}
	var r browserReport
	if err := json.Unmarshal(so.Bytes(), &r); err != nil {
		t.Fatalf("viewer.mjs printed no report: %v\n%s", err, so.String())
	}
	check := func(ok bool, format string, args ...any) {
		t.Helper()
		if !ok {
			t.Errorf(format, args...)
		}
	}
	check(r.Home.H1 == "What the agents know", "home: heading %q", r.Home.H1)
	check(r.Home.Total == "7", "home: %s memories counted, want 7", r.Home.Total)
	check(strings.Contains(r.Search.URL, "/search?q=pgx+pool+connections"), "search: at %s", r.Search.URL)
	check(len(r.Search.Results) > 0 && r.Search.Results[0] == "Use pgx with a pool of 40 connections",
		"search: the current pool decision is not first: %q", r.Search.Results)
	check(!slices.Contains(r.Search.Results, "Use pgx with a pool of 20 connections"), "search: the superseded version is shown: %q", r.Search.Results)
	check(strings.HasSuffix(r.Memory.URL, "/memory/"+ids["pool2"]), "memory: at %s, want %s", r.Memory.URL, ids["pool2"])
	check(r.Memory.Title == "Use pgx with a pool of 40 connections", "memory: title %q", r.Memory.Title)
	check(slices.Equal(r.Memory.BodyStrong, []string{"40"}), "memory: the body's Markdown is not rendered: %q", r.Memory.BodyStrong)
	check(r.Memory.Fields["tags"] == "db" && r.Memory.Fields["paths"] == "db/**" && r.Memory.Fields["reason"] == "correction",
		"memory: fields %v", r.Memory.Fields)
	check(len(r.Memory.OutLinks) == 1 && strings.Contains(r.Memory.OutLinks[0], "depends_on") && strings.Contains(r.Memory.OutLinks[0], "Postgres allows 200"),
		"memory: links from it %q", r.Memory.OutLinks)
	// The links to the old version stay with it; the new one has none in.
	check(len(r.Memory.Chain) == 1 && strings.Contains(r.Memory.Chain[0], "supersedes Use pgx with a pool of 20 connections"),
		"memory: chain %q", r.Memory.Chain)
	check(len(r.Memory.Commits) == 1 && strings.Contains(r.Memory.Commits[0], "Memories: the pool grows to 40") && strings.Contains(r.Memory.Commits[0], "Ada Lovelace"),
		"memory: commits %q", r.Memory.Commits)
	check(len(r.History.Versions) == 2 && r.History.Versions[0].Title == "Use pgx with a pool of 20 connections" && !r.History.Versions[0].Current &&
		r.History.Versions[1].Current && r.History.Versions[0].Commits == 1 && r.History.Versions[1].Commits == 1,
		"history: versions %+v", r.History.Versions)
	for _, k := range []string{"arch", "fact", "pool", "pool2", "error", "release"} {
		check(slices.Contains(r.Graph.Nodes, ids[k]), "graph: no node for %s (%s) in %q", k, ids[k], r.Graph.Nodes)
	}
	check(!slices.Contains(r.Graph.Nodes, ids["hostile"]), "graph: the unlinked memory is drawn")
	// Four links, the new version's copy of the old one's depends_on, and
	// the supersedes edge.
	check(r.Graph.Edges == 6 && r.Graph.Dashed == 1, "graph: %d edges (%d dashed), want 6 (1)", r.Graph.Edges, r.Graph.Dashed)
	check(r.Graph.Box.Width > 600 && r.Graph.Box.Height > 300, "graph: drawn %vx%v", r.Graph.Box.Width, r.Graph.Box.Height)
	check(len(r.Graph.Nodes) > 0 && strings.HasSuffix(r.Graph.Clicked, "/memory/"+r.Graph.Nodes[0]), "graph: clicking a node went to %s", r.Graph.Clicked)
	check(r.Hostile.Title == hostileTitle, "hostile: title shown as %q", r.Hostile.Title)
	check(r.Hostile.Pwned == nil && len(r.Dialogs) == 0, "hostile: its script ran (window.pwned=%v, dialogs %q)", r.Hostile.Pwned, r.Dialogs)
	check(r.Hostile.Scripts == 0 && r.Hostile.Iframes == 0 && r.Hostile.Images == 0, "hostile: %d scripts, %d iframes, %d images on the page",
		r.Hostile.Scripts, r.Hostile.Iframes, r.Hostile.Images)
	for _, h := range r.Hostile.Links {
		check(h == nil || !strings.Contains(strings.ToLower(*h), "javascript:"), "hostile: a javascript: link %q", *h)
	}
	check(len(r.RequestsElsewhere) == 0, "the pages asked other hosts: %q", r.RequestsElsewhere)
	check(len(r.PageErrors) == 0, "page errors: %q", r.PageErrors)
	for _, name := range []string{"home.png", "search.png", "memory.png", "history.png", "graph.png", "hostile.png"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		check(err == nil && bytes.HasPrefix(b, []byte("\x89PNG")), "screenshot %s: %v", name, err)
	}
}

func TestServeRefusesAnotherHostAndIsNotReachableElsewhere(t *testing.T) {
	isolate(t)
	dir := testgit.Init(t)
	cli(t, dir, "init")
	url, stderr := startServe(t, dir, "--addr", "127.0.0.1:0")
	hostport := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	ask := func(host string) string {
		conn, err := net.DialTimeout("tcp", hostport, 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host)
		status, _ := bufio.NewReader(conn).ReadString('\n')
		return strings.TrimSpace(status)
	}
	if s := ask("evil.example"); !strings.Contains(s, " 421 ") {
		t.Errorf("Host: evil.example answered %q, want 421", s)
	}
	if s := ask(hostport); !strings.Contains(s, " 200 ") {
		t.Errorf("Host: %s answered %q, want 200", hostport, s)
	}
	// Bound to loopback, the port is closed on the machine's other
	// addresses.
	_, port, _ := net.SplitHostPort(hostport)
	addrs, _ := net.InterfaceAddrs()
	tried := 0
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		tried++
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), port), 10*time.Second)
		if err == nil {
			conn.Close()
			t.Errorf("the viewer answers on %s", ipn.IP)
		}
	}
	if tried == 0 {
		t.Log("no non-loopback address to try")
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("a loopback viewer warned:\n%s", stderr)
	}
}

func TestServeWarnsWhenNotOnLoopback(t *testing.T) {
	isolate(t)
	dir := testgit.Init(t)
	cli(t, dir, "init")
	c := exec.Command(filepath.Join(binDir(t), "git-contextfs-serve"), "--addr", "0.0.0.0:0")
	c.Dir = dir
	stdout, _ := c.StdoutPipe()
	// A file, not a pipe: the viewer writes the warning before the URL, and
	// only a file the process writes itself keeps that order for the test
	// (a pipe's copying goroutine may not have run when the URL arrives).
	errf, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	c.Stderr = errf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Signal(os.Interrupt); c.Wait() }()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Errorf("first line %q, want a URL a browser on this machine can open", line)
	}
	warned, err := os.ReadFile(errf.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(warned), "not the loopback interface") {
		t.Errorf("no warning on stderr: %q", warned)
	}
}

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
