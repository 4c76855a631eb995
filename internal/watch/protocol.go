package watch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// protoVersion is the first word of every request and answer line that
// opens a message. A daemon left running by an older or newer
// git-contextfs answers a request it does not understand with an error,
// and the caller falls back to a full scan.
const protoVersion = "v1"

// maxRequestLine bounds what a server reads before it gives up on a
// client: a request is a verb and a token.
const maxRequestLine = 4096

// maxAnswerLine bounds one line of an answer: a quoted path can be four
// times as long as the path (\xff for every byte), and paths are at most
// PATH_MAX (4096) bytes.
const maxAnswerLine = 64 << 10

// Request operations.
const (
	opQuery  = "query"
	opStatus = "status"
	opStop   = "stop"
	opCall   = "call"
)

// maxCallPayload bounds a call's request; maxCallAnswer its answer. A call
// carries a command line and gets a command's output.
const (
	maxCallPayload = 1 << 20
	maxCallAnswer  = 64 << 20
)

// request is one parsed request line.
type request struct {
	op    string
	token string // query only; "" asks for a full answer
	name  string // call only: which handler
	size  int    // call only: payload bytes after the line
}

var errVersion = errors.New("unsupported protocol version")

// parseRequest parses one request line (without its newline):
//
//	v1 query [<token>]
//	v1 status
//	v1 stop
//
// Anything else is an error to be sent back to the client.
func parseRequest(line string) (request, error) {
	f := strings.Split(line, " ")
	if len(f) == 0 || f[0] != protoVersion {
		return request{}, fmt.Errorf("%w %.20q (want %s)", errVersion, f[0], protoVersion)
	}
	if len(f) < 2 {
		return request{}, errors.New("missing operation")
	}
	switch op, args := f[1], f[2:]; op {
	case opQuery:
		switch {
		case len(args) > 1:
			return request{}, errors.New("query: too many arguments")
		case len(args) == 1 && !validToken(args[0]):
			return request{}, errors.New("query: malformed token")
		case len(args) == 1:
			return request{op: op, token: args[0]}, nil
		}
		return request{op: op}, nil
	case opCall:
		if len(args) != 2 || !validToken(args[0]) {
			return request{}, errors.New("call: want a name and a payload size")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 || n > maxCallPayload {
			return request{}, errors.New("call: malformed payload size")
		}
		return request{op: op, name: args[0], size: n}, nil
	case opStatus, opStop:
		if len(args) > 0 {
			return request{}, fmt.Errorf("%s: unexpected argument", op)
		}
		return request{op: op}, nil
	default:
		return request{}, fmt.Errorf("unknown operation %.20q", op)
	}
}

// validToken accepts printable ASCII without spaces: any such token is
// answered (a foreign one with a full rescan), so that a cache holding a
// damaged token recovers by itself instead of failing forever.
func validToken(t string) bool {
	if t == "" || len(t) > 256 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] > '~' {
			return false
		}
	}
	return true
}

// writeErr sends an error answer. The message is kept to one line.
func writeErr(w *bufio.Writer, msg string) error {
	msg = strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, msg)
	fmt.Fprintf(w, "%s err %s\nend\n", protoVersion, msg)
	return w.Flush()
}

// writeChanges sends the answer to a query. Paths are quoted with
// strconv.Quote, which round-trips every byte string, so a file name with
// a newline or invalid UTF-8 cannot break the framing or be altered.
func writeChanges(w *bufio.Writer, c Changes) error {
	fmt.Fprintf(w, "%s ok\ntoken %s\n", protoVersion, c.Token)
	if c.Full {
		w.WriteString("full\n")
	}
	for _, p := range c.Paths {
		w.WriteString("file ")
		w.WriteString(strconv.Quote(p))
		w.WriteByte('\n')
	}
	for _, p := range c.Prefixes {
		w.WriteString("prefix ")
		w.WriteString(strconv.Quote(p))
		w.WriteByte('\n')
	}
	w.WriteString("end\n")
	return w.Flush()
}

// writeData sends the answer to a call: its payload, framed by its size so
// that it may hold any bytes.
//
//	v1 ok
//	data <n>
//	<n bytes>
//	end
func writeData(w *bufio.Writer, data []byte) error {
	fmt.Fprintf(w, "%s ok\ndata %d\n", protoVersion, len(data))
	w.Write(data)
	w.WriteString("\nend\n")
	return w.Flush()
}

// readData reads the answer to a call.
func readData(r *bufio.Reader) ([]byte, error) {
	head, err := readLine(r, maxAnswerLine)
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	word, rest, _ := strings.Cut(head, " ")
	if word != protoVersion {
		return nil, fmt.Errorf("%w %.20q in answer", errVersion, word)
	}
	if msg, ok := strings.CutPrefix(rest, "err "); ok {
		if _, err := readAnswerTail(r); err != nil {
			return nil, err
		}
		return nil, &CallError{Msg: msg}
	}
	if rest != "ok" {
		return nil, fmt.Errorf("malformed answer %.40q", head)
	}
	l, err := readLine(r, maxAnswerLine)
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", unexpected(err))
	}
	v, ok := strings.CutPrefix(l, "data ")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 0 || n > maxCallAnswer {
		return nil, fmt.Errorf("malformed answer line %.40q", l)
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("read answer: %w", unexpected(err))
	}
	if data[n] != '\n' {
		return nil, errors.New("malformed answer: data not followed by a newline")
	}
	if l, err := readLine(r, maxAnswerLine); err != nil || l != "end" {
		return nil, fmt.Errorf("read answer: no end line (%v)", unexpected(err))
	}
	return data[:n], nil
}

