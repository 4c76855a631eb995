package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/lineage"
	"github.com/contextfs/contextfs/internal/testgit"
	"github.com/contextfs/contextfs/internal/teststore"
	"github.com/contextfs/contextfs/internal/workflow"
)

// testPort is the port the in-process viewer believes it listens on:
// requests are addressed to it, as a browser would address them.
const testPort = 7766

// fixture is a repository with a few memories, committed, served by an
// in-process viewer.
type fixture struct {
	dir     string
	store   *contextfs.Store
	handler http.Handler
	// IDs of the memories: a decision, a fact linked to it, an old and a
	// new version of a procedure, and the hostile memory.
	decision, fact, oldProc, newProc, hostile string
}

// hostileTitle and hostileBody are a memory written to break out of the
// page: Markdown and HTML in the title, script and event handlers and a
// javascript: link in the body.
const (
	hostileTitle = `**Bold** <b>title</b> <script>window.pwned=1</script>`
	hostileBody  = "Body with <script>window.pwned=2</script> and <img src=x onerror=\"window.pwned=3\">\n\n" +
		"A [link](javascript:window.pwned=4) and <a href=\"javascript:alert(5)\">raw</a>.\n\n<iframe src=\"https://evil.example/\"></iframe>\n"
)

// isolate keeps a test's stores away from the developer's user store and
// config, and its git away from theirs.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("CONTEXTFS_USER_DIR", "")
	os.Unsetenv("CONTEXTFS_USER_DIR")
	t.Setenv("CONTEXTFS_WATCH", "off")
	testgit.Isolate(t)
	for _, kv := range testgit.Env()[len(os.Environ()):] {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	isolate(t)
	ctx := context.Background()
	dir := testgit.Init(t)
	s, err := contextfs.Open(ctx, contextfs.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Init(ctx); err != nil {
		t.Fatal(err)
	}
	f := &fixture{dir: dir, store: s}
	f.decision = teststore.SaveID(t, s, contextfs.SaveRequest{Type: "decision", Title: "Use pgx with a pool of 20 connections",
		Tags: []string{"db"}, Body: "We pool **20** connections per instance with pgx.", Paths: []string{"db/**"}})
	f.fact = teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Title: "Postgres allows 100 connections in production",
		Tags: []string{"db"}, Links: []string{"depends_on:" + f.decision}, Body: "max_connections is 100 on the production cluster."})
	f.oldProc = teststore.SaveID(t, s, contextfs.SaveRequest{Type: "procedural", Title: "Release checklist",
		Body: "1. Tag the release.\n2. Push the tag."})
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "Memories: the first ones")
	res, err := lineage.Evolve(ctx, s, f.oldProc, lineage.Change{Body: "1. Run the tests.\n2. Tag the release.\n3. Push the tag.", Reason: "correction"})
	if err != nil {
		t.Fatal(err)
	}
	f.newProc = res.Memory.ID
	f.hostile = teststore.SaveID(t, s, contextfs.SaveRequest{Type: "fact", Title: hostileTitle, Body: hostileBody})
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "Memories: the checklist runs the tests")
	svc := workflow.ForStore(s, nil, nil)
	t.Cleanup(func() { svc.Close() })
	br, err := svc.Browse(nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := newViewer(svc, br, viewerOptions{Host: "127.0.0.1", Port: testPort, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	f.handler = v.Handler()
	return f
}

// get asks the viewer for path with the Host header host ("" for the
// viewer's own address) and returns the answer and its body.
func (f *fixture) get(t *testing.T, method, path, host string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.Host = host
	if host == "" {
		req.Host = "127.0.0.1:7766"
	}
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, req)
	res := w.Result()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestPagesAnswerWithWhatTheyShow(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, path string
		want       []string
	}{
		// Counted as status counts: every memory file, superseded or not.
		{"the overview counts by type and lists recent memories", "/",
			[]string{"What the agents know", ">decision<", ">procedural<", "The context block an agent gets", "Use pgx with a pool of 20 connections", `id="repo-total">5<`}},
		{"the search ranks as the CLI does", "/search?q=pgx+pool",
			[]string{`<ol class="results">`, `href="/memory/` + f.decision + `"`, "Use pgx with a pool of 20 connections"}},
		{"the search filters by type", "/search?q=connections&type=fact",
			[]string{"Postgres allows 100 connections", `<option selected>fact</option>`}},
		{"a memory page renders the body and lists fields, links and history", "/memory/" + f.decision,
			[]string{"<strong>20</strong>", "<th>tags</th><td>db</td>", "<code>db/**</code>", "Postgres allows 100 connections in production",
				"depends_on", "Memories: the first ones", "Ada Lovelace"}},
		{"a memory page shows the link the other way too", "/memory/" + f.fact,
			[]string{`class="out"`, "depends_on", "Use pgx with a pool of 20 connections"}},
		{"an old version says it is superseded and by what", "/memory/" + f.oldProc,
			[]string{"superseded", `href="/memory/` + f.newProc + `"`, "supersedes"}},
		{"the history lists every version with its commits", "/memory/" + f.newProc + "/history",
			[]string{"History of", `href="/memory/` + f.oldProc + `"`, "current", "Memories: the checklist runs the tests", "Memories: the first ones"}},
		{"the graph draws the links in SVG", "/graph",
			[]string{"<svg", "<circle", `data-id="` + f.decision + `"`, `data-id="` + f.fact + `"`, `class="edge supersedes"`}},
		{"the graph around a memory", "/graph?id=" + f.fact,
			[]string{"Links around", `data-id="` + f.decision + `"`}},
		{"the branch page reports the default range", "/branch",
			[]string{"What this branch changes", "0 added, 0 changed"}},
		{"the sessions page says when there is none", "/sessions",
			[]string{"No ended session yet"}},
		{"the style sheet is served", "/static/style.css", []string{".node circle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := f.get(t, http.MethodGet, tt.path, "")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", tt.path, res.StatusCode, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: no %q in\n%s", tt.path, w, body)
				}
			}
			for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy"} {
				if res.Header.Get(h) == "" {
					t.Errorf("GET %s: no %s header", tt.path, h)
				}
			}
		})
	}
}

