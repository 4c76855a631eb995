package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Frame limits of the stdio transport. A memory is at most a few hundred
// kilobytes, so a tool call never needs megabytes; the nesting bound sits
// far above any real request and far below what costs a parser dearly.
const (
	// DefaultMaxFrame is the longest frame (one line) read by default.
	DefaultMaxFrame = 8 << 20
	// DefaultMaxDepth is the deepest JSON nesting accepted by default.
	DefaultMaxDepth = 128
)

// Transport is a newline-delimited JSON-RPC transport that survives bad
// input: a frame that is not JSON, not a JSON-RPC message, too long or
// nested too deep is answered with a JSON-RPC error and the next frame is
// read, where the SDK's stdio transport stops the session (an agent would
// lose its memory tools for the rest of its work). When the input ends,
// Read waits until every call already read has been answered, so a client
// that writes its requests and closes stdin still gets every reply. A
// request that reuses the id of one not yet answered is answered with an
// invalid-request error and not run; the first is answered as usual.
type Transport struct {
	// In and Out carry the frames; NewStdioTransport uses stdin and stdout.
	In  io.Reader
	Out io.Writer
	// MaxFrame bounds one frame in bytes; 0 means DefaultMaxFrame. A longer
	// frame is skipped without being buffered.
	MaxFrame int
	// MaxDepth bounds the nesting of one frame; 0 means DefaultMaxDepth.
	MaxDepth int
}

// NewStdioTransport returns a Transport over the process's stdin and stdout.
func NewStdioTransport() *Transport {
	return &Transport{In: os.Stdin, Out: os.Stdout}
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{
		out:      t.Out,
		incoming: make(chan frameOrErr),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
		drained:  make(chan struct{}, 1),
	}
	if cl, ok := t.In.(io.Closer); ok {
		c.in = cl
	}
	fr := &frameReader{r: bufio.NewReaderSize(t.In, 64<<10), max: cmpOr(t.MaxFrame, DefaultMaxFrame), depth: cmpOr(t.MaxDepth, DefaultMaxDepth)}
	go c.readLoop(fr)
	return c, nil
}

