package embed

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contextfs/contextfs/internal/buildinfo"
	"github.com/contextfs/contextfs/internal/sibling"
)

// ProgramName is the program that makes the HTTP requests of provider
// openai. git-contextfs does not link net/http: Go initialises every
// linked package at start, and net/http with its TLS stack was a quarter
// of what `git contextfs --version` cost beyond a trivial program. As git
// keeps HTTPS in git-remote-https, an openai embedder starts this program
// on its first Embed, keeps it for the life of the process, and speaks to
// it over a pipe (docs/DESIGN.md, "Start-up"; package embed/openai is the
// client it runs).
const ProgramName = "git-contextfs-embed"

// ProtocolVersion is the version of the pipe protocol between an openai
// embedder and ProgramName. The embedder passes it as --protocol; a
// program of another build that speaks another version refuses to start,
// and says so, rather than misread the requests.
//
// The protocol: a request is one line of JSON, {"texts":[...]}. Its
// answer is one line of JSON, {"n":N,"dim":D}, followed by N×D float32s,
// little-endian, vector after vector; or {"error":"...","unavailable":B}
// when the request failed, B saying whether ErrUnavailable matches. The
// program exits when its standard input ends.
const ProtocolVersion = 1

// EnvProgramKey is the variable in which an openai embedder hands its API
// key to ProgramName: in the environment, unlike a flag, the key is not
// shown to other users by ps.
const EnvProgramKey = "CONTEXTFS_EMBED_PROGRAM_KEY"

// maxDim bounds the dimension an answer may declare, so that a broken
// program cannot make the embedder allocate without limit; the largest
// models in use have 4,096.
const maxDim = 1 << 16

// maxPrograms is the most programs one embedder runs at once: callers
// that embed concurrently (the index's workers) each get one, as they got
// a connection of their own when the client ran in the process.
const maxPrograms = 4

// program is the openai Embedder of New: the HTTP client runs in
// ProgramName, started on the first Embed and kept for the next. Each
// call has a program to itself, up to maxPrograms at once; a call whose
// context ends kills its program, and a later call starts another.
type program struct {
	st   HTTPSettings
	path string // the program, found on first use when empty

	slots chan struct{} // one per call in progress, maxPrograms at most
	mu    sync.Mutex
	idle  []*proc // started, alive as far as we know, and not in use

	dim atomic.Int64
}

func newProgram(cfg Config) (*program, error) {
	st, err := cfg.HTTPSettings()
	if err != nil {
		return nil, err
	}
	return &program{st: st, path: cfg.Program, slots: make(chan struct{}, maxPrograms)}, nil
}

// Model identifies the vector space by the server's model name. It cannot
// include the dimension, which is unknown until the server answers; a model
// name denotes one dimension on any one server.
func (p *program) Model() string { return "openai/" + p.st.Model }

// Dim is 0 until the first successful answer reveals the dimension.
func (p *program) Dim() int { return int(p.dim.Load()) }

// Embed has a program embed texts and returns the vectors in order.
func (p *program) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: POST %s: %w", p.st.URL, err)
	}
	pr, reused, err := p.take()
	if err != nil {
		return nil, err
	}
	vecs, err, dead := p.call(ctx, pr, texts)
	if dead && reused && ctx.Err() == nil {
		// A program kept from an earlier call may have exited since (it
		// was killed, or crashed on another request); embedding is
		// idempotent, so ask a new one once before failing.
		if pr, err = p.start(); err != nil {
			return nil, err
		}
		vecs, err, dead = p.call(ctx, pr, texts)
	}
	if !dead {
		p.mu.Lock()
		p.idle = append(p.idle, pr)
		p.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	// Each program checks that its answers keep one dimension; this holds
	// the dimension across programs.
	dim := int64(len(vecs[0]))
	if !p.dim.CompareAndSwap(0, dim) {
		if want := p.dim.Load(); dim != want {
			return nil, fmt.Errorf("embed: POST %s: embedding 0 has dimension %d, want %d as before; has model %q changed?",
				p.st.URL, dim, want, p.st.Model)
		}
	}
	return vecs, nil
}

// take returns an idle program, or a new one; reused says which.
func (p *program) take() (pr *proc, reused bool, err error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		pr = p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return pr, true, nil
	}
	p.mu.Unlock()
	pr, err = p.start()
	return pr, false, err
}

