package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/contextfs/contextfs/internal/embed"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		out, err   string // substrings of stdout and stderr
		errIsEmpty bool
	}{
		{"help has examples", []string{"-h"}, 0, "", "Examples:", false},
		{"version names the protocol", []string{"--version"}, 0, "git-contextfs-embed version dev (protocol 1)", "", true},
		{"the protocol is required", []string{"--url", "http://127.0.0.1:1/v1"}, 2, "", "speaks protocol 1, not 0", false},
		{"another protocol says to install from one build", []string{"--protocol", "2"}, 2, "", "make install", false},
		{"an argument is a usage error", []string{"--protocol", "1", "extra"}, 2, "", `takes no arguments, got "extra"`, false},
		{"an unknown flag is a usage error", []string{"--bogus"}, 2, "", "flag provided but not defined: -bogus", false},
		{"a bad URL is named", []string{"--protocol", "1", "--url", "ftp://x/v1"}, 2, "", `base URL "ftp://x/v1"`, false},
		{"a negative timeout is named", []string{"--protocol", "1", "--timeout", "-1s"}, 2, "", "negative timeout", false},
		{"no input is a clean exit", []string{"--protocol", "1"}, 0, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &errOut, func(string) string { return "" })
			if code != tt.code || !strings.Contains(out.String(), tt.out) || !strings.Contains(errOut.String(), tt.err) ||
				tt.errIsEmpty && errOut.Len() > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, %q, %q", code, out.String(), errOut.String(), tt.code, tt.out, tt.err)
			}
		})
	}
}

// A request read from standard input is answered on standard output with
// the key from the environment sent to the server; a request that is not
// JSON ends the program with exit 1.
func TestServesRequestsFromStandardInput(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		json.NewEncoder(w).Encode(map[string]any{"data": []map[string]any{{"index": 0, "embedding": []float32{1, 2}}}})
	}))
	defer srv.Close()
	env := func(k string) string {
		if k == embed.EnvProgramKey {
			return "sk-from-env"
		}
		return ""
	}
	var out, errOut bytes.Buffer
	in := strings.NewReader(`{"texts":["hello"]}` + "\n")
	if code := run([]string{"--protocol", "1", "--url", srv.URL + "/v1"}, in, &out, &errOut, env); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	head, vec, _ := strings.Cut(out.String(), "\n")
	if head != `{"n":1,"dim":2}` || len(vec) != 8 || auth != "Bearer sk-from-env" {
		t.Errorf("answer %q + %d bytes, Authorization %q", head, len(vec), auth)
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"--protocol", "1", "--url", srv.URL + "/v1"}, strings.NewReader("not json\n"), &out, &errOut, env); code != 1 ||
		!strings.Contains(errOut.String(), "not protocol 1") {
		t.Errorf("exit %d, stderr %q; want 1 and the protocol named", code, errOut.String())
	}
}
