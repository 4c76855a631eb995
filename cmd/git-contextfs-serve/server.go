package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/internal/workflow"
)

// The pages' templates and style sheet are compiled in: the viewer is one
// file to install, and serves nothing from the disk but memories.
//
//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// contentSecurityPolicy lets a page load only what the viewer itself
// serves: no script runs at all (the viewer has none), an inline <script>
// or style= that a memory smuggled past escaping would be refused by the
// browser, and images in memories' Markdown are not fetched from other
// hosts (which would tell them who reads what).
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// viewerOptions configure newViewer.
type viewerOptions struct {
	// Host is the host --addr named ("" or 0.0.0.0 for every interface)
	// and Port the port listened on: requests must be addressed to them.
	Host string
	Port int
	// Log receives the stack of a page that panicked; nil discards.
	Log     io.Writer
	Version string
}

// viewer serves the pages. Every page reads through the service
// (package workflow, its Browser), as the CLI and the MCP server do, and
// writes nothing but the disposable cache.
type viewer struct {
	svc   *workflow.Service
	opts  viewerOptions
	log   io.Writer
	pages map[string]*template.Template
	md    goldmark.Markdown

	// mu serializes the pages' reads: a store brings its cache up to date
	// on read, and one store is not meant to sync from two goroutines.
	mu sync.Mutex
	// browse reads the pages' data, and keeps the registered
	// repositories it opened; guarded by mu.
	browse *workflow.Browser
}

// pageNames are the templates of the pages, each rendered inside
// templates/layout.html.
var pageNames = []string{"home", "search", "memory", "history", "graph", "branch", "sessions", "error"}

// newViewer returns the viewer of the stores of svc, read through b; it
// closes b when it is closed.
func newViewer(svc *workflow.Service, b *workflow.Browser, o viewerOptions) (*viewer, error) {
	v := &viewer{svc: svc, browse: b, opts: o, log: o.Log, pages: map[string]*template.Template{}}
	if v.log == nil {
		v.log = io.Discard
	}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		v.pages[name] = t
	}
	// goldmark's HTML renderer without html.WithUnsafe: raw HTML in a
	// memory is left out ("<!-- raw HTML omitted -->") and links with
	// dangerous schemes (javascript:, vbscript:, data: other than images)
	// lose their target. Memories are untrusted text.
	v.md = goldmark.New(goldmark.WithExtensions(extension.GFM))
	return v, nil
}

// Close closes the registered repositories the viewer opened.
func (v *viewer) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.browse.Close()
}

// URL is the address of the home page, with a host a browser can reach.
func (v *viewer) URL() string {
	host := v.opts.Host
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(v.opts.Port)) + "/"
}

// Handler returns the viewer's pages behind its guard.
func (v *viewer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", v.page("home", v.home))
	mux.HandleFunc("GET /search", v.page("search", v.search))
	mux.HandleFunc("GET /memory/{id}", v.page("memory", v.memoryPage))
	mux.HandleFunc("GET /memory/{id}/history", v.page("history", v.history))
	mux.HandleFunc("GET /graph", v.page("graph", v.graph))
	mux.HandleFunc("GET /branch", v.page("branch", v.branch))
	mux.HandleFunc("GET /sessions", v.page("sessions", v.sessions))
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		v.render(w, http.StatusNotFound, "error", errorPage{Status: http.StatusNotFound, Message: "no page at " + r.URL.Path})
	})
	return v.guard(mux)
}