// readAnswerTail skips the lines of an answer up to its "end".
func readAnswerTail(r *bufio.Reader) ([]string, error) {
	var lines []string
	for {
		l, err := readLine(r, maxAnswerLine)
		if err != nil {
			return nil, fmt.Errorf("read answer: %w", unexpected(err))
		}
		if l == "end" {
			return lines, nil
		}
		lines = append(lines, l)
	}
}

// unexpected turns EOF in the middle of an answer into ErrUnexpectedEOF:
// the daemon died or gave up mid-answer.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// writeStatus sends the answer to a status request as "key value" lines.
func writeStatus(w *bufio.Writer, s DaemonStatus) error {
	fmt.Fprintf(w, "%s ok\n", protoVersion)
	fmt.Fprintf(w, "instance %s\n", s.Instance)
	fmt.Fprintf(w, "pid %d\n", s.PID)
	fmt.Fprintf(w, "root %s\n", strconv.Quote(s.Root))
	fmt.Fprintf(w, "dir %s\n", strconv.Quote(s.Dir))
	fmt.Fprintf(w, "started %s\n", s.Started.Format(time.RFC3339Nano))
	fmt.Fprintf(w, "lastrequest %s\n", s.LastRequest.Format(time.RFC3339Nano))
	fmt.Fprintf(w, "seq %d\n", s.Seq)
	fmt.Fprintf(w, "dirs %d\n", s.Dirs)
	fmt.Fprintf(w, "changes %d\n", s.Changes)
	if s.Degraded != "" {
		fmt.Fprintf(w, "degraded %s\n", strconv.Quote(s.Degraded))
	}
	w.WriteString("end\n")
	return w.Flush()
}

// writeOK sends the bare acknowledgement of a stop request.
func writeOK(w *bufio.Writer) error {
	fmt.Fprintf(w, "%s ok\nend\n", protoVersion)
	return w.Flush()
}

// readAnswer reads one answer up to its "end" line and returns the lines
// between the header and "end". An error answer becomes an error.
func readAnswer(r *bufio.Reader) ([]string, error) {
	head, err := readLine(r, maxAnswerLine)
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	word, rest, _ := strings.Cut(head, " ")
	if word != protoVersion {
		return nil, fmt.Errorf("%w %.20q in answer", errVersion, word)
	}
	var lines []string
	for {
		l, err := readLine(r, maxAnswerLine)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the daemon died or gave up mid-answer
		}
		if err != nil {
			return nil, fmt.Errorf("read answer: %w", err)
		}
		if l == "end" {
			break
		}
		lines = append(lines, l)
	}
	if msg, ok := strings.CutPrefix(rest, "err "); ok {
		return nil, fmt.Errorf("daemon: %s", msg)
	}
	if rest != "ok" {
		return nil, fmt.Errorf("malformed answer %.40q", head)
	}
	return lines, nil
}

// parseChanges interprets the lines of a query answer. An unknown line is
// an error, not something to skip: within v1 it could only be a kind of
// change this client does not know how to apply.
func parseChanges(lines []string) (Changes, error) {
	var c Changes
	for _, l := range lines {
		key, val, _ := strings.Cut(l, " ")
		switch key {
		case "token":
			c.Token = val
		case "full":
			c.Full = true
		case "file", "prefix":
			p, err := strconv.Unquote(val)
			if err != nil {
				return Changes{}, fmt.Errorf("malformed path in answer %.40q: %w", l, err)
			}
			if key == "file" {
				c.Paths = append(c.Paths, p)
			} else {
				c.Prefixes = append(c.Prefixes, p)
			}
		default:
			return Changes{}, fmt.Errorf("unexpected line in answer %.40q", l)
		}
	}
	if !validToken(c.Token) {
		return Changes{}, errors.New("answer without a token")
	}
	if c.Full {
		c.Paths, c.Prefixes = nil, nil
	}
	return c, nil
}

// parseStatus interprets the lines of a status answer; unknown keys are
// skipped so that a newer daemon can report more.
func parseStatus(lines []string) (DaemonStatus, error) {
	var s DaemonStatus
	for _, l := range lines {
		key, val, _ := strings.Cut(l, " ")
		var err error
		switch key {
		case "instance":
			s.Instance = val
		case "pid":
			s.PID, err = strconv.Atoi(val)
		case "root":
			s.Root, err = strconv.Unquote(val)
		case "dir":
			s.Dir, err = strconv.Unquote(val)
		case "started":
			s.Started, err = time.Parse(time.RFC3339Nano, val)
		case "lastrequest":
			s.LastRequest, err = time.Parse(time.RFC3339Nano, val)
		case "seq":
			s.Seq, err = strconv.ParseUint(val, 10, 64)
		case "dirs":
			s.Dirs, err = strconv.Atoi(val)
		case "changes":
			s.Changes, err = strconv.Atoi(val)
		case "degraded":
			s.Degraded, err = strconv.Unquote(val)
		}
		if err != nil {
			return DaemonStatus{}, fmt.Errorf("malformed status line %.40q: %w", l, err)
		}
	}
	return s, nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one '\n'-terminated line of at most max bytes, without
// the newline, so that a client or server sending garbage cannot make the
// other side buffer without bound.
func readLine(r *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(b)+len(frag) > max+1 {
			return "", errLineTooLong
		}
		b = append(b, frag...)
		switch {
		case err == nil:
			return string(b[:len(b)-1]), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(b) > 0:
			return "", io.ErrUnexpectedEOF
		default:
			return "", err
		}
	}
}