func cmpOr(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// FrameError is a frame the transport answers itself instead of passing
// it to the server: Code is the JSON-RPC error code and ID the request's
// id when one could be read (JSON null otherwise).
type FrameError struct {
	Code    int64
	Message string
	ID      json.RawMessage
}

func (e *FrameError) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// frameReader splits a stream into newline-delimited frames without ever
// holding more than max bytes of one.
type frameReader struct {
	r     *bufio.Reader
	max   int
	depth int
	buf   []byte
}

// next returns the next non-blank frame, a *FrameError for a frame that
// is too long (its bytes are skipped), or the reader's error (io.EOF at
// the end; a last frame without a newline is still returned).
func (fr *frameReader) next() ([]byte, error) {
	for {
		fr.buf = fr.buf[:0]
		tooLong := false
		for {
			chunk, err := fr.r.ReadSlice('\n')
			if !tooLong {
				if len(fr.buf)+len(chunk) > fr.max+2 { // +2: the line ending
					tooLong = true
					fr.buf = fr.buf[:0]
				} else {
					fr.buf = append(fr.buf, chunk...)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if tooLong {
				fe := &FrameError{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("frame longer than %d bytes", fr.max)}
				if err != nil && !errors.Is(err, io.EOF) {
					return nil, err
				}
				return nil, fe
			}
			line := bytes.TrimSpace(fr.buf)
			if len(line) > 0 {
				return line, nil
			}
			if err != nil {
				return nil, err
			}
			break // a blank line: read the next
		}
	}
}

// ParseFrame decodes one frame into a JSON-RPC message, or says with a
// *FrameError why it cannot be served: -32700 for bytes that are not JSON,
// -32600 for JSON that is not one JSON-RPC message or is nested deeper
// than maxDepth.
func ParseFrame(line []byte, maxDepth int) (jsonrpc.Message, *FrameError) {
	if d := jsonDepth(line, maxDepth); d > maxDepth {
		return nil, &FrameError{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("JSON nested deeper than %d levels", maxDepth)}
	}
	if !json.Valid(line) {
		return nil, &FrameError{Code: jsonrpc.CodeParseError, Message: "parse error: the frame is not valid JSON"}
	}
	if line[0] == '[' {
		return nil, &FrameError{Code: jsonrpc.CodeInvalidRequest, Message: "JSON-RPC batches are not supported; send one message per line"}
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, &FrameError{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error(), ID: frameID(line)}
	}
	return msg, nil
}

// jsonDepth returns the nesting depth of the JSON text b, stopping early
// once it exceeds limit; brackets inside strings do not count.
func jsonDepth(b []byte, limit int) int {
	depth, most := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			if depth > most {
				most = depth
				if most > limit {
					return most
				}
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}

// frameID returns the id of a malformed request when it is a valid
// JSON-RPC id, so the client can match the error to its call.
func frameID(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	switch v.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return v.ID
	}
	return nil
}

type frameOrErr struct {
	msg jsonrpc.Message
	err error
}

// conn is the mcp.Connection of a Transport.
type conn struct {
	in       io.Closer // closed with the connection when it can be
	out      io.Writer
	writeMu  sync.Mutex
	incoming chan frameOrErr
	closed   chan struct{}
	once     sync.Once

	// initialized is set once an initialize request has been read; only
	// Read touches it.
	initialized bool

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not yet answered
	drained chan struct{}       // signalled when pending becomes empty
}

// readLoop reads frames until the input ends, answers the bad ones and
// hands the good ones to Read.
func (c *conn) readLoop(fr *frameReader) {
	for {
		line, err := fr.next()
		var msg jsonrpc.Message
		if err == nil {
			var fe *FrameError
			if msg, fe = ParseFrame(line, fr.depth); fe != nil {
				err = fe
			}
		}
		if fe, ok := errors.AsType[*FrameError](err); ok {
			if werr := c.writeError(fe); werr != nil {
				err = werr
			} else {
				continue
			}
		}
		select {
		case c.incoming <- frameOrErr{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var v frameOrErr
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case v = <-c.incoming:
		}
		if v.err != nil {
			c.drain(ctx)
			return nil, v.err
		}
		req, ok := v.msg.(*jsonrpc.Request)
		if !ok {
			return v.msg, nil
		}
		if req.Method == "initialize" {
			c.initialized = true
		} else if req.IsCall() && !c.initialized && req.Method != "ping" && !newProtocol(req) {
			id, _ := json.Marshal(req.ID.Raw())
			fe := &FrameError{Code: jsonrpc.CodeInvalidRequest, ID: id,
				Message: fmt.Sprintf("%s before initialize: the session must start with an initialize request", req.Method)}
			if err := c.writeError(fe); err != nil {
				return nil, err
			}
			continue
		}
		if req.IsCall() {
			c.mu.Lock()
			dup := c.pending[req.ID]
			if !dup {
				c.pending[req.ID] = true
			}
			c.mu.Unlock()
			if dup {
				// The SDK drops a request whose id is in flight without a
				// word, and the client waits forever. The id stays the
				// first request's, which is still answered; this one gets
				// an error the client can match to it.
				id, _ := json.Marshal(req.ID.Raw())
				fe := &FrameError{Code: jsonrpc.CodeInvalidRequest, ID: id,
					Message: fmt.Sprintf("request id %s is already in use by a request not yet answered; use a new id", id)}
				if err := c.writeError(fe); err != nil {
					return nil, err
				}
				continue
			}
		}
		return req, nil
	}
}

// newProtocol reports whether req follows the sessionless protocol, which
// names its version in _meta and needs no initialize.
func newProtocol(req *jsonrpc.Request) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	_, ok := p.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

// drain waits until every call read so far has been answered, the
// connection is closed or ctx is done.
func (c *conn) drain(ctx context.Context) {
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.drained:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Write implements mcp.Connection.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode json-rpc message: %w", err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeLine(data)
	}
	// The id is freed under the same lock as the answer is written: a
	// client may reuse it as soon as it reads the answer, and Read must
	// not find it still in flight then.
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.writeLine(data); err != nil {
		return err
	}
	delete(c.pending, resp.ID)
	if len(c.pending) == 0 {
		select {
		case c.drained <- struct{}{}:
		default:
		}
	}
	return nil
}

// writeError answers a frame the server never sees.
func (c *conn) writeError(fe *FrameError) error {
	id := fe.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{fe.Code, fe.Message}})
	if err != nil {
		return fmt.Errorf("encode json-rpc error: %w", err)
	}
	return c.writeLine(data)
}

func (c *conn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.out.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write json-rpc frame: %w", err)
	}
	return nil
}

// Close implements mcp.Connection.
func (c *conn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		if c.in != nil && c.in != os.Stdin {
			c.in.Close()
		}
	})
	return nil
}

// SessionID implements mcp.Connection; a stdio session has none.
func (c *conn) SessionID() string { return "" }