// guard sets the security headers of every answer and refuses what the
// viewer must not answer: a request addressed to another host (DNS
// rebinding: a page of evil.example whose name now resolves to 127.0.0.1
// would otherwise read the memories) and any method that could write.
func (v *viewer) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if !v.allowedHost(r.Host) {
			http.Error(w, fmt.Sprintf("misdirected request: this viewer answers only requests for %s or localhost:%d", v.URL(), v.opts.Port), http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the viewer is read-only: "+r.Method+" is not allowed", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether a request's Host header names the viewer:
// the port listened on, with localhost, the host of --addr, or an IP
// address. DNS rebinding needs a name the attacker controls; an address
// typed as such cannot be rebound.
func (v *viewer) allowedHost(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != strconv.Itoa(v.opts.Port) {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case host == "localhost":
		return true
	case v.opts.Host != "" && host == strings.ToLower(v.opts.Host):
		return true
	}
	return net.ParseIP(host) != nil
}

// badRequest is a page asked for with a parameter it cannot take (400).
type badRequest struct{ error }

// noRepository is a page that needs the repository store, opened outside
// a repository.
var errNoRepository = errors.New("the viewer was started outside a git repository: this page shows a repository's memories")

// handler makes the data of a page, or fails.
type handler func(ctx context.Context, r *http.Request) (any, error)

// page serves the page name with the data h makes, rendered into a buffer
// first so that a failure is an error page, not half a page. The stores
// are read one page at a time, and a panic is an error page too.
func (v *viewer) page(name string, h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, err := func() (data any, err error) {
			v.mu.Lock()
			defer v.mu.Unlock()
			defer func() {
				if p := recover(); p != nil {
					fmt.Fprintf(v.log, "git-contextfs serve: %s panicked: %v\n%s", r.URL.Path, p, debug.Stack())
					err = fmt.Errorf("internal error: %v", p)
				}
			}()
			return h(r.Context(), r)
		}()
		if err != nil {
			status := http.StatusInternalServerError
			var br badRequest
			var amb *contextfs.AmbiguousError
			switch {
			case errors.As(err, &br):
				status = http.StatusBadRequest
			case errors.Is(err, contextfs.ErrNotFound), errors.As(err, &amb):
				status = http.StatusNotFound
			}
			v.render(w, status, "error", errorPage{Status: status, Message: err.Error()})
			return
		}
		v.render(w, http.StatusOK, name, data)
	}
}

// layoutData is what the layout reads around every page.
type layoutData struct {
	Page    string
	Title   string
	Version string
	Root    string
	Data    any
}

// titler is a page's data that names the page.
type titler interface{ PageTitle() string }

// errorPage is the data of the error page.
type errorPage struct {
	Status  int
	Message string
}

// PageTitle names the page after the status.
func (e errorPage) PageTitle() string { return http.StatusText(e.Status) }

// render writes the page name with data and the status.
func (v *viewer) render(w http.ResponseWriter, status int, name string, data any) {
	ld := layoutData{Page: name, Version: v.opts.Version, Data: data}
	if t, ok := data.(titler); ok {
		ld.Title = t.PageTitle()
	}
	if repo := v.svc.Repo(); repo != nil {
		ld.Root = repo.Repo.Root
	}
	var buf bytes.Buffer
	if err := v.pages[name].ExecuteTemplate(&buf, "layout", ld); err != nil {
		fmt.Fprintf(v.log, "git-contextfs serve: render %s: %v\n", name, err)
		http.Error(w, "internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderMarkdown renders a memory's Markdown body as HTML that holds no
// markup of the memory's own (see newViewer). goldmark has panicked on
// inputs found by fuzzing; a body it cannot render is shown as text.
func (v *viewer) renderMarkdown(src string) (out template.HTML) {
	defer func() {
		if p := recover(); p != nil {
			out = template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
		}
	}()
	var buf bytes.Buffer
	if err := v.md.Convert([]byte(src), &buf); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(src) + "</pre>")
	}
	return template.HTML(buf.String()) // goldmark escaped it: no raw HTML, no unsafe links
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"short": func(id string) string {
		if len(id) > 10 {
			return id[:10]
		}
		return id
	},
	"when": when,
	"sha": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
	"join": strings.Join,
	"memoryURL": func(id string, where ...string) string {
		return memoryURL(id, where...)
	},
	"score": func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
}

// memoryURL is the page of the memory id; where, when given, is the query
// that says which store holds it ("repo=NAME", "scope=user").
func memoryURL(id string, where ...string) string {
	u := "/memory/" + url.PathEscape(id)
	if len(where) > 0 && where[0] != "" {
		u += "?" + where[0]
	}
	return u
}

// when is a time as the pages show it: local, to the minute; "" for none.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04")
}