// call makes one round trip on pr; dead reports that pr stopped (or was
// killed when ctx ended) and must not be used again.
func (p *program) call(ctx context.Context, pr *proc, texts []string) (vecs [][]float32, err error, dead bool) {
	type result struct {
		vecs [][]float32
		err  error
		dead bool
	}
	done := make(chan result, 1)
	go func() {
		vecs, err, dead := pr.roundTrip(texts)
		done <- result{vecs, err, dead}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		pr.kill() // the round trip then fails at once
		<-done
		return nil, fmt.Errorf("embed: POST %s: %w", p.st.URL, ctx.Err()), true
	}
	if r.dead {
		pr.kill()
	}
	return r.vecs, r.err, r.dead
}

// Close ends the programs not in use and waits for them; call it when no
// Embed runs. A later Embed starts another.
func (p *program) Close() error {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, pr := range idle {
		pr.in.Close() // the program exits at the end of its input
		exited := make(chan struct{})
		go func() { pr.wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			pr.cmd.Process.Kill()
			<-exited
		}
	}
	return nil
}

// ProgramEmbedder is an Embedder that makes its requests through
// ProgramName: provider openai's, as New returns it. doctor reports on its
// program without starting it.
type ProgramEmbedder interface {
	Embedder
	// Program returns the path of the program that would make the
	// requests, or an error that says it is not installed and how to
	// install it. It starts nothing.
	Program() (string, error)
	// Endpoint is the server's embeddings URL.
	Endpoint() string
}

var _ ProgramEmbedder = (*program)(nil)

// Program is ProgramEmbedder's: the program's path, or why it is missing.
func (p *program) Program() (string, error) {
	if p.path != "" {
		return p.path, nil
	}
	path, err := sibling.Find(ProgramName)
	if err != nil {
		var nf *sibling.NotFoundError
		if errors.As(err, &nf) {
			return "", fmt.Errorf("embed: provider openai makes its HTTP requests through the program %s, but %w.\n%s",
				ProgramName, err, sibling.InstallHint(ProgramName, "", buildinfo.Version()))
		}
		return "", fmt.Errorf("embed: %w", err)
	}
	return path, nil
}

// Endpoint is ProgramEmbedder's: the server's embeddings URL.
func (p *program) Endpoint() string { return p.st.URL }

// start starts a program.
func (p *program) start() (*proc, error) {
	path, err := p.Program()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path,
		"--protocol", strconv.Itoa(ProtocolVersion),
		"--url", p.st.URL,
		"--model", p.st.Model,
		"--batch", strconv.Itoa(p.st.BatchSize),
		"--timeout", p.st.Timeout.String())
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, EnvProgramKey+"=") })
	cmd.Env = append(env, EnvProgramKey+"="+p.st.APIKey)
	pr := &proc{cmd: cmd, errs: &tail{max: 4 << 10}}
	cmd.Stderr = pr.errs
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("embed: start %s: %w", path, err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("embed: start %s: %w", path, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("embed: start %s: %w", path, err)
	}
	pr.in, pr.out = in, bufio.NewReaderSize(out, 64<<10)
	return pr, nil
}

// proc is one run of the program.
type proc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	errs *tail

	waitOnce sync.Once
	waitErr  error
}

// kill ends the program at once and waits for it.
func (pr *proc) kill() {
	pr.cmd.Process.Kill()
	pr.in.Close()
	pr.wait()
}

// wait waits for the program to exit, once.
func (pr *proc) wait() error {
	pr.waitOnce.Do(func() { pr.waitErr = pr.cmd.Wait() })
	return pr.waitErr
}

// request and answer are the protocol's JSON lines (ProtocolVersion).
type request struct {
	Texts []string `json:"texts"`
}

type answer struct {
	N           int    `json:"n,omitempty"`
	Dim         int    `json:"dim,omitempty"`
	Error       string `json:"error,omitempty"`
	Unavailable bool   `json:"unavailable,omitempty"`
}

// roundTrip sends one request and reads its answer. dead reports that the
// program can take no more requests: it exited, or broke the protocol.
func (pr *proc) roundTrip(texts []string) (vecs [][]float32, err error, dead bool) {
	line, err := json.Marshal(request{Texts: texts})
	if err != nil {
		return nil, fmt.Errorf("embed: encoding request: %w", err), false
	}
	if _, err := pr.in.Write(append(line, '\n')); err != nil {
		return nil, pr.failed(err), true
	}
	vecs, a, err := readAnswer(pr.out, len(texts))
	var bad *protocolError
	switch {
	case errors.As(err, &bad):
		return nil, pr.broke(bad.what), true
	case err != nil:
		return nil, pr.failed(err), true
	case a.Error != "":
		err := errors.New(a.Error)
		if a.Unavailable {
			err = Unavailable(err)
		}
		return nil, err, false
	}
	return vecs, nil, false
}