func TestAHostileMemoryRendersInert(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/memory/" + f.hostile, "/memory/" + f.hostile + "/history", "/", "/search?q=body+link"} {
		t.Run(path, func(t *testing.T) {
			res, body := f.get(t, http.MethodGet, path, "")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d\n%s", path, res.StatusCode, body)
			}
			// Nothing of the memory's own markup reaches the page as markup:
			// as text (escaped, in a snippet) it may.
			for _, bad := range []*regexp.Regexp{
				regexp.MustCompile(`(?i)<script`), regexp.MustCompile(`(?i)<img`), regexp.MustCompile(`(?i)<iframe`),
				regexp.MustCompile(`(?i)<[a-z][^>]*\son\w+\s*=`), regexp.MustCompile(`(?i)<[a-z][^>]*javascript:`),
				regexp.MustCompile(`(?i)<b>title`),
			} {
				if loc := bad.FindStringIndex(body); loc != nil {
					t.Errorf("GET %s: %s found: ...%s...", path, bad, body[max(0, loc[0]-80):min(len(body), loc[1]+80)])
				}
			}
			// The title is shown as the text it is, Markdown and all.
			if !strings.Contains(body, "**Bold** &lt;b&gt;title&lt;/b&gt; &lt;script&gt;window.pwned=1&lt;/script&gt;") {
				t.Errorf("GET %s: the title is not shown as text:\n%s", path, body)
			}
		})
	}
}

