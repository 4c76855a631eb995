package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contextfs/contextfs/internal/embed"
)

// fakeServer implements the OpenAI embeddings endpoint with deterministic
// vectors: the vector of a text is [len(text), first byte, dim-1 ones...].
// It lists results in reverse order, as a server is free to, so that
// clients that trust the order rather than the index fail.
type fakeServer struct {
	t   *testing.T
	dim int

	mu       sync.Mutex
	batches  [][]string // inputs of each request, in arrival order
	auth     []string   // Authorization header of each request
	models   []string
	ctypes   []string
	override http.HandlerFunc // if set, answers instead
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.override != nil {
		f.override(w, r)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"no route"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.batches = append(f.batches, req.Input)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.models = append(f.models, req.Model)
	f.ctypes = append(f.ctypes, r.Header.Get("Content-Type"))
	dim := f.dim
	f.mu.Unlock()

	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, item{"embedding", i, fakeVector(req.Input[i], dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func fakeVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	v[0] = float32(len(text))
	if len(text) > 0 && dim > 1 {
		v[1] = float32(text[0])
	}
	for i := 2; i < dim; i++ {
		v[i] = 1
	}
	return v
}

func newFake(t *testing.T, dim int) (*fakeServer, *httptest.Server) {
	f := &fakeServer{t: t, dim: dim}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// programPath is git-contextfs-embed, built by TestMain.
var programPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "contextfs-embed-test-")
	if err != nil {
		panic(err)
	}
	programPath = filepath.Join(dir, embed.ProgramName)
	build := exec.Command("go", "build", "-o", programPath, "../../../cmd/git-contextfs-embed")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("build git-contextfs-embed: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// clientFunc makes an embedder of the server cfg names.
type clientFunc func(t *testing.T, cfg embed.Config) embed.Embedder

// bothWays runs f with each way to reach a server: this package's Client,
// in the process, and embed.New's openai embedder, which runs the same
// Client in git-contextfs-embed (the way git-contextfs does). The two must
// not differ in anything a caller sees: vectors, errors, their messages.
func bothWays(t *testing.T, f func(t *testing.T, newClient clientFunc)) {
	t.Run("in-process", func(t *testing.T) {
		f(t, func(t *testing.T, cfg embed.Config) embed.Embedder {
			t.Helper()
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			return c
		})
	})
	t.Run("through-the-program", func(t *testing.T) {
		f(t, func(t *testing.T, cfg embed.Config) embed.Embedder {
			t.Helper()
			cfg.Provider, cfg.Program = embed.ProviderOpenAI, programPath
			e, err := embed.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := e.(interface{ Close() error }); ok {
				t.Cleanup(func() { c.Close() })
			}
			return e
		})
	})
}

func TestOpenAIBatchesAndKeepsOrder(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		tests := []struct {
			name        string
			texts       int
			batchSize   int
			wantBatches []int
		}{
			{"fewer texts than a batch is one request", 3, 5, []int{3}},
			{"exact multiple fills every batch", 6, 3, []int{3, 3}},
			{"remainder goes in a last short batch", 10, 3, []int{3, 3, 3, 1}},
			{"default batch size is 64", 130, 0, []int{64, 64, 2}},
			{"no texts is no request", 0, 3, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f, srv := newFake(t, 4)
				e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1", Model: "all-minilm", BatchSize: tt.batchSize})
				var texts []string
				for i := range tt.texts {
					texts = append(texts, fmt.Sprintf("text number %d", i)+strings.Repeat("x", i))
				}
				got, err := e.Embed(context.Background(), texts)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(texts) {
					t.Fatalf("got %d vectors for %d texts", len(got), len(texts))
				}
				for i, text := range texts {
					if !slices.Equal(got[i], fakeVector(text, 4)) {
						t.Errorf("vector %d = %v, want %v (the vector of %q)", i, got[i], fakeVector(text, 4), text)
					}
				}
				var sizes []int
				var sent []string
				for _, b := range f.batches {
					sizes = append(sizes, len(b))
					sent = append(sent, b...)
				}
				if !slices.Equal(sizes, tt.wantBatches) {
					t.Errorf("batch sizes = %v, want %v", sizes, tt.wantBatches)
				}
				if !slices.Equal(sent, texts) {
					t.Error("texts were not sent in order")
				}
			})
		}
	})
}

func TestOpenAIRequest(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		tests := []struct {
			name     string
			apiKey   string
			wantAuth string
		}{
			{"API key is sent as a Bearer token", "sk-test-123", "Bearer sk-test-123"},
			{"no API key sends no Authorization header", "", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f, srv := newFake(t, 3)
				e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1/", Model: "text-embedding-3-small", APIKey: tt.apiKey})
				if _, err := e.Embed(context.Background(), []string{"hello"}); err != nil {
					t.Fatal(err)
				}
				if f.auth[0] != tt.wantAuth {
					t.Errorf("Authorization = %q, want %q", f.auth[0], tt.wantAuth)
				}
				if f.models[0] != "text-embedding-3-small" {
					t.Errorf("model = %q, want text-embedding-3-small", f.models[0])
				}
				if f.ctypes[0] != "application/json" {
					t.Errorf("Content-Type = %q, want application/json", f.ctypes[0])
				}
			})
		}
	})
}

