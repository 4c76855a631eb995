package watch

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		line    string
		want    request
		wantErr bool
	}{
		{line: "v1 query", want: request{op: opQuery}},
		{line: "v1 query abc:12", want: request{op: opQuery, token: "abc:12"}},
		{line: "v1 query anything-printable", want: request{op: opQuery, token: "anything-printable"}},
		{line: "v1 status", want: request{op: opStatus}},
		{line: "v1 stop", want: request{op: opStop}},
		{line: "", wantErr: true},
		{line: "v1", wantErr: true},
		{line: "v1 ", wantErr: true},
		{line: "v2 query", wantErr: true},
		{line: "V1 query", wantErr: true},
		{line: "query", wantErr: true},
		{line: "v1 frob", wantErr: true},
		{line: "v1 query ", wantErr: true},
		{line: "v1 query a b", wantErr: true},
		{line: "v1  query", wantErr: true},
		{line: "v1 query tab\tinside", wantErr: true},
		{line: "v1 query caf\xc3\xa9", wantErr: true},
		{line: "v1 query " + strings.Repeat("x", 257), wantErr: true},
		{line: "v1 status now", wantErr: true},
		{line: "v1 stop now", wantErr: true},
		{line: "v1 query\r", wantErr: true},
	} {
		got, err := parseRequest(tc.line)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseRequest(%q) = %+v, %v; want %+v, error %v", tc.line, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseRequestRejectsOtherVersions(t *testing.T) {
	_, err := parseRequest("v2 query abc:1")
	if !errors.Is(err, errVersion) {
		t.Errorf("v2 request: error %v, want %v", err, errVersion)
	}
}

// FuzzParseRequest checks that no input makes the parser panic, and that
// whatever it accepts it would accept again, unchanged, when re-sent.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"v1 query", "v1 query abc:1", "v1 status", "v1 stop", "v2 stop", "", " ", "v1 query a b", "v1 \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		req, err := parseRequest(line)
		if err != nil {
			if req != (request{}) {
				t.Fatalf("error %v with a non-zero request %+v", err, req)
			}
			return
		}
		again := protoVersion + " " + req.op
		if req.token != "" {
			again += " " + req.token
		}
		if again != line {
			t.Fatalf("accepted %q but it reads as %q", line, again)
		}
		if strings.ContainsAny(req.token, " \n\r\t") {
			t.Fatalf("token %q has white space", req.token)
		}
	})
}

// TestChangesRoundTrip checks that every byte string survives as a path:
// file names may hold newlines, quotes or invalid UTF-8, and an altered
// name would be a change the caller never re-checks.
func TestChangesRoundTrip(t *testing.T) {
	for _, c := range []Changes{
		{Token: "abc:1"},
		{Token: "abc:2", Full: true},
		{Token: "abc:3", Paths: []string{".contextfs/a.md", "new\nline", "quote\"d", "bad\xffutf8", "tab\there", "space d", "émoji 😀", `back\slash`}, Prefixes: []string{".contextfs/x", "end"}},
	} {
		var buf bytes.Buffer
		if err := writeChanges(bufio.NewWriter(&buf), c); err != nil {
			t.Fatal(err)
		}
		lines, err := readAnswer(bufio.NewReader(&buf))
		if err != nil {
			t.Fatalf("readAnswer(%q): %v", buf.String(), err)
		}
		got, err := parseChanges(lines)
		if err != nil {
			t.Fatalf("parseChanges(%q): %v", lines, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip of %+v gave %+v", c, got)
		}
	}
}

func TestStatusRoundTrip(t *testing.T) {
	s := DaemonStatus{
		Instance: "0123456789abcdef", PID: 42, Root: "/work tree/x", Dir: ".contextfs",
		Started:     time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC),
		LastRequest: time.Date(2025, 1, 2, 3, 4, 6, 7, time.UTC),
		Seq:         99, Dirs: 3, Changes: 7, Degraded: "cannot watch /x: no space left on device",
	}
	var buf bytes.Buffer
	if err := writeStatus(bufio.NewWriter(&buf), s); err != nil {
		t.Fatal(err)
	}
	lines, err := readAnswer(bufio.NewReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseStatus(lines)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip of %+v gave %+v", s, got)
	}
}

func TestReadAnswerRejectsBadAnswers(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"error answer", "v1 err no such thing\nend\n", "daemon: no such thing"},
		{"other version", "v2 ok\nend\n", "unsupported protocol version"},
		{"truncated", "v1 ok\ntoken a:1\n", "unexpected EOF"},
		{"no end", "v1 ok\ntoken a:1", "unexpected EOF"},
		{"empty", "", "EOF"},
		{"garbage head", "v1 maybe\nend\n", "malformed answer"},
		{"line too long", "v1 ok\n" + strings.Repeat("x", maxAnswerLine+1) + "\nend\n", "line too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAnswer(bufio.NewReader(strings.NewReader(tc.in)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseChangesRejectsUnknownLines(t *testing.T) {
	for _, lines := range [][]string{
		{"token a:1", "rename \"x\""},
		{"token a:1", "file unquoted"},
		{"file \"x\""}, // no token
		{"token has space"},
	} {
		if c, err := parseChanges(lines); err == nil {
			t.Errorf("parseChanges(%q) = %+v, want an error", lines, c)
		}
	}
}