// protocolError is an answer that breaks the protocol.
type protocolError struct{ what string }

func (e *protocolError) Error() string { return e.what }

// readAnswer reads the answer to a request of n texts: the vectors, or
// the answer's error; an error of its own is the pipe's, or a
// *protocolError.
func readAnswer(r *bufio.Reader, n int) ([][]float32, answer, error) {
	head, err := r.ReadBytes('\n')
	if err != nil {
		return nil, answer{}, err
	}
	var a answer
	if err := json.Unmarshal(head, &a); err != nil {
		return nil, a, &protocolError{fmt.Sprintf("answered %.100q", head)}
	}
	if a.Error != "" {
		return nil, a, nil
	}
	if a.N != n || a.Dim <= 0 || a.Dim > maxDim {
		return nil, a, &protocolError{fmt.Sprintf("answered %d vectors of dimension %d for %d texts", a.N, a.Dim, n)}
	}
	raw := make([]byte, 4*a.N*a.Dim)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, a, err
	}
	flat := make([]float32, a.N*a.Dim)
	for i := range flat {
		flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	vecs := make([][]float32, a.N)
	for i := range vecs {
		vecs[i] = flat[i*a.Dim : (i+1)*a.Dim : (i+1)*a.Dim]
	}
	return vecs, a, nil
}

// failed explains a pipe that broke: the program exited, and what it
// wrote to its standard error says why.
func (pr *proc) failed(cause error) error {
	pr.in.Close()
	status := pr.wait()
	msg := strings.TrimSpace(pr.errs.String())
	switch {
	case msg != "" && status != nil:
		return fmt.Errorf("embed: %s stopped (%v): %s", pr.cmd.Path, status, msg)
	case status != nil:
		return fmt.Errorf("embed: %s stopped (%v)", pr.cmd.Path, status)
	case msg != "":
		return fmt.Errorf("embed: %s stopped: %s", pr.cmd.Path, msg)
	}
	return fmt.Errorf("embed: %s stopped: %w", pr.cmd.Path, cause)
}

// broke explains an answer outside the protocol, most likely from a
// program of another build.
func (pr *proc) broke(what string) error {
	return fmt.Errorf("embed: %s %s, which is not protocol %d; install git-contextfs and %s from one build (make install)",
		pr.cmd.Path, what, ProtocolVersion, ProgramName)
}

// tail keeps the last max bytes written to it: the program's standard
// error, quoted when it stops.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Serve is ProgramName's side of the protocol: it answers, with e, the
// requests read from r, writing the answers to w, until r ends. It
// returns an error only when r or w fails or a request is not protocol
// ProtocolVersion; an embedding that fails is answered as such.
func Serve(ctx context.Context, r io.Reader, w io.Writer, e Embedder) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF && len(strings.TrimSpace(string(line))) == 0 {
			return nil
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("embed: reading a request: %w", err)
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("embed: a request that is not protocol %d: %w", ProtocolVersion, err)
		}
		vecs, err := e.Embed(ctx, req.Texts)
		if err == nil {
			err = sameDim(vecs, len(req.Texts))
		}
		if err != nil {
			a, _ := json.Marshal(answer{Error: err.Error(), Unavailable: errors.Is(err, ErrUnavailable)})
			bw.Write(append(a, '\n'))
		} else {
			dim := 0
			if len(vecs) > 0 {
				dim = len(vecs[0])
			}
			a, _ := json.Marshal(answer{N: len(vecs), Dim: dim})
			bw.Write(append(a, '\n'))
			var b [4]byte
			for _, v := range vecs {
				for _, f := range v {
					binary.LittleEndian.PutUint32(b[:], math.Float32bits(f))
					bw.Write(b[:])
				}
			}
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("embed: writing an answer: %w", err)
		}
	}
}

// sameDim checks that vecs holds n vectors of one, non-zero dimension, as
// the protocol's answer declares one.
func sameDim(vecs [][]float32, n int) error {
	if len(vecs) != n {
		return fmt.Errorf("embed: the embedder returned %d vectors for %d texts", len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) == 0 || len(v) != len(vecs[0]) || len(v) > maxDim {
			return fmt.Errorf("embed: vector %d has dimension %d, vector 0 %d", i, len(v), len(vecs[0]))
		}
	}
	return nil
}