func TestOpenAIIdentityAndDimension(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		_, srv := newFake(t, 384)
		e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1"})
		if got, want := e.Model(), "openai/all-minilm"; got != want {
			t.Errorf("Model() = %q, want %q (default model)", got, want)
		}
		if got := e.Dim(); got != 0 {
			t.Errorf("Dim() before any call = %d, want 0", got)
		}
		if _, err := e.Embed(context.Background(), []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if got := e.Dim(); got != 384 {
			t.Errorf("Dim() after a call = %d, want 384", got)
		}
	})
}

func TestOpenAIServerErrors(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		tests := []struct {
			name        string
			status      int
			body        string
			want        []string // substrings of the error
			unavailable bool     // matches embed.ErrUnavailable: callers fall back
		}{
			{"OpenAI error object is quoted", http.StatusUnauthorized,
				`{"error":{"message":"Incorrect API key provided: sk-bad.","type":"invalid_request_error","code":"invalid_api_key"}}`,
				[]string{"401 Unauthorized", "Incorrect API key provided: sk-bad."}, false},
			{"Ollama error string is quoted", http.StatusNotFound,
				`{"error":"model \"nomic\" not found, try pulling it first"}`,
				[]string{"404 Not Found", `model "nomic" not found, try pulling it first`}, false},
			{"plain text body is quoted", http.StatusInternalServerError,
				"upstream exploded\n",
				[]string{"500 Internal Server Error", "upstream exploded"}, false},
			{"long body is truncated", http.StatusBadGateway,
				strings.Repeat("bad gateway ", 100),
				[]string{"502 Bad Gateway", "…"}, true},
			{"empty body gives the status alone", http.StatusServiceUnavailable,
				"",
				[]string{"503 Service Unavailable"}, true},
			{"a gateway timeout is unavailable", http.StatusGatewayTimeout,
				"",
				[]string{"504 Gateway Timeout"}, true},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f, srv := newFake(t, 3)
				f.override = func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(tt.status)
					fmt.Fprint(w, tt.body)
				}
				e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1"})
				_, err := e.Embed(context.Background(), []string{"hello"})
				if err == nil {
					t.Fatal("Embed succeeded against a failing server")
				}
				for _, want := range append(tt.want, srv.URL+"/v1/embeddings") {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not contain %q", err, want)
					}
				}
				if len(err.Error()) > 600 {
					t.Errorf("error is %d bytes long, want the body truncated", len(err.Error()))
				}
				if got := errors.Is(err, embed.ErrUnavailable); got != tt.unavailable {
					t.Errorf("errors.Is(err, embed.ErrUnavailable) = %v, want %v", got, tt.unavailable)
				}
			})
		}
	})
}

