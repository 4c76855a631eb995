// Package openai is the HTTP client of the embedding provider "openai": it
// calls any server that speaks OpenAI's /v1/embeddings protocol (Ollama,
// LM Studio, the llama.cpp server, OpenAI itself).
//
// git-contextfs does not link it. Go initialises every linked package at
// start, and net/http with its TLS stack was a quarter of what a
// `git contextfs --version` cost beyond a trivial program; so, as git keeps
// HTTPS in git-remote-https, the CLI's openai embedder (embed.New) runs
// this client in the program git-contextfs-embed and speaks to it over a
// pipe (docs/DESIGN.md, "Start-up"). A Go program that would rather make
// the requests itself passes New's Client as contextfs.Options.Embedder.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/contextfs/contextfs/internal/embed"
)

// Response size limits. A batch of 64 vectors of 3,072 floats is about
// 4 MB of JSON; the limit only stops a broken server from exhausting
// memory. Error bodies are read just far enough to quote them.
const (
	maxResponseBytes = 256 << 20
	maxErrorBytes    = 64 << 10
	maxQuotedError   = 300
)

// Client is an embed.Embedder backed by an OpenAI-compatible
// /v1/embeddings server. Its only mutable state is the dimension learnt
// from the first response, kept in an atomic so Embed may run concurrently.
type Client struct {
	url    string
	model  string
	apiKey string
	batch  int
	client *http.Client
	dim    atomic.Int64
}

// New returns a client for the server cfg names, with embed's defaults for
// what cfg leaves out. It does not contact the server: one that cannot be
// reached fails the first Embed, with a hint on how to start it.
func New(cfg embed.Config) (*Client, error) {
	st, err := cfg.HTTPSettings()
	if err != nil {
		return nil, err
	}
	return &Client{
		url:    st.URL,
		model:  st.Model,
		apiKey: st.APIKey,
		batch:  st.BatchSize,
		client: &http.Client{Timeout: st.Timeout},
	}, nil
}

// Model identifies the vector space by the server's model name. It cannot
// include the dimension, which is unknown until the server answers; a model
// name denotes one dimension on any one server.
func (o *Client) Model() string { return "openai/" + o.model }

// Dim is 0 until the first successful response reveals the dimension.
func (o *Client) Dim() int { return int(o.dim.Load()) }

// Embed sends texts in batches of at most BatchSize and returns the vectors
// in the order of texts, whatever order the server lists them in.
func (o *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += o.batch {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("embed: POST %s: %w", o.url, err)
		}
		end := min(start+o.batch, len(texts))
		vecs, err := o.post(ctx, texts[start:end])
		if err != nil {
			if len(texts) > o.batch {
				err = fmt.Errorf("%w (texts %d-%d of %d)", err, start, end-1, len(texts))
			}
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type embeddingRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type embeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// post embeds one batch.
func (o *Client) post(ctx context.Context, batch []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingRequest{Model: o.model, Input: batch})
	if err != nil {
		return nil, fmt.Errorf("embed: encoding request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embed: POST %s: %w", o.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.apiKey)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, o.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("embed: POST %s: %s%s", o.url, resp.Status, serverMessage(resp.Body))
		switch resp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			// A proxy with nothing behind it, or a server still starting.
			return nil, embed.Unavailable(err)
		}
		return nil, err
	}
	var r embeddingResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(&r); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("embed: POST %s: %w", o.url, ctx.Err())
		}
		return nil, fmt.Errorf("embed: POST %s: decoding response: %w", o.url, err)
	}
	return o.order(r, len(batch))
}

// order checks a response against the batch it answers and returns its
// vectors by index. Every vector must have the dimension of the first one
// this embedder ever received: vectors of two sizes cannot be compared, and
// a server that changes size has changed model under the same name.
func (o *Client) order(r embeddingResponse, n int) ([][]float32, error) {
	if len(r.Data) != n {
		return nil, fmt.Errorf("embed: POST %s: got %d embeddings for %d inputs", o.url, len(r.Data), n)
	}
	vecs := make([][]float32, n)
	for _, d := range r.Data {
		switch {
		case d.Index < 0 || d.Index >= n:
			return nil, fmt.Errorf("embed: POST %s: embedding index %d out of range [0, %d)", o.url, d.Index, n)
		case vecs[d.Index] != nil:
			return nil, fmt.Errorf("embed: POST %s: embedding index %d appears twice", o.url, d.Index)
		case len(d.Embedding) == 0:
			return nil, fmt.Errorf("embed: POST %s: embedding %d is empty", o.url, d.Index)
		}
		dim := int64(len(d.Embedding))
		if !o.dim.CompareAndSwap(0, dim) {
			if want := o.dim.Load(); dim != want {
				return nil, fmt.Errorf("embed: POST %s: embedding %d has dimension %d, want %d as before; has model %q changed?",
					o.url, d.Index, dim, want, o.model)
			}
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, nil
}

// transportError explains a failed request: cancellation as such, and a
// server that cannot be reached with a hint on starting one, since a local
// server that is not running is by far the commonest cause.
func (o *Client) transportError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("embed: POST %s: %w", o.url, ctxErr)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return embed.Unavailable(fmt.Errorf("embed: POST %s: no answer within %v; is the server overloaded, or the model still loading? (%w)",
			o.url, o.client.Timeout, err))
	}
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) && opErr.Op == "dial" || errors.As(err, &dnsErr) {
		return embed.Unavailable(fmt.Errorf("embed: POST %s: cannot reach the embedding server: %w; is it running? "+
			"For Ollama, start it with `ollama serve` and fetch the model with `ollama pull %s`, "+
			"or set %s to the server's URL", o.url, err, o.model, embed.EnvURL))
	}
	return fmt.Errorf("embed: POST %s: %w", o.url, err)
}

// serverMessage extracts the error message from an error response body:
// OpenAI's {"error":{"message":...}}, Ollama's {"error":"..."}, or failing
// those the start of the body as text. It returns "" or ": message".
func serverMessage(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, maxErrorBytes))
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(b, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case v.Message != "":
			msg = v.Message
		}
	}
	if msg == "" {
		msg = string(b)
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxQuotedError {
		cut := maxQuotedError
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	if msg == "" {
		return ""
	}
	return ": " + msg
}