func TestRequestsForAnotherHostAreRefused(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, host string
		want       int
	}{
		{"the bound address", "127.0.0.1:7766", http.StatusOK},
		{"localhost on the port", "localhost:7766", http.StatusOK},
		{"LOCALHOST in capitals", "LOCALHOST:7766", http.StatusOK},
		{"a rebinding name", "evil.example:7766", http.StatusMisdirectedRequest},
		{"a rebinding name without a port", "evil.example", http.StatusMisdirectedRequest},
		{"a name under localhost", "localhost.evil.example:7766", http.StatusMisdirectedRequest},
		{"localhost on another port", "localhost:8080", http.StatusMisdirectedRequest},
		{"no host", "", http.StatusMisdirectedRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/memory/"+f.decision, nil)
			req.Host = tt.host
			w := httptest.NewRecorder()
			f.handler.ServeHTTP(w, req)
			if w.Code != tt.want {
				t.Fatalf("Host %q: %d, want %d", tt.host, w.Code, tt.want)
			}
			if tt.want != http.StatusOK && strings.Contains(w.Body.String(), "pgx") {
				t.Errorf("Host %q: a refused answer shows a memory:\n%s", tt.host, w.Body.String())
			}
		})
	}
}

func TestTheViewerWritesNothing(t *testing.T) {
	f := newFixture(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		res, _ := f.get(t, m, "/memory/"+f.decision, "")
		if res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, res.StatusCode)
		}
	}
	status := testgit.Run(t, f.dir, "status", "--porcelain")
	for _, p := range []string{"/", "/search?q=pgx", "/memory/" + f.decision, "/graph", "/branch", "/sessions"} {
		f.get(t, http.MethodGet, p, "")
	}
	if after := testgit.Run(t, f.dir, "status", "--porcelain"); after != status {
		t.Errorf("the work tree changed while pages were read:\nbefore %q\nafter  %q", status, after)
	}
}

func TestBadRequestsSayWhatIsWrong(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, path string
		want       int
		says       string
	}{
		{"an unknown type", "/search?q=x&type=nope", http.StatusBadRequest, "type &#34;nope&#34;"},
		{"an unknown kind", "/search?q=x&kind=blob", http.StatusBadRequest, "kind &#34;blob&#34;"},
		{"an unknown scope", "/search?q=x&scope=team", http.StatusBadRequest, "scope"},
		{"a limit out of range", "/search?q=x&limit=0", http.StatusBadRequest, "limit"},
		{"a depth out of range", "/graph?depth=9", http.StatusBadRequest, "depth"},
		{"an unknown memory", "/memory/zzzzzzzzzz", http.StatusNotFound, "zzzzzzzzzz"},
		{"an unknown repository", "/memory/" + "abc?repo=elsewhere", http.StatusNotFound, "elsewhere"},
		{"an unknown page", "/admin", http.StatusNotFound, "no page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := f.get(t, http.MethodGet, tt.path, "")
			if res.StatusCode != tt.want || !strings.Contains(body, tt.says) {
				t.Errorf("GET %s: %d, want %d saying %q:\n%s", tt.path, res.StatusCode, tt.want, tt.says, body)
			}
		})
	}
}

func TestAllowedHostFollowsTheAddress(t *testing.T) {
	tests := []struct {
		name, bound, host string
		want              bool
	}{
		{"loopback: an IP literal cannot be rebound", "127.0.0.1", "[::1]:7766", true},
		{"a named host is allowed by its name", "devbox.lan", "devbox.lan:7766", true},
		{"a named host refuses other names", "devbox.lan", "evil.example:7766", false},
		{"every interface: addresses are allowed", "0.0.0.0", "192.168.1.5:7766", true},
		{"every interface: names are not", "0.0.0.0", "evil.example:7766", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &viewer{opts: viewerOptions{Host: tt.bound, Port: testPort}}
			if got := v.allowedHost(tt.host); got != tt.want {
				t.Errorf("bound %s, Host %s: %v, want %v", tt.bound, tt.host, got, tt.want)
			}
		})
	}
}

func TestTheDefaultAddressIsLoopback(t *testing.T) {
	host, _, _ := strings.Cut(DefaultAddr, ":")
	if !isLoopback(host) {
		t.Fatalf("DefaultAddr %s is not loopback", DefaultAddr)
	}
}