func TestOpenAIRejectsBadResponses(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		tests := []struct {
			name string
			body string
			want string
		}{
			{"fewer embeddings than inputs", `{"data":[{"index":0,"embedding":[1,2]}]}`, "got 1 embeddings for 2 inputs"},
			{"index out of range", `{"data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]}`, "index 2 out of range"},
			{"duplicate index", `{"data":[{"index":1,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`, "index 1 appears twice"},
			{"empty embedding", `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[1,2]}]}`, "embedding 0 is empty"},
			{"dimensions differ within a response", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`, "dimension"},
			{"body is not JSON", `<html>proxy login</html>`, "decoding response"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f, srv := newFake(t, 3)
				f.override = func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tt.body) }
				e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1"})
				_, err := e.Embed(context.Background(), []string{"a", "b"})
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("Embed error = %v, want one containing %q", err, tt.want)
				}
			})
		}
	})
}

func TestOpenAIRejectsDimensionChangeBetweenCalls(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		f, srv := newFake(t, 8)
		e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1", Model: "m"})
		if _, err := e.Embed(context.Background(), []string{"first"}); err != nil {
			t.Fatal(err)
		}
		f.mu.Lock()
		f.dim = 16 // the server swapped models behind the same name
		f.mu.Unlock()
		_, err := e.Embed(context.Background(), []string{"second"})
		if err == nil || !strings.Contains(err.Error(), "dimension 16, want 8") {
			t.Errorf("Embed error = %v, want a dimension mismatch 16 vs 8", err)
		}
		if e.Dim() != 8 {
			t.Errorf("Dim() = %d after a rejected response, want 8", e.Dim())
		}
	})
}

func TestOpenAIHonoursContext(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		release := make(chan struct{})
		defer close(release)
		f, srv := newFake(t, 3)
		f.override = func(w http.ResponseWriter, r *http.Request) {
			select { // hang until the client gives up
			case <-r.Context().Done():
			case <-release:
			}
		}
		tests := []struct {
			name    string
			ctx     func() (context.Context, context.CancelFunc)
			wantErr error
		}{
			{"cancel while waiting", func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(50*time.Millisecond, cancel)
				return ctx, cancel
			}, context.Canceled},
			{"deadline while waiting", func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 50*time.Millisecond)
			}, context.DeadlineExceeded},
			{"cancelled before the call sends nothing", func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}, context.Canceled},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1"})
				ctx, cancel := tt.ctx()
				defer cancel()
				// The server holds every request until the test ends, so an
				// answer at all proves the context ended the call; the wait
				// is bounded at 200 times the 50 ms deadline only so that a
				// client that ignores it fails here instead of hanging.
				errc := make(chan error, 1)
				go func() {
					_, err := e.Embed(ctx, []string{"hello"})
					errc <- err
				}()
				select {
				case err := <-errc:
					if !errors.Is(err, tt.wantErr) {
						t.Errorf("Embed error = %v, want %v", err, tt.wantErr)
					}
				case <-time.After(200 * 50 * time.Millisecond):
					t.Fatal("Embed still waits for the server after its context ended")
				}
			})
		}
	})
}

func TestOpenAITimeout(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		release := make(chan struct{})
		defer close(release)
		f, srv := newFake(t, 3)
		f.override = func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
		e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1", Timeout: 50 * time.Millisecond})
		_, err := e.Embed(context.Background(), []string{"hello"})
		if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") || !errors.Is(err, embed.ErrUnavailable) {
			t.Errorf("Embed error = %v, want a timeout naming 50ms that is embed.ErrUnavailable", err)
		}
	})
}

func TestOpenAIUnreachableServerSaysHowToStartOne(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL + "/v1"
		srv.Close() // nothing listens on the port now
		e := newClient(t, embed.Config{BaseURL: url, Model: "nomic-embed-text"})
		_, err := e.Embed(context.Background(), []string{"hello"})
		if err == nil {
			t.Fatal("Embed succeeded with no server")
		}
		for _, want := range []string{url + "/embeddings", "cannot reach", "ollama serve", "ollama pull nomic-embed-text", "CONTEXTFS_EMBED_URL"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		}
		if !errors.Is(err, embed.ErrUnavailable) {
			t.Errorf("error %q is not embed.ErrUnavailable", err)
		}
	})
}

func TestOpenAIErrorNamesFailingBatch(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		var calls int
		var mu sync.Mutex
		inner := &fakeServer{t: t, dim: 3}
		f, srv := newFake(t, 3)
		f.override = func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls++
			n := calls
			mu.Unlock()
			if n == 2 {
				http.Error(w, `{"error":"out of memory"}`, http.StatusInternalServerError)
				return
			}
			inner.ServeHTTP(w, r)
		}
		e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1", BatchSize: 2})
		_, err := e.Embed(context.Background(), []string{"a", "b", "c", "d", "e"})
		if err == nil || !strings.Contains(err.Error(), "texts 2-3 of 5") || !strings.Contains(err.Error(), "out of memory") {
			t.Errorf("Embed error = %v, want it to name texts 2-3 of 5 and the server's message", err)
		}
	})
}

func TestOpenAIIsSafeForConcurrentUse(t *testing.T) {
	bothWays(t, func(t *testing.T, newClient clientFunc) {
		_, srv := newFake(t, 5)
		e := newClient(t, embed.Config{BaseURL: srv.URL + "/v1", BatchSize: 2})
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Go(func() {
				texts := []string{fmt.Sprint("g", g), "shared", "x"}
				got, err := e.Embed(context.Background(), texts)
				if err != nil {
					errs <- err
					return
				}
				for i := range texts {
					if !slices.Equal(got[i], fakeVector(texts[i], 5)) {
						errs <- fmt.Errorf("goroutine %d: vector %d is wrong", g, i)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func TestNewOpenAIDefaults(t *testing.T) {
	tests := []struct {
		name    string
		cfg     embed.Config
		wantURL string
	}{
		{"default URL is Ollama's", embed.Config{}, "http://localhost:11434/v1/embeddings"},
		{"trailing slash is dropped", embed.Config{BaseURL: "https://api.openai.com/v1/"}, "https://api.openai.com/v1/embeddings"},
		{"endpoint URL is used as is", embed.Config{BaseURL: "http://127.0.0.1:8080/v1/embeddings"}, "http://127.0.0.1:8080/v1/embeddings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if o.url != tt.wantURL {
				t.Errorf("url = %q, want %q", o.url, tt.wantURL)
			}
			if o.batch != embed.DefaultBatchSize || o.client.Timeout != embed.DefaultTimeout {
				t.Errorf("batch, timeout = %d, %v; want %d, %v", o.batch, o.client.Timeout, embed.DefaultBatchSize, embed.DefaultTimeout)
			}
		})
	}
}
